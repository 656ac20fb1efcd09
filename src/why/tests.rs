use super::*;
use crate::findings::link::LinkKind;

fn limits() -> QueueLimits {
    QueueLimits {
        max_sectors_kb: Some(1024),
        nr_requests: Some(64),
        nr_hw_queues: Some(1),
        ..QueueLimits::default()
    }
}

fn facts() -> WhyFacts {
    WhyFacts {
        link: Some(LinkInput {
            kind: LinkKind::Pcie,
            speed: Some("8.0 GT/s".into()),
            max_speed: Some("16.0 GT/s".into()),
            width: Some(2),
            max_width: Some(4),
            ceiling_bytes_per_s: Some(1.97e9),
            max_ceiling_bytes_per_s: Some(7.88e9),
        }),
        limits: Some(limits()),
        temp_warn_c: Some(80.0),
        span_bytes: Some(1 << 30),
        fsync_every: 0,
        conditions: Default::default(),
    }
}

/// Feeds `iops[i]` 4 KiB reads (or writes, `write`) in second i + 1 under `settings`, in
/// the run's period `period` (a new one at every change, resume and reset).
fn feed(
    t: &mut Tracker,
    from_s: usize,
    iops: &[u64],
    settings: Settings,
    period: usize,
) -> Vec<News> {
    let mut out = Vec::new();
    for (i, &ops) in iops.iter().enumerate() {
        let writes = settings.read_pct == 0;
        let mut latency = Latency::default();
        latency.record_n(100_000 + i as u64, ops);
        let counts = Counts {
            ops,
            bytes: ops * settings.bs,
            read_ops: if writes { 0 } else { ops },
            write_ops: if writes { ops } else { 0 },
            write_bytes: if writes { ops * settings.bs } else { 0 },
            read_bytes: if writes { 0 } else { ops * settings.bs },
            ..Counts::default()
        };
        out.push(t.push(Second {
            t_s: (from_s + i + 1) as f64,
            elapsed_s: 1.0,
            key: period as u64,
            settings,
            counts,
            latency: Some(&latency),
            p50_ns: Some(100_000.0),
            temp_c: Some(50.0),
            kernel_queue: Some(1.0),
            util_pct: Some(99.0),
        }));
    }
    out
}

#[test]
fn a_cliff_is_said_when_it_holds_and_the_steady_mark_drops_and_comes_back() {
    let mut t = Tracker::new(facts(), SteadyParams::with_round(2.0));
    let s = Settings::default();
    let first = feed(&mut t, 0, &[10_000; 1], s, 0);
    assert_eq!(
        first[0].findings[0].kind,
        kind::LINK_BELOW_MAX,
        "said at once"
    );
    let before = feed(&mut t, 1, &[10_000; 29], s, 0);
    let reached: Vec<&SteadyChange> = before.iter().filter_map(|n| n.steady.as_ref()).collect();
    assert_eq!(reached.len(), 1);
    assert!(reached[0].steady && reached[0].t_s == 10.0, "{reached:?}");
    let after = feed(&mut t, 30, &[4_000; 30], s, 0);
    let lost = after
        .iter()
        .position(|n| n.steady.as_ref().is_some_and(|c| !c.steady));
    let back = after
        .iter()
        .position(|n| n.steady.as_ref().is_some_and(|c| c.steady));
    let (lost, back) = (
        lost.expect("the drop unsettles it"),
        back.expect("and it settles"),
    );
    assert!(lost < back, "{lost} {back}");
    // The drop is said once the 10-s median has been low for 10 s (the median crosses after
    // 5-6 low seconds), and placed where it began (30 s).
    let said = after
        .iter()
        .position(|n| n.findings.iter().any(|f| f.kind == kind::SLOWDOWN))
        .expect("a slowdown");
    assert!((14..=16).contains(&said), "said {said} s after the cliff");
    let f = &after[said].findings[0];
    assert_eq!(f.at_s, Some(30.0));
    assert!(f.text.starts_with("IOPS fell 60% at 0:30"), "{}", f.text);
    let report = t.report(None);
    let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind.as_str()).collect();
    assert_eq!(kinds, [kind::LINK_BELOW_MAX, kind::SLOWDOWN]);
    let steady = report.steady_state.unwrap();
    assert!(steady.reached);
    assert_eq!(steady.mean_iops, Some(4_000.0));
    assert_eq!(report.steady_changes.len(), 3);
    // The window's latency is merged from its seconds' histograms: 100.0xx µs.
    let p99 = steady.latency_p99_ns.unwrap();
    assert!((100_000..100_200).contains(&p99), "{p99}");
}

#[test]
fn the_queue_is_judged_again_when_a_setting_crosses_a_limit() {
    let mut t = Tracker::new(facts(), SteadyParams::tui());
    let small = Settings::default();
    let news = feed(&mut t, 0, &[1000; 3], small, 0);
    assert!(
        news.iter()
            .flat_map(|n| &n.findings)
            .all(|f| f.kind == kind::LINK_BELOW_MAX),
        "4k at depth 1 crosses nothing"
    );
    let big = Settings {
        bs: 4 << 20,
        ..small
    };
    let news = feed(&mut t, 3, &[100; 3], big, 1);
    let split: Vec<&Finding> = news.iter().flat_map(|n| &n.findings).collect();
    assert_eq!(split.len(), 1);
    assert!(
        split[0]
            .text
            .starts_with("4 MiB blocks are split into 4 requests of 1 MiB")
    );
    let deep = Settings {
        threads: 4,
        iodepth: 64,
        ..small
    };
    feed(&mut t, 6, &[1000; 2], deep, 2);
    feed(&mut t, 8, &[100; 2], big, 3);
    let report = t.report(None);
    let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [kind::LINK_BELOW_MAX, kind::QUEUE_SPLIT, kind::KERNEL_QUEUE],
        "each said once, in the order met"
    );
}

#[test]
fn a_resume_is_a_new_period_so_no_window_spans_it() {
    let mut t = Tracker::new(WhyFacts::default(), SteadyParams::with_round(2.0));
    let s = Settings::default();
    feed(&mut t, 0, &[10_000; 10], s, 0);
    assert!(t.steady().reached());
    feed(&mut t, 10, &[10_000; 1], s, 1);
    assert!(!t.steady().reached(), "after a pause the check starts over");
    assert_eq!(t.steady().text(), "settling: 0 of 5 rounds");
    assert_eq!(t.written_bytes(), 0);
    let w = Settings { read_pct: 0, ..s };
    feed(&mut t, 11, &[10; 2], w, 2);
    assert_eq!(t.written_bytes(), 20 * 4096);
}
