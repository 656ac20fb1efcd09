//! Adapters from the results that compare many figures side by side to bar charts: a
//! suite's card (each test's median of its passes as the bar, the slowest and fastest pass
//! as the whisker, reads and writes side by side) and a fleet (a bar per host, the outliers
//! in orange, the median and the outlier threshold drawn; `from_disks` draws a run's targets
//! the same way). Every number is a
//! field of the result; the footnotes are the notes the text prints.

use super::from_results::how;
use super::spec::{Bar, BarChart, BarGroup, BarPanel, Heading, Provenance};
use super::style::Tone;
use crate::fleet::FleetReport;
use crate::fleet::results::HostState;
use crate::render::text::describe_settings;
use crate::suite::{DirectionResult, SuiteReport, TestResult};
use crate::units::format_count_rate;

/// "2135" MB/s or "41.3": the card's figure as the text prints it (one decimal below 100).
pub(crate) fn mb_words(mb: f64) -> String {
    if mb >= 100.0 {
        format!("{mb:.0}")
    } else {
        format!("{mb:.1}")
    }
}

/// A suite's card: sequential tests in MB/s, random tests in IOPS (as the card tools quote
/// them), reads and writes side by side.
pub fn suite_chart(r: &SuiteReport, p: &Provenance) -> BarChart {
    let bar = |d: Result<&DirectionResult, &str>, tone, seq: bool| match d {
        Ok(d) => {
            let s = if seq { d.mb_per_s } else { d.iops };
            Bar {
                value: Some(s.median),
                spread: (r.passes > 1).then_some((s.min, s.max)),
                tone,
                label: if seq {
                    mb_words(s.median)
                } else {
                    format_count_rate(s.median)
                },
            }
        }
        Err(_) => Bar {
            value: None,
            spread: None,
            tone,
            label: String::new(),
        },
    };
    let panel = |seq: bool, y_label: &str| BarPanel {
        y_label: y_label.into(),
        groups: r
            .tests
            .iter()
            .filter(|t| t.random != seq)
            .map(|t| BarGroup {
                label: t.name.clone(),
                bars: vec![
                    bar(
                        t.direction(crate::suite::Direction::Read),
                        Tone::Primary,
                        seq,
                    ),
                    bar(
                        t.direction(crate::suite::Direction::Write),
                        Tone::Tertiary,
                        seq,
                    ),
                ],
            })
            .collect(),
        lines: Vec::new(),
    };
    let panels = [
        panel(true, "sequential: MB/s (10⁶ bytes/s)"),
        panel(false, "random: IOPS"),
    ]
    .into_iter()
    .filter(|p| !p.groups.is_empty())
    .collect();
    BarChart {
        heading: suite_heading(r, p),
        panels,
        legend: vec![
            (Tone::Primary, "read".into()),
            (Tone::Tertiary, "write".into()),
        ],
    }
}

fn suite_heading(r: &SuiteReport, p: &Provenance) -> Heading {
    let mut notes = r.notes.clone();
    let mut seen: Vec<String> = Vec::new();
    for t in &r.tests {
        if let Some(n) = &t.note {
            notes.push(format!("{}: {n}", t.name));
        }
        for (dir, why) in [("reads", &t.read_not_run), ("writes", &t.write_not_run)] {
            if let Some(w) = why.as_ref().filter(|w| !seen.contains(w)) {
                seen.push(w.clone());
                notes.push(format!("{dir} {w}"));
            }
        }
    }
    if failed_ios(&r.tests) > 0 {
        notes.push(format!(
            "{} I/Os failed or came back short: they are not in the figures",
            failed_ios(&r.tests)
        ));
    }
    if let Some(sig) = &r.interrupted_by {
        notes.push(format!("stopped early by {sig}"));
    }
    notes.push(if r.passes > 1 {
        format!(
            "bar: the median of {} passes; whisker: the slowest and the fastest pass",
            r.passes
        )
    } else {
        "one pass per test: no spread to show".into()
    });
    Heading {
        title: format!(
            "{}: suite {}, median of {} passes of {:.0} s",
            r.config.target.path,
            r.suite.name(),
            r.passes,
            r.pass_time_s
        ),
        subtitle: format!("{} · {}", how(&r.config), p.describe()),
        finding: None,
        footnotes: notes,
    }
}

fn failed_ios(tests: &[TestResult]) -> u64 {
    tests
        .iter()
        .flat_map(|t| [&t.read, &t.write])
        .flatten()
        .map(|d| d.counts.errors + d.counts.short_ios)
        .sum()
}

/// A fleet: one bar per host (IOPS) in the report's order, the outliers in orange (the
/// palette's lightest grey against blue's darkest, so they part in print too), the fleet's median and the outlier threshold as lines; a failed host has no bar.
pub fn fleet_chart(r: &FleetReport, p: &Provenance) -> BarChart {
    let bars = r.hosts.iter().map(|h| {
        let label = match (h.state, h.total) {
            (HostState::Failed, _) => "failed".into(),
            (_, Some(t)) if t.iops.is_finite() => format_count_rate(t.iops),
            (_, Some(_)) => "no figure".into(),
            (_, None) => "no I/O".into(),
        };
        let iops = h
            .total
            .filter(|_| h.state == HostState::Done)
            .map(|t| t.iops);
        (h.host.clone(), iops, h.outlier, label)
    });
    members_chart(
        fleet_heading(r, p),
        "host",
        bars,
        r.aggregate.median_iops,
        r.fleet.outlier_pct,
    )
}

/// One bar per member (a fleet's host, a run's target) — `(label, IOPS, outlier, text
/// above the bar)`, no bar where there is no figure — the outliers in orange (the palette's
/// lightest grey against blue's darkest, so they part in print too), the median and the
/// outlier threshold `pct` below it as lines.
pub(super) fn members_chart(
    heading: Heading,
    member: &str,
    bars: impl Iterator<Item = (String, Option<f64>, bool, String)>,
    median: f64,
    pct: f64,
) -> BarChart {
    let groups = bars
        .map(|(label, value, outlier, text)| BarGroup {
            label,
            bars: vec![Bar {
                value,
                spread: None,
                tone: if outlier {
                    Tone::Tertiary
                } else {
                    Tone::Primary
                },
                label: text,
            }],
        })
        .collect();
    let mut lines = Vec::new();
    if median.is_finite() && median > 0.0 {
        let m = format!("median {} IOPS", format_count_rate(median));
        lines.push((median, m, true));
        let t = format!("{pct:.0}% below the median: outlier");
        lines.push((median * (1.0 - pct / 100.0), t, false));
    }
    BarChart {
        heading,
        panels: vec![BarPanel {
            y_label: "IOPS".into(),
            groups,
            lines,
        }],
        legend: vec![
            (Tone::Primary, member.into()),
            (
                Tone::Tertiary,
                format!("outlier: more than {pct:.0}% below the median"),
            ),
        ],
    }
}

fn fleet_heading(r: &FleetReport, p: &Provenance) -> Heading {
    let mut notes: Vec<String> = r
        .hosts
        .iter()
        .filter(|h| h.state == HostState::Failed)
        .map(|h| {
            let why = h.reason.as_deref().unwrap_or("no reason given");
            format!("{} failed: {why}", h.host)
        })
        .collect();
    if let Some(sig) = &r.interrupted_by {
        notes.push(format!("stopped early by {sig}"));
    }
    notes.push(format!(
        "each bar is the host's IOPS over its whole run (fio's runtime); the fleet did {} IOPS in all",
        format_count_rate(r.aggregate.iops)
    ));
    let f = &r.fleet;
    // A fleet read back from fio's own JSON knows no target or settings.
    let (what, settings) = if f.target.is_empty() {
        (String::new(), String::new())
    } else {
        let mode = if f.direct { "O_DIRECT" } else { "buffered" };
        (
            format!("{} ", f.target),
            format!(
                "{} · {}, {mode} · ",
                describe_settings(&f.settings),
                f.ioengine.name()
            ),
        )
    };
    let fio = f
        .fio_version
        .as_ref()
        .map(|v| format!("{v} client/server · "))
        .unwrap_or_default();
    Heading {
        title: format!("{what}on {} hosts: IOPS per host", r.hosts.len()),
        subtitle: format!("{settings}{fio}{}", p.describe()),
        finding: Some(outlier_sentence("host", &r.outliers, r.fleet.outlier_pct)),
        footnotes: notes,
    }
}

/// "no host is more than 20% below the median", "2 outliers: sdb, sdc".
pub(super) fn outlier_sentence(member: &str, outliers: &[String], pct: f64) -> String {
    match outliers.len() {
        0 => format!("no {member} is more than {pct:.0}% below the median"),
        1 => format!("1 outlier: {}", outliers[0]),
        n if n <= 5 => format!("{n} outliers: {}", outliers.join(", ")),
        n => format!("{n} outliers: {}, …", outliers[..5].join(", ")),
    }
}
