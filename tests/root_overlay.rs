//! Root-only: a file seen through an overlay filesystem is the real file of its layer. A loop
//! device attached through the overlay (`losetup /merged/img`) and mounted is the same
//! storage as the file in the upper directory, and the other way round; a read-only loop
//! device on a file only the lower directory has is that lower file; an overlay mounted with
//! relative layer paths (mountinfo shows them as given, so they cannot be found) is matched
//! by inode number. Each write is refused in one line, the file is unchanged and the mounted
//! filesystem passes `e2fsck -fn`; another file of the same layer is still written.
//! (Before: a write of the upper file ran 8,550 writes into the mounted filesystem.)

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{LoopDev, Mounted, checksum, diskscope, run, stderr, workdir};

const MIB: u64 = 1 << 20;

/// An overlay's directories under `dir`: `lower`, `upper`, `work` and the mount `merged`.
struct Layers {
    lower: PathBuf,
    upper: PathBuf,
    merged: PathBuf,
}

impl Layers {
    fn new(dir: &Path) -> Layers {
        for d in ["lower", "upper", "work"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        Layers {
            lower: dir.join("lower"),
            upper: dir.join("upper"),
            merged: dir.join("merged"),
        }
    }

    /// Mounts the overlay with absolute layer paths.
    fn mount(&self, dir: &Path) -> Mounted {
        let opts = format!(
            "lowerdir={},upperdir={},workdir={}",
            self.lower.display(),
            self.upper.display(),
            dir.join("work").display()
        );
        Mounted::new(
            &["-t", "overlay", "overlay", "-o", &opts],
            self.merged.clone(),
        )
    }

    /// Mounts the overlay with layer paths relative to `dir` (run from there), as mountinfo
    /// will show them.
    fn mount_relative(&self, dir: &Path) -> Mounted {
        std::fs::create_dir_all(&self.merged).unwrap();
        let out = Command::new("mount")
            .args(["-t", "overlay", "overlay", "-o"])
            .arg("lowerdir=lower,upperdir=upper,workdir=work")
            .arg(&self.merged)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Mounted {
            dir: self.merged.clone(),
        }
    }
}

/// A sparse file of `len` bytes.
fn sparse(path: &Path, len: u64) {
    std::fs::File::create(path).unwrap().set_len(len).unwrap();
}

/// Asserts that writing the file `target` for a second is refused in one line naming the
/// loop device and its mount, and that the file is unchanged.
fn refused(dir: &Path, target: &Path, dev: &str, mnt: &Mounted) {
    let before = checksum(target);
    let t = target.to_str().unwrap();
    let out = diskscope(
        dir,
        &[t, "--allow-write", "--read", "0", "--no-tui", "-T", "1s"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("refusing to write"), "{err}");
    assert!(err.contains(dev), "{err}");
    assert!(
        err.contains(&format!("mounted on {}", mnt.dir.display())),
        "{err}"
    );
    assert_eq!(checksum(target), before, "{t} was written");
}

/// An ext4 filesystem made on `dev` and mounted read-only at `dir/name`.
fn ext4_on(dev: &LoopDev, dir: &Path, name: &str) -> Mounted {
    Mounted::ext4(&dev.path, dir.join(name))
}

/// Unmounts and checks the filesystem on `dev` read-only: it must be clean.
fn fsck_clean(mnt: Mounted, dev: &LoopDev) {
    drop(mnt);
    run("e2fsck", &["-fn", &dev.path]);
}

#[test]
#[ignore = "needs root: mounts an overlay, attaches loop devices through it and mounts them"]
fn an_overlay_file_and_its_upper_file_are_one_file() {
    let dir = workdir();
    let layers = Layers::new(dir.path());
    let _overlay = layers.mount(dir.path());
    sparse(&layers.merged.join("img"), 64 * MIB);
    let upper = layers.upper.join("img");
    assert!(
        upper.exists(),
        "a file made in the overlay is in its upper layer"
    );

    // Attached through the overlay and mounted: the upper file is that file.
    let through = LoopDev::attach(&layers.merged.join("img"), &[]);
    let mnt = ext4_on(&through, dir.path(), "mnt");
    refused(dir.path(), &upper, &through.path, &mnt);
    fsck_clean(mnt, &through);
    drop(through);

    // Attached to the upper file and mounted: the overlay's name of it is that file.
    let direct = LoopDev::attach(&upper, &[]);
    let mnt = ext4_on(&direct, dir.path(), "mnt");
    refused(dir.path(), &layers.merged.join("img"), &direct.path, &mnt);

    // Another file of the same layer is not that file: it is written.
    let other = layers.upper.join("other");
    sparse(&other, 4 * MIB);
    let out = diskscope(
        dir.path(),
        &[
            other.to_str().unwrap(),
            "--allow-write",
            "--read",
            "0",
            "--no-tui",
            "-T",
            "200ms",
            "--buffered",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    fsck_clean(mnt, &direct);
}

#[test]
#[ignore = "needs root: mounts an overlay, attaches a read-only loop device through it"]
fn a_lower_file_under_a_read_only_loop_device_through_the_overlay_is_that_file() {
    let dir = workdir();
    let layers = Layers::new(dir.path());
    let lower = layers.lower.join("img");
    sparse(&lower, 64 * MIB);
    // A filesystem made on the lower file before the overlay shows it.
    let maker = LoopDev::attach(&lower, &[]);
    run("mkfs.ext4", &["-q", "-F", "-E", "nodiscard", &maker.path]);
    drop(maker);
    let _overlay = layers.mount(dir.path());
    // Read-only, so the overlay never copies it up: the loop device reads the lower file.
    let ro = LoopDev::attach(&layers.merged.join("img"), &["-r"]);
    assert!(!layers.upper.join("img").exists(), "not copied up");
    let mnt = Mounted::new(&["-o", "ro", &ro.path], dir.path().join("mnt"));
    refused(dir.path(), &lower, &ro.path, &mnt);
    fsck_clean(mnt, &ro);
}

#[test]
#[ignore = "needs root: mounts an overlay with relative layer paths"]
fn an_overlay_with_relative_layer_paths_is_matched_by_inode() {
    let dir = workdir();
    let layers = Layers::new(dir.path());
    let _overlay = layers.mount_relative(dir.path());
    let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        info.contains("upperdir=upper"),
        "mountinfo shows the relative paths as given"
    );
    sparse(&layers.merged.join("img"), 64 * MIB);
    let through = LoopDev::attach(&layers.merged.join("img"), &[]);
    let mnt = ext4_on(&through, dir.path(), "mnt");
    refused(dir.path(), &layers.upper.join("img"), &through.path, &mnt);
    fsck_clean(mnt, &through);
}
