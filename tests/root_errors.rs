//! Root-only bad-input cases that need a real kernel object: a filesystem that refuses
//! O_DIRECT (ramfs), and a device the user may not open (run as an unprivileged user).

mod common;

use std::process::Command;

use common::{LoopDev, Mounted, make_file, stderr, workdir};

#[test]
#[ignore = "needs root: mounts a ramfs"]
fn a_filesystem_that_refuses_o_direct_suggests_buffered() {
    let dir = workdir();
    let ram = Mounted::new(&["-t", "ramfs", "ramfs"], dir.path().join("ram"));
    let mnt = &ram.dir;
    make_file(&mnt.join("data"), 1 << 20);
    let out = common::diskscope(mnt, &["data", "--no-tui", "-T", "1s"]);
    let buffered = common::diskscope(mnt, &["data", "--no-tui", "-q", "-T", "1s", "--buffered"]);
    drop(ram);
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
    let dev = LoopDev::on_new_file(dir.path(), 8 << 20, &[]);
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
    let ro = Mounted::new(
        &["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs"],
        dir.path().join("ro"),
    );
    let out = common::diskscope(dir.path(), &["ro", "--size", "64k", "--no-tui", "-T", "1s"]);
    drop(ro);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("diskscope.scratch") && err.contains("writable filesystem"),
        "{err}"
    );
}

#[test]
#[ignore = "needs root: mounts a tmpfs, fills it and remounts it read-only"]
fn a_full_read_only_filesystem_is_blamed_on_being_read_only_not_on_space() {
    let dir = workdir();
    let full = Mounted::new(
        &["-t", "tmpfs", "-o", "size=1m", "tmpfs"],
        dir.path().join("full"),
    );
    // Fill it to the last block (the write stops at ENOSPC), then make it read-only.
    let _ = std::fs::write(full.dir.join("filler"), vec![1u8; 2 << 20]);
    common::run("mount", &["-o", "remount,ro", full.dir.to_str().unwrap()]);
    let out = common::diskscope(
        dir.path(),
        &["full", "--size", "64k", "--no-tui", "-T", "1s"],
    );
    drop(full);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("read-only (EROFS)"), "{err}");
    assert!(!err.contains("free"), "blames free space: {err}");
}

#[test]
#[ignore = "needs root: mounts a small tmpfs"]
fn a_full_filesystem_is_blamed_on_space_with_the_right_numbers() {
    let dir = workdir();
    let small = Mounted::new(
        &["-t", "tmpfs", "-o", "size=1m", "tmpfs"],
        dir.path().join("small"),
    );
    let out = common::diskscope(
        dir.path(),
        &["small", "--size", "4M", "--no-tui", "-T", "1s"],
    );
    let left = std::fs::read_dir(&small.dir).unwrap().count();
    drop(small);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("1 MiB free") && err.contains("needs 4 MiB"),
        "{err}"
    );
    assert_eq!(left, 0, "the empty scratch file was left behind");
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

/// `chattr +ATTR PATH`, undone on drop (or the temporary directory could not be removed).
struct Attr {
    attr: &'static str,
    path: std::path::PathBuf,
}

impl Attr {
    fn set(attr: &'static str, path: &std::path::Path) -> Attr {
        common::run("chattr", &[&format!("+{attr}"), path.to_str().unwrap()]);
        Attr {
            attr,
            path: path.to_path_buf(),
        }
    }
}

impl Drop for Attr {
    fn drop(&mut self) {
        let _ = Command::new("chattr")
            .args([
                format!("-{}", self.attr).as_str(),
                self.path.to_str().unwrap(),
            ])
            .status();
    }
}

#[test]
#[ignore = "needs root: sets the immutable and append-only attributes (CAP_LINUX_IMMUTABLE)"]
fn an_immutable_or_append_only_file_is_named_as_such() {
    let dir = workdir();
    for (attr, says) in [
        ("i", "the file is immutable (chattr +i)"),
        ("a", "the file is append-only (chattr +a)"),
    ] {
        let file = dir.path().join(format!("data-{attr}"));
        make_file(&file, 1 << 20);
        let _attr = Attr::set(attr, &file);
        let name = file.file_name().unwrap().to_str().unwrap();
        let out = common::diskscope(
            dir.path(),
            &[name, "--allow-write", "--read", "0", "--no-tui", "-T", "1s"],
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains(&format!("chattr -{attr} {name}")), "{err}");
        assert!(!err.contains("sandbox"), "{err}");
        // Reading it is fine.
        let read = common::diskscope(dir.path(), &[name, "--no-tui", "-q", "-T", "1s"]);
        assert!(read.status.success(), "{}", stderr(&read));
    }
}

#[test]
#[ignore = "needs root: sets the immutable and append-only attributes (CAP_LINUX_IMMUTABLE)"]
fn a_scratch_directory_that_is_immutable_or_append_only_is_named_and_left_clean() {
    let dir = workdir();
    for (attr, says) in [
        ("i", "the directory is immutable (chattr +i)"),
        ("a", "the directory is append-only (chattr +a)"),
    ] {
        let sub = dir.path().join(format!("dir-{attr}"));
        std::fs::create_dir(&sub).unwrap();
        let attr_guard = Attr::set(attr, &sub);
        let name = sub.file_name().unwrap().to_str().unwrap();
        let out = common::diskscope(dir.path(), &[name, "--size", "1M", "--no-tui", "-T", "1s"]);
        let left = std::fs::read_dir(&sub).unwrap().count();
        drop(attr_guard);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains(&format!("chattr -{attr} {name}")), "{err}");
        // An append-only directory keeps whatever is made in it: nothing may be.
        assert_eq!(left, 0, "a file was left in {name}");
    }
}
