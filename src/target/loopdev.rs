//! What backs a loop device: the file or block device under it, and the window of it the loop
//! device exposes (`losetup -o OFFSET --sizelimit LEN`). Asked of the kernel first
//! (LOOP_GET_STATUS64 names the backing file by device and inode, exact even when the path is
//! stale: renamed, deleted, or in another mount namespace), else read from sysfs
//! (`loop/backing_file`, `loop/offset`, `loop/sizelimit`) and resolved by path. It only reads,
//! and opens device nodes read-only; what the answer means for a write is `walk`'s business.

use std::fs::{self, File};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use nix::libc;

use super::discover::{DeviceInfo, Roots};
use super::overlap::Window;
use super::stack::Node;
use crate::sys;

/// The storage under a loop device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backing {
    /// The backing file (device and inode) or block device.
    pub node: Node,
    /// Where the loop device's bytes lie in it.
    pub window: Window,
    /// Its path as the kernel shows it (sysfs `loop/backing_file`; " (deleted)" when it was).
    pub shown: String,
}

/// What backs each loop device in `devices`, by kernel name, as sysfs names it
/// (`loop/backing_file`): for a label ("loop → /var/tmp/x.img"), never for a decision.
pub fn backing_files(
    roots: &Roots,
    devices: &[DeviceInfo],
) -> std::collections::HashMap<String, String> {
    devices
        .iter()
        .filter_map(|d| {
            let file = roots
                .sys
                .join("block")
                .join(&d.name)
                .join("loop/backing_file");
            let text = fs::read_to_string(file).ok()?;
            Some((d.name.clone(), text.trim_end_matches('\n').to_string()))
        })
        .collect()
}

/// The backing of the loop device `info`, or `None` for other devices and free loop devices.
/// `identify` resolves the sysfs path when the kernel cannot be asked (no device node here).
pub fn backing(
    roots: &Roots,
    info: &DeviceInfo,
    identify: &dyn Fn(&Path) -> Option<Node>,
) -> Option<Backing> {
    let sys = roots.sys.join("block").join(&info.name).join("loop");
    let text = fs::read_to_string(sys.join("backing_file")).ok()?;
    let shown = text.trim_end_matches('\n').to_string();
    if let Some((node, window)) = from_kernel(Path::new(&info.path)) {
        return Some(Backing {
            node,
            window,
            shown,
        });
    }
    // A deleted backing file has no path any more (a new file there is another file): only
    // the kernel's answer can name it.
    if shown.ends_with(" (deleted)") {
        return None;
    }
    let node = identify(Path::new(&shown))?;
    let number = |name: &str| {
        fs::read_to_string(sys.join(name))
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(0)
    };
    Some(Backing {
        node,
        window: Window::of_loop(number("offset"), number("sizelimit")),
        shown,
    })
}

/// The backing node and window of the loop device at `node_path`, asked of the kernel.
fn from_kernel(node_path: &Path) -> Option<(Node, Window)> {
    let file = File::open(node_path).ok()?;
    if !file.metadata().ok()?.file_type().is_block_device() {
        return None;
    }
    let info = sys::loop_status64(&file).ok()?;
    let node = if info.lo_rdevice != 0 {
        Node::Block {
            major: libc::major(info.lo_rdevice),
            minor: libc::minor(info.lo_rdevice),
        }
    } else {
        Node::File {
            dev: info.lo_device,
            ino: info.lo_inode,
        }
    };
    Some((node, Window::of_loop(info.lo_offset, info.lo_sizelimit)))
}
