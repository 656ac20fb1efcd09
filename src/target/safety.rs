//! Write safety: nothing is written unless asked for, and never to a device in use. A write to
//! a block device needs the device named on the command line (`--allow-write=/dev/sdX`), and
//! is refused when the device, any of its partitions, or anything holding them (md, dm/LVM)
//! is mounted or held — checked here from sysfs and mountinfo, since fio's string match of
//! /etc/mtab misses mounts through partitions and holders (fio issue #1007). The kernel's
//! O_EXCL open in `open` is the second, independent guard.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use anyhow::{Result, bail};

use super::discover::{DeviceInfo, Roots, discover};

/// Why writing to `dev` must be refused, if it must: mounted, or held by md/dm, itself or
/// through a partition. `all` is the full discovery list (partitions are looked up in it).
pub fn write_refusal(dev: &DeviceInfo, all: &[DeviceInfo]) -> Option<String> {
    let partitions = all
        .iter()
        .filter(|d| d.parent.as_deref() == Some(dev.name.as_str()));
    for d in std::iter::once(dev).chain(partitions) {
        if let Some(m) = d.mountpoints.first() {
            let via = if d.name == dev.name {
                String::new()
            } else {
                format!(" (through {})", d.name)
            };
            return Some(format!("it is mounted at {m}{via}"));
        }
        if let Some(h) = d.holders.first() {
            return Some(format!(
                "{} is part of {h} (RAID, LVM or device-mapper)",
                d.name
            ));
        }
    }
    None
}

/// Whether `named` (typed by the user) names `path`: the same path, or one that resolves to
/// the same file (`/dev/disk/by-id/...` for `/dev/sdb`).
pub fn names_device(named: &str, path: &Path) -> bool {
    Path::new(named) == path
        || matches!((std::fs::canonicalize(named), std::fs::canonicalize(path)), (Ok(a), Ok(b)) if a == b)
}

/// Checks a write to the block device at `path`: the user named it in `named`
/// (`--allow-write=...`), and it is not in use according to `roots`.
pub fn check_device_write(path: &Path, named: &str, roots: &Roots) -> Result<()> {
    let shown = path.display();
    if named.is_empty() {
        bail!(
            "{shown}: writing to a block device destroys its data; confirm by naming it: --allow-write={shown}"
        );
    }
    if !names_device(named, path) {
        bail!(
            "{shown}: --allow-write names {named}, not this device; use --allow-write={shown} to write here"
        );
    }
    let rdev = std::fs::metadata(path)
        .map(|m| m.rdev())
        .map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
    let numbers = (nix::libc::major(rdev), nix::libc::minor(rdev));
    let all = discover(roots)
        .map_err(|e| anyhow::anyhow!("{shown}: cannot check whether it is in use: {e:#}"))?;
    let Some(dev) = all.iter().find(|d| d.major_minor == numbers) else {
        bail!(
            "{shown}: not found in sysfs, so whether it is in use cannot be checked; refusing to write"
        );
    };
    if let Some(why) = write_refusal(dev, &all) {
        bail!("{shown}: refusing to write: {why}; unmount it or pick an unused disk");
    }
    Ok(())
}
