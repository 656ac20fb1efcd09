//! The drive's own health over a run: the watch (`health::watch`) read at the start, each
//! minute on its own thread (each read stamped with the seconds since the start read, which
//! is the run's start) and once more at the end. `finish` turns the reads into `health` for the
//! JSON and the findings: what the record says at the start, then each counter that moved
//! between two reads, at the time the later read found it.

use crate::findings::Finding;
use crate::findings::health::{device_health, record_findings};
use crate::findings::health_changes::changes;
use crate::health::watch::HealthWatch;
use crate::model::health::{DeviceHealth, HealthAround, HealthRecord};

/// A run's health reads.
pub struct RunHealth {
    watch: HealthWatch,
}

impl RunHealth {
    pub fn new(watch: HealthWatch) -> RunHealth {
        RunHealth { watch }
    }

    /// The health of the drive under the target at `path` (its facts read under
    /// `SYSFS_PATH`), read now and each minute.
    pub fn for_target(path: &std::path::Path) -> RunHealth {
        let facts = crate::target::facts::DiskFacts::for_path(&crate::sys::sysfs_root(), path);
        RunHealth::new(HealthWatch::start(
            crate::health::HealthTarget::of_facts(&facts),
            crate::health::watch::EVERY,
        ))
    }

    /// The start's read, judged (the run header's line).
    pub fn start(&self) -> DeviceHealth {
        device_health(self.watch.start_read().clone())
    }

    /// `finish`, its findings put into `findings`: what the record says first (the drive's
    /// state frames every figure), what moved last, in time.
    pub fn finish_into(&mut self, run_s: f64, findings: &mut Vec<Finding>) -> HealthAround {
        let (around, found) = self.finish(run_s);
        let (timed, whole): (Vec<_>, Vec<_>) = found.into_iter().partition(|f| f.at_s.is_some());
        findings.splice(0..0, whole);
        findings.extend(timed);
        around
    }

    /// Reads once more at the end, `run_s` seconds in: the record around the run, and the
    /// findings (the start's, then what moved, by time).
    pub fn finish(&mut self, run_s: f64) -> (HealthAround, Vec<Finding>) {
        let (seen, end) = self.watch.finish();
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
        let mut reads: Vec<(f64, &HealthRecord)> = seen.iter().map(|(t, r)| (*t, r)).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::HealthTarget;
    use crate::model::disk::LinkKind;
    use crate::model::health::{HealthRead, counter};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    static MEDIA: AtomicU64 = AtomicU64::new(0);

    /// A drive whose media errors rise by one at each read.
    fn failing(_: &HealthTarget) -> HealthRead {
        let mut r = HealthRecord {
            critical_warning: Some(0),
            ..HealthRecord::default()
        };
        r.set_counter(
            counter::MEDIA_ERRORS,
            "media errors",
            None,
            MEDIA.fetch_add(1, Ordering::SeqCst),
        );
        Ok(r)
    }

    #[test]
    fn reads_between_start_and_end_are_findings_at_their_time() {
        let target = HealthTarget {
            disk: Some("nvme0n1".into()),
            link: LinkKind::Pcie,
            nvme_controller: Some("nvme0".into()),
            dev_root: "/dev".into(),
        };
        let watch = HealthWatch::start_with(target, Duration::from_millis(20), failing);
        let mut h = RunHealth::new(watch);
        assert_eq!(h.start().status, crate::model::health::Verdict::Ok);
        std::thread::sleep(Duration::from_millis(70));
        let (around, findings) = h.finish(42.0);
        assert!(around.reads >= 3, "{around:?}");
        assert_eq!(
            around.start.unwrap().counter(counter::MEDIA_ERRORS),
            Some(0)
        );
        let end = around.end.unwrap().counter(counter::MEDIA_ERRORS).unwrap();
        let changed: Vec<&Finding> = findings.iter().filter(|f| f.at_s.is_some()).collect();
        assert_eq!(
            changed.len() as u64,
            end,
            "one finding per read that moved: {findings:?}"
        );
        assert!(
            changed[0].text.starts_with("1 new media error at 0:00"),
            "{changed:?}"
        );
        let last = changed.last().unwrap();
        assert_eq!(last.at_s, Some(42.0));
        assert!(
            last.text.starts_with("1 new media error at 0:42"),
            "{last:?}"
        );
    }
}
