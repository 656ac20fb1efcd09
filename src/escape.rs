//! Text from outside is untrusted: a path, a file's name, a sysfs string, a fio jobname may
//! hold any byte, and an ESC or a C1 control reaching a terminal is a command to it (colour,
//! cursor moves, a retitled window), one in an SVG makes the file no XML at all. Each output
//! form has one boundary where its text leaves the program, and each boundary calls one
//! function here — never the source, which keeps its bytes for the JSON and for opening the
//! file again:
//!
//! - `terminal`: text printed (`output`'s stdout in text mode and every stderr line); line
//!   feeds and tabs stay, every other control becomes its visible `\xHH`. `cell`: every
//!   cell the TUI draws (`tui::ui`, after the screen is drawn), shown in one character.
//! - `xml_chars`: a whole SVG document (`render::chart::draw`); XML 1.0 allows no C0 control
//!   but tab, line feed and carriage return, in any form, so each other control (and, to be
//!   read, each C1 one) becomes `\xHH` text. Markup never holds one, so this is safe over the
//!   document; `<`, `&` and quotes are escaped where the text is placed (`xml`, and plotters'
//!   own for labels).
//! - CSV: the `csv` crate quotes each field at the one writer (`render::csv`); a field keeps
//!   its bytes, as a CSV reader expects.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every control character but `keep` written as `\xHH`.
fn controls_visible<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    if !text.chars().any(|c| c.is_control() && !keep.contains(&c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && !keep.contains(&c) {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` as a terminal may receive it: line feeds and tabs kept, every other C0 control,
/// DEL and every C1 control shown as `\xHH`.
pub fn terminal(text: &str) -> Cow<'_, str> {
    controls_visible(text, &['\n', '\t'])
}

/// One terminal cell's symbol as it may be drawn: `None` when it holds no control, else the
/// one character that shows it in the cell's width — the Unicode control picture of a C0
/// control or DEL (ESC is `␛`), U+FFFD for a C1 control. (ratatui already leaves out text
/// with controls in it; this guards every cell, whatever wrote it.)
pub fn cell(symbol: &str) -> Option<char> {
    let c = symbol.chars().find(|c| c.is_control())?;
    Some(match u32::from(c) {
        n @ 0..=0x1f => char::from_u32(0x2400 + n).unwrap_or('\u{fffd}'),
        0x7f => '\u{2421}',
        _ => '\u{fffd}',
    })
}

/// A whole XML document with every character XML 1.0 forbids (C0 controls but tab, line
/// feed and carriage return) and every C1 control and DEL shown as `\xHH`.
pub fn xml_chars(doc: &str) -> Cow<'_, str> {
    controls_visible(doc, &['\n', '\t', '\r'])
}

/// `text` as XML character data or an attribute value: `&`, `<`, `>`, `"` and `'` as
/// entities, and the controls as `xml_chars` shows them.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in xml_chars(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A JSON text with each raw C0 control but line feed, tab and carriage return written as
/// the `\u00XX` escape JSON has for it: fio (3.33 at least) writes a jobname's ESC raw, which
/// no JSON reader takes; outside a string such a byte was no JSON anyway. Applied where a
/// saved result is read (`result_file::read_bounded`), so fio's own output reads back.
pub fn json_controls(text: &str) -> Cow<'_, str> {
    let raw = |c: char| c.is_ascii_control() && !matches!(c, '\n' | '\t' | '\r' | '\x7f');
    if !text.chars().any(raw) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if raw(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_and_text_stays() {
        let name = "ctl\x01\x1b[31mname.img";
        assert_eq!(terminal(name), "ctl\\x01\\x1b[31mname.img");
        assert_eq!(terminal("a\tb\nc"), "a\tb\nc");
        assert_eq!(terminal("\u{9b}31m\x7f"), "\\x9b31m\\x7f");
        assert!(matches!(terminal("µs °C"), Cow::Borrowed(_)));
        assert_eq!(cell("\x1b"), Some('␛'));
        assert_eq!(cell("\u{9b}"), Some('\u{fffd}'));
        assert_eq!(cell("a"), None);
        assert_eq!(xml("<a & 'b'>\x1b"), "&lt;a &amp; &apos;b&apos;&gt;\\x1b");
        assert_eq!(xml_chars("a\r\n\x00"), "a\r\n\\x00");
        let fio = "{\"jobname\" : \"job\x1b[31m\"}";
        let read: serde_json::Value = serde_json::from_str(&json_controls(fio)).unwrap();
        assert_eq!(read["jobname"], "job\x1b[31m");
    }
}
