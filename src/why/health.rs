//! The drive's own health over a run, as a consumer drives it: the watch (`health::watch`)
//! read at the start, polled once a second (each record read since is stamped with the run's
//! time then), and read once more at the end. `finish` turns the reads into `health` for the
//! JSON and the findings: what the record says at the start, then each counter that moved
//! between two reads, at the time the later read found it.

use crate::findings::Finding;
use crate::findings::health::{changes, device_health, record_findings};
use crate::health::watch::HealthWatch;
use crate::model::health::{DeviceHealth, HealthAround, HealthRecord};

/// A run's health reads.
pub struct RunHealth {
    watch: HealthWatch,
    /// Records read between the start and the end, with the run's seconds when polled.
    seen: Vec<(f64, HealthRecord)>,
}

impl RunHealth {
    pub fn new(watch: HealthWatch) -> RunHealth {
        RunHealth {
            watch,
            seen: Vec::new(),
        }
    }

    /// The start's read, judged (the run header's line).
    pub fn start(&self) -> DeviceHealth {
        device_health(self.watch.start_read().clone())
    }

    /// Takes the records read since the last poll, `t_s` seconds into the run.
    pub fn poll(&mut self, t_s: f64) {
        for r in self.watch.poll() {
            self.seen.push((t_s, r));
        }
    }

    /// Reads once more at the end, `run_s` seconds in: the record around the run, and the
    /// findings (the start's, then what moved, by time).
    pub fn finish(&mut self, run_s: f64) -> (HealthAround, Vec<Finding>) {
        let (late, end) = self.watch.finish();
        self.seen.extend(late.into_iter().map(|r| (run_s, r)));
        let start = self.watch.start_read().clone();
        let mut around = HealthAround {
            reads: self.watch.reads(),
            ..HealthAround::default()
        };
        let Ok(start) = start else {
            around.note = start.err().map(|g| g.text);
            return (around, Vec::new());
        };
        let mut findings = record_findings(&start);
        let end = match end {
            Some(Ok(r)) => Some(r),
            Some(Err(gap)) => {
                around.note = Some(format!("not read at the end: {}", gap.text));
                None
            }
            None => None,
        };
        let mut reads: Vec<(f64, &HealthRecord)> = self.seen.iter().map(|(t, r)| (*t, r)).collect();
        if let Some(e) = &end {
            reads.push((run_s, e));
        }
        let whole_run = reads.len() == 1 && end.is_some();
        let mut prev = &start;
        for (t, r) in reads {
            findings.extend(changes(prev, r, t, whole_run));
            prev = r;
        }
        around.start = Some(start.clone());
        around.end = end;
        (around, findings)
    }
}
