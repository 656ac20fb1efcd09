//! One scan of a prepared target from start to stop, for the headless front door and the
//! TUI alike: the plan (a quick sample, a full scan from the start, or a full scan resumed
//! from the state kept when the last one stopped), the loop, the state saved while it runs
//! and when it stops, forgotten when it ends. Takes plain values, never the command line.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, anyhow};

use crate::engine::io::IoOpener;
use crate::model::surface::{ScanKind, SurfaceReport};
use crate::surface::fold::Fold;
use crate::surface::plan::{FULL_REGIONS, QUICK_SAMPLE_BYTES, QUICK_SAMPLES, ScanPlan};
use crate::surface::resume::{self, SAVE_EVERY, ScanState};
use crate::surface::scan::{Progress, scan};
use crate::target::open::Target;
use crate::units::format_bytes;

/// Bytes of one read when none is asked: large enough for any disk's sequential rate.
pub const DEFAULT_BLOCK: u64 = 1 << 20;
/// Reads in flight when none is asked (fio's `iodepth` for the same comparison).
pub const DEFAULT_DEPTH: usize = 8;

/// `--surface[=quick|restart]`: what the command line asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceAsk {
    /// Every block, resuming a stopped scan of the same target where one is kept.
    Full,
    /// An even sample: the start of each of 256 regions.
    Quick,
    /// Every block from the start, forgetting a stopped scan.
    Restart,
}

impl SurfaceAsk {
    /// `full`, `quick` or `restart`.
    pub fn parse(text: &str) -> Result<SurfaceAsk, String> {
        match text {
            "" | "full" => Ok(SurfaceAsk::Full),
            "quick" => Ok(SurfaceAsk::Quick),
            "restart" => Ok(SurfaceAsk::Restart),
            _ => Err(format!(
                "'{text}': --surface takes quick (an even sample, seconds), full (every block, \
                 resuming a stopped scan) or restart (every block from the start)"
            )),
        }
    }

    /// The request with `block_bytes` and `depth`.
    pub fn request(self, block_bytes: u64, depth: usize) -> ScanRequest {
        ScanRequest {
            kind: if self == SurfaceAsk::Quick {
                ScanKind::Quick
            } else {
                ScanKind::Full
            },
            block_bytes,
            depth,
            restart: self == SurfaceAsk::Restart,
        }
    }
}

/// The scan's block and depth: `-b` and `-Q` where typed (`Config::scan_shape`), else 1 MiB
/// at depth 8.
pub fn request(ask: SurfaceAsk, (block, depth): (Option<u64>, Option<usize>)) -> ScanRequest {
    ask.request(
        block.unwrap_or(DEFAULT_BLOCK),
        depth.unwrap_or(DEFAULT_DEPTH),
    )
}

/// What to scan, as the command line or the TUI asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanRequest {
    pub kind: ScanKind,
    pub block_bytes: u64,
    pub depth: usize,
    /// A full scan from the start even where a stopped one is kept.
    pub restart: bool,
}

/// A scan ready to run: its plan, its report so far, and where it resumes from.
pub struct Ready {
    pub plan: ScanPlan,
    fold: Fold,
    depth: usize,
    target: PathBuf,
    /// Seconds spent by the sessions before this one.
    prior_s: f64,
    /// The stopped scan this one continues: its file and where it stopped.
    pub resumed: Option<(PathBuf, u64)>,
}

/// How a session ended.
pub struct Outcome {
    pub report: SurfaceReport,
    /// Where the stopped scan was kept, to resume (a full scan stopped before its end).
    pub kept: Option<PathBuf>,
    /// Why keeping it failed, if it did.
    pub keep_error: Option<String>,
}

/// The plan for `request` on `target`, resumed where a stopped full scan of it was kept.
pub fn ready(target: &Target, request: ScanRequest) -> Result<Ready> {
    let lbs = u64::from(target.logical_block_size).max(512);
    let span = target.span_bytes;
    let block = request.block_bytes;
    if block == 0 || !block.is_multiple_of(lbs) {
        return Err(anyhow!(
            "{}: a surface scan's block ({block} bytes) must be a whole number of the disk's {lbs}-byte blocks; give -b 1M",
            target.path.display()
        ));
    }
    if span < lbs {
        return Err(anyhow!(
            "{}: the span is {}: nothing to scan",
            target.path.display(),
            format_bytes(span)
        ));
    }
    let name = target.path.display().to_string();
    let plan = match request.kind {
        ScanKind::Full => ScanPlan::full(span, block, FULL_REGIONS),
        ScanKind::Quick => ScanPlan::quick(span, block, QUICK_SAMPLES, QUICK_SAMPLE_BYTES, lbs),
    };
    let mut out = Ready {
        fold: Fold::new(&plan, &name, request.depth),
        plan,
        depth: request.depth,
        target: target.path.clone(),
        prior_s: 0.0,
        resumed: None,
    };
    if request.kind == ScanKind::Full {
        if request.restart {
            resume::forget(&target.path);
        } else if let Some((path, state)) = resume::load(&target.path, span, block) {
            out.plan = out.plan.resumed_at(state.next_offset);
            out.fold = Fold::resume(state.report, &out.plan);
            out.prior_s = state.elapsed_s;
            out.resumed = Some((path, state.next_offset));
        }
    }
    Ok(out)
}

impl Ready {
    /// Runs the scan on `target`; `tick` sees the report and progress every ~100 ms and
    /// returns false to stop. A full scan stopped early is kept to resume.
    pub fn run(
        self,
        target: &Target,
        tick: &mut dyn FnMut(&SurfaceReport, &Progress) -> bool,
    ) -> Result<Outcome> {
        let mut io = target
            .open_io()
            .map_err(|e| anyhow!("{}: {e}", target.path.display()))?;
        let full = self.plan.kind == ScanKind::Full;
        let (prior_s, name) = (self.prior_s, self.target.display().to_string());
        let state = |report: &SurfaceReport, next: u64, elapsed_s: f64| ScanState {
            target: name.clone(),
            span_bytes: self.plan.span_bytes,
            block_bytes: self.plan.block_bytes,
            next_offset: next,
            elapsed_s: prior_s + elapsed_s,
            report: report.clone(),
        };
        let mut last_save = Instant::now();
        let mut on_tick = |fold: &Fold, p: &Progress| {
            if full && last_save.elapsed() >= SAVE_EVERY {
                last_save = Instant::now();
                let _ = resume::save(&state(&fold.report, p.resume_offset, p.elapsed_s));
            }
            tick(&fold.report, p)
        };
        let end = scan(io.as_mut(), &self.plan, self.depth, self.fold, &mut on_tick)
            .map_err(|e| anyhow!("{}: {e}", target.path.display()))?;
        let report = end.fold.finish(prior_s + end.elapsed_s, end.complete);
        let (mut kept, mut keep_error) = (None, None);
        if full && !end.complete {
            let s = state(&report, end.next_offset, end.elapsed_s);
            match resume::save(&s) {
                Ok(path) => kept = Some(path),
                Err(e) => keep_error = Some(e),
            }
        } else if full {
            resume::forget(&self.target);
        }
        Ok(Outcome {
            report,
            kept,
            keep_error,
        })
    }
}
