//! The validated command line: `Config`, built from the raw `Args` by one small converter
//! per concern — the workload and its buffers, where the output goes, what a fleet cannot
//! honour, a suite's timing, durability — each refusing with one line that quotes what was
//! typed and says what would work. The front door hands plain parts of it downward
//! (`target_request`, `files`, `describe`); nothing below `run` and `tui` sees a `Config`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Args;
use super::args::{FleetArgs, OutputArgs, SeriesArgs, WorkloadArgs};
use crate::findings::steady::SteadyParams;
use crate::findings::thresholds::{STEADY_ROUND_HEADLESS_S, STEADY_ROUNDS};
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

/// The steady-state check's flags (`--steady-round`, `--steady-excursion`,
/// `--steady-slope`) and `--until-steady[=MAX]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyConfig {
    /// `None`: the TUI's or headless default.
    pub round: Option<Duration>,
    pub excursion_pct: f64,
    pub slope_pct: f64,
    /// `Some(max)`: end once steady or at `max` (`-T` when MAX is not given).
    pub until: Option<Duration>,
}

impl SteadyConfig {
    /// The check's parameters for the TUI (`tui`) or a headless run.
    pub fn params(&self, tui: bool) -> SteadyParams {
        let base = if tui {
            SteadyParams::tui()
        } else {
            SteadyParams::headless()
        };
        SteadyParams {
            max_excursion_pct: self.excursion_pct,
            max_slope_pct: self.slope_pct,
            ..self
                .round
                .map_or(base, |r| SteadyParams::with_round(r.as_secs_f64()))
        }
    }
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
    /// The steady-state check and `--until-steady`.
    pub steady: SteadyConfig,
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
        let (output, files) = output(&self.output, self.target.as_deref())?;
        let settings = workload(&self.workload, self.rate.rate)?;
        check_buffers(settings, self.series.sweep.as_ref())?;
        check_fleet(&self)?;
        check_series(&self.series, &self.workload)?;
        let steady = steady(&self)?;
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
            steady,
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

/// The steady-state flags, and `--until-steady` where it can end something: a local headless
/// run, sweep step or suite pass, given room for a whole window of rounds.
fn steady(a: &Args) -> Result<SteadyConfig, String> {
    let s = &a.steady;
    let round = s.steady_round;
    let Some(given) = s.until_steady else {
        return Ok(SteadyConfig {
            round,
            excursion_pct: s.steady_excursion,
            slope_pct: s.steady_slope,
            until: None,
        });
    };
    for (flag, on) in [
        ("--fleet", a.fleet.fleet.is_some()),
        ("--fio", a.output.fio),
        ("--tui", a.output.tui),
    ] {
        if on {
            return Err(format!(
                "--until-steady ends a local run without the TUI once it is steady, and \
                 {flag} cannot; drop one of them"
            ));
        }
    }
    // MAX is -T where not given: the run's, or a sweep step's or a suite pass's default.
    let default_time = if a.series.sweep.is_some() {
        crate::sweep::DEFAULT_STEP_TIME
    } else if a.series.suite.is_some() {
        crate::suite::DEFAULT_PASS_TIME
    } else {
        crate::settings::DEFAULT_HEADLESS_TIME
    };
    let max = given.or(a.workload.time).unwrap_or(default_time);
    let round_s = round.unwrap_or(Duration::from_secs_f64(STEADY_ROUND_HEADLESS_S));
    let needs = round_s * STEADY_ROUNDS as u32;
    if max < needs {
        let what = match (given, a.workload.time) {
            (Some(_), _) => format!("--until-steady={}", secs(max)),
            (None, Some(_)) => format!("its MAX, -T {},", secs(max)),
            (None, None) => format!("its MAX, the default -T {},", secs(max)),
        };
        return Err(format!(
            "--until-steady: {what} is shorter than the {STEADY_ROUNDS} rounds of {} a steady \
             window needs ({}); give a longer MAX (--until-steady=2m) or a shorter \
             --steady-round",
            secs(round_s),
            secs(needs)
        ));
    }
    Ok(SteadyConfig {
        round,
        excursion_pct: s.steady_excursion,
        slope_pct: s.steady_slope,
        until: Some(max),
    })
}

/// "10s", "2.5s": a duration as typed.
fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s:.1}s")
    }
}

/// `--passes`, `-T` and `--pause`, or a suite's defaults.
fn suite_timing(s: &SeriesArgs, time: Option<Duration>) -> Timing {
    Timing {
        passes: s.passes.unwrap_or(crate::suite::DEFAULT_PASSES),
        pass_time: time.unwrap_or(crate::suite::DEFAULT_PASS_TIME),
        pause: s.pause.unwrap_or(crate::suite::DEFAULT_PAUSE),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn config(args: &[&str]) -> Result<Config, String> {
        let mut full = vec!["diskscope"];
        full.extend_from_slice(args);
        Args::try_parse_from(full)
            .map_err(|e| super::super::values::describe(&e))?
            .validate()
    }

    #[test]
    fn the_steady_flags_set_the_check_and_until_steady_its_max() {
        let c = config(&["--steady-round", "3s", "--steady-excursion", "15"]).unwrap();
        let p = c.steady.params(true);
        assert_eq!(
            (p.round_s, p.max_excursion_pct, p.max_slope_pct),
            (3.0, 15.0, 10.0)
        );
        assert_eq!(config(&[]).unwrap().steady.params(true).round_s, 2.0);
        assert_eq!(config(&[]).unwrap().steady.params(false).round_s, 5.0);
        assert_eq!(config(&[]).unwrap().steady.until, None);
        let max = |args: &[&str]| config(args).unwrap().steady.until;
        assert_eq!(max(&["--until-steady=2m"]), Some(Duration::from_secs(120)));
        assert_eq!(
            max(&["--until-steady", "-T", "1m"]),
            Some(Duration::from_secs(60))
        );
        // A sweep's MAX is its step time.
        assert_eq!(
            max(&["--until-steady", "--sweep", "threads=1,2", "-T", "30s"]),
            Some(Duration::from_secs(30))
        );
    }

    #[test]
    fn until_steady_is_refused_where_no_run_could_settle_or_end_on_it() {
        let err = |args: &[&str]| config(args).unwrap_err();
        assert_eq!(
            err(&["--until-steady"]),
            "--until-steady: its MAX, the default -T 10s, is shorter than the 5 rounds of 5s \
             a steady window needs (25s); give a longer MAX (--until-steady=2m) or a shorter \
             --steady-round"
        );
        assert!(err(&["--until-steady=20s"]).starts_with("--until-steady: --until-steady=20s is"));
        assert!(config(&["--until-steady=20s", "--steady-round", "2s"]).is_ok());
        assert!(err(&["--until-steady=1m", "--fio"]).contains("--fio cannot"));
        assert!(err(&["--until-steady=1m", "--tui"]).contains("--tui cannot"));
        assert!(err(&["--steady-round", "500ms"]).starts_with("--steady-round '500ms'"));
        assert!(err(&["--steady-slope", "0"]).starts_with("--steady-slope '0'"));
    }
}
