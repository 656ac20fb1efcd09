//! The findings of a series of steps — a sweep's steps, a suite's passes — each one setting
//! measured for a few seconds: the link below its maximum, the queue's limits for every
//! setting the series ran (a block-size sweep past `max_sectors_kb`, a depth sweep past the
//! device's queue), the rotational flag against the random-read steps' latency, and the link
//! at its ceiling in the busiest step. The time-based findings (drops, throttling, steady
//! state) need one setting held for longer than a step and are not judged here.

use super::WhyFacts;
use crate::findings::Finding;
use crate::findings::conditions::{Detector, ask};
use crate::findings::link::{link_below_max, link_bound};
use crate::findings::queue::{Observed, QueueSettings, queue_findings};
use crate::findings::series::median;
use crate::stats::IntervalFigures;

/// Every finding of `steps`, the link first, each said once.
pub fn step_findings(facts: &WhyFacts, steps: &[IntervalFigures]) -> Vec<Finding> {
    let link = facts.link.as_ref();
    let mut out = ask(&facts.conditions, Detector::LinkBelowMax, || {
        link.and_then(link_below_max)
    });
    // Each step is one row of its setting, paced as its timetable says.
    let step_conditions = |s: &IntervalFigures| facts.conditions_of(&s.settings, &s.counts, 1);
    let random_reads: Vec<f64> = steps
        .iter()
        .filter(|s| s.settings.random_pct == 100 && s.settings.read_pct == 100)
        .filter(|s| s.latency_ns.count > 0)
        .filter(|s| step_conditions(s).allows(Detector::RotationalFlag))
        .map(|s| s.latency_ns.p50 as f64)
        .collect();
    let observed = Observed {
        read_latency_p50_ns: (!random_reads.is_empty()).then(|| median(&random_reads)),
        span_bytes: facts.span_bytes,
    };
    if let Some(limits) = &facts.limits {
        for s in steps {
            let qs = QueueSettings {
                bs_bytes: s.settings.bs,
                threads: s.settings.threads as u32,
                iodepth: s.settings.iodepth as u32,
                write_pct: 100 - s.settings.read_pct.min(100),
                random_pct: s.settings.random_pct,
                fsync_every: facts.fsync_every,
            };
            for f in queue_findings(limits, &qs, &observed, &step_conditions(s)) {
                if !out.iter().any(|o| o.text == f.text) {
                    out.push(f);
                }
            }
        }
    }
    let rates = |s: &IntervalFigures| {
        let per_s = |b: u64| {
            if s.elapsed_s > 0.0 {
                b as f64 / s.elapsed_s
            } else {
                0.0
            }
        };
        (per_s(s.counts.read_bytes), per_s(s.counts.write_bytes))
    };
    if let Some(link) = &facts.link {
        let busiest = steps
            .iter()
            .filter(|s| step_conditions(s).allows(Detector::LinkBound))
            .map(rates)
            .max_by(|a, b| (a.0 + a.1).total_cmp(&(b.0 + b.1)));
        out.extend(busiest.and_then(|(r, w)| link_bound(link, r, w)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::kind;
    use crate::findings::link::{LinkInput, LinkKind};
    use crate::findings::queue::QueueLimits;
    use crate::settings::Settings;
    use crate::stats::Window;

    fn step(bs: u64, bytes_per_s: f64) -> IntervalFigures {
        let mut f = Window::default().figures();
        f.settings = Settings {
            bs,
            random_pct: 0,
            ..Settings::default()
        };
        f.elapsed_s = 3.0;
        f.counts.read_bytes = (bytes_per_s * 3.0) as u64;
        f.counts.bytes = f.counts.read_bytes;
        f
    }

    #[test]
    fn a_block_size_ladder_names_the_split_and_the_link_it_reaches() {
        let facts = WhyFacts {
            link: Some(LinkInput {
                kind: LinkKind::Sata,
                speed: Some("3.0 Gb/s".into()),
                max_speed: Some("6.0 Gb/s".into()),
                ceiling_bytes_per_s: Some(300e6),
                max_ceiling_bytes_per_s: Some(600e6),
                ..LinkInput::default()
            }),
            limits: Some(QueueLimits {
                max_sectors_kb: Some(512),
                ..QueueLimits::default()
            }),
            ..WhyFacts::default()
        };
        let steps = [
            step(64 << 10, 150e6),
            step(1 << 20, 290e6),
            step(4 << 20, 291e6),
        ];
        let found = step_findings(&facts, &steps);
        let kinds: Vec<&str> = found.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                kind::LINK_BELOW_MAX,
                kind::QUEUE_SPLIT,
                kind::QUEUE_SPLIT,
                kind::LINK_BOUND
            ]
        );
        assert!(
            found[1]
                .text
                .starts_with("1 MiB blocks are split into 2 requests of 512 KiB")
        );
        assert!(
            found[3]
                .text
                .starts_with("291 MB/s is 97% of the link's 300 MB/s"),
            "{}",
            found[3].text
        );
        assert!(step_findings(&WhyFacts::default(), &steps).is_empty());
    }
}
