//! The command line: clap's raw arguments (`Args`), then `Args::validate` turns them into a
//! `Config` of checked values. Everything a user can type wrong is caught here with a message
//! that quotes what was typed and says what would work; nothing here opens the target.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;

use crate::report::Durability;
use crate::report::result_file;
use crate::settings::{IoEngine, Settings};
use crate::suite::{SuiteName, Timing};
use crate::sweep::SweepSpec;

pub(crate) mod docs;
pub mod values;

/// The scratch file used when no target is given.
pub const SCRATCH_NAME: &str = "diskscope.scratch";
/// Default size of the scratch file.
pub const DEFAULT_SCRATCH_SIZE: u64 = 1 << 30;

const AFTER_HELP: &str = "\
TARGET may be a block device (/dev/sdb, /dev/nvme0n1p2), a regular file, or a directory (the
scratch file is laid out inside it). Without TARGET, a 1 GiB scratch file named
diskscope.scratch is laid out in the current directory and removed on exit.

Reads use O_DIRECT unless --buffered, so the page cache is not measured. Nothing is ever
written unless --allow-write is given; on a block device it must name the device:
--allow-write=/dev/sdX.

Exit status: 0 success; 1 the run could not start or failed; 2 bad arguments;
3 the run completed but some I/Os failed or came back short.

Examples:
  diskscope --list                      every disk with size, block sizes, mounts
  diskscope /dev/sdb -t 4 -T 30s        4 threads of 4k random reads for 30 s
  diskscope -b 1M --random 0 --no-tui   sequential 1 MiB reads of the scratch file
  diskscope /data --read 70 --allow-write --json > run.json
  diskscope --fleet hosts.list /dev/nvme0n1 -Q 32 -T 30s --json=fleet.json
                                        the same read test on every host of hosts.list
                                        (each runs fio --server), outliers named
  diskscope --show fio.json             fio's JSON output in diskscope's summary form";

/// diskscope: watch what a disk can do — live IOPS, bandwidth and latency as threads, block
/// size and read/write mix change.
#[derive(Debug, Parser)]
#[command(name = "diskscope", version, about, after_help = AFTER_HELP)]
pub struct Args {
    /// Block device, file or directory to test [default: ./diskscope.scratch]
    pub target: Option<PathBuf>,

    /// Worker threads, each with its own descriptor (1-1024)
    #[arg(short, long, default_value = "1", value_name = "N", value_parser = values::threads)]
    pub threads: usize,

    /// I/Os each thread keeps in flight (1-256; fio's iodepth); above 1 needs io_uring. A
    /// latency is from submission to completion reaped (fio's total `lat`, not `clat`)
    #[arg(short = 'Q', long, default_value = "1", value_name = "N", value_parser = values::iodepth)]
    pub iodepth: usize,

    /// How to drive the disk: io_uring or psync (pread/pwrite) [default: io_uring when the
    /// kernel allows it, else psync at depth 1, with the reason in the header]
    #[arg(long, value_name = "ENGINE", value_parser = values::ioengine)]
    pub ioengine: Option<IoEngine>,

    /// Block size per I/O: 512, 4k, 64KiB, 1M ... (at most 16M)
    #[arg(short = 'b', long = "bs", default_value = "4k", value_name = "SIZE", value_parser = values::block_size)]
    pub bs: u64,

    /// Percentage of I/Os that are reads; below 100 needs --allow-write
    #[arg(long, default_value = "100", value_name = "PCT", value_parser = values::percentage)]
    pub read: u8,

    /// Percentage of I/Os at random offsets; the rest are sequential
    #[arg(long, default_value = "100", value_name = "PCT", value_parser = values::percentage)]
    pub random: u8,

    /// I/Os per second for all threads together (5000, 50k; 0: unlimited). Each thread
    /// issues its share on a fixed timetable, and latency is counted from when an I/O was due,
    /// not from when it went out (coordinated omission corrected); the service time from
    /// submission is reported beside it. Says so when the disk cannot keep up
    #[arg(long = "rate", default_value = "0", value_name = "IOPS", value_parser = values::rate_iops)]
    pub rate: u64,

    /// How long to run: 10s, 2m, 1h [default: 10s without the TUI]
    #[arg(short = 'T', long, value_name = "DUR", value_parser = values::duration)]
    pub time: Option<Duration>,

    /// Use the page cache (no O_DIRECT): measures memory, not the disk, once data is cached
    #[arg(long)]
    pub buffered: bool,

    /// Durable writes: fdatasync after every N writes of each thread (fio's fdatasync=N). With
    /// io_uring the sync is in the ring, linked after the write that triggers it in that
    /// write's slot of the queue depth; the write counts when its sync completes, the sync's
    /// time in its latency. With 1, IOPS and latency are those of writes that reached the
    /// device
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub fsync: u32,

    /// After the run, one fdatasync of the target, timed (fio's end_fsync): how long the
    /// data still in the page cache took to reach the device
    #[arg(long)]
    pub end_fsync: bool,

    /// Allow writes (destroys data on TARGET). On a block device name it: --allow-write=/dev/sdX
    #[arg(long, value_name = "DEVICE", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    pub allow_write: Option<String>,

    /// Bytes of the target to use from its start; the scratch file's size [default: 1G for
    /// the scratch file, else the whole target]
    #[arg(long, value_name = "SIZE", value_parser = values::size)]
    pub size: Option<u64>,

    /// Keep the scratch file on exit (it is reused by the next run)
    #[arg(long)]
    pub keep: bool,

    /// Print text lines instead of opening the TUI (automatic when stdout is not a terminal)
    #[arg(long)]
    pub no_tui: bool,

    /// Insist on the TUI: fail when stdin or stdout is not a terminal instead of falling back
    /// to text
    #[arg(long, conflicts_with = "no_tui")]
    pub tui: bool,

    /// Print only the final summary
    #[arg(short, long)]
    pub quiet: bool,

    /// Print one JSON document (config, totals, threads, intervals; or a sweep's steps)
    /// instead of text, or with FILE save it there (--json=FILE when TARGET follows)
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<String>,

    /// Print the one-second intervals (or a sweep's steps) as CSV with a header, or with FILE
    /// save them there
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub csv: Option<String>,

    /// Run a series of steps and find where the disk saturates: threads=1,2,4,8,
    /// threads=1..64 (doubling), bs=512..4M or iodepth=1..256 (doubling); rate=curve runs
    /// unlimited, then at 10,30,50,70,80,90,95,100% of what that did, and says where p99
    /// leaves its flat part (rate=1000,5000 sets the rates); -T is the time per step [3s]
    #[arg(long, value_name = "SPEC", value_parser = values::sweep)]
    pub sweep: Option<SweepSpec>,

    /// Run a suite and print its card, the figures CrystalDiskMark quotes: standard (SEQ1M Q8T1,
    /// SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1), nvme (SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16,
    /// RND4K Q1T1), peak (SEQ1M Q8T1, RND4K Q32T1) or real (SEQ1M Q1T1, RND4K Q1T1). Reads
    /// always, writes with --allow-write; -T is the time per pass [5s]
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "standard",
          value_parser = values::suite,
          conflicts_with_all = ["threads", "iodepth", "bs", "read", "random", "sweep", "tui", "end_fsync"])]
    pub suite: Option<SuiteName>,

    /// With --suite: passes per test and direction; the card shows their median, min-max and
    /// best [3]
    #[arg(long, value_name = "N", value_parser = values::passes)]
    pub passes: Option<usize>,

    /// With --suite: how long the engine rests between two passes (0 for none) [1s]
    #[arg(long, value_name = "DUR", value_parser = values::pause)]
    pub pause: Option<Duration>,

    /// Compare with a saved result: a run, sweep, suite card or fleet (--json FILE), or fio's
    /// own JSON output (--output-format=json or json+, local or client/server)
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Run the same test on many hosts through fio's client/server mode (each host runs
    /// `fio --server`): a comma list (a,b:8766) or a file of `host[,port]` lines (fio's
    /// hosts.list). TARGET is the path on every host and must exist there. Read-only on
    /// block devices; writes (--read below 100, with --allow-write) only to regular files.
    /// Exit status 3 when some hosts failed, 1 when all did
    #[arg(long, value_name = "HOSTS", value_parser = values::fleet_hosts)]
    pub fleet: Option<crate::fleet::hosts::HostList>,

    /// With --fleet: flag hosts whose IOPS is more than PCT % below the fleet's median
    #[arg(long, value_name = "PCT", default_value = "20", value_parser = values::outlier_pct)]
    pub outlier_pct: f64,

    /// Print a saved result in diskscope's summary form and exit: a run, sweep or fleet
    /// (--json FILE), or fio's JSON output (per host when it has hosts)
    #[arg(long, value_name = "FILE")]
    pub show: Option<PathBuf>,

    /// Print the fio command line and job file equivalent to these settings, and exit
    #[arg(long)]
    pub fio: bool,

    /// Evict the target's pages from the page cache before the run (with --buffered)
    #[arg(long)]
    pub drop_cache: bool,

    /// List block devices and exit
    #[arg(long)]
    pub list: bool,

    /// With --list: include empty devices (unattached loop, unconfigured zram)
    #[arg(long)]
    pub all: bool,

    /// Print the shell completion script for SHELL and exit (e.g. into
    /// /usr/share/bash-completion/completions/diskscope)
    #[arg(long, value_name = "SHELL")]
    pub completions: Option<clap_complete::Shell>,

    /// Print the man page (roff) and exit (e.g. into /usr/share/man/man1/diskscope.1)
    #[arg(long)]
    pub man: bool,
}

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
    /// Files to save the result in.
    pub json_file: Option<PathBuf>,
    pub csv_file: Option<PathBuf>,
    pub sweep: Option<SweepSpec>,
    /// `--suite NAME`: the card instead of one run.
    pub suite: Option<SuiteName>,
    /// `--passes`, `-T` and `--pause` for the suite (the TUI's `c` uses them too).
    pub suite_timing: Timing,
    pub baseline: Option<PathBuf>,
    /// `--fleet HOSTS`: run on these hosts through fio's client/server mode.
    pub fleet: Option<Vec<crate::fleet::hosts::Host>>,
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
    /// After `target::prepare::resolve_engine`, always the engine the run uses.
    pub ioengine: Option<IoEngine>,
    /// Why the run is on psync though io_uring was not refused by the user (set by
    /// `resolve_engine`).
    pub ioengine_fallback: Option<String>,
}

/// A result file must not exist yet (its directory writable), or hold an earlier diskscope
/// result of the same kind: a target typed after `--json` (`--json /dev/sdb`, `--json
/// data.img`) or someone's `package.json` must never be overwritten.
fn check_output_file(flag: &str, path: &Path) -> Result<PathBuf, String> {
    let kind = if flag == "--json" {
        result_file::Kind::Json
    } else {
        result_file::Kind::Csv
    };
    result_file::check_output(kind, path)
}

impl Args {
    /// Checks every value; the error quotes what was typed and what would work.
    pub fn validate(self) -> Result<Config, String> {
        let (threads, bs, read_pct, random_pct) = (self.threads, self.bs, self.read, self.random);
        if read_pct < 100 && self.allow_write.is_none() {
            return Err(format!(
                "--read {read_pct} writes to the target, which destroys its data; \
                 add --allow-write (for a device: --allow-write=/dev/NAME) if that is intended"
            ));
        }
        let to_stdout = |o: &Option<String>| o.as_deref() == Some("-");
        let to_file = |o: &Option<String>, flag: &str| -> Result<Option<PathBuf>, String> {
            match o.as_deref() {
                None | Some("-") => Ok(None),
                Some(f) => check_output_file(flag, Path::new(f)).map(Some),
            }
        };
        if to_stdout(&self.json) && to_stdout(&self.csv) {
            return Err(
                "--json and --csv cannot both print to stdout; save one to a file: --csv=FILE"
                    .into(),
            );
        }
        let output = if to_stdout(&self.json) {
            Output::Json
        } else if to_stdout(&self.csv) {
            Output::Csv
        } else if self.quiet {
            Output::Quiet
        } else {
            Output::Text
        };
        let json_file = to_file(&self.json, "--json")?;
        let csv_file = to_file(&self.csv, "--csv")?;
        for (flag, file) in [("--json", &json_file), ("--csv", &csv_file)] {
            if let (Some(f), Some(t)) = (file, &self.target)
                && f == t
            {
                return Err(format!(
                    "{flag} {}: that is the target; save the result elsewhere",
                    f.display()
                ));
            }
        }
        let sweep = self.sweep;
        let (iodepth, ioengine) = (self.iodepth, self.ioengine);
        if ioengine == Some(IoEngine::Psync) && iodepth > 1 {
            return Err(format!(
                "--iodepth {iodepth} with --ioengine psync: psync keeps one I/O in flight per \
                 thread; drop --ioengine psync or use --iodepth 1"
            ));
        }
        let settings = Settings {
            threads,
            iodepth,
            bs,
            read_pct,
            random_pct,
            rate_iops: self.rate,
        };
        // Buffers are checked before anything is laid out or opened; every sweep step too.
        let limit = crate::engine::memory::buffer_limit();
        limit.check(threads, iodepth, bs)?;
        if let Some(w) = &sweep {
            for s in w.steps(settings) {
                limit.check(s.threads, s.iodepth, s.bs).map_err(|e| {
                    let step = w.dimension.describe(w.dimension.value(&s));
                    format!("--sweep step {step}: {e}")
                })?;
            }
        }
        if self.fleet.is_some() {
            if self.target.is_none() {
                return Err(
                    "--fleet needs TARGET: the path of the file or device on every host \
                     (fio never creates it there)"
                        .into(),
                );
            }
            if sweep.is_some() {
                return Err("--fleet runs one test, not a --sweep; drop one of them".into());
            }
            if self.suite.is_some() {
                return Err("--fleet runs one test, not a --suite; drop one of them".into());
            }
            if self.fio {
                return Err("--fio prints the job without running it; --fleet runs it (its --json FILE keeps the job file); drop one of them".into());
            }
            // Flags a fleet cannot honour are refused, not dropped without a word.
            if let Some(size) = self.size {
                return Err(format!(
                    "--size {size}: a fleet covers each host's whole target (fio's size=100%: a byte count would make fio lay out a smaller file); drop --size"
                ));
            }
            if self.keep {
                return Err(
                    "--keep keeps a scratch file, and a fleet never creates one; drop --keep"
                        .into(),
                );
            }
            if let Some(show) = &self.show {
                return Err(format!(
                    "--show {} prints a saved result and runs nothing; drop --fleet or --show",
                    show.display()
                ));
            }
        }
        if self.suite.is_none() {
            for (flag, given) in [
                ("--passes", self.passes.is_some()),
                ("--pause", self.pause.is_some()),
            ] {
                if given {
                    return Err(format!("{flag} sets how a suite runs; add --suite [NAME]"));
                }
            }
        }
        if self.end_fsync && sweep.is_some() {
            return Err(
                "--end-fsync times the flush after one run, not after a --sweep; drop one of them"
                    .into(),
            );
        }
        Ok(Config {
            target: self.target,
            settings,
            duration: self.time,
            direct: !self.buffered,
            allow_write: self.allow_write,
            size: self.size,
            keep: self.keep,
            no_tui: self.no_tui,
            tui: self.tui,
            output,
            json_file,
            csv_file,
            sweep,
            suite: self.suite,
            suite_timing: Timing {
                passes: self.passes.unwrap_or(crate::suite::DEFAULT_PASSES),
                pass_time: self.time.unwrap_or(crate::suite::DEFAULT_PASS_TIME),
                pause: self.pause.unwrap_or(crate::suite::DEFAULT_PAUSE),
            },
            baseline: self.baseline,
            fleet: self.fleet.map(|l| l.0),
            outlier_pct: self.outlier_pct,
            show: self.show,
            fio: self.fio,
            drop_cache: self.drop_cache,
            list: self.list,
            all: self.all,
            completions: self.completions,
            man: self.man,
            durability: Durability {
                fsync_every: self.fsync,
                end_fsync: self.end_fsync,
            },
            ioengine,
            ioengine_fallback: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str]) -> Result<Config, String> {
        let mut full = vec!["diskscope"];
        full.extend_from_slice(args);
        Args::try_parse_from(full)
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
                rate_iops: 0
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
            Some(String::new())
        );
        let c = config(&["/dev/sdb", "--allow-write=/dev/sdb", "--read", "0"]).unwrap();
        assert_eq!(c.allow_write.as_deref(), Some("/dev/sdb"));
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
