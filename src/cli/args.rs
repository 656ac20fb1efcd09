//! clap's raw arguments, one group per `--help` section (ripgrep gives every flag a
//! category; here a flattened struct with a `next_help_heading` per group): the workload,
//! output and results, safety, sweeps and suites, the rate, the steady state, the fleet, and
//! the rest. Each
//! field's doc comment is its `--help` line. Values are typed by the parsers in `values`, so
//! a refused value is said in clap's words; checks across flags are `config`'s.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::values;
use crate::fleet::hosts::HostList;
use crate::settings::{Distribution, IoEngine};
use crate::suite::SuiteName;
use crate::sweep::SweepSpec;

/// What the workers do and for how long.
#[derive(Debug, Args)]
#[command(next_help_heading = "Workload")]
pub struct WorkloadArgs {
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

    /// Polled completions (fio's hipri): io_uring with IORING_SETUP_IOPOLL, each ring spinning
    /// a CPU on the device's queue instead of waiting for an interrupt. Needs a queue that
    /// polls (queue/io_poll 1: NVMe with poll queues), O_DIRECT and no --fsync; refused with
    /// the reason otherwise
    #[arg(long)]
    pub hipri: bool,

    /// Block size per I/O: 512, 4k, 64KiB, 1M ... (at most 16M)
    #[arg(short = 'b', long = "bs", default_value = "4k", value_name = "SIZE", value_parser = values::block_size)]
    pub bs: u64,

    /// Percentage of I/Os that are reads; below 100 needs --allow-write
    #[arg(long, default_value = "100", value_name = "PCT", value_parser = values::percentage)]
    pub read: u8,

    /// Percentage of I/Os that discard their block (fio's trim: BLKDISCARD, or io_uring's block
    /// discard), drawn first; --read splits the rest. A trim destroys data: needs --allow-write
    /// and a block device that discards
    #[arg(long, default_value = "0", value_name = "PCT", value_parser = values::percentage)]
    pub trim: u8,

    /// Percentage of I/Os at random offsets; the rest are sequential
    #[arg(long, default_value = "100", value_name = "PCT", value_parser = values::percentage)]
    pub random: u8,

    /// Where random offsets land, in fio's spelling: random (uniform), zipf:θ (e.g. zipf:1.2),
    /// pareto:h (h of the I/Os on the hottest 1-h of the blocks, e.g. pareto:0.8), or a hot
    /// band zoned:X/Y:R/S (X % of the I/Os on Y % of the span; hotband:X/Y for short). Hot
    /// blocks are scattered over the span, the same ones in every run
    #[arg(long, default_value = "random", value_name = "DIST", value_parser = values::distribution)]
    pub random_distribution: Distribution,

    /// How long to run: 10s, 2m, 1h; at least 100ms, one tick of the sampler [default: 10s
    /// without the TUI]
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

    /// Bytes of the target to use from its start; the scratch file's size [default: 1G for
    /// the scratch file, else the whole target]
    #[arg(long, value_name = "SIZE", value_parser = values::size)]
    pub size: Option<u64>,

    /// Evict the target's pages from the page cache before the run (with --buffered)
    #[arg(long)]
    pub drop_cache: bool,

    /// Read the whole span in order and map it: bandwidth against position, each region's
    /// latency class (Victoria's bands), every read error by offset. `quick` reads an even
    /// sample (seconds); full (the default) reads every block, with an ETA, and a stopped
    /// scan resumes where it stopped; `restart` starts over. Read-only. -b and -Q set the
    /// read and depth [default: 1M at depth 8]
    #[arg(long, value_name = "HOW", num_args = 0..=1, require_equals = true,
          default_missing_value = "full", value_parser = values::surface)]
    pub surface: Option<crate::surface::session::SurfaceAsk>,
}

/// Where the figures go, and what they are compared with.
#[derive(Debug, Args)]
#[command(next_help_heading = "Output and results")]
pub struct OutputArgs {
    /// Print text lines instead of opening the TUI (automatic when stdout is not a terminal)
    #[arg(long)]
    pub no_tui: bool,

    /// Insist on the TUI: fail when stdin or stdout is not a terminal instead of falling back
    /// to text
    #[arg(long, conflicts_with = "no_tui")]
    pub tui: bool,

    /// Leave the mouse to the terminal: no clicks on sliders or rows, and the terminal's own
    /// text selection works as usual (M in the TUI turns the mouse on and off)
    #[arg(long)]
    pub no_mouse: bool,

    /// Print only the final summary
    #[arg(short, long)]
    pub quiet: bool,

    /// Print one JSON document (config, totals, threads, intervals; or a sweep's steps)
    /// instead of text, or with FILE save it there (--json=FILE when TARGET follows)
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    /// Print the one-second intervals (or a sweep's steps) as CSV with a header, or with FILE
    /// save them there
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub csv: Option<PathBuf>,

    /// Save the result as a chart, an SVG: a run over time with its periods and latency
    /// distribution, a sweep's curve, a rate curve, a suite's card or a fleet's hosts. With
    /// --show, draw that saved result (diskscope's or fio's JSON) instead of running
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Compare with a saved result: a run, sweep, suite card or fleet (--json FILE), or fio's
    /// own JSON output (--output-format=json or json+, local or client/server)
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Print a saved result in diskscope's summary form and exit: a run, sweep or fleet
    /// (--json FILE), or fio's JSON output (per host when it has hosts); `last`: the newest
    /// result kept when a terminal went away (see Files below; a file named last: ./last)
    #[arg(long, value_name = "FILE")]
    pub show: Option<PathBuf>,

    /// Print the fio command line and job file equivalent to these settings, and exit
    #[arg(long)]
    pub fio: bool,
}

/// What may be written.
#[derive(Debug, Args)]
#[command(next_help_heading = "Safety")]
pub struct SafetyArgs {
    /// Allow writes (destroys data on TARGET). On a block device name it: --allow-write=/dev/sdX;
    /// with several devices name each (repeat it, or a comma list)
    #[arg(long, value_name = "DEVICE", num_args = 0..=1, require_equals = true,
          default_missing_value = "", action = clap::ArgAction::Append)]
    pub allow_write: Vec<OsString>,

    /// Keep the scratch file on exit (it is reused by the next run)
    #[arg(long)]
    pub keep: bool,
}

/// A series of runs: a sweep of one knob, or a suite's card.
#[derive(Debug, Args)]
#[command(next_help_heading = "Sweeps and suites")]
pub struct SeriesArgs {
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
          conflicts_with_all = ["threads", "iodepth", "bs", "read", "trim", "random", "random_distribution", "sweep", "tui", "end_fsync"])]
    pub suite: Option<SuiteName>,

    /// With --suite: passes per test and direction; the card shows their median, min-max and
    /// best [3]
    #[arg(long, value_name = "N", value_parser = values::passes)]
    pub passes: Option<usize>,

    /// With --suite: how long the engine rests between two passes (0 for none, else at least
    /// 100ms) [1s]
    #[arg(long, value_name = "DUR", value_parser = values::pause)]
    pub pause: Option<Duration>,
}

/// When a figure can be believed: the SNIA PTS steady-state check, and ending a run on it.
#[derive(Debug, Args)]
#[command(next_help_heading = "Steady state")]
pub struct SteadyArgs {
    /// Round length of the steady-state check: a figure is steady when over the last 5 rounds
    /// its range stays within --steady-excursion and its least-squares line within
    /// --steady-slope of the mean (SNIA PTS) [default: 2s in the TUI, 5s without]
    #[arg(long, value_name = "DUR", value_parser = values::steady_round)]
    pub steady_round: Option<Duration>,

    /// Largest range (max - min) of the 5 rounds, % of their mean [default: 20, as PTS]
    #[arg(long, value_name = "PCT", value_parser = values::steady_pct)]
    pub steady_excursion: Option<f64>,

    /// Largest excursion of the rounds' least-squares line across the window, % of their
    /// mean [default: 10, as PTS]
    #[arg(long, value_name = "PCT", value_parser = values::steady_pct)]
    pub steady_slope: Option<f64>,

    /// End the run (each sweep step, each suite pass) once steady, or at MAX saying it never
    /// settled [MAX default: -T]; the summary then quotes the steady window's figures, as
    /// PTS does. Without the TUI (--no-tui)
    #[arg(long, value_name = "MAX", num_args = 0..=1, require_equals = true,
          value_parser = values::duration)]
    pub until_steady: Option<Option<Duration>>,
}

/// The load asked per second.
#[derive(Debug, Args)]
#[command(next_help_heading = "Rate")]
pub struct RateArgs {
    /// I/Os per second for all threads together (5000, 50k; 0: unlimited). Each thread
    /// issues its share on a fixed timetable, and latency is counted from when an I/O was due,
    /// not from when it went out (coordinated omission corrected); the service time from
    /// submission is reported beside it. Says so when the disk cannot keep up
    #[arg(long = "rate", default_value = "0", value_name = "IOPS", value_parser = values::rate_iops)]
    pub rate: u64,
}

/// The same test on many hosts.
#[derive(Debug, Args)]
#[command(next_help_heading = "Fleet")]
pub struct FleetArgs {
    /// Run the same test on many hosts through fio's client/server mode (each host runs
    /// `fio --server`): a comma list (a,b:8766) or a file of `host[,port]` lines (fio's
    /// hosts.list). TARGET is the path on every host and must exist there. Read-only on
    /// block devices; writes (--read below 100, with --allow-write) only to regular files.
    /// Exit status 3 when some hosts failed, 1 when all did
    #[arg(long, value_name = "HOSTS", value_parser = values::fleet_hosts())]
    pub fleet: Option<HostList>,

    /// With --fleet or several targets: flag hosts (targets) whose IOPS is more than PCT %
    /// below their median
    #[arg(long, value_name = "PCT", default_value = "20", value_parser = values::outlier_pct)]
    pub outlier_pct: f64,
}

/// Several targets at once.
#[derive(Debug, Args)]
#[command(next_help_heading = "Several targets")]
pub struct DisksArgs {
    /// With several targets: run each alone for -T, then all together for -T, and say
    /// whether together falls short of the sum of alone (a shared HBA, PCIe switch, disk or
    /// CPU), naming what the targets share
    #[arg(long)]
    pub each_then_all: bool,
}

/// Everything that does not run a benchmark.
#[derive(Debug, Args)]
#[command(next_help_heading = "Other")]
pub struct OtherArgs {
    /// List block devices and exit
    #[arg(long)]
    pub list: bool,

    /// Print the drive's own health record (NVMe log as root, else smartctl) and what it
    /// says, for TARGET or every disk, and exit; no I/O is run
    #[arg(long)]
    pub health: bool,

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
