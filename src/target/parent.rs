//! What several targets have in common on the way to the CPU: the disk under them (loop
//! devices backed by files on one disk), a PCI function (the same HBA or controller), or a
//! PCI bridge above them (a PCIe switch or root port). Read from sysfs: a block device's
//! `device` link resolved to its place in the device tree, every PCI address on that path
//! (`0000:3b:00.0`) and its `driver`; a loop device's backing file followed to the device its
//! filesystem is on. Every read goes through the sysfs root given; the backing file's
//! device is asked of an injectable `identify`, so fixture trees can stand in for it.
//!
//! Plain facts and the sentences that name them; whether a shared parent *limited* anything
//! is `findings::shared_limit`'s to say, from the measurements.

use std::collections::BTreeSet;
use std::path::Path;

use super::sysfs::{BlockDir, driver, read_attr};

/// How deep loop devices on files on loop devices are followed.
const MAX_STACK: usize = 8;

/// Where a target's bytes live, and the PCI functions on the way to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// The device the target is or lives on (`loop1`, `sdb`, `vda`).
    pub device: String,
    /// The disk its bytes end up on: itself, or for a loop device the disk under its
    /// backing file (followed through loops on loops).
    pub disk: String,
    /// The PCI functions above that disk, from the root down (the last is its controller).
    pub pci: Vec<Pci>,
}

/// One PCI function on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pci {
    /// `0000:3b:00.0`.
    pub address: String,
    /// The driver bound to it (`nvme`, `mpt3sas`, `virtio-pci`), when sysfs says.
    pub driver: Option<String>,
}

/// Whether `name` is a PCI address, `DDDD:BB:DD.F` in hexadecimal.
pub fn is_pci_address(name: &str) -> bool {
    let b = name.as_bytes();
    let hex = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_hexdigit);
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && hex(0..4)
        && hex(5..7)
        && hex(8..10)
        && (b'0'..=b'7').contains(&b[11])
}

/// The chain of block device `device` under the sysfs root `sys`; `identify` gives the
/// major:minor of the device a file lives on (for a loop device's backing file). `None`
/// when sysfs does not know the device.
pub fn chain_of(
    sys: &Path,
    device: &str,
    identify: &dyn Fn(&Path) -> Option<(u32, u32)>,
) -> Option<Chain> {
    let mut block = BlockDir::by_name(sys, device)?;
    for _ in 0..MAX_STACK {
        let backing = read_attr(&block.disk_dir.join("loop").join("backing_file"));
        let Some(below) = backing
            .and_then(|f| identify(Path::new(&f)))
            .and_then(|(major, minor)| BlockDir::by_numbers(sys, major, minor))
        else {
            break;
        };
        block = below;
    }
    let pci = block
        .device_dir()
        .map(|dir| {
            dir.ancestors()
                .filter(|d| {
                    d.file_name()
                        .is_some_and(|n| is_pci_address(&n.to_string_lossy()))
                })
                .map(|d| Pci {
                    address: d
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                    driver: driver(d),
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    Some(Chain {
        device: device.to_string(),
        disk: block.disk,
        pci: pci.into_iter().rev().collect(),
    })
}

/// The major:minor of the device the file at `path` lives on, on this machine.
pub fn device_of_file(path: &Path) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    Some((
        nix::sys::stat::major(dev) as u32,
        nix::sys::stat::minor(dev) as u32,
    ))
}

/// One sentence per thing two or more targets share, deepest first: the disk under them,
/// then each PCI function or bridge whose set of targets no deeper one has. `targets` pairs
/// each target's name with its chain (`None`: unknown, left out).
pub fn shared(targets: &[(String, Option<Chain>)]) -> Vec<String> {
    let known: Vec<(&String, &Chain)> = targets
        .iter()
        .filter_map(|(n, c)| c.as_ref().map(|c| (n, c)))
        .collect();
    let mut out = Vec::new();
    // The same disk under several targets: one entry for all of them from here on.
    let mut disks: Vec<(String, Vec<&String>, &Chain)> = Vec::new();
    for (name, chain) in &known {
        match disks.iter_mut().find(|(d, ..)| *d == chain.disk) {
            Some((_, names, _)) => names.push(name),
            None => disks.push((chain.disk.clone(), vec![name], chain)),
        }
    }
    for (disk, names, chain) in disks.iter().filter(|(_, n, _)| n.len() >= 2) {
        let behind = chain
            .pci
            .last()
            .map(|p| format!(", behind PCI {}", describe(p)))
            .unwrap_or_default();
        out.push(format!(
            "{} are on one disk, {disk}{behind}",
            and_list(names)
        ));
    }
    // PCI functions: each address with the disks under it; said when no deeper address
    // has the same disks under it.
    let mut seen: Vec<BTreeSet<usize>> = Vec::new();
    let mut found: Vec<(usize, &Pci, BTreeSet<usize>)> = Vec::new();
    for (i, (_, _, chain)) in disks.iter().enumerate() {
        for (depth, p) in chain.pci.iter().enumerate() {
            let under: BTreeSet<usize> = disks
                .iter()
                .enumerate()
                .filter(|(_, (_, _, c))| c.pci.iter().any(|q| q.address == p.address))
                .map(|(j, _)| j)
                .collect();
            if under.len() >= 2 && under.iter().next() == Some(&i) {
                found.push((depth, p, under));
            }
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, p, under) in found {
        if seen.contains(&under) {
            continue;
        }
        let names: Vec<&String> = under.iter().flat_map(|&j| disks[j].1.clone()).collect();
        let own = under.iter().all(|&j| {
            disks[j]
                .2
                .pci
                .last()
                .is_some_and(|q| q.address == p.address)
        });
        let what = if own { "PCI" } else { "PCI bridge" };
        out.push(format!("{} share {what} {}", and_list(&names), describe(p)));
        seen.push(under);
    }
    out
}

/// "0000:3b:00.0 (mpt3sas)".
fn describe(p: &Pci) -> String {
    match &p.driver {
        Some(d) => format!("{} ({d})", p.address),
        None => p.address.clone(),
    }
}

/// "a", "a and b", "a, b and c".
fn and_list(names: &[&String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!(
            "{} and {last}",
            rest.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
#[path = "parent_tests.rs"]
mod tests;
