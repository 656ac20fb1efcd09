//! `--verify` on an ordinary write or mixed run: the engine's `Checker`. Each worker stamps
//! its writes (pass 1, the run's seed, the sequence as nanoseconds since the start, the worker
//! as writer) and checks the writes it reads back (`engine::check` picks which); it counts in
//! its own `Tally` and merges it into the run's every time the worker hands its counts over
//! (every 10 ms at most), the only lock it takes, with the bytes it stamped and read back.
//! At the end `attach` puts the run's `VerifyReport` ("verify" in the run's JSON) and its
//! findings into the run's report, the same way for a headless run and the TUI.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::stamp::{self, Expect, Mark, Verdict};
use super::tally::Tally;
use crate::engine::check::{Checker, WorkerCheck};
use crate::model::RunReport;
use crate::model::verify::VerifyReport;

/// Bytes stamped and written, and bytes read back and checked, by all workers.
#[derive(Default)]
struct Moved {
    written: AtomicU64,
    verified: AtomicU64,
}

/// The run's checker and what its workers found.
pub struct During {
    seed: u64,
    start: Instant,
    found: Arc<Mutex<Tally>>,
    moved: Arc<Moved>,
}

impl During {
    pub fn new(seed: u64) -> During {
        During {
            seed,
            start: Instant::now(),
            found: Arc::new(Mutex::new(Tally::default())),
            moved: Arc::new(Moved::default()),
        }
    }

    /// Puts the run's `verify` object into `run` and its findings among the run's, so the
    /// summary's findings, the JSON's `findings` and the exit status all see a bad stamp.
    /// The writes and their read-backs are interleaved over the whole run: both times are
    /// the run's time.
    pub fn attach(&self, run: &mut RunReport, target: &str) {
        let mut v = self.report(target, run.config.target.span_bytes, run.final_settings.bs);
        v.write_s = run.total.elapsed_s;
        v.verify_s = run.total.elapsed_s;
        run.why.findings.retain(|f| !is_verify_finding(&f.kind));
        run.why.findings.extend(v.findings.iter().cloned());
        run.verify = Some(v);
    }

    /// What the workers found so far (all of it once the engine has stopped).
    pub fn tally(&self) -> Tally {
        self.found.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The run's `verify` object: counts, bad stretches by offset, findings.
    pub fn report(&self, target: &str, span: u64, bs: u64) -> VerifyReport {
        let t = self.tally();
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
            written_bytes: self.moved.written.load(Relaxed),
            verified_bytes: self.moved.verified.load(Relaxed),
            counts: t.counts,
            bad: t.extents.clone(),
            extents_left_out: t.left_out,
            capacity: t.capacity(span).filter(|_| t.alias_gcd > 0),
            write_s: 0.0,
            verify_s: 0.0,
            verify_cpu_s: 0.0,
            state_file: None,
            complete: true,
            written_ranges: Vec::new(),
            seed_from: None,
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
            written: 0,
            verified: 0,
            moved: self.moved.clone(),
        })
    }
}

/// The kinds of finding a verify brings (kept once when a report is attached again).
fn is_verify_finding(kind: &str) -> bool {
    use crate::findings::verify::{FAKE_CAPACITY, VERIFIED, VERIFY_BAD};
    [FAKE_CAPACITY, VERIFIED, VERIFY_BAD].contains(&kind)
}

struct Worker {
    seed: u64,
    start: Instant,
    writer: u16,
    mine: Tally,
    found: Arc<Mutex<Tally>>,
    /// Bytes this worker stamped and read back since its last flush.
    written: u64,
    verified: u64,
    moved: Arc<Moved>,
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
    fn wrote(&mut self, bytes: u64) {
        self.written += bytes;
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
        self.verified += buf.len() as u64;
        first
    }

    fn flush(&mut self) {
        self.moved
            .written
            .fetch_add(std::mem::take(&mut self.written), Relaxed);
        self.moved
            .verified
            .fetch_add(std::mem::take(&mut self.verified), Relaxed);
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
