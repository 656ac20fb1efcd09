//! Root-only: the same storage under another name is never written while a name of it is in
//! use — on real loop devices, files and mounts. Twin loop devices on one file, a window
//! (`losetup -o --sizelimit`) and a loop over the whole file, a file inside a filesystem on a
//! loop device with two loop devices on it, a loop device over a mounted loop device, a
//! deleted backing file, a symlink to the twin, a mount in another mount namespace. Each
//! refusal names the other device and its mount point; the kernel's write counter of the
//! target (`/sys/block/loopN/stat`) and the backing file are unchanged, and the mounted
//! filesystem still passes `e2fsck -fn`. Two disjoint windows of one file stay separate:
//! the free one is really written.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::{LoopDev, Mounted, checksum, diskscope, run, stderr, workdir};

const MIB: u64 = 1 << 20;

/// Writes completed on a block device, from its sysfs `stat` (the fifth field).
fn writes_completed(dev: &str) -> u64 {
    let name = dev.trim_start_matches("/dev/");
    let text = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    text.split_whitespace().nth(4).unwrap().parse().unwrap()
}

/// A sparse file of `len` bytes (mkfs and the loop driver need no data in it).
fn sparse(dir: &Path, name: &str, len: u64) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path).unwrap().set_len(len).unwrap();
    path
}

/// Runs a write of `target` (named in `--allow-write`) for one second.
fn write_run(dir: &Path, target: &str, extra: &[&str]) -> std::process::Output {
    let allow = format!("--allow-write={target}");
    let mut args = vec![
        target,
        allow.as_str(),
        "--read",
        "0",
        "--no-tui",
        "-T",
        "1s",
    ];
    args.extend_from_slice(extra);
    diskscope(dir, &args)
}

/// Asserts that writing the block device `target` (reached as `name`, which may be a link
/// to it) is refused in one line naming every part of `chain`, with nothing written to it
/// and `file` (the storage under it) unchanged.
fn refused(dir: &Path, name: &str, target: &str, file: &Path, chain: &[&str]) {
    let writes = writes_completed(target);
    let before = checksum(file);
    let out = write_run(dir, name, &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("refusing to write"), "{err}");
    for part in chain {
        assert!(err.contains(part), "missing {part:?} in: {err}");
    }
    assert_eq!(writes_completed(target), writes, "{target} was written");
    assert_eq!(checksum(file), before, "{} changed", file.display());
}

/// Unmounts and checks the filesystem on `dev` read-only: it must be clean.
fn fsck_clean(mnt: Mounted, dev: &str) {
    drop(mnt);
    run("e2fsck", &["-fn", dev]);
}

#[test]
#[ignore = "needs root: attaches two loop devices on one file and mounts the first"]
fn a_twin_loop_device_of_a_mounted_one_is_not_written() {
    let dir = workdir();
    let img = sparse(dir.path(), "twin.img", 64 * MIB);
    let a = LoopDev::attach(&img, &[]);
    let b = LoopDev::attach(&img, &[]);
    let mnt = Mounted::ext4(&a.path, dir.path().join("mnt"));
    let mounted = format!("mounted on {}", mnt.dir.display());
    refused(
        dir.path(),
        &b.path,
        &b.path,
        &img,
        &[
            &format!(
                "{} shares bytes 0 B to the end of {}",
                b.path,
                img.display()
            ),
            &format!("with {}, {mounted}", a.path),
        ],
    );
    // A symlink to the twin is the twin.
    let alias = dir.path().join("alias");
    std::os::unix::fs::symlink(&b.path, &alias).unwrap();
    refused(
        dir.path(),
        alias.to_str().unwrap(),
        &b.path,
        &img,
        &[&a.path, &mounted],
    );
    fsck_clean(mnt, &a.path);
}

#[test]
#[ignore = "needs root: attaches a window and a whole-file loop device on one file"]
fn a_window_and_the_whole_file_refuse_each_other_while_either_is_mounted() {
    let dir = workdir();
    let img = sparse(dir.path(), "part.img", 128 * MIB);
    let window = LoopDev::attach(&img, &["-o", "1M", "--sizelimit", "100M"]);
    let whole = LoopDev::attach(&img, &[]);
    // The window mounted: the whole-file loop device covers its bytes.
    let mnt = Mounted::ext4(&window.path, dir.path().join("mnt"));
    refused(
        dir.path(),
        &whole.path,
        &whole.path,
        &img,
        &[
            &format!("shares bytes 1 MiB–101 MiB of {}", img.display()),
            &format!("with {}, mounted on {}", window.path, mnt.dir.display()),
        ],
    );
    fsck_clean(mnt, &window.path);
    // The whole file mounted: every window lies inside it.
    let mnt = Mounted::ext4(&whole.path, dir.path().join("mnt"));
    refused(
        dir.path(),
        &window.path,
        &window.path,
        &img,
        &[
            &format!("shares bytes 1 MiB–101 MiB of {}", img.display()),
            &format!("with {}, mounted on {}", whole.path, mnt.dir.display()),
        ],
    );
    fsck_clean(mnt, &whole.path);
}

#[test]
#[ignore = "needs root: attaches two disjoint windows of one file and mounts one"]
fn a_disjoint_window_of_the_same_file_is_written() {
    let dir = workdir();
    let img = sparse(dir.path(), "part.img", 72 * MIB);
    let first = LoopDev::attach(&img, &["-o", "1M", "--sizelimit", "32M"]);
    let second = LoopDev::attach(&img, &["-o", "33M", "--sizelimit", "32M"]);
    let mnt = Mounted::ext4(&first.path, dir.path().join("mnt"));
    let region = |file: &Path| {
        let data = std::fs::read(file).unwrap();
        data[MIB as usize..33 * MIB as usize].to_vec()
    };
    let mounted_bytes = region(&img);
    let writes = writes_completed(&second.path);
    let out = write_run(dir.path(), &second.path, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        writes_completed(&second.path) > writes,
        "the free window was not written"
    );
    assert!(
        region(&img) == mounted_bytes,
        "the mounted window's bytes changed"
    );
    // The file under both: its first MiB lies outside every window; its second does not.
    let file = img.to_str().unwrap();
    let out = diskscope(
        dir.path(),
        &[
            file,
            "--size",
            "1M",
            "--allow-write",
            "--read",
            "0",
            "--no-tui",
            "-T",
            "1s",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = diskscope(
        dir.path(),
        &[
            file,
            "--size",
            "2M",
            "--allow-write",
            "--read",
            "0",
            "--no-tui",
            "-T",
            "1s",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("backs {}, mounted on", first.path)),
        "{err}"
    );
    assert!(region(&img) == mounted_bytes);
    fsck_clean(mnt, &first.path);
}

#[test]
#[ignore = "needs root: a file inside a filesystem on a loop device, with two loop devices on it"]
fn nested_loop_devices_on_a_file_inside_a_loop_device_are_followed() {
    let dir = workdir();
    let outer_img = sparse(dir.path(), "outer.img", 96 * MIB);
    let a = LoopDev::attach(&outer_img, &[]);
    run("mkfs.ext4", &["-q", "-F", "-E", "nodiscard", &a.path]);
    let outer = Mounted::new(&[&a.path], dir.path().join("outer"));
    let inner_img = outer.dir.join("inner.img");
    common::make_file(&inner_img, 32 << 20);
    let b = LoopDev::attach(&inner_img, &[]);
    let c = LoopDev::attach(&inner_img, &[]);
    let inner = Mounted::ext4(&b.path, dir.path().join("inner"));
    refused(
        dir.path(),
        &c.path,
        &c.path,
        &inner_img,
        &[
            &format!("shares bytes 0 B to the end of {}", inner_img.display()),
            &format!("with {}, mounted on {}", b.path, inner.dir.display()),
        ],
    );
    // The file itself, by its path inside the outer filesystem.
    let before = checksum(&inner_img);
    let out = write_run(dir.path(), inner_img.to_str().unwrap(), &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("backs {}", b.path)), "{err}");
    assert_eq!(checksum(&inner_img), before);
    fsck_clean(inner, &b.path);
    drop(c);
    drop(b);
    drop(outer);
}

#[test]
#[ignore = "needs root: a loop device over a mounted loop device"]
fn a_loop_device_over_a_mounted_loop_device_is_not_written() {
    let dir = workdir();
    let img = sparse(dir.path(), "base.img", 64 * MIB);
    let a = LoopDev::attach(&img, &[]);
    let mnt = Mounted::ext4(&a.path, dir.path().join("mnt"));
    let over = LoopDev::attach(Path::new(&a.path), &["-o", "4M"]);
    refused(
        dir.path(),
        &over.path,
        &over.path,
        &img,
        &[&format!(
            "{} is backed by {}, mounted on {}",
            over.path,
            a.path,
            mnt.dir.display()
        )],
    );
    drop(over);
    fsck_clean(mnt, &a.path);
}

#[test]
#[ignore = "needs root: two loop devices on a file that is then deleted"]
fn twins_on_a_deleted_file_are_matched_by_inode() {
    let dir = workdir();
    let img = sparse(dir.path(), "gone.img", 64 * MIB);
    let a = LoopDev::attach(&img, &[]);
    let b = LoopDev::attach(&img, &[]);
    run("mkfs.ext4", &["-q", "-F", "-E", "nodiscard", &a.path]);
    // Keep a name to compare the bytes by, then remove the one the loop devices know.
    let kept = dir.path().join("kept.img");
    std::fs::hard_link(&img, &kept).unwrap();
    std::fs::remove_file(&img).unwrap();
    let mnt = Mounted::new(&["-o", "ro", &a.path], dir.path().join("mnt"));
    refused(
        dir.path(),
        &b.path,
        &b.path,
        &kept,
        &[
            &format!("{} (deleted)", img.display()),
            &format!("with {}, mounted on {}", a.path, mnt.dir.display()),
        ],
    );
    fsck_clean(mnt, &a.path);
}

/// A shell in a mount namespace of its own with `dev` mounted read-only on `dir`, which this
/// process cannot see; killed (and the namespace and its mount gone) on drop.
struct HiddenMount(Child);

impl HiddenMount {
    fn new(dev: &str, dir: &Path) -> HiddenMount {
        std::fs::create_dir_all(dir).unwrap();
        let script = format!(
            "mount -o ro {dev} '{}' && echo mounted && exec sleep 60",
            dir.display()
        );
        let mut child = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .stdout(Stdio::piped())
            .spawn()
            .expect("unshare runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "mounted", "the hidden mount failed");
        HiddenMount(child)
    }
}

impl Drop for HiddenMount {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
#[ignore = "needs root: mounts a loop device in another mount namespace"]
fn a_twin_mounted_in_another_mount_namespace_is_named_as_held() {
    let dir = workdir();
    let img = sparse(dir.path(), "ns.img", 64 * MIB);
    let a = LoopDev::attach(&img, &[]);
    let b = LoopDev::attach(&img, &[]);
    run("mkfs.ext4", &["-q", "-F", "-E", "nodiscard", &a.path]);
    let hidden = HiddenMount::new(&a.path, &dir.path().join("hidden"));
    refused(
        dir.path(),
        &b.path,
        &b.path,
        &img,
        &[&format!(
            "with {}, held open exclusively by another program",
            a.path
        )],
    );
    drop(hidden);
    run("e2fsck", &["-fn", &a.path]);
}

#[test]
#[ignore = "needs root: mounts a loop device and names its backing file by a hard link and a bind mount"]
fn every_name_of_a_backing_file_is_the_backing_file() {
    let dir = workdir();
    let img = sparse(dir.path(), "img", 64 * MIB);
    let a = LoopDev::attach(&img, &["-o", "1M"]);
    let mnt = Mounted::ext4(&a.path, dir.path().join("mnt"));
    let link = dir.path().join("link");
    std::fs::hard_link(&img, &link).unwrap();
    let bound = sparse(dir.path(), "bound", 0);
    run(
        "mount",
        &["--bind", img.to_str().unwrap(), bound.to_str().unwrap()],
    );
    let bind = Mounted { dir: bound };
    for name in [&link, &bind.dir] {
        let before = checksum(&img);
        let out = write_run(dir.path(), name.to_str().unwrap(), &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!(
                "{} backs {}, mounted on {}",
                name.display(),
                a.path,
                mnt.dir.display()
            )),
            "{err}"
        );
        assert_eq!(checksum(&img), before);
    }
    drop(bind);
    fsck_clean(mnt, &a.path);
}
