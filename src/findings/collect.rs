//! Every finding of a finished run in one call, in the order people read them: what the
//! link and the queue make of the settings first, then what happened in time, oldest first.
//! A headless summary, the JSON and the card call this once; a live screen keeps its own
//! `SlowdownDetector` and `SteadyCheck` and may call this again at the end — the drops agree.
//!
//! Every detector is asked through `ask`, which consults the conditions table
//! (`conditions::needs`): a detector whose conditions the run does not meet is never called.
//! The live tracker, the steps of sweeps and suites and the several-targets comparisons ask
//! through it too.

use super::Finding;
pub use super::conditions::ask;
use super::conditions::{Conditions, Detector};
use super::link::{LinkInput, link_below_max, link_bound_in};
use super::queue::{Observed, QueueLimits, QueueSettings, queue_findings};
use super::series::Interval;
use super::slowdown::{SlowdownParams, slowdowns};
use super::thermal::{CountersAround, thermal_throttling};

/// What a run knows, each part optional: a missing fact means its findings are not judged.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunFacts<'a> {
    /// The interval series, oldest first.
    pub series: &'a [Interval],
    pub link: Option<&'a LinkInput>,
    pub queue: Option<(&'a QueueLimits, &'a QueueSettings, &'a Observed)>,
    /// The drive's warning temperature, °C (hwmon temp1_max).
    pub temp_warn_c: Option<f64>,
    /// The NVMe thermal-management counters before and after the run.
    pub counters: Option<CountersAround>,
    /// What the run was: O_DIRECT, paced, the device, its rows (the series' length when 0).
    pub conditions: Conditions,
}

/// All findings: link, queue, then drops, recoveries and throttling by time (untimed last).
pub fn all_findings(facts: &RunFacts) -> Vec<Finding> {
    let c = match facts.conditions.rows {
        0 => facts.conditions.with_rows(facts.series.len()),
        _ => facts.conditions,
    };
    let mut out = Vec::new();
    if let Some(link) = facts.link {
        out.extend(ask(&c, Detector::LinkBelowMax, || link_below_max(link)));
        out.extend(ask(&c, Detector::LinkBound, || {
            link_bound_in(link, facts.series)
        }));
    }
    if let Some((limits, settings, observed)) = facts.queue {
        out.extend(queue_findings(limits, settings, observed, &c));
    }
    let params = SlowdownParams {
        temp_warn_c: facts.temp_warn_c,
        ..SlowdownParams::default()
    };
    let mut timed = ask(&c, Detector::Slowdown, || slowdowns(facts.series, params));
    timed.extend(ask(&c, Detector::Thermal, || {
        thermal_throttling(facts.series, facts.temp_warn_c, facts.counters)
    }));
    // Stable: a drop and its recovery keep their order; untimed findings go last.
    timed.sort_by(|a, b| {
        let key = |f: &Finding| f.at_s.unwrap_or(f64::INFINITY);
        key(a).total_cmp(&key(b))
    });
    out.extend(timed);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::link::LinkKind;

    #[test]
    fn a_run_reads_link_then_queue_then_time() {
        // Half writes of 4 KiB: 30 s at 10k IOPS and 60 °C, then 30 s at 5k at 79 °C.
        let series: Vec<Interval> = (0..60u64)
            .map(|i| {
                let ops = if i < 30 { 10_000 } else { 5_000 };
                Interval {
                    t_s: i as f64 + 1.0,
                    elapsed_s: 1.0,
                    key: 1,
                    ops,
                    bytes: ops * 4096,
                    write_bytes: ops * 2048,
                    written_bytes: 2048 * (10_000 * (i + 1).min(30) + 5_000 * i.saturating_sub(29)),
                    write_pct: 50,
                    temp_c: Some(if i < 30 { 60.0 } else { 79.0 }),
                    ..Interval::default()
                }
            })
            .collect();
        let link = LinkInput {
            kind: LinkKind::Sata,
            speed: Some("3.0 Gbps".into()),
            max_speed: Some("6.0 Gbps".into()),
            ceiling_bytes_per_s: Some(300e6),
            max_ceiling_bytes_per_s: Some(600e6),
            ..LinkInput::default()
        };
        let limits = QueueLimits {
            write_cache: Some("write back".into()),
            ..QueueLimits::default()
        };
        let settings = QueueSettings {
            write_pct: 50,
            bs_bytes: 4096,
            threads: 1,
            iodepth: 1,
            ..QueueSettings::default()
        };
        let facts = RunFacts {
            series: &series,
            link: Some(&link),
            queue: Some((&limits, &settings, &Observed::default())),
            temp_warn_c: Some(80.0),
            counters: None,
            conditions: Conditions::default(),
        };
        let kinds: Vec<String> = all_findings(&facts).into_iter().map(|f| f.kind).collect();
        assert_eq!(
            kinds,
            [
                "link_below_max",
                "volatile_write_cache",
                "slowdown",
                "thermal_throttling"
            ]
        );
        assert!(
            all_findings(&RunFacts::default()).is_empty(),
            "nothing known, nothing said"
        );
    }
}
