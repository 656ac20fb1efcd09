//! The disks under an array: the members of an md or dm device, read from sysfs
//! (`/sys/block/<dev>/slaves/`, followed down through stacked devices such as dm over md), so
//! the kernel pane can show each member's own counters beside the array's. A RAID1 that splits
//! reads across its mirrors, or sends them all to one, is then visible live.
//!
//! A member named in `slaves/` that has no `slaves/` of its own (a partition, a plain disk, a
//! loop device) is a leaf. The walk is bounded (depth and count) and visits each name once, so
//! a malformed tree cannot loop.

use std::collections::HashSet;
use std::path::Path;

/// Deepest stack followed (dm over md over partitions is 2).
const MAX_DEPTH: usize = 8;
/// Most members listed.
const MAX_MEMBERS: usize = 64;

/// One device under the target, `depth` 1 for a direct member, 2 for a member of a member …
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub depth: usize,
}

/// The devices under `device` (its diskstats name), depth first, names sorted at each level;
/// empty for a device with no members (a plain disk) or when sysfs cannot be read.
/// `sys_root` is the sysfs root: the machine's is `crate::sys::sysfs_root()`, which honours
/// `SYSFS_PATH`, so a fixture tree stands in for the machine's.
pub fn members(sys_root: &Path, device: &str) -> Vec<Member> {
    let mut out = Vec::new();
    let mut seen = HashSet::from([device.to_string()]);
    walk(sys_root, device, 1, &mut seen, &mut out);
    out
}

fn walk(sys: &Path, device: &str, depth: usize, seen: &mut HashSet<String>, out: &mut Vec<Member>) {
    if depth > MAX_DEPTH {
        return;
    }
    for name in slaves(sys, device) {
        if out.len() >= MAX_MEMBERS || !seen.insert(name.clone()) {
            continue;
        }
        out.push(Member {
            name: name.clone(),
            depth,
        });
        walk(sys, &name, depth + 1, seen, out);
    }
}

/// The names in `<sys>/block/<device>/slaves/`, sorted; empty when there is none.
fn slaves(sys: &Path, device: &str) -> Vec<String> {
    let dir = sys.join("block").join(device).join("slaves");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(links: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (dev, member) in links {
            let d = dir
                .path()
                .join("block")
                .join(dev)
                .join("slaves")
                .join(member);
            std::fs::create_dir_all(d).unwrap();
        }
        dir
    }

    #[test]
    fn stacked_devices_are_followed_down_to_the_disks() {
        let sys = tree(&[
            ("dm-0", "md0"),
            ("md0", "sdc1"),
            ("md0", "sdb1"),
            ("dm-0", "loop3"),
        ]);
        let names: Vec<(String, usize)> = members(sys.path(), "dm-0")
            .into_iter()
            .map(|m| (m.name, m.depth))
            .collect();
        assert_eq!(
            names,
            [
                ("loop3".to_string(), 1),
                ("md0".to_string(), 1),
                ("sdb1".to_string(), 2),
                ("sdc1".to_string(), 2)
            ]
        );
    }

    #[test]
    fn a_plain_disk_has_none_and_a_loop_in_the_tree_ends() {
        let sys = tree(&[("md0", "md1"), ("md1", "md0")]);
        assert!(members(sys.path(), "sda").is_empty());
        let m = members(sys.path(), "md0");
        assert_eq!(m.len(), 1, "{m:?}");
        assert_eq!(m[0].name, "md1");
    }
}
