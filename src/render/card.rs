//! A suite as text: the header said before it runs, a line per pass while it runs, then the
//! card — one row per test with read and write side by side (MB/s median, the passes'
//! min–max, IOPS, mean and p99 latency), what the card measured beyond the disk, and one line
//! to paste into a ticket. Latency is total latency (fio's `lat`), from the passes' merged
//! histograms.

use std::fmt::Write;

use crate::model::ConfigReport;
use crate::stats::IntervalFigures;
use crate::suite::{Direction, DirectionResult, SuiteReport, TestResult};
use crate::units::{format_bytes, format_count_rate, format_latency_ns};

/// Decimal MB/s with 3–4 significant digits: "5.12", "450.1", "1234".
pub fn mb(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else if v < 1000.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// "O_DIRECT, io_uring" / "buffered (page cache), psync".
fn mode(c: &ConfigReport) -> String {
    format!(
        "{}, {}{}",
        if c.target.direct {
            "O_DIRECT"
        } else {
            "buffered (page cache)"
        },
        c.ioengine.name(),
        if c.settings.hipri { ", polled" } else { "" }
    )
}

/// What is said before the first pass: target, timing (under `--until-steady`, what a pass
/// really lasts: until steady, at most MAX), units.
pub fn header(
    name: &str,
    c: &ConfigReport,
    passes: usize,
    pause_s: f64,
    until: Option<&crate::sweep::UntilSteady>,
) -> String {
    let each = match until {
        None => format!("of {:.1} s", c.duration_s.unwrap_or(0.0)),
        Some(u) => format!(
            "until steady ({} rounds of {:.0} s) or {:.1} s at most",
            u.params.rounds,
            u.params.round_s,
            u.max.as_secs_f64()
        ),
    };
    format!(
        "diskscope suite {name} on {}: span {}, {}\n{passes} passes {each} per test and \
         direction, each after a {:.1} s ramp that is not counted, {pause_s:.1} s paused \
         between passes",
        crate::units::visible(&c.target.path),
        format_bytes(c.target.span_bytes),
        mode(c),
        crate::sweep::RAMP.as_secs_f64(),
    )
}

/// One pass as it finishes: "  SEQ1M Q8T1    read  pass 2/3   1234 MB/s  1177 IOPS  …".
pub fn pass_line(test: &str, d: Direction, pass: usize, of: usize, f: &IntervalFigures) -> String {
    format!(
        "  {test:<14}{:<6}pass {pass}/{of}  {:>7} MB/s  {:>7} IOPS  mean {:>9}  p99 {:>9}",
        d.name(),
        mb(f.bw_bytes_per_s / 1e6),
        format_count_rate(f.iops),
        latency(&f.latency_ns, f.latency_ns.mean),
        latency(&f.latency_ns, f.latency_ns.p99 as f64),
    )
}

/// A latency of `l`'s, or "-" where no I/O completed (not "0 ns": every I/O may have failed).
fn latency(l: &crate::stats::LatencySummary, ns: f64) -> String {
    match l.count {
        0 => "-".into(),
        _ => format_latency_ns(ns),
    }
}

/// Width of one direction's columns.
const DIR_WIDTH: usize = 48;

/// A direction's columns: MB/s, min–max, IOPS, mean, p99 — or why it did not run.
fn direction_cells(t: &TestResult, d: Direction, passes: usize) -> String {
    match t.direction(d) {
        Ok(f) => {
            let short = if f.passes.len() < passes { "*" } else { " " };
            format!(
                "{:>7}{short}{:>13}{:>7}{:>10}{:>10}",
                mb(f.mb_per_s.median),
                spread(f),
                format_count_rate(f.iops.median),
                latency(&f.latency_ns, f.latency_ns.mean),
                latency(&f.latency_ns, f.latency_ns.p99 as f64),
            )
        }
        Err(why) => format!("  {why:<width$}", width = DIR_WIDTH - 2),
    }
}

/// "1200–1250": the passes' MB/s.
fn spread(f: &DirectionResult) -> String {
    format!("{}–{}", mb(f.mb_per_s.min), mb(f.mb_per_s.max))
}

/// A test's name on the card: "RND4K Q32T1 (Q1)" when it ran at another depth.
fn shown_name(t: &TestResult) -> String {
    if t.iodepth_run != t.iodepth {
        format!("{} (Q{})", t.name, t.iodepth_run)
    } else {
        t.name.clone()
    }
}

/// "read: 1 of 3 passes" (or without the direction's name: "1 of 3 passes") for a test
/// whose directions ran fewer passes than the `planned`; `None` when each that ran ran them
/// all. The table's footnote and the line to paste both say it this way.
pub fn passes_note(t: &TestResult, planned: usize, name_direction: bool) -> Option<String> {
    let short: Vec<String> = [Direction::Read, Direction::Write]
        .into_iter()
        .filter_map(|d| {
            let ran = t.direction(d).ok()?.passes.len();
            (ran < planned).then(|| {
                let of = format!("{ran} of {planned} passes");
                if name_direction {
                    format!("{}: {of}", d.name())
                } else {
                    of
                }
            })
        })
        .collect();
    (!short.is_empty()).then(|| short.join(", "))
}

/// The card: header, notes, the table, footnotes and the line to paste.
pub fn card(r: &SuiteReport) -> String {
    let mut out = String::new();
    let names: Vec<String> = r.tests.iter().map(shown_name).collect();
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(4)
        + 2;
    let _ = writeln!(out);
    let rule = |label: &str| format!("{:-^width$}", format!(" {label} "), width = DIR_WIDTH - 2);
    let _ = writeln!(out, "{:w$}  {}    {}", "", rule("read"), rule("write"));
    let cols = format!(
        "{:>7} {:>13}{:>7}{:>10}{:>10}",
        "MB/s", "min–max", "IOPS", "mean", "p99"
    );
    let _ = writeln!(out, "{:<w$}{cols}  {cols}", "test");
    for (t, name) in r.tests.iter().zip(&names) {
        let _ = writeln!(
            out,
            "{name:<w$}{}  {}",
            direction_cells(t, Direction::Read, r.passes),
            direction_cells(t, Direction::Write, r.passes)
        );
    }
    // The rows were padded to the write column; trailing blanks are noise in a ticket.
    let mut out: String = out
        .lines()
        .map(|l| l.trim_end().to_string() + "\n")
        .collect();
    let _ = writeln!(
        out,
        "MB/s is 10^6 bytes/s, the median of the passes (min–max beside it; the max is the best \
         pass, the figure CrystalDiskMark keeps); latency from submission to completion over \
         every I/O of every pass"
    );
    failed_lines(&mut out, r, &names);
    let short: Vec<String> = r
        .tests
        .iter()
        .zip(&names)
        .filter_map(|(t, name)| passes_note(t, r.passes, true).map(|n| format!("{name} {n}")))
        .collect();
    if !short.is_empty() {
        let why = match &r.interrupted_by {
            Some(by) => format!("stopped early by {by}"),
            None => "the suite had not finished".into(),
        };
        let _ = writeln!(
            out,
            "* fewer passes than planned ({why}): {}",
            short.join("; ")
        );
    }
    for n in r
        .tests
        .iter()
        .filter_map(|t| t.note.as_ref().map(|n| (t, n)))
    {
        let _ = writeln!(out, "{}: {}", n.0.name, n.1);
    }
    for n in &r.notes {
        let _ = writeln!(out, "note: {n}");
    }
    if let Some(h) = &r.health {
        let _ = writeln!(out, "{}", crate::render::health::around_line(h));
    }
    for line in crate::render::why::series_lines(&r.config, &r.findings, &r.until_steady, "passes")
    {
        let _ = writeln!(out, "{line}");
    }
    if let Some(sig) = &r.interrupted_by {
        let _ = writeln!(out, "(stopped early by {sig})");
    }
    let _ = writeln!(out, "\n{}", summary_line(r));
    out
}

/// Under the table, where I/Os failed: how many per test and direction (not in its figures,
/// which count completed I/Os only: a test whose every I/O failed reads 0 MB/s), then the
/// first errors with their offsets.
fn failed_lines(out: &mut String, r: &SuiteReport, names: &[String]) {
    let failed: Vec<String> = r
        .tests
        .iter()
        .zip(names)
        .flat_map(|(t, name)| {
            [Direction::Read, Direction::Write]
                .into_iter()
                .filter_map(move |d| {
                    let n = t.direction(d).ok()?.counts.errors;
                    (n > 0).then(|| format!("{name} {} {n}", d.name()))
                })
        })
        .collect();
    if failed.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "failed I/Os, not in the figures: {}; the first:",
        failed.join(", ")
    );
    crate::render::text::error_lines(out, &r.errors);
}

/// One line to paste into a ticket: every test's read/write medians, MB/s for sequential
/// tests and IOPS for random ones.
pub fn summary_line(r: &SuiteReport) -> String {
    let c = &r.config;
    let figure = |t: &TestResult, d: Direction| -> String {
        match t.direction(d) {
            Ok(f) if t.random => format_count_rate(f.iops.median),
            Ok(f) => mb(f.mb_per_s.median),
            Err(_) => "-".into(),
        }
    };
    let writes = r.tests.iter().any(|t| t.write.is_some());
    let tests: Vec<String> = r
        .tests
        .iter()
        .map(|t| {
            let unit = if t.random { "IOPS" } else { "MB/s" };
            let fig = if writes {
                format!(
                    "{}/{}",
                    figure(t, Direction::Read),
                    figure(t, Direction::Write)
                )
            } else {
                figure(t, Direction::Read)
            };
            let passes = passes_note(t, r.passes, writes)
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            format!("{} {fig} {unit}{passes}", shown_name(t))
        })
        .collect();
    format!(
        "diskscope {} card, {} ({} span, {}, median of {}x{}, {}): {}",
        r.suite.name(),
        crate::units::visible(&c.target.path),
        format_bytes(c.target.span_bytes),
        mode(c),
        r.passes,
        crate::units::format_duration(std::time::Duration::from_secs_f64(r.pass_time_s)),
        if writes { "read/write" } else { "reads only" },
        tests.join(" · ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::IoEngine;
    use crate::suite::{Plan, SuiteName, Timing, card};

    #[test]
    fn a_card_without_writes_says_why_on_every_row() {
        let plan = Plan::new(
            SuiteName::Peak,
            Timing::default(),
            Some("not run: add --allow-write".into()),
            IoEngine::Psync,
        );
        let r = SuiteReport {
            meta: crate::model::Meta::default(),
            suite: SuiteName::Peak,
            config: ConfigReport::example(),
            passes: 3,
            pass_time_s: 5.0,
            ramp_s: 0.5,
            pause_s: 1.0,
            notes: vec![],
            tests: card::rows(&plan, &[], &[], "not run: stopped"),
            errors: vec![],
            interrupted_by: Some("SIGINT".into()),
            findings: vec![],
            until_steady: vec![],
            health: None,
        };
        let text = card(&r);
        assert_eq!(
            text.matches("not run: add --allow-write").count(),
            2,
            "{text}"
        );
        assert!(text.contains("RND4K Q32T1 (Q1)"), "{text}");
        assert!(text.contains("ran at Q1"), "{text}");
        let line = summary_line(&r);
        assert!(
            line.contains("reads only") && line.contains("SEQ1M Q8T1 (Q1) - MB/s"),
            "{line}"
        );
    }

    /// A test that ran fewer passes than planned says how many, in the table and in the
    /// line to paste alike; a test that ran them all says nothing more.
    #[test]
    fn the_line_and_the_table_give_a_short_test_the_same_pass_count() {
        let plan = Plan::new(
            SuiteName::Peak,
            Timing::default(),
            Some("not run: add --allow-write".into()),
            IoEngine::IoUring,
        );
        let mut f = crate::stats::Window::default().figures();
        (f.bw_bytes_per_s, f.iops) = (1.5e9, 1430.0);
        // Three passes of the first test, one of the second.
        let results = vec![f; 4];
        let lats = vec![crate::stats::Latency::default(); 4];
        let r = SuiteReport {
            meta: crate::model::Meta::default(),
            suite: SuiteName::Peak,
            config: ConfigReport::example(),
            passes: 3,
            pass_time_s: 5.0,
            ramp_s: 0.5,
            pause_s: 1.0,
            notes: vec![],
            tests: card::rows(&plan, &results, &lats, "not run: stopped"),
            errors: vec![],
            interrupted_by: Some("SIGTERM".into()),
            findings: vec![],
            until_steady: vec![],
            health: None,
        };
        let line = summary_line(&r);
        let second = line.split(" · ").nth(1).expect("two tests");
        assert!(second.ends_with("IOPS (1 of 3 passes)"), "{line}");
        assert!(
            line.split(" · ").next().unwrap().ends_with("1500 MB/s"),
            "{line}"
        );
        let text = card(&r);
        assert!(text.contains("RND4K Q32T1 read: 1 of 3 passes"), "{text}");
        assert!(!text.contains("SEQ1M Q8T1 read:"), "{text}");
        assert!(text.contains("stopped early by SIGTERM"), "{text}");
    }

    /// A test whose I/Os failed says how many under the table, with the first errors: its
    /// figures count completed I/Os only (here none: 0 MB/s). A polled card says polled.
    #[test]
    fn failed_ios_are_said_under_the_table_and_polling_in_the_header() {
        let plan = Plan::new(SuiteName::Peak, Timing::default(), None, IoEngine::IoUring);
        let mut f = crate::stats::Window::default().figures();
        f.counts.errors = 942_273;
        // Every pass alike: three of each test and direction, summed.
        let n = plan.passes.len();
        let mut config = ConfigReport::example();
        config.settings.hipri = true;
        config.ioengine = IoEngine::IoUring;
        let r = SuiteReport {
            meta: crate::model::Meta::default(),
            suite: SuiteName::Peak,
            config,
            passes: 1,
            pass_time_s: 1.0,
            ramp_s: 0.5,
            pause_s: 0.0,
            notes: vec![],
            tests: card::rows(&plan, &vec![f; n], &vec![Default::default(); n], "-"),
            errors: vec![crate::stats::IoErrorRecord {
                thread: 0,
                op: "read",
                offset: 4096,
                message: "Operation not supported".into(),
                errno: Some(95),
            }],
            interrupted_by: None,
            findings: vec![],
            until_steady: vec![],
            health: None,
        };
        let text = card(&r);
        assert!(
            text.contains("failed I/Os, not in the figures: SEQ1M Q8T1 read 2826819,"),
            "{text}"
        );
        assert!(
            text.contains("read at offset 4096: Operation not supported"),
            "{text}"
        );
        let head = header("peak", &r.config, 1, 0.0, None);
        assert!(head.contains("io_uring, polled"), "{head}");
    }
}
