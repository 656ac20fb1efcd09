use super::*;
use crate::findings::kind;
use crate::model::disk::{LinkKind, TemperatureInfo};
use crate::model::finding::Finding;
use crate::model::why::{SteadyMetric, SteadyState, UntilSteadyReport};
use crate::stats::IntervalFigures;
use crate::stats::Window;

fn nvme_x2() -> LinkInfo {
    LinkInfo {
        speed: Some("8.0 GT/s".into()),
        width: Some(2),
        max_speed: Some("16.0 GT/s".into()),
        max_width: Some(4),
        ceiling_bytes_per_s: Some(1_969_230_769),
        max_ceiling_bytes_per_s: Some(7_876_923_076),
        ..LinkInfo::bare(LinkKind::Pcie, "PCIe 3.0 x2 (of 4.0 x4)", None)
    }
}

fn steady(reached: bool) -> SteadyState {
    SteadyState {
        reached,
        metric: SteadyMetric::Iops,
        since_s: reached.then_some(10.0),
        round_s: 5.0,
        rounds: 5,
        mean_iops: reached.then_some(12_345.0),
        mean_bw_bytes_per_s: reached.then_some(12_345.0 * 4096.0),
        excursion_pct: reached.then_some(7.0),
        slope_pct: reached.then_some(3.0),
        window_start_s: reached.then_some(10.0),
        window_end_s: reached.then_some(35.0),
        latency_mean_ns: reached.then_some(80_000.0),
        latency_p99_ns: reached.then_some(300_000),
    }
}

fn temp(t: Option<f64>) -> IntervalFigures {
    IntervalFigures {
        temp_c: t,
        ..Window::default().figures()
    }
}

#[test]
fn the_link_says_its_ceiling_or_why_there_is_none() {
    assert_eq!(
        link_words(&nvme_x2()),
        "PCIe 3.0 x2 (of 4.0 x4), ceiling 1.97 GB/s (of 7.88 GB/s)"
    );
    let virtio = LinkInfo::bare(
        LinkKind::Virtio,
        "virtio",
        Some("virtio: no physical link".into()),
    );
    assert_eq!(link_words(&virtio), "virtio: no physical link");
    let q = QueueLimits {
        max_sectors_kb: Some(1280),
        max_hw_sectors_kb: Some(2048),
        nr_requests: Some(256),
        nr_hw_queues: Some(8),
        nr_tags: Some(1023),
        write_cache: Some("write back".into()),
        rotational: Some(false),
        ..QueueLimits::default()
    };
    assert_eq!(
        queue_words(&q),
        "max_sectors_kb 1280 (hardware 2048), nr_requests 256, 8 hardware queues of 1023 tags, \
         write back, non-rotational"
    );
}

#[test]
fn the_summary_block_says_the_link_share_the_temperatures_and_the_findings() {
    let mut r = RunReport::example();
    r.config.disk.link = nvme_x2();
    r.config.disk.temperature = TemperatureInfo {
        thresholds: crate::model::disk::Thresholds {
            warn_c: Some(81.85),
            crit_c: None,
        },
        ..TemperatureInfo::default()
    };
    r.total.bw_bytes_per_s = 1.91e9;
    r.intervals = vec![temp(Some(41.0)), temp(None), temp(Some(79.4))];
    r.why.findings = vec![Finding::new(
        kind::LINK_BELOW_MAX,
        "PCIe link trained …".into(),
    )];
    r.why.steady_state = Some(steady(false));
    r.why.steady_text = Some("settling: −9% per round".into());
    let lines = summary_lines(&r);
    assert_eq!(
        lines,
        [
            "link: PCIe 3.0 x2 (of 4.0 x4), ceiling 1.97 GB/s (of 7.88 GB/s); this run's 1.91 \
             GB/s is 97% of it",
            "temperature: 41 °C to 79 °C (warning 82 °C)",
            "steady state: not reached (settling: −9% per round; rounds of 5 s, 5 to a window)",
            "findings:",
            "  - PCIe link trained …",
        ]
    );
    // No sensor: its reason, never 0 °C.
    r.intervals = vec![temp(None)];
    r.config.disk.temperature.sensor.reason = Some("no temperature sensor (virtio: …)".into());
    assert_eq!(
        summary_lines(&r)[1],
        "temperature: no temperature sensor (virtio: …)"
    );
}

#[test]
fn until_steady_quotes_the_window_or_says_it_never_settled() {
    let mut r = RunReport::example();
    assert!(result_lines(&r).is_empty(), "not asked, not said");
    r.why.steady_state = Some(steady(true));
    r.why.until_steady = Some(UntilSteadyReport {
        max_s: 60.0,
        settled: true,
        text: "steady since 0:10 (…)".into(),
    });
    assert_eq!(
        result_lines(&r),
        [
            "steady result (the window 0:10–0:35, 5 × 5 s, as SNIA PTS quotes it): 12.3k IOPS, \
          48.2 MiB/s, latency mean 80.0 µs p99 300 µs"
        ]
    );
    r.why.steady_state = Some(steady(false));
    r.why.until_steady = Some(UntilSteadyReport {
        max_s: 60.0,
        settled: false,
        text: "never settled in 60 s (…)".into(),
    });
    assert_eq!(
        result_lines(&r),
        [
            "until steady: never settled in 60 s (…); the figures above are the whole run's, not \
          a steady result"
        ]
    );
}

#[test]
fn the_summary_measures_the_link_against_the_ceiling_its_finding_uses() {
    // USB 2: 48 MB/s after encoding, about 40 MB/s in practice; `link_bound` judges 38.8 MB/s
    // as 97% of the practical figure, and the summary line must say the same share.
    let mut r = RunReport::example();
    r.config.disk.link = LinkInfo {
        speed: Some("480".into()),
        ceiling_bytes_per_s: Some(48_000_000),
        ..LinkInfo::bare(LinkKind::Usb, "USB 2.0 (480 Mbit/s)", None)
    };
    r.total.bw_bytes_per_s = 38.8e6;
    let line = &summary_lines(&r)[0];
    assert!(
        line.ends_with("this run's 38.8 MB/s is 97% of its practical 40.0 MB/s"),
        "{line}"
    );
}
