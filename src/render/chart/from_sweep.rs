//! Adapters from a sweep (`SweepReport`) to chart descriptions: the figures against the
//! swept knob on a log2 axis with the saturation step marked, and a rate sweep's latency
//! curve (the hockey stick) with its knee and the threshold the knee crossed. Every plotted
//! number is a step's figure as `--json` saves it; the finding is the sweep's own sentence.

use super::from_results::{caveats, how};
use super::spec::{
    Heading, LineChart, Mark, MarkKind, Panel, Provenance, Scale, Series, XAxis, latency_unit,
};
use super::style::Tone;
use crate::model::SweepReport;
use crate::render::text::describe_settings;
use crate::stats::IntervalFigures;
use crate::sweep::curve::FLAT_FACTOR;
use crate::sweep::{Dimension, LatencyCurve, Verdict};
use crate::units::{format_block_size, format_count_rate};

/// A knob's value as its axis shows it: "4k", "16", "12.5k IOPS".
fn knob(d: Dimension, v: u64) -> String {
    match d {
        Dimension::Bs => format_block_size(v),
        Dimension::Rate if v == 0 => "unlimited".into(),
        Dimension::Rate => format_count_rate(v as f64),
        Dimension::Threads | Dimension::Iodepth => v.to_string(),
    }
}

/// The figure a sweep of `d` is judged by, with its axis label: MB/s for block sizes (IOPS
/// fall as blocks grow), IOPS otherwise, as the saturation finder judges it.
fn metric(d: Dimension) -> (&'static str, fn(&IntervalFigures) -> f64) {
    match d {
        Dimension::Bs => ("MB/s (10⁶ bytes/s)", |s| s.bw_bytes_per_s / 1e6),
        _ => ("IOPS", |s| s.iops),
    }
}

/// A latency of a step in `per` ns; a step without a complete I/O has none (a gap).
fn step_latency(s: &IntervalFigures, ns: u64, per: f64) -> f64 {
    if s.latency_ns.count > 0 {
        ns as f64 / per
    } else {
        f64::NAN
    }
}

/// A sweep: IOPS (MB/s for a block-size sweep) and p99 against the swept knob on a log2
/// axis, the saturation step marked with its sentence. A rate sweep with a latency curve is
/// drawn by `curve_chart` instead.
pub fn sweep_chart(r: &SweepReport, p: &Provenance) -> LineChart {
    let d = r.dimension;
    // A log axis has no place for 0 (a rate sweep's unlimited step): it is left out.
    let steps: Vec<&IntervalFigures> = r
        .steps
        .iter()
        .filter(|s| d.value(&s.settings) > 0)
        .collect();
    let (name, metric_of) = metric(d);
    let marks = r
        .saturation
        .iter()
        .filter(|s| s.value > 0)
        .map(|s| Mark {
            x: s.value as f64,
            label: match s.verdict {
                Verdict::Saturated => format!("saturates at {}", d.describe(s.value)),
                Verdict::Rising { .. } => format!("still rising at {}", d.describe(s.value)),
                Verdict::OneStep => "one step only".into(),
                Verdict::AtRateCap { .. } => "at the --rate cap".into(),
            },
            kind: MarkKind::Finding,
            at: r.steps.get(s.step).map(|st| (0, metric_of(st))),
        })
        .collect();
    let ticks = steps
        .iter()
        .map(|s| (d.value(&s.settings) as f64, knob(d, d.value(&s.settings))))
        .collect();
    LineChart {
        heading: sweep_heading(r, name, p),
        x: XAxis {
            label: axis_name(d).into(),
            scale: Scale::Log2,
            ticks: Some(ticks),
            divide_by: 1.0,
        },
        panels: sweep_panels(d, &steps),
        spans: Vec::new(),
        marks,
    }
}

/// The metric per step, and p99 with p50 dashed beside it.
fn sweep_panels(d: Dimension, steps: &[&IntervalFigures]) -> Vec<Panel> {
    let (name, metric_of) = metric(d);
    let x = |s: &IntervalFigures| d.value(&s.settings) as f64;
    let max_ns = steps.iter().map(|s| s.latency_ns.p99).max().unwrap_or(0) as f64;
    let (unit, per) = latency_unit(max_ns);
    let of = |f: &dyn Fn(&IntervalFigures) -> f64| steps.iter().map(|s| (x(s), f(s))).collect();
    vec![
        Panel {
            y_label: name.into(),
            series: vec![Series::line(name, of(&metric_of), Tone::Primary).with_dots()],
            reference: None,
            log_y: false,
        },
        Panel {
            y_label: format!("latency ({unit})"),
            series: vec![
                Series::line(
                    "p99",
                    of(&|s| step_latency(s, s.latency_ns.p99, per)),
                    Tone::Secondary,
                )
                .with_dots(),
                Series::line(
                    "p50",
                    of(&|s| step_latency(s, s.latency_ns.p50, per)),
                    Tone::Primary,
                )
                .dashed()
                .with_dots(),
            ],
            reference: None,
            log_y: false,
        },
    ]
}

fn axis_name(d: Dimension) -> &'static str {
    match d {
        Dimension::Threads => "threads (log2 scale)",
        Dimension::Bs => "block size (bytes, log2 scale)",
        Dimension::Iodepth => "queue depth per thread (log2 scale)",
        Dimension::Rate => "asked rate (I/Os per second, log2 scale)",
    }
}

fn sweep_heading(r: &SweepReport, metric: &str, p: &Provenance) -> Heading {
    let c = &r.config;
    let d = r.dimension;
    let mut footnotes = sweep_caveats(r);
    if r.dimension == Dimension::Rate && r.steps.iter().any(|s| s.settings.rate_iops == 0) {
        footnotes.push("the unlimited step has no place on a log axis and is left out".into());
    }
    footnotes.push(format!(
        "each point is one step of {:.1} s measured after its ramp",
        r.step_time_s
    ));
    let metric_word = metric.split(' ').next().unwrap_or(metric);
    Heading {
        title: format!(
            "{}: {metric_word} and latency against {}",
            c.target.path,
            d.name()
        ),
        subtitle: format!(
            "{} as the base, {} swept{} · {} · {}",
            describe_settings(&c.settings),
            d.name(),
            swept_range(r),
            how(c),
            p.describe()
        ),
        finding: r.saturation.as_ref().map(|s| s.summary.clone()),
        footnotes,
    }
}

/// " from 1 to 64" over the steps measured.
fn swept_range(r: &SweepReport) -> String {
    let d = r.dimension;
    let values = r.steps.iter().map(|s| d.value(&s.settings));
    match (values.clone().min(), values.max()) {
        (Some(lo), Some(hi)) if lo != hi => format!(" from {} to {}", knob(d, lo), knob(d, hi)),
        _ => String::new(),
    }
}

fn sweep_caveats(r: &SweepReport) -> Vec<String> {
    let (errors, short) = r.steps.iter().fold((0, 0), |(e, s), st| {
        (e + st.counts.errors, s + st.counts.short_ios)
    });
    let mut notes = caveats(&r.config, errors, short, r.interrupted_by.as_deref());
    if let Some(ps) = &r.partial_step {
        notes.push(format!(
            "step {} of {} was cut short by the stop and is not drawn",
            ps.step + 1,
            ps.of_steps
        ));
    }
    notes
}

/// A rate sweep's latency curve (the hockey stick): p99 from the due time and the service
/// p99 against the load achieved, the step where p99 leaves the flat part marked, the
/// threshold it crossed drawn. Latency is on a log axis: the end of the stick is often a
/// hundred times the flat part, which a linear axis presses flat. `None` when the sweep has
/// no curve.
pub fn curve_chart(r: &SweepReport, p: &Provenance) -> Option<LineChart> {
    let curve: &LatencyCurve = r.latency_curve.as_ref()?;
    let max_ns = curve.points.iter().map(|q| q.p99_ns).max().unwrap_or(0) as f64;
    let (unit, per) = latency_unit(max_ns.max(curve.flat_p99_ns as f64 * FLAT_FACTOR));
    let mut marks = vec![Mark {
        x: curve.max_iops,
        label: format!("unlimited: {} IOPS", format_count_rate(curve.max_iops)),
        kind: MarkKind::Reference,
        at: None,
    }];
    if let Some(k) = curve.leaves_flat_at.and_then(|k| curve.points.get(k)) {
        marks.push(Mark {
            x: k.iops,
            label: format!("knee: {:.0}% of max", k.pct_of_max),
            kind: MarkKind::Finding,
            at: Some((0, k.p99_ns as f64 / per)),
        });
    }
    Some(LineChart {
        heading: curve_heading(r, curve, p),
        x: XAxis {
            label: "achieved load (IOPS)".into(),
            scale: Scale::Linear,
            ticks: None,
            divide_by: 1.0,
        },
        panels: vec![curve_panel(r, curve, unit, per)],
        spans: Vec::new(),
        marks,
    })
}

/// p99 from the due time and the service p99 per paced step, in `unit` (`per` ns), with the
/// threshold the knee is judged by.
fn curve_panel(r: &SweepReport, curve: &LatencyCurve, unit: &str, per: f64) -> Panel {
    // The service p99 of a point is its step's (the step with the point's asked rate).
    let service = |asked: u64| {
        r.steps
            .iter()
            .find(|s| s.settings.rate_iops == asked)
            .map_or(f64::NAN, |s| s.service_latency_ns.p99 as f64 / per)
    };
    let pts = &curve.points;
    let due = pts
        .iter()
        .map(|q| (q.iops, q.p99_ns as f64 / per))
        .collect();
    let svc = pts
        .iter()
        .map(|q| (q.iops, service(q.asked_iops)))
        .collect();
    Panel {
        y_label: format!("p99 latency ({unit}, log scale)"),
        series: vec![
            Series::line("p99 from the due time", due, Tone::Secondary).with_dots(),
            Series::line("p99 service time", svc, Tone::Primary)
                .dashed()
                .with_dots(),
        ],
        reference: Some((
            curve.flat_p99_ns as f64 * FLAT_FACTOR / per,
            format!("{FLAT_FACTOR}× the lightest step's p99"),
        )),
        log_y: true,
    }
}

fn curve_heading(r: &SweepReport, curve: &LatencyCurve, p: &Provenance) -> Heading {
    let mut footnotes = sweep_caveats(r);
    footnotes.push(format!(
        "each point is one paced step of {:.1} s; the knee is the first step whose p99 exceeds {FLAT_FACTOR}× the p99 at the lightest step (dotted line)",
        r.step_time_s,
    ));
    let unpaced = crate::settings::Settings {
        rate_iops: 0,
        ..r.config.settings
    };
    Heading {
        title: format!(
            "{}: p99 latency against the load achieved",
            r.config.target.path
        ),
        subtitle: format!(
            "{} at rising rates · {} · {}",
            describe_settings(&unpaced),
            how(&r.config),
            p.describe()
        ),
        finding: Some(curve.summary.clone()),
        footnotes,
    }
}
