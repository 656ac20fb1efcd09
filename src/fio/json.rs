//! fio's own results read as data: `--output-format=json` or `json+`, from a local run
//! (`jobs`) or a client/server run (`client_stats`, one entry per host and job, with
//! `hostname` and `port`, and fio's "All clients" sum). fio's output is not always one clean
//! document (`fio`'s quirks): `documents` finds every JSON object in such text and skips
//! the rest; `parse` turns them into `FioEntry`s in the order fio wrote them.
//!
//! Every figure is cumulative, as fio reports it; differencing snapshots into intervals is
//! the fleet's job (`fleet::results`), never done here. `FioEntry` is also what the terse
//! reader (`terse`) produces, so both formats reach the same results code.

use serde::Serialize;
use serde_json::Value;

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

/// One job of one host at one moment.
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
    /// How long the job ran, ms: the longer direction's runtime (the one fio's rates are
    /// over), else `job_runtime`.
    pub runtime_ms: u64,
    pub basis: PercentileBasis,
}

impl FioEntry {
    /// Reads and writes together.
    pub fn ios(&self) -> u64 {
        self.read.ios + self.write.ios
    }
    pub fn io_bytes(&self) -> u64 {
        self.read.io_bytes + self.write.io_bytes
    }
    pub fn iops(&self) -> f64 {
        self.read.iops + self.write.iops
    }
    pub fn bw_bytes_per_s(&self) -> f64 {
        self.read.bw_bytes_per_s + self.write.bw_bytes_per_s
    }
    /// Mean latency over both directions, weighted by their I/Os.
    pub fn lat_mean_ns(&self) -> f64 {
        let n = self.ios();
        if n == 0 {
            return 0.0;
        }
        (self.read.lat_mean_ns * self.read.ios as f64
            + self.write.lat_mean_ns * self.write.ios as f64)
            / n as f64
    }
    /// The larger of the two directions' percentile (the one a reader waits on).
    pub fn lat_p99_ns(&self) -> Option<f64> {
        max_opt(self.read.lat_p99_ns, self.write.lat_p99_ns)
    }
    pub fn lat_p50_ns(&self) -> Option<f64> {
        max_opt(self.read.lat_p50_ns, self.write.lat_p50_ns)
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

/// What a file of fio output held.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FioOutput {
    /// "fio-3.33".
    pub version: String,
    /// A client/server run (`client_stats`), with hosts.
    pub client_server: bool,
    /// Every entry, in fio's order (cumulative snapshots repeat a job).
    pub entries: Vec<FioEntry>,
}

impl FioOutput {
    /// The last (final) entry of every job of every host, in first-seen order; fio's "All
    /// clients" left out. Found through a map: comparing each entry with every job found so
    /// far took 350 ms of 530 for `--show` of 10,000 jobs.
    pub fn finals(&self) -> Vec<&FioEntry> {
        let mut at: std::collections::HashMap<(Option<&str>, Option<u16>, &str), usize> =
            std::collections::HashMap::new();
        let mut out: Vec<&FioEntry> = Vec::new();
        for e in self.entries.iter().filter(|e| !e.is_all_clients()) {
            let key = (e.host.as_deref(), e.port, e.jobname.as_str());
            match at.get(&key) {
                Some(&i) => out[i] = e,
                None => {
                    at.insert(key, out.len());
                    out.push(e);
                }
            }
        }
        out
    }

    /// The hosts of a client/server run, in first-seen order.
    pub fn hosts(&self) -> Vec<(String, Option<u16>)> {
        let mut out: Vec<(String, Option<u16>)> = Vec::new();
        for e in self.finals() {
            if let Some(h) = &e.host
                && !out.iter().any(|(n, p)| n == h && *p == e.port)
            {
                out.push((h.clone(), e.port));
            }
        }
        out
    }
}

/// Every top-level JSON object in `text`, skipping whatever is around and between them
/// (error lines, ETA lines, a second document).
pub fn documents(text: &str) -> Vec<Value> {
    scan(text).0
}

/// `documents`, and whether the text ends inside an object that never closes (a file cut
/// short, or one still being written). Everything after such an object's `{` is inside it,
/// so the scan stops there rather than taking a fragment of it for a document.
pub fn scan(text: &str) -> (Vec<Value>, bool) {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(rel) = text[at..].find('{') {
        let start = at + rel;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v @ Value::Object(_))) => {
                out.push(v);
                at = start + stream.byte_offset();
            }
            Some(Err(e)) if e.is_eof() => return (out, true),
            _ => at = start + 1,
        }
    }
    (out, false)
}

/// The words for a file whose JSON never closes.
pub const CUT_SHORT: &str =
    "its JSON ends before it closes: the file was cut short (or is still being written)";

/// Whether `v` is a document fio wrote.
pub fn is_fio(v: &Value) -> bool {
    v["fio version"].is_string() && (v["jobs"].is_array() || v["client_stats"].is_array())
}

/// fio's results in `text`; an error says what is missing.
pub fn parse(text: &str) -> Result<FioOutput, String> {
    let docs: Vec<Value> = documents(text).into_iter().filter(is_fio).collect();
    let Some(last) = docs.last() else {
        return Err("no fio JSON result in it (fio --output-format=json writes one)".into());
    };
    let version = last["fio version"].as_str().unwrap_or("fio").to_string();
    let client_server = last["client_stats"].is_array();
    let entries = if client_server {
        // One document holds every snapshot of every host.
        last["client_stats"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(entry)
            .collect()
    } else {
        // Local: one whole document per status interval; the jobs of each, in order.
        docs.iter()
            .flat_map(|d| d["jobs"].as_array().cloned().unwrap_or_default())
            .filter_map(|j| entry(&j))
            .collect()
    };
    Ok(FioOutput {
        version,
        client_server,
        entries,
    })
}

/// One `jobs` or `client_stats` element.
fn entry(j: &Value) -> Option<FioEntry> {
    let jobname = j["jobname"].as_str()?.to_string();
    let (read, rb) = dir(&j["read"]);
    let (write, wb) = dir(&j["write"]);
    // The directions' runtime, the one fio's own `iops` and `bw` are over (`job_runtime`
    // can be a millisecond shorter: rates over it disagreed with fio's by 0.1%).
    let runtime_ms = Some(read.runtime_ms.max(write.runtime_ms))
        .filter(|&ms| ms > 0)
        .or(j["job_runtime"].as_u64())
        .unwrap_or(0);
    Some(FioEntry {
        host: j["hostname"].as_str().map(str::to_string),
        port: j["port"].as_u64().and_then(|p| u16::try_from(p).ok()),
        jobname,
        error: j["error"].as_i64().unwrap_or(0),
        read,
        write,
        runtime_ms,
        basis: if rb == PercentileBasis::Lat || wb == PercentileBasis::Lat {
            PercentileBasis::Lat
        } else {
            PercentileBasis::Clat
        },
    })
}

/// A direction's figures: total latency's percentiles when fio kept them, else
/// completion latency's (and which).
fn dir(d: &Value) -> (DirStats, PercentileBasis) {
    let pct = |key: &str, p: &str| d[key]["percentile"][p].as_f64();
    let (basis, key) = if d["lat_ns"]["percentile"].is_object() {
        (PercentileBasis::Lat, "lat_ns")
    } else {
        (PercentileBasis::Clat, "clat_ns")
    };
    let f = |k: &str| d[k].as_f64().unwrap_or(0.0);
    let u = |k: &str| d[k].as_u64().unwrap_or(0);
    let stats = DirStats {
        io_bytes: u("io_bytes"),
        ios: u("total_ios"),
        short_ios: u("short_ios"),
        runtime_ms: u("runtime"),
        iops: f("iops"),
        bw_bytes_per_s: d["bw_bytes"].as_f64().unwrap_or_else(|| f("bw") * 1024.0),
        lat_mean_ns: d["lat_ns"]["mean"]
            .as_f64()
            .or_else(|| d["lat_us"]["mean"].as_f64().map(|v| v * 1e3))
            .unwrap_or(0.0),
        lat_p50_ns: pct(key, "50.000000"),
        lat_p99_ns: pct(key, "99.000000"),
    };
    (stats, basis)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOB: &str = r#"{"jobname":"d","error":0,"job_runtime":1000,
        "read":{"io_bytes":8192,"total_ios":2,"runtime":1000,"iops":2.0,"bw_bytes":8192,
                "lat_ns":{"mean":500.0},"clat_ns":{"mean":400.0,"percentile":{"50.000000":300,"99.000000":900}}},
        "write":{"io_bytes":0,"total_ios":0,"runtime":0,"iops":0,"bw_bytes":0,"lat_ns":{"mean":0}}}"#;

    #[test]
    fn junk_around_and_between_documents_is_skipped() {
        let doc = format!(r#"{{"fio version":"fio-3.33","jobs":[{JOB}]}}"#);
        let text = format!("fio: some error {{oops\n{doc}\nJobs: 1\n{doc}\ntrailing");
        assert_eq!(documents(&text).len(), 2);
        let out = parse(&text).unwrap();
        assert!(!out.client_server);
        assert_eq!(out.entries.len(), 2);
        assert_eq!(out.finals().len(), 1);
        let e = out.finals()[0];
        assert_eq!((e.ios(), e.io_bytes(), e.runtime_ms), (2, 8192, 1000));
        assert_eq!(e.basis, PercentileBasis::Clat);
        assert_eq!(e.lat_p99_ns(), Some(900.0));
        assert_eq!(e.lat_mean_ns(), 500.0);
    }

    #[test]
    fn client_stats_keep_hosts_and_leave_all_clients_out_of_finals() {
        let host = |h: &str, ios: u64| {
            JOB.replace(
                "\"jobname\":\"d\"",
                &format!("\"jobname\":\"d\",\"hostname\":\"{h}\",\"port\":8765"),
            )
            .replace("\"total_ios\":2", &format!("\"total_ios\":{ios}"))
        };
        let all = JOB.replace("\"jobname\":\"d\"", "\"jobname\":\"All clients\"");
        let text = format!(
            r#"<vm> noise
{{"fio version":"fio-3.33","client_stats":[{},{},{all},{}]}}"#,
            host("a", 1),
            host("b", 5),
            host("a", 7)
        );
        let out = parse(&text).unwrap();
        assert!(out.client_server);
        let finals = out.finals();
        assert_eq!(finals.len(), 2);
        assert_eq!(finals[0].host.as_deref(), Some("a"));
        assert_eq!(finals[0].ios(), 7);
        assert_eq!(out.hosts().len(), 2);
    }

    /// fio 3.33 wrote job_runtime 1000 and a read runtime of 1001 ms for 9104 reads, and
    /// iops 9094.9: the rate from the entry is fio's.
    #[test]
    fn rates_are_over_the_runtime_fio_used() {
        let job = JOB.replace(
            "\"total_ios\":2,\"runtime\":1000,\"iops\":2.0",
            "\"total_ios\":9104,\"runtime\":1001,\"iops\":9094.905095",
        );
        let out = parse(&format!(r#"{{"fio version":"fio-3.33","jobs":[{job}]}}"#)).unwrap();
        let e = out.finals()[0];
        assert_eq!(e.runtime_ms, 1001);
        let rate = e.ios() as f64 * 1e3 / e.runtime_ms as f64;
        assert!(
            (rate / e.iops() - 1.0).abs() < 1e-9,
            "{rate} vs fio's {}",
            e.iops()
        );
    }

    /// A saved result cut short is said to be so, and no fragment of it is a document.
    #[test]
    fn a_document_cut_short_is_no_document() {
        let doc = format!(r#"{{"fio version":"fio-3.33","jobs":[{JOB}]}}"#);
        let (docs, cut) = scan(&doc[..doc.len() - 40]);
        assert!(docs.is_empty() && cut, "{docs:?}");
        // Whole documents before the cut one still count (a status-interval run's output).
        let (docs, cut) = scan(&format!("{doc}\n{}", &doc[..50]));
        assert_eq!((docs.len(), cut), (1, true));
        assert_eq!(
            scan(&doc),
            (vec![serde_json::from_str(&doc).unwrap()], false)
        );
    }

    #[test]
    fn text_without_fio_json_is_refused() {
        assert!(parse("hello").is_err());
        assert!(parse(r#"{"name":"pkg"}"#).is_err());
    }
}
