//! The storage stack around a file or block device, as one snapshot: which devices map onto
//! which (a loop device over a file or device through its window, a partition inside its
//! disk, an md/dm device built on its slaves), what is mounted (`proc/self/mountinfo`, by
//! major:minor), what is active swap (`proc/swaps`), and which files are an overlay
//! filesystem's names of real files (`overlay`: a loop device attached through an overlay is
//! recorded on the real file of its layer). `walk` follows these mappings to
//! decide whether a write may go ahead; this module only reads and answers questions about
//! single nodes and edges.
//!
//! Everything is read through an injectable [`Roots`] and an injectable `identify` (path →
//! [`Node`]), so tests run over fixture trees. It opens device nodes read-only (a loop
//! device's backing is asked of the kernel, see `loopdev`), and [`claimed_elsewhere`] opens
//! one for an instant with O_EXCL; it never writes.

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use nix::libc;

use super::discover::{DeviceInfo, Mount, Roots, discover, parse_mountinfo, unescape_octal};
use super::loopdev::{self, Backing};
use super::overlap::Window;
use super::overlay::Overlays;

/// What a write lands on: a file (device and inode of its filesystem) or a block device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    File { dev: u64, ino: u64 },
    Block { major: u32, minor: u32 },
}

impl Node {
    /// The node of a stat result.
    pub fn of(meta: &fs::Metadata) -> Node {
        if meta.file_type().is_block_device() {
            let rdev = meta.rdev();
            Node::Block {
                major: libc::major(rdev),
                minor: libc::minor(rdev),
            }
        } else {
            Node::File {
                dev: meta.dev(),
                ino: meta.ino(),
            }
        }
    }

    /// The node at `path` on the running system (following symlinks); `None` if absent.
    pub fn at(path: &Path) -> Option<Node> {
        fs::metadata(path).ok().map(|m| Node::of(&m))
    }
}

/// One block device, what backs it if it is a loop device, and where it lies on its disk if
/// it is a partition.
pub(crate) struct Dev {
    pub(crate) info: DeviceInfo,
    backing: Option<Backing>,
    /// A partition's bytes on its disk (sysfs `start` and `size`); `None` when unknown.
    on_disk: Option<Window>,
    /// A whole disk's world-wide name (sysfs `wwid`, `device/wwid`): two disks with the same
    /// one are two paths to one disk (SCSI or NVMe multipath without dm-multipath).
    wwid: Option<String>,
}

/// How an upper device's bytes come from a lower node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Link {
    /// A loop device over a file or block device, through its window.
    Loop,
    /// A partition inside its disk.
    Partition,
    /// An md/dm device built on one of its slaves; sysfs does not say which bytes go where.
    Holder,
    /// Another path to the same disk (the same WWID): every byte is the same byte.
    Alias,
}

impl Link {
    /// Seen from below: "backs /dev/loop1".
    pub(crate) fn up_verb(self) -> &'static str {
        match self {
            Link::Loop => "backs",
            Link::Partition => "has partition",
            Link::Holder => "is part of",
            Link::Alias => "is the same disk as",
        }
    }

    /// Seen from above: "is backed by /data/img".
    pub(crate) fn down_verb(self) -> &'static str {
        match self {
            Link::Loop => "is backed by",
            Link::Partition => "lies inside",
            Link::Holder => "is built on",
            Link::Alias => "is the same disk as",
        }
    }
}

/// One mapping between two nodes: `upper`'s bytes lie in `lower` through `window` (`None`:
/// unknown, so every byte of one may be any of the other).
pub(crate) struct Edge<'a> {
    pub(crate) link: Link,
    pub(crate) upper: &'a Dev,
    pub(crate) lower: Node,
    /// How the lower node is shown: a loop's backing path as the kernel gives it, else the
    /// device's path.
    pub(crate) lower_shown: String,
    pub(crate) window: Option<Window>,
}

/// A snapshot of the machine's storage stack.
pub struct Stack {
    pub(crate) devs: Vec<Dev>,
    mounts: Vec<Mount>,
    swaps: Vec<Node>,
    /// The overlay mounts, to see an overlay's file as the real file of its layer.
    overlays: Overlays,
}

impl Stack {
    /// Reads the stack from `roots`; `identify` resolves paths named in sysfs and procfs.
    pub fn read(roots: &Roots, identify: &dyn Fn(&Path) -> Option<Node>) -> anyhow::Result<Stack> {
        let mountinfo = roots.proc.join("self/mountinfo");
        let mountinfo = fs::read_to_string(&mountinfo)?;
        let mounts = parse_mountinfo(&mountinfo);
        let overlays = Overlays::parse(&mountinfo);
        let devs = discover(roots)?
            .into_iter()
            .map(|info| Dev {
                backing: loopdev::backing(roots, &info, identify)
                    .map(|b| real_backing(b, &overlays, identify)),
                on_disk: partition_window(roots, &info),
                wwid: wwid(roots, &info),
                info,
            })
            .collect();
        let swaps_file = roots.proc.join("swaps");
        let swaps = match fs::read_to_string(&swaps_file) {
            Ok(text) => parse_swaps(&text)
                .iter()
                .filter_map(|p| identify(Path::new(p)))
                .collect(),
            // No swap support compiled in: nothing can be swap.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(anyhow::anyhow!("reading {}: {e}", swaps_file.display())),
        };
        Ok(Stack {
            devs,
            mounts,
            swaps,
            overlays,
        })
    }

    /// The file or device a write to `path` (at `node`) really reaches: for a file in an
    /// overlay mount, the real file of its layer (see `overlay`); anything else is itself.
    pub fn real_node(&self, path: &Path, node: Node) -> Node {
        match fs::canonicalize(path) {
            Ok(abs) => self.overlays.real(&abs, node, &Node::at),
            Err(_) => node,
        }
    }

    /// The device at `node`, if it is a block device this snapshot knows.
    pub(crate) fn dev(&self, node: Node) -> Option<&Dev> {
        self.devs.iter().find(|d| d.node() == node)
    }

    /// "mounted on X" or "in use as swap" when `node` itself is.
    pub(crate) fn end_at(&self, node: Node) -> Option<String> {
        if self.swaps.contains(&node) {
            return Some("in use as swap".into());
        }
        let Node::Block { major, minor } = node else {
            return None;
        };
        self.mounts
            .iter()
            .find(|m| (m.major, m.minor) == (major, minor))
            .map(|m| format!("mounted on {}", m.mount_point))
    }

    /// Whether `node` is a device with partitions: whether it is held says nothing about a
    /// given range of it then (a mounted partition holds the whole disk), so each partition
    /// is looked at instead.
    pub(crate) fn partitioned(&self, node: Node) -> bool {
        self.dev(node).is_some_and(|me| {
            self.devs
                .iter()
                .any(|d| d.info.parent.as_deref() == Some(me.info.name.as_str()))
        })
    }

    /// The mappings from `node` up: loop devices over it, its partitions, its md/dm holders.
    pub(crate) fn uppers(&self, node: Node) -> Vec<Edge<'_>> {
        let me = self.dev(node);
        let shown = me.map_or_else(String::new, |d| d.info.path.clone());
        let mut out = Vec::new();
        for d in &self.devs {
            let edge = |link, window| Edge {
                link,
                upper: d,
                lower: node,
                lower_shown: shown.clone(),
                window,
            };
            if let Some(b) = d
                .backing
                .as_ref()
                .filter(|b| self.overlays.same_file(b.node, node))
            {
                out.push(edge(Link::Loop, Some(b.window)));
            }
            let Some(me) = me else { continue };
            if d.info.parent.as_deref() == Some(me.info.name.as_str()) {
                out.push(edge(Link::Partition, d.on_disk));
            }
            if me.info.holders.contains(&d.info.name) {
                out.push(edge(Link::Holder, None));
            }
        }
        out
    }

    /// The mappings from `node` down: a loop device's backing, a partition's disk, an md/dm
    /// device's slaves, and the other paths to the same disk (which are as much below it as
    /// above: every byte is shared).
    pub(crate) fn lowers(&self, node: Node) -> Vec<Edge<'_>> {
        let Some(me) = self.dev(node) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(b) = &me.backing {
            out.push(Edge {
                link: Link::Loop,
                upper: me,
                lower: b.node,
                lower_shown: b.shown.clone(),
                window: Some(b.window),
            });
        }
        for d in &self.devs {
            let (link, window, lower_shown) =
                if me.info.parent.as_deref() == Some(d.info.name.as_str()) {
                    (Link::Partition, me.on_disk, d.info.path.clone())
                } else if d.info.holders.contains(&me.info.name) {
                    (Link::Holder, None, d.info.path.clone())
                } else if me.same_disk(d) {
                    let shown = format!("{} (the same WWID)", d.info.path);
                    (Link::Alias, Some(Window::WHOLE), shown)
                } else {
                    continue;
                };
            out.push(Edge {
                link,
                upper: me,
                lower: d.node(),
                lower_shown,
                window,
            });
        }
        out
    }
}

impl Dev {
    pub(crate) fn node(&self) -> Node {
        Node::Block {
            major: self.info.major_minor.0,
            minor: self.info.major_minor.1,
        }
    }

    /// Whether `other` is another path to this disk: the same WWID and the same size (a
    /// firmware that gives every disk one WWID rarely gives them one size too).
    fn same_disk(&self, other: &Dev) -> bool {
        self.wwid.is_some()
            && other.wwid == self.wwid
            && other.info.size_bytes == self.info.size_bytes
            && other.node() != self.node()
    }

    /// Whether it is a loop device with something attached.
    pub(crate) fn attached(&self) -> bool {
        self.backing.is_some()
    }
}

/// A loop device's backing with an overlay's file replaced by the real file of its layer,
/// when the kernel's path still names the file the kernel holds (a renamed or deleted one
/// keeps the kernel's node).
fn real_backing(
    mut b: Backing,
    overlays: &Overlays,
    identify: &dyn Fn(&Path) -> Option<Node>,
) -> Backing {
    let path = Path::new(&b.shown);
    if matches!(b.node, Node::File { .. }) && identify(path) == Some(b.node) {
        b.node = overlays.real(path, b.node, identify);
    }
    b
}

/// Where a partition lies on its disk: sysfs `start` (512-byte sectors, whatever the block
/// size) and `size`. `None` for disks, and when either is missing or garbled.
fn partition_window(roots: &Roots, info: &DeviceInfo) -> Option<Window> {
    let disk = info.parent.as_deref()?;
    let dir = roots.sys.join("block").join(disk).join(&info.name);
    let start = fs::read_to_string(dir.join("start"))
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(Window {
        offset_bytes: start.saturating_mul(512),
        len_bytes: Some(info.size_bytes),
    })
}

/// A whole disk's WWID (`wwid` for NVMe namespaces, `device/wwid` for SCSI), trimmed; `None`
/// for partitions, loop, md and dm devices, and when the kernel gives none.
fn wwid(roots: &Roots, info: &DeviceInfo) -> Option<String> {
    if info.parent.is_some() {
        return None;
    }
    let dir = roots.sys.join("block").join(&info.name);
    ["wwid", "device/wwid"]
        .iter()
        .filter_map(|f| fs::read_to_string(dir.join(f)).ok())
        .map(|t| t.trim().to_string())
        .find(|t| !t.is_empty())
}

/// Whether another program holds the block device at `path` exclusively: a mount (in this or
/// another mount namespace), a member of a multi-device filesystem, a virtual machine or
/// anything that opened it with O_EXCL. Asked by opening it read-only with O_EXCL for an
/// instant, which fails with EBUSY exactly then. Anything else (no such node, no permission)
/// says nothing and counts as not held. Never ask it of a device with partitions (a mounted
/// partition holds its whole disk) or of one our own write path holds (an md/dm device holds
/// its slaves).
pub fn claimed_elsewhere(path: &Path) -> bool {
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path);
    // Dropping a descriptor that opened closes it, releasing the claim at once.
    matches!(opened, Err(e) if e.raw_os_error() == Some(libc::EBUSY))
}

/// The paths in `proc/swaps` (first column, octal escapes decoded), header and deleted
/// files skipped.
pub fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(unescape_octal)
        // A deleted swap file has no path left to compare with.
        .filter(|p| !p.ends_with(" (deleted)"))
        .collect()
}
