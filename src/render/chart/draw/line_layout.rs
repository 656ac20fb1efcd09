//! Where a line chart's parts go before anything is drawn: the x mapping (linear or log2)
//! and its range, the shared width of the y label areas (so every panel's x axis lines up),
//! each panel's y top, the series mapped and thinned to the pixel columns, and the periods'
//! labels shortened to their numbers where the name does not fit. The notes it adds (what
//! was thinned, which periods are numbered) go into the chart's footnotes.

use super::super::spec::{LineChart, Panel, Scale, thousands};
use super::super::style;
use super::super::thin;
use super::lines::RIGHT_PX;
use super::{WIDTH_PX, y_area_px, y_top};

/// What the drawing needs beyond the description: the x mapping, the panels' y tops, the
/// thinned series and the notes the drawing adds.
pub(super) struct Layout {
    pub(super) scale: Scale,
    divide_by: f64,
    pub(super) x_lo: f64,
    pub(super) x_hi: f64,
    pub(super) y_area: u32,
    /// Per panel, the y range as drawn (log10 of the values on a log panel).
    pub(super) ys: Vec<(f64, f64)>,
    pub(super) log_y: Vec<bool>,
    /// Per panel, per series: the points to draw (x mapped, thinned).
    pub(super) drawn: Vec<Vec<Vec<(f64, f64)>>>,
    /// What each period's strip label says ("" when even its number does not fit).
    pub(super) span_labels: Vec<String>,
    /// Whether the periods are shaded and named: not when there are more than the width
    /// can show apart (`MIN_SPAN_PX` each on average).
    pub(super) spans_shown: bool,
    pub(super) notes: Vec<String>,
}

impl Layout {
    pub(super) fn fx(&self, x: f64) -> f64 {
        map_x(self.scale, x / self.divide_by)
    }

    /// `y` of panel `i` as drawn: its log10 on a log panel (no place for 0 or less: a gap);
    /// a value that is not a finite number (a corrupt result) is a gap too.
    pub(super) fn fy(&self, i: usize, y: f64) -> f64 {
        match self.log_y[i] {
            _ if !y.is_finite() => f64::NAN,
            true if y > 0.0 => y.log10(),
            true => f64::NAN,
            false => y,
        }
    }

    pub(super) fn plot_width(&self) -> f64 {
        f64::from(WIDTH_PX) - f64::from(self.y_area) - f64::from(RIGHT_PX)
    }

    /// The pixel column of `x` (already mapped), from the canvas' left edge.
    pub(super) fn px(&self, fx: f64) -> f64 {
        f64::from(self.y_area) + (fx - self.x_lo) / (self.x_hi - self.x_lo) * self.plot_width()
    }

    pub(super) fn of(c: &LineChart) -> Layout {
        let scale = c.x.scale;
        let divide_by = if c.x.divide_by > 0.0 {
            c.x.divide_by
        } else {
            1.0
        };
        let mut xs: Vec<f64> = c
            .panels
            .iter()
            .flat_map(|p| p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0)))
            .chain(c.spans.iter().flat_map(|s| [s.start_s, s.end_s]))
            .chain(c.marks.iter().map(|m| m.x))
            .chain(c.x.ticks.iter().flatten().map(|t| t.0))
            .filter(|x| x.is_finite() && (scale == Scale::Linear || *x > 0.0))
            .map(|x| map_x(scale, x / divide_by))
            .collect();
        xs.sort_by(f64::total_cmp);
        let (lo, hi) = (xs.first().copied(), xs.last().copied());
        let (x_lo, x_hi) = match (scale, lo, hi) {
            (Scale::Log2, Some(lo), Some(hi)) => (lo - 0.35, hi + 0.35),
            (Scale::Linear, Some(lo), Some(hi)) if hi > lo.min(0.0) => (lo.min(0.0), hi * 1.02),
            _ => (0.0, 1.0),
        };
        let tops: Vec<f64> = c.panels.iter().map(panel_top).collect();
        let y_area = tops.iter().map(|t| y_area_px(*t)).max().unwrap_or(60);
        let ys = c
            .panels
            .iter()
            .zip(&tops)
            .map(|(p, top)| if p.log_y { log_range(p) } else { (0.0, *top) })
            .collect();
        let mut l = Layout {
            scale,
            divide_by,
            x_lo,
            x_hi,
            y_area,
            ys,
            log_y: c.panels.iter().map(|p| p.log_y).collect(),
            drawn: Vec::new(),
            span_labels: Vec::new(),
            spans_shown: false,
            notes: Vec::new(),
        };
        l.thin(c);
        l.name_spans(c);
        l
    }

    /// Maps and thins every series; says so in a note when points were left out.
    fn thin(&mut self, c: &LineChart) {
        let columns = self.plot_width().max(1.0) as usize;
        let mut most = 0;
        for (i, p) in c.panels.iter().enumerate() {
            let mut drawn = Vec::new();
            for s in &p.series {
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter(|q| self.scale == Scale::Linear || q.0 > 0.0)
                    .map(|q| (self.fx(q.0), self.fy(i, q.1)))
                    .collect();
                let t = thin::min_max_per_column(&pts, self.x_lo, self.x_hi, columns);
                if t.len() < pts.len() {
                    most = most.max(pts.len());
                }
                drawn.push(t);
            }
            self.drawn.push(drawn);
        }
        if most > 0 {
            self.notes.push(format!(
                "{} points per series are more than the {columns} pixel columns can show: each column draws its lowest and highest point, so spikes stay visible",
                thousands(most as u64)
            ));
        }
    }

    /// Each period's label, shortened to its number where the name does not fit, and a note
    /// naming the numbered ones.
    fn name_spans(&mut self, c: &LineChart) {
        if c.spans.len() < 2 {
            return;
        }
        // Thousands of periods (a rate changed every second) would be thousands of shades
        // and lines no one can tell apart, and megabytes of SVG: say so instead.
        let fits = (self.plot_width() / MIN_SPAN_PX) as usize;
        if c.spans.len() > fits {
            self.notes.push(format!(
                "{} periods are more than the chart can show apart ({fits} at most): they are not shaded; the JSON lists them",
                thousands(c.spans.len() as u64)
            ));
            return;
        }
        self.spans_shown = true;
        let mut numbered = Vec::new();
        for (i, s) in c.spans.iter().enumerate() {
            let room = self.px(self.fx(s.end_s)) - self.px(self.fx(s.start_s)) - 8.0;
            let short = format!("P{}", i + 1);
            let label = if style::text_width_px(&s.label, style::TICK_PX) <= room {
                s.label.clone()
            } else {
                numbered.push(format!(
                    "{short} {} ({:.0}–{:.0} s)",
                    s.label, s.start_s, s.end_s
                ));
                if style::text_width_px(&short, style::TICK_PX) <= room {
                    short
                } else {
                    String::new()
                }
            };
            self.span_labels.push(label);
        }
        const LISTED: usize = 12;
        if !numbered.is_empty() {
            let more = numbered.len().saturating_sub(LISTED);
            numbered.truncate(LISTED);
            let tail = if more > 0 {
                format!("; {more} more in the JSON")
            } else {
                String::new()
            };
            self.notes.push(format!(
                "periods too short to name on the chart: {}{tail}",
                numbered.join("; ")
            ));
        }
    }
}

/// The average width a period needs to be shaded and told apart from its neighbours.
const MIN_SPAN_PX: f64 = 6.0;

pub(super) fn map_x(scale: Scale, x: f64) -> f64 {
    match scale {
        Scale::Linear => x,
        Scale::Log2 => x.max(f64::MIN_POSITIVE).log2(),
    }
}

/// A log panel's range in decades: from a little under its least positive value to a
/// little over its highest, with room for marker labels.
fn log_range(p: &Panel) -> (f64, f64) {
    let values = p
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|q| q.1))
        .chain(p.reference.iter().map(|r| r.0))
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return (0.0, 1.0);
    }
    let (lo, hi) = (lo.log10() - 0.15, hi.log10());
    (lo, hi + 0.12 * (hi - lo).max(1.0))
}

/// A panel's y top: its highest value or reference, with room for marker labels.
fn panel_top(p: &Panel) -> f64 {
    let max = p
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|q| q.1))
        .chain(p.reference.iter().map(|r| r.0))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    y_top(max, 1.15)
}
