//! Where the sparklines mark a period's start: the sample at which the settings changed, a
//! pause began or the run resumed, with the new value in a few letters ("T8", "QD32", "8k").
//! Positions count the samples pushed into the sparklines' histories, so a mark moves left
//! with them and falls off with the sample it stands on.

use std::collections::VecDeque;

use crate::settings::Settings;
use crate::units::{format_block_size, format_count_rate};

/// The marks over the sparklines' history.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// Samples pushed so far (the next one's position).
    pub pushed: u64,
    /// (position, label), oldest first.
    pub marks: VecDeque<(u64, String)>,
}

impl Marks {
    /// Counts one sample pushed into histories that keep `len`; marks that fell off go.
    pub fn sample(&mut self, len: usize) {
        self.pushed += 1;
        let first = self.pushed.saturating_sub(len as u64);
        while self.marks.front().is_some_and(|(at, _)| *at < first) {
            self.marks.pop_front();
        }
    }

    /// Marks the next sample with `label`.
    pub fn mark(&mut self, label: String) {
        self.marks.push_back((self.pushed, label));
    }

    /// The marks among the last `shown` of `len` samples kept: (column from the left of
    /// those `shown`, label).
    pub fn visible(&self, len: usize, shown: usize) -> Vec<(usize, &str)> {
        let first = self.pushed - len.min(shown) as u64;
        self.marks
            .iter()
            .filter(|(at, _)| *at >= first && *at < self.pushed)
            .map(|(at, l)| ((at - first) as usize, l.as_str()))
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
    }

    #[test]
    fn marks_move_with_the_history_and_fall_off_it() {
        let mut m = Marks::default();
        for _ in 0..10 {
            m.sample(5);
        }
        m.mark("T2".into());
        for _ in 0..3 {
            m.sample(5);
        }
        // Of the 5 kept (positions 8..13), the mark at 10 is the third; of the last 3 shown,
        // the first.
        assert_eq!(m.visible(5, 5), vec![(2, "T2")]);
        assert_eq!(m.visible(5, 3), vec![(0, "T2")]);
        assert_eq!(m.visible(5, 2), vec![]);
        for _ in 0..3 {
            m.sample(5);
        }
        assert!(m.marks.is_empty());
    }
}
