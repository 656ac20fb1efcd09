//! Root-only: writes are refused under anything that is in use, through the whole stack, on
//! real loop devices, mounts and swap — a file backing a mounted loop device, a loop device
//! backing another that is mounted, an active swap file, and a kept scratch file someone
//! attached to a loop device. Each refusal names the chain; reading stays allowed, and nothing
//! changes on disk.

mod common;

use std::path::Path;

use common::{LoopDev, Mounted, Swap, checksum, diskscope, stderr, workdir};

/// Asserts a one-line refusal to write `target` naming every part of `chain`, with the target
/// unchanged, and that a read-only run of it works.
fn write_refused_read_allowed(dir: &Path, target: &str, chain: &[&str]) {
    let before = checksum(&dir.join(target));
    let out = diskscope(
        dir,
        &[
            target,
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
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("refusing to write"), "{err}");
    for part in chain {
        assert!(err.contains(part), "missing {part:?} in: {err}");
    }
    assert_eq!(
        checksum(&dir.join(target)),
        before,
        "{target} was written to"
    );
    let read = diskscope(dir, &[target, "--no-tui", "-q", "-T", "1s"]);
    assert!(read.status.success(), "reading refused: {}", stderr(&read));
}

#[test]
#[ignore = "needs root: attaches a loop device and mounts it"]
fn a_file_backing_a_mounted_loop_device_is_not_written() {
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 32 << 20, &[]);
    let mnt = Mounted::ext4(&dev.path, dir.path().join("mnt"));
    let chain = format!(
        "backing backs {}, mounted on {}",
        dev.path,
        mnt.dir.display()
    );
    write_refused_read_allowed(dir.path(), "backing", &[&chain]);
}

#[test]
#[ignore = "needs root: attaches two stacked loop devices and mounts the top one"]
fn a_loop_device_backing_a_mounted_loop_device_is_not_written() {
    let dir = workdir();
    let a = LoopDev::on_new_file(dir.path(), 32 << 20, &[]);
    let b = LoopDev::attach(Path::new(&a.path), &[]);
    let mnt = Mounted::ext4(&b.path, dir.path().join("mnt"));
    let mounted = format!("mounted on {}", mnt.dir.display());
    // The device in the middle, named as --allow-write asks, and the file at the bottom.
    let before = a.checksum();
    let allow = format!("--allow-write={}", a.path);
    let out = diskscope(
        dir.path(),
        &[&a.path, &allow, "--read", "0", "--no-tui", "-T", "1s"],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{} backs {}, {mounted}", a.path, b.path)),
        "{err}"
    );
    assert_eq!(a.checksum(), before, "the middle device was written to");
    let read = diskscope(dir.path(), &[&a.path, "--no-tui", "-q", "-T", "1s"]);
    assert!(read.status.success(), "{}", stderr(&read));
    let chain = format!(
        "backing backs {}, which backs {}, {mounted}",
        a.path, b.path
    );
    write_refused_read_allowed(dir.path(), "backing", &[&chain]);
}

#[test]
#[ignore = "needs root: switches on a swap file"]
fn an_active_swap_file_is_not_written() {
    let dir = workdir();
    let Some(_swap) = Swap::on(dir.path().join("swapfile"), 16 << 20) else {
        eprintln!("skipped: the kernel refused swapon here (the fixture test covers swap)");
        return;
    };
    write_refused_read_allowed(dir.path(), "swapfile", &["swapfile is in use as swap"]);
}

#[test]
#[ignore = "needs root: attaches a kept scratch file to a loop device"]
fn a_kept_scratch_file_attached_to_a_loop_device_is_not_written() {
    let dir = workdir();
    let keep = diskscope(
        dir.path(),
        &["--size", "32M", "--keep", "--no-tui", "-q", "-T", "1s"],
    );
    assert!(keep.status.success(), "{}", stderr(&keep));
    let scratch = dir.path().join("diskscope.scratch");
    // Not mounted (mkfs would zero and discard parts of the file, which the reuse check
    // rightly refuses): an attached loop device is in use on its own.
    let dev = LoopDev::attach(&scratch, &[]);
    let before = checksum(&scratch);
    let out = diskscope(
        dir.path(),
        &[
            ".",
            "--size",
            "32M",
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
        err.contains(&format!("diskscope.scratch backs {} (in use", dev.path)),
        "{err}"
    );
    assert_eq!(checksum(&scratch), before);
}
