//! The flags beside a burn-in or a capacity probe, on the real binary and a regular file: what
//! the mode uses is used as typed (`-b 4k` is 4 KiB, not "left at the default"), and what it
//! would not use is refused in one line before anything is written.

mod common;

use common::{checksum, diskscope, make_file, stderr, workdir};

#[test]
fn the_burn_in_takes_the_block_size_typed_and_1_mib_when_none_is() {
    let dir = workdir();
    make_file(&dir.path().join("data"), 2 << 20);
    for (args, block) in [
        (vec!["-b", "4k"], 4096),
        (vec![], 1 << 20),
        (vec!["-b", "64k"], 64 << 10),
    ] {
        let mut all = vec!["data", "--burn-in", "--allow-write", "--json"];
        all.extend_from_slice(&args);
        let out = diskscope(dir.path(), &all);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["verify"]["block_bytes"], block, "{args:?}");
    }
}

#[test]
fn a_flag_a_burn_in_or_probe_would_not_use_is_refused_before_any_write() {
    let dir = workdir();
    let file = dir.path().join("data");
    make_file(&file, 2 << 20);
    let before = checksum(&file);
    for (args, says) in [
        (
            &["--burn-in", "--allow-write", "--sweep", "threads=1,2"][..],
            "--burn-in is a test of its own",
        ),
        (
            &["--burn-in", "--allow-write", "--suite"],
            "does not use --suite",
        ),
        (
            &["--burn-in", "--allow-write", "--read", "50"],
            "does not use --read",
        ),
        (
            &["--burn-in", "--allow-write", "--baseline", "b.json"],
            "does not use --baseline",
        ),
        (
            &["--capacity-probe", "--allow-write", "--passes", "3"],
            "--capacity-probe is a test of its own",
        ),
        (
            &[
                "--capacity-probe",
                "--allow-write",
                "--sweep",
                "threads=1,2",
            ],
            "does not use --sweep",
        ),
    ] {
        let mut all = vec!["data", "--no-tui"];
        all.extend_from_slice(args);
        let out = diskscope(dir.path(), &all);
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(e.contains(says), "{args:?}: {e}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing ran");
        assert_eq!(checksum(&file), before, "{args:?} wrote");
    }
}
