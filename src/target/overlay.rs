//! Files seen through an overlay filesystem (overlayfs: containers' root filesystems, live
//! images) and the real files under them. A file in an overlay mount is a file of one of its
//! layers — the upper directory when it is there (written or copied up), else the first lower
//! one that has it — but the two names have different device numbers, so a loop device
//! attached through the overlay (`losetup /merged/img`) and the same file reached in its layer
//! (`/upper/img`) looked like two files to the write check, which wrote a mounted filesystem.
//! This module maps an overlay's file to the real file it is: by the layers named in
//! `proc/self/mountinfo` when they are absolute paths, else, when the layers cannot be found
//! (an overlay mounted with relative paths shows them as given), by the inode number, which
//! overlayfs passes on from the real file when its layers share one filesystem (the usual
//! case; a different filesystem without `xino` passes on the real device number too).
//!
//! It parses mountinfo and asks an injectable `identify` (path → [`Node`]) about paths; it
//! reads no file's contents, opens nothing and decides nothing: `stack` and `walk` use it.

use std::path::{Path, PathBuf};

use nix::libc;

use super::parse::{parse_dev_numbers, unescape_octal};
use super::stack::Node;

/// How deep overlays on overlays are followed.
const MAX_DEPTH: usize = 8;

/// One overlay mount: its device number, where it is mounted, and its layers, upper first,
/// then the lower ones in order (`None` when any is not an absolute path: cannot be found).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    pub major: u32,
    pub minor: u32,
    pub mount_point: PathBuf,
    pub layers: Option<Vec<PathBuf>>,
}

/// The overlay mounts of a mount table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overlays(pub Vec<Overlay>);

impl Overlays {
    /// The overlay mounts in a `proc/self/mountinfo` text; other lines are skipped.
    pub fn parse(mountinfo: &str) -> Overlays {
        Overlays(mountinfo.lines().filter_map(parse_line).collect())
    }

    /// Whether the device number `dev` (as `st_dev` gives it) is an overlay mount's.
    fn is_overlay(&self, dev: u64) -> bool {
        let (major, minor) = (libc::major(dev), libc::minor(dev));
        self.0.iter().any(|o| (o.major, o.minor) == (major, minor))
    }

    /// The real file behind the file `node` at `path` (absolute, symbolic links resolved):
    /// the file of the layer it comes from, followed through overlays on overlays. `node`
    /// itself when it is not on an overlay, or when its layer cannot be found.
    pub fn real(&self, path: &Path, node: Node, identify: &dyn Fn(&Path) -> Option<Node>) -> Node {
        let (mut path, mut node) = (path.to_path_buf(), node);
        for _ in 0..MAX_DEPTH {
            let Some(below) = self.layer_file(&path, node, identify) else {
                break;
            };
            (path, node) = below;
        }
        node
    }

    /// One step down: the layer's file and its node, if `node` is on an overlay whose layers
    /// are known and one of them has it.
    fn layer_file(
        &self,
        path: &Path,
        node: Node,
        identify: &dyn Fn(&Path) -> Option<Node>,
    ) -> Option<(PathBuf, Node)> {
        let Node::File { dev, .. } = node else {
            return None;
        };
        let (major, minor) = (libc::major(dev), libc::minor(dev));
        // The deepest mount point above the path; the last listed wins (it is on top).
        let overlay = self
            .0
            .iter()
            .filter(|o| (o.major, o.minor) == (major, minor) && path.starts_with(&o.mount_point))
            .max_by_key(|o| o.mount_point.components().count())?;
        let rel = path.strip_prefix(&overlay.mount_point).ok()?;
        overlay.layers.as_ref()?.iter().find_map(|layer| {
            let file = layer.join(rel);
            identify(&file).map(|n| (file, n))
        })
    }

    /// Whether two file nodes may be one file: the same node, or the same inode number when
    /// either lies on an overlay whose layers could not be followed (`real` left it there).
    pub fn same_file(&self, a: Node, b: Node) -> bool {
        match (a, b) {
            _ if a == b => true,
            (Node::File { dev: da, ino: ia }, Node::File { dev: db, ino: ib }) => {
                ia == ib && (self.is_overlay(da) || self.is_overlay(db))
            }
            _ => false,
        }
    }
}

/// An overlay line of mountinfo: `ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS] - overlay
/// SOURCE SUPEROPTS`; `None` for any other filesystem.
fn parse_line(line: &str) -> Option<Overlay> {
    let fields: Vec<&str> = line.split(' ').collect();
    let dash = fields.iter().position(|f| *f == "-")?;
    if fields.get(dash + 1) != Some(&"overlay") {
        return None;
    }
    let (major, minor) = parse_dev_numbers(fields.get(2)?)?;
    let mount_point = PathBuf::from(unescape_octal(fields.get(4)?));
    let options = fields.get(dash + 3).copied().unwrap_or("");
    Some(Overlay {
        major,
        minor,
        mount_point,
        layers: layers(options),
    })
}

/// The layers named in an overlay's super options, upper first: `upperdir=U` and
/// `lowerdir=L1:L2::D` (`:` inside a name is escaped `\:`; `::` sets data-only layers apart,
/// which hold file data too). `None` when there are none or any is not absolute.
fn layers(options: &str) -> Option<Vec<PathBuf>> {
    let mut upper = Vec::new();
    let mut lower = Vec::new();
    for option in options.split(',') {
        let Some((key, value)) = option.split_once('=') else {
            continue;
        };
        let value = unescape_octal(value);
        match key {
            "upperdir" => upper.push(PathBuf::from(value)),
            "lowerdir" | "lowerdir+" | "datadir+" => lower.extend(split_lower(&value)),
            _ => {}
        }
    }
    upper.append(&mut lower);
    (!upper.is_empty() && upper.iter().all(|p| p.is_absolute())).then_some(upper)
}

/// `a:b\:c::d` → `a`, `b:c`, `d`.
fn split_lower(value: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.extend(chars.next()),
            ':' => {
                if !current.is_empty() {
                    out.push(PathBuf::from(std::mem::take(&mut current)));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(PathBuf::from(current));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABSOLUTE: &str = "44 27 0:39 / /srv/merged rw,relatime - overlay overlay rw,lowerdir=/srv/lo\\040w:/srv/l\\:2::/srv/data,upperdir=/srv/up,workdir=/srv/work";
    const RELATIVE: &str = "45 27 0:40 / /srv/rel rw,relatime - overlay overlay rw,lowerdir=lower,upperdir=upper,workdir=work";

    fn dev(major: u32, minor: u32) -> u64 {
        libc::makedev(major, minor)
    }

    #[test]
    fn layers_are_read_upper_first_with_escapes_and_data_only_layers() {
        let o = Overlays::parse(&format!(
            "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n{ABSOLUTE}\n{RELATIVE}\n"
        ));
        assert_eq!(o.0.len(), 2, "{o:?}");
        assert_eq!((o.0[0].major, o.0[0].minor), (0, 39));
        assert_eq!(o.0[0].mount_point, PathBuf::from("/srv/merged"));
        let want: Vec<PathBuf> = ["/srv/up", "/srv/lo w", "/srv/l:2", "/srv/data"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(o.0[0].layers.as_ref(), Some(&want));
        assert_eq!(o.0[1].layers, None, "relative layers cannot be found");
    }

    #[test]
    fn an_overlay_file_is_its_upper_file_else_its_first_lower_one() {
        let o = Overlays::parse(ABSOLUTE);
        let on_overlay = Node::File {
            dev: dev(0, 39),
            ino: 7,
        };
        let upper = Node::File {
            dev: dev(8, 1),
            ino: 7,
        };
        let lower = Node::File {
            dev: dev(8, 2),
            ino: 9,
        };
        let both = |p: &Path| match p.to_str()? {
            "/srv/up/d/img" => Some(upper),
            "/srv/lo w/d/img" => Some(lower),
            _ => None,
        };
        let img = Path::new("/srv/merged/d/img");
        assert_eq!(o.real(img, on_overlay, &both), upper);
        let lower_only = |p: &Path| (p == Path::new("/srv/l:2/d/img")).then_some(lower);
        assert_eq!(o.real(img, on_overlay, &lower_only), lower);
        // Not in any layer (a stale path): it stays itself, matched by inode number.
        assert_eq!(o.real(img, on_overlay, &|_| None), on_overlay);
        assert!(
            o.same_file(on_overlay, upper),
            "same inode number, one on the overlay"
        );
        assert!(!o.same_file(lower, upper), "neither on an overlay");
        // A file elsewhere, or a node on another device, is left alone.
        assert_eq!(o.real(Path::new("/srv/other"), upper, &both), upper);
        assert_eq!(o.real(img, upper, &both), upper);
    }

    #[test]
    fn overlays_on_overlays_are_followed_and_a_loop_of_them_ends() {
        let text = format!(
            "{ABSOLUTE}\n50 27 0:41 / /top rw - overlay overlay rw,lowerdir=/srv/merged,upperdir=/topup,workdir=/topwork"
        );
        let o = Overlays::parse(&text);
        let top = Node::File {
            dev: dev(0, 41),
            ino: 3,
        };
        let mid = Node::File {
            dev: dev(0, 39),
            ino: 3,
        };
        let real = Node::File {
            dev: dev(8, 1),
            ino: 3,
        };
        let identify = |p: &Path| match p.to_str()? {
            "/srv/merged/img" => Some(mid),
            "/srv/up/img" => Some(real),
            _ => None,
        };
        assert_eq!(o.real(Path::new("/top/img"), top, &identify), real);
        // A layer that names the overlay itself ends after a few steps, never hangs.
        let looped = Overlays::parse("1 1 0:42 / /x rw - overlay overlay rw,lowerdir=/x");
        let n = Node::File {
            dev: dev(0, 42),
            ino: 1,
        };
        assert_eq!(looped.real(Path::new("/x/f"), n, &|_| Some(n)), n);
    }
}
