//! What a result measured, as far as a comparison needs it — the workload (block size,
//! mix, trims, random share, threads, depth, rate, syncs), the engine, the target, O_DIRECT, and
//! what its p99 is (diskscope's total latency, fio's completion latency, from the due time
//! under a rate, one job's of several) — read from diskscope's results, fio's options and
//! this run's settings; and `differences`: what two of them measured differently, in words,
//! so a comparison of unlike runs says so above its figures. A knob a result does not
//! record is not compared (it is `None`).

use crate::fio::json::{FioOutput, PercentileBasis};
use crate::model::ConfigReport;
use crate::settings::Settings;
use crate::units::{format_block_size, format_count_rate, parse_size, visible};

/// What a p99 is the percentile of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P99Basis {
    /// Submission to completion reaped: diskscope's `latency_ns`, fio's `lat`.
    Total,
    /// fio's `clat`: from the kernel's acceptance to completion (fio kept no `lat` percentiles:
    /// its job did not set `lat_percentiles=1`).
    Completion,
    /// From each I/O's due time on a rate's timetable (diskscope with `--rate`).
    FromDue,
}

impl P99Basis {
    fn words(self) -> &'static str {
        match self {
            P99Basis::Total => "total latency (submission to completion, fio's lat)",
            P99Basis::Completion => {
                "fio's completion latency (clat, without submission; its job lacked lat_percentiles=1)"
            }
            P99Basis::FromDue => "latency from the due time on the rate's timetable",
        }
    }
}

/// What a result measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conditions {
    pub bs: Option<u64>,
    pub read_pct: Option<u8>,
    /// Share of I/Os that trim (`--trim`; fio's `randtrim`, `randtrimwrite`).
    pub trim_pct: Option<u8>,
    pub random_pct: Option<u8>,
    /// fio's spelling of where random offsets land (`random`, `zipf:1.2`, …).
    pub random_distribution: Option<String>,
    pub threads: Option<usize>,
    pub iodepth: Option<usize>,
    pub rate_iops: Option<u64>,
    pub fsync_every: Option<u32>,
    pub ioengine: Option<String>,
    /// Completions polled (`--hipri`, fio's `hipri`) or waited for.
    pub hipri: Option<bool>,
    pub target: Option<String>,
    pub direct: Option<bool>,
    pub p99: Option<P99Basis>,
    /// The p99 is the worst of this many jobs' own (fio without `group_reporting`), not one
    /// over every I/O.
    pub p99_worst_of_jobs: Option<usize>,
}

impl Conditions {
    /// A diskscope run's: its settings and what it ran on.
    pub fn of_settings(s: &Settings, engine: Option<&str>, target: &str, direct: bool) -> Self {
        Conditions {
            bs: Some(s.bs),
            read_pct: Some(s.read_pct),
            trim_pct: Some(s.trim_pct),
            random_pct: Some(s.random_pct),
            random_distribution: Some(s.random_distribution.fio_spelling()),
            threads: Some(s.threads),
            iodepth: Some(s.iodepth),
            rate_iops: Some(s.rate_iops),
            fsync_every: None,
            ioengine: engine.map(str::to_string),
            hipri: Some(s.hipri),
            target: Some(target.to_string()),
            direct: Some(direct),
            p99: Some(if s.rate_iops > 0 {
                P99Basis::FromDue
            } else {
                P99Basis::Total
            }),
            p99_worst_of_jobs: None,
        }
    }

    /// What a report's `config` says.
    pub fn of_config(c: &ConfigReport) -> Self {
        Conditions {
            fsync_every: Some(c.durability.fsync_every),
            ..Conditions::of_settings(
                &c.settings,
                Some(c.ioengine.name()),
                &c.target.path,
                c.target.direct,
            )
        }
    }

    /// What fio's output says: its options (fio's defaults where one is not given: rw=read,
    /// bs=4k, iodepth=1, direct=0, ioengine=psync on Linux), its jobs, and which latency its
    /// percentiles are.
    pub fn of_fio(out: &FioOutput) -> Self {
        let opt = |k: &str| out.option(k);
        let first = out.finals().into_iter().next();
        let (read_pct, random_pct) = fio_mix(out);
        let trim_pct = fio_trims(out);
        let group_jobs = first.map(|s| s.group(s.groups()[0]).jobs.len());
        let threads = out.summed_by_fio().or(group_jobs);
        let basis = first.map(|s| s.sum().basis);
        Conditions {
            bs: Some(opt("bs").map_or(Some(4096), fio_size)).flatten(),
            read_pct,
            trim_pct,
            random_pct,
            random_distribution: Some(opt("random_distribution").unwrap_or("random").to_string()),
            threads,
            iodepth: opt("iodepth").map_or(Some(1), |d| d.parse().ok()),
            rate_iops: None,
            fsync_every: None,
            ioengine: Some(opt("ioengine").unwrap_or("psync").to_string()),
            // fio's JSON leaves out options given without a value, `hipri` among them.
            hipri: None,
            target: opt("filename").map(str::to_string),
            direct: Some(opt("direct").is_some_and(|d| d == "1" || d == "true")),
            p99: basis.map(|b| match b {
                PercentileBasis::Lat => P99Basis::Total,
                PercentileBasis::Clat => P99Basis::Completion,
            }),
            p99_worst_of_jobs: group_jobs.filter(|&n| n > 1),
        }
    }

    /// What every test of a suite's card shares (its tests' own settings are matched by
    /// name): the engine, polling, the target, O_DIRECT and the syncs.
    pub fn of_card(self) -> Self {
        Conditions {
            ioengine: self.ioengine,
            hipri: self.hipri,
            target: self.target,
            direct: self.direct,
            fsync_every: self.fsync_every,
            ..Conditions::default()
        }
    }

    /// The same, without the knob a sweep varies (`name`: "threads", "bs", "iodepth",
    /// "rate"), whose steps are matched one by one instead.
    pub fn without(mut self, name: &str) -> Self {
        match name {
            "threads" => self.threads = None,
            "bs" => self.bs = None,
            "iodepth" => self.iodepth = None,
            "rate" => {
                self.rate_iops = None;
                self.p99 = None;
            }
            _ => {}
        }
        self
    }
}

/// fio's size: "4k" (fio's k is 1024 unless kb_base says otherwise), "4096", "1M"; the
/// reads' size of a "4k,8k" pair.
fn fio_size(text: &str) -> Option<u64> {
    let first = text.split([',', ':']).next()?.trim();
    parse_size(first).ok()
}

/// fio's `rw` with `rwmixread`/`rwmixwrite` and `percentage_random` as (read %, random %).
fn fio_mix(out: &FioOutput) -> (Option<u8>, Option<u8>) {
    let opt = |k: &str| out.option(k);
    let rw = opt("rw").or(opt("readwrite")).unwrap_or("read");
    let rw = rw.split(':').next().unwrap_or(rw).trim();
    let pct = |k: &str| {
        opt(k)
            .and_then(|v| v.parse::<u8>().ok())
            .map(|v| v.min(100))
    };
    let mixed = pct("rwmixread")
        .or(pct("rwmixwrite").map(|w| 100 - w))
        .unwrap_or(50);
    let (read, random) = match rw {
        "read" => (100, 0),
        "randread" => (100, 100),
        "write" => (0, 0),
        "randwrite" => (0, 100),
        "rw" | "readwrite" => (mixed, 0),
        "randrw" => (mixed, 100),
        // With trims: their share is `fio_trims`; trims alone have no reads to share.
        "trimwrite" => (0, 0),
        "randtrimwrite" => (0, 100),
        "trim" | "randtrim" => {
            let random = if rw == "trim" { 0 } else { 100 };
            return (None, Some(pct("percentage_random").unwrap_or(random)));
        }
        _ => return (None, None),
    };
    (Some(read), Some(pct("percentage_random").unwrap_or(random)))
}

/// fio's share of trims: all of `trim`/`randtrim`, half of `trimwrite`/`randtrimwrite`, none
/// of the other modes — unknown where the job shares a flow with others (diskscope's export
/// of a trim share runs the trims as jobs of their own, whose options fio's JSON leaves out).
fn fio_trims(out: &FioOutput) -> Option<u8> {
    if out.option("flow").is_some() {
        return None;
    }
    let rw = out
        .option("rw")
        .or(out.option("readwrite"))
        .unwrap_or("read");
    match rw.split(':').next().unwrap_or(rw).trim() {
        "trim" | "randtrim" => Some(100),
        "trimwrite" | "randtrimwrite" => Some(50),
        _ => Some(0),
    }
}

fn pct(p: u8) -> String {
    format!("{p}%")
}

/// What `then` (the baseline) measured differently from `now`, one phrase each ("block
/// size 1 MiB then, 4 KiB now"); knobs either side does not record are left out.
pub fn differences(then: &Conditions, now: &Conditions) -> Vec<String> {
    let mut out = Vec::new();
    let mut differ = |what: &str, a: Option<String>, b: Option<String>| {
        if let (Some(a), Some(b)) = (a, b)
            && a != b
        {
            out.push(format!("{what} {a} then, {b} now"));
        }
    };
    let both = |f: fn(&Conditions) -> Option<String>| (f(then), f(now));
    let (a, b) = both(|c| c.bs.map(format_block_size));
    differ("block size", a, b);
    // Reads are a share of what trims leave: none to compare where both only trim.
    let only_trims = then.trim_pct == Some(100) && now.trim_pct == Some(100);
    if !only_trims {
        differ("reads", then.read_pct.map(pct), now.read_pct.map(pct));
    }
    differ("trims", then.trim_pct.map(pct), now.trim_pct.map(pct));
    differ("random", then.random_pct.map(pct), now.random_pct.map(pct));
    let (a, b) = both(|c| c.random_distribution.clone());
    differ("random offsets", a, b);
    let (a, b) = both(|c| c.threads.map(|t| t.to_string()));
    differ("threads", a, b);
    let (a, b) = both(|c| c.iodepth.map(|t| t.to_string()));
    differ("depth", a, b);
    let (a, b) = both(|c| c.rate_iops.map(rate_words));
    differ("rate", a, b);
    let (a, b) = both(|c| {
        c.hipri.map(|p| {
            if p {
                "polled (--hipri)"
            } else {
                "by interrupt"
            }
            .into()
        })
    });
    differ("completions", a, b);
    let (a, b) = both(|c| c.fsync_every.map(sync_words));
    differ("fdatasync", a, b);
    differ("engine", then.ioengine.clone(), now.ioengine.clone());
    let (a, b) = both(|c| {
        c.direct
            .map(|d| if d { "O_DIRECT" } else { "buffered" }.into())
    });
    differ("I/O", a, b);
    if let (Some(a), Some(b)) = (&then.target, &now.target)
        && !same_path(a, b)
    {
        out.push(format!("target {} then, {} now", visible(a), visible(b)));
    }
    if let (Some(a), Some(b)) = (then.p99, now.p99)
        && a != b
    {
        out.push(format!("p99 of {} then, of {} now", a.words(), b.words()));
    }
    if let Some(n) = then.p99_worst_of_jobs {
        out.push(format!(
            "p99 then is the worst of fio's {n} jobs' own (fio keeps percentiles per job without group_reporting), now one over every I/O"
        ));
    }
    out
}

/// A rate as the differences say it: "unlimited", "5000 IOPS".
fn rate_words(r: u64) -> String {
    match r {
        0 => "unlimited".into(),
        r => format!("{} IOPS", format_count_rate(r as f64)),
    }
}

/// Syncs as the differences say them: "none", "every 8 writes".
fn sync_words(n: u32) -> String {
    match n {
        0 => "none".into(),
        n => format!("every {n} writes"),
    }
}

/// Two names of one file: equal as given, or the same file here.
fn same_path(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// The line above a comparison of unlike results: "baseline a.json measured something
/// else: block size 1 MiB then, 4 KiB now; …"; `None` when nothing recorded differs.
pub fn differ_line(label: &str, then: &Conditions, now: &Conditions) -> Option<String> {
    let d = differences(then, now);
    (!d.is_empty()).then(|| {
        format!(
            "baseline {label} measured something else: {} — the figures compare unlike runs",
            d.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_different_trim_share_is_said_and_reads_are_not_compared_between_trims_alone() {
        let with = |trim_pct, read_pct| {
            let s = Settings {
                trim_pct,
                read_pct,
                ..Settings::default()
            };
            Conditions::of_settings(&s, Some("io_uring"), "/dev/loop0", true)
        };
        assert_eq!(
            differences(&with(0, 100), &with(30, 100)),
            ["trims 0% then, 30% now"]
        );
        assert!(differences(&with(100, 100), &with(100, 50)).is_empty());
        assert_eq!(
            differences(&with(20, 100), &with(20, 50)),
            ["reads 100% then, 50% now"]
        );
    }

    #[test]
    fn polling_is_compared_between_runs_and_not_with_fio_which_does_not_record_it() {
        let run = |hipri| {
            let s = Settings {
                hipri,
                ..Settings::default()
            };
            Conditions::of_settings(&s, Some("io_uring"), "/dev/nvme0n1", true)
        };
        assert_eq!(
            differences(&run(true), &run(false)),
            ["completions polled (--hipri) then, by interrupt now"]
        );
        assert!(differences(&run(true), &run(true)).is_empty());
        let fio = Conditions {
            hipri: None,
            ..run(false)
        };
        assert!(differences(&fio, &run(true)).is_empty());
    }
}
