//! The conditions each finding needs, in one table: a detector is asked only where what it
//! judges can be true. A finding about the disk spoken outside its conditions is wrong in a
//! way that reads as right: page-cache reads "prove" a rotational flag false, a `--rate` cap
//! "saturates" a sweep or fills "the link", a loop device's `write back` becomes a drive's
//! RAM. So every detector declares (`needs`):
//!
//! - **O_DIRECT**: its figures are the disk's, not the page cache's (`--buffered` is not);
//! - **the disk as the limit**: unpaced, or paced by `--rate` but behind the timetable (the
//!   disk could not keep up), never at the cap — the cap is then what the figures show;
//! - **a device**: a drive (a physical disk, or md/dm over them), a hypervisor's or network
//!   disk, or no drive at all (loop, zram, RAM: nothing with a link, a cache or a platter);
//! - **rows**: how many one-second rows (or sweep steps) of one setting it needs;
//! - **targets**: how many targets side by side (the group detectors need two).
//!
//! `Conditions` is what a run (a period, a step, a group) is; `Conditions::allows` is the one
//! gate, and `ask` (which `collect` and every caller use) calls a detector only through it. A file on a filesystem is judged by the device under
//! it (its `Device`), so it needs no entry of its own: the table says so by naming none.

use crate::model::disk::LinkKind;

/// Every detector, by the findings it may say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detector {
    /// `link_below_max`, `link_usb2`: how the link trained.
    LinkBelowMax,
    /// `link_bound`, `above_link`: bandwidth against the link's ceiling.
    LinkBound,
    /// `queue_split`: a block split into several requests.
    QueueSplit,
    /// `kernel_queue`: more in flight than the device queue holds.
    KernelQueue,
    /// `volatile_write_cache`: writes acknowledged from (or syncs flushing) a drive's cache.
    VolatileWriteCache,
    /// `rotational_flag`: a rotational flag the timing contradicts.
    RotationalFlag,
    /// `slowdown`, `write_cache_cliff`, `recovered`.
    Slowdown,
    /// `thermal_throttling`.
    Thermal,
    /// `outlier`: a target well below the group's median.
    Outlier,
    /// `shared_limit`, `independent`, `cpu_limit`, `shared_parent`: alone against together.
    SharedLimit,
    /// A sweep's saturation point.
    Saturation,
    /// `surface_slow_region`, `surface_read_errors`: a surface scan's regions.
    SurfaceRegions,
    /// `surface_flat_curve`, `surface_falling_flash`: a surface scan's curve shape.
    SurfaceCurve,
}

/// Every detector, in the table's order.
pub const DETECTORS: [Detector; 13] = [
    Detector::LinkBelowMax,
    Detector::LinkBound,
    Detector::QueueSplit,
    Detector::KernelQueue,
    Detector::VolatileWriteCache,
    Detector::RotationalFlag,
    Detector::Slowdown,
    Detector::Thermal,
    Detector::Outlier,
    Detector::SharedLimit,
    Detector::Saturation,
    Detector::SurfaceRegions,
    Detector::SurfaceCurve,
];

/// What is behind the target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Device {
    /// A physical disk (SATA, SAS, NVMe, USB), or md/dm over such disks.
    #[default]
    Drive,
    /// A hypervisor's or network disk (virtio, Xen, Hyper-V, nbd, iSCSI): a queue and
    /// timing of its own, but no link or cache diskscope can see.
    Virtual,
    /// No drive at all: a loop device (its "drive" is a file), zram, a RAM disk.
    NoDrive,
}

impl Device {
    /// What a link of this kind has behind it: md and dm stand over drives (and an unread
    /// link is taken for one: its limits, if any were read, are a drive's).
    pub fn of(kind: LinkKind) -> Device {
        match kind {
            LinkKind::Pcie
            | LinkKind::Sata
            | LinkKind::Sas
            | LinkKind::Usb
            | LinkKind::Md
            | LinkKind::Dm
            | LinkKind::Unknown => Device::Drive,
            LinkKind::Virtio | LinkKind::Xen | LinkKind::Hyperv | LinkKind::Network => {
                Device::Virtual
            }
            LinkKind::Loop | LinkKind::Zram | LinkKind::Ram | LinkKind::Virtual => Device::NoDrive,
        }
    }
}

/// Whether the disk set the pace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Pacing {
    /// No `--rate`: as fast as the disk goes.
    #[default]
    Unpaced,
    /// A `--rate` the timetable fell behind: the disk (or the CPU) could not keep up.
    BehindCap,
    /// A `--rate` that was kept: the figures are the cap's.
    AtCap,
}

impl Pacing {
    /// The pacing of a window: `asked_iops` (0: none), the timetable's slots that came due
    /// and the I/Os started. Behind means more came due than started by more than
    /// `thresholds::RATE_SHORTFALL` of what came due and more than one slot per thread (the
    /// rule `render::rate` says "cannot keep up" by).
    pub fn of(asked_iops: u64, due: u64, issued: u64, threads: usize) -> Pacing {
        if asked_iops == 0 {
            return Pacing::Unpaced;
        }
        let backlog = due.saturating_sub(issued) as f64;
        let tolerance = (super::thresholds::RATE_SHORTFALL * due as f64).max(threads as f64);
        if backlog > tolerance {
            Pacing::BehindCap
        } else {
            Pacing::AtCap
        }
    }

    /// The disk set the pace: no cap, or one it could not keep.
    pub fn disk_limited(self) -> bool {
        self != Pacing::AtCap
    }
}

/// What a run, a period, a step or a group is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conditions {
    /// O_DIRECT (not `--buffered`).
    pub direct: bool,
    pub pacing: Pacing,
    pub device: Device,
    /// One-second rows (or steps) of the setting judged.
    pub rows: usize,
    /// Targets side by side.
    pub targets: usize,
}

impl Default for Conditions {
    /// A drive, O_DIRECT, unpaced, one target, with no row yet.
    fn default() -> Conditions {
        Conditions {
            direct: true,
            pacing: Pacing::Unpaced,
            device: Device::Drive,
            rows: 0,
            targets: 1,
        }
    }
}

/// What one detector needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    pub direct: bool,
    /// Unpaced, or behind the `--rate` cap.
    pub disk_limited: bool,
    /// The devices it may judge.
    pub devices: &'static [Device],
    pub min_rows: usize,
    pub min_targets: usize,
}

const ANY: &[Device] = &[Device::Drive, Device::Virtual, Device::NoDrive];
const DRIVE: &[Device] = &[Device::Drive];
const NOT_LOOP: &[Device] = &[Device::Drive, Device::Virtual];

/// The table. Why each line reads as it does:
/// - the link's training is a fact of a drive's link, true whatever the I/O;
/// - bandwidth at the link is the link's only when the disk sets the pace and the bytes
///   crossed it (not the page cache's);
/// - a split happens at any pace, on any queue (a loop device's too), but only to the I/O
///   diskscope sends itself (O_DIRECT); buffered I/O reaches the disk as writeback and
///   readahead of other sizes;
/// - a full kernel queue needs the threads to fill it: not under a cap they keep;
/// - a volatile cache is a drive's (a loop device's `write back` only means it passes
///   flushes on to its file), and buffered writes stop in the page cache first;
/// - the rotational flag is judged on the random reads' latency: the disk's only with
///   O_DIRECT, and meaningless on a loop device (the kernel sets it there by default);
/// - a drop, throttling, a saturation point and a shared limit are about the disk's pace;
///   throttling needs a drive's temperature;
/// - an outlier is below its peers at any pace (a target behind its cap is slow), and needs
///   peers;
/// - a surface scan's slow regions and read errors are judged on any device, a loop device's
///   file included (its slow spots are the file's), but only on the disk's own reads
///   (O_DIRECT); the curve's shape is a drive's geometry, meaningless on a loop device or a
///   hypervisor's disk, and needs a whole scan (its regions, not seconds: rows 0).
pub fn needs(d: Detector) -> Needs {
    let n = |direct, disk_limited, devices, min_rows, min_targets| Needs {
        direct,
        disk_limited,
        devices,
        min_rows,
        min_targets,
    };
    match d {
        Detector::LinkBelowMax => n(false, false, DRIVE, 0, 1),
        Detector::LinkBound => n(true, true, DRIVE, 1, 1),
        Detector::QueueSplit => n(true, false, ANY, 0, 1),
        Detector::KernelQueue => n(true, true, ANY, 0, 1),
        Detector::VolatileWriteCache => n(true, false, DRIVE, 0, 1),
        Detector::RotationalFlag => n(true, false, NOT_LOOP, 1, 1),
        Detector::Slowdown => n(true, true, ANY, 2, 1),
        Detector::Thermal => n(true, true, DRIVE, 2, 1),
        Detector::Outlier => n(true, false, ANY, 1, 2),
        Detector::SharedLimit => n(true, true, ANY, 1, 2),
        Detector::Saturation => n(true, true, ANY, 1, 1),
        Detector::SurfaceRegions => n(true, false, ANY, 0, 1),
        Detector::SurfaceCurve => n(true, false, DRIVE, 0, 1),
    }
}

impl Conditions {
    /// Whether `d` may speak here.
    pub fn allows(&self, d: Detector) -> bool {
        let n = needs(d);
        (self.direct || !n.direct)
            && (self.pacing.disk_limited() || !n.disk_limited)
            && n.devices.contains(&self.device)
            && self.rows >= n.min_rows
            && self.targets >= n.min_targets
    }

    /// The same, with `rows` rows.
    pub fn with_rows(self, rows: usize) -> Conditions {
        Conditions { rows, ..self }
    }

    /// The same, paced so.
    pub fn paced(self, pacing: Pacing) -> Conditions {
        Conditions { pacing, ..self }
    }
}

/// `detector()`'s findings where `d` may speak under `c`; nothing (and no call) elsewhere.
pub fn ask<I: IntoIterator<Item = super::Finding>>(
    c: &Conditions,
    d: Detector,
    detector: impl FnOnce() -> I,
) -> Vec<super::Finding> {
    if c.allows(d) {
        detector().into_iter().collect()
    } else {
        Vec::new()
    }
}
