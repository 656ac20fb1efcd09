//! A result set against a baseline (`baseline::Baseline`): a run's total, a fleet host by
//! host, a suite's card test by test, a sweep step by step — the change in percent beside
//! the figures then and now, and above them, when the two measured different things, the
//! line saying what differs (`conditions::differ_line`). Which kind of baseline a mode can
//! compare with at all is `fits`, checked before anything runs. A run is also compared
//! period by period when both went through the same settings in the same order
//! (`compare_periods`), and every result says what made the baseline and how that differs
//! from now (`compare_meta`); those two are in `compare_story.rs`.

use std::path::Path;

use super::baseline::{Baseline, CardFigures, Figures, change};
use super::conditions::{Conditions, differ_line};
use crate::fleet::hosts::Host;
use crate::model::RunReport;
use crate::model::fleet::{Figures as FleetFigures, FleetReport, HostState};
use crate::model::suite::{Direction, SuiteReport};
use crate::stats::IntervalFigures;
use crate::sweep::Dimension;
use crate::units::{format_latency_ns, visible};

#[path = "compare_story.rs"]
mod story;
pub use story::{compare_meta, compare_periods};

/// The line saying what `b` measured differently from `now`, with its newline; empty
/// when nothing recorded differs.
pub fn differs(b: &Baseline, now: &Conditions) -> String {
    differ_line(b.label(), &b.conditions(), now).map_or(String::new(), |l| l + "\n")
}

/// "vs baseline run.json: IOPS 13.1k vs 12.3k (+7%), p99 150 µs vs 180 µs (-17%)", under
/// the line saying what differs, if anything does.
pub fn compare_run(b: &Baseline, r: &RunReport) -> String {
    let above = differs(b, &Conditions::of_config(&r.config));
    let sides = match b {
        Baseline::Run {
            sides: Some(then), ..
        } => r
            .total
            .sides
            .as_ref()
            .map_or(String::new(), |now| super::sides::versus(now, then)),
        _ => String::new(),
    };
    format!("{above}{}{sides}", run_figures_line(b, r))
}

fn run_figures_line(b: &Baseline, r: &RunReport) -> String {
    match b {
        Baseline::Run { label, total, .. } => {
            format!("vs baseline {label}: {}", run_vs(r, total, ""))
        }
        Baseline::Fleet { label, hosts, .. } => match b.run_figures() {
            Some(m) => format!(
                "vs baseline fleet {label} ({} hosts): {}",
                hosts.len(),
                run_vs(r, &m, "the median host's ")
            ),
            None => format!("baseline fleet {label} has no host that finished"),
        },
        Baseline::Sweep { label, .. } => {
            format!("baseline {label} is a sweep; compare it with a sweep")
        }
        Baseline::Suite { label, .. } => {
            format!("baseline {label} is a suite's card; compare it with --suite")
        }
        Baseline::FioGroups { label, .. } => {
            format!("baseline {label} is fio's output of several groups; compare it with fio")
        }
        Baseline::Disks { label, .. } => {
            format!("baseline {label} is a run on several targets; compare it with one")
        }
    }
}

/// "IOPS 13.1k vs 12.3k (+7%), p99 150 µs vs 180 µs (-17%)": a run's total against `then`
/// (`whose` names it: "the median host's ").
fn run_vs(r: &RunReport, then: &Figures, whose: &str) -> String {
    let p99 = r.total.latency_ns.p99 as f64;
    format!(
        "IOPS {:.0} vs {whose}{:.0} ({}), p99 {} vs {} ({})",
        r.total.iops,
        then.iops,
        change(r.total.iops, then.iops),
        format_latency_ns(p99),
        format_latency_ns(then.p99_ns),
        change(p99, then.p99_ns)
    )
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
    let f = &r.fleet;
    let mut now =
        Conditions::of_settings(&f.settings, Some(f.ioengine.name()), &f.target, f.direct);
    if f.target.is_empty() {
        now.target = None;
    }
    let above = differs(b, &now);
    match b {
        Baseline::Fleet {
            label,
            hosts,
            aggregate,
            ..
        } => {
            let mut out = format!("{above}vs baseline fleet {label}:\n");
            out.push_str(&fleet_vs_fleet(
                &done,
                hosts,
                r.aggregate.iops,
                aggregate.iops,
            ));
            out
        }
        Baseline::Run { label, total, .. } => {
            let mut out = format!("{above}vs baseline run {label} (every host against it):\n");
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
        Baseline::FioGroups { label, .. } => {
            format!("baseline {label} is fio's output of several groups; compare it with fio\n")
        }
        Baseline::Disks { label, .. } => {
            format!("baseline {label} is a run on several targets; compare it with one\n")
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
        ..
    } = b
    else {
        return format!(
            "baseline {} is not a suite's card; compare it with a run, sweep or fleet",
            b.label()
        );
    };
    let c = &r.config;
    let now = Conditions {
        ioengine: Some(c.ioengine.name().to_string()),
        target: Some(c.target.path.clone()),
        direct: Some(c.target.direct),
        fsync_every: Some(c.durability.fsync_every),
        ..Conditions::default()
    };
    let mut out = differs(b, &now);
    out.push_str(&format!(
        "vs baseline {label} (suite {suite}), medians now vs then:\n"
    ));
    for t in &r.tests {
        let before = tests.iter().find(|(n, _, _)| *n == t.name);
        let mut cells = Vec::new();
        for d in [Direction::Read, Direction::Write] {
            let now = t.direction(d).ok().map(CardFigures::of);
            let then = before.and_then(|(_, r, w)| if d == Direction::Read { *r } else { *w });
            cells.push(match (now, then) {
                (Some(n), Some(b)) => card_cell(d, &n, &b, t.random),
                (Some(_), None) => format!("{} not in the baseline", d.name()),
                (None, Some(_)) => format!("{} not run now", d.name()),
                (None, None) => continue,
            });
        }
        out.push_str(&format!("  {:<14}{}\n", t.name, cells.join(" · ")));
    }
    out
}

/// "read 1234 vs 1200 IOPS (+3%), p99 -5%" for a random test, MB/s for a sequential one.
fn card_cell(d: Direction, now: &CardFigures, then: &CardFigures, random: bool) -> String {
    let (a, b, figures) = if random {
        (
            now.iops,
            then.iops,
            format!("{:.0} vs {:.0} IOPS", now.iops, then.iops),
        )
    } else {
        let (a, b) = (now.mb_per_s, then.mb_per_s);
        (a, b, format!("{a:.1} vs {b:.1} MB/s"))
    };
    format!(
        "{} {figures} ({}), p99 {}",
        d.name(),
        change(a, b),
        change(now.p99_ns, then.p99_ns)
    )
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

/// Which kind of baseline a mode compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wants {
    /// A run (or the TUI): a run's total, or a fleet's median host.
    Run,
    /// A sweep: a sweep of the same knob, step by step.
    Sweep(Dimension),
    /// A suite: a card, test by test.
    Suite,
    /// A fleet: a fleet host by host, or a run every host is set against.
    Fleet,
    /// Several targets: a run on several target by target, or a run each is set against.
    Disks,
}

impl Wants {
    /// What this mode needs, in words.
    pub fn needs(self) -> String {
        match self {
            Wants::Run => "a run compares with a single run (--json FILE of a run, fio's JSON of one group of jobs) or a fleet's median host".into(),
            Wants::Sweep(d) => format!(
                "--sweep {} compares step by step with a sweep of {} saved with --json FILE",
                d.name(),
                d.name()
            ),
            Wants::Suite => "--suite compares test by test with a suite's card saved with --suite --json FILE".into(),
            Wants::Fleet => "--fleet compares with a fleet's result (--json FILE of --fleet, fio's client/server JSON) or a single run".into(),
            Wants::Disks => "several targets compare target by target with a run on several targets (--json FILE), or each with a single run or a fleet's median host".into(),
        }
    }
}

/// Whether `b` is a baseline `wants` can compare with; else the one line saying what the
/// file holds and what this run needs (`path` as typed).
pub fn fits(b: &Baseline, wants: Wants, path: &Path) -> Result<(), String> {
    let ok = match (b, wants) {
        (Baseline::Run { .. } | Baseline::Fleet { .. }, Wants::Run | Wants::Fleet) => true,
        (Baseline::Sweep { dimension, .. }, Wants::Sweep(d)) => *dimension == d,
        (Baseline::Suite { .. }, Wants::Suite) => true,
        (Baseline::Run { .. } | Baseline::Fleet { .. } | Baseline::Disks { .. }, Wants::Disks) => {
            true
        }
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(format!(
        "--baseline {}: holds {}; {}",
        visible(&path.display().to_string()),
        b.holds(),
        wants.needs()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Meta;
    use crate::model::fleet::DEFAULT_PORT;
    use crate::render::baseline::SavedPeriod;
    use crate::settings::Settings;

    fn figures(iops: f64, p99_ns: f64) -> Figures {
        Figures {
            iops,
            bw_bytes_per_s: iops * 4096.0,
            p50_ns: p99_ns / 2.0,
            p99_ns,
        }
    }

    /// The lines a run prints against a saved run and against a fleet's median host.
    #[test]
    fn a_run_against_a_run_and_a_fleet() {
        let mut r = RunReport::example();
        r.total.iops = 1100.0;
        r.total.latency_ns.p99 = 180_000;
        let same = Conditions::of_config(&r.config);
        let run = Baseline::Run {
            label: "a.json".into(),
            total: figures(1000.0, 200_000.0),
            conditions: same.clone(),
            holds: "a single run".into(),
            sides: None,
        };
        assert_eq!(
            compare_run(&run, &r),
            "vs baseline a.json: IOPS 1100 vs 1000 (+10%), p99 180 µs vs 200 µs (-10%)"
        );
        // A baseline of other settings says so above the figures.
        let other = Baseline::Run {
            label: "a.json".into(),
            total: figures(1000.0, 200_000.0),
            conditions: Conditions {
                bs: Some(1 << 20),
                read_pct: Some(0),
                random_pct: Some(0),
                ..same.clone()
            },
            holds: "a single run".into(),
            sides: None,
        };
        assert_eq!(
            compare_run(&other, &r),
            "baseline a.json measured something else: block size 1M then, 4k now; reads 0% then, 100% now; random 0% then, 100% now — the figures compare unlike runs\n\
             vs baseline a.json: IOPS 1100 vs 1000 (+10%), p99 180 µs vs 200 µs (-10%)"
        );
        let host = |n: &str| Host {
            name: n.into(),
            port: DEFAULT_PORT,
        };
        let fleet = Baseline::Fleet {
            label: "f.json".into(),
            hosts: vec![
                (host("a"), figures(1000.0, 200_000.0)),
                (host("b"), figures(2000.0, 100_000.0)),
            ],
            aggregate: figures(3000.0, 200_000.0),
            conditions: same,
        };
        assert_eq!(
            compare_run(&fleet, &r),
            "vs baseline fleet f.json (2 hosts): IOPS 1100 vs the median host's 1000 (+10%), p99 180 µs vs 200 µs (-10%)"
        );
    }

    /// A run of `threads` periods (1, 2, 4 … threads) at `iops` each.
    fn story(threads: &[usize], iops: f64) -> RunReport {
        let mut r = RunReport::example();
        r.periods.list = threads
            .iter()
            .map(|&t| crate::stats::Period {
                sides: None,
                began: crate::stats::Began::Change,
                settings: Some(Settings {
                    threads: t,
                    ..Settings::default()
                }),
                merged: 1,
                start_s: 0.0,
                end_s: 1.0,
                elapsed_s: 1.0,
                counts: Default::default(),
                iops: iops * t as f64,
                bw_bytes_per_s: 0.0,
                latency_ns: crate::stats::LatencySummary {
                    p99: 100_000 * t as u64,
                    ..Default::default()
                },
                service_latency_ns: Default::default(),
                left_out: Default::default(),
            })
            .collect();
        r
    }

    fn saved(r: &RunReport, iops: f64) -> Vec<SavedPeriod> {
        r.periods
            .list
            .iter()
            .map(|p| SavedPeriod {
                settings: p.settings,
                figures: figures(iops * p.settings.unwrap().threads as f64, 200_000.0),
            })
            .collect()
    }

    #[test]
    fn runs_of_the_same_settings_compare_period_by_period() {
        let now = story(&[1, 2, 4], 1100.0);
        let then = saved(&story(&[1, 2, 4], 1000.0), 1000.0);
        let text = compare_periods("a.json", &then, &now).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "vs baseline a.json period by period (the same 3 settings in the same order):"
        );
        assert_eq!(
            lines[3],
            "    3  4k random read QD1 T4: IOPS 4400 vs 4000 (+10%), p99 400 µs vs 200 µs (+100%)"
        );
        // Another order, or a missing period, is said, not compared row by row.
        let other = saved(&story(&[1, 4, 2], 1000.0), 1000.0);
        assert_eq!(
            compare_periods("a.json", &other, &now).unwrap(),
            "baseline a.json went through other settings (3 periods then, 3 now; period 2 was 4k random read QD1 T4 then, 4k random read QD1 T2 now): compared as totals only"
        );
        let fewer = saved(&story(&[1, 2], 1000.0), 1000.0);
        assert!(
            compare_periods("a.json", &fewer, &now)
                .unwrap()
                .contains("period 3 was none then, 4k random read QD1 T4 now")
        );
        assert!(
            compare_periods("a.json", &[], &now)
                .unwrap()
                .contains("keeps no periods")
        );
        // One period on each side: the totals say it all.
        let one = story(&[1], 1000.0);
        assert_eq!(compare_periods("a.json", &saved(&one, 1000.0), &one), None);
    }

    #[test]
    fn the_baseline_says_what_made_it_and_how_that_differs() {
        let now = Meta {
            tool: "diskscope".into(),
            version: "0.2.0".into(),
            schema: 1,
            started: "2026-11-24T06:00:00+01:00".into(),
            host: "db-8".into(),
            kernel: "6.1.0".into(),
        };
        let then = Meta {
            version: "0.1.0".into(),
            host: "db-7".into(),
            ..now.clone()
        };
        assert_eq!(
            compare_meta("a.json", &then, &now),
            "baseline a.json: saved by diskscope 0.1.0 on db-7 (Linux 6.1.0), started 2026-11-24T06:00:00+01:00\n  different versions: 0.1.0 then, 0.2.0 now: its figures may differ for that reason alone\n  different hosts: db-7 then, db-8 now: its figures may differ for that reason alone\n"
        );
        assert_eq!(
            compare_meta("fio.json", &Meta::default(), &now),
            "baseline fio.json: nothing in it says what made it or where (fio's output, or saved before diskscope wrote meta)\n"
        );
    }

    #[test]
    fn a_card_cell_says_iops_for_random_tests_and_mb_per_s_for_sequential_ones() {
        let now = CardFigures {
            mb_per_s: 450.0,
            iops: 1100.0,
            p99_ns: 90.0,
        };
        let then = CardFigures {
            mb_per_s: 500.0,
            iops: 1000.0,
            p99_ns: 100.0,
        };
        assert_eq!(
            card_cell(Direction::Read, &now, &then, true),
            "read 1100 vs 1000 IOPS (+10%), p99 -10%"
        );
        assert_eq!(
            card_cell(Direction::Write, &now, &then, false),
            "write 450.0 vs 500.0 MB/s (-10%), p99 -10%"
        );
    }
}
