//! One pass over the span: write it stamped, or read it back and check every unit. The span
//! is cut into `threads` stripes of whole blocks; each thread walks its stripe in order with its
//! own descriptor (`IoOpener`) and its own aligned buffer, stamping the buffer in place before
//! each write and checking it in place after each read. Per block it touches its buffer, its
//! own `Tally` (which only grows on a bad unit, and never past its bound) and two atomics of
//! `Live`: no lock, no allocation. A block that fails to read or write is counted with its
//! error and the pass goes on.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::live::{self, Live};
use super::stamp::{self, Expect, Mark, Verdict};
use super::tally::Tally;
use crate::engine::buffer::AlignedBuf;
use crate::engine::io::{BlockIo, IoOpener};
use crate::model::verify::BadKind;

/// What every pass of one burn-in shares.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Bytes stamped from offset 0 (a whole number of units).
    pub span: u64,
    /// Bytes per I/O (a whole number of units).
    pub bs: u64,
    /// Bytes per stamp.
    pub unit: usize,
    pub threads: usize,
    /// Buffer alignment (the logical block size, for O_DIRECT).
    pub align: usize,
    pub seed: u64,
    /// Sequence numbers count nanoseconds from here.
    pub start: Instant,
}

impl Plan {
    /// Blocks in the span (the last may be shorter than `bs`).
    pub fn blocks(&self) -> u64 {
        self.span.div_ceil(self.bs)
    }

    /// Thread `i`'s blocks: [first, end).
    fn stripe(&self, i: usize) -> (u64, u64) {
        let (n, t) = (self.blocks(), self.threads.max(1) as u64);
        (i as u64 * n / t, (i as u64 + 1) * n / t)
    }

    /// Block `k`: its offset and length (whole units; the span's tail is cut to them).
    #[inline]
    fn block(&self, k: u64) -> (u64, usize) {
        let off = k * self.bs;
        let len = self.bs.min(self.span - off);
        (off, (len - len % self.unit as u64) as usize)
    }
}

/// Runs `each(thread, io, buffer, first, end)` on every stripe at once; their tallies merged.
fn on_stripes<F>(opener: &dyn IoOpener, plan: &Plan, each: F) -> Result<Tally, String>
where
    F: Fn(usize, &mut dyn BlockIo, &mut [u8], u64, u64) -> Tally + Sync,
{
    let ios = (0..plan.threads.max(1))
        .map(|i| {
            opener
                .open_io()
                .map_err(|e| format!("opening descriptor {}: {e}", i + 1))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let each = &each;
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let handles: Vec<_> = ios
            .into_iter()
            .enumerate()
            .map(|(i, mut io)| {
                s.spawn(move || {
                    let _fair = crate::engine::niceness::Fair::enlist();
                    let mut buf = AlignedBuf::new(plan.bs as usize, plan.align);
                    let (first, end) = plan.stripe(i);
                    each(i, &mut *io, &mut buf, first, end)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut all = Tally::default();
    for t in tallies {
        all.merge(t);
    }
    Ok(all)
}

/// Writes pass `pass` over the span; `stop()` ends it early. Returns the write errors and
/// the byte ranges [start, end) written, one per stripe, in offset order.
pub fn write(
    opener: &dyn IoOpener,
    plan: &Plan,
    pass: u32,
    live: &Live,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(Tally, Vec<[u64; 2]>), String> {
    let reached = std::sync::Mutex::new(Vec::new());
    let tally = on_stripes(opener, plan, |i, io, buf, first, end| {
        // Fresh random payload each pass: every bit is written both ways over passes, and
        // nothing a controller could compress or deduplicate.
        let mut rng = SmallRng::seed_from_u64(plan.seed ^ (u64::from(pass) << 32) ^ i as u64);
        rng.fill_bytes(buf);
        let mut t = Tally::default();
        let mut k = first;
        while k < end {
            if stop() {
                break;
            }
            let (off, len) = plan.block(k);
            k += 1;
            let b = &mut buf[..len];
            let seq = plan.start.elapsed().as_nanos() as u64;
            let mark = Mark {
                seed: plan.seed,
                pass,
                seq,
                writer: i as u16,
            };
            stamp::stamp(b, off, plan.unit, mark);
            match io.write_at(b, off) {
                Ok(n) if n == len => {}
                Ok(n) => t.io_error(off, len as u64, BadKind::WriteError, short(n, len)),
                Err(e) => t.io_error(off, len as u64, BadKind::WriteError, e.to_string()),
            }
            live.written.fetch_add(len as u64, Relaxed);
        }
        // Once per thread: where its stripe's write got to.
        let (from, to) = (
            (first * plan.bs).min(plan.span),
            (k * plan.bs).min(plan.span),
        );
        if to > from {
            reached
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push([from, to]);
        }
        t
    })?;
    let mut ranges = reached.into_inner().unwrap_or_else(|e| e.into_inner());
    ranges.sort_unstable();
    Ok((tally, ranges))
}

/// Whether the block at `off` is one to check: `only` empty (all of them) or holding it.
#[inline]
fn wanted(only: &[[u64; 2]], off: u64) -> bool {
    only.is_empty() || only.iter().any(|r| r[0] <= off && off < r[1])
}

/// Reads the span back (only the byte ranges `only` when it is not empty: what a write that
/// stopped early wrote) and checks every unit against `expect`; `stop()` ends it early.
pub fn verify(
    opener: &dyn IoOpener,
    plan: &Plan,
    expect: Expect,
    only: &[[u64; 2]],
    live: &Live,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Tally, String> {
    on_stripes(opener, plan, |_, io, buf, first, end| {
        let mut t = Tally::default();
        for k in first..end {
            if stop() {
                break;
            }
            let (off, len) = plan.block(k);
            if !wanted(only, off) {
                continue;
            }
            let b = &mut buf[..len];
            let worst = match io.read_at(b, off) {
                Ok(n) if n == len => check_block(b, off, plan.unit, &expect, &mut t),
                Ok(n) => {
                    t.io_error(off, len as u64, BadKind::ReadError, short(n, len));
                    Some(BadKind::ReadError)
                }
                Err(e) => {
                    t.io_error(off, len as u64, BadKind::ReadError, e.to_string());
                    Some(BadKind::ReadError)
                }
            };
            if worst.is_some() {
                live.bad_units.store(t.counts.bad(), Relaxed);
            }
            live.mark(off, live::code(worst));
            live.verified.fetch_add(len as u64, Relaxed);
        }
        t
    })
}

/// Checks every unit of the block read at `off`; returns the worst bad kind, if any.
#[inline]
pub fn check_block(
    b: &[u8],
    off: u64,
    unit: usize,
    expect: &Expect,
    t: &mut Tally,
) -> Option<BadKind> {
    let mut intact = 0;
    let mut worst: Option<BadKind> = None;
    for (j, u) in b.chunks_exact(unit).enumerate() {
        let at = off + (j * unit) as u64;
        match stamp::check(u, at, expect) {
            Verdict::Intact => intact += 1,
            v => worst = worst.max(t.bad(at, unit as u64, v)),
        }
    }
    t.intact(intact);
    worst
}

fn short(n: usize, len: usize) -> String {
    format!("short: {n} of {len} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::{Arc, Mutex};

    /// A disk in memory, all zeroes to start; it holds as many bytes as its vector, and
    /// byte X of a larger span lands at X mod that (a fake capacity that wraps).
    #[derive(Clone)]
    struct Mem(Arc<Mutex<Vec<u8>>>);

    impl BlockIo for Mem {
        fn read_at(&mut self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
            let d = self.0.lock().unwrap();
            for (i, b) in buf.iter_mut().enumerate() {
                *b = d[(offset as usize + i) % d.len()];
            }
            Ok(buf.len())
        }
        fn write_at(&mut self, buf: &[u8], offset: u64) -> std::io::Result<usize> {
            let mut d = self.0.lock().unwrap();
            let n = d.len();
            for (i, b) in buf.iter().enumerate() {
                d[(offset as usize + i) % n] = *b;
            }
            Ok(buf.len())
        }
    }

    #[test]
    fn a_disk_that_wraps_at_a_size_not_a_whole_number_of_stamps_is_a_fake_of_that_size() {
        // 1 MiB + 1.5 KiB real behind 4 MiB claimed: every stamp past it lands part-way
        // into a 4 KiB unit.
        let real = (1 << 20) + 1536;
        let span = 4 << 20;
        let disk = Mem(Arc::new(Mutex::new(vec![0; real])));
        let plan = Plan {
            span,
            bs: 65536,
            unit: 4096,
            threads: 1,
            align: 4096,
            seed: 9,
            start: Instant::now(),
        };
        let live = Live::new(span, plan.bs);
        write(&disk, &plan, 1, &live, &|| false).unwrap();
        let expect = Expect {
            seed: 9,
            pass: 1,
            min_seq: 0,
            writer: None,
        };
        let t = verify(&disk, &plan, expect, &[], &live, &|| false).unwrap();
        // Past the last wrap's end, a unit or two hold pieces of two wraps and no whole header.
        assert!(t.counts.other_data <= 2, "{:?}", t.counts);
        assert!(t.counts.aliased > 700, "{:?}", t.counts);
        let c = t.capacity(span).unwrap();
        assert_eq!(c.real_bytes, real as u64, "{c:?}");
    }

    impl IoOpener for Mem {
        fn open_io(&self) -> std::io::Result<Box<dyn BlockIo>> {
            Ok(Box::new(self.clone()))
        }
    }

    #[test]
    fn a_write_stopped_early_says_what_it_wrote_and_a_verify_of_only_that_is_clean() {
        let span = 64 * 16384;
        let disk = Mem(Arc::new(Mutex::new(vec![0; span as usize])));
        let plan = Plan {
            span,
            bs: 16384,
            unit: 4096,
            threads: 2,
            align: 4096,
            seed: 5,
            start: Instant::now(),
        };
        let live = Live::new(span, plan.bs);
        // Stops after about 10 blocks of the 64, wherever each thread got to.
        let calls = AtomicUsize::new(0);
        let stop = || calls.fetch_add(1, Relaxed) >= 10;
        let (_, ranges) = write(&disk, &plan, 1, &live, &stop).unwrap();
        let wrote: u64 = ranges.iter().map(|r| r[1] - r[0]).sum();
        assert_eq!(wrote, live.written.load(Relaxed), "{ranges:?}");
        assert!(wrote > 0 && wrote < span, "{ranges:?}");
        // Each thread's stretch starts at its stripe (0 and half the span); which threads got
        // to write before the stop is the scheduler's.
        assert!(
            ranges.iter().all(|r| r[0] == 0 || r[0] == span / 2),
            "each starts at its stripe: {ranges:?}"
        );
        let expect = Expect {
            seed: 5,
            pass: 1,
            min_seq: 0,
            writer: None,
        };
        let live = Live::new(span, plan.bs);
        let t = verify(&disk, &plan, expect, &ranges, &live, &|| false).unwrap();
        assert_eq!(t.counts.bad(), 0, "{:?}", t.counts);
        assert_eq!(t.counts.intact * 4096, wrote);
        assert_eq!(live.verified.load(Relaxed), wrote);
        // The whole span: what was never written reads as zeroes.
        let t = verify(
            &disk,
            &plan,
            expect,
            &[],
            &Live::new(span, plan.bs),
            &|| false,
        )
        .unwrap();
        assert_eq!(t.counts.zeroes * 4096, span - wrote);
    }

    #[test]
    fn the_time_held_paused_is_not_in_the_burn_ins_write_or_verify_time() {
        use crate::verify::burnin::{Half, Job, run};
        let span = 16 * 16384;
        let disk = Mem(Arc::new(Mutex::new(vec![0; span as usize])));
        let plan = Plan {
            span,
            bs: 16384,
            unit: 4096,
            threads: 1,
            align: 4096,
            seed: 3,
            start: Instant::now(),
        };
        let job = Job {
            half: Half::Both,
            passes: 1,
            plan,
            target: "mem".into(),
            claimed_bytes: span,
            only: vec![],
            seed_from: None,
        };
        let live = Live::new(span, plan.bs);
        // Held paused for 300 ms at the first block of each half, as the TUI's wait does.
        let calls = AtomicUsize::new(0);
        let stop = || {
            let n = calls.fetch_add(1, Relaxed);
            if n == 0 || n == 40 {
                std::thread::sleep(std::time::Duration::from_millis(300));
                live.paused_ns.fetch_add(300_000_000, Relaxed);
            }
            false
        };
        let t = Instant::now();
        let r = run(&disk, &job, &live, &stop).unwrap();
        let whole = t.elapsed().as_secs_f64();
        assert_eq!(r.counts.intact, span / 4096);
        let pauses = live.paused_ns.load(Relaxed) as f64 / 1e9;
        assert!(pauses >= 0.3, "{pauses}");
        assert!(
            r.write_s + r.verify_s <= whole - pauses + 0.01,
            "write {} + verify {} of {whole} s with {pauses} s paused",
            r.write_s,
            r.verify_s
        );
        assert!(r.write_s >= 0.0 && r.verify_s >= 0.0);
    }
}
