//! The outlier rule, one for every group of like things measured side by side: the hosts of a
//! fleet and the disks of a multi-target run. A member whose figure is more than `pct` percent
//! below the median of the members that have one is an outlier, said as "sdf 38% below the
//! median of 12". Below the median, never above: the question is "which one holds the others
//! back", and a disk faster than its peers is not a fault. With fewer than two members there
//! is nothing to compare, so nobody is flagged.
//!
//! Pure arithmetic over per-member figures: it knows nothing of hosts, disks or where the
//! figures came from. The default share is `thresholds::OUTLIER_BELOW_MEDIAN_PCT`.

use super::{Finding, series::median};

/// The finding's kind: a member well below the group's median.
pub const KIND: &str = "outlier";

/// The rule's verdict over a group.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The median of the members that have a figure (0 when none does).
    pub median: f64,
    /// How many members the median is of.
    pub members: usize,
    /// Per member, in the order given: how far below the median it is, in percent, when that
    /// is more than the share; `None` for the others and for members without a figure.
    pub below_pct: Vec<Option<f64>>,
}

impl Verdict {
    /// The indexes of the outliers, in the order given.
    pub fn outliers(&self) -> Vec<usize> {
        (0..self.below_pct.len())
            .filter(|&i| self.below_pct[i].is_some())
            .collect()
    }
}

/// Judges `figures` (one per member; `None`: it has none, e.g. a failed host): who is more
/// than `pct` percent below the median of the others' figures.
pub fn judge(figures: &[Option<f64>], pct: f64) -> Verdict {
    let present: Vec<f64> = figures.iter().flatten().copied().collect();
    let m = median(&present);
    let below_pct = figures
        .iter()
        .map(|f| {
            let v = (*f)?;
            (present.len() >= 2 && m > 0.0 && v < m * (1.0 - pct / 100.0))
                .then(|| (1.0 - v / m) * 100.0)
        })
        .collect();
    Verdict {
        median: m,
        members: present.len(),
        below_pct,
    }
}

/// "sdf 38% below the median of 12", as a finding.
pub fn finding(name: &str, below_pct: f64, members: usize) -> Finding {
    Finding::new(
        KIND,
        format!("{name} {below_pct:.0}% below the median of {members}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_the_share_below_the_median_is_flagged_and_said() {
        // Median of 1000, 1000, 900, 790, 500 is 900; 20% below is 720.
        let v = judge(
            &[
                Some(1000.0),
                Some(1000.0),
                Some(900.0),
                Some(790.0),
                Some(500.0),
                None,
            ],
            20.0,
        );
        assert_eq!(v.median, 900.0);
        assert_eq!(v.members, 5);
        assert_eq!(v.outliers(), [4]);
        let pct = v.below_pct[4].unwrap();
        assert!((pct - 44.44).abs() < 0.01, "{pct}");
        assert_eq!(
            finding("sdf", pct, v.members).text,
            "sdf 44% below the median of 5"
        );
        // A 10% share flags 790 (12% below) too; exactly at the line is not below it.
        assert_eq!(
            judge(&[Some(1000.0), Some(790.0), Some(900.0)], 10.0).outliers(),
            [1]
        );
        assert_eq!(
            judge(&[Some(100.0), Some(80.0), Some(100.0)], 20.0).outliers(),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn one_member_or_none_is_never_an_outlier() {
        assert_eq!(judge(&[Some(10.0)], 20.0).outliers(), Vec::<usize>::new());
        assert_eq!(
            judge(&[Some(10.0), None], 20.0).outliers(),
            Vec::<usize>::new()
        );
        assert_eq!(judge(&[], 20.0).median, 0.0);
        // Two members: the slower one is judged against their mean.
        let v = judge(&[Some(100.0), Some(40.0)], 20.0);
        assert_eq!(v.median, 70.0);
        assert_eq!(v.outliers(), [1]);
        // Nothing at all measured: a median of 0 flags nobody.
        assert_eq!(
            judge(&[Some(0.0), Some(0.0)], 20.0).outliers(),
            Vec::<usize>::new()
        );
    }
}
