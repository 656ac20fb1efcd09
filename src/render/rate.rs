//! What a rate-limited run says about its rate: whether the disk delivered what was asked,
//! in measured figures ("asked 50.0k IOPS, doing 31.2k: the disk is saturated"). The workers
//! never skip a slot of their timetable, so a disk that keeps up delivers the asked rate to
//! within timer noise, and one that cannot falls behind it: achieved below asked by more than
//! `SHORTFALL` is saturation, not jitter. Shared by the text report and the TUI.

use crate::units::format_count_rate;

/// Achieved below asked by more than this share means the disk could not keep up. Measured on
/// a page-cached file (deliverable many times over), 1 s windows came within 0.5% of the rate.
pub const SHORTFALL: f64 = 0.03;

/// Whether `achieved` IOPS fall short of `asked` (0: unlimited, never short).
pub fn falls_short(asked: u64, achieved: f64) -> bool {
    asked > 0 && achieved < asked as f64 * (1.0 - SHORTFALL)
}

/// "asked 50.0k IOPS, doing 31.2k: the disk is saturated" when the disk falls short (`verb`:
/// "doing" live, "did" after the run); `None` when it kept up or there is no rate.
pub fn saturated(asked: u64, achieved: f64, verb: &str) -> Option<String> {
    falls_short(asked, achieved).then(|| {
        format!(
            "asked {} IOPS, {verb} {}: the disk is saturated",
            format_count_rate(asked as f64),
            format_count_rate(achieved)
        )
    })
}

/// The rate line of a summary: the shortfall, or "asked 5.0k IOPS, did 5.0k"; `None` without
/// a rate.
pub fn rate_line(asked: u64, achieved: f64) -> Option<String> {
    if asked == 0 {
        return None;
    }
    Some(saturated(asked, achieved, "did").unwrap_or_else(|| {
        format!(
            "asked {} IOPS, did {}",
            format_count_rate(asked as f64),
            format_count_rate(achieved)
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_only_beyond_the_threshold_and_only_with_a_rate() {
        assert!(!falls_short(0, 10.0));
        assert!(!falls_short(50_000, 49_000.0));
        assert!(falls_short(50_000, 31_000.0));
        let s = saturated(50_000, 31_000.0, "doing").unwrap();
        assert!(s.starts_with("asked 50"), "{s}");
        assert!(
            s.contains("doing 31") && s.ends_with("the disk is saturated"),
            "{s}"
        );
        assert_eq!(saturated(50_000, 49_990.0, "doing"), None);
        assert!(rate_line(5000, 4990.0).unwrap().contains("did"));
        assert_eq!(rate_line(0, 4990.0), None);
    }
}
