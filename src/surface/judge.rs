//! What the findings need to know of the disk under a scanned target — its rotational flag,
//! the span's share of the device, the kind of device (a drive, a hypervisor's disk, a loop
//! device) — read from sysfs, and the findings of a scan asked through the conditions table.
//! For the front door and the TUI alike.

use crate::findings::conditions::{Conditions, Device};
use crate::findings::surface::{SurfaceFacts, detect};
use crate::model::finding::Finding;
use crate::model::surface::SurfaceReport;
use crate::target::facts::DiskFacts;
use crate::target::open::Target;

/// What the findings need to know of the disk under `target`.
pub fn facts_and_conditions(target: &Target) -> (SurfaceFacts, Conditions) {
    let facts = DiskFacts::for_path(&crate::sys::sysfs_root(), &target.path);
    let share = target
        .device_bytes
        .map(|d| target.span_bytes as f64 / d.max(1) as f64);
    let surface = SurfaceFacts {
        rotational: facts.queue_limits.rotational,
        span_share: share,
    };
    let conditions = Conditions {
        direct: target.direct,
        device: Device::of(facts.link.kind),
        ..Conditions::default()
    };
    (surface, conditions)
}

/// The findings of `report` on `target`.
pub fn findings(report: &SurfaceReport, target: &Target) -> Vec<Finding> {
    let (facts, conditions) = facts_and_conditions(target);
    detect(report, &facts, &conditions)
}
