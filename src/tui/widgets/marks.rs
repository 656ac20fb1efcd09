//! The marks of a period's start drawn over a sparkline: a thin vertical line in the column
//! where the settings changed — in the empty cells above the bars, and through the bars as
//! the same bar in the mark's colour (dim without colour), so no bar's height is hidden — and
//! the new value written beside it ("T8") where there is room — on the frame's line above the
//! graph (where the pane's title leaves it free), else in the highest of the graph's rows
//! with empty cells for it; right of the line, or left of it near the right edge. A label
//! with no room is left out; its line is still drawn.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;

/// Marks at columns of a sparkline drawn from the area's left edge.
pub struct PeriodMarks<'a> {
    /// (column from the left, label), left to right.
    pub marks: &'a [(usize, &'a str)],
    pub theme: Theme,
}

impl Widget for PeriodMarks<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.is_empty() {
            return;
        }
        let width = area.width as usize;
        let marks: Vec<(usize, &str)> = self
            .marks
            .iter()
            .copied()
            .filter(|(c, _)| *c < width)
            .collect();
        for &(col, _) in &marks {
            let x = area.x + col as u16;
            for y in area.y..area.bottom() {
                if let Some(cell) = buf.cell_mut((x, y)) {
                    if cell.symbol() == " " {
                        cell.set_symbol("│").set_style(self.theme.dim());
                    } else {
                        cell.set_style(self.theme.mark());
                    }
                }
            }
        }
        // The frame's line first, then the graph's rows from the top: a label goes where
        // no bar is, as high as it can.
        let rows: Vec<u16> = area
            .y
            .checked_sub(1)
            .into_iter()
            .chain(area.y..area.bottom())
            .collect();
        // Where each row is taken by a label already (a label keeps a column free after it).
        let mut taken: Vec<Vec<bool>> = rows.iter().map(|_| vec![false; width + 1]).collect();
        for &(col, label) in &marks {
            let len = label.chars().count();
            let starts = [
                Some(col + 1).filter(|s| s + len <= width),
                col.checked_sub(len),
            ];
            let spot = rows.iter().enumerate().find_map(|(r, &y)| {
                starts
                    .iter()
                    .flatten()
                    .copied()
                    .find(|&s| {
                        (s..s + len).all(|c| {
                            !taken[r][c] && !taken[r][c + 1] && free(buf, area.x + c as u16, y)
                        })
                    })
                    .map(|s| (r, y, s))
            });
            if let Some((r, y, s)) = spot {
                buf.set_string(area.x + s as u16, y, label, self.theme.accent());
                taken[r][s..=s + len].iter_mut().for_each(|t| *t = true);
            }
        }
    }
}

/// A cell a label may cover: empty, or the plain line of a frame.
fn free(buf: &Buffer, x: u16, y: u16) -> bool {
    buf.cell((x, y))
        .is_some_and(|c| c.symbol() == " " || c.symbol() == "─")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::widgets::{Block, Borders, Sparkline};

    fn rows(buf: &Buffer) -> Vec<String> {
        let w = buf.area.width as usize;
        buf.content
            .chunks(w)
            .map(|r| r.iter().map(|c| c.symbol()).collect())
            .collect()
    }

    fn draw(title: &str, data: &[u64], marks: &[(usize, &str)]) -> Vec<String> {
        let area = Rect::new(0, 0, 16, 4);
        let mut buf = Buffer::empty(area);
        let block = Block::new().borders(Borders::TOP).title(title);
        let inner = block.inner(area);
        block.render(area, &mut buf);
        Sparkline::default()
            .data(data)
            .max(6)
            .render(inner, &mut buf);
        PeriodMarks {
            marks,
            theme: Theme { color: false },
        }
        .render(inner, &mut buf);
        rows(&buf)
    }

    #[test]
    fn a_mark_is_a_line_above_the_bars_with_its_label_on_the_frame() {
        let data = [2u64, 2, 2, 2, 2, 6, 6, 6, 6, 6, 6, 6];
        let r = draw("ab", &data, &[(5, "T8")]);
        assert_eq!(r[0], "ab────T8────────");
        // The bars after the change fill the graph: the line shows only in the empty
        // column the bars leave before them — none here, so the column keeps its bars.
        assert_eq!(r[1], "     ███████    ");
        // Where the bars are low the line stands above them.
        let r = draw("ab", &[6, 6, 6, 6, 6, 2, 2, 2, 2, 2, 2, 2], &[(5, "T1")]);
        assert_eq!(r[0], "ab────T1────────");
        assert_eq!(r[1], "█████│          ");
        // Through the bars the column keeps its bar, in the mark's style.
        let area = Rect::new(0, 0, 16, 4);
        let mut buf = Buffer::empty(area);
        Sparkline::default()
            .data([6u64; 16])
            .max(6)
            .render(area, &mut buf);
        PeriodMarks {
            marks: &[(5, "T8")],
            theme: Theme { color: true },
        }
        .render(area, &mut buf);
        let cell = &buf[(5, 2)];
        assert_eq!(
            (cell.symbol(), cell.fg),
            ("█", ratatui::style::Color::White)
        );
        assert_eq!(buf[(4, 2)].fg, ratatui::style::Color::Reset);
    }

    #[test]
    fn labels_keep_out_of_the_title_and_of_each_other() {
        let data = [1u64; 16];
        // Under the title: the label goes into the graph's empty top row.
        let r = draw("IOPS now 9k", &data, &[(2, "T4")]);
        assert_eq!(r[0], "IOPS now 9k─────");
        assert_eq!(r[1], "  │T4           ");
        // Marks two columns apart: the second label finds no room, on the frame or among the
        // lines, and is left out (its line stays); the next fits after it; at the right edge
        // a label goes left of its line.
        let r = draw("", &data, &[(3, "T2"), (5, "T4"), (6, "T8"), (15, "QD8")]);
        assert_eq!(r[0], "────T2─T8───QD8─", "{r:?}");
        assert_eq!(r[1], "   │ ││        │");
        // With the frame taken, a label goes into the graph's empty top row.
        let r = draw("a title here", &data, &[(1, "T2")]);
        assert_eq!(r[1], " │T2            ");
    }
}
