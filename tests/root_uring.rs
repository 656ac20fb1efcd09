//! Root-only io_uring tests on loop devices with direct I/O: the queue depth reaches the
//! device (the kernel's average queue size rises with it), the op count agrees with the
//! kernel's at depth 32, `--fsync` syncs agree with the device's flush counter (every one
//! reaches it with psync; at depth they overlap in the ring and the kernel merges them), and
//! `kernel.io_uring_disabled=2` (restored by a guard) makes a run fall back to psync saying
//! why, and `--ioengine io_uring` fail saying why.

mod common;

use std::path::Path;

use common::{LoopDev, diskscope, json, stderr, workdir};
use diskscope::diskstats::{DiskCounters, parse_stat_file};

fn counters(dev: &LoopDev) -> DiskCounters {
    let text = std::fs::read_to_string(format!("/sys/block/{}/stat", dev.name())).unwrap();
    parse_stat_file(&text).expect("a parsable stat file")
}

/// A 2 s run of 4k random reads at `depth`: diskscope's ops, the kernel's completed reads,
/// and the kernel's average queue size (time in queue over elapsed time).
fn run_at(dir: &Path, dev: &LoopDev, depth: &str) -> (u64, u64, f64) {
    let before = counters(dev);
    let t0 = std::time::Instant::now();
    let args = [&dev.path, "--no-tui", "--json", "-Q", depth, "-T", "2s"];
    let v = json(&diskscope(dir, &args));
    let elapsed_ms = t0.elapsed().as_millis() as f64;
    let after = counters(dev);
    assert_eq!(v["config"]["ioengine"], "io_uring", "{v}");
    let queue = (after.time_in_queue_ms - before.time_in_queue_ms) as f64 / elapsed_ms;
    (
        v["total"]["ops"].as_u64().unwrap(),
        after.reads_completed - before.reads_completed,
        queue,
    )
}

/// The sysctl test must not run while another test of this file wants io_uring.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn uring_allowed() -> bool {
    match diskscope::engine::ioengine::probe() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: io_uring refused here: {why}");
            false
        }
    }
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn depth_reaches_the_device_and_ops_match_the_kernels_count() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !uring_allowed() {
        return;
    }
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 256 << 20, &[]);
    let (_, _, q1) = run_at(dir.path(), &dev, "1");
    let (ops, kernel, q32) = run_at(dir.path(), &dev, "32");
    eprintln!("average queue: {q1:.2} at QD1, {q32:.2} at QD32; QD32 {ops} ops, kernel {kernel}");
    assert!(q1 < 1.5, "QD1 kept {q1:.2} in the device queue");
    assert!(
        q32 > 4.0 * q1.max(1.0),
        "QD32 queue {q32:.2} vs QD1 {q1:.2}"
    );
    assert!(ops > 1000, "too few ops to compare: {ops}");
    let diff = (kernel as f64 - ops as f64).abs() / ops as f64;
    assert!(
        diff < 0.01,
        "QD32: app {ops} ops, kernel {kernel} reads ({:.2}% apart)",
        diff * 100.0
    );
}

/// A 2 s run of 4k random writes with `--fsync 1` and `extra` (engine, depth): diskscope's
/// JSON totals, and the device's completed writes and flushes over the run.
fn sync_run(dir: &Path, dev: &LoopDev, extra: &[&str]) -> (serde_json::Value, u64, u64) {
    let before = counters(dev);
    let allow = format!("--allow-write={}", dev.path);
    let mut args = vec![&*dev.path, "--no-tui", "--json", "-T", "2s", "--read", "0"];
    args.extend(["--fsync", "1", &allow]);
    args.extend(extra);
    let v = json(&diskscope(dir, &args));
    let after = counters(dev);
    let flushes = after
        .flushes_completed
        .expect("flush counters (Linux 5.5+)")
        - before.flushes_completed.expect("flush counters");
    (
        v["total"].clone(),
        after.writes_completed - before.writes_completed,
        flushes,
    )
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn syncs_agree_with_the_devices_flushes_and_overlap_at_depth() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 256 << 20, &[]);
    let u = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k}: {v}"));

    // psync, one thread: each write, then its fdatasync, which reaches the device alone.
    let (t, writes, flushes) = sync_run(dir.path(), &dev, &["--ioengine", "psync"]);
    eprintln!(
        "psync: {} ops, {} syncs; device {writes} writes, {flushes} flushes",
        u(&t, "ops"),
        u(&t, "syncs")
    );
    assert!(u(&t, "ops") > 50, "{t}");
    assert_eq!(u(&t, "syncs"), u(&t, "ops"), "--fsync 1: a sync per write");
    assert!(
        flushes.abs_diff(u(&t, "syncs")) <= 2,
        "psync: {} syncs, device flushes {flushes}",
        u(&t, "syncs")
    );
    assert_eq!(
        writes,
        u(&t, "ops") + u(&t, "syncs"),
        "a data write and an empty PREFLUSH write per op"
    );
    if !uring_allowed() {
        return;
    }
    // io_uring at depth 8: a sync per write still, each linked after its write, so the
    // device saw every write counted; the syncs overlap and the kernel merges them.
    let (t, writes, flushes) = sync_run(dir.path(), &dev, &["-Q", "8"]);
    let (ops, syncs) = (u(&t, "ops"), u(&t, "syncs"));
    eprintln!("QD8: {ops} ops, {syncs} syncs; device {writes} writes, {flushes} flushes");
    assert!(ops > 100, "{t}");
    assert_eq!(syncs, ops, "--fsync 1 at depth: a sync per write counted");
    // Each sync reaches the device as an empty write flagged PREFLUSH, counted among its
    // writes, before the flush machinery merges the flushes themselves.
    let data_writes = writes - syncs;
    assert!(
        data_writes >= ops && data_writes <= ops + t["cancelled"].as_u64().unwrap_or(0) + 8,
        "device {writes} writes ({syncs} of them a sync's) for {ops} ops"
    );
    assert!(
        flushes > 0 && flushes <= syncs,
        "{flushes} flushes for {syncs} syncs"
    );
    assert!(
        (flushes as f64) < 0.95 * syncs as f64,
        "at depth 8 the syncs overlap and merge: {flushes} device flushes for {syncs} syncs"
    );
}

const SYSCTL: &str = "/proc/sys/kernel/io_uring_disabled";

/// Sets `kernel.io_uring_disabled` and puts the old value back on drop.
struct SysctlGuard(String);

impl SysctlGuard {
    fn set(value: &str) -> Option<SysctlGuard> {
        let old = std::fs::read_to_string(SYSCTL).ok()?;
        std::fs::write(SYSCTL, value).ok()?;
        Some(SysctlGuard(old.trim().to_string()))
    }
}

impl Drop for SysctlGuard {
    fn drop(&mut self) {
        std::fs::write(SYSCTL, &self.0).expect("kernel.io_uring_disabled restored");
    }
}

#[test]
#[ignore = "needs root: sets kernel.io_uring_disabled=2 for a moment"]
fn io_uring_disabled_by_sysctl_falls_back_to_psync_or_fails_when_insisted_on() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = workdir();
    common::make_file(&dir.path().join("data"), 4 << 20);
    let Some(_guard) = SysctlGuard::set("2") else {
        eprintln!("skipped: no {SYSCTL} (Linux before 6.6) or it cannot be written");
        return;
    };
    let args = [
        "data",
        "--buffered",
        "-Q",
        "16",
        "-T",
        "1s",
        "--no-tui",
        "--json",
    ];
    let v = json(&diskscope(dir.path(), &args));
    assert_eq!(v["config"]["ioengine"], "psync");
    assert_eq!(v["config"]["iodepth"], 1);
    let why = v["config"]["ioengine_fallback"].as_str().unwrap();
    assert!(
        why.contains("io_uring_disabled=2") && why.contains("EPERM"),
        "{why}"
    );

    let out = diskscope(
        dir.path(),
        &["data", "--ioengine", "io_uring", "-T", "1s", "--no-tui"],
    );
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("io_uring_disabled=2"), "{e}");
}
