//! What a result says it measured: the target (`TargetFacts`), the settings it started with,
//! the engine, the durability asked, the warnings and the disk under the target (`disk`) —
//! one record, `ConfigReport`, written as the `config` object of every `--json` result. The target's facts and the settings are
//! serde-flattened into it, so the JSON lists their fields side by side (`target`,
//! `target_kind`, … `threads`, `iodepth`, …) as it always has. A saved one reads back, the
//! fields later versions added taking their defaults.

use serde::{Deserialize, Deserializer, Serialize};

use super::disk::DiskReport;
use crate::settings::{IoEngine, Settings};

/// What was tested and how.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConfigReport {
    /// The target as measured after opening it (or, for `--fio`, as fio will lay it out).
    #[serde(flatten)]
    pub target: TargetFacts,
    /// Settings at the start of the run.
    #[serde(flatten)]
    pub settings: Settings,
    /// The requested run length, if any.
    #[serde(default)]
    pub duration_s: Option<f64>,
    /// "io_uring" or "psync" (fio's names).
    #[serde(default)]
    pub ioengine: IoEngine,
    /// Why the run is on psync although io_uring was not refused by the user: said once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ioengine_fallback: Option<String>,
    /// Why this run may not poll for completions (`target::poll`), `None` when it may: the
    /// TUI's polling key says it instead of switching. Not saved (a saved run's polling is
    /// its settings' `hipri`).
    #[serde(skip)]
    pub poll_refusal: Option<String>,
    /// Why this run may not trim (`target::trim`), `None` when it may: the TUI's trim slider
    /// says it instead of moving. Not saved (a saved run's trims are its settings').
    #[serde(skip)]
    pub trim_refusal: Option<String>,
    /// What a latency spans (`LATENCY_BASIS`).
    #[serde(default = "basis", deserialize_with = "saved_basis")]
    pub latency_basis: StaticText,
    /// `--fsync` and `--end-fsync`.
    #[serde(flatten)]
    pub durability: Durability,
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The disk under the target: `block_device`, `link`, `queue_limits`, `temperature`.
    #[serde(flatten)]
    pub disk: DiskReport,
}

/// What kind of target a run measured; JSON says "block_device", "regular_file" or
/// "scratch_file".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    ScratchFile,
    BlockDevice,
    RegularFile,
}

/// The target's side of a `ConfigReport`: measured after opening it, or (for `--fio`) what
/// fio will lay out. In JSON `path` is `target` and `kind` is `target_kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetFacts {
    #[serde(rename = "target")]
    pub path: String,
    #[serde(rename = "target_kind")]
    pub kind: TargetKind,
    pub size_bytes: u64,
    /// Size of the block device the target is or lives on, when known.
    #[serde(default)]
    pub device_bytes: Option<u64>,
    pub span_bytes: u64,
    pub logical_block_size: u32,
    pub direct: bool,
    #[serde(default)]
    pub write_allowed: bool,
}

/// What every latency figure measures: fio's total latency `lat`, not its `clat`.
pub const LATENCY_BASIS: &str = "submission to completion reaped (fio's lat)";
/// What `latency_ns` measures with a rate: from the I/O's slot on its thread's timetable, so a
/// stall's backlog counts (coordinated omission corrected); `service_latency_ns` is then
/// `LATENCY_BASIS`.
pub const LATENCY_BASIS_PACED: &str = "due time on the rate's timetable to completion reaped (coordinated omission corrected); service_latency_ns: submission to completion reaped (fio's lat)";

/// A `&'static str` field that reads back through its own `deserialize_with`. Spelled as an
/// alias because serde's derive borrows every field written `&str` from the input, which
/// would tie the whole report to the text it was read from.
pub type StaticText = &'static str;

/// The basis of a saved result without one: it predates the rate, so submission to completion.
fn basis() -> &'static str {
    LATENCY_BASIS
}

/// A saved basis: one of the two this version writes, or another version's words, kept for
/// the life of the process (a result is read once, by `--show` or `--baseline`).
fn saved_basis<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let text = String::deserialize(d)?;
    Ok([LATENCY_BASIS, LATENCY_BASIS_PACED]
        .into_iter()
        .find(|b| *b == text)
        .unwrap_or_else(|| Box::leak(text.into_boxed_str())))
}

/// What a latency spans at this rate (0: unlimited).
pub fn latency_basis(rate_iops: u64) -> &'static str {
    if rate_iops > 0 {
        LATENCY_BASIS_PACED
    } else {
        LATENCY_BASIS
    }
}

/// How writes are made durable, like fio's `fsync=N` and `end_fsync=1`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Durability {
    /// fdatasync after every this many writes of each thread; 0: never.
    pub fsync_every: u32,
    /// One fdatasync of the target after the run, timed and reported.
    pub end_fsync: bool,
}

impl ConfigReport {
    /// A target run with `s` for `duration` (`None`: until quit), no durability asked and no
    /// warnings yet.
    pub fn new(target: TargetFacts, s: Settings, duration: Option<std::time::Duration>) -> Self {
        ConfigReport {
            target,
            settings: s,
            duration_s: duration.map(|d| d.as_secs_f64()),
            ioengine: IoEngine::Psync,
            ioengine_fallback: None,
            poll_refusal: None,
            trim_refusal: None,
            latency_basis: latency_basis(s.rate_iops),
            durability: Durability::default(),
            warnings: Vec::new(),
            disk: DiskReport::default(),
        }
    }

    /// Records the engine the run uses; a fallback to psync is also a warning, said once.
    pub fn with_engine(mut self, engine: Option<IoEngine>, fallback: Option<String>) -> Self {
        self.ioengine = engine.unwrap_or_default();
        self.warnings.extend(fallback.iter().cloned());
        self.ioengine_fallback = fallback;
        self
    }

    /// The same description with other settings (the ones in force now, a sweep's base).
    pub fn with_settings(self, s: Settings) -> Self {
        ConfigReport {
            settings: s,
            latency_basis: latency_basis(s.rate_iops),
            ..self
        }
    }

    /// Sets the durability options and says plainly what buffered writes measure.
    pub fn with_durability(mut self, d: Durability) -> Self {
        self.durability = d;
        let writes = self.settings.read_pct < 100;
        if !self.target.direct && writes && d.fsync_every == 0 {
            self.warnings.push(format!(
                "buffered writes go to the page cache: the write figures measure memory, not the disk (nothing here waits for the device); add --fsync N to sync every N writes per thread{}, or drop --buffered",
                if d.end_fsync { "" } else { " and --end-fsync to time the final flush" }
            ));
        }
        if !writes && (d.fsync_every > 0 || d.end_fsync) {
            self.warnings.push(format!(
                "--fsync and --end-fsync do nothing here: --read {} writes nothing",
                self.settings.read_pct
            ));
        }
        self
    }

    /// A 1 GiB block device at default settings, for unit tests.
    #[cfg(test)]
    pub(crate) fn example() -> Self {
        let target = TargetFacts {
            path: "/dev/sdb".into(),
            kind: TargetKind::BlockDevice,
            size_bytes: 1 << 30,
            device_bytes: Some(1 << 30),
            span_bytes: 1 << 30,
            logical_block_size: 512,
            direct: true,
            write_allowed: false,
        };
        ConfigReport::new(target, Settings::default(), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one record writes the keys the separate fields always wrote, in the same order.
    #[test]
    fn the_json_lists_the_target_and_the_settings_side_by_side() {
        let c = ConfigReport::example()
            .with_engine(Some(IoEngine::Psync), Some("no io_uring".into()))
            .with_durability(Durability {
                fsync_every: 4,
                end_fsync: true,
            });
        let text = serde_json::to_string(&c).unwrap();
        let at = |k: &str| text.find(&format!("\"{k}\":")).unwrap_or(usize::MAX);
        let keys = [
            "target",
            "target_kind",
            "size_bytes",
            "device_bytes",
            "span_bytes",
            "logical_block_size",
            "direct",
            "write_allowed",
            "threads",
            "iodepth",
            "bs",
            "read_pct",
            "random_pct",
            "rate_iops",
            "duration_s",
            "ioengine",
            "ioengine_fallback",
            "latency_basis",
            "fsync_every",
            "end_fsync",
            "warnings",
        ];
        for pair in keys.windows(2) {
            assert!(at(pair[0]) < at(pair[1]), "{pair:?} in {text}");
        }
        assert!(text.starts_with(r#"{"target":"/dev/sdb","target_kind":"block_device","#));
        let back: ConfigReport = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }

    /// A config saved before the engine, the rate and durability existed still reads.
    #[test]
    fn an_old_config_reads_with_the_defaults_it_ran_at() {
        let old = r#"{"target":"/dev/sdb","target_kind":"block_device","size_bytes":1024,
            "span_bytes":1024,"logical_block_size":512,"direct":true,"threads":2,"bs":4096,
            "read_pct":100,"random_pct":100}"#;
        let c: ConfigReport = serde_json::from_str(old).unwrap();
        assert_eq!((c.settings.threads, c.settings.iodepth), (2, 1));
        assert_eq!(c.settings.rate_iops, 0);
        assert_eq!(c.ioengine, IoEngine::Psync);
        assert_eq!(c.latency_basis, LATENCY_BASIS);
        assert_eq!(c.durability, Durability::default());
    }
}
