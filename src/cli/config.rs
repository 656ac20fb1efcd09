//! The validated command line: `Config`, built from the raw `Args` by one small converter
//! per concern — the workload and its buffers, where the output goes, what a fleet cannot
//! honour, the baseline (read here, and refused when this mode cannot compare with what it
//! holds), a suite's timing, durability — each refusing with one line that quotes what was
//! typed and says what would work. The front door hands plain parts of it downward
//! (`target_request`, `files`, `describe`); nothing below `run` and `tui` sees a `Config`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Args;
use super::args::{SeriesArgs, WorkloadArgs};
use super::fleet::check_fleet;
pub use super::steady::SteadyConfig;
use crate::fleet::hosts::Host;
use crate::model::{ConfigReport, Durability};
use crate::render::baseline::BaselineFile;
use crate::results::ResultFiles;
use crate::results::file::{self as result_file, Kind};
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
    /// What to test; `None` is the scratch file in the current directory. The first of
    /// `targets`.
    pub target: Option<PathBuf>,
    /// Every target given; two or more run at once (`run::Mode::Disks`).
    pub targets: Vec<PathBuf>,
    /// `--each-then-all`: each target alone, then all together.
    pub each_then_all: bool,
    /// Starting settings.
    pub settings: Settings,
    /// Run length; `None` runs until quit (TUI only).
    pub duration: Option<Duration>,
    /// O_DIRECT (true) or through the page cache.
    pub direct: bool,
    /// `None`: read-only. `Some("")`: --allow-write without a device name. Several names
    /// (the flag repeated, or a comma list) are one comma list. Bytes, as a path is: the
    /// device may have a name that is not UTF-8.
    pub allow_write: Option<OsString>,
    /// Span of the target to use, or the scratch file's size.
    pub size: Option<u64>,
    pub keep: bool,
    pub no_tui: bool,
    /// Fail rather than fall back to text when there is no terminal.
    pub tui: bool,
    /// Leave the mouse to the terminal (`--no-mouse`): the TUI does not capture it.
    pub no_mouse: bool,
    /// What goes to stdout.
    pub output: Output,
    /// Files to save the result in (`--json FILE`, `--csv FILE`).
    pub files: ResultFiles,
    pub sweep: Option<SweepSpec>,
    /// `--suite NAME`: the card instead of one run.
    pub suite: Option<SuiteName>,
    /// `--passes`, `-T` and `--pause` for the suite (the TUI's `c` uses them too).
    pub suite_timing: Timing,
    /// `--baseline FILE`, read and checked against this mode before anything runs.
    pub baseline: Option<BaselineFile>,
    /// `--fleet HOSTS`: run on these hosts through fio's client/server mode.
    pub fleet: Option<Vec<Host>>,
    /// `--outlier-pct`: the share below the fleet's median that flags a host.
    pub outlier_pct: f64,
    /// `--show FILE`: print a saved result.
    pub show: Option<PathBuf>,
    pub fio: bool,
    pub drop_cache: bool,
    pub list: bool,
    /// `--health`: the drives' own records, no I/O.
    pub health: bool,
    /// `--surface[=quick|restart]`: the surface scan.
    pub surface: Option<crate::surface::session::SurfaceAsk>,
    pub all: bool,
    /// `--completions SHELL`: print the script and exit.
    pub completions: Option<clap_complete::Shell>,
    /// `--man`: print the man page and exit.
    pub man: bool,
    /// `--fsync N`, `--end-fsync`.
    pub durability: Durability,
    /// The steady-state check and `--until-steady`.
    pub steady: SteadyConfig,
    /// `--ioengine`; `None`: io_uring when the kernel allows it (`engine::ioengine::resolve`).
    /// After `run::resolve_engine`, always the engine the run uses.
    pub ioengine: Option<IoEngine>,
    /// Why the run is on psync though io_uring was not refused by the user (set by
    /// `run::resolve_engine`).
    pub ioengine_fallback: Option<String>,
    /// `--burn-in`, `--capacity-probe` and their state file.
    pub verify: super::verify::VerifyConfig,
    /// Why this run may not poll for completions (`Config::check_targets`, from the target's
    /// queue), or `None` when it may: the TUI's polling key says it instead of switching.
    /// `--hipri` itself is the settings' `hipri`, the start of a live knob.
    pub poll_refusal: Option<String>,
    /// Why this run may not trim (`Config::check_targets`, from the target's sysfs), or `None`
    /// when it may: the TUI's trim slider says it instead of moving.
    pub trim_refusal: Option<String>,
    /// The flags typed on the command line (`Args::given`).
    pub given: std::collections::BTreeSet<String>,
}

impl Config {
    /// Whether the flag with clap id `id` was typed, not left at its default.
    pub fn gave(&self, id: &str) -> bool {
        self.given.contains(id)
    }

    /// The block size and depth a scan or burn-in asked for with `-b` and `-Q`; `None` where
    /// not typed (each then takes its own default, not the run's 4k at depth 1).
    pub fn scan_shape(&self) -> (Option<u64>, Option<usize>) {
        (
            self.gave("bs").then_some(self.settings.bs),
            self.gave("iodepth").then_some(self.settings.iodepth),
        )
    }

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
        let mut report = config_report(p, self.settings, self.duration)
            .with_engine(self.ioengine, self.ioengine_fallback.clone())
            .with_durability(self.durability);
        report.poll_refusal = self.poll_refusal.clone();
        report.trim_refusal = self.trim_refusal.clone();
        report
    }
}

impl Args {
    /// Checks every value; the error quotes what was typed and what would work.
    pub fn validate(self) -> Result<Config, String> {
        let allow_write = super::targets::allow_write_list(&self.safety.allow_write);
        check_writes(&self.workload, &allow_write)?;
        let (output, files) = output(&self)?;
        let settings = workload(&self.workload, self.rate.rate)?;
        check_buffers(settings, self.series.sweep.as_ref())?;
        check_fleet(&self)?;
        super::modes::check(&self)?;
        let verify = super::verify::check(
            &self.verify,
            &allow_write,
            self.series.passes,
            self.workload.read,
        )?;
        check_series(&self.series, &self.workload, verify.burn_in.is_some())?;
        super::targets::check(&self, settings)?;
        let baseline = super::baseline::check_baseline(&self)?;
        let steady = super::steady::steady(&self)?;
        let w = self.workload;
        Ok(Config {
            target: self.targets.first().cloned(),
            each_then_all: self.disks.each_then_all,
            targets: self.targets,
            settings,
            duration: w.time,
            direct: !w.buffered,
            allow_write,
            size: w.size,
            keep: self.safety.keep,
            no_tui: self.output.no_tui,
            tui: self.output.tui,
            no_mouse: self.output.no_mouse,
            output,
            files,
            suite_timing: suite_timing(&self.series, w.time),
            sweep: self.series.sweep,
            suite: self.series.suite,
            baseline,
            fleet: self.fleet.fleet.map(|l| l.0),
            outlier_pct: self.fleet.outlier_pct,
            show: self.output.show,
            fio: self.output.fio,
            drop_cache: w.drop_cache,
            list: self.other.list,
            health: self.other.health,
            surface: w.surface,
            all: self.other.all,
            completions: self.other.completions,
            man: self.other.man,
            durability: Durability {
                fsync_every: w.fsync,
                end_fsync: w.end_fsync,
            },
            ioengine: w.ioengine,
            ioengine_fallback: None,
            poll_refusal: Some("not checked yet".into()),
            trim_refusal: Some("not checked yet".into()),
            steady,
            verify,
            given: self.given,
        })
    }
}

/// Writes only when allowed.
fn check_writes(w: &WorkloadArgs, allow_write: &Option<OsString>) -> Result<(), String> {
    if w.trim > 0 && allow_write.is_none() {
        return Err(format!(
            "--trim {} discards blocks of the target, which destroys their data; \
             add --allow-write=/dev/NAME if that is intended",
            w.trim
        ));
    }
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
        random_distribution: w.random_distribution,
        trim_pct: w.trim,
        hipri: w.hipri,
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

/// What goes to stdout, and the files to save: one of `--json` and `--csv` may print, the
/// chart is an SVG (`plot::plot_path`), each file must be apart from every other file the run reads or writes (`check_apart`), and
/// must be one that may receive a result (`results::file::check_output`).
fn output(a: &Args) -> Result<(Output, ResultFiles), String> {
    let o = &a.output;
    let stdout = Path::new("-");
    let to_stdout = |p: &Option<PathBuf>| p.as_deref() == Some(stdout);
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
    let named = |p: &Option<PathBuf>| p.clone().filter(|p| p != stdout);
    let (json, csv) = (named(&o.json), named(&o.csv));
    let plot = super::plot::plot_path(a)?;
    let outputs = [
        ("--json", json.as_deref()),
        ("--csv", csv.as_deref()),
        ("--plot", plot.as_deref()),
    ];
    check_apart(a, &outputs)?;
    let check =
        |p: Option<PathBuf>, kind| p.map(|p| result_file::check_output(kind, &p)).transpose();
    let files = ResultFiles {
        json: check(json, Kind::Json)?,
        csv: check(csv, Kind::Csv)?,
        plot: check(plot, Kind::Svg)?,
    };
    Ok((output, files))
}

/// Refuses a result file that is a file the run already uses — the target, the scratch file,
/// the baseline (read before the run, then replaced) — or another result file, by name
/// (`x` and `./x`) or by device and inode (a hard or symbolic link): found after the run,
/// one of the two results was lost.
fn check_apart(a: &Args, outputs: &[(&str, Option<&Path>)]) -> Result<(), String> {
    let shown = |p: &Path| crate::target::shell::quote_path(p);
    // What each file already in the list is, and what to do when an output is the same.
    let mut taken: Vec<(String, PathBuf, &str)> = Vec::new();
    // No TARGET is the scratch file in the current directory; several are each checked.
    let targets: Vec<Option<&Path>> = match a.targets.as_slice() {
        [] => vec![None],
        all => all.iter().map(|t| Some(t.as_path())).collect(),
    };
    for target in targets.into_iter().filter(|_| a.fleet.fleet.is_none()) {
        match crate::target::prepare::scratch_dir(target) {
            Some(dir) => taken.push((
                "where the scratch file is laid out".into(),
                dir.join(super::SCRATCH_NAME),
                "save the result elsewhere",
            )),
            None => {
                if let Some(t) = target {
                    let what = format!("the same file as the target {}", shown(t));
                    taken.push((what, t.to_path_buf(), "save the result elsewhere"));
                }
            }
        }
    }
    if let Some(b) = &a.output.baseline {
        let what = format!("the same file as --baseline {}", shown(b));
        let fix = "the result would replace the baseline; save it to another file";
        taken.push((what, b.clone(), fix));
    }
    for &(flag, path) in outputs {
        let Some(path) = path else { continue };
        if let Some((what, _, fix)) = taken
            .iter()
            .find(|(_, other, _)| result_file::same_file(path, other))
        {
            return Err(format!("{flag} {}: {what}; {fix}", shown(path)));
        }
        let what = format!("the same file as {flag} {}", shown(path));
        taken.push((what, path.to_path_buf(), "give each result its own file"));
    }
    Ok(())
}

/// A suite's flags need a suite; a sweep has no end to fsync after.
fn check_series(s: &SeriesArgs, w: &WorkloadArgs, burn_in: bool) -> Result<(), String> {
    if s.suite.is_none() {
        for (flag, given) in [
            ("--passes", s.passes.is_some() && !burn_in),
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
