//! Chart descriptions drawn as SVG with plotters' SVG backend: the frame every chart shares
//! (title, subtitle, finding, footnotes, the canvas that grows to hold them) here, each kind
//! of plot in its own file. Drawing reads a `spec::Chart` and nothing else: no result type,
//! no clock, no file. Text is placed by anchor and sized with `style::text_width_px`, never
//! with plotters' own estimate (see `style`). Every SVG says in a `<desc>` that diskscope drew
//! it and what it shows (screen readers read it; `--plot` recognises its own files by it),
//! and `stack` puts two charts one above the other in one file.

mod bars;
mod histogram;
mod line_layout;
mod lines;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::spec::{Chart, Heading};
use super::style::{self, FAMILY, INK, MUTED};

/// Width of every chart, in pixels: a ticket's or a slide's column at 1:1.
pub const WIDTH_PX: u32 = 1200;
/// Left and right margin of the frame's text.
const SIDE_PX: i32 = 16;

pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// How the `<desc>` of every chart diskscope draws begins (`results::file` knows a chart by it).
pub const DESC_PREFIX: &str = crate::results::file::SVG_DESC;

/// The SVG text of `chart`; an error only if plotters refuses to draw (a bug, said in one
/// line).
pub fn svg(chart: &Chart) -> Result<String, String> {
    let mut out = String::new();
    let title = match chart {
        Chart::Lines(c) => {
            lines::draw(&mut out, c)?;
            &c.heading.title
        }
        Chart::Bars(c) => {
            bars::draw(&mut out, c)?;
            &c.heading.title
        }
        Chart::Histogram(c) => {
            histogram::draw(&mut out, c)?;
            &c.heading.title
        }
    };
    Ok(with_desc(&style::restore_dashes(&out), title))
}

/// `svg` with a `<desc>` naming what it shows right after its opening tag: every chart
/// leaves through here, so here its text is made XML (`escape::xml_chars` over the whole
/// document: a control character from a path or a jobname is shown, never written raw).
pub(crate) fn with_desc(svg: &str, what: &str) -> String {
    let Some(end) = svg.find('>') else {
        return svg.to_string();
    };
    let escaped = crate::escape::xml(what);
    let doc = format!(
        "{}\n{DESC_PREFIX}{escaped}</desc>{}",
        &svg[..=end],
        &svg[end + 1..]
    );
    crate::escape::xml_chars(&doc).into_owned()
}

/// The height an SVG's root says it has.
fn height_of(svg: &str) -> Option<u32> {
    let head = &svg[..svg.find('>')?];
    let at = head.find(" height=\"")? + " height=\"".len();
    head[at..].split('"').next()?.parse().ok()
}

/// Charts one above the other in one SVG, each at its own height, all `WIDTH_PX` wide:
/// a run over time with its latency distribution below it, as one picture.
pub fn stack(charts: &[String], what: &str) -> Result<String, String> {
    let mut body = String::new();
    let mut y = 0;
    for c in charts {
        let h = height_of(c).ok_or("a chart to stack has no height (a bug)")?;
        // A nested <svg> is placed by its x and y; it keeps its own viewBox.
        body.push_str(&c.replacen("<svg ", &format!("<svg x=\"0\" y=\"{y}\" "), 1));
        body.push('\n');
        y += h;
    }
    let outer = format!(
        "<svg width=\"{WIDTH_PX}\" height=\"{y}\" viewBox=\"0 0 {WIDTH_PX} {y}\" xmlns=\"http://www.w3.org/2000/svg\">\n{body}</svg>\n"
    );
    Ok(with_desc(&outer, what))
}

/// A line style of `colour`, `width` pixels wide, dashed as `dash` (see `style::Dash`).
pub(crate) fn stroke(colour: RGBColor, width: u32, dash: Option<style::Dash>) -> ShapeStyle {
    match dash {
        Some(d) => d.colour(colour).stroke_width(width),
        None => colour.stroke_width(width),
    }
}

/// A plotters error in one line.
pub(crate) fn failed<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing the chart failed inside plotters: {e:?}")
}

/// A text style of `px` SVG pixels in `colour`, anchored at `h`, `v`.
pub(crate) fn text(px: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle {
        font: (FAMILY, style::plotters_size(px)).into_font(),
        color: colour.to_backend_color(),
        pos: Pos::new(h, v),
    }
}

/// `text`, in bold.
pub(crate) fn bold(px: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    let s = text(px, colour, h, v);
    TextStyle {
        font: s.font.style(FontStyle::Bold),
        ..s
    }
}

/// The frame's text, broken into lines for the chart's width.
pub(crate) struct Frame {
    title: Vec<String>,
    subtitle: Vec<String>,
    finding: Vec<String>,
    notes: Vec<String>,
}

impl Frame {
    /// Lays out `h`, with `extra` footnotes the drawing adds (thinning).
    pub(crate) fn new(h: &Heading, extra: &[String]) -> Frame {
        let width = f64::from(WIDTH_PX) - 2.0 * f64::from(SIDE_PX);
        let bold = width / style::BOLD_FACTOR;
        let notes = h
            .footnotes
            .iter()
            .chain(extra)
            .flat_map(|n| style::wrap(&format!("• {n}"), style::NOTE_PX, width))
            .collect();
        Frame {
            title: style::wrap(&h.title, style::TITLE_PX, bold),
            subtitle: style::wrap(&h.subtitle, style::SUBTITLE_PX, width),
            finding: h
                .finding
                .as_deref()
                .map(|f| style::wrap(f, style::SUBTITLE_PX, bold))
                .unwrap_or_default(),
            notes,
        }
    }

    fn top_px(&self) -> i32 {
        12 + self.title.len() as i32 * style::line_height(style::TITLE_PX)
            + self.subtitle.len() as i32 * style::line_height(style::SUBTITLE_PX)
            + self.finding.len() as i32 * style::line_height(style::SUBTITLE_PX)
            + 8
    }

    fn bottom_px(&self) -> i32 {
        8 + self.notes.len() as i32 * style::line_height(style::NOTE_PX) + 8
    }

    /// The canvas height for a plot of `plot_px`.
    pub(crate) fn height(&self, plot_px: i32) -> u32 {
        (self.top_px() + plot_px + self.bottom_px()) as u32
    }

    /// Draws the frame's text on `root` and returns the area left for the plot.
    pub(crate) fn draw<'a>(&self, root: &Area<'a>) -> Result<Area<'a>, String> {
        root.fill(&WHITE).map_err(failed)?;
        let mut y = 12;
        let mut put = |lines: &[String], px: f64, colour: RGBColor, is_bold: bool| {
            for l in lines {
                let s = if is_bold {
                    bold(px, colour, HPos::Left, VPos::Top)
                } else {
                    text(px, colour, HPos::Left, VPos::Top)
                };
                root.draw_text(l, &s, (SIDE_PX, y)).map_err(failed)?;
                y += style::line_height(px);
            }
            Ok::<(), String>(())
        };
        put(&self.title, style::TITLE_PX, INK, true)?;
        put(&self.subtitle, style::SUBTITLE_PX, MUTED, false)?;
        put(&self.finding, style::SUBTITLE_PX, INK, true)?;
        let (_, h) = root.dim_in_pixel();
        let mut y = h as i32 - self.bottom_px() + 8;
        for l in &self.notes {
            let s = text(style::NOTE_PX, MUTED, HPos::Left, VPos::Top);
            root.draw_text(l, &s, (SIDE_PX, y)).map_err(failed)?;
            y += style::line_height(style::NOTE_PX);
        }
        let (_, rest) = root.split_vertically(self.top_px());
        let plot_px = h as i32 - self.top_px() - self.bottom_px();
        let (plot, _) = rest.split_vertically(plot_px);
        Ok(plot)
    }
}

/// A number for an axis tick: "950", "1.5k", "12.5k", "1.25M"; small values keep up to
/// three significant digits ("0.25", "4.5").
pub(crate) fn short_number(v: f64) -> String {
    let a = v.abs();
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if a >= 1e6 {
        format!("{}M", trim(format!("{:.2}", v / 1e6)))
    } else if a >= 1e3 {
        format!("{}k", trim(format!("{:.1}", v / 1e3)))
    } else if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        trim(format!("{v:.1}"))
    } else {
        trim(format!("{v:.2}"))
    }
}

/// The top of a y axis holding `max`: a little room above the highest value, 1 when empty.
pub(crate) fn y_top(max: f64, headroom: f64) -> f64 {
    if max.is_finite() && max > 0.0 {
        max * headroom
    } else {
        1.0
    }
}

/// The width of a y axis' label area: its rotated description, the widest tick label and
/// the gaps between (what plotters needs to keep them from overlapping).
pub(crate) fn y_area_px(top: f64) -> u32 {
    let widest = [top, top * 0.8, top / 3.0]
        .iter()
        .map(|v| style::text_width_px(&short_number(*v), style::TICK_PX))
        .fold(0.0, f64::max);
    (widest + f64::from(style::line_height(style::LABEL_PX)) + 22.0).ceil() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_say_what_they_are_and_stack() {
        let a = with_desc(
            "<svg width=\"1200\" height=\"300\" viewBox=\"0 0 1200 300\"><rect/></svg>",
            "/dev/a&b: <x>",
        );
        assert!(
            a.contains("<desc>diskscope chart: /dev/a&amp;b: &lt;x&gt;</desc>"),
            "{a}"
        );
        assert_eq!(height_of(&a), Some(300));
        let both = stack(&[a.clone(), a], "two").unwrap();
        assert!(
            both.starts_with("<svg width=\"1200\" height=\"600\""),
            "{both}"
        );
        assert!(both.contains("<svg x=\"0\" y=\"300\" width=\"1200\" height=\"300\""));
        assert!(roxmltree_free_parse(&both));
    }

    /// Tags balance (the integration tests parse the SVGs with roxmltree).
    fn roxmltree_free_parse(s: &str) -> bool {
        s.matches("<svg").count() == s.matches("</svg>").count()
    }

    #[test]
    fn numbers_shorten_as_axes_print_them() {
        assert_eq!(short_number(950.0), "950");
        assert_eq!(short_number(12_500.0), "12.5k");
        assert_eq!(short_number(40_000.0), "40k");
        assert_eq!(short_number(1_250_000.0), "1.25M");
        assert_eq!(short_number(4.5), "4.5");
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(2_000.0), "2k");
        assert_eq!(short_number(1_500.0), "1.5k");
    }
}
