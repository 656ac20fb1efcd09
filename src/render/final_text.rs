//! What is printed on the normal screen after the TUI closes: the run's summary, or the
//! sweep's table and finding, each with the baseline's comparison when one was given — what
//! made the baseline, the totals, and a run's periods one by one (`versus`, which a headless
//! run prints too).

use super::baseline::BaselineFile;
use super::compare::{compare_meta, compare_periods, compare_run, compare_step};
use super::{sweep, text};
use crate::model::{RunReport, SweepReport};

/// A run against a saved result: what made the baseline (and how that differs from this
/// run), the totals, and the periods one by one when they can be.
pub fn versus(b: &BaselineFile, report: &RunReport) -> String {
    let label = b.baseline.label();
    let mut out = compare_meta(label, &b.meta, &report.meta);
    out.push_str(&compare_run(&b.baseline, report));
    out.push('\n');
    if let Some(periods) = compare_periods(label, &b.periods, report) {
        out.push_str(&periods);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// What is printed on the normal screen after the TUI: the run's summary, or when a sweep ran
/// last the sweep's table and finding; with a baseline, the comparison.
pub fn final_text(
    report: &RunReport,
    sweep: Option<&SweepReport>,
    baseline: Option<&BaselineFile>,
) -> String {
    final_text_at(report, sweep, baseline, text::SUMMARY_WIDTH)
}

/// `final_text` with its tables made for `width` columns.
pub fn final_text_at(
    report: &RunReport,
    sweep: Option<&SweepReport>,
    baseline: Option<&BaselineFile>,
    width: usize,
) -> String {
    let Some(sweep) = sweep else {
        let mut out = text::summary_at(report, true, width);
        if let Some(b) = baseline {
            out.push_str(&versus(b, report));
        }
        return out;
    };
    let mut out = format!("{}\n", text::header(&sweep.config));
    out.push_str(&format!(
        "sweep of {} over {} steps, {:.1}s each after a {:.1}s ramp\n",
        sweep.dimension.name(),
        sweep.steps.len(),
        sweep.step_time_s,
        crate::sweep::RAMP.as_secs_f64()
    ));
    out.push_str(&sweep::step_header(sweep.dimension));
    out.push('\n');
    for step in &sweep.steps {
        out.push_str(&sweep::step_line(sweep.dimension, step));
        if let Some(b) = baseline {
            out.push_str(&compare_step(&b.baseline, sweep.dimension, step));
        }
        out.push('\n');
    }
    out.push_str(&sweep::sweep_summary(sweep));
    if let Some(b) = baseline {
        out.push_str(&compare_meta(b.baseline.label(), &b.meta, &sweep.meta));
    }
    out
}

/// `text` with every line wider than `width` wrapped at its spaces, the lines it continues on
/// indented two past its own indent (a table's rows, already narrow, are left alone).
pub fn fit_width(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.chars().count() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = line.chars().take_while(|c| *c == ' ').count();
        let mut current = " ".repeat(indent);
        let mut empty = true;
        for word in line.trim_start().split(' ') {
            let used = current.chars().count();
            if !empty && used + 1 + word.chars().count() > width {
                out.push_str(&current);
                out.push('\n');
                current = " ".repeat(indent + 2);
                empty = true;
            }
            if !empty {
                current.push(' ');
            }
            current.push_str(word);
            empty = false;
        }
        out.push_str(&current);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_at_spaces_under_their_indent() {
        let text = "short\n  warning: small span: 64 MiB of the 256 GiB device; short seeks\n";
        let fitted = fit_width(text, 40);
        assert_eq!(
            fitted,
            "short\n  warning: small span: 64 MiB of the 256\n    GiB device; short seeks\n"
        );
        assert!(fitted.lines().all(|l| l.chars().count() <= 40));
    }
}
