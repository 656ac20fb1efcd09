//! `--capacity-probe`: the quick test for a disk that claims more than it holds. Stamps go to
//! `PROBES` positions spread evenly over the span, written from the top down, so on a disk that
//! wraps the low positions (the ones it really holds) are written last; then enough other
//! stamped data is written, right after each probe, to push the probes out of any cache of up
//! to 1 GiB in front of the flash (f3probe's bound: `MAX_CACHE_SIZE_BYTE` in f3's libprobe.c,
//! which overwhelms the cache before it reads back); then the probes are read back in a
//! scattered order (f3 reads at random, since some fakes serve a sequential read from a larger
//! cache). A probe that holds another offset's stamp names a place two addresses share, and the
//! greatest common divisor of those distances is the real size; a probe that holds nothing
//! from some position on bounds it within one step.
//!
//! What it can miss: bad blocks between the probes, a fake whose cache is larger than 1 GiB,
//! one that keeps the probes' few blocks but loses bulk data, and flash that fails only after
//! time. The full `--burn-in` reads every block and is the proof.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::burnin::cpu_seconds;
use super::live::Live;
use super::pass::check_block;
use super::stamp::{self, Expect, Mark};
use super::tally::Tally;
use crate::engine::buffer::AlignedBuf;
use crate::engine::io::{BlockIo, IoOpener};
use crate::model::verify::{BadKind, Capacity, VerifyReport};

/// Positions probed.
pub const PROBES: u64 = 1024;
/// The cache the probe writes past: f3probe's bound.
pub const CACHE_BYTES: u64 = 1 << 30;
/// A prime above `PROBES`: stepping by it visits every probe once, out of order.
const SCATTER: u64 = 7919;

/// Where the probes go over a span: their block, their step, how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub block: u64,
    pub step: u64,
    pub count: u64,
    /// Filler written after each probe.
    pub filler: u64,
}

impl Layout {
    /// For `span` bytes with `align`-byte blocks (a power of two).
    pub fn new(span: u64, align: u64) -> Layout {
        let block = align.max(4096);
        let count = (span / block).clamp(1, PROBES);
        let step = (span / count) / block * block;
        let filler = (CACHE_BYTES.min(span / 2) / count).min(step - block) / block * block;
        Layout {
            block,
            step,
            count,
            filler,
        }
    }

    fn at(&self, i: u64) -> u64 {
        i * self.step
    }
}

/// Runs the probe over `span` bytes of what `opener` opens.
pub fn run(
    opener: &dyn IoOpener,
    span: u64,
    align: usize,
    seed: u64,
    live: &Live,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(VerifyReport, Layout), String> {
    let lay = Layout::new(span, align as u64);
    let mut io = opener
        .open_io()
        .map_err(|e| format!("opening the target: {e}"))?;
    let start = Instant::now();
    let mut tally = Tally::default();
    let mut buf = AlignedBuf::new(lay.block.max(lay.filler) as usize, align);
    SmallRng::seed_from_u64(seed).fill_bytes(&mut buf);
    let written = write_all(&mut *io, &mut buf, &lay, seed, stop, &mut tally);
    live.written.store(written, Relaxed);
    let _ = io.sync_data();
    let write_s = start.elapsed().as_secs_f64();
    let (t1, cpu0) = (Instant::now(), cpu_seconds());
    let bad = read_all(&mut *io, &mut buf, &lay, seed, live, stop, &mut tally);
    // Read in a scattered order: sorted by offset (and neighbours merged) for the report.
    let mut sorted = Tally::default();
    sorted.merge(tally);
    let tally = sorted;
    let mut report = VerifyReport {
        mode: "capacity-probe".into(),
        target: String::new(),
        claimed_bytes: span,
        span_bytes: span,
        block_bytes: lay.block,
        unit_bytes: stamp::unit_for(lay.block) as u64,
        seed,
        pass: 1,
        passes: 1,
        written_bytes: written,
        verified_bytes: live.verified.load(Relaxed),
        counts: tally.counts,
        bad: tally.extents.clone(),
        extents_left_out: tally.left_out,
        capacity: capacity(&tally, &bad, &lay, span),
        write_s,
        verify_s: t1.elapsed().as_secs_f64(),
        verify_cpu_s: cpu_seconds() - cpu0,
        state_file: None,
        complete: !stop(),
        written_ranges: Vec::new(),
        seed_from: None,
        map: Some(live.map()),
        findings: Vec::new(),
    };
    report.findings = crate::findings::verify::findings(&report);
    Ok((report, lay))
}

/// Writes the probes from the top down, then the filler after each; returns bytes written.
fn write_all(
    io: &mut dyn BlockIo,
    buf: &mut [u8],
    lay: &Layout,
    seed: u64,
    stop: &(dyn Fn() -> bool + Sync),
    t: &mut Tally,
) -> u64 {
    let start = Instant::now();
    let unit = stamp::unit_for(lay.block);
    let mut written = 0;
    let mut write = |buf: &mut [u8], at: u64, t: &mut Tally| {
        let seq = start.elapsed().as_nanos() as u64;
        let mark = Mark {
            seed,
            pass: 1,
            seq,
            writer: 0,
        };
        stamp::stamp(buf, at, unit, mark);
        let len = buf.len() as u64;
        match io.write_at(buf, at) {
            Ok(n) if n as u64 == len => written += len,
            Ok(n) => t.io_error(at, len, BadKind::WriteError, format!("short: {n}")),
            Err(e) => t.io_error(at, len, BadKind::WriteError, e.to_string()),
        }
    };
    for i in (0..lay.count).rev() {
        write(&mut buf[..lay.block as usize], lay.at(i), t);
    }
    for i in 0..lay.count {
        if lay.filler > 0 && !stop() {
            let at = lay.at(i) + lay.block;
            write(&mut buf[..lay.filler as usize], at, t);
        }
    }
    written
}

/// Reads the probes back in a scattered order; returns which were bad.
fn read_all(
    io: &mut dyn BlockIo,
    buf: &mut [u8],
    lay: &Layout,
    seed: u64,
    live: &Live,
    stop: &(dyn Fn() -> bool + Sync),
    t: &mut Tally,
) -> Vec<bool> {
    let expect = Expect {
        seed,
        pass: 1,
        min_seq: 0,
        writer: None,
    };
    let unit = stamp::unit_for(lay.block);
    let mut bad = vec![false; lay.count as usize];
    for n in 0..lay.count {
        if stop() {
            break;
        }
        let i = n * SCATTER % lay.count;
        let at = lay.at(i);
        let b = &mut buf[..lay.block as usize];
        let worst = match io.read_at(b, at) {
            Ok(n) if n == b.len() => check_block(b, at, unit, &expect, t),
            Ok(_) | Err(_) => {
                t.io_error(at, lay.block, BadKind::ReadError, "read failed".into());
                Some(BadKind::ReadError)
            }
        };
        bad[i as usize] = worst.is_some();
        live.mark(at, super::live::code(worst));
        live.verified.fetch_add(lay.block, Relaxed);
    }
    bad
}

/// The real size the probes give: the gcd of the aliased distances when a probe held another
/// offset's stamp; else, when every probe from some position on is bad and none below it,
/// that position, to within one step.
fn capacity(t: &Tally, bad: &[bool], lay: &Layout, span: u64) -> Option<Capacity> {
    if t.alias_gcd > 0 {
        return t.capacity(span);
    }
    let first = bad.iter().position(|&b| b)?;
    (first > 0 && bad[first..].iter().all(|&b| b)).then(|| Capacity {
        real_bytes: lay.at(first as u64),
        written_at: lay.at(first as u64),
        read_at: None,
        step_bytes: Some(lay.step),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_spread_over_the_span_with_filler_between_them() {
        let l = Layout::new(1 << 30, 512);
        assert_eq!((l.block, l.count, l.step), (4096, 1024, 1 << 20));
        // Half the span at most, spread after the probes, each inside its gap.
        assert_eq!(l.filler, (512 << 10) / 4096 * 4096);
        assert!(l.block + l.filler <= l.step);
        let big = Layout::new(20 << 40, 4096);
        assert_eq!(big.filler * big.count, CACHE_BYTES);
        let tiny = Layout::new(64 << 10, 4096);
        assert_eq!((tiny.count, tiny.step, tiny.filler), (16, 4096, 0));
    }

    #[test]
    fn the_scattered_order_visits_every_probe_once() {
        for count in [1u64, 16, 1000, 1024] {
            let mut seen = vec![false; count as usize];
            for n in 0..count {
                seen[(n * SCATTER % count) as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "{count}");
        }
    }

    #[test]
    fn a_bad_tail_of_probes_bounds_the_size_within_one_step() {
        let lay = Layout::new(1 << 30, 4096);
        let mut bad = vec![false; lay.count as usize];
        bad[100..].iter_mut().for_each(|b| *b = true);
        let c = capacity(&Tally::default(), &bad, &lay, 1 << 30).unwrap();
        assert_eq!(c.real_bytes, 100 << 20);
        assert_eq!(c.step_bytes, Some(1 << 20));
        bad[500] = false;
        assert_eq!(capacity(&Tally::default(), &bad, &lay, 1 << 30), None);
    }
}
