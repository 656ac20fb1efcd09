//! `--health [TARGET…]`: the drive's own record and what it says, for each target (the disk
//! under it) or, without one, every disk; no I/O is run and nothing is written. Also reads the
//! HEALTH column for `--list`. Drives are read side by side, each bounded by smartctl's
//! timeout, so one hung drive does not hold up the others more than that.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};
use serde::Serialize;

use crate::cli::{Config, Output};
use crate::exit::ExitStatus;
use crate::findings::health::device_health;
use crate::health::{HealthTarget, read};
use crate::model::health::DeviceHealth;
use crate::output;
use crate::target::discover::{DeviceInfo, DeviceKind, Roots, discover, visible};
use crate::target::facts::DiskFacts;

/// One target's entry in `--health --json`.
#[derive(Serialize)]
struct Entry {
    /// The target as typed, or the disk's device node.
    target: String,
    /// The disk read (`"sda"`); `None` when the target has no block device.
    disk: Option<String>,
    health: DeviceHealth,
}

/// Reads every target side by side.
fn read_all(targets: Vec<HealthTarget>) -> Vec<DeviceHealth> {
    std::thread::scope(|s| {
        let handles: Vec<_> = targets
            .iter()
            .map(|t| s.spawn(move || device_health(read(t))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| device_health(Err(failed()))))
            .collect()
    })
}

fn failed() -> crate::model::health::HealthGap {
    crate::model::health::HealthGap::new(
        crate::model::health::GapKind::Failed,
        "the health read failed",
    )
}

/// `--list`: each disk's health, read into its row (partitions share their disk's).
pub fn read_listed(devices: &mut [DeviceInfo]) {
    let sys = crate::sys::sysfs_root();
    let disks: Vec<usize> = (0..devices.len())
        .filter(|i| devices[*i].kind == DeviceKind::Disk)
        .collect();
    let targets = disks
        .iter()
        .map(|i| HealthTarget::of_device(&sys, &devices[*i]))
        .collect();
    for (i, h) in disks.into_iter().zip(read_all(targets)) {
        devices[i].health = Some(h);
    }
}

/// The targets named, each as the disk under it; every disk without one.
fn entries(config: &Config) -> Result<Vec<(String, HealthTarget)>> {
    let sys = crate::sys::sysfs_root();
    if config.targets.is_empty() {
        let devices = visible(discover(&Roots::system())?, false);
        return Ok(devices
            .iter()
            .filter(|d| d.kind == DeviceKind::Disk)
            .map(|d| (d.path.clone(), HealthTarget::of_device(&sys, d)))
            .collect());
    }
    config
        .targets
        .iter()
        .map(|path: &PathBuf| {
            std::fs::metadata(path).map_err(|e| {
                anyhow!(
                    "{}: {e}; --health reads the drive under an existing device, file or directory",
                    crate::units::visible(&path.display().to_string())
                )
            })?;
            let facts = DiskFacts::for_path(&sys, Path::new(path));
            Ok((path.display().to_string(), HealthTarget::of_facts(&facts)))
        })
        .collect()
}

/// `--health`: prints each drive's record and findings (text) or the list (`--json`).
pub fn run(config: &Config) -> Result<ExitStatus> {
    let named = entries(config)?;
    let disks: Vec<Option<String>> = named.iter().map(|(_, t)| t.disk.clone()).collect();
    let (labels, targets): (Vec<String>, Vec<HealthTarget>) = named.into_iter().unzip();
    let read = read_all(targets);
    let list: Vec<Entry> = labels
        .into_iter()
        .zip(disks)
        .zip(read)
        .map(|((target, disk), health)| Entry {
            target,
            disk,
            health,
        })
        .collect();
    if config.output == Output::Json {
        output::print(&(serde_json::to_string_pretty(&list)? + "\n"));
        return Ok(ExitStatus::Success);
    }
    if list.is_empty() {
        output::print("no disks found\n");
    }
    let text: Vec<String> = list
        .iter()
        .map(|e| crate::render::health::report(&e.target, &e.health))
        .collect();
    output::print(&text.join("\n"));
    Ok(ExitStatus::Success)
}
