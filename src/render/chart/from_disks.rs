//! The adapter from a run on several targets to a bar chart: one bar per target (its IOPS
//! over its own run), the outliers in orange, the median and the outlier threshold drawn —
//! the fleet's chart (`from_cards::members_chart`), since a run's targets and a fleet's
//! hosts are judged by one rule. With `--each-then-all` each target has its run alone beside
//! its run together. Every number is a field of the result; the footnotes are its findings.

use super::from_cards::{members_chart, outlier_sentence};
use super::spec::{Bar, BarChart, Heading, Provenance};
use super::style::Tone;
use crate::model::disks::DisksReport;
use crate::render::text::describe_settings;
use crate::units::format_count_rate;

/// Several targets: a bar per target, and its run alone beside it when there was one.
pub fn disks_chart(r: &DisksReport, p: &Provenance) -> BarChart {
    let bars = r.targets.iter().map(|t| {
        let iops = t.run.total.iops;
        let value = (iops.is_finite() && t.run.total.counts.ops > 0).then_some(iops);
        let text = value.map_or("no I/O".into(), format_count_rate);
        (t.name.clone(), value, t.below_median_pct.is_some(), text)
    });
    let pct = r.disks.outlier_pct;
    let mut chart = members_chart(
        heading(r, p),
        "target (together)",
        bars,
        r.aggregate.median_iops,
        pct,
    );
    if let Some(alone) = &r.alone {
        for (group, a) in chart.panels[0].groups.iter_mut().zip(alone) {
            let iops = a.target.run.total.iops;
            group.bars.insert(
                0,
                Bar {
                    value: iops.is_finite().then_some(iops),
                    spread: None,
                    tone: Tone::Ink,
                    label: format_count_rate(iops),
                },
            );
        }
        chart
            .legend
            .insert(0, (Tone::Ink, "the target alone".into()));
    }
    chart
}

fn heading(r: &DisksReport, p: &Provenance) -> Heading {
    let d = &r.disks;
    let mode = if d.direct { "O_DIRECT" } else { "buffered" };
    let mut footnotes: Vec<String> = r
        .findings
        .iter()
        .map(|f| f.text.clone())
        .filter(|t| !r.outliers.iter().any(|o| t.starts_with(o.as_str())))
        .collect();
    // The failed and short I/Os the summary names, target by target: not in the bars.
    for t in r.targets.iter().filter(|t| t.run.had_io_errors()) {
        let c = &t.run.total.counts;
        footnotes.push(format!(
            "{}: {} I/Os failed and {} came back short: they are not in the figures",
            t.name, c.errors, c.short_ios
        ));
    }
    if let Some(sig) = &r.interrupted_by {
        footnotes.push(format!("stopped early by {sig}"));
    }
    footnotes.push(format!(
        "each bar is the target's IOPS over its own run; together they did {} IOPS",
        format_count_rate(r.aggregate.iops)
    ));
    Heading {
        title: format!("{} targets: IOPS per target", r.targets.len()),
        subtitle: format!(
            "{} on each target · {}, {mode} · {}",
            describe_settings(&d.settings),
            d.ioengine.name(),
            p.describe()
        ),
        finding: Some(outlier_sentence("target", &r.outliers, d.outlier_pct)),
        footnotes,
    }
}
