//! `--health [TARGET…]`: the drive's own record and what it says, for each target (the disk
//! under it) or, without one, every disk; no I/O is run and nothing is written. Drives are
//! read side by side (`health::read_all`), each once however many targets are on it.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};
use serde::Serialize;

use crate::cli::{Config, Output};
use crate::exit::ExitStatus;
use crate::health::{HealthTarget, read_all};
use crate::model::health::DeviceHealth;
use crate::output;
use crate::target::discover::{DeviceKind, Roots, discover, visible};
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

/// Each drive read once however many of the targets are on it (a disk and its partition, two
/// directories of one filesystem): one smartctl call, so their reports cannot disagree.
fn read_once_each(targets: Vec<HealthTarget>) -> Vec<DeviceHealth> {
    let mut unique: Vec<HealthTarget> = Vec::new();
    let which: Vec<usize> = targets
        .into_iter()
        .map(|t| match unique.iter().position(|u| *u == t) {
            Some(i) => i,
            None => {
                unique.push(t);
                unique.len() - 1
            }
        })
        .collect();
    let read = read_all(unique);
    which.into_iter().map(|i| read[i].clone()).collect()
}

/// `--health`: prints each drive's record and findings (text) or the list (`--json`).
pub fn run(config: &Config) -> Result<ExitStatus> {
    let named = entries(config)?;
    let disks: Vec<Option<String>> = named.iter().map(|(_, t)| t.disk.clone()).collect();
    let (labels, targets): (Vec<String>, Vec<HealthTarget>) = named.into_iter().unzip();
    let read = read_once_each(targets);
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
    let json = serde_json::to_string_pretty(&list)? + "\n";
    if let Some(path) = &config.files.json {
        use crate::results::file::{Kind, write_result};
        write_result(Kind::Json, path, &json).map_err(anyhow::Error::msg)?;
    }
    if config.output == Output::Json {
        output::print(&json);
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
