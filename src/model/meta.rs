//! Provenance: what made a result, where and when — `meta` at the top of every JSON
//! diskscope writes (a run, a sweep, a suite's card, a fleet), as fio's JSON carries its
//! version and timestamp. A chart's title reads it, and `--show` and `--baseline` print it
//! and say when two results come from different versions or hosts, since a baseline is read
//! months later on another machine.
//!
//! `Meta::now` is the one place in `model` that reads the system: the clock, the time zone
//! (through `sys::utc_offset_s`) and two files under /proc/sys/kernel, once when a run
//! starts. Everything else here is plain data and formatting.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The layout of diskscope's JSON results: 1 is the first that carries `meta` (files
/// without it are older). Raised when a field changes meaning or goes away, not when one is
/// added.
pub const SCHEMA_VERSION: u32 = 1;

/// What made a result.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    /// "diskscope".
    pub tool: String,
    /// diskscope's version ("0.1.0").
    pub version: String,
    /// `SCHEMA_VERSION` of the file.
    pub schema: u32,
    /// When the run started: RFC 3339 with the local offset ("2026-11-24T06:03:31+01:00").
    pub started: String,
    /// The host's name (the kernel's nodename).
    pub host: String,
    /// The kernel's release ("6.1.0-18-amd64").
    pub kernel: String,
}

impl Meta {
    /// This diskscope on this host, for a run starting now.
    pub fn now() -> Meta {
        Meta::started_at(SystemTime::now())
    }

    /// This diskscope on this host, for a run that started at `t`.
    pub fn started_at(t: SystemTime) -> Meta {
        let secs = t
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let offset = crate::sys::utc_offset_s(secs).unwrap_or(0);
        let proc = |name: &str| {
            std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        Meta {
            tool: "diskscope".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            schema: SCHEMA_VERSION,
            started: rfc3339(secs, offset),
            host: proc("hostname"),
            kernel: proc("osrelease"),
        }
    }

    /// Whether the result said anything (files from before `meta` did not).
    pub fn is_known(&self) -> bool {
        !self.version.is_empty()
    }

    /// "diskscope 0.1.0 on db-7 (Linux 6.1.0), started 2026-11-24T06:03:31+01:00", with
    /// what is known; "an unknown version" when nothing is (callers say why).
    pub fn describe(&self) -> String {
        if !self.is_known() {
            return "an unknown version".into();
        }
        let mut out = format!("{} {}", self.tool, self.version);
        if !self.host.is_empty() {
            out.push_str(&format!(" on {}", self.host));
        }
        if !self.kernel.is_empty() {
            out.push_str(&format!(" (Linux {})", self.kernel));
        }
        if !self.started.is_empty() {
            out.push_str(&format!(", started {}", self.started));
        }
        out
    }

    /// How `then` (a saved result) differs from `self` in what could change its figures:
    /// the version, the host, the kernel. Empty when the same, or when `then` says nothing.
    pub fn differences(&self, then: &Meta) -> Vec<String> {
        if !then.is_known() || !self.is_known() {
            return Vec::new();
        }
        [
            ("versions", &then.version, &self.version),
            ("hosts", &then.host, &self.host),
            ("kernels", &then.kernel, &self.kernel),
        ]
        .into_iter()
        .filter(|(_, a, b)| a != b)
        .map(|(what, a, b)| format!("different {what}: {a} then, {b} now"))
        .collect()
    }
}

/// `secs` since the epoch as RFC 3339 in the zone `offset_s` east of UTC:
/// "2026-11-24T06:03:31+01:00" ("Z" is not used: the offset is always written).
pub fn rfc3339(secs: i64, offset_s: i64) -> String {
    let local = secs + offset_s;
    let (days, rest) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let (y, m, d) = crate::units::civil_from_days(days);
    let sign = if offset_s < 0 { '-' } else { '+' };
    let off = offset_s.unsigned_abs();
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        off / 3600,
        off % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_with_their_offset() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00+00:00");
        // 2023-11-14T22:13:20Z in three zones, one of them a half-hour one west of UTC.
        assert_eq!(rfc3339(1_700_000_000, 3600), "2023-11-14T23:13:20+01:00");
        assert_eq!(
            rfc3339(1_700_000_000, -(3 * 3600 + 1800)),
            "2023-11-14T18:43:20-03:30"
        );
        assert_eq!(
            rfc3339(1_700_000_000, 14 * 3600),
            "2023-11-15T12:13:20+14:00"
        );
    }

    #[test]
    fn this_host_is_described_and_differences_named() {
        let now = Meta::now();
        assert_eq!(now.tool, "diskscope");
        assert_eq!(now.schema, SCHEMA_VERSION);
        assert!(!now.host.is_empty() && !now.kernel.is_empty(), "{now:?}");
        assert!(now.started.len() == 25 && now.started.as_bytes()[10] == b'T');
        assert!(now.differences(&now).is_empty());
        let then = Meta {
            version: "0.0.9".into(),
            host: "db-7".into(),
            ..now.clone()
        };
        let d = now.differences(&then);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].starts_with("different versions: 0.0.9 then,"), "{d:?}");
        assert!(d[1].starts_with("different hosts: db-7 then,"), "{d:?}");
        assert!(now.differences(&Meta::default()).is_empty());
        assert_eq!(Meta::default().describe(), "an unknown version");
        // An old file without meta reads as unknown.
        let old: Meta = serde_json::from_str("{}").unwrap();
        assert!(!old.is_known());
    }
}
