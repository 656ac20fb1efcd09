//! Where the graphs mark a period's start: the moment on the run's clock at which the
//! settings changed, a pause began or the run resumed, with the new value in a few letters
//! ("T8", "QD32", "8k"). A mark lands in the column whose stretch of the clock holds it, at
//! whatever time scale the graphs show; several in one column collapse into one, labelled
//! with the last and how many more ("T8+2").

use std::collections::VecDeque;
use std::time::Duration;

use crate::settings::Settings;
use crate::stats::timeline::Bucket;
use crate::units::{format_block_size, format_count_rate};

/// Marks kept: a change every second for over an hour; older ones go first.
pub const MARKS: usize = 4096;

/// The marks over the graphs' history.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// (moment on the run's clock, label), oldest first.
    pub marks: VecDeque<(Duration, String)>,
}

impl Marks {
    /// Marks the moment `at` with `label`.
    pub fn mark(&mut self, at: Duration, label: String) {
        if self.marks.len() == MARKS {
            self.marks.pop_front();
        }
        self.marks.push_back((at, label));
    }

    /// The marks over `columns` (oldest first): (column, label), one per column, a column
    /// holding several labelled with its last and "+N" for the others.
    pub fn visible(&self, columns: &[Bucket]) -> Vec<(usize, String)> {
        let mut out: Vec<(usize, String, usize)> = Vec::new();
        let Some(first) = columns.iter().find(|b| b.intervals > 0) else {
            return Vec::new();
        };
        let from = self.marks.partition_point(|(at, _)| *at < first.start);
        for (at, label) in self.marks.range(from..) {
            let Some(col) = columns
                .iter()
                .position(|b| b.intervals > 0 && b.start <= *at && *at < b.end)
            else {
                continue;
            };
            match out.last_mut() {
                Some((c, l, n)) if *c == col => {
                    *l = label.clone();
                    *n += 1;
                }
                _ => out.push((col, label.clone(), 0)),
            }
        }
        out.into_iter()
            .map(|(c, l, n)| {
                if n == 0 {
                    (c, l)
                } else {
                    (c, format!("{l}+{n}"))
                }
            })
            .collect()
    }

    pub fn clear(&mut self) {
        self.marks.clear();
    }
}

/// What changed from `old` to `new`, as the sparklines label it: "T8", "QD32", "8k",
/// "R70%", "rnd0%", "5000 IOPS", "unlimited", several joined by spaces; "resume" when nothing
/// changed (a resume).
pub fn change_label(old: Option<Settings>, new: Settings) -> String {
    let Some(old) = old else {
        return "resume".into();
    };
    let mut parts = Vec::new();
    if new.threads != old.threads {
        parts.push(format!("T{}", new.threads));
    }
    if new.iodepth != old.iodepth {
        parts.push(format!("QD{}", new.iodepth));
    }
    if new.bs != old.bs {
        parts.push(format_block_size(new.bs));
    }
    if new.read_pct != old.read_pct {
        parts.push(format!("R{}%", new.read_pct));
    }
    if new.random_pct != old.random_pct {
        parts.push(format!("rnd{}%", new.random_pct));
    }
    if new.random_distribution != old.random_distribution {
        parts.push(new.random_distribution.label());
    }
    if new.hipri != old.hipri {
        parts.push(if new.hipri { "polled" } else { "interrupts" }.into());
    }
    if new.trim_pct != old.trim_pct {
        parts.push(format!("trim{}%", new.trim_pct));
    }
    if new.rate_iops != old.rate_iops {
        parts.push(match new.rate_iops {
            0 => "unlimited".into(),
            r => format!("{} IOPS", format_count_rate(r as f64)),
        });
    }
    if parts.is_empty() {
        "resume".into()
    } else {
        parts.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_new_values() {
        let s = Settings::default();
        let t8 = Settings { threads: 8, ..s };
        assert_eq!(change_label(Some(s), t8), "T8");
        let many = Settings {
            iodepth: 32,
            bs: 8192,
            rate_iops: 5000,
            ..t8
        };
        assert_eq!(change_label(Some(t8), many), "QD32 8k 5000 IOPS");
        assert_eq!(change_label(Some(many), t8), "QD1 4k unlimited");
        assert_eq!(change_label(Some(s), s), "resume");
        let polled = Settings { hipri: true, ..s };
        assert_eq!(change_label(Some(s), polled), "polled");
        assert_eq!(change_label(Some(polled), s), "interrupts");
        let trims = Settings { trim_pct: 10, ..s };
        assert_eq!(change_label(Some(s), trims), "trim10%");
    }

    #[test]
    fn a_mark_lands_in_the_column_holding_its_moment_and_several_collapse() {
        let col = |a: u64, b: u64| Bucket {
            start: Duration::from_secs(a),
            end: Duration::from_secs(b),
            intervals: 1,
            ..Bucket::default()
        };
        let columns = [col(10, 20), col(20, 30), col(30, 40)];
        let mut m = Marks::default();
        m.mark(Duration::from_secs(5), "gone".into());
        m.mark(Duration::from_millis(21_500), "T2".into());
        m.mark(Duration::from_secs(31), "T4".into());
        m.mark(Duration::from_secs(32), "T8".into());
        m.mark(Duration::from_secs(39), "QD2".into());
        let v = m.visible(&columns);
        assert_eq!(v, vec![(1, "T2".to_string()), (2, "QD2+2".to_string())]);
        // Zoomed in to one column a second, each has its own.
        let fine: Vec<Bucket> = (30..40).map(|s| col(s, s + 1)).collect();
        let v = m.visible(&fine);
        assert_eq!(v.len(), 3, "{v:?}");
        assert_eq!(v[0], (1, "T4".to_string()));
        for _ in 0..MARKS {
            m.mark(Duration::from_secs(50), "x".into());
        }
        assert_eq!(m.marks.len(), MARKS);
    }
}
