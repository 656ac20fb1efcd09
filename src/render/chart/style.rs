//! How a chart looks: the palette, the text sizes and a width estimate for text. Owns no
//! data and draws nothing; the drawing code asks it for colours and sizes.
//!
//! **Palette**: Okabe & Ito's eight colours, designed to stay distinct under the common
//! colour-vision deficiencies ("Color Universal Design", Okabe & Ito 2008; the palette Wong
//! recommends in Nature Methods 8, 441, 2011). Of them the charts use the ones whose greys
//! differ when printed black-and-white (luma 0.299 R + 0.587 G + 0.114 B): blue 87, vermillion
//! 119, orange 162, black 0. Two series that share a panel also differ in line style (solid
//! against dashed), so they part even where the colours do not.
//!
//! **Text**: plotters without a font backend (no `ttf`, no `ab_glyph`) lays text out with a
//! crude estimate (0.45 em per byte) and leaves the real shaping to the SVG viewer, placing
//! text with `text-anchor`. Left-, centre- and right-aligned text therefore lands where it
//! should, but anything sized from a width (a label area, whether a label fits its span) must
//! use a width that is not smaller than what the viewer draws. `text_width_px` adds up the
//! advance widths of DejaVu Sans, the widest of the common sans-serif faces.

use plotters::style::RGBColor;

/// Which colour a series, bar or line takes; the drawing maps it to the palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// The main series: reads, IOPS, a healthy host.
    Primary,
    /// The second series: writes, a second latency, an outlier host.
    Secondary,
    /// A third series beside two others.
    Tertiary,
    /// Markers and reference lines.
    Ink,
}

/// Okabe–Ito blue, #0072B2 (grey 87 of 255).
pub const BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// Okabe–Ito vermillion, #D55E00 (grey 119).
pub const VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
/// Okabe–Ito orange, #E69F00 (grey 162).
pub const ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
/// Okabe–Ito black: markers, axes, text.
pub const INK: RGBColor = RGBColor(0x00, 0x00, 0x00);
/// Text that is less important than the data (footnotes, tick labels).
pub const MUTED: RGBColor = RGBColor(0x44, 0x44, 0x44);
/// The shading of every other period (grey 232: visible on paper, lighter than any series).
pub const SHADE: RGBColor = RGBColor(0xE8, 0xE8, 0xE8);
/// Grid lines.
pub const GRID: RGBColor = RGBColor(0xD0, 0xD0, 0xD0);
/// The line where one period ends and the next begins (grey 119: dark enough on paper).
pub const BOUNDARY: RGBColor = RGBColor(0x77, 0x77, 0x77);

/// `c` as the SVG writes it ("#0072B2"), for tests and readers of the SVG.
pub fn hex(c: RGBColor) -> String {
    let RGBColor(r, g, b) = c;
    format!("#{r:02X}{g:02X}{b:02X}")
}

impl Tone {
    pub fn colour(self) -> RGBColor {
        match self {
            Tone::Primary => BLUE,
            Tone::Secondary => VERMILLION,
            Tone::Tertiary => ORANGE,
            Tone::Ink => INK,
        }
    }

    /// The colour's hex form as it appears in the SVG ("#0072B2"), for tests and readers.
    pub fn hex(self) -> String {
        hex(self.colour())
    }
}

/// A dash pattern. plotters has none of its own (its `DashedLineSeries` writes every dash as
/// an element: a thinned hour of a dashed latency line came to thousands of them), so a
/// dashed line is drawn as one polyline in a stand-in colour — the real colour with its
/// lowest blue bits flipped, used by nothing else — and `restore_dashes` turns that stand-in
/// into the real colour with an SVG `stroke-dasharray`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    /// Dashes: a second series beside a solid one, a median.
    Long,
    /// Dots: thresholds and references.
    Dotted,
}

/// Every colour that may be drawn dashed.
const DASHABLE: [RGBColor; 5] = [BLUE, VERMILLION, ORANGE, INK, MUTED];

impl Dash {
    /// The stand-in colour that draws `c` with this dash.
    pub fn colour(self, c: RGBColor) -> RGBColor {
        let flip = match self {
            Dash::Long => 1,
            Dash::Dotted => 2,
        };
        RGBColor(c.0, c.1, c.2 ^ flip)
    }

    /// The SVG `stroke-dasharray` value.
    pub fn array(self) -> &'static str {
        match self {
            Dash::Long => "7 5",
            Dash::Dotted => "2 3",
        }
    }
}

/// Rewrites every stand-in colour in `svg` as the real one with its dash array.
pub fn restore_dashes(svg: &str) -> String {
    let mut out = svg.to_string();
    for c in DASHABLE {
        for d in [Dash::Long, Dash::Dotted] {
            let stand_in = format!("stroke=\"{}\"", hex(d.colour(c)));
            let real = format!("stroke=\"{}\" stroke-dasharray=\"{}\"", hex(c), d.array());
            out = out.replace(&stand_in, &real);
        }
    }
    out
}

/// The font family every text is set in; the viewer picks the face.
pub const FAMILY: &str = "sans-serif";

/// Text sizes in SVG pixels (what the viewer draws; plotters' own size is 1.24× this).
pub const TITLE_PX: f64 = 20.0;
pub const SUBTITLE_PX: f64 = 14.0;
pub const LABEL_PX: f64 = 13.0;
pub const TICK_PX: f64 = 12.0;
pub const NOTE_PX: f64 = 12.0;

/// The size to hand plotters for text drawn at `svg_px` (its SVG backend writes
/// `font-size` as the size over 1.24).
pub fn plotters_size(svg_px: f64) -> f64 {
    svg_px * 1.24
}

/// Line height for text of `px`.
pub fn line_height(px: f64) -> i32 {
    (px * 1.35).ceil() as i32
}

/// Advance widths of DejaVu Sans (the common Linux sans-serif, and the widest of the usual
/// ones) for ASCII 0x20..=0x7E, in thousandths of an em, read from the font's `hmtx` table.
#[rustfmt::skip]
const DEJAVU_SANS_ADVANCE: [u16; 95] = [
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
    636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
    1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
    603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
    500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
];

/// DejaVu Sans Bold is this much wider than the book weight (its "a", "n", "0": 0.675,
/// 0.712, 0.696 em against 0.613, 0.634, 0.636).
pub const BOLD_FACTOR: f64 = 1.12;

/// The width `text` takes at `px` in DejaVu Sans, in pixels; a face the viewer substitutes
/// (Liberation Sans, Helvetica) is narrower, so what is sized from it does not clip. A
/// character outside the table counts as one em.
pub fn text_width_px(text: &str, px: f64) -> f64 {
    let em_thousandths: u32 = text
        .chars()
        .map(|c| match c {
            ' '..='~' => u32::from(DEJAVU_SANS_ADVANCE[c as usize - 0x20]),
            '·' => 318,
            '–' => 500,
            'µ' => 636,
            '×' => 838,
            _ => 1000,
        })
        .sum();
    f64::from(em_thousandths) / 1000.0 * px
}

/// `text` broken into lines no wider than `width_px` at `px`, at spaces; a word wider than
/// the line (a long path) is broken after its slashes, and what is still too wide is cut
/// with an ellipsis.
pub fn wrap(text: &str, px: f64, width_px: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    // A piece of a broken word follows the piece before it without a space.
    let words = text.split_whitespace().flat_map(|w| {
        break_word(w, px, width_px)
            .into_iter()
            .enumerate()
            .map(|(k, piece)| (k > 0, piece))
    });
    for (glued, word) in words {
        let candidate = match (line.is_empty(), glued) {
            (true, _) => word.to_string(),
            (false, true) => format!("{line}{word}"),
            (false, false) => format!("{line} {word}"),
        };
        if text_width_px(&candidate, px) <= width_px || line.is_empty() {
            line = candidate;
        } else {
            lines.push(std::mem::take(&mut line));
            line = word.to_string();
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.into_iter().map(|l| fit(&l, px, width_px)).collect()
}

/// `word` as it is when it fits a line, else in pieces that end after a '/' and fit.
fn break_word(word: &str, px: f64, width_px: f64) -> Vec<String> {
    if text_width_px(word, px) <= width_px {
        return vec![word.to_string()];
    }
    let mut out: Vec<String> = Vec::new();
    let mut piece = String::new();
    for part in word.split_inclusive('/') {
        if !piece.is_empty() && text_width_px(&format!("{piece}{part}"), px) > width_px {
            out.push(std::mem::take(&mut piece));
        }
        piece.push_str(part);
    }
    out.push(piece);
    out
}

/// `text` cut with an ellipsis so that it is no wider than `width_px` at `px`.
pub fn fit(text: &str, px: f64, width_px: f64) -> String {
    if text_width_px(text, px) <= width_px {
        return text.to_string();
    }
    let mut out: String = text.to_string();
    while !out.is_empty() && text_width_px(&format!("{out}…"), px) > width_px {
        out.pop();
    }
    format!("{}…", out.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_dejavu_sans_advances() {
        // I 0.295 + O 0.787 + P 0.603 + S 0.635 em.
        assert!((text_width_px("IOPS", 10.0) - 23.2).abs() < 1e-9);
        assert!((text_width_px("12 µs", 10.0) - 27.47).abs() < 1e-9);
        assert_eq!(text_width_px("", 12.0), 0.0);
    }

    #[test]
    fn wrapping_keeps_every_word_and_every_line_fits() {
        let text =
            "buffered I/O: the page cache is in play, so cached data is measured, not the disk";
        let lines = wrap(text, 12.0, 200.0);
        assert!(lines.len() > 1);
        assert_eq!(lines.join(" "), text);
        for l in &lines {
            assert!(text_width_px(l, 12.0) <= 200.0, "{l}");
        }
        let path = "/mnt/one-long-directory/another-long-directory/scratch.img";
        let lines = wrap(&format!("{path}: IOPS"), 12.0, 200.0);
        assert_eq!(
            lines.concat(),
            format!("{path}: IOPS"),
            "broken after slashes only"
        );
        assert!(lines.len() > 1 && lines[0].ends_with('/'), "{lines:?}");
        let cut = fit("a_very_long_unbreakable_path_name_of_a_device", 12.0, 80.0);
        assert!(
            cut.ends_with('…') && text_width_px(&cut, 12.0) <= 80.0,
            "{cut}"
        );
    }

    #[test]
    fn dashes_are_restored_to_the_real_colour() {
        let stand_in = hex(Dash::Long.colour(BLUE));
        assert_ne!(stand_in, hex(BLUE));
        let svg = format!("<polyline stroke=\"{stand_in}\" points=\"0,0 1,1\"/>");
        assert_eq!(
            restore_dashes(&svg),
            "<polyline stroke=\"#0072B2\" stroke-dasharray=\"7 5\" points=\"0,0 1,1\"/>"
        );
        // No stand-in is a colour the charts use for anything else.
        for c in DASHABLE {
            for d in [Dash::Long, Dash::Dotted] {
                assert!(
                    !DASHABLE.contains(&d.colour(c)) && d.colour(c) != SHADE && d.colour(c) != GRID
                );
            }
        }
    }

    #[test]
    fn palette_greys_differ_in_print() {
        let grey = |c: RGBColor| 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
        let g: Vec<f64> = [BLUE, VERMILLION, ORANGE].into_iter().map(grey).collect();
        assert!(
            (g[1] - g[0]).abs() > 25.0 && (g[2] - g[1]).abs() > 25.0,
            "{g:?}"
        );
        assert!(grey(SHADE) > g[2] + 50.0);
        assert_eq!(Tone::Primary.hex(), "#0072B2");
    }
}
