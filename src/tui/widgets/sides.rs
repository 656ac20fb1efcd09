//! Reads, writes and trims apart on the run screen: while the mix has more than one of them,
//! a line per direction in it above the graphs with its IOPS, bandwidth, p50 and p99 over the last whole
//! second (the same window as the kernel pane's r/s and w/s and the "now" figures), each
//! from its own histogram. Dashes until that second is complete.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::Theme;
use crate::render::sides::latency;
use crate::settings::Settings;
use crate::stats::{ReadWrite, Side};
use crate::units::format_bytes;

/// A line per direction in `names`, over `sides` when the last second had more than one.
pub struct SideLines<'a> {
    pub sides: Option<&'a ReadWrite>,
    pub theme: Theme,
    /// "read", "write", "trim": the directions of the mix (`directions`), one row each.
    pub names: &'a [&'static str],
}

impl SideLines<'_> {
    /// While `s` mixes more than one direction (reads, writes, trims), a line per direction
    /// at the top of `area` (when there is room for the panes below); returns what is left.
    pub fn split_off(
        s: &Settings,
        sides: Option<&ReadWrite>,
        theme: Theme,
        area: Rect,
        buf: &mut Buffer,
    ) -> Rect {
        let names = SideLines::directions(s);
        if names.len() < 2 || area.height < 10 {
            return area;
        }
        let [top, rest] =
            Layout::vertical([Constraint::Length(names.len() as u16), Constraint::Fill(1)])
                .areas(area);
        let names = &names;
        SideLines {
            sides,
            theme,
            names,
        }
        .render(top, buf);
        rest
    }

    /// The directions `s` mixes, in the order the lines go: reads, writes, trims.
    pub fn directions(s: &Settings) -> Vec<&'static str> {
        let rest = s.trim_pct < 100;
        [
            ("read", rest && s.read_pct > 0),
            ("write", rest && s.read_pct < 100),
            ("trim", s.trim_pct > 0),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect()
    }
}

impl Widget for SideLines<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        for (row, name) in self.names.iter().enumerate().take(area.height as usize) {
            let side = self.sides.map(|rw| match *name {
                "read" => &rw.read,
                "write" => &rw.write,
                _ => &rw.trim,
            });
            let line = Line::from(vec![
                Span::styled(format!(" {name:<5}"), self.theme.accent()),
                Span::raw(figures(side)),
            ]);
            line.render(
                Rect {
                    y: area.y + row as u16,
                    height: 1,
                    ..area
                },
                buf,
            );
        }
    }
}

/// "    8916 IOPS   34.8 MiB/s  p50   182 µs  p99  1.90 ms  (1 s)", dashes without a side.
fn figures(side: Option<&Side>) -> String {
    let (iops, bw, p50, p99) = match side {
        Some(s) => (
            format!("{:.0}", s.iops),
            format!("{}/s", format_bytes(s.bw_bytes_per_s as u64)),
            latency(&s.latency_ns, s.latency_ns.p50),
            latency(&s.latency_ns, s.latency_ns.p99),
        ),
        None => ("-".into(), "-".into(), "-".into(), "-".into()),
    };
    format!(" {iops:>8} IOPS {bw:>12}  p50 {p50:>8}  p99 {p99:>8}  (1 s)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::LatencySummary;

    fn text(buf: &Buffer) -> Vec<String> {
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn a_line_per_direction_with_its_own_figures() {
        let side = |ops: u64, p99: u64| Side {
            ops,
            bytes: ops * 4096,
            iops: ops as f64,
            bw_bytes_per_s: ops as f64 * 4096.0,
            latency_ns: LatencySummary {
                count: ops,
                p50: p99 / 4,
                p99,
                ..LatencySummary::default()
            },
        };
        let rw = ReadWrite {
            read: side(827, 12_000_000),
            write: side(344, 72_500_000),
            trim: Default::default(),
        };
        let mut buf = Buffer::empty(Rect::new(0, 0, 70, 2));
        let theme = Theme { color: false };
        let names = ["read", "write"];
        SideLines {
            sides: Some(&rw),
            theme,
            names: &names,
        }
        .render(buf.area, &mut buf);
        let lines = text(&buf);
        assert_eq!(
            lines[0],
            " read       827 IOPS    3.2 MiB/s  p50  3.00 ms  p99  12.0 ms  (1 s)"
        );
        assert_eq!(
            lines[1],
            " write      344 IOPS    1.3 MiB/s  p50  18.1 ms  p99  72.5 ms  (1 s)"
        );
        let mut empty = Buffer::empty(Rect::new(0, 0, 70, 2));
        SideLines {
            sides: None,
            theme,
            names: &names,
        }
        .render(empty.area, &mut empty);
        assert!(
            text(&empty)[1].starts_with(" write        - IOPS"),
            "{:?}",
            text(&empty)
        );
        // Reads and trims: the trims' line under the reads'.
        let with_trims = ReadWrite {
            write: Default::default(),
            trim: side(500, 4_000_000),
            ..rw
        };
        let s = Settings {
            trim_pct: 40,
            ..Settings::default()
        };
        let names = SideLines::directions(&s);
        assert_eq!(names, ["read", "trim"]);
        let mut buf = Buffer::empty(Rect::new(0, 0, 70, 2));
        SideLines {
            sides: Some(&with_trims),
            theme,
            names: &names,
        }
        .render(buf.area, &mut buf);
        assert!(
            text(&buf)[1].starts_with(" trim       500 IOPS"),
            "{:?}",
            text(&buf)
        );
        let all = Settings { read_pct: 50, ..s };
        assert_eq!(SideLines::directions(&all), ["read", "write", "trim"]);
        let only = Settings { trim_pct: 100, ..s };
        assert_eq!(SideLines::directions(&only), ["trim"]);
        assert_eq!(SideLines::directions(&Settings::default()), ["read"]);
    }
}
