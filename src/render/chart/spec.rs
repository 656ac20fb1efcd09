//! What a chart shows, as plain data: titles, series, spans, markers, bars. The adapters
//! (`from_results`, `from_fio`) build these from results; `draw` turns them into SVG. Nothing
//! here knows plotters or any result type, so a description can be checked in a test
//! without drawing it, and a new result kind needs only a new adapter.
//!
//! Values are in the units the axis label names ("p99 latency (ms)" holds milliseconds): the
//! adapter that picks the unit converts, so the drawing never guesses.

use super::style::Tone;

/// Where and by what a result was made, for the title. Only the version is always known;
/// the rest arrives with the results' `meta` (start time, host) and is shown when given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// "diskscope 0.1.0", or the fio version for fio's results.
    pub tool: String,
    /// The start time as the result says it (RFC 3339, or fio's own "time").
    pub date: Option<String>,
    pub host: Option<String>,
    /// The disk's model, when known ("Samsung SSD 870 EVO 1TB").
    pub model: Option<String>,
}

impl Default for Provenance {
    fn default() -> Self {
        Provenance {
            tool: format!("diskscope {}", env!("CARGO_PKG_VERSION")),
            date: None,
            host: None,
            model: None,
        }
    }
}

impl Provenance {
    /// What a saved result's `meta` says; this diskscope's version where it says nothing
    /// (a file from before `meta`).
    pub fn of(meta: &crate::model::Meta) -> Provenance {
        let known = |s: &String| (!s.is_empty()).then(|| s.clone());
        Provenance {
            tool: if meta.is_known() {
                format!("{} {}", meta.tool, meta.version)
            } else {
                Provenance::default().tool
            },
            date: known(&meta.started),
            host: known(&meta.host),
            model: None,
        }
    }

    /// "on db-7, 2026-11-24T05:03:31+00:00, diskscope 0.1.0": the parts that are known.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = &self.model {
            parts.push(m.clone());
        }
        if let Some(h) = &self.host {
            parts.push(format!("on {h}"));
        }
        if let Some(d) = &self.date {
            parts.push(d.clone());
        }
        parts.push(self.tool.clone());
        parts.join(", ")
    }
}

/// The words around a chart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heading {
    /// What was tested: "/dev/sdb: IOPS, MB/s and p99 latency over 60 s".
    pub title: String,
    /// How: the workload in admin words, the engine, the provenance.
    pub subtitle: String,
    /// The result's own sentence (a saturation, a knee), shown under the subtitle.
    pub finding: Option<String>,
    /// The caveats the text prints (cache, small span, stops, errors, warnings).
    pub footnotes: Vec<String>,
}

/// One line on a panel. A NaN value is a gap (an interval without I/O has no latency).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text: "p99 from the due time".
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub tone: Tone,
    pub dashed: bool,
    /// Draw a dot at every point (few points, each a measured step).
    pub dots: bool,
}

/// A series of at most this many points is drawn with a dot at each.
pub const FEW_POINTS: usize = 60;

impl Series {
    /// A solid line without dots.
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>, tone: Tone) -> Series {
        Series {
            name: name.into(),
            points,
            tone,
            dashed: false,
            dots: false,
        }
    }

    /// The same, dashed.
    pub fn dashed(self) -> Series {
        Series {
            dashed: true,
            ..self
        }
    }

    /// The same, with a dot at every point.
    pub fn with_dots(self) -> Series {
        Series { dots: true, ..self }
    }

    /// With a dot at every point when there are few enough (`FEW_POINTS`) for each to be a
    /// measurement a reader can tell apart.
    pub fn dots_when_few(self) -> Series {
        let dots = self.points.len() <= FEW_POINTS;
        Series { dots, ..self }
    }
}

/// A panel: one y axis and the series drawn against it.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// The y axis with its unit: "IOPS", "MB/s (10⁶ B/s)", "p99 latency (ms)".
    pub y_label: String,
    pub series: Vec<Series>,
    /// A horizontal reference line and its label (a threshold the finding used).
    pub reference: Option<(f64, String)>,
    /// A log10 y axis (the label should say so): for values spanning decades, like a
    /// latency curve whose flat part is a hundredth of its end.
    pub log_y: bool,
}

/// How the x axis maps values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Values are drawn at log2(value): a doubling is one step.
    Log2,
}

/// The shared x axis.
#[derive(Debug, Clone, PartialEq)]
pub struct XAxis {
    /// With its unit: "time into the run (s)", "threads", "block size (bytes)".
    pub label: String,
    pub scale: Scale,
    /// Ticks at these values with these labels (`None`: evenly spaced numbers).
    pub ticks: Option<Vec<(f64, String)>>,
    /// Values are divided by this before they are drawn, so that the ticks fall on round
    /// numbers of the axis' unit (60: seconds drawn on an axis of minutes); 1 otherwise.
    pub divide_by: f64,
}

/// A stretch of the x axis run under one setting (a period).
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub start_s: f64,
    pub end_s: f64,
    /// Its settings in admin words: "4k random read, QD32 T4".
    pub label: String,
}

/// What a vertical marker means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// The process was stopped here (SIGSTOP, Ctrl-Z).
    Stop,
    /// The finding's step: the saturation, the knee.
    Finding,
    /// Another point of reference (the unlimited step's IOPS).
    Reference,
}

/// A vertical marker across every panel, with a short label; `at` is the point it names on
/// one panel (panel index, y), drawn as a ring.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub x: f64,
    pub label: String,
    pub kind: MarkKind,
    pub at: Option<(usize, f64)>,
}

/// Panels stacked on one x axis: a run over time, a sweep, a rate curve.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    pub heading: Heading,
    pub x: XAxis,
    pub panels: Vec<Panel>,
    /// Periods, shaded alternately (none or one: no shading).
    pub spans: Vec<Span>,
    pub marks: Vec<Mark>,
}

/// One bar: a median with its spread, or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// `None`: not run (the group's label says so in the footnote).
    pub value: Option<f64>,
    /// The min–max spread, drawn as a whisker.
    pub spread: Option<(f64, f64)>,
    pub tone: Tone,
    /// Written above the bar: "2,135", "outlier".
    pub label: String,
}

/// Bars side by side under one category label.
#[derive(Debug, Clone, PartialEq)]
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<Bar>,
}

/// A panel of grouped bars on one y axis.
#[derive(Debug, Clone, PartialEq)]
pub struct BarPanel {
    pub y_label: String,
    pub groups: Vec<BarGroup>,
    /// Horizontal lines across the panel (a median, a threshold): value, label, dashed.
    pub lines: Vec<(f64, String, bool)>,
}

/// Grouped bars: a suite's card, a fleet's hosts, fio's jobs.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    pub heading: Heading,
    pub panels: Vec<BarPanel>,
    /// What each tone means: (Primary, "read"), (Secondary, "write").
    pub legend: Vec<(Tone, String)>,
}

/// One bucket of a latency histogram: `[lo_ns, hi_ns)` held `count` I/Os.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bucket {
    pub lo_ns: f64,
    pub hi_ns: f64,
    pub count: u64,
}

/// A latency distribution on a log2 axis with its percentiles marked.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramChart {
    pub heading: Heading,
    pub buckets: Vec<Bucket>,
    /// ("p99", ns).
    pub marks: Vec<(String, f64)>,
}

/// Any chart.
#[derive(Debug, Clone, PartialEq)]
pub enum Chart {
    Lines(LineChart),
    Bars(BarChart),
    Histogram(HistogramChart),
}

/// A unit for latencies up to `max_ns`: its name and how many ns one of it is.
pub fn latency_unit(max_ns: f64) -> (&'static str, f64) {
    if max_ns >= 2e9 {
        ("s", 1e9)
    } else if max_ns >= 2e6 {
        ("ms", 1e6)
    } else if max_ns >= 2e3 {
        ("µs", 1e3)
    } else {
        ("ns", 1.0)
    }
}

/// Nice tick values for a latency axis from `lo_ns` to `hi_ns` (1, 2, 5 × 10ⁿ ns), labelled
/// in the unit people read ("50 µs", "1 ms").
pub fn latency_ticks(lo_ns: f64, hi_ns: f64) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    let mut decade = 1.0_f64;
    while decade <= hi_ns.max(1.0) * 10.0 && decade < 1e13 {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v >= lo_ns && v <= hi_ns {
                out.push((v, tick_ns(v)));
            }
        }
        decade *= 10.0;
    }
    out
}

/// "500 ns", "20 µs", "1 ms", "1.5 s": a round latency in its unit, without trailing zeros.
pub fn tick_ns(ns: f64) -> String {
    let (unit, per) = match ns {
        v if v >= 1e9 => ("s", 1e9),
        v if v >= 1e6 => ("ms", 1e6),
        v if v >= 1e3 => ("µs", 1e3),
        _ => ("ns", 1.0),
    };
    let v = ns / per;
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0} {unit}")
    } else {
        format!("{} {unit}", format!("{v:.2}").trim_end_matches('0'))
    }
}

/// "1,234,567".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_units_and_ticks_read_as_people_write_them() {
        assert_eq!(latency_unit(850.0), ("ns", 1.0));
        assert_eq!(latency_unit(4_500_000.0), ("ms", 1e6));
        let ticks = latency_ticks(900.0, 30_000.0);
        let labels: Vec<&str> = ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["1 µs", "2 µs", "5 µs", "10 µs", "20 µs"]);
        assert_eq!(tick_ns(1_500_000_000.0), "1.5 s");
        let labels: Vec<String> = latency_ticks(1e5, 1e7).into_iter().map(|t| t.1).collect();
        assert_eq!(
            labels,
            [
                "100 µs", "200 µs", "500 µs", "1 ms", "2 ms", "5 ms", "10 ms"
            ]
        );
    }

    #[test]
    fn provenance_says_what_is_known() {
        let p = Provenance {
            host: Some("db-7".into()),
            ..Provenance::default()
        };
        assert_eq!(
            p.describe(),
            format!("on db-7, diskscope {}", env!("CARGO_PKG_VERSION"))
        );
    }
}
