//! A result file read back for `--show` and `--baseline`: which kind of result it holds —
//! fio's own output, or diskscope's run, sweep, suite card, fleet or run on several targets
//! (`--json FILE`) — and its fields, typed. Only what is shown or compared is read: serde
//! skips every other field without building it, so memory stays a small multiple of the
//! file (the whole file is held as text; README, "Reliability") rather than the hundred-odd
//! bytes per byte a generic JSON tree took; a run on several targets is the exception, read
//! as a tree (its targets' intervals included) by `render::disks_saved`. The types are
//! lenient (`fio::raw::Lenient`, `Text`) and every field defaults, so a file from an older
//! version, before a field existed, still reads.

use super::saved_check::disagreement;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;

use super::file as result_file;
use crate::fio::json::{self as fio_json, FioOutput};
use crate::fio::raw::{Lenient, Text};
use crate::fio::scan::{self, Keys, Scan};
use crate::model::Meta;
use crate::model::fleet::FleetReport;
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
    Run(Box<SavedRun>),
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
    pub trim_pct: Lenient,
    pub random_pct: Lenient,
    pub rate_iops: Lenient,
    pub random_distribution: Text,
    pub ioengine: Text,
    pub hipri: Text,
    pub latency_basis: Text,
    pub fsync_every: Lenient,
}

impl SavedConfig {
    /// O_DIRECT unless the file says false (results from before the field ran direct).
    pub fn is_direct(&self) -> bool {
        self.direct.0.as_deref() != Some("false")
    }

    /// Polled (`--hipri`) only when the file says so (it is left out when off).
    pub fn is_hipri(&self) -> bool {
        self.hipri.0.as_deref() == Some("true")
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
    /// Reads and writes apart, in files of runs that did both (from 0.1 on).
    pub read: Option<Box<SavedSide>>,
    pub write: Option<Box<SavedSide>>,
    /// Trims apart, in files of runs that discarded (`--trim`).
    pub trim: Option<Box<SavedSide>>,
}

/// One direction of a saved run's totals (`stats::Side`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct SavedSide {
    pub ops: Lenient,
    pub bytes: Lenient,
    pub iops: Lenient,
    pub bw_bytes_per_s: Lenient,
    pub latency_ns: SavedLatency,
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
    /// The first failed and short I/Os, and the findings, as the run's summary printed them
    /// (`--show` says them too); an older or other shape reads as none.
    #[serde(deserialize_with = "or_default")]
    pub errors: Vec<crate::stats::IoErrorRecord>,
    #[serde(deserialize_with = "or_default")]
    pub findings: Vec<crate::model::finding::Finding>,
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
    /// I/Os that failed, not in the figures (0 in files from before it was saved).
    pub errors: Lenient,
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
pub fn locate(found: &Scan) -> Result<Located<'_>, String> {
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
    let why = match known {
        Some((span, kind)) => return Ok(Located::Diskscope(kind, span)),
        None if found.cut => fio_json::CUT_SHORT.to_string(),
        None => match (&found.unreadable_keys, &found.syntax_error) {
            (Some(e), _) => {
                format!("its keys cannot be read ({e}); fix the file, or save the run again")
            }
            (None, Some(e)) => format!("not valid JSON ({e}); fix the file, or save the run again"),
            (None, None) if found.objects.is_empty() => "holds no JSON result; give a file saved \
                 with --json FILE, or fio's --output-format=json output"
                .into(),
            (None, None) => "not a diskscope or fio result (no total, steps, hosts, targets or \
                 fio jobs in it)"
                .into(),
        },
    };
    Err(why)
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
        _ => {
            let run: SavedRun = scan::parse(&text, span).map_err(unreadable)?;
            if let Some(what) = disagreement(&run) {
                return Err(format!(
                    "{flag} {shown}: its figures disagree ({what}); the file was edited or \
                     damaged: save the run again with --json FILE"
                ));
            }
            Saved::Run(Box::new(run))
        }
    };
    Ok(saved)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run as `--json` writes it: every rate its count over the span.
    fn run_json(total: &str, thread: &str) -> String {
        format!(
            r#"{{"config":{{"target":"t.img","threads":1}},"total":{{{total}}},"threads":[{{"id":0,{thread}}}]}}"#
        )
    }

    const TOTAL: &str = r#""elapsed_s":1.0138851,"ops":427079,"bytes":1749315584,"iops":421231.8137956129,"bw_bytes_per_s":1725365509.3068304"#;
    const THREAD: &str = r#""elapsed_s":1.0138851,"ops":427079,"iops":421231.8137956129"#;

    fn read_text(text: &str) -> Result<Saved, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, text).unwrap();
        read("--show", &path)
    }

    #[test]
    fn a_run_whose_rates_are_its_counts_over_its_span_reads() {
        let exact = format!(
            r#""elapsed_s":1.0138851,"ops":427079,"bytes":1749315584,"iops":{},"bw_bytes_per_s":{}"#,
            427079.0 / 1.0138851,
            1749315584.0 / 1.0138851
        );
        let thread = format!(
            r#""elapsed_s":1.0138851,"ops":427079,"iops":{}"#,
            427079.0 / 1.0138851
        );
        assert!(matches!(
            read_text(&run_json(&exact, &thread)),
            Ok(Saved::Run(_))
        ));
        // Older files without the counts or the span are not judged.
        assert!(matches!(
            read_text(&run_json(r#""iops":1000.0"#, r#""iops":5"#)),
            Ok(Saved::Run(_))
        ));
        // Nothing measured: no span, no rate.
        assert!(matches!(
            read_text(&run_json(
                r#""elapsed_s":0,"ops":0,"iops":0,"bytes":0,"bw_bytes_per_s":0"#,
                r#""ops":0"#
            )),
            Ok(Saved::Run(_))
        ));
    }

    #[test]
    fn a_run_whose_figures_disagree_is_refused_naming_them() {
        let exact = |s: &str| {
            s.replace("421231.8137956129", &(427079.0 / 1.0138851).to_string())
                .replace(
                    "1725365509.3068304",
                    &(1749315584.0 / 1.0138851).to_string(),
                )
        };
        let (total, thread) = (exact(TOTAL), exact(THREAD));
        for (t, th, needle) in [
            // A count too large for one, or negative: it read as 0 ops beside 421232 IOPS.
            (
                total.replace("427079", "1e30"),
                thread.clone(),
                "total.ops is 1e30",
            ),
            (
                total.replace(":427079", ":-5"),
                thread.clone(),
                "total.ops is -5",
            ),
            // A rate that is not its count over the span.
            (
                total.replace("\"iops\":4", "\"iops\":9"),
                thread.clone(),
                "total.iops",
            ),
            (
                total.replace("1.0138851", "0"),
                thread.clone(),
                "total.iops",
            ),
            (
                total.replace("\"bw_bytes_per_s\":1", "\"bw_bytes_per_s\":9"),
                thread.clone(),
                "total.bw_bytes_per_s",
            ),
            (
                total.replace("\"iops\":4", "\"iops\":\"NaN\",\"x\":4"),
                thread.clone(),
                "total.iops is NaN",
            ),
            (
                total.clone(),
                thread.replace(":427079", ":1"),
                "threads[0].iops",
            ),
            (
                total.replace("\"elapsed_s\":1.0138851", "\"elapsed_s\":-1"),
                thread.clone(),
                "total.elapsed_s is -1",
            ),
        ] {
            let err = match read_text(&run_json(&t, &th)) {
                Ok(_) => panic!("read without a word: {t} / {th}"),
                Err(e) => e,
            };
            assert!(err.contains(needle), "{needle} not in: {err}");
            assert!(err.starts_with("--show "), "{err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn a_file_json_cannot_read_says_where_not_that_it_has_no_total() {
        let good = run_json(r#""iops":1000.0"#, r#""iops":5"#);
        // A key given twice: serde cannot say which value is meant.
        let dup = format!("{},\"total\":{{\"ops\":1}}}}", &good[..good.len() - 1]);
        let err = read_text(&dup).expect_err("refused");
        assert!(err.contains("duplicate field `total`"), "{err}");
        // NaN is not JSON: the first place the syntax breaks is named.
        let nan = good.replace("1000.0", "NaN");
        let err = read_text(&nan).expect_err("refused");
        assert!(
            err.contains("not valid JSON") && err.contains("line 1 column"),
            "{err}"
        );
        for err in [read_text(&dup).unwrap_err(), read_text(&nan).unwrap_err()] {
            assert!(!err.contains("no total"), "{err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }
}
