//! Many disks at once: one engine per target, unchanged, and a small aggregator above them.
//! `group` starts and changes the engines together; `clock` puts their snapshots on one
//! clock and cuts it into shared seconds; `collect` turns those into each target's rows, the
//! aggregate (sums of ops and bytes, each target's rate added, latency histograms merged,
//! never averaged) and the report; `together` runs them headless — all at once, or each
//! alone then all together (`--each-then-all`); `cpu` says how busy the CPU was meanwhile;
//! `prepare` makes every target ready, all or none.
//!
//! It produces `model::disks` results and knows nothing of the command line, the screen or
//! how the results are printed; the TUI feeds the same `clock` and `collect` from its own
//! event loop.

pub mod clock;
pub mod collect;
pub mod cpu;
pub mod group;
pub mod prepare;
#[cfg(test)]
pub(crate) mod testing;
pub mod together;

use std::path::Path;

pub use collect::Identity;
pub use group::{Group, check_together};
pub use together::{Member, Plan};

use crate::diskstats::devmap;
use crate::model::ConfigReport;
use crate::target::link::link_of_name;
use crate::target::open::{Target, TargetKind};
use crate::target::sysfs::{BlockDir, read_attr};

/// Who `target` is for tables and reports: a device by its kernel name, a file or scratch
/// file by its path; the model and link of the device it is or lives on, read under `sys`.
pub fn identify(target: &Target, shown: &str, config: ConfigReport, sys: &Path) -> Identity {
    let device = devmap::device_of(&target.path, Path::new("/proc"));
    let name = match (&device, target.kind) {
        (Some(d), TargetKind::BlockDevice) => d.clone(),
        _ => shown.to_string(),
    };
    let block = device.as_deref().and_then(|d| BlockDir::by_name(sys, d));
    let model = block
        .as_ref()
        .and_then(|b| read_attr(&b.disk_dir.join("device").join("model")));
    let link = device
        .as_deref()
        .map(|d| link_of_name(sys, d).label)
        .filter(|l| l != "?");
    Identity {
        name,
        model,
        link,
        device,
        config,
    }
}
