//! The summary's details below its totals: a line per thread and the first errors, each
//! with its offset and errno.

use std::fmt::Write;

use crate::model::ThreadReport;
use crate::stats::IoErrorRecord;
use crate::units::format_latency_ns;

/// A line per thread, or one line of spread when there are many.
pub(super) fn thread_lines(out: &mut String, threads: &[ThreadReport]) {
    if threads.len() > MAX_THREAD_LINES {
        let _ = writeln!(out, "{}", thread_spread(threads));
        return;
    }
    for th in threads {
        let _ = writeln!(
            out,
            "  thread {:>3}: {:>10} ops in {:>6.1}s, {:>9.0} IOPS, mean {}{}",
            th.id,
            th.counts.ops,
            th.elapsed_s,
            th.iops,
            crate::stats::latency::show_mean_ns(th.latency_mean_ns, th.counts.ops),
            if th.counts.errors + th.counts.short_ios > 0 {
                format!(
                    ", {} errors, {} short",
                    th.counts.errors, th.counts.short_ios
                )
            } else {
                String::new()
            }
        );
    }
}

/// "min 12 µs  mean 40 µs  p50 …  max 3.1 ms".
pub(super) fn latency_figures(l: &crate::stats::LatencySummary) -> String {
    let f = |v: u64| format_latency_ns(v as f64);
    format!(
        "min {}  mean {}  p50 {}  p90 {}  p99 {}  p99.9 {}  max {}",
        f(l.min),
        format_latency_ns(l.mean),
        f(l.p50),
        f(l.p90),
        f(l.p99),
        f(l.p999),
        f(l.max)
    )
}

/// The kept failed or short I/Os, one line each with offset and errno.
pub(super) fn error_lines(out: &mut String, errors: &[IoErrorRecord]) {
    for e in errors {
        let errno = e
            .errno
            .map(|n| format!(" (errno {n}, {:?})", nix::errno::Errno::from_raw(n)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  thread {} {} at offset {}: {}{errno}",
            e.thread, e.op, e.offset, e.message
        );
    }
}

/// Up to this many threads get a line each in the summary; more get one line of spread (the
/// JSON output always has every thread).
const MAX_THREAD_LINES: usize = 16;

/// One line on how evenly many threads shared the work: min / median / max IOPS.
fn thread_spread(threads: &[ThreadReport]) -> String {
    let mut iops: Vec<f64> = threads.iter().map(|t| t.iops).collect();
    iops.sort_by(f64::total_cmp);
    // A thread that completed nothing has no mean latency (not 0 ns).
    let mut lat: Vec<f64> = threads
        .iter()
        .filter(|t| t.counts.ops > 0)
        .map(|t| t.latency_mean_ns)
        .collect();
    lat.sort_by(f64::total_cmp);
    let (n, mid) = (iops.len(), iops.len() / 2);
    let idle = n - lat.len();
    let latency = match lat.len() {
        0 => "no thread completed an I/O".to_string(),
        m => format!(
            "mean latency per thread {} / {} / {}{}",
            format_latency_ns(lat[0]),
            format_latency_ns(lat[m / 2]),
            format_latency_ns(lat[m - 1]),
            if idle > 0 {
                format!(" ({idle} completed none)")
            } else {
                String::new()
            }
        ),
    };
    format!(
        "  {n} threads: IOPS per thread min {:.0} / median {:.0} / max {:.0}; {latency} (every thread in --json)",
        iops[0],
        iops[mid],
        iops[n - 1],
    )
}
