//! Why the figures look as they do, as text: the disk's lines under a run's header (its link
//! and ceiling, the queue's limits, the temperature sensor), the lines a headless run prints
//! as findings appear and the steady state changes, and the summary's block — the link
//! against the bandwidth measured, the temperature's range, the drive's thermal log, the
//! steady state (and with `--until-steady` the steady window quoted as the result) and every
//! finding in words. One function per block, so the summary calls each once.

use std::fmt::Write;

use crate::findings::link::LinkInput;
use crate::findings::words::{bytes_per_s, celsius, clock};
use crate::model::disk::{DiskReport, LinkInfo, QueueLimits};
use crate::model::why::WhyReport;
use crate::model::{ConfigReport, RunReport};
use crate::units::{format_bytes, format_count_rate, format_latency_ns};
use crate::why::News;

/// "PCIe 3.0 x2 (of 4.0 x4), ceiling 1.97 GB/s (of 7.88 GB/s)", "virtio: no physical link".
pub fn link_words(link: &LinkInfo) -> String {
    let ceiling = match (link.ceiling_bytes_per_s, link.max_ceiling_bytes_per_s) {
        (Some(c), Some(m)) if m > c => format!(
            ", ceiling {} (of {})",
            bytes_per_s(c as f64),
            bytes_per_s(m as f64)
        ),
        (Some(c), _) => format!(", ceiling {}", bytes_per_s(c as f64)),
        _ => String::new(),
    };
    match (&link.note, ceiling.is_empty()) {
        (Some(note), true) if note.starts_with(&link.label) => note.clone(),
        (Some(note), true) => format!("{}: {note}", link.label),
        _ => format!("{}{ceiling}", link.label),
    }
}

/// "max_sectors_kb 1280 (hardware 2048), nr_requests 256, 1 hardware queue of 128 tags,
/// write back, rotational": what the kernel shows, in its own names.
pub fn queue_words(q: &QueueLimits) -> String {
    let mut parts = Vec::new();
    if let Some(kb) = q.max_sectors_kb {
        let hw = q
            .max_hw_sectors_kb
            .filter(|hw| *hw != kb)
            .map(|hw| format!(" (hardware {hw})"))
            .unwrap_or_default();
        parts.push(format!("max_sectors_kb {kb}{hw}"));
    }
    if let Some(n) = q.max_segments {
        parts.push(format!("max_segments {n}"));
    }
    if let Some(n) = q.nr_requests {
        parts.push(format!("nr_requests {n}"));
    }
    match (q.nr_hw_queues, q.nr_tags) {
        (Some(1), Some(t)) => parts.push(format!("1 hardware queue of {t} tags")),
        (Some(n), Some(t)) => parts.push(format!("{n} hardware queues of {t} tags")),
        _ => {}
    }
    if let Some(wc) = &q.write_cache {
        parts.push(wc.clone());
    }
    if q.fua == Some(true) {
        parts.push("fua".into());
    }
    if let Some(r) = q.rotational {
        parts.push(if r { "rotational" } else { "non-rotational" }.into());
    }
    if parts.is_empty() {
        "not shown by the kernel".into()
    } else {
        parts.join(", ")
    }
}

/// "nvme Composite, warning 82 °C, critical 85 °C", or the reason there is none.
fn sensor_words(d: &DiskReport) -> String {
    let t = &d.temperature;
    if !t.sensor.present {
        return t
            .sensor
            .reason
            .clone()
            .unwrap_or_else(|| "no temperature sensor".into());
    }
    let mut text = [t.sensor.name.clone(), t.sensor.label.clone()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(w) = t.thresholds.warn_c {
        let _ = write!(text, ", warning {}", celsius(w));
    }
    if let Some(c) = t.thresholds.crit_c {
        let _ = write!(text, ", critical {}", celsius(c));
    }
    format!("temperature sensor {text}")
}

/// The lines under a run's header: the device, its link, its queue and its sensor.
pub fn disk_lines(c: &ConfigReport) -> Vec<String> {
    let d = &c.disk;
    let device = d.block_device.as_deref().unwrap_or("no block device");
    vec![
        format!("{device}: link {}", link_words(&d.link)),
        format!("{device}: queue {}", queue_words(&d.queue_limits)),
        format!("{device}: {}", sensor_words(d)),
    ]
}

/// What a headless run prints as it goes: each new finding, and the steady state changing.
pub fn news_lines(news: &News) -> Vec<String> {
    let mut out: Vec<String> = news
        .findings
        .iter()
        .map(|f| match f.at_s {
            Some(at) => format!("  finding (at {}): {}", clock(at), f.text),
            None => format!("  finding: {}", f.text),
        })
        .collect();
    if let Some(c) = &news.steady {
        out.push(if c.steady {
            format!("  {}", c.text)
        } else {
            format!("  no longer steady at {}: {}", clock(c.t_s), c.text)
        });
    }
    out
}

/// With `--until-steady`, the result a steady run quotes — the steady window's figures, as
/// SNIA PTS quotes a measurement window — or the line saying it never settled.
pub fn result_lines(r: &RunReport) -> Vec<String> {
    let w = &r.why;
    let Some(until) = &w.until_steady else {
        return Vec::new();
    };
    let state = w.steady_state.as_ref().filter(|_| until.settled);
    let Some(s) = state else {
        return vec![format!(
            "until steady: {}; the figures above are the whole run's, not a steady result",
            until.text
        )];
    };
    let window = match (s.window_start_s, s.window_end_s) {
        (Some(a), Some(b)) => format!("{}–{}", clock(a), clock(b)),
        _ => "its last rounds".into(),
    };
    let latency = match (s.latency_mean_ns, s.latency_p99_ns) {
        (Some(mean), Some(p99)) => format!(
            ", latency mean {} p99 {}",
            format_latency_ns(mean),
            format_latency_ns(p99 as f64)
        ),
        _ => String::new(),
    };
    vec![format!(
        "steady result (the window {window}, {} × {} s, as SNIA PTS quotes it): {} IOPS, \
         {}/s{latency}",
        s.rounds,
        s.round_s,
        format_count_rate(s.mean_iops.unwrap_or(0.0)),
        format_bytes(s.mean_bw_bytes_per_s.unwrap_or(0.0) as u64),
    )]
}

/// The summary's block: the link against the measured bandwidth, the temperature, the
/// drive's log, the steady state and the findings.
pub fn summary_lines(r: &RunReport) -> Vec<String> {
    let d = &r.config.disk;
    let mut out = vec![format!("link: {}", link_of_run(&d.link, r))];
    let temps: Vec<f64> = r.intervals.iter().filter_map(|i| i.temp_c).collect();
    let (lo, hi) = temps
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), t| (lo.min(*t), hi.max(*t)));
    out.push(match (temps.is_empty(), d.temperature.thresholds.warn_c) {
        (true, _) => format!("temperature: {}", sensor_words(d)),
        (false, Some(w)) => format!(
            "temperature: {} to {} (warning {})",
            celsius(lo),
            celsius(hi),
            celsius(w)
        ),
        (false, None) => format!("temperature: {} to {}", celsius(lo), celsius(hi)),
    });
    out.extend(log_line(&r.why));
    out.extend(r.why.health.as_ref().map(super::health::around_line));
    match (&r.why.steady_text, &r.why.steady_state) {
        (Some(text), Some(s)) if s.reached => out.push(format!("steady state: {text}")),
        (Some(text), Some(s)) => out.push(format!(
            "steady state: not reached ({text}; rounds of {} s, {} to a window)",
            s.round_s, s.rounds
        )),
        _ => {}
    }
    if r.why.findings.is_empty() {
        out.push("findings: none (nothing the link, the queue or the time series explains)".into());
    } else {
        out.push("findings:".into());
        let periods: Vec<(f64, f64)> = r
            .periods
            .list
            .iter()
            .map(|p| (p.start_s, p.end_s))
            .collect();
        out.extend(super::findings_text::finding_lines(
            &r.why.findings,
            &periods,
        ));
    }
    out
}

/// A sweep's or a card's block: the link, how many steps settled under `--until-steady`,
/// and the findings the steps' settings and figures bring.
pub fn series_lines(
    c: &ConfigReport,
    findings: &[crate::model::finding::Finding],
    until: &[crate::model::why::UntilSteadyReport],
    what: &str,
) -> Vec<String> {
    let mut out = vec![format!("link: {}", link_words(&c.disk.link))];
    if !until.is_empty() {
        let settled = until.iter().filter(|u| u.settled).count();
        out.push(format!(
            "until steady: {settled} of {} {what} settled (their figures are their steady \
             windows'); the others ran to {:.0} s",
            until.len(),
            until[0].max_s
        ));
    }
    if findings.is_empty() {
        out.push("findings: none".into());
    } else {
        out.push("findings:".into());
        // A step's finding said again at the next step is one line, its figures a range.
        out.extend(super::findings_text::finding_lines(findings, &[]));
    }
    out
}

/// The link and, where it has a ceiling, the run's bandwidth as a share of it.
/// The share is of the ceiling `link_bound` judges by (`LinkInput::effective_ceiling`: the
/// practical bound of a USB 2 link, not its signalling rate), named when it is not the one
/// `link_words` printed.
fn link_of_run(link: &LinkInfo, r: &RunReport) -> String {
    let words = link_words(link);
    let bw = r.total.bw_bytes_per_s;
    match LinkInput::of(link).effective_ceiling() {
        Some((c, "")) => format!(
            "{words}; this run's {} is {:.0}% of it",
            bytes_per_s(bw),
            bw / c * 100.0
        ),
        Some((c, practical)) => format!(
            "{words}; this run's {} is {:.0}% of its {practical}{}",
            bytes_per_s(bw),
            bw / c * 100.0,
            bytes_per_s(c)
        ),
        None => words,
    }
}

/// "NVMe thermal log: TMT1 +2 (35 s), TMT2 +0 during the run", where it was read.
fn log_line(w: &WhyReport) -> Option<String> {
    let l = w.nvme_thermal_log?;
    let d = l.after.since(&l.before);
    Some(format!(
        "NVMe thermal log during the run: light throttling (TMT1) entered {} times, {} s; \
         heavy (TMT2) {} times, {} s",
        d.tmt1_transitions, d.tmt1_s, d.tmt2_transitions, d.tmt2_s
    ))
}

#[cfg(test)]
#[path = "why_tests.rs"]
mod tests;
