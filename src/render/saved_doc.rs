//! A result file read back for `--show` and `--baseline`: which kind of result it holds —
//! fio's own output, or diskscope's run, sweep, suite card, fleet or run on several targets
//! (`--json FILE`) — and its fields, typed. Only what is shown or compared is read: serde
//! skips every other field without building it, so memory stays a small multiple of the
//! file (the whole file is held as text; README, "Reliability") rather than the hundred-odd
//! bytes per byte a generic JSON tree took; a run on several targets is the exception, read
//! as a tree (its targets' intervals included) by `render::disks_saved`. The types are
//! lenient (`fio::raw::Lenient`, `Text`) and every field defaults, so a file from an older
//! version, before a field existed, still reads.

use std::ops::Range;
use std::path::Path;

use serde::Deserialize;

use crate::fio::json::{self as fio_json, FioOutput};
use crate::fio::raw::{Lenient, Text};
use crate::fio::scan::{self, Keys, Scan};
use crate::model::Meta;
use crate::model::fleet::FleetReport;
use crate::result_file;
use crate::settings::Settings;
use crate::units::visible;

/// What a result file holds.
#[derive(Debug)]
pub enum Saved {
    Fio(FioOutput),
    /// A run on several targets, as a JSON tree: `render::disks_saved` reads it field by
    /// field.
    Disks(Box<serde_json::Value>),
    Fleet(Box<FleetReport>),
    Suite(SavedSuite),
    Sweep(SavedSweep),
    Run(SavedRun),
}

/// A saved run's or sweep's `config`: what was measured and how.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedConfig {
    pub target: Text,
    pub direct: Text,
    pub threads: Lenient,
    pub iodepth: Lenient,
    pub bs: Lenient,
    pub read_pct: Lenient,
    pub random_pct: Lenient,
    pub rate_iops: Lenient,
    pub ioengine: Text,
    pub latency_basis: Text,
    pub fsync_every: Lenient,
}

impl SavedConfig {
    /// O_DIRECT unless the file says false (results from before the field ran direct).
    pub fn is_direct(&self) -> bool {
        self.direct.0.as_deref() != Some("false")
    }
}

/// A latency summary (ns).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedLatency {
    pub count: Lenient,
    pub min: Lenient,
    pub mean: Lenient,
    pub p50: Lenient,
    pub p90: Lenient,
    pub p99: Lenient,
    pub p999: Lenient,
    pub max: Lenient,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedTotal {
    pub elapsed_s: Lenient,
    pub ops: Lenient,
    pub bytes: Lenient,
    pub iops: Lenient,
    pub bw_bytes_per_s: Lenient,
    pub latency_ns: SavedLatency,
    pub errors: Lenient,
    pub short_ios: Lenient,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedThread {
    pub id: Lenient,
    pub ops: Lenient,
    pub elapsed_s: Lenient,
    pub iops: Lenient,
    pub latency_mean_ns: Lenient,
}

/// A run (`--json FILE` of one run); its intervals are not read.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedRun {
    #[serde(deserialize_with = "or_default")]
    pub meta: Meta,
    pub config: SavedConfig,
    pub total: SavedTotal,
    pub threads: Vec<SavedThread>,
    pub periods: Vec<SavedPeriodDoc>,
}

/// One of a saved run's periods: the settings it ran at (`None` for merged periods of
/// different settings, and for settings this version cannot read) and its figures.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedPeriodDoc {
    #[serde(deserialize_with = "or_default")]
    pub settings: Option<Settings>,
    pub iops: Lenient,
    pub bw_bytes_per_s: Lenient,
    pub latency_ns: SavedLatency,
}

/// A field whose type is the model's own (`Meta`, `Settings`): read when it reads, else its
/// default, so a field another version wrote differently costs only that field. Both are a
/// few hundred bytes, so going through a JSON tree costs nothing worth counting.
fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    let v = serde_json::Value::deserialize(d)?;
    Ok(serde_json::from_value(v).unwrap_or_default())
}

/// One step of a sweep: its settings (all of them, one is the swept knob) and figures.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedStep {
    pub threads: Lenient,
    pub iodepth: Lenient,
    pub bs: Lenient,
    pub rate_iops: Lenient,
    pub iops: Lenient,
    pub bw_bytes_per_s: Lenient,
    pub latency_ns: SavedLatency,
}

impl SavedStep {
    /// The step's value of the knob named `name` ("threads", "bs", "iodepth", "rate"); a
    /// rate is absent (0, unlimited) in files from before the rate knob.
    pub fn value(&self, name: &str) -> Option<u64> {
        match name {
            "threads" => self.threads.u64(),
            "iodepth" => self.iodepth.u64(),
            "bs" => self.bs.u64(),
            "rate" => Some(self.rate_iops.u64().unwrap_or(0)),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedSaturation {
    pub summary: Text,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedSweep {
    #[serde(deserialize_with = "or_default")]
    pub meta: Meta,
    pub config: SavedConfig,
    pub dimension: Text,
    pub steps: Vec<SavedStep>,
    pub saturation: Option<SavedSaturation>,
}

/// A median with its spread.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedSpread {
    pub median: Lenient,
    pub min: Lenient,
    pub max: Lenient,
}

/// One direction of a card's test.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedDirection {
    /// Only counted: a test stopped short has fewer than the card's `passes`.
    pub passes: Vec<serde::de::IgnoredAny>,
    pub mb_per_s: SavedSpread,
    pub iops: SavedSpread,
    pub latency_ns: SavedLatency,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedTest {
    pub name: Text,
    pub bs: Lenient,
    pub threads: Lenient,
    pub iodepth: Lenient,
    /// The depth it ran at (1 on psync).
    pub iodepth_run: Lenient,
    pub read: Option<SavedDirection>,
    pub read_not_run: Text,
    pub write: Option<SavedDirection>,
    pub write_not_run: Text,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedSuite {
    #[serde(deserialize_with = "or_default")]
    pub meta: Meta,
    pub config: SavedConfig,
    pub suite: Text,
    pub passes: Lenient,
    pub pass_time_s: Lenient,
    pub tests: Vec<SavedTest>,
    pub notes: Vec<Text>,
}

/// The kind of diskscope result an object with these keys is, by the keys `--json` writes.
fn kind_of(k: &Keys) -> Option<&'static str> {
    if k.disks && k.targets {
        Some("several targets")
    } else if k.fleet && k.hosts {
        Some("fleet")
    } else if k.suite && k.tests {
        Some("suite")
    } else if k.steps && (k.config || k.dimension) {
        Some("sweep")
    } else if k.config && k.total {
        Some("run")
    } else {
        None
    }
}

/// Where a scanned file's result is: fio's output, or diskscope's result of a kind
/// ("fleet", "suite", "sweep", "run") at a span of the text.
pub enum Located<'s> {
    Fio,
    Diskscope(&'static str, &'s Range<usize>),
}

/// Finds the result in a scanned file; else why there is none, in words.
pub fn locate(found: &Scan) -> Result<Located<'_>, &'static str> {
    if found
        .objects
        .iter()
        .any(|o| o.keys.is_some_and(|k| k.is_fio()))
    {
        return Ok(Located::Fio);
    }
    let known = found
        .objects
        .iter()
        .find_map(|o| Some((&o.span, kind_of(&o.keys?)?)));
    match known {
        Some((span, kind)) => Ok(Located::Diskscope(kind, span)),
        None if found.cut => Err(fio_json::CUT_SHORT),
        None if found.objects.is_empty() => Err(
            "holds no JSON result; give a file saved with --json FILE, or fio's --output-format=json output",
        ),
        None => {
            Err("not a diskscope or fio result (no total, steps, hosts, targets or fio jobs in it)")
        }
    }
}

/// Reads the result file `path` for `flag` ("--show", "--baseline"); an error is one line
/// naming the flag and the file.
pub fn read(flag: &str, path: &Path) -> Result<Saved, String> {
    let shown = visible(&path.display().to_string()).into_owned();
    let text = result_file::read_bounded(flag, path)?;
    let found = scan::scan(&text);
    let (kind, span) = match locate(&found).map_err(|why| format!("{flag} {shown}: {why}"))? {
        Located::Fio => {
            return fio_json::parse_scanned(&text, &found)
                .map(Saved::Fio)
                .map_err(|e| format!("{flag} {shown}: {e}"));
        }
        Located::Diskscope(kind, span) => (kind, span),
    };
    let unreadable =
        |e: String| format!("{flag} {shown}: a {kind} result diskscope cannot read ({e})");
    let saved = match kind {
        "several targets" => Saved::Disks(Box::new(scan::parse(&text, span).map_err(unreadable)?)),
        "fleet" => Saved::Fleet(Box::new(scan::parse(&text, span).map_err(unreadable)?)),
        "suite" => Saved::Suite(scan::parse(&text, span).map_err(unreadable)?),
        "sweep" => Saved::Sweep(scan::parse(&text, span).map_err(unreadable)?),
        _ => Saved::Run(scan::parse(&text, span).map_err(unreadable)?),
    };
    Ok(saved)
}
