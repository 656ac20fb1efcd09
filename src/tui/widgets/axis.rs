//! A graph's axes: the y-axis as a narrow gutter on the left (the scale's top value on the
//! graph's top row, 0 on its bottom row, a line between) and the x-axis as one row of times
//! on the run's clock under the graphs, each written from the column where that moment
//! falls, with the time each column stands for at the right ("1 s/col"). The scales' tops
//! are rounded up on a 1-2-5 ladder so a label reads as a round number.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;
use crate::stats::timeline::Bucket;

/// Width of the y-axis gutter: a label of up to five characters and the axis line.
pub const GUTTER: u16 = 6;

/// The smallest round value at or above `v`: a whole number up to 10, then 10, 12, 15,
/// 20, 25, 30, 40, 50, 60, 80 times a power of ten (1 for nothing), so a graph's top is a
/// round number and the bars fill at least two thirds of it.
pub fn nice_ceiling(v: f64) -> u64 {
    if v.is_nan() || v <= 1.0 {
        return 1;
    }
    if v <= 10.0 {
        return v.ceil() as u64;
    }
    let mut decade = 1u64;
    loop {
        for m in [10, 12, 15, 20, 25, 30, 40, 50, 60, 80] {
            let x = decade.saturating_mul(m);
            if x as f64 >= v || x == u64::MAX {
                return x;
            }
        }
        decade = decade.saturating_mul(10);
    }
}

/// A count per second in at most five characters: "500", "2k", "50k", "1M".
pub fn count_label(v: u64) -> String {
    short(
        v,
        &[(1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")],
        "",
    )
}

/// The top of a bandwidth graph over `v` bytes/s, in the binary units the title uses, and
/// its label: (52428800, "50M") for 50 MiB/s.
pub fn bytes_scale(v: f64) -> (u64, String) {
    let units = [(1u64 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
    for (size, unit) in units {
        if v >= size as f64 {
            let n = nice_ceiling(v / size as f64);
            return (n * size, format!("{n}{unit}"));
        }
    }
    let n = nice_ceiling(v);
    (n, format!("{n}B"))
}

/// A latency in ns in at most five characters: "500ns", "20µs", "2ms", "1s".
pub fn latency_label(ns: u64) -> String {
    short(
        ns,
        &[(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "µs")],
        "ns",
    )
}

fn short(v: u64, units: &[(u64, &str)], plain: &str) -> String {
    for &(size, unit) in units {
        if v >= size {
            let x = v as f64 / size as f64;
            return if x.fract() == 0.0 {
                format!("{x:.0}{unit}")
            } else {
                format!("{x:.1}{unit}")
            };
        }
    }
    format!("{v}{plain}")
}

/// The gutter left of a graph of `area.height` rows: `top` on the first row, `bottom` on
/// the last (when there are two), the axis line beside them.
pub struct YAxis<'a> {
    pub top: &'a str,
    pub bottom: Option<&'a str>,
    /// A word under the top label, where a row is free for it ("peak").
    pub note: Option<&'a str>,
    pub theme: Theme,
}

impl Widget for YAxis<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < 2 || area.height == 0 {
            return;
        }
        let w = (area.width - 1) as usize;
        let x_line = area.right() - 1;
        for y in area.top()..area.bottom() {
            buf.set_string(x_line, y, "│", self.theme.dim());
        }
        let mut label = |y: u16, text: &str| {
            let t: String = text.chars().take(w).collect();
            buf.set_string(area.x, y, format!("{t:>w$}"), self.theme.dim());
            buf.set_string(x_line, y, "┤", self.theme.dim());
        };
        label(area.y, self.top);
        let last = area.bottom() - 1;
        if let (Some(b), true) = (self.bottom, area.height >= 2) {
            label(last, b);
        }
        let free = if self.bottom.is_some() { 3 } else { 2 };
        if let (Some(n), true) = (self.note, area.height >= free) {
            let t: String = n.chars().take(w).collect();
            buf.set_string(area.x, area.y + 1, format!("{t:>w$}"), self.theme.dim());
        }
    }
}

/// "1:05" on the run's clock ("1:02:05" past an hour).
pub fn clock(t: Duration) -> String {
    let s = t.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// "0.1 s", "10 s", "2 min", "1.5 h": the time a column stands for.
pub fn span_label(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        format!("{s:.1} s")
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        let m = s / 60.0;
        if m.fract() == 0.0 {
            format!("{m:.0} min")
        } else {
            format!("{m:.1} min")
        }
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// Tick spacings on the run's clock, in seconds.
const TICKS: [u64; 16] = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 43_200,
];

/// The x-axis: the time at the columns where a tick falls, and the scale at the right.
pub struct TimeAxis<'a> {
    /// The graphs' columns, oldest first, drawn from the area's left edge plus `GUTTER`.
    pub columns: &'a [Bucket],
    /// What the right end says: "1 s/col (z)".
    pub scale: &'a str,
    pub theme: Theme,
}

impl TimeAxis<'_> {
    /// The columns where a tick falls, with its time: the fewest ticks a label can be
    /// written at without running into the next.
    pub fn ticks(&self) -> Vec<(usize, Duration)> {
        let used: Vec<&Bucket> = self.columns.iter().filter(|b| b.intervals > 0).collect();
        let (Some(first), Some(last)) = (used.first(), used.last()) else {
            return Vec::new();
        };
        let per_col = (last.end.saturating_sub(first.start)).as_secs_f64() / used.len() as f64;
        // A label and two spaces between ("12:30  12:40").
        let room = if last.end.as_secs() >= 3600 { 9.0 } else { 7.0 };
        let Some(&step) = TICKS.iter().find(|&&t| t as f64 >= per_col * room) else {
            return Vec::new();
        };
        let step = Duration::from_secs(step);
        let mut out = Vec::new();
        // A column stands for the clock from where the one before it ended (its own
        // first interval may start a little after a tick); the first, from a little
        // before its first interval, so the run's 0:00 is on it.
        let mut from = first
            .start
            .saturating_sub(Duration::from_secs_f64(per_col / 2.0));
        for (c, b) in self.columns.iter().enumerate() {
            if b.intervals == 0 {
                continue;
            }
            // The first multiple of `step` at or after where the column begins, if in it.
            let n = from.as_nanos().div_ceil(step.as_nanos());
            let t = step * n as u32;
            if t < b.end && out.last().is_none_or(|(_, p)| *p != t) {
                out.push((c, t));
            }
            from = b.end;
        }
        out
    }
}

impl Widget for TimeAxis<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.height == 0 || area.width <= GUTTER {
            return;
        }
        let style = self.theme.dim();
        let scale_w = self.scale.chars().count() as u16;
        let scale_x = area.right().saturating_sub(scale_w);
        buf.set_stringn(area.x, area.y, "time ", GUTTER as usize, style);
        let x0 = area.x + GUTTER;
        let mut free_from = x0;
        for (c, t) in self.ticks() {
            let x = x0 + c as u16;
            let label = format!("╵{}", clock(t));
            let end = x + label.chars().count() as u16;
            if x < free_from || end + 1 > scale_x {
                continue;
            }
            buf.set_string(x, area.y, &label, style);
            free_from = end + 2;
        }
        if scale_x >= x0 {
            buf.set_string(scale_x, area.y, self.scale, style);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_round_up_on_a_1_2_5_ladder_and_fit_the_gutter() {
        assert_eq!(nice_ceiling(0.0), 1);
        assert_eq!(nice_ceiling(7.2), 8);
        assert_eq!(nice_ceiling(8665.0), 10_000);
        assert_eq!(nice_ceiling(10_001.0), 12_000);
        assert_eq!(nice_ceiling(26_400.0), 30_000);
        assert_eq!(nice_ceiling(2_040_000.0), 2_500_000);
        assert_eq!(count_label(20_000), "20k");
        assert_eq!(count_label(2_500_000), "2.5M");
        assert_eq!(count_label(500), "500");
        assert_eq!(bytes_scale(33.8 * 1048576.0), (40 << 20, "40M".to_string()));
        assert_eq!(bytes_scale(700.0), (800, "800B".to_string()));
        assert_eq!(latency_label(5_000_000), "5ms");
        assert_eq!(latency_label(500_000), "500µs");
        for v in [1, 20, 500, 10_000, 200_000, 5_000_000, 1_000_000_000] {
            for l in [count_label(v), bytes_scale(v as f64).1, latency_label(v)] {
                assert!(l.chars().count() < GUTTER as usize, "{l}");
            }
        }
    }

    fn col(start_ms: u64, end_ms: u64) -> Bucket {
        Bucket {
            start: Duration::from_millis(start_ms),
            end: Duration::from_millis(end_ms),
            intervals: 1,
            ..Bucket::default()
        }
    }

    #[test]
    fn ticks_fall_where_their_moment_is_and_keep_apart() {
        // 40 columns of one second from 0:20.
        let cols: Vec<Bucket> = (20..60).map(|s| col(s * 1000, s * 1000 + 1000)).collect();
        let axis = TimeAxis {
            columns: &cols,
            scale: "1 s/col",
            theme: Theme { color: false },
        };
        let ticks = axis.ticks();
        // Every 10 s: at 0:20, 0:30, 0:40, 0:50.
        let want: Vec<(usize, Duration)> = (0..4)
            .map(|i| (i * 10, Duration::from_secs(20 + 10 * i as u64)))
            .collect();
        assert_eq!(ticks, want);
        let area = Rect::new(0, 0, 50, 1);
        let mut buf = Buffer::empty(area);
        axis.render(area, &mut buf);
        let row: String = (0..50).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert_eq!(row, "time  ╵0:20     ╵0:30     ╵0:40     ╵0:50  1 s/col");
    }

    #[test]
    fn the_gutter_says_the_top_and_zero() {
        let area = Rect::new(0, 0, GUTTER, 3);
        let mut buf = Buffer::empty(area);
        YAxis {
            top: "20k",
            bottom: Some("0"),
            note: None,
            theme: Theme { color: false },
        }
        .render(area, &mut buf);
        let rows: Vec<String> = (0..3)
            .map(|y| {
                (0..GUTTER)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect()
            })
            .collect();
        assert_eq!(rows, ["  20k┤", "     │", "    0┤"]);
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
        assert_eq!(span_label(Duration::from_millis(100)), "0.1 s");
        assert_eq!(span_label(Duration::from_secs(600)), "10 min");
    }
}
