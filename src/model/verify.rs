//! What reading back stamped blocks found (`verify` in the JSON): how many units came back
//! intact and how many in each bad state, every bad stretch by offset (merged, and bounded:
//! the first `MAX_EXTENTS`, with a count of what was left out), what the stamps say the disk
//! really holds when it is smaller than it claims, and the run's own facts (seed, pass, unit,
//! the state file, time and CPU). Plain data: `verify` fills it, `findings::verify` judges it,
//! `render::verify` prints it.

use serde::{Deserialize, Serialize};

use super::finding::Finding;
use super::surface::{RegionMap, VerifyState};

/// Bad stretches kept by offset; the rest are counted in `VerifyReport::extents_left_out`.
pub const MAX_EXTENTS: usize = 256;

/// What a bad stretch holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BadKind {
    /// All zeroes: never written, or trimmed.
    Zeroes,
    /// Data that is no stamp of this run.
    OtherData,
    /// The checksum fails.
    Corrupt,
    /// This offset's stamp from an older pass, sequence or run: a lost write.
    Stale,
    /// Another offset's stamp.
    Aliased,
    /// The read failed.
    ReadError,
    /// The write failed.
    WriteError,
}

impl BadKind {
    /// The words for it.
    pub fn label(self) -> &'static str {
        match self {
            BadKind::Zeroes => "zeroes (never written)",
            BadKind::OtherData => "not this run's data",
            BadKind::Corrupt => "corrupt (checksum fails)",
            BadKind::Stale => "stale (a lost write)",
            BadKind::Aliased => "another offset's stamp",
            BadKind::ReadError => "read error",
            BadKind::WriteError => "write error",
        }
    }

    /// The map's state for it (`None`: an I/O error, drawn as a read error).
    pub fn state(self) -> Option<VerifyState> {
        match self {
            BadKind::Zeroes | BadKind::OtherData => Some(VerifyState::Zeroes),
            BadKind::Corrupt => Some(VerifyState::Corrupt),
            BadKind::Stale => Some(VerifyState::Stale),
            BadKind::Aliased => Some(VerifyState::Aliased),
            BadKind::ReadError | BadKind::WriteError => None,
        }
    }
}

/// Units in each state (an I/O error counts its block's units).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyCounts {
    pub intact: u64,
    pub zeroes: u64,
    pub other_data: u64,
    pub corrupt: u64,
    pub stale: u64,
    pub aliased: u64,
    pub read_errors: u64,
    pub write_errors: u64,
}

impl VerifyCounts {
    /// Units that are not intact.
    pub fn bad(&self) -> u64 {
        self.zeroes
            + self.other_data
            + self.corrupt
            + self.stale
            + self.aliased
            + self.read_errors
            + self.write_errors
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, o: &VerifyCounts) {
        self.intact += o.intact;
        self.zeroes += o.zeroes;
        self.other_data += o.other_data;
        self.corrupt += o.corrupt;
        self.stale += o.stale;
        self.aliased += o.aliased;
        self.read_errors += o.read_errors;
        self.write_errors += o.write_errors;
    }

    /// Counts `n` units of `kind`.
    pub fn count(&mut self, kind: BadKind, n: u64) {
        let c = match kind {
            BadKind::Zeroes => &mut self.zeroes,
            BadKind::OtherData => &mut self.other_data,
            BadKind::Corrupt => &mut self.corrupt,
            BadKind::Stale => &mut self.stale,
            BadKind::Aliased => &mut self.aliased,
            BadKind::ReadError => &mut self.read_errors,
            BadKind::WriteError => &mut self.write_errors,
        };
        *c += n;
    }
}

/// A stretch of bad units of one kind, by offset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BadExtent {
    pub offset: u64,
    pub bytes: u64,
    pub kind: BadKind,
    /// For `aliased`: the offset whose stamp the first unit holds (the rest follow it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_offset: Option<u64>,
    /// For `stale`: the pass the stamp was written in; for I/O errors, the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What the stamps say the disk really holds, when less than it claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capacity {
    /// The most the disk can hold, found from the stamps.
    pub real_bytes: u64,
    /// An offset whose data came back elsewhere (or was lost) ...
    pub written_at: u64,
    /// ... and where it came back (for `aliased`); `None` when it never came back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<u64>,
    /// The probe's step: the real size lies within one step above `real_bytes` when it was
    /// not found exactly (only the probe has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_bytes: Option<u64>,
}

/// What writing and reading back stamped blocks found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    /// "burn-in", "burn-in=write", "burn-in=verify", "capacity-probe" or "verify".
    pub mode: String,
    pub target: String,
    /// What the disk (or file) says it holds.
    pub claimed_bytes: u64,
    /// The bytes stamped and checked, from offset 0.
    pub span_bytes: u64,
    /// Bytes per I/O.
    pub block_bytes: u64,
    /// Bytes per stamp.
    pub unit_bytes: u64,
    pub seed: u64,
    /// The pass last written (and checked), from 1.
    pub pass: u32,
    /// Passes asked for.
    pub passes: u32,
    pub written_bytes: u64,
    pub verified_bytes: u64,
    pub counts: VerifyCounts,
    /// Bad stretches by offset, the first `MAX_EXTENTS`.
    pub bad: Vec<BadExtent>,
    /// Bad stretches beyond those listed.
    pub extents_left_out: u64,
    /// Set when the stamps show the disk holds less than it claims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
    pub write_s: f64,
    pub verify_s: f64,
    /// CPU seconds the process used while it verified.
    pub verify_cpu_s: f64,
    /// The state file written (write) or read (verify).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_file: Option<String>,
    /// Whether everything asked for was done (not stopped early).
    pub complete: bool,
    /// A write stopped early: the byte ranges [start, end) it wrote (one per thread's stripe);
    /// a verify of that write checks only these. Empty: the whole span.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub written_ranges: Vec<[u64; 2]>,
    /// A verify without its state file: how the run checked was chosen from the stamps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_from: Option<String>,
    /// What the map of the span shows: verified, bad, not yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<RegionMap>,
    pub findings: Vec<Finding>,
}

impl VerifyReport {
    /// Whether anything came back other than intact.
    pub fn any_bad(&self) -> bool {
        self.counts.bad() > 0
    }

    /// Verified bytes per second of verify time.
    pub fn verify_bytes_per_s(&self) -> f64 {
        if self.verify_s > 0.0 {
            self.verified_bytes as f64 / self.verify_s
        } else {
            0.0
        }
    }

    /// Written bytes per second of write time.
    pub fn write_bytes_per_s(&self) -> f64 {
        if self.write_s > 0.0 {
            self.written_bytes as f64 / self.write_s
        } else {
            0.0
        }
    }
}
