//! The link as the reason: a link that trained below what both ends can do ("PCIe link
//! trained at 8.0 GT/s x2, the drive can do 16.0 GT/s x4: …"), a USB 2 port, and bandwidth at
//! the link's ceiling ("the link, not the disk, is the limit"). The facts come in as plain
//! fields (`LinkInput`, filled from the `model::disk::LinkInfo` that `target` reads from sysfs
//! with `LinkInput::of`, ceilings already computed there from the line encoding); nothing here reads sysfs or computes a
//! ceiling. PCIe, SAS and USB 3 carry both directions at once; SATA and USB 2 one at a time,
//! so there reads and writes share the ceiling.

use serde::{Deserialize, Serialize};

use super::series::{Interval, Point, segments, window_median, window_start};
use super::thresholds::{
    LINK_BELOW_MAX_FRACTION, LINK_BOUND_FRACTION, LINK_EXCEEDED_FRACTION, SLOWDOWN_WINDOW_S,
    USB1_PRACTICAL_BYTES_PER_S, USB2_PRACTICAL_BYTES_PER_S,
};
use super::{Finding, kind, words};
use crate::model::disk::{LinkInfo, LinkKind as Bus};

/// What carries the data to the disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    Pcie,
    Sata,
    Sas,
    Usb,
    /// virtio, loop, zram, nbd, network block devices: no physical link to judge.
    Virtual,
    #[default]
    Unknown,
}

/// Filled from the link facts. Speeds are the sysfs text as read ("8.0 GT/s PCIe" or "8 GT/s"
/// for PCIe, "3.0 Gbps" for SATA, "6.0 Gbit" for SAS, "480" Mbit/s for USB); widths are PCIe
/// lanes; ceilings are usable bytes/s after the line encoding, at the current and at the
/// maximum speed and width. Unknown stays `None` and is never guessed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkInput {
    pub kind: LinkKind,
    pub speed: Option<String>,
    pub max_speed: Option<String>,
    pub width: Option<u32>,
    pub max_width: Option<u32>,
    pub ceiling_bytes_per_s: Option<f64>,
    pub max_ceiling_bytes_per_s: Option<f64>,
}

impl LinkInput {
    /// The input for a link as `target` read it (`model::disk::LinkInfo`): buses with a
    /// physical link keep their kind, virtio, loop, zram, RAM and network devices are
    /// `Virtual`, md, dm and an unread link `Unknown` (their members carry the links).
    pub fn of(link: &LinkInfo) -> LinkInput {
        let kind = match link.kind {
            Bus::Pcie => LinkKind::Pcie,
            Bus::Sata => LinkKind::Sata,
            Bus::Sas => LinkKind::Sas,
            Bus::Usb => LinkKind::Usb,
            Bus::Virtio
            | Bus::Xen
            | Bus::Hyperv
            | Bus::Network
            | Bus::Loop
            | Bus::Zram
            | Bus::Ram
            | Bus::Virtual => LinkKind::Virtual,
            Bus::Md | Bus::Dm | Bus::Unknown => LinkKind::Unknown,
        };
        LinkInput {
            kind,
            speed: link.speed.clone(),
            max_speed: link.max_speed.clone(),
            width: link.width,
            max_width: link.max_width,
            ceiling_bytes_per_s: link.ceiling_bytes_per_s.map(|c| c as f64),
            max_ceiling_bytes_per_s: link.max_ceiling_bytes_per_s.map(|c| c as f64),
        }
    }
}

/// The leading number of a speed text: "8.0 GT/s PCIe" → 8.0, "3.0 Gbps" → 3.0, "480" → 480.
fn speed_value(text: &str) -> Option<f64> {
    let t = text.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    t[..end]
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
}

/// A speed as a finding says it: PCIe "8.0 GT/s", SATA and SAS "3 Gb/s", USB "480 Mbit/s".
fn speed_words(kind: LinkKind, text: &str) -> Option<String> {
    let v = speed_value(text)?;
    let trimmed = |v: f64| {
        let s = format!("{v:.1}");
        s.trim_end_matches(".0").to_string()
    };
    Some(match kind {
        LinkKind::Pcie => format!("{v:.1} GT/s"),
        LinkKind::Sata | LinkKind::Sas => format!("{} Gb/s", trimmed(v)),
        _ if v >= 1000.0 => format!("{} Gb/s", trimmed(v / 1000.0)),
        _ => format!("{} Mbit/s", trimmed(v)),
    })
}

impl LinkInput {
    fn usb_mbit(&self) -> Option<f64> {
        (self.kind == LinkKind::Usb)
            .then(|| self.speed.as_deref().and_then(speed_value))
            .flatten()
    }

    /// SATA and USB 2 (and older) carry one direction at a time.
    fn half_duplex(&self) -> bool {
        self.kind == LinkKind::Sata || self.usb_mbit().is_some_and(|m| m <= 480.0)
    }

    /// The most this link carries for a disk, and how to name it: the usable ceiling, or for
    /// USB 2 and 1.1 the practical bound of the mass-storage protocol (`thresholds`). The one
    /// ceiling every sentence about the link measures against (`link_bound` and the summary's
    /// "N% of it" alike).
    pub fn effective_ceiling(&self) -> Option<(f64, &'static str)> {
        let practical = match self.usb_mbit() {
            Some(m) if m <= 12.0 => Some(USB1_PRACTICAL_BYTES_PER_S),
            Some(m) if m <= 480.0 => Some(USB2_PRACTICAL_BYTES_PER_S),
            _ => None,
        };
        match (
            practical,
            self.ceiling_bytes_per_s
                .filter(|c| c.is_finite() && *c > 0.0),
        ) {
            (Some(p), c) => Some((c.map_or(p, |c| c.min(p)), "practical ")),
            (None, Some(c)) => Some((c, "")),
            (None, None) => None,
        }
    }
}

/// The link trained below its maximum, or a USB 2 (or 1.1) link: one finding, or none.
pub fn link_below_max(link: &LinkInput) -> Option<Finding> {
    if let Some(mbit) = link.usb_mbit().filter(|m| *m <= 480.0) {
        let (name, about) = if mbit <= 12.0 {
            ("USB 1.1", USB1_PRACTICAL_BYTES_PER_S)
        } else {
            ("USB 2.0", USB2_PRACTICAL_BYTES_PER_S)
        };
        let text = format!(
            "{name} link ({mbit} Mbit/s): about {:.0} MB/s whatever the drive; a USB 3 port \
             and cable lift that limit for a drive that supports USB 3",
            about / 1e6
        );
        return Some(Finding::new(kind::LINK_USB2, text));
    }
    let share = link_share(link)?;
    if share >= LINK_BELOW_MAX_FRACTION {
        return None;
    }
    let (now, max) = (at_words(link, false)?, at_words(link, true)?);
    let text = match link.kind {
        LinkKind::Pcie => format!(
            "PCIe link trained at {now}, the drive can do {max}: the slot, riser or BIOS \
             setting leaves it {} of its bandwidth",
            words::fraction(share)
        ),
        LinkKind::Sata => format!(
            "SATA link at {now}, the port and drive can do {max}: a cable or backplane, or a \
             limit the kernel set after link errors, leaves it {} of its bandwidth",
            words::fraction(share)
        ),
        LinkKind::Sas => format!(
            "SAS link at {now}, the phy can do {max}: a cable, expander or the far end \
             leaves it {} of its bandwidth",
            words::fraction(share)
        ),
        LinkKind::Usb => format!(
            "USB link at {now}, the port and drive can do {max}: a cable or hub leaves it {} \
             of its bandwidth",
            words::fraction(share)
        ),
        LinkKind::Virtual | LinkKind::Unknown => return None,
    };
    Some(Finding::new(kind::LINK_BELOW_MAX, text))
}

/// The current ceiling as a share of the maximum: from the ceilings when both are known,
/// else (PCIe) from the widths at equal speed. None when nothing says.
fn link_share(link: &LinkInput) -> Option<f64> {
    match (link.ceiling_bytes_per_s, link.max_ceiling_bytes_per_s) {
        (Some(c), Some(m)) if c.is_finite() && m.is_finite() && c > 0.0 && m > 0.0 => Some(c / m),
        _ => {
            let speeds = (link.speed.as_deref(), link.max_speed.as_deref());
            let same_speed =
                matches!(speeds, (Some(a), Some(b)) if speed_value(a) == speed_value(b));
            match (link.width, link.max_width) {
                (Some(w), Some(m)) if m > 0 && same_speed => Some(f64::from(w) / f64::from(m)),
                _ => None,
            }
        }
    }
}

/// "8.0 GT/s x2" (PCIe), "3 Gb/s" (SATA, SAS), at the current or the maximum; None when the
/// speed is unknown.
fn at_words(link: &LinkInput, max: bool) -> Option<String> {
    let (speed, width) = if max {
        (link.max_speed.as_deref(), link.max_width)
    } else {
        (link.speed.as_deref(), link.width)
    };
    let speed = speed_words(link.kind, speed?)?;
    Some(match (link.kind, width) {
        (LinkKind::Pcie, Some(w)) => format!("{speed} x{w}"),
        _ => speed,
    })
}

/// Bandwidth at the link's ceiling (or above what it can carry), from the measured read and
/// write bytes/s. Full-duplex links are judged on the busier direction, half-duplex links on
/// the sum.
pub fn link_bound(
    link: &LinkInput,
    read_bytes_per_s: f64,
    write_bytes_per_s: f64,
) -> Option<Finding> {
    let (ceiling, practical) = link.effective_ceiling()?;
    let (r, w) = (read_bytes_per_s.max(0.0), write_bytes_per_s.max(0.0));
    let both = r > 0.0 && w > 0.0;
    let (measured, what) = if link.half_duplex() {
        let what = if both {
            format!(
                "{} of reads and writes together (the link carries one direction at a time)",
                words::bytes_per_s(r + w)
            )
        } else {
            words::bytes_per_s(r + w)
        };
        (r + w, what)
    } else if both {
        let dir = if r >= w { "reads" } else { "writes" };
        (
            r.max(w),
            format!("{} of {dir}", words::bytes_per_s(r.max(w))),
        )
    } else {
        (r + w, words::bytes_per_s(r + w))
    };
    let share = measured / ceiling;
    let cap = words::bytes_per_s(ceiling);
    let each_way = if both && !link.half_duplex() {
        " each way"
    } else {
        ""
    };
    if share > LINK_EXCEEDED_FRACTION {
        let text = format!(
            "{what} is more than the link's {practical}{cap}{each_way} can carry: not all of it \
             crossed this link (a cache before it, or more than one disk behind the target)"
        );
        Some(Finding::new(kind::ABOVE_LINK, text))
    } else if share >= LINK_BOUND_FRACTION {
        let text = format!(
            "{what} is {} of the link's {practical}{cap}{each_way}: the link, not the disk, is \
             the limit",
            words::pct(share)
        );
        Some(Finding::new(kind::LINK_BOUND, text))
    } else {
        None
    }
}

/// `link_bound` over a series: judged on the 10-s window (within one settings key) that
/// comes closest to the ceiling, by its median read and write rates — a sustained figure,
/// never one lucky second.
pub fn link_bound_in(link: &LinkInput, series: &[Interval]) -> Option<Finding> {
    let (ceiling, _) = link.effective_ceiling()?;
    let load = |(r, w): (f64, f64)| if link.half_duplex() { r + w } else { r.max(w) };
    let best = segments(series)
        .iter()
        .flat_map(|seg| window_medians(seg))
        .max_by(|a, b| load(*a).total_cmp(&load(*b)))?;
    (load(best) / ceiling >= LINK_BOUND_FRACTION).then(|| link_bound(link, best.0, best.1))?
}

/// The median read and write bytes/s of every full 10-s window of one key's intervals.
fn window_medians(seg: &[Interval]) -> Vec<(f64, f64)> {
    let points = |bytes: fn(&Interval) -> u64| -> Vec<Point> {
        let point = |iv: &Interval| Point {
            start_s: iv.start_s(),
            end_s: iv.t_s,
            rate: bytes(iv) as f64 / iv.elapsed_s,
        };
        seg.iter().map(point).collect()
    };
    let reads = points(|iv| iv.bytes.saturating_sub(iv.write_bytes));
    let writes = points(|iv| iv.write_bytes);
    (0..seg.len())
        .filter_map(|i| {
            let first = window_start(&reads, i, SLOWDOWN_WINDOW_S, reads[0].start_s)?;
            Some((
                window_median(&reads, first, i),
                window_median(&writes, first, i),
            ))
        })
        .collect()
}

#[cfg(test)]
#[path = "link_tests.rs"]
mod tests;
