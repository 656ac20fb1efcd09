//! A sweep as text: the table's header and a row per step as each step finishes (like
//! iops(1)'s ladder; a rate sweep's with the asked and the achieved rate), then the end — the
//! step a stop cut short, the finding, the stops and errors.

use std::fmt::Write;

use super::text::{error_lines, left_out_line, not_ops};
use crate::model::SweepReport;
use crate::stats::{IntervalFigures, LeftOut};
use crate::sweep::Dimension;
use crate::units::{format_block_size, format_bytes, format_count_rate, format_latency_ns};

/// Why a `--buffered` sweep names no saturation point (the findings' conditions table).
pub const NOT_ON_THE_CACHE: &str = "no saturation point named: buffered I/O measures the page \
     cache, not the disk (sweep with O_DIRECT, without --buffered, to find the disk's)";

/// "sweep of threads over 4 steps, 3.0s each after a 0.5s ramp", or under `--until-steady`
/// "…, each until steady (5 rounds of 1 s) or 60.0s at most, after a 0.5s ramp": what a step
/// lasts, as the run will really do it.
pub fn sweep_intro(
    d: Dimension,
    steps: usize,
    step_s: f64,
    ramp_s: f64,
    until: Option<&crate::sweep::UntilSteady>,
) -> String {
    let each = match until {
        None => format!("{step_s:.1}s each"),
        Some(u) => format!(
            "each until steady ({} rounds of {:.0} s) or {:.1}s at most,",
            u.params.rounds,
            u.params.round_s,
            u.max.as_secs_f64()
        ),
    };
    format!(
        "sweep of {} over {steps} steps, {each} after a {ramp_s:.1}s ramp",
        d.name()
    )
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
        let short = if crate::render::rate::RateFigures::window(r).fell_behind() {
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

/// Under a step that both read and wrote, each direction's IOPS and p99 (a write's p99 is
/// not a read's), lined up under the row's IO/s and p99 columns' side of the table.
pub fn step_sides_line(r: &IntervalFigures) -> Option<String> {
    let rw = r.sides.as_ref()?;
    let side = |name: &str, s: &crate::stats::sides::Side| {
        format!(
            "{name} {:>10.0} IO/s  p99 {:>9}",
            s.iops,
            format_latency_ns(s.latency_ns.p99 as f64)
        )
    };
    // Each direction that ran: r and w, t for trims.
    let ran = rw.both().into_iter().filter(|(_, s)| s.ops > 0);
    let parts: Vec<String> = ran.map(|(name, s)| side(&name[..1], s)).collect();
    Some(format!("{:>11} {}", "", parts.join("   ")))
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
        (None, _) if !r.config.target.direct => NOT_ON_THE_CACHE.to_string(),
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
    if let Some(h) = &r.health {
        let _ = writeln!(out, "{}", super::health::around_line(h));
    }
    for line in crate::render::why::series_lines(&r.config, &r.findings, &r.until_steady, "steps") {
        let _ = writeln!(out, "{line}");
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
    use std::time::Duration;

    use super::*;
    use crate::model::{ConfigReport, SweepReport};
    use crate::stats::Window;

    #[test]
    fn a_stop_inside_a_sweep_step_is_said_in_the_summary() {
        let mut step = Window::default().figures();
        step.left_out.stops = 1;
        step.left_out.stopped = Duration::from_millis(1500);
        let r = SweepReport {
            meta: crate::model::Meta::default(),
            config: ConfigReport::example(),
            dimension: crate::sweep::Dimension::Threads,
            step_time_s: 2.0,
            steps: vec![step.clone(), step],
            saturation: None,
            latency_curve: None,
            partial_step: None,
            errors: vec![],
            interrupted_by: None,
            findings: vec![],
            until_steady: vec![],
            health: None,
        };
        let text = sweep_summary(&r);
        assert!(text.contains("stopped 2× for 3.0s"), "{text}");
    }

    #[test]
    fn a_step_that_read_and_wrote_has_a_line_of_each_direction_under_it() {
        use crate::stats::sides::{ReadWrite, Side};
        let mut step = Window::default().figures();
        assert_eq!(step_sides_line(&step), None);
        let side = |iops: f64, p99: u64| Side {
            ops: iops as u64,
            iops,
            latency_ns: crate::stats::LatencySummary {
                p99,
                ..Default::default()
            },
            ..Side::default()
        };
        step.sides = Some(ReadWrite {
            read: side(2625.0, 3_230_000),
            write: side(1042.0, 8_210_000),
            trim: Default::default(),
        });
        let line = step_sides_line(&step).expect("a line of both");
        assert!(line.contains("r       2625 IO/s  p99   3.23 ms"), "{line}");
        assert!(line.contains("w       1042 IO/s  p99   8.21 ms"), "{line}");
        assert!(line.chars().count() <= 80, "{line}");
    }
}
