//! The command line: clap's raw arguments (`Args`, in `--help` sections from `args`), then
//! `Args::validate` (in `config`) turns them into a `Config` of checked values. Everything a
//! user can type wrong is caught here with a message that quotes what was typed and says what
//! would work; nothing here opens the target. The value parsers a domain needs live with the
//! domain (`units`, `settings`, `sweep::SweepSpec`, `fleet::hosts`); `values` only wires them
//! to flags with each flag's own limits.

use std::path::PathBuf;

use clap::Parser;

pub mod args;
mod baseline;
mod config;
pub(crate) mod docs;
mod engine_options;
mod fleet;
mod modes;
mod plot;
mod poll;
mod steady;
mod targets;
mod trim;
pub mod values;
pub mod verify;

pub use crate::target::prepare::{DEFAULT_SCRATCH_SIZE, SCRATCH_NAME};
pub use config::{Config, Output, SteadyConfig};

const AFTER_HELP: &str = "\
TARGET may be a block device (/dev/sdb, /dev/nvme0n1p2), a regular file, or a directory (the
scratch file is laid out inside it). Without TARGET, a 1 GiB scratch file named
diskscope.scratch is laid out in the current directory and removed on exit.

Reads use O_DIRECT unless --buffered, so the page cache is not measured. Nothing is ever
written unless --allow-write is given; on a block device it must name the device:
--allow-write=/dev/sdX (several: repeat it, or --allow-write=/dev/sdb,/dev/sdc).

Several TARGETs run at once, each with its own engine and the same settings; the table
names the one more than --outlier-pct below the median, and --each-then-all runs each
alone first, then all together, to show a limit they share.

Exit status: 0 success (also leaving the TUI with q, Esc or Ctrl-C, which say what they
stopped); 1 the run could not start or failed; 2 bad arguments; 3 the run completed but some
I/Os failed or came back short; 128+N ended by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP
or the terminal going away, 141 a closed stdout), with what ran printed and saved.

Files: when the terminal goes away during a run (SIGHUP, a dropped ssh connection) and no
--json FILE saved the result, it is kept in $XDG_STATE_HOME/diskscope/ (else
~/.local/state/diskscope/, mode 0700), the newest 10; the next start in a terminal says so
once, and `diskscope --show last` prints the newest.

Examples:
  diskscope --list                      every disk with size, block sizes, mounts
  diskscope /dev/sdb -t 4 -T 30s        4 threads of 4k random reads for 30 s
  diskscope -b 1M --random 0 --no-tui   sequential 1 MiB reads of the scratch file
  diskscope /data --read 70 --allow-write --json > run.json
  diskscope /dev/sd[b-m] -Q 32 -t 4      twelve disks at once, the slow one named
  diskscope /dev/nvme[0-3]n1 --each-then-all -T 10s
                                        each alone, then all four together
  diskscope --fleet hosts.list /dev/nvme0n1 -Q 32 -T 30s --json=fleet.json
                                        the same read test on every host of hosts.list
                                        (each runs fio --server), outliers named
  diskscope --show fio.json             fio's JSON output in diskscope's summary form";

/// What `--version` says after the name: the version, then the commit it was built from and
/// the target (build.rs): "0.2.0 (abc1234, x86_64 glibc ≥ 2.28)", for bug reports.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("DISKSCOPE_BUILD"),
    ")"
);

/// diskscope: watch what a disk can do — live IOPS, bandwidth and latency as threads, block
/// size and read/write mix change.
#[derive(Debug, Parser)]
#[command(name = "diskscope", version = VERSION, about, after_help = AFTER_HELP)]
pub struct Args {
    /// Block devices, files or directories to test; several run at once, each with its own
    /// threads and a scratch file per directory [default: ./diskscope.scratch]
    #[arg(value_name = "TARGET")]
    pub targets: Vec<PathBuf>,

    #[command(flatten)]
    pub workload: args::WorkloadArgs,

    #[command(flatten)]
    pub output: args::OutputArgs,

    #[command(flatten)]
    pub safety: args::SafetyArgs,

    #[command(flatten)]
    pub series: args::SeriesArgs,

    #[command(flatten)]
    pub rate: args::RateArgs,

    #[command(flatten)]
    pub steady: args::SteadyArgs,

    #[command(flatten)]
    pub fleet: args::FleetArgs,

    #[command(flatten)]
    pub disks: args::DisksArgs,

    #[command(flatten)]
    pub verify: verify::VerifyArgs,

    #[command(flatten)]
    pub other: args::OtherArgs,

    /// The flags typed on the command line (clap's ids), as against left at their defaults:
    /// filled by `try_parse_noting`.
    #[arg(skip)]
    pub given: std::collections::BTreeSet<String>,
}

impl Args {
    /// Parses a command line and notes which flags it gave (`given`), so that `-b 4k` typed
    /// is told apart from `-b` left at its default of 4k.
    pub fn try_parse_noting<I, T>(itr: I) -> Result<Args, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{CommandFactory, FromArgMatches, parser::ValueSource};
        let command = Args::command();
        let matches = command.clone().try_get_matches_from(itr)?;
        let mut args = Args::from_arg_matches(&matches)?;
        // The flags only: the flattened sections' groups have ids too.
        let flag = |id: &clap::Id| command.get_arguments().any(|a| a.get_id() == id);
        args.given = matches
            .ids()
            .filter(|id| flag(id))
            .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
            .map(|id| id.to_string())
            .collect();
        Ok(args)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::settings::{IoEngine, Settings};
    use crate::suite::{SuiteName, Timing};

    fn config(args: &[&str]) -> Result<Config, String> {
        let mut full = vec!["diskscope"];
        full.extend_from_slice(args);
        Args::try_parse_noting(full)
            .map_err(|e| values::describe(&e))?
            .validate()
    }

    #[test]
    fn defaults() {
        let c = config(&[]).unwrap();
        assert_eq!(
            c.settings,
            Settings {
                threads: 1,
                iodepth: 1,
                bs: 4096,
                read_pct: 100,
                random_pct: 100,
                rate_iops: 0,
                random_distribution: Default::default(),
                trim_pct: 0,
                hipri: false,
            }
        );
        assert_eq!(c.ioengine, None);
        assert!(c.direct);
        assert_eq!(c.allow_write, None);
        assert_eq!(c.target, None);
    }

    #[test]
    fn short_flags_and_units() {
        let c = config(&[
            "/dev/sdb", "-t", "8", "-b", "64KiB", "-T", "2m", "--random", "30",
        ])
        .unwrap();
        assert_eq!(c.settings.threads, 8);
        assert_eq!(c.settings.bs, 65536);
        assert_eq!(c.settings.random_pct, 30);
        assert_eq!(c.duration, Some(Duration::from_secs(120)));
        assert_eq!(c.target, Some(PathBuf::from("/dev/sdb")));
        let c = config(&["-Q", "32", "--ioengine", "io_uring"]).unwrap();
        assert_eq!(c.settings.iodepth, 32);
        assert_eq!(c.ioengine, Some(IoEngine::IoUring));
    }

    #[test]
    fn suites_default_to_standard_with_three_passes_of_five_seconds() {
        let c = config(&["--suite"]).unwrap();
        assert_eq!(c.suite, Some(SuiteName::Standard));
        assert_eq!(c.suite_timing, Timing::default());
        let c = config(&[
            "/dev/sdb",
            "--suite=nvme",
            "--passes",
            "2",
            "-T",
            "300ms",
            "--pause",
            "0",
        ])
        .unwrap();
        assert_eq!(c.suite, Some(SuiteName::Nvme));
        assert_eq!(
            c.suite_timing,
            Timing {
                passes: 2,
                pass_time: Duration::from_millis(300),
                pause: Duration::ZERO
            }
        );
    }

    #[test]
    fn allow_write_with_and_without_device() {
        assert_eq!(
            config(&["--allow-write", "--read", "70"])
                .unwrap()
                .allow_write,
            Some(Default::default())
        );
        let c = config(&["/dev/sdb", "--allow-write=/dev/sdb", "--read", "0"]).unwrap();
        assert_eq!(c.allow_write.as_deref(), Some("/dev/sdb".as_ref()));
        assert_eq!(c.settings.read_pct, 0);
    }

    #[test]
    fn bad_values_are_refused_with_the_value_quoted() {
        for (args, needle) in [
            (vec!["-t", "0"], "'0'"),
            (vec!["-t", "100000"], "'100000'"),
            (vec!["-b", "0"], "--bs 0"),
            (vec!["-b", "4q"], "'4q'"),
            (vec!["-b", "32M"], "16M"),
            (vec!["--read", "150"], "'150'"),
            (vec!["--read", "50"], "--allow-write"),
            (vec!["-T", "soon"], "'soon'"),
            (vec!["-T", "0s"], "'0s'"),
            (vec!["-T", "1ms"], "at least 100ms"),
            (vec!["--suite", "--pause", "20ms"], "0 for none"),
            (vec!["--size", "1Q"], "'1Q'"),
            (vec!["-Q", "0"], "--iodepth '0'"),
            (vec!["-Q", "257"], "1 to 256"),
            (vec!["--ioengine", "libaio"], "'libaio'"),
            (vec!["--suite", "fast"], "no such suite"),
            (vec!["--suite", "/dev/sdb"], "--suite=NAME"),
            (vec!["--suite", "-t", "4"], "cannot be used with"),
            (vec!["--passes", "3"], "--suite"),
            (vec!["--suite", "--passes", "0"], "--passes '0'"),
            (vec!["--suite", "--pause", "2h"], "at most 1h"),
            (
                vec!["-Q", "8", "--ioengine", "psync"],
                "psync keeps one I/O",
            ),
        ] {
            let err = config(&args).expect_err(&format!("{args:?}"));
            assert!(err.contains(needle), "{args:?}: {err}");
        }
    }
}
