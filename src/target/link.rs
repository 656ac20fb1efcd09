//! What carries a block device's data, read from sysfs: the bus and its trained speed and
//! width beside the most it could do, and the ceiling in bytes per second that follows
//! ([`super::ceiling`]). A partition reports its disk's link; an md or dm device reports each
//! member's; virtual and network devices say that there is no physical link rather than
//! guess one.
//!
//! The walk starts at `sys/block/<disk>/device` and climbs the device tree to the nearest
//! directory that names a transport: a virtio device, an NVMe controller's transport, a PCI
//! function with `current_link_speed`, an ATA port `ataN`, a SAS `end_device-*`, a USB device
//! with `speed`, an iSCSI session. The bus readers live in [`super::link_bus`]. Everything is
//! read once, at listing or at open; nothing here runs on the I/O path.

use std::path::{Path, PathBuf};

pub use crate::model::disk::{LinkInfo, LinkKind, MemberLink};

use super::link_bus;
use super::sysfs::{BlockDir, entries, read_attr, relative, resolve, subsystem};

/// How far a walk climbs the device tree, and how deep it follows stacked devices.
const MAX_UP: usize = 32;
const MAX_STACK: usize = 8;

/// The link of the block device `name` (a disk or a partition) under the sysfs root `sys`.
pub fn link_of_name(sys: &Path, name: &str) -> LinkInfo {
    match BlockDir::by_name(sys, name) {
        Some(block) => link_of(sys, &block),
        None => LinkInfo::unknown(&format!("{name}: not found under {}", sys.display())),
    }
}

/// The link of a block device found in sysfs.
pub fn link_of(sys: &Path, block: &BlockDir) -> LinkInfo {
    link_at_depth(sys, block, 0)
}

fn link_at_depth(sys: &Path, block: &BlockDir, depth: usize) -> LinkInfo {
    let slaves = entries(&block.disk_dir.join("slaves"));
    if !slaves.is_empty() {
        return stacked(sys, &block.disk, &slaves, depth);
    }
    match block.device_dir() {
        Some(dev) => walk(sys, &dev),
        None => virtual_link(&block.disk),
    }
}

/// md, dm and other stacked devices: each member's link, followed down to the disks.
fn stacked(sys: &Path, disk: &str, slaves: &[String], depth: usize) -> LinkInfo {
    let kind = if disk.starts_with("md") {
        LinkKind::Md
    } else if disk.starts_with("dm-") {
        LinkKind::Dm
    } else {
        LinkKind::Virtual
    };
    let prefix = match kind {
        LinkKind::Md => "md",
        LinkKind::Dm => "dm",
        _ => disk,
    };
    if depth >= MAX_STACK {
        return LinkInfo::unknown(&format!("{disk}: stacked more than {MAX_STACK} deep"));
    }
    let members: Vec<MemberLink> = slaves
        .iter()
        .map(|name| MemberLink {
            name: name.clone(),
            link: match BlockDir::by_name(sys, name) {
                Some(b) => link_at_depth(sys, &b, depth + 1),
                None => LinkInfo::unknown(&format!("{name}: not found in sysfs")),
            },
        })
        .collect();
    let label = members_label(prefix, &members);
    let mut link = LinkInfo::bare(
        kind,
        &label,
        Some(format!(
            "{disk}: the ceiling depends on the layout (RAID level, stripes); each member's \
             link is listed"
        )),
    );
    link.members = members;
    link
}

/// `"md: 2× SATA 6 Gb/s"` when every member's link reads the same, else `"md: 3 members"`.
fn members_label(prefix: &str, members: &[MemberLink]) -> String {
    match members.first() {
        Some(first) if members.iter().all(|m| m.link.label == first.link.label) => {
            format!("{prefix}: {}× {}", members.len(), first.link.label)
        }
        _ => format!("{prefix}: {} members", members.len()),
    }
}

/// A device without a `device` directory: loop, zram, nbd, ram, or another virtual device.
fn virtual_link(disk: &str) -> LinkInfo {
    let (kind, label, note) = if disk.starts_with("loop") {
        (
            LinkKind::Loop,
            "loop",
            "loop: no physical link; the disk under its backing file sets the pace",
        )
    } else if disk.starts_with("zram") {
        (
            LinkKind::Zram,
            "zram",
            "zram: compressed RAM, no physical link",
        )
    } else if disk.starts_with("nbd") {
        (
            LinkKind::Network,
            "nbd",
            "nbd: a network block device; the network, not a disk link, carries the data",
        )
    } else if disk.starts_with("ram") {
        (LinkKind::Ram, "ram", "ram: a RAM disk, no physical link")
    } else if disk.starts_with("md") {
        (LinkKind::Md, "md", "md: an array with no members")
    } else if disk.starts_with("dm-") {
        (LinkKind::Dm, "dm", "dm: a mapped device with no members")
    } else {
        (
            LinkKind::Virtual,
            "virtual",
            "a virtual block device: no physical link",
        )
    };
    LinkInfo::bare(kind, label, Some(note.to_string()))
}

/// Climbs from the disk's `device` directory to the first directory that names a transport.
fn walk(sys: &Path, start: &Path) -> LinkInfo {
    let stop = resolve(&sys.join("devices"));
    let mut dir: PathBuf = start.to_path_buf();
    let mut child: Option<PathBuf> = None;
    for _ in 0..MAX_UP {
        if let Some(link) = classify(sys, &dir, child.as_deref(), start) {
            return link;
        }
        if dir == stop || !dir.starts_with(&stop) {
            break;
        }
        let Some(parent) = dir.parent() else { break };
        child = Some(dir.clone());
        dir = parent.to_path_buf();
    }
    LinkInfo::unknown("no bus sysfs describes was found above the device")
}

/// The link `dir` describes, if it is a transport; `child` is the directory below it on the
/// way up, `start` the disk's own device directory.
fn classify(sys: &Path, dir: &Path, child: Option<&Path>, start: &Path) -> Option<LinkInfo> {
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let bare = |kind, label: &str, note: &str| {
        let mut link = LinkInfo::bare(kind, label, Some(note.into()));
        link.sysfs_path = Some(relative(sys, dir));
        Some(link)
    };
    match subsystem(dir).as_deref() {
        Some("virtio") => return bare(LinkKind::Virtio, "virtio", "virtio: no physical link"),
        Some("xen" | "xen-backend") => return bare(LinkKind::Xen, "xen", "xen: no physical link"),
        Some("vmbus") => return bare(LinkKind::Hyperv, "hyper-v", "hyper-v: no physical link"),
        Some("rbd") => {
            return bare(
                LinkKind::Network,
                "rbd",
                "rbd: a Ceph network block device; the network carries the data",
            );
        }
        _ => {}
    }
    if subsystem(dir).as_deref() == Some("nvme")
        && let Some(transport) = read_attr(&dir.join("transport"))
        && transport != "pcie"
    {
        let note = format!("NVMe over {transport}: no physical disk link to measure");
        let label = format!("nvme-{transport}");
        return bare(LinkKind::Network, &label, &note);
    }
    if name.starts_with("nvme-subsys") {
        return Some(multipath(sys, dir));
    }
    if dir.join("current_link_speed").exists() {
        return Some(link_bus::pcie(sys, dir));
    }
    if is_numbered(&name, "ata") {
        return Some(link_bus::sata(sys, dir, start));
    }
    if name.starts_with("end_device-") {
        return Some(link_bus::sas(sys, dir));
    }
    if subsystem(dir).as_deref() == Some("usb") && dir.join("speed").exists() {
        return Some(link_bus::usb(sys, dir, child));
    }
    if is_numbered(&name, "session") && dir.join("iscsi_session").exists() {
        return bare(
            LinkKind::Network,
            "iscsi",
            "iSCSI: the network, not a disk link, carries the data",
        );
    }
    if name == "virtual" {
        return bare(
            LinkKind::Virtual,
            "virtual",
            "a virtual device: no physical link",
        );
    }
    None
}

/// An NVMe namespace shared by controllers (native multipath): each path's link.
fn multipath(sys: &Path, subsys: &Path) -> LinkInfo {
    let controllers: Vec<String> = entries(subsys)
        .into_iter()
        .filter(|n| is_numbered(n, "nvme"))
        .collect();
    let mut members: Vec<MemberLink> = controllers
        .iter()
        .map(|c| MemberLink {
            name: c.clone(),
            link: walk(sys, &resolve(&subsys.join(c))),
        })
        .collect();
    match members.len() {
        0 => LinkInfo::unknown("an NVMe subsystem with no controller in sysfs"),
        1 => members.remove(0).link,
        n => {
            let mut link = members[0].link.clone();
            let same = members
                .iter()
                .all(|m| m.link.label == members[0].link.label);
            link.label = if same {
                format!("{n} paths: {}", members[0].link.label)
            } else {
                format!("{n} paths")
            };
            link.ceiling_bytes_per_s = None;
            link.max_ceiling_bytes_per_s = None;
            link.note = Some(format!(
                "NVMe multipath over {n} controllers: the I/O policy spreads requests over \
                 their links; each is listed"
            ));
            link.members = members;
            link
        }
    }
}

/// `"ata3"` is numbered `"ata"`; `"ata"` and `"atapi"` are not.
pub(crate) fn is_numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_names() {
        assert!(is_numbered("ata3", "ata"));
        assert!(is_numbered("session12", "session"));
        assert!(!is_numbered("ata", "ata"));
        assert!(!is_numbered("atapi", "ata"));
        assert!(!is_numbered("nvme-subsys0", "nvme"));
    }

    #[test]
    fn virtual_devices_say_there_is_no_link() {
        for (name, kind) in [
            ("loop0", LinkKind::Loop),
            ("zram0", LinkKind::Zram),
            ("nbd3", LinkKind::Network),
            ("ram0", LinkKind::Ram),
            ("drbd0", LinkKind::Virtual),
        ] {
            let link = virtual_link(name);
            assert_eq!(link.kind, kind, "{name}");
            assert!(
                link.note
                    .is_some_and(|n| n.contains("no physical link") || n.contains("network"))
            );
            assert_eq!(link.ceiling_bytes_per_s, None);
        }
    }

    #[test]
    fn members_read_as_one_label_when_alike() {
        let sata = |label: &str| MemberLink {
            name: "sda1".into(),
            link: LinkInfo::bare(LinkKind::Sata, label, None),
        };
        assert_eq!(
            members_label("md", &[sata("SATA 6 Gb/s"), sata("SATA 6 Gb/s")]),
            "md: 2× SATA 6 Gb/s"
        );
        assert_eq!(
            members_label("md", &[sata("SATA 6 Gb/s"), sata("SATA 3 Gb/s (of 6)")]),
            "md: 2 members"
        );
    }

    #[test]
    fn json_fields_are_null_when_unknown() {
        let json = serde_json::to_value(LinkInfo::unknown("x")).unwrap();
        for key in [
            "speed",
            "width",
            "max_speed",
            "max_width",
            "ceiling_bytes_per_s",
        ] {
            assert!(json[key].is_null(), "{key}: {json}");
        }
        assert_eq!(json["kind"], "unknown");
        let back: LinkInfo = serde_json::from_value(json).unwrap();
        assert_eq!(back, LinkInfo::unknown("x"));
    }
}
