//! `--fleet` from the command line: fio found here, the spec checked (the baseline was read
//! and checked with the arguments; what it measured differently is said first); then the fleet run headless (a line per state change and per
//! second, then the table) or on the TUI's fleet screen, the result saved with `--json FILE`,
//! and the exit status: 0 every host finished, 3 some failed, 1 all did.

use anyhow::Result;

use crate::cli::{Config, Output};
use crate::exit::ExitStatus;
use crate::fleet::live::Board;
use crate::fleet::{FleetEvent, FleetReport, FleetSpec};
use crate::render::compare::{compare_fleet, compare_meta};
use crate::render::files;
use crate::results::save::save_fleet;
use crate::{output, signals};

/// Runs the fleet `config` describes.
pub fn run(config: &Config, tui: bool) -> Result<ExitStatus> {
    signals::install();
    let spec = spec(config).map_err(anyhow::Error::msg)?;
    let baseline = config.baseline.clone();
    if let (Some(line), Output::Text) = (config.baseline_differs(), config.output) {
        output::print(&(line + "\n"));
    }
    let stop = || signals::received().is_some();
    let meta = crate::model::Meta::now();
    let mut report = if tui {
        crate::tui::fleet::run(&spec, baseline.as_ref().map(|b| &b.baseline))?
    } else {
        headless(&spec, config.output, &stop)?
    };
    report.meta = meta;
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
        _ if tui => {}
        _ => {
            output::print(&crate::render::fleet::summary(&report));
            if let Some(b) = &baseline {
                output::print(&compare_fleet(&b.baseline, &report));
                output::print(&compare_meta(b.baseline.label(), &b.meta, &report.meta));
            }
        }
    }
    if tui {
        // The screen is gone: the table goes to the normal screen, as a run's summary does.
        output::print(&crate::render::fleet::summary(&report));
        if let Some(b) = &baseline {
            output::print(&compare_fleet(&b.baseline, &report));
            output::print(&compare_meta(b.baseline.label(), &b.meta, &report.meta));
        }
    }
    save_fleet(&config.files, &report, &files::FLEET)?;
    Ok(status(&report))
}

/// The spec of `config`: hosts, target, settings, fio on this machine.
pub fn spec(config: &Config) -> Result<FleetSpec, String> {
    spec_with(config, crate::fio::find_fio()?)
}

/// The spec of `config` run by `fio`: everything of the command line that reaches the
/// hosts' job goes through here (the flags a fleet cannot honour were refused with the
/// arguments, `cli::config`'s `check_fleet`).
fn spec_with(config: &Config, fio: std::path::PathBuf) -> Result<FleetSpec, String> {
    let hosts = config.fleet.clone().unwrap_or_default();
    let target = config
        .target
        .as_ref()
        .map(|t| t.display().to_string())
        .unwrap_or_default();
    FleetSpec::new(
        hosts,
        &target,
        config.settings,
        config.ioengine,
        config.direct,
        config.allow_write.is_some(),
        config.durability,
        config.duration.unwrap_or(super::DEFAULT_HEADLESS_TIME),
        config.outlier_pct,
        fio,
        config.drop_cache,
    )
}

/// Without a screen: the header, state changes and a live line a second on stderr-free
/// stdout (nothing but the JSON with `--json`, only the summary with `--quiet`), then the
/// report.
pub fn headless(
    spec: &FleetSpec,
    out: Output,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<FleetReport> {
    let lines = out == Output::Text;
    let mut board = Board::new(&spec.hosts);
    if lines {
        output::print(&format!(
            "{}\n",
            crate::render::fleet::header(&spec.fleet_config())
        ));
    }
    let mut report = crate::fleet::run(spec, stop, &mut |e| match e {
        FleetEvent::Host(i, ev) => {
            if board.apply(*i, ev) && lines {
                output::print(&(crate::render::fleet::state_line(&board, *i) + "\n"));
            }
        }
        FleetEvent::Tick => {
            board.tick();
            if lines && !board.finished() {
                output::print(&(crate::render::fleet::live_line(&board) + "\n"));
            }
        }
    })
    .map_err(anyhow::Error::msg)?;
    report.interrupted_by = signals::received().map(|s| format!("{s:?}"));
    Ok(report)
}

/// 0 when every host finished, 3 when some failed, 1 when none finished; a signal wins.
pub fn status(r: &FleetReport) -> ExitStatus {
    if let Some(sig) = signals::received() {
        return ExitStatus::Signal(sig);
    }
    match (r.aggregate.hosts_done, r.aggregate.hosts_failed) {
        (0, _) => ExitStatus::Failure,
        (_, 0) => ExitStatus::Success,
        _ => ExitStatus::IoErrors,
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::cli::Args;

    const BASE: &[&str] = &[
        "diskscope",
        "--fleet",
        "10.0.0.1,10.0.0.2:8766",
        "/srv/disk.img",
    ];

    /// What becomes of a flag on a fleet run.
    enum Fate {
        /// The job every host runs has these lines (and the base job lacks one of them);
        /// `local`: the local `--fio` export of the same settings has them too.
        Job(Vec<&'static str>, Vec<&'static str>, bool),
        /// The controller's own (how the result is shown, saved, compared): what it sets.
        Controller(Vec<String>, fn(&Config, &FleetSpec) -> bool),
        /// Refused with the arguments, the message holding the words.
        Refused(Vec<&'static str>, &'static str),
        /// clap's own: prints and exits before anything (`--help`, `--version`).
        Clap(Vec<&'static str>),
    }

    fn fixture(name: &str) -> String {
        format!("{}/tests/fixtures/fio/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    /// Every flag clap knows, and its fate on a fleet run. A flag without a row fails the
    /// test: the next one added must say whether the hosts' job honours it.
    fn rows() -> Vec<(&'static str, Fate)> {
        use Fate::*;
        let json = std::env::temp_dir().join("diskscope-fleet-row.json");
        let plot = std::env::temp_dir().join("diskscope-fleet-row.svg");
        vec![
            (
                "targets",
                Job(vec![], vec!["filename=/srv/disk.img"], false),
            ),
            (
                "targets",
                Refused(vec!["/srv/other.img"], "--fleet runs one TARGET path"),
            ),
            (
                "each_then_all",
                Refused(
                    vec!["--each-then-all"],
                    "--each-then-all compares several targets",
                ),
            ),
            (
                "hipri",
                Refused(
                    vec!["--hipri"],
                    "--fleet with --hipri: whether each host's queue",
                ),
            ),
            (
                "trim",
                Refused(
                    vec!["--trim", "10", "--allow-write"],
                    "--fleet with --trim: whether each host's device",
                ),
            ),
            ("threads", Job(vec!["-t", "4"], vec!["numjobs=4"], true)),
            (
                "iodepth",
                Job(
                    vec!["-Q", "8"],
                    vec!["ioengine=io_uring", "iodepth=8"],
                    true,
                ),
            ),
            (
                "ioengine",
                Job(
                    vec!["--ioengine", "io_uring"],
                    vec!["ioengine=io_uring"],
                    true,
                ),
            ),
            ("bs", Job(vec!["-b", "64k"], vec!["bs=65536"], true)),
            (
                "read",
                Job(
                    vec!["--read", "70", "--allow-write"],
                    vec!["rw=randrw", "rwmixread=70"],
                    true,
                ),
            ),
            ("random", Job(vec!["--random", "0"], vec!["rw=read"], true)),
            (
                "random_distribution",
                Job(
                    vec!["--random-distribution", "zipf:1.2"],
                    vec!["random_distribution=zipf:1.2"],
                    true,
                ),
            ),
            ("time", Job(vec!["-T", "7s"], vec!["runtime=7s"], true)),
            ("buffered", Job(vec!["--buffered"], vec!["direct=0"], true)),
            (
                "fsync",
                Job(
                    vec!["--fsync", "4", "--read", "0", "--allow-write"],
                    vec!["direct=1", "fdatasync=4"],
                    true,
                ),
            ),
            (
                "fsync",
                Job(
                    vec!["--fsync", "2", "--read", "0", "--allow-write", "--buffered"],
                    vec!["direct=0", "fdatasync=2"],
                    true,
                ),
            ),
            (
                "end_fsync",
                Job(
                    vec!["--end-fsync", "--read", "0", "--allow-write"],
                    vec!["end_fsync=1"],
                    true,
                ),
            ),
            (
                "size",
                Refused(
                    vec!["--size", "1G"],
                    "--size 1073741824: a fleet covers each host's whole target",
                ),
            ),
            (
                "drop_cache",
                Job(vec!["--drop-cache"], vec!["invalidate=1"], true),
            ),
            (
                "no_tui",
                Controller(vec!["--no-tui".into()], |c, _| c.no_tui),
            ),
            ("tui", Controller(vec!["--tui".into()], |c, _| c.tui)),
            (
                "no_mouse",
                Controller(vec!["--no-mouse".into()], |c, _| c.no_mouse),
            ),
            (
                "quiet",
                Controller(vec!["-q".into()], |c, _| c.output == Output::Quiet),
            ),
            (
                "json",
                Controller(vec!["--json".into()], |c, _| c.output == Output::Json),
            ),
            (
                "json",
                Controller(vec![format!("--json={}", json.display())], |c, _| {
                    c.files.json.is_some()
                }),
            ),
            (
                "csv",
                Refused(vec!["--csv"], "--csv writes a single run's seconds"),
            ),
            (
                // The controller draws the fleet's chart (each host, the sum) from its result.
                "plot",
                Controller(vec![format!("--plot={}", plot.display())], |c, _| {
                    c.files.plot.is_some()
                }),
            ),
            (
                "baseline",
                Controller(
                    vec!["--baseline".into(), fixture("clientserver.json")],
                    |c, _| c.baseline.is_some(),
                ),
            ),
            (
                "show",
                Refused(
                    vec!["--show", "x.json"],
                    "--show x.json prints a saved result",
                ),
            ),
            (
                "fio",
                Refused(vec!["--fio"], "--fio prints the job without running it"),
            ),
            (
                "allow_write",
                Job(
                    vec!["--read", "0", "--allow-write"],
                    vec![
                        "rw=randwrite",
                        "exec_prerun=test -f /srv/disk.img || exit 1 && exit 0 || true",
                    ],
                    false,
                ),
            ),
            (
                "allow_write",
                Refused(vec!["--read", "0"], "add --allow-write"),
            ),
            (
                "keep",
                Refused(vec!["--keep"], "--keep keeps a scratch file"),
            ),
            (
                "sweep",
                Refused(vec!["--sweep", "threads=1,2"], "not a --sweep"),
            ),
            ("suite", Refused(vec!["--suite"], "not a --suite")),
            (
                "passes",
                Refused(vec!["--passes", "2"], "--passes sets how a suite runs"),
            ),
            (
                "pause",
                Refused(vec!["--pause", "1s"], "--pause sets how a suite runs"),
            ),
            (
                "steady_round",
                Refused(
                    vec!["--steady-round", "2s"],
                    "--steady-round sets diskscope's",
                ),
            ),
            (
                "steady_excursion",
                Refused(
                    vec!["--steady-excursion", "15"],
                    "--steady-excursion sets diskscope's",
                ),
            ),
            (
                "steady_slope",
                Refused(
                    vec!["--steady-slope", "5"],
                    "--steady-slope sets diskscope's",
                ),
            ),
            (
                "until_steady",
                Refused(vec!["--until-steady"], "--until-steady sets diskscope's"),
            ),
            (
                "rate",
                Job(
                    vec!["--rate", "1000", "-t", "2"],
                    vec!["rate_iops=500"],
                    true,
                ),
            ),
            (
                "fleet",
                Controller(vec![], |_, s| s.hosts.len() == 2 && s.hosts[1].port == 8766),
            ),
            (
                "outlier_pct",
                Controller(vec!["--outlier-pct".into(), "30".into()], |_, s| {
                    s.outlier_pct == 30.0
                }),
            ),
            (
                "list",
                Refused(vec!["--list"], "--list prints something of this machine"),
            ),
            (
                "health",
                Refused(
                    vec!["--health"],
                    "--health prints something of this machine",
                ),
            ),
            (
                "all",
                Refused(vec!["--all"], "--all prints something of this machine"),
            ),
            (
                "surface",
                Refused(
                    vec!["--surface"],
                    "--surface reads one target of this machine",
                ),
            ),
            (
                "completions",
                Refused(vec!["--completions", "bash"], "--completions prints"),
            ),
            ("man", Refused(vec!["--man"], "--man prints")),
            (
                "burn_in",
                Refused(
                    vec!["--burn-in", "--allow-write"],
                    "--burn-in writes and reads back diskscope's stamps",
                ),
            ),
            (
                "capacity_probe",
                Refused(
                    vec!["--capacity-probe", "--allow-write"],
                    "--capacity-probe writes and reads back diskscope's stamps",
                ),
            ),
            (
                "verify",
                Refused(
                    vec!["--verify", "--read", "50", "--allow-write"],
                    "--verify writes and reads back diskscope's stamps",
                ),
            ),
            (
                "burn_in_state",
                Refused(
                    vec!["--burn-in-state", "x"],
                    "--burn-in-state names the state",
                ),
            ),
            ("help", Clap(vec!["--help"])),
            ("version", Clap(vec!["--version"])),
        ]
    }

    fn config(extra: &[String]) -> Result<Config, String> {
        let argv: Vec<String> = BASE
            .iter()
            .map(|s| s.to_string())
            .chain(extra.iter().cloned())
            .collect();
        Args::try_parse_noting(&argv)
            .map_err(|e| crate::cli::values::describe(&e))?
            .validate()
    }

    fn job_of(extra: &[String]) -> (String, String) {
        let c = config(extra).unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        let spec = spec_with(&c, "fio".into()).unwrap_or_else(|e| panic!("{extra:?}: {e}"));
        let export = super::super::fio::local_job(&c, &spec.config).job_file();
        (spec.job_file.clone(), export)
    }

    /// Every flag either reaches the job every host runs (and the local `--fio` export of
    /// the same settings), is the controller's own, or is refused with the arguments.
    #[test]
    fn every_flag_reaches_the_fleets_job_or_is_refused() {
        let mut cmd = Args::command();
        cmd.build();
        let rows = rows();
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            assert!(
                rows.iter().any(|(r, _)| *r == id),
                "--{id}: no row says what a fleet does with it; add one to rows()"
            );
        }
        let (base, _) = job_of(&[]);
        for (id, fate) in rows {
            match fate {
                Fate::Job(args, lines, local) => {
                    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
                    let (job, export) = job_of(&args);
                    for line in &lines {
                        assert!(
                            job.lines().any(|l| l == *line),
                            "--{id} {args:?}: no {line} in\n{job}"
                        );
                        if local {
                            assert!(
                                export.lines().any(|l| l == *line),
                                "--{id} {args:?}: the local export lacks {line}:\n{export}"
                            );
                        }
                    }
                    if !args.is_empty() {
                        assert!(
                            lines.iter().any(|line| !base.lines().any(|l| l == *line)),
                            "--{id} {args:?}: changes nothing in the job"
                        );
                    }
                }
                Fate::Controller(args, check) => {
                    let c = config(&args).unwrap_or_else(|e| panic!("--{id}: {e}"));
                    let spec = spec_with(&c, "fio".into()).unwrap();
                    assert!(check(&c, &spec), "--{id} {args:?}: not what it should set");
                }
                Fate::Refused(args, words) => {
                    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
                    match config(&args) {
                        Ok(_) => panic!("--{id} {args:?}: not refused"),
                        Err(e) => assert!(e.contains(words), "--{id} {args:?}: {e}"),
                    }
                }
                Fate::Clap(args) => {
                    let argv: Vec<&str> =
                        BASE.iter().copied().chain(args.iter().copied()).collect();
                    let e = Args::try_parse_from(&argv).unwrap_err();
                    assert_eq!(e.exit_code(), 0, "--{id}: clap prints and exits");
                }
            }
        }
    }
}
