//! Whether the terminal takes UTF-8, and the ASCII to draw in when it does not. The answer
//! comes from the locale, looked up as setlocale(3) does for the character type: the first
//! of `LC_ALL`, `LC_CTYPE` and `LANG` that is set and not empty; none is the "C" locale,
//! whose character set is ASCII. A codeset named UTF-8 (or utf8, in any case) is UTF-8;
//! anything else (C, POSIX, ISO-8859-1 …) is not, and box drawing, block shading, arrows
//! and signs would come out as mojibake or `?`.
//!
//! `ascii` maps every character diskscope draws to one ASCII character of the same width, so
//! a screen or a table keeps its layout: borders to `+ - |`, the shades of a heatmap and the
//! levels of a sparkline to `. : * #` and `_ . : - = + * #`, arrows to `< > ^ v`, µ to u,
//! and anything else outside ASCII to `?`. It reads nothing but the environment.

/// Whether the locale's character set is UTF-8, from the environment.
pub fn utf8() -> bool {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    let locale = var("LC_ALL")
        .or_else(|| var("LC_CTYPE"))
        .or_else(|| var("LANG"));
    locale.is_some_and(|l| is_utf8(&l.to_string_lossy()))
}

/// Whether a locale name ("en_US.UTF-8", "C.utf8", "de_DE.ISO-8859-1@euro") names UTF-8 as
/// its codeset: the part after the dot, before any modifier.
pub fn is_utf8(locale: &str) -> bool {
    let Some((_, codeset)) = locale.split_once('.') else {
        return false;
    };
    let codeset = codeset.split('@').next().unwrap_or("");
    codeset.replace('-', "").eq_ignore_ascii_case("utf8")
}

/// The ASCII character drawn for `c`, one cell wide like most of what it replaces.
pub fn ascii(c: char) -> char {
    if c.is_ascii() {
        return c;
    }
    match c {
        // Box drawing: lines and their corners, tees and crosses.
        '─' | '━' | '═' | '╌' | '╍' | '┄' | '┅' | '┈' | '┉' | '╴' | '╶' | '╸' | '╺' => {
            '-'
        }
        '│' | '┃' | '║' | '╎' | '╏' | '┆' | '┇' | '┊' | '┋' | '╵' | '╷' | '╹' | '╻' => {
            '|'
        }
        '\u{2500}'..='\u{257f}' => '+',
        // Shades (the heatmap's, the slider's track) and the full block.
        '░' => '.',
        '▒' => ':',
        '▓' => '*',
        '█' | '■' => '#',
        // A sparkline's eighths, lowest first; the halves and quarters of bars and gauges.
        '▁' => '_',
        '▂' => '.',
        '▃' => ':',
        '▄' => '-',
        '▅' => '=',
        '▆' => '+',
        '▇' => '*',
        '▀' | '▔' => '"',
        '▉' | '▊' | '▋' | '▌' | '▐' => '#',
        '▏' | '▎' | '▍' | '▕' => '|',
        '\u{2596}'..='\u{259f}' => '#',
        // Braille dots (charts drawn with them): a dot where any is.
        '\u{2800}' => ' ',
        '\u{2801}'..='\u{28ff}' => '.',
        // Arrows and markers.
        '←' | '◀' | '◄' | '‹' | '«' => '<',
        '→' | '▶' | '►' | '›' | '»' => '>',
        '↑' | '▲' | '△' => '^',
        '↓' | '▼' | '▽' => 'v',
        '↔' => '-',
        '•' | '●' | '○' | '◆' | '◇' => '*',
        // Signs and punctuation.
        '·' | '…' | '⋯' => '.',
        '—' | '–' | '‒' | '−' | '‐' => '-',
        '≥' | '≳' => '>',
        '≤' | '≲' => '<',
        '≈' | '∼' => '~',
        '×' => 'x',
        '÷' => '/',
        'µ' | 'μ' => 'u',
        '°' => 'o',
        '±' => '+',
        '‘' | '’' | '′' => '\'',
        '“' | '”' | '″' => '"',
        '\u{a0}' | '\u{2000}'..='\u{200a}' => ' ',
        _ => '?',
    }
}

/// `text` with every character `ascii` maps.
pub fn to_ascii(text: &str) -> String {
    text.chars().map(ascii).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codeset_decides_as_setlocale_reads_it() {
        for utf in [
            "en_US.UTF-8",
            "C.UTF-8",
            "C.utf8",
            "de_DE.utf-8@euro",
            "x.UTF8",
        ] {
            assert!(is_utf8(utf), "{utf}");
        }
        for not in [
            "C",
            "POSIX",
            "",
            "en_US",
            "de_DE.ISO-8859-1",
            "ja_JP.eucJP",
            "UTF-8",
        ] {
            assert!(!is_utf8(not), "{not}");
        }
    }

    #[test]
    fn everything_drawn_has_an_ascii_cell() {
        assert_eq!(to_ascii("┌─┐│└┘├┤"), "+-+|++++");
        assert_eq!(to_ascii("░▒▓█"), ".:*#");
        assert_eq!(to_ascii("▁▂▃▄▅▆▇█"), "_.:-=+*#");
        assert_eq!(to_ascii("←→↑↓▶▲▼"), "<>^v>^v");
        assert_eq!(
            to_ascii("48.7 µs · ≥1.05 ms — 3×"),
            "48.7 us . >1.05 ms - 3x"
        );
        assert_eq!(to_ascii("plain"), "plain");
        assert_eq!(to_ascii("日"), "?");
        // One character for one: a table's columns stay where they were.
        let row = "│≥ 131 µs ░░▒██▓│";
        assert_eq!(to_ascii(row).chars().count(), row.chars().count());
    }
}
