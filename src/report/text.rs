//! Human-readable text: the one-line-per-second progress of a headless run and the final
//! summary (totals, latency percentiles, a per-thread table like seekmark's "thread N
//! completed" lines, and the first errors). Units adapt; interval and cumulative figures are
//! labelled as such.

use std::fmt::Write;

use super::rate::RateFigures;
use super::{ConfigReport, RunReport, SweepReport};
use crate::settings::Settings;
use crate::stats::{Counts, IntervalFigures, IoErrorRecord, LeftOut};
use crate::sweep::Dimension;
use crate::units::{format_block_size, format_bytes, format_count_rate, format_latency_ns};

/// "4k random read, 1 thread" — the settings as a phrase; with a queue deeper than 1, in the
/// way disk figures are quoted: "4k random read, QD32 T4".
pub fn describe_settings(s: &Settings) -> String {
    match s.rate_iops {
        0 => describe_load(s),
        r => format!(
            "{} at {} IOPS",
            describe_load(s),
            format_count_rate(r as f64)
        ),
    }
}

/// `describe_settings` without the rate.
fn describe_load(s: &Settings) -> String {
    let pattern = match s.random_pct {
        100 => "random".to_string(),
        0 => "sequential".to_string(),
        p => format!("{p}% random"),
    };
    let mix = match s.read_pct {
        100 => "read".to_string(),
        0 => "write".to_string(),
        p => format!("{p}% read / {}% write", 100 - p),
    };
    if s.iodepth > 1 {
        return format!(
            "{} {pattern} {mix}, QD{} T{}",
            format_block_size(s.bs),
            s.iodepth,
            s.threads
        );
    }
    let plural = if s.threads == 1 { "" } else { "s" };
    format!(
        "{} {pattern} {mix}, {} thread{plural}",
        format_block_size(s.bs),
        s.threads
    )
}

/// The header line printed when a run starts.
pub fn header(c: &ConfigReport) -> String {
    let span = match c.device_bytes {
        Some(dev) if dev != c.span_bytes => {
            format!(
                "span {} of {} device",
                format_bytes(c.span_bytes),
                format_bytes(dev)
            )
        }
        Some(_) => format!("span {} (whole device)", format_bytes(c.span_bytes)),
        None => format!(
            "span {} of {}",
            format_bytes(c.span_bytes),
            format_bytes(c.size_bytes)
        ),
    };
    let mode = if c.direct {
        "O_DIRECT"
    } else {
        "buffered (page cache)"
    };
    format!(
        "{}: {span}, {mode}, {}",
        c.target,
        describe_settings(&c.settings())
    )
}

/// Up to this many threads get a line each in the summary; more get one line of spread (the
/// JSON output always has every thread).
const MAX_THREAD_LINES: usize = 16;

/// One line on how evenly many threads shared the work: min / median / max IOPS.
fn thread_spread(threads: &[super::ThreadReport]) -> String {
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

/// One progress line: interval figures only, with the I/Os that are not in them beside.
pub fn interval_line(r: &IntervalFigures) -> String {
    format!(
        "{:>7.1}s  {:>8} IOPS  {:>10}/s  lat mean {:>9}  p99 {:>9}{}{}",
        r.t_s,
        format_count_rate(r.iops),
        format_bytes(r.bw_bytes_per_s as u64),
        r.latency_ns.show(|l| l.mean),
        r.latency_ns.show(|l| l.p99 as f64),
        not_ops(&r.counts, r.elapsed_s),
        RateFigures::window(r)
            .shortfall("doing", super::rate::cpus())
            .map(|s| format!("  [{s}]"))
            .unwrap_or_default()
            + &if r.left_out.is_empty() {
                String::new()
            } else {
                format!(
                    "  [stopped {:.1}s: {:.1}s left out]",
                    r.left_out.stopped.as_secs_f64(),
                    r.left_out.elapsed.as_secs_f64()
                )
            }
    )
}

/// "  + 1234 short/s, 5 failed/s (not in IOPS)" when any I/O was short, failed or spanned a
/// stop; empty otherwise.
fn not_ops(c: &Counts, elapsed_s: f64) -> String {
    if c.not_ops() == 0 {
        return String::new();
    }
    let rate = |n: u64| {
        if elapsed_s > 0.0 {
            format!("{}/s", format_count_rate(n as f64 / elapsed_s))
        } else {
            n.to_string()
        }
    };
    let mut parts = vec![];
    if c.short_ios > 0 {
        parts.push(format!("{} short", rate(c.short_ios)));
    }
    if c.errors > 0 {
        parts.push(format!("{} failed", rate(c.errors)));
    }
    if c.spanning_stop > 0 {
        parts.push(format!("{} across a stop", c.spanning_stop));
    }
    if c.after_switch > 0 {
        parts.push(format!(
            "{} finished after a settings change",
            c.after_switch
        ));
    }
    format!("  + {} (not in IOPS)", parts.join(", "))
}

/// "stopped 1× for 8.0s (SIGSTOP or Ctrl-Z, resumed by SIGCONT); …" — the stops of a run.
pub fn left_out_line(l: &LeftOut) -> String {
    format!(
        "stopped {}× for {:.1}s in all (SIGSTOP or Ctrl-Z, resumed by SIGCONT); {:.1}s of run with {} ops left out of rates and latency",
        l.stops,
        l.stopped.as_secs_f64(),
        l.elapsed.as_secs_f64(),
        l.counts.ops
    )
}

/// The final summary: cumulative figures of the whole run, after the `header` line unless it
/// was printed already.
pub fn summary(r: &RunReport, with_header: bool) -> String {
    let mut out = String::new();
    let t = &r.total;
    let l = &t.latency_ns;
    if with_header {
        let _ = writeln!(out, "{}", header(&r.config));
    } else {
        let _ = writeln!(out, "summary (cumulative):");
    }
    if let Some(sig) = &r.interrupted_by {
        let _ = writeln!(out, "  (stopped early by {sig})");
    }
    for w in &r.config.warnings {
        let _ = writeln!(out, "  warning: {w}");
    }
    if r.final_settings != r.config.settings() {
        let _ = writeln!(
            out,
            "settings at the end: {}",
            describe_settings(&r.final_settings)
        );
    }
    let _ = writeln!(
        out,
        "total over {:.1}s: {} ops, {:.0} IOPS, {}/s ({:.1} MB/s), {} transferred",
        t.elapsed_s,
        t.counts.ops,
        t.iops,
        format_bytes(t.bw_bytes_per_s as u64),
        t.bw_bytes_per_s / 1e6,
        format_bytes(t.counts.bytes)
    );
    if t.counts.read_ops > 0 && t.counts.write_ops > 0 {
        let _ = writeln!(
            out,
            "  reads {}  writes {}",
            t.counts.read_ops, t.counts.write_ops
        );
    }
    if !r.left_out.is_empty() {
        let _ = writeln!(out, "{}", left_out_line(&r.left_out));
    }
    if t.counts.syncs > 0 {
        let _ = writeln!(
            out,
            "  {} fdatasync calls (one every {} writes per thread), their time counted in the write latency",
            t.counts.syncs, r.config.durability.fsync_every
        );
    }
    // Only a run that kept one rate throughout compares its total with it.
    let rate = r.config.rate_iops;
    let threads = r.final_settings.threads;
    let figures = RateFigures::new(rate, t.iops, t.counts, t.elapsed_s, threads);
    if r.final_settings.rate_iops == rate
        && let Some(line) = figures.rate_line(super::rate::cpus())
    {
        let _ = writeln!(out, "rate: {line}");
    }
    let paced = rate > 0 || r.final_settings.rate_iops > 0;
    if l.count > 0 {
        let label = if paced {
            "latency from the scheduled time (coordinated omission corrected)"
        } else {
            "latency"
        };
        let _ = writeln!(out, "{label}: {}", latency_figures(l));
        if paced {
            let _ = writeln!(
                out,
                "service time, from submission: {}",
                latency_figures(&t.service_latency_ns)
            );
        }
    }
    if r.threads.len() > MAX_THREAD_LINES {
        let _ = writeln!(out, "{}", thread_spread(&r.threads));
    }
    for th in r
        .threads
        .iter()
        .take(if r.threads.len() > MAX_THREAD_LINES {
            0
        } else {
            MAX_THREAD_LINES
        })
    {
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
    let _ = writeln!(
        out,
        "not counted as ops: {} failed, {} short{}",
        t.counts.errors,
        t.counts.short_ios,
        [
            (t.counts.spanning_stop, "in flight across a stop"),
            (t.counts.after_switch, "finished after a settings change"),
            (t.counts.cancelled, "cancelled at the end"),
            (t.counts.unfinished, "in flight when the run ended")
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!(", {n} {what}"))
        .collect::<String>()
    );
    error_lines(&mut out, &r.errors);
    if let Some(w) = &r.writeback {
        writeback_lines(&mut out, w);
    }
    out
}

/// "min 12 µs  mean 40 µs  p50 …  max 3.1 ms".
fn latency_figures(l: &crate::stats::LatencySummary) -> String {
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

/// Where the written data was when the I/O ended, and the final sync.
fn writeback_lines(out: &mut String, w: &super::WritebackReport) {
    let target = w
        .target_pending_bytes
        .map(|b| format!("{} of the target", format_bytes(b)));
    let system = w
        .system_dirty_bytes
        .map(|b| format!("{} system-wide (all files)", format_bytes(b)));
    let known: Vec<String> = [target, system].into_iter().flatten().collect();
    if !known.is_empty() {
        let _ = writeln!(
            out,
            "written but not yet on the device when the I/O ended (dirty + writeback): {}",
            known.join("; ")
        );
    }
    match (&w.end_fsync_s, &w.end_fsync_error) {
        (Some(s), _) => {
            let _ = writeln!(
                out,
                "end fsync: {} to bring the target's pending writes to the device{}",
                format_latency_ns(s * 1e9),
                w.target_pending_bytes
                    .map(|b| format!(" ({} were pending)", format_bytes(b)))
                    .unwrap_or_default()
            );
        }
        (None, Some(e)) => {
            let _ = writeln!(out, "end fsync failed: {e}");
        }
        (None, None) => {}
    }
}

/// The kept failed or short I/Os, one line each with offset and errno.
fn error_lines(out: &mut String, errors: &[IoErrorRecord]) {
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

/// The sweep table's header, like iops(1)'s ladder; a rate sweep's shows the asked and the
/// achieved rate with the latency (from the due time) and the service time's p99.
pub fn step_header(d: Dimension) -> String {
    if d == Dimension::Rate {
        return format!(
            "{:>11} {:>10} {:>10} {:>10} {:>10} {:>12}",
            "asked IO/s", "IO/s", "MiB/s", "p50", "p99", "service p99"
        );
    }
    format!(
        "{:>11} {:>10} {:>10} {:>10} {:>10} {:>10}",
        d.name(),
        "IO/s",
        "MiB/s",
        "Mbit/s",
        "p50",
        "p99"
    )
}

/// One row of the sweep table.
pub fn step_line(d: Dimension, r: &IntervalFigures) -> String {
    let value = d.value(&r.settings);
    if d == Dimension::Rate {
        let asked = if value == 0 {
            "unlimited".to_string()
        } else {
            value.to_string()
        };
        let short = if RateFigures::window(r).fell_behind() {
            "  (saturated)"
        } else {
            ""
        };
        return format!(
            "{asked:>11} {:>10.0} {:>10.1} {:>10} {:>10} {:>12}{}{short}",
            r.iops,
            r.bw_bytes_per_s / (1 << 20) as f64,
            format_latency_ns(r.latency_ns.p50 as f64),
            format_latency_ns(r.latency_ns.p99 as f64),
            format_latency_ns(r.service_latency_ns.p99 as f64),
            not_ops(&r.counts, r.elapsed_s)
        );
    }
    let shown = match d {
        Dimension::Threads | Dimension::Iodepth | Dimension::Rate => value.to_string(),
        Dimension::Bs => format_block_size(value),
    };
    format!(
        "{shown:>11} {:>10.0} {:>10.1} {:>10.1} {:>10} {:>10}{}",
        r.iops,
        r.bw_bytes_per_s / (1 << 20) as f64,
        r.bw_bytes_per_s * 8.0 / 1e6,
        format_latency_ns(r.latency_ns.p50 as f64),
        format_latency_ns(r.latency_ns.p99 as f64),
        not_ops(&r.counts, r.elapsed_s)
    )
}

/// The end of a sweep: the step a stop cut short (with its figures), the saturation finding
/// and any errors (the table was printed step by step).
pub fn sweep_summary(r: &SweepReport) -> String {
    let mut out = String::new();
    if let Some(sig) = &r.interrupted_by {
        let of = r
            .partial_step
            .as_ref()
            .map(|p| format!(" of {}", p.of_steps))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "(stopped early by {sig} after {}{of} steps)",
            r.steps.len()
        );
    }
    if let Some(p) = &r.partial_step {
        let _ = writeln!(out, "{}", partial_step_line(r, p));
    }
    let finding = match (&r.saturation, &r.partial_step) {
        _ if r.latency_curve.is_some() => r
            .latency_curve
            .as_ref()
            .map_or_else(String::new, |c| c.summary.clone()),
        (None, _) if r.dimension == Dimension::Rate => {
            "no latency curve: no paced step did any I/O".to_string()
        }
        (Some(s), _) => s.summary.clone(),
        (None, Some(_)) if r.steps.is_empty() => {
            "no saturation finding: no step ran to the end".to_string()
        }
        (None, _) => "no saturation found: no step did any I/O".to_string(),
    };
    let _ = writeln!(out, "{finding}");
    // Stops inside measured steps, as a single run says them.
    let mut stops = LeftOut::default();
    let partial = r.partial_step.iter().map(|p| &p.figures);
    for figures in r.steps.iter().chain(partial) {
        stops.merge(&figures.left_out);
    }
    if stops.stops > 0 {
        let _ = writeln!(out, "{}", left_out_line(&stops));
    }
    error_lines(&mut out, &r.errors);
    out
}

/// "step 1 of 2 (1 thread) cut short after 1.5 s of 5.0 s measured: 1234 ops, …".
fn partial_step_line(r: &SweepReport, p: &crate::sweep::PartialStep) -> String {
    let f = &p.figures;
    let when = if p.ramp_only {
        format!(
            "during its {:.1} s ramp, after {:.1} s",
            crate::sweep::RAMP.as_secs_f64(),
            f.elapsed_s
        )
    } else {
        format!(
            "after {:.1} s of {:.1} s measured",
            f.elapsed_s, r.step_time_s
        )
    };
    let problems = if f.counts.errors + f.counts.short_ios > 0 {
        format!(", errors {} short {}", f.counts.errors, f.counts.short_ios)
    } else {
        String::new()
    };
    format!(
        "step {} of {} ({}) cut short {when}: {} ops, {} IOPS, {}/s, p50 {}, p99 {}{problems}",
        p.step + 1,
        p.of_steps,
        r.dimension.describe(r.dimension.value(&f.settings)),
        f.counts.ops,
        format_count_rate(f.iops),
        format_bytes(f.bw_bytes_per_s as u64),
        format_latency_ns(f.latency_ns.p50 as f64),
        format_latency_ns(f.latency_ns.p99 as f64),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_as_a_phrase() {
        let s = Settings {
            threads: 4,
            iodepth: 1,
            bs: 65536,
            read_pct: 70,
            random_pct: 0,
            rate_iops: 0,
        };
        assert_eq!(
            describe_settings(&s),
            "64k sequential 70% read / 30% write, 4 threads"
        );
        let deep = Settings {
            iodepth: 32,
            ..Settings::default()
        };
        assert_eq!(describe_settings(&deep), "4k random read, QD32 T1");
        assert_eq!(
            describe_settings(&Settings::default()),
            "4k random read, 1 thread"
        );
    }

    fn report(final_settings: Settings) -> RunReport {
        let config = ConfigReport::example();
        RunReport {
            config,
            total: super::super::TotalReport {
                elapsed_s: 1.0,
                counts: crate::stats::Counts::default(),
                iops: 0.0,
                bw_bytes_per_s: 0.0,
                latency_ns: crate::stats::LatencySummary::default(),
                service_latency_ns: crate::stats::LatencySummary::default(),
            },
            threads: vec![],
            intervals: vec![],
            final_settings,
            errors: vec![],
            left_out: LeftOut::default(),
            writeback: None,
            interrupted_by: None,
            cpu: None,
        }
    }

    #[test]
    fn summary_names_the_final_settings_only_when_they_changed() {
        let same = summary(&report(Settings::default()), true);
        assert!(!same.contains("settings at the end"), "{same}");
        let changed = summary(
            &report(Settings {
                threads: 8,
                ..Settings::default()
            }),
            true,
        );
        assert!(
            changed.contains("settings at the end: 4k random read, 8 threads"),
            "{changed}"
        );
    }
}

#[cfg(test)]
mod sweep_stop_tests {
    use std::time::Duration;

    use super::*;
    use crate::report::{ConfigReport, SweepReport};
    use crate::stats::Window;

    #[test]
    fn a_stop_inside_a_sweep_step_is_said_in_the_summary() {
        let mut step = Window::default().figures();
        step.left_out.stops = 1;
        step.left_out.stopped = Duration::from_millis(1500);
        let r = SweepReport {
            config: ConfigReport::example(),
            dimension: crate::sweep::Dimension::Threads,
            step_time_s: 2.0,
            steps: vec![step.clone(), step],
            saturation: None,
            latency_curve: None,
            partial_step: None,
            errors: vec![],
            interrupted_by: None,
        };
        let text = sweep_summary(&r);
        assert!(text.contains("stopped 2× for 3.0s"), "{text}");
    }
}
