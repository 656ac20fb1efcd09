//! The validated command line: `Config`, built from the raw `Args` by one small converter
//! per concern — the workload and its buffers, where the output goes, what a fleet cannot
//! honour, a suite's timing, durability — each refusing with one line that quotes what was
//! typed and says what would work. The front door hands plain parts of it downward
//! (`target_request`, `files`, `describe`); nothing below `run` and `tui` sees a `Config`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Args;
use super::args::{FleetArgs, OutputArgs, SeriesArgs, WorkloadArgs};
use crate::fleet::hosts::Host;
use crate::model::{ConfigReport, Durability};
use crate::render::ResultFiles;
use crate::result_file::{self, Kind};
use crate::settings::{IoEngine, Settings};
use crate::suite::{SuiteName, Timing};
use crate::sweep::SweepSpec;
use crate::target::prepare::{Prepared, TargetRequest, config_report};

/// How results are printed when there is no TUI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Text,
    Quiet,
    Json,
    Csv,
}

/// Validated command line.
#[derive(Debug, Clone)]
pub struct Config {
    /// What to test; `None` is the scratch file in the current directory.
    pub target: Option<PathBuf>,
    /// Starting settings.
    pub settings: Settings,
    /// Run length; `None` runs until quit (TUI only).
    pub duration: Option<Duration>,
    /// O_DIRECT (true) or through the page cache.
    pub direct: bool,
    /// `None`: read-only. `Some("")`: --allow-write without a device name.
    pub allow_write: Option<String>,
    /// Span of the target to use, or the scratch file's size.
    pub size: Option<u64>,
    pub keep: bool,
    pub no_tui: bool,
    /// Fail rather than fall back to text when there is no terminal.
    pub tui: bool,
    /// What goes to stdout.
    pub output: Output,
    /// Files to save the result in (`--json FILE`, `--csv FILE`).
    pub files: ResultFiles,
    pub sweep: Option<SweepSpec>,
    /// `--suite NAME`: the card instead of one run.
    pub suite: Option<SuiteName>,
    /// `--passes`, `-T` and `--pause` for the suite (the TUI's `c` uses them too).
    pub suite_timing: Timing,
    pub baseline: Option<PathBuf>,
    /// `--fleet HOSTS`: run on these hosts through fio's client/server mode.
    pub fleet: Option<Vec<Host>>,
    /// `--outlier-pct`: the share below the fleet's median that flags a host.
    pub outlier_pct: f64,
    /// `--show FILE`: print a saved result.
    pub show: Option<PathBuf>,
    pub fio: bool,
    pub drop_cache: bool,
    pub list: bool,
    pub all: bool,
    /// `--completions SHELL`: print the script and exit.
    pub completions: Option<clap_complete::Shell>,
    /// `--man`: print the man page and exit.
    pub man: bool,
    /// `--fsync N`, `--end-fsync`.
    pub durability: Durability,
    /// `--ioengine`; `None`: io_uring when the kernel allows it (`engine::ioengine::resolve`).
    /// After `run::resolve_engine`, always the engine the run uses.
    pub ioengine: Option<IoEngine>,
    /// Why the run is on psync though io_uring was not refused by the user (set by
    /// `run::resolve_engine`).
    pub ioengine_fallback: Option<String>,
}

impl Config {
    /// What `target::prepare` makes ready.
    pub fn target_request(&self) -> TargetRequest {
        TargetRequest {
            target: self.target.clone(),
            size: self.size,
            keep: self.keep,
            direct: self.direct,
            allow_write: self.allow_write.clone(),
        }
    }

    /// The prepared target described for the reports, with this run's settings, length,
    /// engine and durability.
    pub fn describe(&self, p: &Prepared) -> ConfigReport {
        config_report(p, self.settings, self.duration)
            .with_engine(self.ioengine, self.ioengine_fallback.clone())
            .with_durability(self.durability)
    }
}

impl Args {
    /// Checks every value; the error quotes what was typed and what would work.
    pub fn validate(self) -> Result<Config, String> {
        check_writes(&self.workload, &self.safety.allow_write)?;
        let (output, mut files) = output(&self.output, self.target.as_deref())?;
        files.plot = plot_file(&self, &files)?;
        let settings = workload(&self.workload, self.rate.rate)?;
        check_buffers(settings, self.series.sweep.as_ref())?;
        check_fleet(&self)?;
        check_series(&self.series, &self.workload)?;
        let w = self.workload;
        Ok(Config {
            target: self.target,
            settings,
            duration: w.time,
            direct: !w.buffered,
            allow_write: self.safety.allow_write,
            size: w.size,
            keep: self.safety.keep,
            no_tui: self.output.no_tui,
            tui: self.output.tui,
            output,
            files,
            suite_timing: suite_timing(&self.series, w.time),
            sweep: self.series.sweep,
            suite: self.series.suite,
            baseline: self.output.baseline,
            fleet: self.fleet.fleet.map(|l| l.0),
            outlier_pct: self.fleet.outlier_pct,
            show: self.output.show,
            fio: self.output.fio,
            drop_cache: w.drop_cache,
            list: self.other.list,
            all: self.other.all,
            completions: self.other.completions,
            man: self.other.man,
            durability: Durability {
                fsync_every: w.fsync,
                end_fsync: w.end_fsync,
            },
            ioengine: w.ioengine,
            ioengine_fallback: None,
        })
    }
}

/// Writes only when allowed.
fn check_writes(w: &WorkloadArgs, allow_write: &Option<String>) -> Result<(), String> {
    if w.read < 100 && allow_write.is_none() {
        return Err(format!(
            "--read {} writes to the target, which destroys its data; \
             add --allow-write (for a device: --allow-write=/dev/NAME) if that is intended",
            w.read
        ));
    }
    Ok(())
}

/// The starting settings, at a depth the engine asked for can keep.
fn workload(w: &WorkloadArgs, rate_iops: u64) -> Result<Settings, String> {
    if w.ioengine == Some(IoEngine::Psync) && w.iodepth > 1 {
        return Err(format!(
            "--iodepth {} with --ioengine psync: psync keeps one I/O in flight per \
             thread; drop --ioengine psync or use --iodepth 1",
            w.iodepth
        ));
    }
    Ok(Settings {
        threads: w.threads,
        iodepth: w.iodepth,
        bs: w.bs,
        read_pct: w.read,
        random_pct: w.random,
        rate_iops,
    })
}

/// Buffers are checked before anything is laid out or opened; every sweep step too.
fn check_buffers(settings: Settings, sweep: Option<&SweepSpec>) -> Result<(), String> {
    let limit = crate::engine::memory::buffer_limit();
    limit.check(settings.threads, settings.iodepth, settings.bs)?;
    if let Some(w) = sweep {
        for s in w.steps(settings) {
            limit.check(s.threads, s.iodepth, s.bs).map_err(|e| {
                let step = w.dimension.describe(w.dimension.value(&s));
                format!("--sweep step {step}: {e}")
            })?;
        }
    }
    Ok(())
}

/// What goes to stdout, and the files to save: one of `--json` and `--csv` may print, and a
/// file must be one that may receive a result (`result_file::check_output`), not the target.
fn output(o: &OutputArgs, target: Option<&Path>) -> Result<(Output, ResultFiles), String> {
    let to_stdout = |o: &Option<String>| o.as_deref() == Some("-");
    if to_stdout(&o.json) && to_stdout(&o.csv) {
        return Err(
            "--json and --csv cannot both print to stdout; save one to a file: --csv=FILE".into(),
        );
    }
    let output = if to_stdout(&o.json) {
        Output::Json
    } else if to_stdout(&o.csv) {
        Output::Csv
    } else if o.quiet {
        Output::Quiet
    } else {
        Output::Text
    };
    let file = |arg: &Option<String>, kind: Kind| match arg.as_deref() {
        None | Some("-") => Ok(None),
        Some(f) => result_file::check_output(kind, Path::new(f)).map(Some),
    };
    let files = ResultFiles {
        json: file(&o.json, Kind::Json)?,
        csv: file(&o.csv, Kind::Csv)?,
        plot: None,
    };
    for (flag, file) in [("--json", &files.json), ("--csv", &files.csv)] {
        if let (Some(f), Some(t)) = (file, target)
            && f == t
        {
            return Err(format!(
                "{flag} {}: that is the target; save the result elsewhere",
                f.display()
            ));
        }
    }
    Ok((output, files))
}

/// `--plot FILE.svg`: a name ending in .svg (the chart is SVG, whatever the name says), for a
/// mode that has a result to draw, apart from the target and the other result files, and a
/// file that may receive a chart (`result_file::check_output`: never a file that is not
/// diskscope's chart), checked before anything runs.
fn plot_file(a: &Args, files: &ResultFiles) -> Result<Option<PathBuf>, String> {
    let Some(path) = a.output.plot.as_deref() else {
        return Ok(None);
    };
    let shown = path.display();
    let o = &a.other;
    for (flag, given) in [
        ("--list", o.list),
        ("--fio", a.output.fio),
        ("--man", o.man),
        ("--completions", o.completions.is_some()),
    ] {
        if given {
            return Err(format!(
                "--plot {shown}: {flag} has no result to draw; drop --plot (or give --show FILE to draw a saved one)"
            ));
        }
    }
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !svg {
        return Err(format!(
            "--plot {shown}: the chart is SVG; name the file .svg (rsvg-convert turns it into a PNG)"
        ));
    }
    let others = [
        ("--json", files.json.as_deref()),
        ("--csv", files.csv.as_deref()),
        ("--show", a.output.show.as_deref()),
        ("TARGET", a.target.as_deref()),
    ];
    if let Some((flag, _)) = others.iter().find(|(_, p)| *p == Some(path)) {
        return Err(format!(
            "--plot {shown}: that is the file of {flag}; give the chart its own file"
        ));
    }
    result_file::check_output(Kind::Svg, path).map(Some)
}

/// A fleet runs one test over each host's whole existing target: the flags it cannot honour
/// are refused, not dropped without a word.
fn check_fleet(a: &Args) -> Result<(), String> {
    let FleetArgs { fleet: Some(_), .. } = &a.fleet else {
        return Ok(());
    };
    if a.target.is_none() {
        return Err(
            "--fleet needs TARGET: the path of the file or device on every host \
                    (fio never creates it there)"
                .into(),
        );
    }
    if a.series.sweep.is_some() {
        return Err("--fleet runs one test, not a --sweep; drop one of them".into());
    }
    if a.series.suite.is_some() {
        return Err("--fleet runs one test, not a --suite; drop one of them".into());
    }
    if a.output.fio {
        return Err("--fio prints the job without running it; --fleet runs it (its --json FILE keeps the job file); drop one of them".into());
    }
    if let Some(size) = a.workload.size {
        return Err(format!(
            "--size {size}: a fleet covers each host's whole target (fio's size=100%: a byte count would make fio lay out a smaller file); drop --size"
        ));
    }
    if a.safety.keep {
        return Err(
            "--keep keeps a scratch file, and a fleet never creates one; drop --keep".into(),
        );
    }
    if let Some(show) = &a.output.show {
        return Err(format!(
            "--show {} prints a saved result and runs nothing; drop --fleet or --show",
            show.display()
        ));
    }
    Ok(())
}

/// A suite's flags need a suite; a sweep has no end to fsync after.
fn check_series(s: &SeriesArgs, w: &WorkloadArgs) -> Result<(), String> {
    if s.suite.is_none() {
        for (flag, given) in [
            ("--passes", s.passes.is_some()),
            ("--pause", s.pause.is_some()),
        ] {
            if given {
                return Err(format!("{flag} sets how a suite runs; add --suite [NAME]"));
            }
        }
    }
    if w.end_fsync && s.sweep.is_some() {
        return Err(
            "--end-fsync times the flush after one run, not after a --sweep; drop one of them"
                .into(),
        );
    }
    Ok(())
}

/// `--passes`, `-T` and `--pause`, or a suite's defaults.
fn suite_timing(s: &SeriesArgs, time: Option<Duration>) -> Timing {
    Timing {
        passes: s.passes.unwrap_or(crate::suite::DEFAULT_PASSES),
        pass_time: time.unwrap_or(crate::suite::DEFAULT_PASS_TIME),
        pause: s.pause.unwrap_or(crate::suite::DEFAULT_PAUSE),
    }
}
