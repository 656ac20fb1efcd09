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
