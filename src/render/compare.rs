//! A result set against a baseline (`baseline::Baseline`): a run's total, a fleet host by
//! host, a suite's card test by test, a sweep step by step — the change in percent beside
//! the figures then and now.

use super::baseline::{Baseline, CardFigures, Figures, change};
use crate::fleet::hosts::Host;
use crate::model::RunReport;
use crate::model::fleet::{Figures as FleetFigures, FleetReport, HostState};
use crate::model::suite::{Direction, SuiteReport};
use crate::stats::IntervalFigures;
use crate::sweep::Dimension;
use crate::units::format_latency_ns;

/// "vs baseline run.json: IOPS 13.1k vs 12.3k (+7%), p99 150 µs vs 180 µs (-17%)".
pub fn compare_run(b: &Baseline, r: &RunReport) -> String {
    match b {
        Baseline::Run { label, total } => format!(
            "vs baseline {label}: IOPS {:.0} vs {:.0} ({}), p99 {} vs {} ({})",
            r.total.iops,
            total.iops,
            change(r.total.iops, total.iops),
            format_latency_ns(r.total.latency_ns.p99 as f64),
            format_latency_ns(total.p99_ns),
            change(r.total.latency_ns.p99 as f64, total.p99_ns)
        ),
        Baseline::Fleet { label, hosts, .. } => match b.run_figures() {
            Some(m) => format!(
                "vs baseline fleet {label} ({} hosts): IOPS {:.0} vs the median host's {:.0} ({}), p99 {} vs {} ({})",
                hosts.len(),
                r.total.iops,
                m.iops,
                change(r.total.iops, m.iops),
                format_latency_ns(r.total.latency_ns.p99 as f64),
                format_latency_ns(m.p99_ns),
                change(r.total.latency_ns.p99 as f64, m.p99_ns)
            ),
            None => format!("baseline fleet {label} has no host that finished"),
        },
        Baseline::Sweep { label, .. } => {
            format!("baseline {label} is a sweep; compare it with a sweep")
        }
        Baseline::Suite { label, .. } => {
            format!("baseline {label} is a suite's card; compare it with --suite")
        }
    }
}

/// A fleet against a baseline: fleet against fleet (the hosts found in both, one by one and
/// summed, then the whole fleets, saying when they are not the same hosts), or every host
/// against a single run. A host is matched by name and port, or by name alone when the name
/// is on each side once (the same server on another port).
pub fn compare_fleet(b: &Baseline, r: &FleetReport) -> String {
    let done: Vec<(Host, FleetFigures)> = r
        .hosts
        .iter()
        .filter(|h| h.state == HostState::Done)
        .filter_map(|h| {
            let host = Host {
                name: h.host.clone(),
                port: h.port,
            };
            Some((host, h.total?))
        })
        .collect();
    match b {
        Baseline::Fleet {
            label,
            hosts,
            aggregate,
        } => {
            let mut out = format!("vs baseline fleet {label}:\n");
            out.push_str(&fleet_vs_fleet(
                &done,
                hosts,
                r.aggregate.iops,
                aggregate.iops,
            ));
            out
        }
        Baseline::Run { label, total } => {
            let mut out = format!("vs baseline run {label} (every host against it):\n");
            for (h, t) in &done {
                out.push_str(&iops_line(&h.label(), t.iops, total.iops));
            }
            out
        }
        Baseline::Sweep { label, .. } => {
            format!("baseline {label} is a sweep; compare it with a sweep\n")
        }
        Baseline::Suite { label, .. } => {
            format!("baseline {label} is a suite's card; compare it with --suite\n")
        }
    }
}

/// "  a:8766: IOPS 9000 vs 10000 (-10%)".
fn iops_line(what: &str, now: f64, before: f64) -> String {
    format!(
        "  {what}: IOPS {now:.0} vs {before:.0} ({})\n",
        change(now, before)
    )
}

/// The finished hosts `done` against the baseline's `hosts`, one by one, then the fleets'
/// totals (`now_iops` against `before_iops`), summing only the hosts in both when the
/// fleets differ.
fn fleet_vs_fleet(
    done: &[(Host, FleetFigures)],
    hosts: &[(Host, Figures)],
    now_iops: f64,
    before_iops: f64,
) -> String {
    let once = |name: &str, n: usize| n == 1 && !name.is_empty();
    let find = |h: &Host| {
        hosts.iter().find(|(b, _)| b == h).or_else(|| {
            let here = done.iter().filter(|(d, _)| d.name == h.name).count();
            let there: Vec<&(Host, Figures)> =
                hosts.iter().filter(|n| n.0.name == h.name).collect();
            (once(&h.name, here) && there.len() == 1).then(|| there[0])
        })
    };
    let mut out = String::new();
    let (mut now_sum, mut before_sum, mut both) = (0.0, 0.0, 0);
    for (h, t) in done {
        if let Some((_, f)) = find(h) {
            out.push_str(&iops_line(&h.label(), t.iops, f.iops));
            now_sum += t.iops;
            before_sum += f.iops;
            both += 1;
        }
    }
    let (n_now, n_before) = (done.len(), hosts.len());
    if both == n_now && both == n_before {
        out.push_str(&iops_line("fleet total", now_iops, before_iops));
        return out;
    }
    if both > 0 {
        let plural = if both == 1 { "" } else { "s" };
        out.push_str(&iops_line(
            &format!("the {both} host{plural} in both, summed"),
            now_sum,
            before_sum,
        ));
    }
    out.push_str(&iops_line(
        &format!("fleet total ({n_now} finished hosts now, {n_before} then: not the same fleet)"),
        now_iops,
        before_iops,
    ));
    out
}

/// A card against a saved one, test by test (by name) and direction: the medians' change.
pub fn compare_suite(b: &Baseline, r: &SuiteReport) -> String {
    let Baseline::Suite {
        label,
        suite,
        tests,
    } = b
    else {
        return format!(
            "baseline {} is not a suite's card; compare it with a run, sweep or fleet",
            match b {
                Baseline::Run { label, .. }
                | Baseline::Sweep { label, .. }
                | Baseline::Fleet { label, .. }
                | Baseline::Suite { label, .. } => label,
            }
        );
    };
    let mut out = format!("vs baseline {label} (suite {suite}), medians now vs then:\n");
    for t in &r.tests {
        let before = tests.iter().find(|(n, _, _)| *n == t.name);
        let mut cells = Vec::new();
        for d in [Direction::Read, Direction::Write] {
            let now = t.direction(d).ok().map(CardFigures::of);
            let then = before.and_then(|(_, r, w)| if d == Direction::Read { *r } else { *w });
            cells.push(match (now, then) {
                (Some(n), Some(b)) if t.random => format!(
                    "{} {:.0} vs {:.0} IOPS ({}), p99 {}",
                    d.name(),
                    n.iops,
                    b.iops,
                    change(n.iops, b.iops),
                    change(n.p99_ns, b.p99_ns)
                ),
                (Some(n), Some(b)) => format!(
                    "{} {:.1} vs {:.1} MB/s ({}), p99 {}",
                    d.name(),
                    n.mb_per_s,
                    b.mb_per_s,
                    change(n.mb_per_s, b.mb_per_s),
                    change(n.p99_ns, b.p99_ns)
                ),
                (Some(_), None) => format!("{} not in the baseline", d.name()),
                (None, Some(_)) => format!("{} not run now", d.name()),
                (None, None) => continue,
            });
        }
        out.push_str(&format!("  {:<14}{}\n", t.name, cells.join(" · ")));
    }
    out
}

/// "  (baseline 52000 IO/s, +6%)" for a sweep step, or nothing.
pub fn compare_step(b: &Baseline, d: Dimension, r: &IntervalFigures) -> String {
    match b.step(d, d.value(&r.settings)) {
        Some(f) => format!(
            "  (baseline {:.0} IO/s, {})",
            f.iops,
            change(r.iops, f.iops)
        ),
        None => String::new(),
    }
}
