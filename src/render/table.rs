//! A table as data: columns (a header and an alignment each) and rows of cells, built once
//! from a result and laid out by each output form — text lines here (`line`), styled lines in
//! the TUI — at that form's widths, as bottom's `DataToCell` feeds its tables. What goes in a
//! cell, which rows there are and in what order, what a row is flagged with: one definition
//! per table (the fleet's hosts: `hosts`), never a second copy in a screen.

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One column: its header and its alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub header: &'static str,
    pub align: Align,
}

/// How a row reads, for the forms that colour it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Warn,
    Error,
}

/// One row: a cell per column, or its first cell and a message in place of the rest; and a
/// note of type `N` after the cells, which each form words its own way.
#[derive(Debug, Clone, PartialEq)]
pub struct Row<N> {
    pub cells: Vec<String>,
    /// Said after the first cell instead of the others ("failed: …", "did no I/O").
    pub message: Option<String>,
    pub note: Option<N>,
    pub tone: Tone,
}

/// Columns and the rows under them.
#[derive(Debug, Clone, PartialEq)]
pub struct Table<N> {
    pub columns: &'static [Column],
    pub rows: Vec<Row<N>>,
}

impl<N> Table<N> {
    /// The width of the first column: its longest cell, at least `min`.
    pub fn first_width(&self, min: usize) -> usize {
        self.rows
            .iter()
            .filter_map(|r| r.cells.first())
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0)
            .max(min)
    }

    /// The header line over the first `widths.len()` columns.
    pub fn header(&self, widths: &[usize]) -> String {
        let headers: Vec<&str> = self.columns.iter().map(|c| c.header).collect();
        line(self.columns, &headers, widths)
    }

    /// A row laid out at `widths` (its first `widths.len()` cells), or its first cell and its
    /// message; the note is not included (each form words it).
    pub fn row(&self, row: &Row<N>, widths: &[usize]) -> String {
        match &row.message {
            Some(m) => format!("{} {m}", line(self.columns, &row.cells[..1], &widths[..1])),
            None => line(self.columns, &row.cells, widths),
        }
    }
}

/// `cells` padded to `widths` by their columns' alignment, one blank apart.
pub fn line<S: AsRef<str>>(columns: &[Column], cells: &[S], widths: &[usize]) -> String {
    cells
        .iter()
        .zip(columns)
        .zip(widths)
        .map(|((cell, col), &w)| match col.align {
            Align::Left => format!("{:<w$}", cell.as_ref()),
            Align::Right => format!("{:>w$}", cell.as_ref()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fleet's host and IOPS columns.
    const COLUMNS: &[Column] = crate::render::hosts::COLUMNS;

    #[test]
    fn cells_line_up_by_their_columns() {
        let t: Table<()> = Table {
            columns: COLUMNS,
            rows: vec![
                Row {
                    cells: vec!["a".into(), "12".into()],
                    message: None,
                    note: None,
                    tone: Tone::Plain,
                },
                Row {
                    cells: vec!["longer".into()],
                    message: Some("failed: down".into()),
                    note: None,
                    tone: Tone::Error,
                },
            ],
        };
        let widths = [t.first_width(4), 5];
        assert_eq!(t.header(&widths), "host    IOPS");
        assert_eq!(t.row(&t.rows[0], &widths), "a         12");
        assert_eq!(t.row(&t.rows[1], &widths), "longer failed: down");
        // A form may show fewer columns than the table has.
        assert_eq!(t.header(&widths[..1]), "host  ");
    }
}
