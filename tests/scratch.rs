//! The scratch file shared by runs in one directory, against the real binary: a second run
//! never touches a file another run holds or kept, a file diskscope did not lay out itself
//! (fallocated, or changed since) is never reused as data, unwritten extents in any file
//! target are warned about, and the advice in these messages quotes the right number and
//! shell-quotes paths with spaces.

mod common;

use std::os::fd::AsFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{checksum, diskscope, json, make_file, stderr, workdir};
use nix::fcntl::{FallocateFlags, fallocate};

const SCRATCH: &str = "diskscope.scratch";

/// A file of `len` bytes reserved by fallocate: all unwritten extents, as `fallocate -l`.
fn fallocated(path: &Path, len: i64) {
    let f = std::fs::File::create(path).unwrap();
    fallocate(f.as_fd(), FallocateFlags::empty(), 0, len).unwrap();
}

fn spawn(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn assert_no_short_reads(v: &serde_json::Value) {
    let total = &v["total"];
    assert_eq!(total["short_ios"], 0, "{total}");
    assert_eq!(total["errors"], 0, "{total}");
    assert!(total["ops"].as_u64().unwrap() > 0, "{total}");
}

#[test]
fn two_runs_started_at_once_in_one_directory_never_share_the_scratch_file() {
    let dir = workdir();
    let args = ["--size", "16M", "-T", "2s", "--json", "--keep"];
    let (a, b) = (spawn(dir.path(), &args), spawn(dir.path(), &args));
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let (won, lost): (Vec<_>, Vec<_>) = outs.iter().partition(|o| o.status.success());
    assert_eq!(
        (won.len(), lost.len()),
        (1, 1),
        "exactly one run may have the file"
    );
    let err = stderr(lost[0]);
    assert_eq!(lost[0].status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains(SCRATCH) && err.contains("another diskscope run is using"),
        "{err}"
    );
    assert_no_short_reads(&json(won[0]));
    assert_eq!(
        std::fs::metadata(dir.path().join(SCRATCH)).unwrap().len(),
        16 << 20
    );
}

#[test]
fn a_run_in_progress_keeps_its_file_intact_while_a_second_run_is_refused() {
    let dir = workdir();
    let scratch = dir.path().join(SCRATCH);
    let first = spawn(dir.path(), &["--size", "16M", "-T", "3s", "--json"]);
    // Wait until the first run is benchmarking: layout done (the mark is written after it).
    let started = Instant::now();
    while std::fs::metadata(&scratch).map(|m| m.len()).unwrap_or(0) < 16 << 20 {
        assert!(started.elapsed() < Duration::from_secs(20), "no layout");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let before = checksum(&scratch);
    for args in [
        &["--size", "16M", "-T", "1s"][..],
        &["--size", "4M", "-T", "1s"],
        &["--size", "16M", "-T", "1s", "--allow-write", "--read", "0"],
    ] {
        let second = diskscope(dir.path(), args);
        let err = stderr(&second);
        assert_eq!(second.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("another diskscope run is using"), "{err}");
    }
    assert_eq!(
        checksum(&scratch),
        before,
        "the second run changed the file"
    );
    let out = first.wait_with_output().unwrap();
    assert_no_short_reads(&json(&out));
    assert!(!scratch.exists(), "the first run created it and removes it");
}

#[test]
fn a_kept_file_is_reused_and_left_in_place_by_a_run_without_keep() {
    let dir = workdir();
    let scratch = dir.path().join(SCRATCH);
    let kept = diskscope(dir.path(), &["--size", "8M", "-T", "1s", "-q", "--keep"]);
    assert!(kept.status.success(), "{}", stderr(&kept));
    let before = checksum(&scratch);
    let out = diskscope(dir.path(), &["--size", "8M", "-T", "1s", "--json"]);
    let v = json(&out);
    assert!(!stderr(&out).contains("laying out"), "{}", stderr(&out));
    assert!(
        v["config"]["warnings"]
            .to_string()
            .contains("reused the scratch file"),
        "{}",
        v["config"]["warnings"]
    );
    assert_eq!(checksum(&scratch), before, "a read-only run changed it");
    // Another size: refused with the size to use, never relaid or removed.
    let other = diskscope(dir.path(), &["--size", "4M", "-T", "1s"]);
    let err = stderr(&other);
    assert_eq!(other.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--size 4M was asked") && err.contains("reuse it with --size 8M"),
        "{err}"
    );
    assert_eq!(checksum(&scratch), before);
}

#[test]
fn a_fallocated_or_changed_scratch_file_is_refused_not_reused() {
    let dir = workdir();
    let scratch = dir.path().join(SCRATCH);
    fallocated(&scratch, 16 << 20);
    let out = diskscope(dir.path(), &["--size", "16M", "-T", "1s"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("did not complete its layout"), "{err}");
    assert_eq!(std::fs::metadata(&scratch).unwrap().len(), 16 << 20);

    // A kept layout with a hole punched in it since.
    std::fs::remove_file(&scratch).unwrap();
    let kept = diskscope(dir.path(), &["--size", "8M", "-T", "1s", "-q", "--keep"]);
    assert!(kept.status.success(), "{}", stderr(&kept));
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&scratch)
        .unwrap();
    let punch = FallocateFlags::FALLOC_FL_PUNCH_HOLE | FallocateFlags::FALLOC_FL_KEEP_SIZE;
    fallocate(f.as_fd(), punch, 1 << 20, 1 << 20).unwrap();
    let out = diskscope(dir.path(), &["--size", "8M", "-T", "1s"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("changed since") && err.contains("1 MiB of holes"),
        "{err}"
    );
    assert!(scratch.exists());
}

#[test]
fn unwritten_extents_in_a_file_target_are_warned_about_with_a_quoted_fix() {
    let dir = workdir();
    fallocated(&dir.path().join("my file"), 64 << 20);
    let v = json(&diskscope(dir.path(), &["my file", "-T", "1s", "--json"]));
    let w = v["config"]["warnings"].to_string();
    assert!(
        w.contains("reads of unwritten extents never touch the disk: 67108864 of 67108864 bytes are unwritten"),
        "{w}"
    );
    assert!(w.contains("of='my file'"), "{w}");
    // A laid-out file gets neither warning.
    make_file(&dir.path().join("data"), 4 << 20);
    let v = json(&diskscope(dir.path(), &["data", "-T", "1s", "--json"]));
    let w = v["config"]["warnings"].to_string();
    assert!(!w.contains("unwritten") && !w.contains("sparse"), "{w}");
}

#[test]
fn size_messages_quote_the_size_given() {
    let dir = workdir();
    make_file(&dir.path().join("data"), 1 << 20);
    let out = diskscope(dir.path(), &["data", "--size", "511", "-T", "1s"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--size 511 ") && !err.contains("1048576"),
        "{err}"
    );
    // The scratch file: refused before anything is laid out.
    let out = diskscope(dir.path(), &["--size", "511", "-T", "1s"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--size 511 ") && !err.contains("laying out"),
        "{err}"
    );
    assert!(!dir.path().join(SCRATCH).exists());
    let out = diskscope(dir.path(), &["data", "--size", "2M", "-T", "1s"]);
    assert!(
        stderr(&out).contains("use at most --size 1M"),
        "{}",
        stderr(&out)
    );
    // Rounded down to whole blocks (512 or 4096 bytes, whatever the disk has): said.
    let v = json(&diskscope(
        dir.path(),
        &["data", "--size", "9000", "-T", "1s", "--json"],
    ));
    let w = v["config"]["warnings"].to_string();
    assert!(w.contains("--size 9000 is not a whole number of"), "{w}");
}

#[test]
fn advice_quotes_a_path_with_a_space() {
    let dir = workdir();
    let sub = dir.path().join("sub dir");
    std::fs::create_dir(&sub).unwrap();
    fallocated(&sub.join(SCRATCH), 1 << 20);
    let out = diskscope(dir.path(), &["sub dir", "--size", "1M", "-T", "1s"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("rm -- 'sub dir/diskscope.scratch'"), "{err}");
}
