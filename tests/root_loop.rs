//! Root-only tests on real block devices (loop devices with direct I/O on): the op count
//! agrees with the kernel's, read-only runs change nothing, and writes go only where they
//! were asked for. Run with `cargo test -- --include-ignored` as root (.ci/run does).

mod common;

use std::process::Command;

use common::{LoopDev, Mounted, diskscope, json, stderr, workdir};
use diskscope::diskstats::parse_stat_file;

/// One test at a time: each compares a device's kernel counters with diskscope's counts, and
/// a test beside it (a mkfs and mount, a sync, a loop device attached) made the kernel write
/// back this test's dirty pages early (2,786 of 25,419 buffered writes reached the device in
/// one run, against the tenth the test allows).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn kernel_counters(dev: &LoopDev) -> diskscope::diskstats::DiskCounters {
    let text = std::fs::read_to_string(format!("/sys/block/{}/stat", dev.name())).unwrap();
    parse_stat_file(&text).expect("a parsable stat file")
}

fn kernel_reads(dev: &LoopDev) -> u64 {
    kernel_counters(dev).reads_completed
}

/// Buffered 4k random writes to `dev` for 2 s with `extra` flags: diskscope's completed writes
/// and fdatasyncs, and the writes the kernel completed on the device meanwhile.
fn buffered_writes(dir: &std::path::Path, dev: &LoopDev, extra: &[&str]) -> (u64, u64, u64) {
    let before = kernel_counters(dev).writes_completed;
    let allow = format!("--allow-write={}", dev.path);
    let mut args = vec![
        dev.path.as_str(),
        "--buffered",
        "--read",
        "0",
        &allow,
        "--no-tui",
        "--json",
        "-T",
        "2s",
    ];
    args.extend_from_slice(extra);
    let v = json(&diskscope(dir, &args));
    let after = kernel_counters(dev).writes_completed;
    let t = &v["total"];
    (
        t["write_ops"].as_u64().unwrap(),
        t["syncs"].as_u64().unwrap(),
        after - before,
    )
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn fsync_after_every_write_makes_every_write_reach_the_device() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let (plain_writes, plain_syncs, plain_kernel) = buffered_writes(dir.path(), &dev, &[]);
    let (writes, syncs, kernel) = buffered_writes(dir.path(), &dev, &["--fsync", "1"]);
    eprintln!(
        "plain: {plain_writes} writes, {plain_kernel} reached the device; \
         --fsync 1: {writes} writes, {syncs} syncs, {kernel} reached the device"
    );
    let saw = format!(
        "plain: {plain_writes} writes, {plain_syncs} syncs, {plain_kernel} on the device; \
         --fsync 1: {writes} writes, {syncs} syncs, {kernel} on the device"
    );
    assert_eq!(plain_syncs, 0, "{saw}");
    // Without syncs the page cache absorbs the writes: fewer reach the device in the run.
    // (Usually a tenth or less; but a sync anywhere on the machine, another test's mkfs or
    // mount, writes this device's dirty pages back early: 2,786 of 25,419 was seen.)
    assert!(plain_kernel * 2 < plain_writes, "{saw}");
    // With one, each write is on the device before the next one starts.
    assert_eq!(syncs, writes, "{saw}");
    assert!(kernel >= writes, "{saw}");
    // And that costs a round trip to the device per write. How much that is depends on the
    // device (3.4 times fewer writes on one CI machine, ten times here); a sync that did not
    // reach the device would cost nothing, and `kernel >= writes` above already catches it.
    assert!(writes < plain_writes, "syncing costs: {saw}");
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn op_count_matches_the_kernels_count_of_completed_reads() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    for threads in ["1", "4"] {
        let before = kernel_reads(&dev);
        let out = diskscope(
            dir.path(),
            &[&dev.path, "--no-tui", "--json", "-t", threads, "-T", "2s"],
        );
        let after = kernel_reads(&dev);
        let total = json(&out)["total"].clone();
        let app = total["ops"].as_u64().unwrap();
        let kernel = after - before;
        eprintln!("{threads} threads: app {app} ops, kernel {kernel} completed reads");
        assert!(app > 1000, "too few ops to compare: {total}");
        let diff = (kernel as f64 - app as f64).abs() / app as f64;
        assert!(
            diff < 0.01,
            "{threads} threads: app {app} ops, kernel {kernel} reads ({:.2}% apart); the total: \
             {total}",
            diff * 100.0
        );
    }
}

/// The requests per I/O the `queue_split` finding predicts (1 without one).
fn predicted_requests(run: &serde_json::Value) -> f64 {
    let findings = run["findings"].as_array().unwrap();
    let Some(text) = findings
        .iter()
        .find(|f| f["kind"] == "queue_split")
        .and_then(|f| f["text"].as_str())
    else {
        return 1.0;
    };
    let n = text
        .split("split into ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse::<f64>().ok());
    n.unwrap_or_else(|| panic!("no count in {text:?}"))
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn the_split_finding_predicts_the_kernels_own_requests_per_io() {
    // A loop device holds 128 segments of a request (max_segments) and 1280 KiB
    // (max_sectors_kb); diskscope's buffers are 4 KiB pages, each a segment: 512 KiB per
    // request binds before 1280 KiB. The kernel's count of completed reads per I/O is the
    // truth the finding must match, at sizes below, at and above each limit.
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let mut seen = Vec::new();
    for bs in ["256k", "512k", "1M", "1280k", "4M", "16M"] {
        let before = kernel_reads(&dev);
        let out = diskscope(
            dir.path(),
            &[&dev.path, "--no-tui", "--json", "-b", bs, "-T", "1s"],
        );
        let after = kernel_reads(&dev);
        let run = json(&out);
        let ops = run["total"]["ops"].as_u64().unwrap();
        let per_io = (after - before) as f64 / ops as f64;
        let predicted = predicted_requests(&run);
        seen.push(format!(
            "-b {bs}: {ops} ops, kernel {} reads = {per_io:.2} per I/O, predicted {predicted}",
            after - before
        ));
        assert!(ops >= 20, "too few ops to compare: {seen:?}");
        // The probe's few reads at open are the only others on the device.
        assert!(
            (per_io - predicted).abs() <= 0.05 * predicted + 0.1,
            "{}",
            seen.join("\n")
        );
    }
    eprintln!("{}", seen.join("\n"));
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn a_read_only_run_leaves_the_device_unchanged() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let before = dev.checksum();
    let out = diskscope(
        dir.path(),
        &[
            &dev.path, "--no-tui", "-q", "-t", "2", "-T", "1s", "--random", "50",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(dev.checksum(), before);
}

#[test]
#[ignore = "needs root: attaches a loop device and mounts it"]
fn writing_to_a_device_with_a_mounted_filesystem_is_refused() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 32 << 20, &[]);
    let mnt = Mounted::ext4(&dev.path, dir.path().join("mnt"));
    let before = dev.checksum();
    let allow = format!("--allow-write={}", dev.path);
    let out = diskscope(
        dir.path(),
        &[&dev.path, &allow, "--read", "0", "--no-tui", "-T", "1s"],
    );
    let after = dev.checksum();
    drop(mnt);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&dev.path) && err.contains("mounted on"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(after, before, "the mounted device was written to");
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn writes_go_only_to_a_device_named_in_allow_write() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let before = dev.checksum();

    // Not named, or another device named: refused as a bad argument (exit 2, as `--read 0`
    // without `--allow-write` is), alone or beside another target; nothing written.
    std::fs::write(dir.path().join("other.img"), vec![0u8; 1 << 20]).unwrap();
    for (allow, also) in [
        ("--allow-write".to_string(), None),
        ("--allow-write=/dev/loop-not-this-one".to_string(), None),
        ("--allow-write".to_string(), Some("other.img")),
    ] {
        let mut args = vec![
            dev.path.as_str(),
            &allow,
            "--read",
            "0",
            "--no-tui",
            "-T",
            "1s",
        ];
        args.extend(also);
        let out = diskscope(dir.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{allow} {also:?}: {}",
            stderr(&out)
        );
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("--allow-write={}", dev.path)),
            "{}",
            stderr(&out)
        );
        assert_eq!(dev.checksum(), before);
    }

    let allow = format!("--allow-write={}", dev.path);
    let out = diskscope(
        dir.path(),
        &[
            &dev.path, &allow, "--read", "0", "--no-tui", "--json", "-T", "1s",
        ],
    );
    assert!(json(&out)["total"]["write_ops"].as_u64().unwrap() > 0);
    assert_ne!(dev.checksum(), before, "the named device was not written");
}

#[test]
#[ignore = "needs root: attaches a loop device with 4096-byte sectors"]
fn block_size_must_be_a_multiple_of_the_logical_block_size() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &["--sector-size", "4096"]);
    let out = diskscope(
        dir.path(),
        &[&dev.path, "-b", "512", "--no-tui", "-T", "1s"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&dev.path) && err.contains("4096") && err.contains("512"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let ok = diskscope(
        dir.path(),
        &[&dev.path, "-b", "4k", "--no-tui", "-q", "-T", "1s"],
    );
    assert!(ok.status.success(), "{}", stderr(&ok));
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn a_loop_device_whose_backing_file_shrinks_gives_counted_failed_reads() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let file = dir.path().join("backing");
    let child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args([
            dev.path.as_str(),
            "--no-tui",
            "--json",
            "-t",
            "2",
            "-T",
            "2s",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(4 << 20)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    // The run finished, counted the failed reads, and says so in its exit status. With direct
    // I/O the loop driver fails reads past the backing file's new end with EIO (found by this
    // test; buffered reads there come back short instead).
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let total = &v["total"];
    let failed = total["errors"].as_u64().unwrap() + total["short_ios"].as_u64().unwrap();
    assert!(failed > 100, "{total}");
    // Failed reads are not ops: in every interval and in the totals, bytes are ops × bs and
    // there is one latency per op.
    for r in v["intervals"].as_array().unwrap().iter().chain([total]) {
        let ops = r["ops"].as_u64().unwrap();
        assert_eq!(r["bytes"].as_u64().unwrap(), ops * 4096, "{r}");
        assert_eq!(r["latency_ns"]["count"].as_u64().unwrap(), ops, "{r}");
    }
    // Reads inside the first 4 MiB went on succeeding after the shrink.
    let last = v["intervals"].as_array().unwrap().last().unwrap().clone();
    assert!(last["ops"].as_u64().unwrap() > 0, "{last}");
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 16, "the first 16 are kept");
    for e in errors {
        assert!(e["offset"].as_u64().unwrap() >= 4 << 20, "{e}");
        assert!(
            e["errno"] == 5 || e["message"].as_str().unwrap().starts_with("short read"),
            "{e}"
        );
    }
}
