//! Human-readable text: the one-line-per-second progress of a headless run and the final
//! summary (the periods when the settings changed — `periods` draws their table — then the
//! totals, latency percentiles, a per-thread table like seekmark's "thread N completed"
//! lines, and the first errors). Units adapt; interval and cumulative figures are
//! labelled as such.

pub(super) use super::details::error_lines;
use super::details::{latency_figures, thread_lines};
use std::fmt::Write;

use super::rate::RateFigures;
use crate::model::{ConfigReport, RunReport};
use crate::settings::Settings;
use crate::stats::{Counts, IntervalFigures, LeftOut};
use crate::units::{format_block_size, format_bytes, format_count_rate};

/// "4k random read, 1 thread" — the settings as a phrase; with a queue deeper than 1, in the
/// way disk figures are quoted: "4k random read, QD32 T4".
pub fn describe_settings(s: &Settings) -> String {
    let polled = if s.hipri { ", polled" } else { "" };
    match s.rate_iops {
        0 => format!("{}{polled}", describe_load(s)),
        r => format!(
            "{}{polled} at {} IOPS",
            describe_load(s),
            format_count_rate(r as f64)
        ),
    }
}

/// The I/O mix as admins quote it: "read", "write", "70% read" (`long`: "70% read / 30%
/// write"); with trims, each direction's share of all I/Os ("trim", "35% read / 35% write /
/// 30% trim": `--read` splits what the trims leave).
pub fn mix_words(s: &Settings, long: bool) -> String {
    let t = u32::from(s.trim_pct.min(100));
    let r = (f64::from(s.read_pct.min(100)) * f64::from(100 - t) / 100.0).round() as u32;
    let w = 100 - t - r;
    match (t, s.read_pct) {
        (0, 100) => "read".into(),
        (0, 0) => "write".into(),
        (0, p) if long => format!("{p}% read / {}% write", 100 - p),
        (0, p) => format!("{p}% read"),
        (100, _) => "trim".into(),
        (t, 100) => format!("{r}% read / {t}% trim"),
        (t, 0) => format!("{w}% write / {t}% trim"),
        (t, _) => format!("{r}% read / {w}% write / {t}% trim"),
    }
}

/// `describe_settings` without the rate.
fn describe_load(s: &Settings) -> String {
    let skew = match s.random_distribution {
        d if d.is_skewed() => format!(" ({})", d.label()),
        _ => String::new(),
    };
    let pattern = match s.random_pct {
        100 => format!("random{skew}"),
        0 => "sequential".to_string(),
        p => format!("{p}% random{skew}"),
    };
    let mix = mix_words(s, true);
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
    let span = match c.target.device_bytes {
        Some(dev) if dev != c.target.span_bytes => {
            format!(
                "span {} of {} device",
                format_bytes(c.target.span_bytes),
                format_bytes(dev)
            )
        }
        Some(_) => format!("span {} (whole device)", format_bytes(c.target.span_bytes)),
        None => format!(
            "span {} of {}",
            format_bytes(c.target.span_bytes),
            format_bytes(c.target.size_bytes)
        ),
    };
    let mode = if c.target.direct {
        "O_DIRECT"
    } else {
        "buffered (page cache)"
    };
    format!(
        "{}: {span}, {mode}, {}",
        crate::units::visible(&c.target.path),
        describe_settings(&c.settings)
    )
}

/// One progress line: interval figures only, with the I/Os that are not in them beside.
/// A second that both read and wrote shows each direction's IOPS and p99 where the others
/// show the mean and p99 of all: a write's p99 is not a read's (within 80 columns).
pub fn interval_line(r: &IntervalFigures) -> String {
    let latency = match &r.sides {
        Some(rw) => {
            let side = |name: &str, s: &crate::stats::sides::Side| {
                format!(
                    "{name} {:>5} p99 {:>7}",
                    format_count_rate(s.iops),
                    s.latency_ns.show(|l| l.p99 as f64)
                )
            };
            // Each direction that ran: r and w, t for trims (three run past 80 columns).
            let ran = rw.both().into_iter().filter(|(_, s)| s.ops > 0);
            let parts: Vec<String> = ran.map(|(name, s)| side(&name[..1], s)).collect();
            parts.join("  ")
        }
        None => format!(
            "lat mean {:>9}  p99 {:>9}",
            r.latency_ns.show(|l| l.mean),
            r.latency_ns.show(|l| l.p99 as f64)
        ),
    };
    format!(
        "{:>7.1}s  {:>8} IOPS  {:>10}/s  {latency}{}{}",
        r.t_s,
        format_count_rate(r.iops),
        format_bytes(r.bw_bytes_per_s as u64),
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
pub(super) fn not_ops(c: &Counts, elapsed_s: f64) -> String {
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
    if c.cancelled > 0 {
        parts.push(format!("{} cancelled at the end", c.cancelled));
    }
    if c.unfinished > 0 {
        parts.push(format!("{} in flight when the run ended", c.unfinished));
    }
    format!("  + {} (not in IOPS)", parts.join(", "))
}

/// "io_uring failed in 2 of 4 threads (1, 3): they ran pread/pwrite, one I/O at a time, not
/// QD16" — said in the header and the summary when a worker's ring failed under it (the
/// kept errors say why). `None` when none did.
pub fn fallback_line(
    fell: impl Iterator<Item = usize>,
    threads: usize,
    depth: usize,
) -> Option<String> {
    let ids: Vec<String> = fell.map(|id| id.to_string()).collect();
    if ids.is_empty() {
        return None;
    }
    let depth = if depth > 1 {
        format!(", not QD{depth}")
    } else {
        String::new()
    };
    Some(format!(
        "io_uring failed in {} of {threads} thread{} ({}): from then on {} pread/pwrite, one \
         I/O at a time{depth}",
        ids.len(),
        if threads == 1 { "" } else { "s" },
        ids.join(", "),
        if ids.len() == 1 { "it ran" } else { "they ran" },
    ))
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

/// The columns a summary's tables are made to fit: an ssh terminal's.
pub const SUMMARY_WIDTH: usize = 80;

/// The final summary: cumulative figures of the whole run, after the `header` line unless it
/// was printed already.
pub fn summary(r: &RunReport, with_header: bool) -> String {
    summary_at(r, with_header, SUMMARY_WIDTH)
}

/// The summary with its tables made for `width` columns (a terminal wider than 80).
pub fn summary_at(r: &RunReport, with_header: bool, width: usize) -> String {
    let mut out = String::new();
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
    let fell = r.threads.iter().filter(|t| t.fell_back).map(|t| t.id);
    if let Some(line) = fallback_line(fell, r.threads.len(), r.final_settings.iodepth) {
        let _ = writeln!(out, "  warning: {line}");
    }
    super::periods::story_lines(&mut out, r, width);
    total_lines(&mut out, r);
    for h in &r.hot_spots {
        // A period of a few key presses has a share of a handful of I/Os (100 % against a
        // promised 90.6 %): left out as its rates are (`periods::has_rate`).
        if r.periods
            .list
            .get(h.period)
            .is_some_and(|p| !super::periods::has_rate(p))
        {
            continue;
        }
        // Several periods: each line names its row of the periods table (numbered from 1).
        let which = match r.periods.list.len() {
            1 => String::new(),
            _ => format!("period {}, ", h.period + 1),
        };
        let _ = writeln!(out, "hot spots, {which}{}", h.line());
    }
    for line in crate::render::why::result_lines(r) {
        let _ = writeln!(out, "{line}");
    }
    latency_lines(&mut out, r);
    thread_lines(&mut out, &r.threads);
    let c = &r.total.counts;
    let _ = writeln!(
        out,
        "not counted as ops: {} failed, {} short{}",
        c.errors,
        c.short_ios,
        [
            (c.spanning_stop, "in flight across a stop"),
            (c.after_switch, "finished after a settings change"),
            (c.cancelled, "cancelled at the end"),
            (c.unfinished, "in flight when the run ended")
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!(", {n} {what}"))
        .collect::<String>()
    );
    error_lines(&mut out, &r.errors);
    if let Some(v) = &r.verify {
        out.push_str(&super::verify::run_lines(v));
    }
    if let Some(w) = &r.writeback {
        super::writeback::writeback_lines(&mut out, w);
    }
    for line in crate::render::why::summary_lines(r) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The totals: ops, rate, bytes; reads and writes apart when mixed; the stops left out; the
/// syncs.
fn total_lines(out: &mut String, r: &RunReport) {
    let t = &r.total;
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
    if let Some(rw) = &t.sides {
        for line in super::sides::summary_lines(rw) {
            let _ = writeln!(out, "{line}");
        }
    } else if t.counts.read_ops > 0 && t.counts.write_ops > 0 {
        // A saved result from before reads and writes were kept apart.
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
}

/// The rate asked against the rate done, and the latency (from the due time with a rate,
/// with the service time beside it).
fn latency_lines(out: &mut String, r: &RunReport) {
    let t = &r.total;
    // Only a run that kept one rate throughout compares its total with it.
    let rate = r.config.settings.rate_iops;
    let threads = r.final_settings.threads;
    let figures = RateFigures::new(rate, t.iops, t.counts, t.elapsed_s, threads);
    if r.final_settings.rate_iops == rate
        && let Some(line) = figures.rate_line(super::rate::cpus())
    {
        let _ = writeln!(out, "rate: {line}");
    }
    let paced = rate > 0 || r.final_settings.rate_iops > 0;
    if t.latency_ns.count == 0 {
        return;
    }
    let label = if paced {
        "latency from the scheduled time (coordinated omission corrected)"
    } else {
        "latency"
    };
    let _ = writeln!(out, "{label}: {}", latency_figures(&t.latency_ns));
    if paced {
        let _ = writeln!(
            out,
            "service time, from submission: {}",
            latency_figures(&t.service_latency_ns)
        );
    }
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
