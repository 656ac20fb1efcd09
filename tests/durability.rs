//! Buffered writes against the real binary: the run says plainly that they measure the page
//! cache, `--fsync N` syncs every N writes per thread (and costs what a sync costs),
//! `--end-fsync` is timed and reported, and the written data still pending is shown.

mod common;

use common::{diskscope, json, make_file, workdir};

/// A buffered write run on a fresh 32 MiB file, with `extra` flags; its JSON.
fn write_run(extra: &[&str]) -> serde_json::Value {
    let dir = workdir();
    let file = dir.path().join("target");
    make_file(&file, 32 << 20);
    let mut args = vec![
        file.to_str().unwrap(),
        "--buffered",
        "--read",
        "0",
        "--allow-write",
        "--no-tui",
        "--json",
        "-T",
        "1s",
    ];
    args.extend_from_slice(extra);
    json(&diskscope(dir.path(), &args))
}

fn warnings(v: &serde_json::Value) -> Vec<String> {
    v["config"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn buffered_writes_without_fsync_warn_that_they_measure_the_page_cache() {
    let v = write_run(&[]);
    let w = warnings(&v);
    assert!(
        w.iter()
            .any(|w| w.starts_with("buffered writes go to the page cache") && w.contains("--fsync")),
        "{w:?}"
    );
    assert_eq!(v["config"]["fsync_every"], 0);
    assert_eq!(v["config"]["end_fsync"], false);
    assert_eq!(v["total"]["syncs"], 0);
    // What was written but not yet on the device is shown, system-wide at least.
    let wb = &v["writeback"];
    assert!(wb["system_dirty_bytes"].as_u64().is_some(), "{wb}");
    assert!(wb["end_fsync_s"].is_null(), "{wb}");
    // The cached share is of the start, not "now", in a summary printed at the end.
    assert!(w.iter().all(|w| !w.contains("cached now")), "{w:?}");
}

#[test]
fn fsync_every_write_syncs_each_one_and_costs_what_a_sync_costs() {
    let plain = write_run(&[]);
    let synced = write_run(&["--fsync", "1"]);
    assert_eq!(synced["config"]["fsync_every"], 1);
    assert!(
        !warnings(&synced)
            .iter()
            .any(|w| w.starts_with("buffered writes go to the page cache"))
    );
    let t = &synced["total"];
    let writes = t["write_ops"].as_u64().unwrap();
    assert!(writes > 10, "{t}");
    // One fdatasync per completed write; each write's latency includes its sync.
    assert_eq!(t["syncs"].as_u64().unwrap(), writes, "{t}");
    let (p, s) = (
        plain["total"]["iops"].as_f64().unwrap(),
        synced["total"]["iops"].as_f64().unwrap(),
    );
    eprintln!("buffered writes: {p:.0} IOPS plain, {s:.0} IOPS with --fsync 1");
    assert!(
        s * 3.0 < p,
        "a sync per write must cost: {s:.0} vs {p:.0} IOPS"
    );
}

#[test]
fn end_fsync_is_timed_and_reported() {
    let v = write_run(&["--end-fsync"]);
    assert_eq!(v["config"]["end_fsync"], true);
    let wb = &v["writeback"];
    let sync_s = wb["end_fsync_s"].as_f64().expect("end fsync time");
    assert!(sync_s > 0.0, "{wb}");
    // The text summary says it too.
    let dir = workdir();
    let file = dir.path().join("target");
    make_file(&file, 8 << 20);
    let out = diskscope(
        dir.path(),
        &[
            file.to_str().unwrap(),
            "--buffered",
            "--read",
            "50",
            "--allow-write",
            "--no-tui",
            "-T",
            "1s",
            "--end-fsync",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("end fsync: "), "{text}");
    assert!(
        text.contains("to bring the target's pending writes to the device"),
        "{text}"
    );
    assert!(text.contains("not yet on the device"), "{text}");
}

#[test]
fn fsync_flags_without_writes_say_they_do_nothing() {
    let dir = workdir();
    let file = dir.path().join("target");
    make_file(&file, 8 << 20);
    let out = diskscope(
        dir.path(),
        &[
            file.to_str().unwrap(),
            "--no-tui",
            "--json",
            "-T",
            "1s",
            "--fsync",
            "4",
        ],
    );
    let v = json(&out);
    assert!(
        warnings(&v)
            .iter()
            .any(|w| w.contains("--fsync and --end-fsync do nothing here")),
        "{v}"
    );
    assert!(v["writeback"].is_null());
}
