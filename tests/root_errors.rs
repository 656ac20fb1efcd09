//! Root-only bad-input cases that need a real kernel object: a filesystem that refuses
//! O_DIRECT (ramfs), and a device the user may not open (run as an unprivileged user).

mod common;

use std::process::Command;

use common::{LoopDev, make_file, stderr, workdir};

#[test]
#[ignore = "needs root: mounts a ramfs"]
fn a_filesystem_that_refuses_o_direct_suggests_buffered() {
    let dir = workdir();
    let mnt = dir.path().join("ram");
    std::fs::create_dir(&mnt).unwrap();
    assert!(
        Command::new("mount")
            .args(["-t", "ramfs", "ramfs"])
            .arg(&mnt)
            .status()
            .unwrap()
            .success()
    );
    make_file(&mnt.join("data"), 1 << 20);
    let out = common::diskscope(&mnt, &["data", "--no-tui", "-T", "1s"]);
    let buffered = common::diskscope(&mnt, &["data", "--no-tui", "-q", "-T", "1s", "--buffered"]);
    let _ = Command::new("umount").arg(&mnt).status();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("data") && err.contains("refuses O_DIRECT") && err.contains("--buffered"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(buffered.status.success(), "{}", stderr(&buffered));
}

#[test]
#[ignore = "needs root: attaches a loop device and drops privileges"]
fn a_device_the_user_may_not_open_is_reported_as_permission_denied() {
    let dir = workdir();
    let file = dir.path().join("backing");
    make_file(&file, 8 << 20);
    let dev = LoopDev::attach(&file, &[]);
    let out = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            env!("CARGO_BIN_EXE_diskscope"),
        ])
        .args([dev.path.as_str(), "--no-tui", "-T", "1s"])
        .current_dir("/")
        .output()
        .expect("setpriv runs");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&dev.path) && err.contains("permission denied") && err.contains("root"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
#[ignore = "needs root: mounts a read-only tmpfs"]
fn a_directory_where_the_scratch_file_cannot_be_created() {
    let dir = workdir();
    let mnt = dir.path().join("ro");
    std::fs::create_dir(&mnt).unwrap();
    assert!(
        Command::new("mount")
            .args(["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs"])
            .arg(&mnt)
            .status()
            .unwrap()
            .success()
    );
    let out = common::diskscope(dir.path(), &["ro", "--size", "64k", "--no-tui", "-T", "1s"]);
    let _ = Command::new("umount").arg(&mnt).status();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("diskscope.scratch") && err.contains("writable directory"),
        "{err}"
    );
}

#[test]
#[ignore = "needs root: finds a free loop device node"]
fn an_unattached_loop_device_is_refused_clearly() {
    let out = Command::new("losetup")
        .arg("-f")
        .output()
        .expect("losetup runs");
    let free = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(free.starts_with("/dev/loop"), "{free}");
    let dir = workdir();
    let run = common::diskscope(dir.path(), &[&free, "--no-tui", "-T", "1s"]);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // Opening a detached loop device fails (ENXIO) or shows size 0; either way the line names
    // the device and says what is wrong with it.
    assert!(
        err.contains(&free) && (err.contains("no such device") || err.contains("size 0")),
        "{err}"
    );
}
