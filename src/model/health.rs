//! A drive's own record of its life and health, as one read found it: where it came from (the
//! NVMe SMART / Health log through the admin ioctl, or smartctl and its version), the figures
//! every drive kind shares (power-on hours, power cycles, bytes written, wear, spare), the error
//! counters by a stable key, and the raw values kept as read. A run keeps the record at its
//! start and end (`HealthAround`, `health` in the JSON); `--list --json` keeps one per disk
//! (`DeviceHealth`). Where no record can be read, a `HealthGap` says why in one line.
//!
//! Plain data: `health` reads it, `findings::health` judges it, `render` shows it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Where a record was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthSource {
    /// The NVMe SMART / Health Information log (02h), read by diskscope itself.
    NvmeLog,
    /// smartmontools' `smartctl --json`.
    Smartctl,
}

/// One error counter the findings watch, under a stable key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    /// Stable key: `reallocated_sectors`, `pending_sectors`, `offline_uncorrectable`,
    /// `reported_uncorrect`, `udma_crc_errors`, `grown_defects`, `non_medium_errors`,
    /// `uncorrected_read_errors`, `uncorrected_write_errors`, `media_errors`,
    /// `error_log_entries`, `unsafe_shutdowns`.
    pub key: String,
    /// The drive's own name for it: `Reallocated_Sector_Ct` (ATA id 5), `media errors`.
    pub name: String,
    /// The ATA attribute id, for an ATA counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u8>,
    pub value: u64,
}

/// The stable counter keys.
pub mod counter {
    pub const REALLOCATED: &str = "reallocated_sectors";
    pub const PENDING: &str = "pending_sectors";
    pub const OFFLINE_UNCORRECTABLE: &str = "offline_uncorrectable";
    pub const REPORTED_UNCORRECT: &str = "reported_uncorrect";
    pub const UDMA_CRC: &str = "udma_crc_errors";
    pub const GROWN_DEFECTS: &str = "grown_defects";
    pub const NON_MEDIUM: &str = "non_medium_errors";
    pub const UNCORRECTED_READ: &str = "uncorrected_read_errors";
    pub const UNCORRECTED_WRITE: &str = "uncorrected_write_errors";
    pub const MEDIA_ERRORS: &str = "media_errors";
    pub const ERROR_LOG_ENTRIES: &str = "error_log_entries";
    pub const UNSAFE_SHUTDOWNS: &str = "unsafe_shutdowns";
}

/// NVMe Critical Warning (byte 0 of the SMART / Health log) bits, as the NVM Express Base
/// Specification names them.
pub mod critical_warning {
    /// Available spare capacity has fallen below the threshold.
    pub const SPARE_BELOW_THRESHOLD: u8 = 0x01;
    /// A temperature is above an over-temperature or below an under-temperature threshold.
    pub const TEMPERATURE: u8 = 0x02;
    /// The NVM subsystem's reliability has been degraded (media errors, an internal error).
    pub const RELIABILITY_DEGRADED: u8 = 0x04;
    /// The media has been placed in read-only mode.
    pub const READ_ONLY: u8 = 0x08;
    /// The volatile memory backup device has failed.
    pub const VOLATILE_BACKUP_FAILED: u8 = 0x10;
    /// The Persistent Memory Region has become read-only (revision 1.4 on).
    pub const PMR_READ_ONLY: u8 = 0x20;
}

/// A drive's record as one read found it. Every figure is `None` where the drive or the
/// source does not say.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HealthRecord {
    pub source: Option<HealthSource>,
    /// smartctl's version ("7.4"); `None` for the NVMe log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_version: Option<String>,
    /// The device read: `/dev/sda`, `/dev/nvme0`.
    pub device: String,
    /// "ATA", "SCSI" or "NVMe".
    pub protocol: Option<String>,
    pub model: Option<String>,
    pub serial: Option<String>,
    /// The drive's overall self-assessment (SMART "PASSED"); `None` where not given.
    pub passed: Option<bool>,
    pub power_on_hours: Option<u64>,
    /// Seagate's FARM log's own power-on hours (smartctl 7.4 and later).
    pub farm_power_on_hours: Option<u64>,
    pub power_cycles: Option<u64>,
    pub written_bytes: Option<u64>,
    pub read_bytes: Option<u64>,
    pub temperature_c: Option<f64>,
    /// The share of rated endurance used, % (NVMe Percentage Used; an ATA SSD's wear
    /// attribute as 100 − its normalized value). May exceed 100.
    pub percentage_used: Option<u32>,
    pub available_spare_pct: Option<u32>,
    pub available_spare_threshold_pct: Option<u32>,
    /// NVMe Critical Warning bits (byte 0 of the log).
    pub critical_warning: Option<u8>,
    pub counters: Vec<Counter>,
    /// Every value as read, by the source's own name (ATA: `"5 Reallocated_Sector_Ct"` → its
    /// raw string; NVMe: each field of the log), for whoever wants more than the figures.
    pub raw: BTreeMap<String, String>,
}

impl HealthRecord {
    /// The counter under `key`, if the drive reports it.
    pub fn counter(&self, key: &str) -> Option<u64> {
        self.counters.iter().find(|c| c.key == key).map(|c| c.value)
    }

    /// Adds (or replaces) a counter.
    pub fn set_counter(&mut self, key: &str, name: &str, id: Option<u8>, value: u64) {
        self.counters.retain(|c| c.key != key);
        self.counters.push(Counter {
            key: key.into(),
            name: name.into(),
            id,
            value,
        });
    }

    /// "smartctl 7.4" or "NVMe log": the source in words.
    pub fn source_text(&self) -> String {
        match (self.source, &self.source_version) {
            (Some(HealthSource::NvmeLog), _) => "NVMe log".into(),
            (Some(HealthSource::Smartctl), Some(v)) => format!("smartctl {v}"),
            (Some(HealthSource::Smartctl), None) => "smartctl".into(),
            (None, _) => "unknown source".into(),
        }
    }
}

/// Why a drive has no record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapKind {
    /// The device keeps none: a loop device, a file's tmpfs, a virtio disk, an md array.
    NoSmart,
    /// The drive is spun down, and was not woken to be read.
    Standby,
    /// smartctl is not installed.
    NoSmartctl,
    /// smartctl failed, timed out or printed what is not its JSON; the ioctl was refused.
    Failed,
}

/// No record, and why, in one line: "no SMART data (loop device)".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HealthGap {
    pub kind: GapKind,
    pub text: String,
}

impl HealthGap {
    pub fn new(kind: GapKind, text: impl Into<String>) -> HealthGap {
        HealthGap {
            kind,
            text: text.into(),
        }
    }
}

/// One read: a record, or why there is none.
pub type HealthRead = Result<HealthRecord, HealthGap>;

/// A run's record at its start and its end (`health` in the JSON), with the times of the
/// reads in between that found a counter moved (those are findings).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HealthAround {
    pub start: Option<HealthRecord>,
    pub end: Option<HealthRecord>,
    /// Why there is no record (or no end record): the one line shown instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Reads of the record during the run, the start and the end included.
    pub reads: usize,
}

/// The four words of the HEALTH column and `--list --json`'s `health.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Ok,
    Worn,
    Failing,
    Unknown,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Worn => "worn",
            Verdict::Failing => "failing",
            Verdict::Unknown => "unknown",
        }
    }
}

/// A disk's health as `--list` shows it: the verdict, the record (or the gap) and the
/// findings' sentences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceHealth {
    pub status: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_on_hours: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<HealthRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<HealthGap>,
    #[serde(default)]
    pub findings: Vec<super::finding::Finding>,
}

impl DeviceHealth {
    /// The HEALTH cell of `--list` and the picker: "ok 23456h", "failing 812h", "worn",
    /// "asleep" (spun down, not woken), "-" (no SMART: a loop device), "unknown".
    pub fn cell(&self) -> String {
        match (&self.gap, self.power_on_hours) {
            (Some(g), _) => match g.kind {
                GapKind::NoSmart => "-".into(),
                GapKind::Standby => "asleep".into(),
                GapKind::NoSmartctl | GapKind::Failed => Verdict::Unknown.word().into(),
            },
            (None, Some(hours)) => format!("{} {hours}h", self.status.word()),
            (None, None) => self.status.word().into(),
        }
    }

    /// The cell without the hours, where the table has no room for them: "worn".
    pub fn short_cell(&self) -> String {
        match self.gap {
            Some(_) => self.cell(),
            None => self.status.word().into(),
        }
    }

    /// The one line said instead of a record that could not be read (smartctl absent or
    /// failing), for a footnote; `None` for a record, a device without SMART or a sleeping
    /// drive (its cell says that).
    pub fn problem(&self) -> Option<&str> {
        self.gap
            .as_ref()
            .filter(|g| matches!(g.kind, GapKind::NoSmartctl | GapKind::Failed))
            .map(|g| g.text.as_str())
    }
}
