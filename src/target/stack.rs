//! The storage stack above a file or block device: what would see a write to it. A regular file
//! can back a loop device (sysfs `loop/backing_file`), a loop device can back another, a disk
//! carries partitions, a device can be part of md/dm (`holders/`), and any of them can be
//! mounted (`proc/self/mountinfo`, by major:minor) or be active swap (`proc/swaps`). Writing
//! under any of those corrupts what sits on top, so this module walks the stack upwards from
//! the target and names the chain ("/data/img backs /dev/loop1, mounted on /mnt").
//!
//! Everything is read through an injectable [`Roots`] and an injectable `identify` (path →
//! [`Node`]), so tests run over fixture trees; it reads only, and opens device nodes read-only
//! for LOOP_GET_STATUS64, which names a loop's backing file by device and inode even when the
//! path in sysfs is stale (renamed, deleted, another mount namespace).

use std::collections::HashSet;
use std::fs::{self, File};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

use nix::libc;

use super::discover::{DeviceInfo, Mount, Roots, discover, parse_mountinfo, unescape_octal};

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

/// One block device and what backs it, if it is a loop device.
struct Dev {
    info: DeviceInfo,
    backing: Option<Node>,
}

/// A snapshot of the machine's storage stack.
pub struct Stack {
    devs: Vec<Dev>,
    mounts: Vec<Mount>,
    swaps: Vec<Node>,
}

/// A chain found above a node: the steps up ("backs /dev/loop1") and how it ends ("mounted
/// on /mnt"); `end` is `None` when it ends at an md/dm holder or a loop device in use.
struct Chain {
    steps: Vec<String>,
    end: Option<String>,
}

impl Stack {
    /// Reads the stack from `roots`; `identify` resolves paths named in sysfs and procfs.
    pub fn read(roots: &Roots, identify: &dyn Fn(&Path) -> Option<Node>) -> anyhow::Result<Stack> {
        let devs = discover(roots)?
            .into_iter()
            .map(|info| {
                let backing = loop_backing(roots, &info, identify);
                Dev { info, backing }
            })
            .collect();
        let mountinfo = roots.proc.join("self/mountinfo");
        let mounts = parse_mountinfo(&fs::read_to_string(&mountinfo)?);
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
        })
    }

    /// Why writing to `target` (shown as `shown`) would hit something in use: the chain up to
    /// a mount or swap, else up to an md/dm holder or an attached loop device; `None` if free.
    pub fn refusal(&self, target: Node, shown: &str) -> Option<String> {
        let chain = self.above(target, false, &mut HashSet::new())?;
        let end = chain.end.unwrap_or_default();
        Some(if chain.steps.is_empty() {
            format!("{shown} is {end}")
        } else if end.is_empty() {
            format!(
                "{shown} {} (in use, though nothing above it is mounted)",
                chain.steps.join(", which ")
            )
        } else {
            format!("{shown} {}, {end}", chain.steps.join(", which "))
        })
    }

    fn dev(&self, node: Node) -> Option<&Dev> {
        self.devs.iter().find(|d| match node {
            Node::Block { major, minor } => d.info.major_minor == (major, minor),
            Node::File { .. } => false,
        })
    }

    /// The worst chain above `node`: one ending in a mount or swap beats one ending at a
    /// holder. `in_parent`: reached from a partition, so sibling partitions are not followed.
    fn above(&self, node: Node, in_parent: bool, seen: &mut HashSet<Node>) -> Option<Chain> {
        if !seen.insert(node) {
            return None;
        }
        if let Some(end) = self.end_at(node) {
            return Some(Chain {
                steps: vec![],
                end: Some(end),
            });
        }
        let mut best: Option<Chain> = None;
        for (verb, path, next, in_use) in self.edges(node, in_parent) {
            let step = format!("{verb} {path}");
            let chain = match self.above(next, verb == "lies inside", seen) {
                Some(mut c) => {
                    c.steps.insert(0, step);
                    c
                }
                None if in_use => Chain {
                    steps: vec![step],
                    end: None,
                },
                None => continue,
            };
            if best
                .as_ref()
                .is_none_or(|b| chain.end.is_some() && b.end.is_none())
            {
                best = Some(chain);
            }
        }
        best
    }

    /// "mounted on X" or "in use as swap" when `node` itself is.
    fn end_at(&self, node: Node) -> Option<String> {
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

    /// The nodes directly above `node`: (verb, shown path, node, whether it alone means
    /// "in use"). From a partition, its disk too ("lies inside"), whose other partitions are
    /// separate regions and are not followed.
    fn edges(&self, node: Node, in_parent: bool) -> Vec<(&'static str, String, Node, bool)> {
        let edge = |verb, d: &Dev, in_use| (verb, d.info.path.clone(), block(&d.info), in_use);
        let mut out: Vec<_> = self
            .devs
            .iter()
            .filter(|d| d.backing == Some(node))
            .map(|d| edge("backs", d, true))
            .collect();
        let Some(me) = self.dev(node) else {
            return out;
        };
        for d in &self.devs {
            let child = d.info.parent.as_deref() == Some(me.info.name.as_str());
            if child && !in_parent {
                out.push(edge("has partition", d, false));
            }
            if me.info.holders.contains(&d.info.name) {
                out.push(edge("is part of", d, true));
            }
            if me.info.parent.as_deref() == Some(d.info.name.as_str()) {
                out.push(edge("lies inside", d, false));
            }
        }
        out
    }
}

fn block(info: &DeviceInfo) -> Node {
    Node::Block {
        major: info.major_minor.0,
        minor: info.major_minor.1,
    }
}

/// The file or device behind a loop device: by LOOP_GET_STATUS64 (device and inode, exact),
/// else by resolving the path in sysfs `loop/backing_file`. `None` for other devices.
fn loop_backing(
    roots: &Roots,
    info: &DeviceInfo,
    identify: &dyn Fn(&Path) -> Option<Node>,
) -> Option<Node> {
    let sys = roots.sys.join("block").join(&info.name).join("loop");
    let text = fs::read_to_string(sys.join("backing_file")).ok()?;
    // A deleted backing file has no path any more (a new file there is another file): only
    // the kernel's answer can name it.
    loop_status(Path::new(&info.path)).or_else(|| {
        let path = text.trim_end_matches('\n');
        (!path.ends_with(" (deleted)"))
            .then(|| identify(Path::new(path)))
            .flatten()
    })
}

/// `struct loop_info64` of linux/loop.h (232 bytes).
#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; 64],
    lo_crypt_name: [u8; 64],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;

/// The backing node of the loop device at `node_path`, asked of the kernel.
fn loop_status(node_path: &Path) -> Option<Node> {
    let file = File::open(node_path).ok()?;
    if !file.metadata().ok()?.file_type().is_block_device() {
        return None;
    }
    // SAFETY: an all-zero loop_info64 is valid (integers and byte arrays only).
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: LOOP_GET_STATUS64 writes one loop_info64 through the pointer, which points at a
    // live value of that type; the descriptor is an open block device.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), LOOP_GET_STATUS64, &mut info) };
    if rc < 0 {
        return None;
    }
    Some(if info.lo_rdevice != 0 {
        Node::Block {
            major: libc::major(info.lo_rdevice),
            minor: libc::minor(info.lo_rdevice),
        }
    } else {
        Node::File {
            dev: info.lo_device,
            ino: info.lo_inode,
        }
    })
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
