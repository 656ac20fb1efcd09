//! A burn-in: write the span stamped, then read it all back and check it, for each pass
//! (`Half::Both`); or only the write (`Half::Write`, leaving a state file) or only the verify
//! (`Half::Verify`, from the state file or from the stamps themselves). Each pass stamps a new
//! pass number and draws a new random payload, so a block that still holds the last pass's
//! data reads back as stale. badblocks' fixed patterns (0xaa, 0x55, 0xff, 0x00) are not
//! offered: the payload is random, so over passes every bit is written both ways, and unlike a
//! repeated byte it cannot be compressed or deduplicated away by a controller. The result is a
//! `VerifyReport`: times and CPU, counts, bad stretches by offset, what the map shows, and the
//! real size the stamps give when the disk holds less than it claims.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::learn::{LEARN_SAMPLES, learn};
use super::live::Live;
use super::pass::{self, Plan};
use super::stamp::{self, Expect};
use super::state;
use super::tally::Tally;
use crate::engine::io::IoOpener;
use crate::model::verify::VerifyReport;
use crate::target::open::Target;
use crate::target::shell::quote_path;

/// Which halves of the burn-in run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    Both,
    Write,
    Verify,
}

impl Half {
    /// The mode's name in the report.
    pub fn mode(self) -> &'static str {
        match self {
            Half::Both => "burn-in",
            Half::Write => "burn-in=write",
            Half::Verify => "burn-in=verify",
        }
    }
}

/// One burn-in as asked.
#[derive(Debug, Clone)]
pub struct Job {
    pub half: Half,
    /// Passes to write (and verify); with `Half::Verify`, the pass to expect.
    pub passes: u32,
    pub plan: Plan,
    pub target: String,
    pub claimed_bytes: u64,
    /// `Half::Verify` of a write that stopped early: the byte ranges it wrote, the only ones
    /// checked. Empty: the whole span.
    pub only: Vec<[u64; 2]>,
    /// Without a state file: how the stamps chose the run checked.
    pub seed_from: Option<String>,
}

impl Job {
    /// Bytes one pass writes or checks.
    pub fn bytes_per_pass(&self) -> u64 {
        match self.only.as_slice() {
            [] => self.plan.span,
            only => only.iter().map(|r| r[1] - r[0]).sum(),
        }
    }

    /// Bytes the whole burn-in moves, writes and reads together: a pass's bytes for each
    /// pass written, and again for each read back (`=verify` reads back one pass).
    pub fn total_bytes(&self) -> u64 {
        let passes = match self.half {
            Half::Verify => 1,
            _ => u64::from(self.passes.max(1)),
        };
        let halves = if self.half == Half::Both { 2 } else { 1 };
        self.bytes_per_pass() * passes * halves
    }
}

/// CPU seconds this process has used (user and system).
pub fn cpu_seconds() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_SELF).map_or(0.0, |u| {
        let t = |v: nix::sys::time::TimeVal| v.tv_sec() as f64 + v.tv_usec() as f64 / 1e6;
        t(u.user_time()) + t(u.system_time())
    })
}

/// Runs `job`; `stop()` ends it early (a signal, the time limit), and the report says it was
/// not complete.
pub fn run(
    opener: &dyn IoOpener,
    job: &Job,
    live: &Live,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<VerifyReport, String> {
    let plan = &job.plan;
    let mut report = empty_report(job);
    let mut all = Tally::default();
    let (first, last) = match job.half {
        Half::Verify => (job.passes, job.passes),
        _ => (1, job.passes.max(1)),
    };
    for pass in first..=last {
        report.pass = pass;
        if job.half != Half::Verify {
            let (t0, p0) = (Instant::now(), live.paused_s());
            let before = live.written.load(std::sync::atomic::Ordering::Relaxed);
            let (tally, ranges) = pass::write(opener, plan, pass, live, stop)?;
            all.merge(tally);
            if stop() {
                report.written_ranges = ranges;
            }
            sync(opener);
            report.write_s += t0.elapsed().as_secs_f64() - (live.paused_s() - p0);
            report.written_bytes +=
                live.written.load(std::sync::atomic::Ordering::Relaxed) - before;
        }
        if stop() {
            break;
        }
        if job.half != Half::Write {
            live.clear_map();
            let expect = Expect {
                seed: plan.seed,
                pass,
                min_seq: 0,
                writer: None,
            };
            let (t0, cpu0, p0) = (Instant::now(), cpu_seconds(), live.paused_s());
            let before = live.verified.load(std::sync::atomic::Ordering::Relaxed);
            all.merge(pass::verify(opener, plan, expect, &job.only, live, stop)?);
            report.verify_s += t0.elapsed().as_secs_f64() - (live.paused_s() - p0);
            report.verify_cpu_s += cpu_seconds() - cpu0;
            report.verified_bytes +=
                live.verified.load(std::sync::atomic::Ordering::Relaxed) - before;
            if stop() {
                break;
            }
        }
    }
    report.complete = !stop();
    if job.half == Half::Verify {
        report.written_ranges.clone_from(&job.only);
        report.seed_from.clone_from(&job.seed_from);
    }
    report.capacity = all.capacity(plan.span);
    report.counts = all.counts;
    report.bad = all.extents;
    report.extents_left_out = all.left_out;
    if job.half != Half::Write {
        report.map = Some(live.map());
    }
    report.findings = crate::findings::verify::findings(&report);
    Ok(report)
}

/// Flushes what the write left in caches below us (the page cache with --buffered, the
/// device's cache), so the verify reads what the disk holds.
fn sync(opener: &dyn IoOpener) {
    if let Ok(mut io) = opener.open_io() {
        let _ = io.sync_data();
    }
}

fn empty_report(job: &Job) -> VerifyReport {
    VerifyReport {
        mode: job.half.mode().into(),
        target: job.target.clone(),
        claimed_bytes: job.claimed_bytes,
        span_bytes: job.plan.span,
        block_bytes: job.plan.bs,
        unit_bytes: job.plan.unit as u64,
        seed: job.plan.seed,
        pass: 0,
        passes: job.passes,
        written_bytes: 0,
        verified_bytes: 0,
        counts: Default::default(),
        bad: Vec::new(),
        extents_left_out: 0,
        capacity: None,
        write_s: 0.0,
        verify_s: 0.0,
        verify_cpu_s: 0.0,
        state_file: None,
        complete: false,
        written_ranges: Vec::new(),
        seed_from: None,
        map: None,
        findings: Vec::new(),
    }
}

/// The burn-in's block size: `-b` where typed, else 1 MiB, as the surface scan reads. A pass
/// over a whole disk in the run's default 4 KiB takes days (67 MB/s was measured here).
pub fn block_size(asked: Option<u64>) -> u64 {
    asked.unwrap_or(crate::surface::session::DEFAULT_BLOCK)
}

/// A burn-in as the command line (or the TUI) asks for it.
#[derive(Debug, Clone)]
pub struct Ask {
    pub half: Half,
    pub bs: u64,
    pub threads: usize,
    pub passes: u32,
    /// `--burn-in-state FILE`; `None`: the state directory's file for the target.
    pub state: Option<PathBuf>,
    pub seed: u64,
}

/// The plan for `ask` on `target`: for a write, from the block size, the threads and the span;
/// for `Half::Verify`, from the state file, else from the stamps. Returns the job, the state
/// file's path for the halves that use one, and what is worth saying (a write that stopped
/// early, a verify without its state file).
pub fn plan(ask: &Ask, target: &Target) -> Result<(Job, Option<PathBuf>, Vec<String>), String> {
    let shown = quote_path(&target.path);
    let state_path = match ask.half {
        Half::Both => None,
        _ => Some(match &ask.state {
            Some(p) => p.clone(),
            None => state::default_path(&target.path)?,
        }),
    };
    let unit = stamp::unit_for(ask.bs);
    let mut plan = Plan {
        span: target.span_bytes - target.span_bytes % unit as u64,
        bs: ask.bs,
        unit,
        threads: ask.threads,
        align: (target.logical_block_size as usize).max(4096),
        seed: ask.seed,
        start: Instant::now(),
    };
    let mut passes = ask.passes.max(1);
    let mut notes = Vec::new();
    let mut only = Vec::new();
    let mut seed_from = None;
    if ask.half == Half::Verify {
        let path = state_path.as_deref().unwrap_or(Path::new(""));
        match state::load(path)? {
            Some(s) => {
                s.check_target(path, &target.path, &shown)?;
                if !s.complete {
                    notes.push(s.stopped_note(path)?);
                    only.clone_from(&s.written_ranges);
                }
                plan.span = s.span_bytes.min(plan.span);
                plan.bs = s.block_bytes;
                plan.unit = s.unit_bytes as usize;
                plan.seed = s.seed;
                passes = s.pass;
            }
            None => {
                let l = learn(target, plan.span, plan.align).ok_or_else(|| {
                    format!(
                        "{shown}: no state file at {} and no intact stamp at any of {} places \
                         across the disk: run --burn-in=write first (or name its state with \
                         --burn-in-state FILE)",
                        quote_path(path),
                        LEARN_SAMPLES
                    )
                })?;
                let from = format!(
                    "of {LEARN_SAMPLES} places sampled across the span, {} hold an intact \
                     stamp, {} of them run {:#018x} pass {}: the run checked",
                    l.intact, l.agree, l.seed, l.pass
                );
                notes.push(format!(
                    "no state file at {}: the seed and pass come from the stamps on the disk: \
                     {from}",
                    quote_path(path)
                ));
                seed_from = Some(from);
                plan.seed = l.seed;
                passes = l.pass;
            }
        }
    }
    let job = Job {
        half: ask.half,
        passes,
        plan,
        target: shown,
        claimed_bytes: target.size_bytes.max(target.span_bytes),
        only,
        seed_from,
    };
    Ok((job, state_path, notes))
}

/// After a write: the state file kept at `path`, and the line that says where. After a
/// verify: the file it read named in the report.
pub fn keep_state(
    report: &mut VerifyReport,
    job: &Job,
    path: Option<&Path>,
) -> Result<Option<String>, String> {
    let Some(path) = path else {
        return Ok(None);
    };
    let mut note = None;
    if job.half == Half::Write {
        let s = state::State {
            target: job.target.clone(),
            claimed_bytes: job.claimed_bytes,
            span_bytes: job.plan.span,
            block_bytes: job.plan.bs,
            unit_bytes: job.plan.unit as u64,
            seed: job.plan.seed,
            pass: report.pass,
            written_bytes: report.written_bytes,
            complete: report.complete,
            written_ranges: report.written_ranges.clone(),
            written_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        state::save(path, &s)?;
        note = Some(format!(
            "the burn-in's state is kept in {}: after the power cycle run --burn-in=verify on \
             the same target",
            quote_path(path)
        ));
    }
    if path.exists() {
        report.state_file = Some(quote_path(path));
    }
    Ok(note)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(half: Half, passes: u32, only: Vec<[u64; 2]>) -> Job {
        Job {
            half,
            passes,
            plan: Plan {
                span: 256 << 20,
                bs: 1 << 20,
                unit: 4096,
                threads: 2,
                align: 4096,
                seed: 1,
                start: Instant::now(),
            },
            target: "d".into(),
            claimed_bytes: 256 << 20,
            only,
            seed_from: None,
        }
    }

    #[test]
    fn the_progress_total_counts_what_the_burn_in_will_move() {
        assert_eq!(job(Half::Both, 2, vec![]).total_bytes(), 4 * (256 << 20));
        assert_eq!(job(Half::Write, 2, vec![]).total_bytes(), 2 * (256 << 20));
        // A verify of pass 2 reads one pass; of a write stopped early, only what it wrote.
        assert_eq!(job(Half::Verify, 2, vec![]).total_bytes(), 256 << 20);
        let stopped = vec![[0, 12 << 20], [128 << 20, 140 << 20]];
        assert_eq!(job(Half::Verify, 1, stopped).total_bytes(), 24 << 20);
    }
}
