//! fio's own results read as data: `--output-format=json` or `json+`, from a local run
//! (`jobs`) or a client/server run (`client_stats`, one entry per host and job, with
//! `hostname` and `port`, and fio's "All clients" sum). fio's output is not always one clean
//! document (`fio`'s quirks): `scan` finds every JSON object in such text and skips the
//! rest; `parse` reads the fio documents among them into typed structs (`raw`) that keep only
//! what is read, and groups their entries into `Snapshot`s (`snapshots`): every job of one
//! host at one moment. A job is an entry, never a name: `numjobs=3` without
//! `group_reporting` is three entries named alike, and all three count.
//!
//! Every figure is cumulative, as fio reports it; differencing snapshots into intervals is
//! the fleet's job (`fleet::results`), never done here. `FioEntry` is also what the terse
//! reader (`terse`) produces, so both formats reach the same results code.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::raw::{self, OptionList};
use super::scan::{self, Scan};
use super::snapshots;

/// fio's name for its sum over the hosts of a client/server run.
pub const ALL_CLIENTS: &str = "All clients";

/// One direction (reads or writes) of one entry, cumulative since the job started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct DirStats {
    pub io_bytes: u64,
    /// Complete I/Os (`total_ios`).
    pub ios: u64,
    pub short_ios: u64,
    /// fio's runtime of this direction, ms.
    pub runtime_ms: u64,
    /// fio's own rate over `runtime_ms`.
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// Mean total latency (fio's `lat`), ns.
    pub lat_mean_ns: f64,
    pub lat_p50_ns: Option<f64>,
    pub lat_p99_ns: Option<f64>,
}

/// Which latency fio's percentiles describe: total (`lat`, diskscope's own basis) when the
/// job set `lat_percentiles=1`, else completion only (`clat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PercentileBasis {
    Lat,
    Clat,
}

/// One job of one host at one moment, or (`job_count` above 1) several summed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FioEntry {
    /// The host of a client/server run; `None` for a local one.
    pub host: Option<String>,
    pub port: Option<u16>,
    pub jobname: String,
    /// fio's error number for the job (0: none).
    pub error: i64,
    pub read: DirStats,
    pub write: DirStats,
    /// Discards (`rw=trim`, `randtrim`, `trimwrite`): counted with reads and writes.
    pub trim: DirStats,
    /// How long the job ran, ms: the longer direction's runtime (the one fio's rates are
    /// over), else `job_runtime`.
    pub runtime_ms: u64,
    pub basis: PercentileBasis,
    /// fio's `groupid`: jobs of one group run together; a `stonewall` starts the next.
    pub group: u64,
    /// The jobs this entry stands for: 1, or how many a sum added up.
    pub job_count: usize,
}

impl FioEntry {
    /// The three directions: read, write, trim.
    fn dirs(&self) -> [&DirStats; 3] {
        [&self.read, &self.write, &self.trim]
    }
    /// Reads, writes and trims together (diskscope counts its trims as ops too).
    pub fn ios(&self) -> u64 {
        self.dirs().iter().map(|d| d.ios).sum()
    }
    pub fn io_bytes(&self) -> u64 {
        self.dirs().iter().map(|d| d.io_bytes).sum()
    }
    pub fn iops(&self) -> f64 {
        self.dirs().iter().map(|d| d.iops).sum()
    }
    pub fn bw_bytes_per_s(&self) -> f64 {
        self.dirs().iter().map(|d| d.bw_bytes_per_s).sum()
    }
    /// Mean latency over every direction, weighted by their I/Os.
    pub fn lat_mean_ns(&self) -> f64 {
        let n = self.ios();
        if n == 0 {
            return 0.0;
        }
        let weighted = |d: &&DirStats| d.lat_mean_ns * d.ios as f64;
        self.dirs().iter().map(weighted).sum::<f64>() / n as f64
    }
    /// The largest of the directions' percentile (the one a reader waits on).
    pub fn lat_p99_ns(&self) -> Option<f64> {
        self.worst(|d| d.lat_p99_ns)
    }
    pub fn lat_p50_ns(&self) -> Option<f64> {
        self.worst(|d| d.lat_p50_ns)
    }
    fn worst(&self, pick: fn(&DirStats) -> Option<f64>) -> Option<f64> {
        self.dirs().map(pick).into_iter().fold(None, max_opt)
    }
    pub fn is_all_clients(&self) -> bool {
        self.jobname == ALL_CLIENTS
    }
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Every job of one host (`None`: a local run) at one moment, in fio's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Snapshot {
    pub host: Option<String>,
    pub port: Option<u16>,
    pub jobs: Vec<FioEntry>,
}

impl Snapshot {
    /// The jobs summed as fio's `group_reporting` would (`snapshots::sum`).
    pub fn sum(&self) -> FioEntry {
        snapshots::sum(&self.jobs).unwrap_or_else(|| FioEntry {
            host: self.host.clone(),
            port: self.port,
            jobname: String::new(),
            error: 0,
            read: DirStats::default(),
            write: DirStats::default(),
            trim: DirStats::default(),
            runtime_ms: 0,
            basis: PercentileBasis::Clat,
            group: 0,
            job_count: 0,
        })
    }

    /// Its groups' ids, in order: one for jobs that ran together, more for `stonewall`s.
    pub fn groups(&self) -> Vec<u64> {
        let mut out: Vec<u64> = Vec::new();
        for j in &self.jobs {
            if !out.contains(&j.group) {
                out.push(j.group);
            }
        }
        out
    }

    /// The jobs of group `g`.
    pub fn group(&self, g: u64) -> Snapshot {
        Snapshot {
            host: self.host.clone(),
            port: self.port,
            jobs: self.jobs.iter().filter(|j| j.group == g).cloned().collect(),
        }
    }
}

/// What a file of fio output held.
#[derive(Debug, Clone, PartialEq)]
pub struct FioOutput {
    /// "fio-3.33".
    pub version: String,
    /// A client/server run (`client_stats`), with hosts.
    pub client_server: bool,
    /// Every snapshot, each host's in order (a local status-interval run repeats its jobs
    /// once per interval; the last of a host is its final result).
    pub snapshots: Vec<Snapshot>,
    /// fio's own "All clients" entry: with `--status-interval` it sums only the first
    /// snapshot of each host (`fio`'s quirks), so it is kept for comparison, not used.
    pub all_clients: Option<FioEntry>,
    /// The options fio printed: the global ones, then the first job's (later ones win).
    pub options: OptionList,
}

impl FioOutput {
    /// The last (final) snapshot of every host, in first-seen order.
    pub fn finals(&self) -> Vec<&Snapshot> {
        let mut at: HashMap<(Option<&str>, Option<u16>), usize> = HashMap::new();
        let mut out: Vec<&Snapshot> = Vec::new();
        for s in &self.snapshots {
            match at.get(&(s.host.as_deref(), s.port)) {
                Some(&i) => out[i] = s,
                None => {
                    at.insert((s.host.as_deref(), s.port), out.len());
                    out.push(s);
                }
            }
        }
        out
    }

    /// Every job of the final snapshots, in order.
    pub fn final_jobs(&self) -> Vec<&FioEntry> {
        self.finals().into_iter().flat_map(|s| &s.jobs).collect()
    }

    /// The hosts of a client/server run, in first-seen order.
    pub fn hosts(&self) -> Vec<(String, Option<u16>)> {
        self.finals()
            .into_iter()
            .filter_map(|s| Some((s.host.clone()?, s.port)))
            .collect()
    }

    /// The snapshots of one host (`None`: a local run), in order.
    pub fn snapshots_of(&self, host: Option<&str>, port: Option<u16>) -> Vec<&Snapshot> {
        self.snapshots
            .iter()
            .filter(|s| s.host.as_deref() == host && s.port == port)
            .collect()
    }

    /// The option fio printed for `key`: the first job's, else the global one. fio prints
    /// no option set without a value (`thread`, `group_reporting`, `time_based`).
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options.get(key)
    }

    /// The jobs one entry stands for when fio summed them itself (`group_reporting`, which
    /// fio does not print among the options): the first job's `numjobs` when its final
    /// snapshot has fewer entries of its name; `None` when every job is an entry.
    pub fn summed_by_fio(&self) -> Option<usize> {
        let numjobs: usize = self.option("numjobs")?.trim().parse().ok()?;
        let first = self.finals().into_iter().next()?;
        let name = &first.jobs.first()?.jobname;
        let entries = first.jobs.iter().filter(|j| &j.jobname == name).count();
        (numjobs > entries).then_some(numjobs)
    }
}

/// The words for a file whose JSON never closes.
pub const CUT_SHORT: &str =
    "its JSON ends before it closes: the file was cut short (or is still being written)";

/// Every top-level JSON object in `text` as a `Value`, skipping whatever is around and
/// between them (for readers of fields `parse` does not keep: the charts' options and bins).
pub fn documents(text: &str) -> Vec<Value> {
    scan::scan(text)
        .objects
        .iter()
        .filter_map(|o| scan::parse(text, &o.span).ok())
        .collect()
}

/// Whether `v` is a document fio wrote.
pub fn is_fio(v: &Value) -> bool {
    v["fio version"].is_string() && (v["jobs"].is_array() || v["client_stats"].is_array())
}

/// fio's results in `text`; an error says what is missing.
pub fn parse(text: &str) -> Result<FioOutput, String> {
    parse_scanned(text, &scan::scan(text))
}

/// fio's results in `text`, whose objects `found` lists (so a caller that scanned the text
/// to learn what it holds does not scan it again). Each document is read on its own, into
/// typed structs that keep only what is read.
pub fn parse_scanned(text: &str, found: &Scan) -> Result<FioOutput, String> {
    let spans: Vec<_> = found
        .objects
        .iter()
        .filter(|o| o.keys.is_some_and(|k| k.is_fio()))
        .map(|o| o.span.clone())
        .collect();
    if spans.is_empty() {
        return Err("no fio JSON result in it (fio --output-format=json writes one)".into());
    }
    let mut snapshots = Vec::new();
    let mut last = raw::Doc::default();
    for span in &spans {
        last = scan::parse(text, span).map_err(|e| format!("fio's JSON, but {e}"))?;
        // Local: one whole document per status interval, each a snapshot.
        if let Some(jobs) = last.jobs.take() {
            let mut jobs = jobs.into_iter();
            let first = jobs.next();
            if let Some(o) = first.as_ref().and_then(|j| j.options.as_ref()) {
                last.global.0.extend(o.0.iter().cloned());
            }
            let jobs: Vec<FioEntry> = first.into_iter().chain(jobs).filter_map(entry).collect();
            if !jobs.is_empty() {
                snapshots.push(Snapshot {
                    host: None,
                    port: None,
                    jobs,
                });
            }
        }
    }
    let version = last.version.0.unwrap_or_else(|| "fio".into());
    let mut options = last.global;
    let Some(stats) = last.client_stats else {
        return Ok(FioOutput {
            version,
            client_server: false,
            snapshots,
            all_clients: None,
            options,
        });
    };
    // Client/server: the last document holds every snapshot of every host.
    let (mut marked, mut all_clients) = (Vec::new(), None);
    let mut job_options = None;
    for j in stats {
        let marker = j.options.as_ref().and_then(OptionList::listed);
        if job_options.is_none() && marker.is_some() {
            job_options = j.options.clone();
        }
        match entry(j) {
            Some(e) if e.is_all_clients() => all_clients = Some(e),
            Some(e) => marked.push((e, marker)),
            None => {}
        }
    }
    options.0.extend(job_options.into_iter().flat_map(|o| o.0));
    Ok(FioOutput {
        version,
        client_server: true,
        snapshots: snapshots::split(marked),
        all_clients,
        options,
    })
}

/// One `jobs` or `client_stats` element; `None` without a job name.
fn entry(j: raw::Job) -> Option<FioEntry> {
    let jobname = j.jobname.0?;
    let (read, rb) = dir(&j.read);
    let (write, wb) = dir(&j.write);
    let (trim, tb) = dir(&j.trim);
    // The directions' runtime, the one fio's own `iops` and `bw` are over (`job_runtime`
    // can be a millisecond shorter: rates over it disagreed with fio's by 0.1%).
    let runtime_ms = Some(read.runtime_ms.max(write.runtime_ms).max(trim.runtime_ms))
        .filter(|&ms| ms > 0)
        .or(j.job_runtime.u64())
        .unwrap_or(0);
    Some(FioEntry {
        host: j.hostname.0,
        port: j.port.u64().and_then(|p| u16::try_from(p).ok()),
        jobname,
        error: j.error.i64().unwrap_or(0),
        read,
        write,
        trim,
        runtime_ms,
        basis: if [rb, wb, tb].contains(&PercentileBasis::Lat) {
            PercentileBasis::Lat
        } else {
            PercentileBasis::Clat
        },
        group: j.groupid.u64().unwrap_or(0),
        job_count: 1,
    })
}

/// A direction's figures: total latency's percentiles when fio kept them, else
/// completion latency's (and which).
fn dir(d: &raw::Dir) -> (DirStats, PercentileBasis) {
    let (basis, pct) = match &d.lat_ns.percentile {
        Some(p) => (PercentileBasis::Lat, Some(p)),
        None => (PercentileBasis::Clat, d.clat_ns.percentile.as_ref()),
    };
    let u = |n: raw::Lenient| n.u64().unwrap_or(0);
    let stats = DirStats {
        io_bytes: u(d.io_bytes),
        ios: u(d.total_ios),
        short_ios: u(d.short_ios),
        runtime_ms: u(d.runtime),
        iops: d.iops.f64().unwrap_or(0.0),
        bw_bytes_per_s: d
            .bw_bytes
            .f64()
            .unwrap_or_else(|| d.bw.f64().unwrap_or(0.0) * 1024.0),
        lat_mean_ns: d
            .lat_ns
            .mean
            .f64()
            .or_else(|| d.lat_us.mean.f64().map(|v| v * 1e3))
            .unwrap_or(0.0),
        lat_p50_ns: pct.and_then(|p| p.p50.f64()),
        lat_p99_ns: pct.and_then(|p| p.p99.f64()),
    };
    (stats, basis)
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
