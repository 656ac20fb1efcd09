//! A finding: one reason the figures look the way they do, in words, with where in the run it
//! applies — the plain data the detectors in `findings` return and every output shows (the
//! TUI's message line, the text summary, the card, `findings` in the JSON). The stable kind
//! names are here so consumers can match on them.

use serde::{Deserialize, Serialize};

/// One reason the figures look the way they do, in words, with where in the run it applies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable machine name, e.g. "link_below_max", "link_bound", "thermal_throttling",
    /// "slowdown", "write_cache_cliff", "recovered", "queue_split", "kernel_queue",
    /// "volatile_write_cache", "rotational_flag".
    pub kind: String,
    /// The sentence shown to people (TUI message line, summary, card, JSON).
    pub text: String,
    /// Seconds into the run where it applies, for findings in time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_s: Option<f64>,
    /// Bytes written by then, for findings about writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_bytes: Option<u64>,
}

impl Finding {
    /// A finding that applies to the whole run.
    pub fn new(kind: &str, text: String) -> Finding {
        Finding {
            kind: kind.into(),
            text,
            at_s: None,
            written_bytes: None,
        }
    }

    /// The same finding, placed at `at_s` seconds into the run.
    pub fn at(mut self, at_s: f64) -> Finding {
        self.at_s = Some(at_s);
        self
    }

    /// The same finding, with the bytes written by then.
    pub fn written(mut self, written_bytes: u64) -> Finding {
        self.written_bytes = Some(written_bytes);
        self
    }
}

/// The stable `Finding::kind` names, for consumers that match on them.
pub mod kind {
    /// The link trained below what both ends can do.
    pub const LINK_BELOW_MAX: &str = "link_below_max";
    /// A USB 2.0 (or 1.1) link, slow whatever the drive.
    pub const LINK_USB2: &str = "link_usb2";
    /// Measured bandwidth at the link's ceiling.
    pub const LINK_BOUND: &str = "link_bound";
    /// Measured bandwidth above what the link can carry: some of it never crossed it.
    pub const ABOVE_LINK: &str = "above_link";
    /// Throughput fell as the drive reached its warning temperature, or its log says so.
    pub const THERMAL_THROTTLING: &str = "thermal_throttling";
    /// A sustained drop in IOPS or bandwidth at unchanged settings.
    pub const SLOWDOWN: &str = "slowdown";
    /// A sustained drop in write bandwidth: the drive's fast write cache filled.
    pub const WRITE_CACHE_CLIFF: &str = "write_cache_cliff";
    /// The figures came back after a slowdown.
    pub const RECOVERED: &str = "recovered";
    /// Blocks larger than the largest request the kernel sends.
    pub const QUEUE_SPLIT: &str = "queue_split";
    /// More I/Os in flight than the device queue holds.
    pub const KERNEL_QUEUE: &str = "kernel_queue";
    /// Writes acknowledged from (or syncs flushing) the drive's volatile cache.
    pub const VOLATILE_WRITE_CACHE: &str = "volatile_write_cache";
    /// Surface scan: a stretch of the disk much slower than its neighbours.
    pub const SURFACE_SLOW_REGION: &str = "surface_slow_region";
    /// Surface scan: reads of 200 ms or more (Victoria's orange and red bands).
    pub const SURFACE_SLOW_READS: &str = "surface_slow_reads";
    /// Surface scan: reads that failed, by offset.
    pub const SURFACE_READ_ERRORS: &str = "surface_read_errors";
    /// Surface scan: a rotational disk whose rate does not fall from outer to inner tracks.
    pub const SURFACE_FLAT_CURVE: &str = "surface_flat_curve";
    /// Surface scan: flash whose rate falls across the span.
    pub const SURFACE_FALLING_FLASH: &str = "surface_falling_flash";
    /// A device flagged rotational whose timing no spinning disk can show.
    pub const ROTATIONAL_FLAG: &str = "rotational_flag";
    /// The drive's record shows real use: hours, power cycles, bytes written.
    pub const HEALTH_NOT_NEW: &str = "health_not_new";
    /// SMART's power-on hours fall short of the FARM log's: they were reset.
    pub const HEALTH_HOURS_RESET: &str = "health_hours_reset";
    /// The drive reports what reads as failing: bad sectors, media errors, a failed verdict.
    pub const HEALTH_FAILING: &str = "health_failing";
    /// The drive reports wear: remapped sectors, endurance near or past its rating.
    pub const HEALTH_WORN: &str = "health_worn";
    /// Interface CRC errors: the cable or backplane, not the drive.
    pub const HEALTH_CABLE: &str = "health_cable";
    /// An NVMe critical warning bit is set.
    pub const HEALTH_WARNING: &str = "health_warning";
    /// A counter of the drive's record moved during the run.
    pub const HEALTH_CHANGED: &str = "health_changed";
    /// The drive answered, but with nothing that says whether it is sound.
    pub const HEALTH_UNKNOWN: &str = "health_unknown";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_serializes_plainly_and_round_trips() {
        let whole = Finding::new(kind::LINK_BOUND, "the link is the limit".into());
        let json = serde_json::to_string(&whole).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"link_bound","text":"the link is the limit"}"#
        );
        assert_eq!(serde_json::from_str::<Finding>(&json).unwrap(), whole);

        let placed = Finding::new(kind::WRITE_CACHE_CLIFF, "fell".into())
            .at(72.5)
            .written(41 << 30);
        let json = serde_json::to_string(&placed).unwrap();
        assert!(json.contains(r#""at_s":72.5"#) && json.contains(r#""written_bytes":44023414784"#));
        assert_eq!(serde_json::from_str::<Finding>(&json).unwrap(), placed);
    }
}
