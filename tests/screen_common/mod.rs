//! A screen drawn without a terminal, for the snapshot tests: a widget rendered into
//! ratatui's `TestBackend`, the buffer as text (each row trimmed at the right), and the
//! comparison with `tests/snapshots/<name>.txt` (`UPDATE_SNAPSHOTS=1` writes it instead).
#![allow(dead_code)]

use std::path::PathBuf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::widgets::Widget;

/// `widget` drawn on a `w` x `h` screen.
pub fn draw(widget: impl Widget, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(widget, f.area())).unwrap();
    t.backend().buffer().clone()
}

/// The screen as text: a line per row, trailing blanks cut, ending in a newline.
pub fn text(buf: &Buffer) -> String {
    let w = buf.area.width as usize;
    buf.content
        .chunks(w)
        .map(|row| {
            row.iter()
                .map(|c| c.symbol())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Compares with `tests/snapshots/<name>.txt`; `UPDATE_SNAPSHOTS=1` writes it instead.
pub fn assert_snapshot(name: &str, buf: &Buffer) {
    let got = text(buf);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_SNAPSHOTS=1", path.display()));
    assert!(
        got == want,
        "screen {name} differs from {}:\n--- want\n{want}--- got\n{got}",
        path.display()
    );
}
