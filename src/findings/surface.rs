//! What a surface scan's map says: stretches much slower than the disk around them (weak or
//! remapped sectors, found by `surface_stretch`), reads that failed (by offset), and a curve of the wrong shape — one that
//! does not fall on a rotational disk, or falls on flash. Pure functions over the report; the
//! thresholds and their sources are in `thresholds`, and `detect` asks each through the
//! conditions table.

use super::conditions::{Conditions, Detector, ask};
use super::surface_stretch::slow_stretches;
use super::thresholds::{
    SURFACE_CURVE_EDGE, SURFACE_CURVE_MIN_REGIONS, SURFACE_CURVE_MIN_SPAN, SURFACE_FLASH_MAX_FALL,
    SURFACE_HDD_MIN_FALL, SURFACE_SLOW_READ_NS,
};
use crate::model::finding::{Finding, kind};
use crate::model::surface::SurfaceReport;
use crate::units::{format_byte_range, format_bytes, format_latency_ns};

/// What the detectors know of the disk beside the report.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SurfaceFacts {
    /// The kernel's rotational flag; `None` when it could not be read.
    pub rotational: Option<bool>,
    /// The span's share of the device (1.0: the whole disk); `None` when unknown.
    pub span_share: Option<f64>,
}

/// Every surface finding that may speak under `c`.
pub fn detect(report: &SurfaceReport, facts: &SurfaceFacts, c: &Conditions) -> Vec<Finding> {
    let mut out = ask(c, Detector::SurfaceRegions, || read_errors(report));
    out.extend(ask(c, Detector::SurfaceRegions, || slow_regions(report)));
    out.extend(ask(c, Detector::SurfaceRegions, || slow_reads(report)));
    out.extend(ask(c, Detector::SurfaceCurve, || {
        curve_shape(report, facts)
    }));
    out
}

/// Decimal MB/s, 3–4 significant digits.
fn mb(bw_bytes_per_s: f64) -> String {
    let v = bw_bytes_per_s / 1e6;
    if v < 10.0 {
        format!("{v:.2}")
    } else if v < 1000.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// `series::median`, `None` for no values.
pub(super) fn median(v: Vec<f64>) -> Option<f64> {
    (!v.is_empty()).then(|| super::series::median(&v))
}

/// Runs of neighbouring indices: (first, last).
fn runs(indices: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &i in indices {
        match out.last_mut() {
            Some((_, last)) if *last + 1 == i => *last = i,
            _ => out.push((i, i)),
        }
    }
    out
}

/// A share of the disk in percent with two significant digits below 1% ("0.049%"), so a
/// small stretch of a large disk never reads as "0.0%".
fn percent(share: f64) -> String {
    if share >= 10.0 {
        format!("{share:.0}%")
    } else if share >= 1.0 {
        format!("{share:.1}%")
    } else if share > 0.0 {
        let decimals = (1.0 - share.log10().floor()).clamp(2.0, 9.0) as usize;
        format!("{share:.decimals$}%")
    } else {
        "0%".to_string()
    }
}

/// One finding per stretch much slower than the disk around it (`surface_stretch`).
pub fn slow_regions(report: &SurfaceReport) -> Vec<Finding> {
    (slow_stretches(report).into_iter())
        .map(|s| {
            let (start, _) = report.map.region_range(s.first);
            let (last_start, last_len) = report.map.region_range(s.last);
            let end = last_start + last_len;
            let regions = &report.regions[s.first..=s.last];
            let slowest = regions.iter().map(|r| r.max_service_ns).max().unwrap_or(0);
            let share = (end - start) as f64 * 100.0 / report.map.span_bytes.max(1) as f64;
            Finding::new(
                kind::SURFACE_SLOW_REGION,
                format!(
                    "{} of the disk, at {}, reads at {} MB/s against {} MB/s around it (its \
                     slowest read took {}): weak or remapped sectors",
                    percent(share),
                    format_byte_range(start, end),
                    mb(s.rate),
                    mb(s.around),
                    format_latency_ns(slowest as f64)
                ),
            )
        })
        .collect()
}

/// Regions with reads in Victoria's orange and red bands (200 ms and more), by offset.
pub fn slow_reads(report: &SurfaceReport) -> Vec<Finding> {
    let slow: Vec<usize> = (report.regions.iter().enumerate())
        .filter(|(_, r)| r.max_service_ns >= SURFACE_SLOW_READ_NS)
        .map(|(i, _)| i)
        .collect();
    if slow.is_empty() {
        return Vec::new();
    }
    let shown: Vec<String> = (runs(&slow).iter().take(5))
        .map(|&(first, last)| {
            let (start, _) = report.map.region_range(first);
            let (s, len) = report.map.region_range(last);
            let worst = (first..=last)
                .map(|i| report.regions[i].max_service_ns)
                .max()
                .unwrap_or(0);
            format!(
                "{} (up to {})",
                format_byte_range(start, s + len),
                format_latency_ns(worst as f64)
            )
        })
        .collect();
    let n = slow.len();
    let regions = if n == 1 { "region" } else { "regions" };
    vec![Finding::new(
        kind::SURFACE_SLOW_READS,
        format!(
            "{n} {regions} had reads of 200 ms or more (Victoria's orange and red), at {}: the \
             drive retried there; sectors that may fail next",
            shown.join(", ")
        ),
    )]
}

/// One finding for every read error, by offset (the first few named; JSON holds them all).
pub fn read_errors(report: &SurfaceReport) -> Vec<Finding> {
    if report.errors.is_empty() {
        return Vec::new();
    }
    let shown: Vec<String> = (report.errors.iter().take(5))
        .map(|e| format!("{} (byte {})", format_bytes(e.offset), e.offset))
        .collect();
    let more = report.errors.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let n = report.errors.len();
    let reads = if n == 1 { "read" } else { "reads" };
    vec![Finding::new(
        kind::SURFACE_READ_ERRORS,
        format!(
            "{n} {reads} failed, at {}{more}: {}; unreadable sectors — the drive's pending and \
             reallocated sector counts (--health) say whether it could remap them",
            shown.join(", "),
            report.errors[0].error
        ),
    )]
}

/// The outer and inner tenth's rates: (outer, inner), when enough regions were read.
fn edges(report: &SurfaceReport) -> Option<(f64, f64)> {
    let read: Vec<f64> = report
        .regions
        .iter()
        .filter_map(|r| r.bw_bytes_per_s())
        .collect();
    if read.len() < SURFACE_CURVE_MIN_REGIONS {
        return None;
    }
    let n = ((read.len() as f64 * SURFACE_CURVE_EDGE).ceil() as usize).max(1);
    let outer = median(read[..n].to_vec())?;
    let inner = median(read[read.len() - n..].to_vec())?;
    Some((outer, inner))
}

/// A rotational disk whose curve does not fall, or flash whose curve does.
pub fn curve_shape(report: &SurfaceReport, facts: &SurfaceFacts) -> Vec<Finding> {
    let (Some(rotational), Some(share)) = (facts.rotational, facts.span_share) else {
        return Vec::new();
    };
    if share < SURFACE_CURVE_MIN_SPAN || !report.complete {
        return Vec::new();
    }
    let Some((outer, inner)) = edges(report) else {
        return Vec::new();
    };
    let fall = 1.0 - inner / outer.max(1.0);
    let figures = format!(
        "the outer tenth reads at {} MB/s, the inner tenth at {} MB/s",
        mb(outer),
        mb(inner)
    );
    if rotational && fall < SURFACE_HDD_MIN_FALL {
        vec![Finding::new(
            kind::SURFACE_FLAT_CURVE,
            format!(
                "the curve does not fall ({figures}): a spinning disk reads its inner tracks \
                 ~40% slower; a RAID or a cache in front of the platters, or a device flagged \
                 rotational that is not"
            ),
        )]
    } else if !rotational && fall > SURFACE_FLASH_MAX_FALL {
        vec![Finding::new(
            kind::SURFACE_FALLING_FLASH,
            format!(
                "the curve falls by {:.0}% on flash ({figures}): flash has no tracks to fall \
                 by; a disk flagged non-rotational that spins (USB bridges hide it), or the \
                 start of the span was read from never-written blocks",
                fall * 100.0
            ),
        )]
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::fold::{Completion, Fold};
    use crate::surface::plan::ScanPlan;

    /// A scan of 100 regions of 8 MiB whose reads take `ms(i)` milliseconds per MiB.
    fn scan(ms: impl Fn(u64) -> f64) -> SurfaceReport {
        let plan = ScanPlan::full(800 << 20, 1 << 20, 100);
        let mut fold = Fold::new(&plan, "/dev/sdz", 8);
        for i in 0..800u64 {
            let ns = (ms(i / 8) * 1e6) as u64;
            fold.add(&Completion {
                offset: i << 20,
                len: 1 << 20,
                latency_ns: ns,
                service_ns: ns,
                busy_ns: ns,
                result: Ok(()),
            });
        }
        fold.finish(10.0, true)
    }

    #[test]
    fn jitter_is_no_slow_region_but_a_stretch_at_a_tenth_is() {
        // Every third region 2.5× slower: scatter, and 8 MiB costs 30 ms more, under 100 ms.
        let noisy = scan(|i| if i % 3 == 0 { 10.0 } else { 4.0 });
        assert!(
            slow_regions(&noisy).is_empty(),
            "{:?}",
            slow_regions(&noisy)
        );
        let weak = scan(|i| if (40..42).contains(&i) { 60.0 } else { 6.0 });
        let found = slow_regions(&weak);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].text.contains("at 320 MiB–336 MiB"),
            "{}",
            found[0].text
        );
        assert!(
            found[0]
                .text
                .contains("reads at 17.5 MB/s against 174.8 MB/s"),
            "{}",
            found[0].text
        );
    }

    #[test]
    fn a_small_share_of_a_large_disk_is_never_zero_percent() {
        assert_eq!(percent(100.0 / 2048.0), "0.049%");
        assert_eq!(percent(3.0 / 2.0e6 * 100.0), "0.00015%");
        assert_eq!(percent(0.5), "0.50%");
        assert_eq!(percent(6.25), "6.2%");
        assert_eq!(percent(50.0), "50%");
        let weak = scan(|i| if i == 40 { 600.0 } else { 6.0 });
        let found = slow_regions(&weak);
        assert!(found[0].text.starts_with("1.0% of the disk"), "{found:?}");
    }

    #[test]
    fn the_curve_should_fall_on_a_spinning_disk_and_not_on_flash() {
        let whole = |rotational| SurfaceFacts {
            rotational: Some(rotational),
            span_share: Some(1.0),
        };
        let falling = scan(|i| 5.0 + 4.0 * i as f64 / 100.0);
        let flat = scan(|_| 5.0);
        assert!(curve_shape(&falling, &whole(true)).is_empty());
        assert_eq!(
            curve_shape(&flat, &whole(true))[0].kind,
            kind::SURFACE_FLAT_CURVE
        );
        assert!(curve_shape(&flat, &whole(false)).is_empty());
        assert_eq!(
            curve_shape(&falling, &whole(false))[0].kind,
            kind::SURFACE_FALLING_FLASH
        );
        let part = SurfaceFacts {
            span_share: Some(0.5),
            ..whole(true)
        };
        assert!(
            curve_shape(&flat, &part).is_empty(),
            "half a disk holds half its fall"
        );
    }
}
