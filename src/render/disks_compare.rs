//! A run on several targets against a saved result (`--baseline`): a saved multi-target run
//! target by target (matched by name, as tables name them) and in all; any other saved
//! result through `baseline::Baseline`, each target against the figures a single run is
//! compared with (a run's total, a fleet's median host).

use std::fmt::Write;

use serde_json::Value;

use super::baseline::{Baseline, Figures, change, saved_conditions};
use crate::model::disks::DisksReport;
use crate::results::saved_doc::SavedConfig;
use crate::stats::LatencySummary;
use crate::units::format_latency_ns;

fn figures(v: &Value) -> Option<Figures> {
    Some(Figures {
        iops: v["iops"].as_f64()?,
        bw_bytes_per_s: v["bw_bytes_per_s"].as_f64()?,
        p50_ns: v["latency_ns"]["p50"].as_f64()?,
        p99_ns: v["latency_ns"]["p99"].as_f64()?,
    })
}

/// A saved run on several targets (`--json FILE`) as a baseline: each target's totals by
/// name, the aggregate, and what the first target ran (all ran the same settings; the
/// target is left out, as the targets differ). Fields it lacks read as zero.
pub(super) fn baseline_of(label: String, v: &Value) -> Baseline {
    let zero = Figures {
        iops: 0.0,
        bw_bytes_per_s: 0.0,
        p50_ns: 0.0,
        p99_ns: 0.0,
    };
    let targets = v["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| Some((t["name"].as_str()?.to_string(), figures(&t["total"])?)))
        .collect();
    let config: SavedConfig =
        serde_json::from_value(v["targets"][0]["config"].clone()).unwrap_or_default();
    let mut conditions = saved_conditions(&config);
    conditions.target = None;
    let periods = v["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| Some(t["periods"].as_array()?.len()))
        .max()
        .unwrap_or(0);
    Baseline::Disks {
        label,
        targets,
        aggregate: figures(&v["aggregate"]).unwrap_or(zero),
        conditions,
        periods,
    }
}

/// The line saying the totals compared mix settings, when the baseline's targets (`then`
/// periods at most) or this run's (`now`) went through more than one period.
fn mixed(label: &str, then: usize, now: usize) -> Option<String> {
    (then > 1 || now > 1).then(|| {
        format!(
            "baseline {label} went through {then} periods on a target (settings changed live, \
             or a pause), this run {now}: the totals below mix them; compare runs of one \
             setting for a like-with-like figure"
        )
    })
}

/// The line saying a run's totals are compared, which mix settings, when the baseline run
/// (`then` periods) or a target of this one went through more than one period; else "".
fn totals_only(label: &str, then: usize, r: &DisksReport) -> String {
    let now = r.targets.iter().map(|t| t.run.periods.list.len()).max();
    let now = now.unwrap_or(0);
    if then > 1 || now > 1 {
        format!(
            "baseline {label} went through {then} periods (settings changed live, or a \
             pause), this run {now} on a target: compared as totals only, which mix them\n"
        )
    } else {
        String::new()
    }
}

/// "IOPS 1100 vs 1000 (+10%), p99 180 µs vs 200 µs (-10%)".
fn versus(now: &Figures, then: &Figures) -> String {
    format!(
        "IOPS {:.0} vs {:.0} ({}), p99 {} vs {} ({})",
        now.iops,
        then.iops,
        change(now.iops, then.iops),
        format_latency_ns(now.p99_ns),
        format_latency_ns(then.p99_ns),
        change(now.p99_ns, then.p99_ns)
    )
}

/// The figures a baseline compares, of a rate pair and its latency.
fn measured(iops: f64, bw_bytes_per_s: f64, latency_ns: &LatencySummary) -> Figures {
    Figures {
        iops,
        bw_bytes_per_s,
        p50_ns: latency_ns.p50 as f64,
        p99_ns: latency_ns.p99 as f64,
    }
}

/// The lines comparing `r` with `b`, a saved result whose run went through `then_periods`
/// periods (`BaselineFile::periods`; 0 for other results): a line per target, then all of
/// them. Totals of more than one period mix settings: said, as a single target says it.
pub fn compare(b: &Baseline, then_periods: usize, r: &DisksReport) -> String {
    let now: Vec<(&str, Figures)> = r
        .targets
        .iter()
        .map(|t| {
            let total = &t.run.total;
            let f = measured(total.iops, total.bw_bytes_per_s, &total.latency_ns);
            (t.name.as_str(), f)
        })
        .collect();
    let width = now
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    let mut out = String::new();
    match b {
        Baseline::Disks {
            label,
            targets,
            aggregate,
            periods,
            ..
        } => {
            let now_periods = r.targets.iter().map(|t| t.run.periods.list.len()).max();
            if let Some(line) = mixed(label, *periods, now_periods.unwrap_or(0)) {
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "vs baseline {label}, target by target:");
            for (name, f) in &now {
                let line = match targets.iter().find(|(n, _)| n == name) {
                    Some((_, then)) => versus(f, then),
                    None => "not in the baseline".into(),
                };
                let _ = writeln!(out, "  {name:<width$} {line}");
            }
            let a = &r.aggregate;
            let all = measured(a.iops, a.bw_bytes_per_s, &a.latency_ns);
            let _ = writeln!(out, "  {:<width$} {}", "all", versus(&all, aggregate));
            let missing: Vec<&str> = targets
                .iter()
                .filter(|(n, _)| !now.iter().any(|(m, _)| m == n))
                .map(|(n, _)| n.as_str())
                .collect();
            if !missing.is_empty() {
                let _ = writeln!(out, "  not run now: {}", missing.join(", "));
            }
        }
        baseline => match baseline.run_figures() {
            Some(then) => {
                let label = baseline.label();
                out.push_str(&totals_only(label, then_periods, r));
                let whose = match baseline {
                    Baseline::Fleet { .. } => "its median host",
                    _ => "its total",
                };
                let _ = writeln!(out, "vs baseline {label} ({whose}), each target:");
                for (name, f) in &now {
                    let _ = writeln!(out, "  {name:<width$} {}", versus(f, &then));
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "baseline {} is not a run; compare a run on several targets with a run or another such run",
                    baseline.label()
                );
            }
        },
    }
    out
}
