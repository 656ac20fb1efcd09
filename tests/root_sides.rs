//! Root-only: reads and writes apart, against the kernel. On a loop device at `--read 70`,
//! the report's read ops are the kernel's completed reads (its one O_DIRECT probe read at
//! open aside) and its write ops the kernel's completed writes; each direction's latency
//! histogram holds exactly its ops; and the two sides add up to the totals, in the run's
//! totals, its periods and its one-second rows. Run with `cargo test -- --include-ignored`
//! as root (.ci/run does).

mod common;

use common::{LoopDev, diskscope, json, workdir};
use diskscope::diskstats::{DiskCounters, parse_stat_file};
use serde_json::Value;

fn counters(dev: &LoopDev) -> DiskCounters {
    let text = std::fs::read_to_string(format!("/sys/block/{}/stat", dev.name())).unwrap();
    parse_stat_file(&text).expect("a parsable stat file")
}

fn u(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("no {key} in {v}"))
}

/// `read` + `write` of `v` (a total, a period or a row) are its totals, and each side's
/// latency count is its ops.
fn sides_add_up(what: &str, v: &Value) {
    let (r, w) = (&v["read"], &v["write"]);
    assert!(
        r.is_object() && w.is_object(),
        "{what}: no read/write in {v}"
    );
    assert_eq!(u(r, "ops") + u(w, "ops"), u(v, "ops"), "{what}: ops in {v}");
    assert_eq!(
        u(r, "bytes") + u(w, "bytes"),
        u(v, "bytes"),
        "{what}: bytes in {v}"
    );
    assert_eq!(u(r, "ops"), u(v, "read_ops"), "{what}: {v}");
    assert_eq!(u(w, "ops"), u(v, "write_ops"), "{what}: {v}");
    for side in [r, w] {
        assert_eq!(
            u(&side["latency_ns"], "count"),
            u(side, "ops"),
            "{what}: a side's histogram holds other I/Os than its ops: {side}"
        );
    }
    assert_eq!(
        u(&r["latency_ns"], "count") + u(&w["latency_ns"], "count"),
        u(&v["latency_ns"], "count"),
        "{what}: {v}"
    );
}

#[test]
#[ignore = "needs root: attaches a loop device and writes to it"]
fn read_and_write_ops_are_the_kernels_reads_and_writes() {
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let before = counters(&dev);
    let allow = format!("--allow-write={}", dev.path);
    let out = diskscope(
        dir.path(),
        &[
            &dev.path, "--read", "70", &allow, "--no-tui", "--json", "-T", "2s", "-t", "2",
        ],
    );
    let after = counters(&dev);
    let v = json(&out);
    let t = &v["total"];
    let (reads, writes) = (u(&t["read"], "ops"), u(&t["write"], "ops"));
    let kernel_reads = (after.reads_completed + after.reads_merged)
        - (before.reads_completed + before.reads_merged);
    let kernel_writes = (after.writes_completed + after.writes_merged)
        - (before.writes_completed + before.writes_merged);
    eprintln!(
        "reads: app {reads}, kernel {kernel_reads} (probe included); \
         writes: app {writes}, kernel {kernel_writes}"
    );
    // The counts must agree exactly whatever the rate (a loaded machine's loop device may do
    // only a few hundred I/Os a second).
    assert!(
        reads > 50 && writes > 20,
        "too few to compare: {reads}/{writes}"
    );
    // The one O_DIRECT probe read at open is the kernel's, not a measured op.
    assert!(
        kernel_reads.abs_diff(reads + 1) <= 1,
        "reads: app {reads}, kernel {kernel_reads}; total: {t}"
    );
    assert!(
        kernel_writes.abs_diff(writes) <= 1,
        "writes: app {writes}, kernel {kernel_writes}; total: {t}"
    );
    // About 70 % reads: the mix the run asked for (within four standard deviations of a
    // binomial draw of this many I/Os).
    let n = (reads + writes) as f64;
    let share = reads as f64 / n;
    let room = 4.0 * (0.7 * 0.3 / n).sqrt();
    assert!(
        (share - 0.7).abs() <= room,
        "read share {share:.3} of {n} I/Os"
    );
    sides_add_up("total", t);
    for p in v["periods"].as_array().expect("periods") {
        sides_add_up("period", p);
    }
    let rows = v["intervals"].as_array().expect("intervals");
    assert!(!rows.is_empty());
    for r in rows {
        sides_add_up("one-second row", r);
    }
}
