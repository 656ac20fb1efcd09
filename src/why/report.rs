//! A tracker's findings and steady state as a result carries them: `report` at the end of a
//! headless run (every finding in reading order, those judged over the whole series
//! included), `live_report` once a second for the run screen (what was said so far, cheap),
//! and the steady state with its window's latency.

use super::Tracker;
use crate::findings::conditions::{Detector, ask};
use crate::findings::link::{link_below_max, link_bound_in};
use crate::findings::thermal::{CountersAround, ThermalCounters, thermal_throttling};
use crate::findings::{Finding, Interval};
use crate::model::disk::ThermalLog;
use crate::model::why::{SteadyState, ThermalLogs, WhyReport};
use crate::stats::Latency;

impl Tracker {
    /// The steady state now, with the window's latency merged from its seconds' histograms
    /// where they were kept.
    pub fn steady_state(&self) -> SteadyState {
        let mut state = self.steady.state();
        if let (Some(from), Some(to)) = (state.window_start_s, state.window_end_s) {
            let mut merged = Latency::default();
            let inside = self
                .recent
                .iter()
                .filter(|(start, end, _)| *start >= from - 1e-6 && *end <= to + 1e-6);
            for (_, _, l) in inside {
                merged.add(l);
            }
            if !merged.is_empty() {
                let s = merged.summary();
                state.latency_mean_ns = Some(s.mean);
                state.latency_p99_ns = Some(s.p99);
            }
        }
        state
    }

    /// What was said so far, in reading order, and the steady state: the run screen's copy,
    /// cheap enough for once a second.
    pub fn live_report(&self) -> WhyReport {
        let mut findings = self.said.clone();
        reading_order(&mut findings);
        WhyReport {
            findings,
            steady_state: Some(self.steady_state()),
            steady_text: Some(self.steady.text()),
            until_steady: None,
            steady_changes: self.steady_changes.clone(),
            nvme_thermal_log: None,
            health: None,
        }
    }

    /// Every finding of the run in reading order — the link, the queue's limits for every
    /// settings run, the link's ceiling over the best window, then drops, recoveries and
    /// throttling by time — and the steady state, for the result.
    pub fn report(&self, logs: Option<ThermalLogs>) -> WhyReport {
        // The series holds only the seconds in which the disk set the pace (`keep`).
        let series: Vec<Interval> = self.series.iter().copied().collect();
        let c = self.facts.conditions.with_rows(series.len());
        let link = self.facts.link.as_ref();
        let mut findings = ask(&c, Detector::LinkBelowMax, || link.and_then(link_below_max));
        findings.extend(self.queue.iter().cloned());
        if let Some(link) = link {
            findings.extend(ask(&c, Detector::LinkBound, || {
                link_bound_in(link, &series)
            }));
        }
        let counters = logs.map(|l| CountersAround {
            before: counters_of(&l.before),
            after: counters_of(&l.after),
        });
        let mut timed = self.slowdown.findings();
        timed.extend(ask(&c, Detector::Thermal, || {
            thermal_throttling(&series, self.facts.temp_warn_c, counters)
        }));
        reading_order(&mut timed);
        findings.extend(timed);
        WhyReport {
            findings,
            steady_state: Some(self.steady_state()),
            steady_text: Some(self.steady.text()),
            until_steady: None,
            steady_changes: self.steady_changes.clone(),
            nvme_thermal_log: logs,
            health: None,
        }
    }
}

/// The findings in reading order: those for the whole run first (as said), then those in
/// time by when they apply.
fn reading_order(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        let at = |f: &Finding| f.at_s.unwrap_or(f64::NEG_INFINITY);
        at(a).total_cmp(&at(b))
    });
}

fn counters_of(log: &ThermalLog) -> ThermalCounters {
    ThermalCounters {
        tmt1_transitions: log.tmt1_transitions,
        tmt2_transitions: log.tmt2_transitions,
        tmt1_time_s: log.tmt1_total_s,
        tmt2_time_s: log.tmt2_total_s,
    }
}
