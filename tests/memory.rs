//! The memory bound against what a run really holds: what the peak resident set (VmHWM) of
//! the real binary, polled from /proc while it runs, grows by from one thread at depth 1 to
//! many threads with many slots must stay under what `memory::Need` counts for the same growth
//! (the figure a refusal names), and not far under it — the bound is a count, not a guess.
//! (Growth, not the whole: this test runs the debug binary, whose own pages are not the
//! release binary's that `Need`'s base was measured with, and the latency histograms grow
//! with the latencies seen.)
//! The kernel's share (slab, kernel stacks) is in `Need` too but measured apart in
//! `engine/memory.rs`'s notes: it is system-wide in /proc/meminfo, too noisy for a test on a
//! shared machine.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::workdir;
use diskscope::engine::memory::Need;

/// The most the bound's resident part may exceed what was measured: its rounding up (56 KiB
/// a thread for 40-50 measured, 256 bytes a slot for 58-144).
const MOST_OVER: f64 = 1.5;

/// Latency histograms alive at once in the process: the sampler's four (latency and service
/// time, interval and total), the snapshots on their way and the report's windows.
const HISTOGRAMS: u64 = 10;
/// What an HdrHistogram of 3 significant digits grows by per doubling of its largest value:
/// 1,024 counters of 8 bytes.
const PER_DOUBLING: u64 = 8 << 10;

/// Peak VmHWM (bytes) of a 2 s run with `args` on a 64 MiB scratch file laid out before (the
/// layout's own buffer is not the run's), and the run's largest latency (ns).
fn peak_rss(args: &[String]) -> (u64, u64) {
    let dir = workdir();
    let layout = common::diskscope(dir.path(), &["--size", "64M", "--keep", "-T", "1s", "-q"]);
    assert!(layout.status.success(), "{}", common::stderr(&layout));
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["--size", "64M", "--keep", "--no-tui", "--json", "-T", "2s"])
        .args(args)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("diskscope starts");
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    while child.try_wait().expect("waitable").is_none() {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak_kib = peak_kib.max(hwm.unwrap_or(0));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let v = common::json(&child.wait_with_output().unwrap());
    let max_ns = v["total"]["latency_ns"]["max"]
        .as_u64()
        .expect("a latency max");
    (peak_kib * 1024, max_ns)
}

/// Compares what a run of `threads × depth × bs` holds beyond one thread at depth 1 with what
/// the bound counts for the difference. Latency histograms grow with the largest latency seen
/// (a deep queue's latencies are longer), which `Need` holds room for in its base; the growth
/// between the two runs' largest latencies is taken out of the measure.
fn check(threads: usize, depth: usize, bs: u64, extra: &[&str]) {
    if depth > 1 && diskscope::engine::ioengine::probe().is_err() {
        eprintln!("skipped depth {depth}: io_uring refused here");
        return;
    }
    let with = |args: &[&str]| -> Vec<String> {
        args.iter().chain(extra).map(|a| a.to_string()).collect()
    };
    let (t, q, b) = (threads.to_string(), depth.to_string(), bs.to_string());
    let (base, base_max) = peak_rss(&with(&["-t", "1", "-Q", "1", "-b", &b]));
    let (peak, max) = peak_rss(&with(&["-t", &t, "-Q", &q, "-b", &b]));
    let doublings = u64::from(max.max(1).ilog2().saturating_sub(base_max.max(1).ilog2()));
    let histograms = HISTOGRAMS * PER_DOUBLING * doublings;
    let grown = peak.saturating_sub(base).saturating_sub(histograms);
    let need = Need::of(threads, depth, bs, false);
    let one = Need::of(1, 1, bs, false);
    let counted = need.buffers + need.user - one.buffers - one.user;
    let ratio = counted as f64 / grown.max(1) as f64;
    eprintln!(
        "-t {threads} -Q {depth} -b {bs}: peak RSS {} KiB above one thread at depth 1 \
         ({} KiB of it histograms, {doublings} doublings of the largest latency, taken out); \
         the bound counts {} KiB more ({} of buffers): {ratio:.2}x",
        peak.saturating_sub(base) >> 10,
        histograms >> 10,
        counted >> 10,
        need.buffers >> 10
    );
    assert!(
        grown <= counted,
        "-t {threads} -Q {depth} -b {bs}: the run held {grown} bytes more, the bound counted {counted}"
    );
    assert!(
        ratio <= MOST_OVER,
        "-t {threads} -Q {depth} -b {bs}: the bound counted {ratio:.2}x what the run held"
    );
}

#[test]
fn the_bound_counts_what_a_run_of_small_blocks_holds() {
    // 4096 slots of 4 KiB: where one allocation per buffer cost twice the count.
    check(64, 64, 4096, &[]);
}

#[test]
fn the_bound_counts_what_a_run_of_large_blocks_holds() {
    check(4, 8, 1 << 20, &["--buffered"]);
}
