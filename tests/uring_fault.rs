//! The io_uring worker's error paths, driven through the test seam (`DISKSCOPE_URING_FAULT`):
//! a submission or a wait that fails as the kernel fails it under memory pressure. Whatever
//! fails, every I/O issued is settled (an op, or counted apart) or counted `unfinished`, the
//! error names the real call, and the thread that fell back to pread/pwrite says so in the
//! JSON, the summary and the TUI's status line; a busy kernel (EAGAIN, EBUSY) is waited out,
//! not a failure.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::{json, workdir};
use diskscope::engine::ioengine;
use diskscope::engine::ring_fault::FAULT_ENV;

fn uring_allowed() -> bool {
    match ioengine::probe() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: io_uring refused here: {why}");
            false
        }
    }
}

/// A 64 MiB file, read O_DIRECT so requests really are in flight, at QD8 on 2 threads for
/// 2 s, with `faults`; text (the summary) or JSON.
///
/// The faults sit at a thread's N-th call, so a run must get that far to test anything: on a
/// disk shared with a build (one CI run did 320 reads in 2 s, 160 a thread) a JSON run whose
/// threads issued fewer than `REACH` requests is run again for 8 s.
fn run(faults: &str, json_out: bool, extra: &[&str]) -> Output {
    const REACH: u64 = 200;
    let out = run_for(faults, json_out, extra, "2s");
    if !json_out || extra.contains(&"-T") {
        return out;
    }
    let issued = |out: &Output| -> Option<u64> {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        v["threads"]
            .as_array()?
            .iter()
            .map(|t| t["issued"].as_u64())
            .min()?
    };
    match issued(&out) {
        Some(n) if n < REACH => {
            eprintln!("{n} requests on the slowest thread in 2 s: again for 8 s");
            run_for(faults, json_out, extra, "8s")
        }
        _ => out,
    }
}

fn run_for(faults: &str, json_out: bool, extra: &[&str], time: &str) -> Output {
    let dir = workdir();
    let path = dir.path().join("data");
    let mut f = std::fs::File::create(&path).unwrap();
    let block = vec![7u8; 1 << 20];
    for _ in 0..64 {
        f.write_all(&block).unwrap();
    }
    f.sync_all().unwrap();
    let mut args = vec!["data", "--ioengine", "io_uring", "-Q", "8", "-t", "2"];
    args.extend(extra);
    if !extra.contains(&"-T") {
        args.extend(["-T", time]);
    }
    args.push("--no-tui");
    if json_out {
        args.push("--json");
    }
    Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(&args)
        .current_dir(dir.path())
        .env(FAULT_ENV, faults)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn counts(v: &serde_json::Value) -> [u64; 8] {
    let t = &v["total"];
    let n = |k: &str| t[k].as_u64().unwrap_or_else(|| panic!("{k} in {t}"));
    [
        n("issued"),
        n("ops"),
        n("errors"),
        n("short_ios"),
        n("spanning_stop"),
        n("after_switch"),
        n("cancelled"),
        n("unfinished"),
    ]
}

/// Every I/O issued is an op or counted apart: nothing was left in flight uncounted.
fn assert_settled(v: &serde_json::Value) -> [u64; 8] {
    let c = counts(v);
    let [issued, rest @ ..] = c;
    assert_eq!(issued, rest.iter().sum::<u64>(), "issued vs settled: {c:?}");
    c
}

fn threads_fell_back(v: &serde_json::Value) -> Vec<bool> {
    let threads = v["threads"].as_array().expect("threads");
    threads.iter().map(|t| t["fell_back"] == true).collect()
}

#[test]
fn a_failed_submission_settles_what_was_in_flight_and_the_thread_says_it_fell_back() {
    if !uring_allowed() {
        return;
    }
    let out = run("submit@60=ENOMEM", true, &[]);
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{:?} {e}", out.status);
    assert!(!e.contains("panicked"), "{e}");
    let v = json(&out);
    let [_, ops, errors, .., unfinished] = assert_settled(&v);
    assert_eq!(threads_fell_back(&v), [true, true], "{}", v["threads"]);
    assert_eq!(errors, 0, "a ring's failure is not a failed I/O");
    assert_eq!(unfinished, 0, "the requests in flight were reaped");
    // Each thread had issued 59 when its ring failed: the rest went through pread/pwrite.
    assert!(ops > 2 * 60 + 16, "ran on with pread/pwrite: {ops}");
    let kept = v["errors"].as_array().unwrap();
    let ring: Vec<_> = kept
        .iter()
        .filter(|k| k["op"] == "io_uring_enter")
        .collect();
    assert_eq!(ring.len(), 2, "{kept:?}");
    for k in ring {
        assert_eq!(k["errno"], nix::libc::ENOMEM, "{k}");
        let m = k["message"].as_str().unwrap();
        assert!(
            m.contains("submitting") && m.contains("pread/pwrite"),
            "{m}"
        );
    }

    let out = run("submit@60=ENOMEM", false, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("io_uring failed in 2 of 2 threads (0, 1)") && text.contains("not QD8"),
        "{text}"
    );
}

#[test]
fn a_busy_kernel_is_waited_out_not_a_failure() {
    if !uring_allowed() {
        return;
    }
    let out = run(
        "submit@20=EAGAIN*5,submit@100=EBUSY*3,wait@60=EBUSY*2",
        true,
        &[],
    );
    let v = json(&out);
    let [_, ops, errors, ..] = assert_settled(&v);
    assert_eq!(threads_fell_back(&v), [false, false], "{}", v["errors"]);
    assert_eq!(errors, 0);
    assert!(ops > 0);
    // Each thread got past the last submission fault (the 100th to 102nd).
    for t in v["threads"].as_array().unwrap() {
        assert!(
            t["issued"].as_u64().unwrap() > 102,
            "every fault was met: {t}"
        );
    }
    assert_eq!(
        v["errors"].as_array().map_or(0, Vec::len),
        0,
        "{}",
        v["errors"]
    );

    // A kernel that stays busy (each retry a millisecond or a completion apart) is a failure
    // after 2 s, and the ring's requests are settled as for any other.
    let out = run("submit@20=EAGAIN*", true, &["-T", "4s"]);
    let v = json(&out);
    let [.., unfinished] = assert_settled(&v);
    assert_eq!(unfinished, 0);
    assert_eq!(threads_fell_back(&v), [true, true], "{}", v["errors"]);
    let kept = v["errors"].as_array().unwrap();
    assert!(
        kept.iter().all(|k| k["errno"] == nix::libc::EAGAIN),
        "{kept:?}"
    );
}

#[test]
fn a_ring_that_cannot_be_reaped_is_kept_and_what_it_holds_counted_unfinished() {
    if !uring_allowed() {
        return;
    }
    // The 50th wait fails, and what the ring holds then never shows as completed: the
    // worker keeps ring and buffers for good and goes on with new ones.
    let spec = "wait@50=EIO,hold@1=ETIME*";
    let out = run(
        spec,
        true,
        &["--fsync", "4", "--read", "0", "--allow-write"],
    );
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{:?} {e}", out.status);
    let v = json(&out);
    let [_, ops, _, .., unfinished] = assert_settled(&v);
    assert_eq!(threads_fell_back(&v), [true, true]);
    assert!(
        (1..=16).contains(&unfinished),
        "at most QD8 on each thread: {unfinished}"
    );
    assert!(ops > 100, "ran on with pread/pwrite: {ops}");
    let kept = v["errors"].as_array().unwrap();
    assert!(
        kept.iter().any(|k| k["op"] == "io_uring_enter"
            && k["message"]
                .as_str()
                .unwrap()
                .contains("waiting for completions")),
        "{kept:?}"
    );
}

#[test]
fn a_cancellation_that_fails_at_the_end_still_reaps_everything() {
    if !uring_allowed() {
        return;
    }
    let out = run("cancel@1=EINVAL*", true, &[]);
    let v = json(&out);
    let [.., unfinished] = assert_settled(&v);
    assert_eq!(unfinished, 0);
    assert_eq!(threads_fell_back(&v), [false, false], "it only stopped");
}
