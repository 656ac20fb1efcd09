//! Adapters from diskscope's own runs to chart descriptions: a run (`RunReport`) over time
//! and its latency distribution, with the helpers every adapter shares. Each takes
//! what the result holds and nothing else: the title's workload comes from the same
//! `describe_settings` the text prints, the footnotes are the caveats the text prints
//! (warnings, stops, errors), and every plotted number is a field of the result as `--json`
//! saves it. Sweeps are in `from_sweep`, the suite's card and the fleet in `from_cards`,
//! fio's output in `from_fio`.

use super::spec::{
    Heading, LineChart, Mark, MarkKind, Panel, Provenance, Scale, Series, Span, XAxis,
    latency_unit, thousands,
};
use super::style::Tone;
use crate::model::{ConfigReport, RunReport};
use crate::render::text::{describe_settings, left_out_line};
use crate::stats::IntervalFigures;
use crate::units::format_bytes;

/// How the target was driven: "io_uring, O_DIRECT, span 1 GiB of 1 TiB" ("io_uring, O_DIRECT,
/// polled, …" where completions were polled from the start).
pub(crate) fn how(c: &ConfigReport) -> String {
    let mode = if c.target.direct {
        "O_DIRECT"
    } else {
        "buffered (page cache)"
    };
    let span = match c
        .target
        .device_bytes
        .or(Some(c.target.size_bytes))
        .filter(|b| *b > 0)
    {
        Some(all) if all != c.target.span_bytes => format!(
            ", span {} of {}",
            format_bytes(c.target.span_bytes),
            format_bytes(all)
        ),
        _ if c.target.span_bytes > 0 => format!(", span {}", format_bytes(c.target.span_bytes)),
        _ => String::new(),
    };
    let polled = if c.settings.hipri { ", polled" } else { "" };
    format!("{}, {mode}{polled}{span}", c.ioengine.name())
}

/// The caveats shared by every result of a target: warnings, failed I/Os, an early stop.
pub(crate) fn caveats(
    c: &ConfigReport,
    errors: u64,
    short: u64,
    interrupted: Option<&str>,
) -> Vec<String> {
    let mut notes: Vec<String> = c.warnings.clone();
    if errors + short > 0 {
        notes.push(format!(
            "{errors} I/Os failed and {short} came back short: they are not in the figures"
        ));
    }
    if let Some(sig) = interrupted {
        notes.push(format!("stopped early by {sig}"));
    }
    notes
}

/// "60 s", "12 min", "1 h 05 min".
fn span_words(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..120 => format!("{:.0} s", secs),
        120..3600 => format!("{} min", s / 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

/// The periods of a run as its intervals show them: consecutive intervals with equal
/// settings are one period, from the end of the one before (0 for the first) to the end of
/// its last interval. For runs saved before the report kept its periods.
pub fn periods_of(intervals: &[IntervalFigures]) -> Vec<Span> {
    let mut out: Vec<(Span, crate::settings::Settings)> = Vec::new();
    for iv in intervals {
        match out.last_mut() {
            Some((span, s)) if *s == iv.settings => span.end_s = iv.t_s,
            _ => {
                let start_s = out.last().map_or(0.0, |(p, _)| p.end_s);
                let label = describe_settings(&iv.settings);
                out.push((
                    Span {
                        start_s,
                        end_s: iv.t_s,
                        label,
                    },
                    iv.settings,
                ));
            }
        }
    }
    out.into_iter().map(|(s, _)| s).collect()
}

/// The report's own periods as shaded spans, named in admin words.
pub fn spans_of(r: &RunReport) -> Vec<Span> {
    r.periods
        .list
        .iter()
        .map(|p| Span {
            start_s: p.start_s,
            end_s: p.end_s,
            label: crate::render::periods::period_name(p),
        })
        .collect()
}

/// A run: IOPS, MB/s and p99 latency of every interval on one time axis, the periods
/// (`periods`, or those the intervals show) shaded, the stops marked.
pub fn run_chart(r: &RunReport, periods: Option<&[Span]>, p: &Provenance) -> LineChart {
    let iv = &r.intervals;
    let paced = iv.iter().any(|i| i.settings.rate_iops > 0) || r.config.settings.rate_iops > 0;
    let spans = match periods {
        Some(given) => given.to_vec(),
        None if !r.periods.list.is_empty() => spans_of(r),
        None => periods_of(iv),
    };
    // Past ten minutes the axis counts minutes: "1.5k s" is not how anyone says half an hour.
    let minutes = iv.last().is_some_and(|i| i.t_s > 600.0);
    let marks = iv
        .iter()
        .filter(|i| i.left_out.stops > 0)
        .map(|i| Mark {
            x: i.t_s,
            label: format!("stopped {:.1} s", i.left_out.stopped.as_secs_f64()),
            kind: MarkKind::Stop,
            at: None,
        })
        .collect();
    LineChart {
        heading: run_heading(r, &spans, paced, p),
        x: XAxis {
            label: if minutes {
                "time into the run (min)"
            } else {
                "time into the run (s)"
            }
            .into(),
            scale: Scale::Linear,
            ticks: None,
            divide_by: if minutes { 60.0 } else { 1.0 },
        },
        panels: run_panels(iv, paced),
        spans: if spans.len() > 1 { spans } else { Vec::new() },
        marks,
    }
}

/// IOPS, MB/s and p99 (with the service p99 dashed beside it when paced) per interval.
fn run_panels(iv: &[IntervalFigures], paced: bool) -> Vec<Panel> {
    // An interval the process was stopped for throughout measured nothing: a gap, not zero.
    let at = |i: &IntervalFigures, v: f64| (i.t_s, if i.elapsed_s > 0.0 { v } else { f64::NAN });
    let max_p99 = iv.iter().map(|i| i.latency_ns.p99).max().unwrap_or(0) as f64;
    let (unit, per_ns) = latency_unit(max_p99);
    // Without a complete I/O an interval has no latency: a gap, not 0 ns.
    let lat = |i: &IntervalFigures, ns: u64| {
        let v = if i.latency_ns.count > 0 {
            ns as f64 / per_ns
        } else {
            f64::NAN
        };
        at(i, v)
    };
    let due_name = if paced {
        "p99 from the due time"
    } else {
        "p99"
    };
    let mut latency = vec![
        Series::line(
            due_name,
            iv.iter().map(|i| lat(i, i.latency_ns.p99)).collect(),
            Tone::Secondary,
        )
        .dots_when_few(),
    ];
    if paced {
        let service = iv
            .iter()
            .map(|i| lat(i, i.service_latency_ns.p99))
            .collect();
        latency.push(
            Series::line("p99 service time (from submission)", service, Tone::Primary)
                .dashed()
                .dots_when_few(),
        );
    }
    let one = |name: &str, f: &dyn Fn(&IntervalFigures) -> f64| Panel {
        y_label: name.into(),
        series: vec![
            Series::line(
                name,
                iv.iter().map(|i| at(i, f(i))).collect(),
                Tone::Primary,
            )
            .dots_when_few(),
        ],
        reference: None,
        log_y: false,
    };
    vec![
        one("IOPS", &|i| i.iops),
        one("MB/s (10⁶ bytes/s)", &|i| i.bw_bytes_per_s / 1e6),
        Panel {
            y_label: format!("p99 latency ({unit})"),
            series: latency,
            reference: None,
            log_y: false,
        },
    ]
}

fn run_heading(r: &RunReport, spans: &[Span], paced: bool, p: &Provenance) -> Heading {
    let c = &r.config;
    let end_s = r.intervals.last().map_or(r.total.elapsed_s, |i| i.t_s);
    let workload = workload(r, spans.len());
    let t = &r.total.counts;
    let mut footnotes = caveats(c, t.errors, t.short_ios, r.interrupted_by.as_deref());
    if !r.left_out.is_empty() {
        footnotes.push(left_out_line(&r.left_out));
    }
    if let Some(pending) = r
        .writeback
        .as_ref()
        .and_then(|w| w.target_pending_bytes)
        .filter(|b| *b > 0)
    {
        footnotes.push(format!(
            "{} written to the target were still in the page cache, not on the device, when the I/O ended",
            format_bytes(pending)
        ));
    }
    if paced {
        footnotes.push("with a rate, latency counts from when each I/O was due on its thread's timetable (coordinated omission corrected); the dashed line is the service time from submission".into());
    }
    if spans.windows(2).any(|w| w[1].start_s - w[0].end_s > 0.001) {
        footnotes.push(
            "a gap between two periods is a pause: no running time, and a break in the lines"
                .into(),
        );
    }
    let step = r.intervals.first().map_or(0.0, |i| i.elapsed_s);
    footnotes.push(format!(
        "each point is one interval (about {step:.1} s): IOPS and MB/s over its measured time, p99 over its complete I/Os"
    ));
    Heading {
        title: format!(
            "{}: IOPS, MB/s and p99 latency over {}",
            c.target.path,
            span_words(end_s)
        ),
        subtitle: format!("{workload} · {} · {}", how(c), p.describe()),
        finding: None,
        footnotes,
    }
}

/// What a run did, for a subtitle: its settings, or over `periods` periods where they went
/// ("6 periods, from 4k random read QD1 T1 to 8k random read QD1 T8"; "3 periods, from and
/// back to 4k random read QD4 T2" where the last settings are the first).
fn workload(r: &RunReport, periods: usize) -> String {
    let c = &r.config;
    if periods < 2 {
        return describe_settings(&c.settings);
    }
    let words = crate::render::periods::period_words;
    let list = &r.periods.list;
    let first = list.first().and_then(|p| p.settings).unwrap_or(c.settings);
    let last = list
        .last()
        .and_then(|p| p.settings)
        .unwrap_or(r.final_settings);
    let n = thousands(periods as u64);
    if first == last {
        return format!("{n} periods, from and back to {}", words(&first));
    }
    format!("{n} periods, from {} to {}", words(&first), words(&last))
}

/// A latency distribution from log2 buckets, with the percentiles of `summary` marked.
pub fn histogram_chart(
    hist: &crate::stats::Log2Histogram,
    summary: &crate::stats::LatencySummary,
    heading: Heading,
) -> super::spec::HistogramChart {
    let buckets = hist
        .counts
        .iter()
        .enumerate()
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| super::spec::Bucket {
            lo_ns: (i as f64).exp2(),
            hi_ns: ((i + 1) as f64).exp2(),
            count: *n,
        })
        .collect();
    let marks = if summary.count > 0 {
        vec![
            ("p50".to_string(), summary.p50 as f64),
            ("p99".to_string(), summary.p99 as f64),
            ("p99.9".to_string(), summary.p999 as f64),
        ]
    } else {
        Vec::new()
    };
    super::spec::HistogramChart {
        heading,
        buckets,
        marks,
    }
}

/// A run's latency distribution: `hist` is the log2 histogram of every I/O of the run (the
/// run report keeps only the percentiles, so the caller hands the merged histogram in).
pub fn run_latency_chart(
    r: &RunReport,
    hist: &crate::stats::Log2Histogram,
    p: &Provenance,
) -> super::spec::HistogramChart {
    let c = &r.config;
    let l = &r.total.latency_ns;
    let mut footnotes = caveats(
        c,
        r.total.counts.errors,
        r.total.counts.short_ios,
        r.interrupted_by.as_deref(),
    );
    if hist.total() != l.count {
        footnotes.push(format!(
            "the histogram holds {} I/Os and the percentiles {}: they cover different parts of the run",
            hist.total(),
            l.count
        ));
    }
    footnotes.push("the percentiles come from the full-precision histogram (3 significant digits), not from the bars".into());
    let paced = r.config.settings.rate_iops > 0 || r.final_settings.rate_iops > 0;
    let basis = if paced {
        "from the due time (coordinated omission corrected)"
    } else {
        "from submission to completion"
    };
    let heading = Heading {
        title: format!(
            "{}: latency of all {} I/Os, {basis}",
            c.target.path,
            thousands(l.count)
        ),
        subtitle: format!(
            "{} · {} · {}",
            workload(r, r.periods.list.len()),
            how(c),
            p.describe()
        ),
        finding: None,
        footnotes,
    };
    histogram_chart(hist, l, heading)
}
