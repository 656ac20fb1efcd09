//! `--verify` on an ordinary write or mixed run: the engine's `Checker`. Each worker stamps
//! its writes (pass 1, the run's seed, the sequence as nanoseconds since the start, the worker
//! as writer) and checks the writes it reads back (`engine::check` picks which); it counts in
//! its own `Tally` and merges it into the run's every time the worker hands its counts over
//! (every 10 ms at most), the only lock it takes. At the end `report` makes the run's
//! `VerifyReport` ("verify" in the run's JSON).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::stamp::{self, Expect, Mark, Verdict};
use super::tally::Tally;
use crate::engine::check::{Checker, WorkerCheck};
use crate::model::verify::VerifyReport;

/// The run's checker and what its workers found.
pub struct During {
    seed: u64,
    start: Instant,
    found: Arc<Mutex<Tally>>,
}

impl During {
    pub fn new(seed: u64) -> During {
        During {
            seed,
            start: Instant::now(),
            found: Arc::new(Mutex::new(Tally::default())),
        }
    }

    /// What the workers found so far (all of it once the engine has stopped).
    pub fn tally(&self) -> Tally {
        self.found.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The run's `verify` object: counts, bad stretches by offset, findings.
    pub fn report(&self, target: &str, span: u64, bs: u64) -> VerifyReport {
        let t = self.tally();
        let units = t.counts.intact + t.counts.bad();
        let mut r = VerifyReport {
            mode: "verify".into(),
            target: target.into(),
            claimed_bytes: span,
            span_bytes: span,
            block_bytes: bs,
            unit_bytes: stamp::unit_for(bs) as u64,
            seed: self.seed,
            pass: 1,
            passes: 1,
            written_bytes: 0,
            verified_bytes: units * stamp::unit_for(bs) as u64,
            counts: t.counts,
            bad: t.extents.clone(),
            extents_left_out: t.left_out,
            capacity: t.capacity(span).filter(|_| t.alias_gcd > 0),
            write_s: 0.0,
            verify_s: 0.0,
            verify_cpu_s: 0.0,
            state_file: None,
            complete: true,
            map: None,
            findings: Vec::new(),
        };
        r.findings = crate::findings::verify::findings(&r);
        r
    }
}

impl Checker for During {
    fn worker(&self, index: usize) -> Box<dyn WorkerCheck> {
        Box::new(Worker {
            seed: self.seed,
            start: self.start,
            writer: index as u16,
            mine: Tally::default(),
            found: self.found.clone(),
        })
    }
}

struct Worker {
    seed: u64,
    start: Instant,
    writer: u16,
    mine: Tally,
    found: Arc<Mutex<Tally>>,
}

impl WorkerCheck for Worker {
    #[inline]
    fn stamp(&mut self, buf: &mut [u8], offset: u64) -> u64 {
        let seq = self.start.elapsed().as_nanos() as u64;
        let mark = Mark {
            seed: self.seed,
            pass: 1,
            seq,
            writer: self.writer,
        };
        stamp::stamp(buf, offset, stamp::unit_for(buf.len() as u64), mark);
        seq
    }

    #[inline]
    fn check(&mut self, buf: &[u8], offset: u64, seq: u64) -> Option<(u64, String)> {
        let unit = stamp::unit_for(buf.len() as u64);
        let expect = Expect {
            seed: self.seed,
            pass: 1,
            min_seq: seq,
            writer: Some(self.writer),
        };
        let mut first = None;
        let mut intact = 0;
        for (j, u) in buf.chunks_exact(unit).enumerate() {
            let at = offset + (j * unit) as u64;
            match stamp::check(u, at, &expect) {
                Verdict::Intact => intact += 1,
                v => {
                    if let Some(kind) = self.mine.bad(at, unit as u64, v) {
                        first.get_or_insert((at, format!("read back: {}", kind.label())));
                    }
                }
            }
        }
        self.mine.intact(intact);
        first
    }

    fn flush(&mut self) {
        if self.mine == Tally::default() {
            return;
        }
        let mine = std::mem::take(&mut self.mine);
        self.found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .merge(mine);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_reads_back_its_own_write_and_names_what_changed() {
        let during = During::new(99);
        let mut w = during.worker(2);
        let mut buf = vec![7u8; 8192];
        let seq = w.stamp(&mut buf, 1 << 20);
        assert_eq!(w.check(&buf, 1 << 20, seq), None);
        buf[4100] ^= 4;
        let (at, what) = w.check(&buf, 1 << 20, seq).unwrap();
        assert_eq!(at, (1 << 20) + 4096);
        assert!(what.contains("corrupt"), "{what}");
        w.flush();
        let t = during.tally();
        assert_eq!((t.counts.intact, t.counts.corrupt), (3, 1));
        let r = during.report("f", 1 << 30, 8192);
        assert_eq!(r.bad[0].offset, (1 << 20) + 4096);
        assert_eq!(r.findings[0].kind, "verify_bad");
    }
}
