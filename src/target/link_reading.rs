//! What a bus reader of [`super::link_bus`] found, and how it becomes a [`LinkInfo`]: the
//! ceilings at the trained and at the best speed and width ([`super::ceiling`]), the speeds in
//! words with their units, the notes joined. Also the short number forms the labels use.

use std::path::Path;

use super::ceiling::{self, Bus, Line};
use super::link::{LinkInfo, LinkKind};
use super::sysfs::relative;

/// `8000` → `"8.0 GT/s"`.
pub fn gts(mt: u64) -> String {
    format!("{:.1} GT/s", mt as f64 / 1000.0)
}

/// `3000` → `"3.0 Gb/s"`.
pub fn gbs(mb: u64) -> String {
    format!("{:.1} Gb/s", mb as f64 / 1000.0)
}

/// `3000` → `"3"`, `1500` → `"1.5"`, `22500` → `"22.5"`: the short form of a label.
pub fn short_gb(mb: u64) -> String {
    if mb.is_multiple_of(1000) {
        (mb / 1000).to_string()
    } else {
        format!("{:.1}", mb as f64 / 1000.0)
    }
}

/// What one bus reader found, before the ceilings are worked out.
pub struct Reading<'a> {
    pub kind: LinkKind,
    pub bus: Bus,
    pub label: String,
    pub speed: Option<u64>,
    pub width: Option<u32>,
    pub max: Option<u64>,
    pub max_width: Option<u32>,
    pub max_of: &'static str,
    pub unit: fn(u64) -> String,
    pub notes: Vec<String>,
    pub dir: &'a Path,
}

impl Reading<'_> {
    /// The link with its ceilings at the trained and at the best speed and width.
    pub fn finish(self, sys: &Path) -> LinkInfo {
        let line = |rate: Option<u64>, lanes: Option<u32>| {
            ceiling::ceiling(&Line {
                bus: self.bus,
                rate_mt_per_s: rate?,
                lanes: lanes?,
            })
        };
        let now = line(self.speed, self.width);
        let best = line(self.max, self.max_width);
        let mut link = LinkInfo::bare(self.kind, &self.label, None);
        link.speed = self.speed.map(self.unit);
        link.width = self.width;
        link.max_speed = self.max.map(self.unit);
        link.max_width = self.max_width;
        link.max_of = self.max.map(|_| self.max_of.to_string());
        link.encoding = now.as_ref().map(|c| c.encoding.to_string());
        link.ceiling_bytes_per_s = now.map(|c| c.bytes_per_s);
        link.max_ceiling_bytes_per_s = best.map(|c| c.bytes_per_s);
        link.sysfs_path = Some(relative(sys, self.dir));
        link.note = (!self.notes.is_empty()).then(|| self.notes.join("; "));
        link
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_forms() {
        assert_eq!(short_gb(3_000), "3");
        assert_eq!(short_gb(1_500), "1.5");
        assert_eq!(short_gb(22_500), "22.5");
        assert_eq!(gts(2_500), "2.5 GT/s");
        assert_eq!(gts(16_000), "16.0 GT/s");
        assert_eq!(gbs(6_000), "6.0 Gb/s");
    }
}
