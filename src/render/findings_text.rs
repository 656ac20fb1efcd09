//! The summary's findings, each kind once: a run whose settings changed says the same thing
//! about each of them (the kernel treats it as a spinning disk, "random reads at 86.5 µs",
//! then 98.1 µs, then 166 µs), and a summary that repeats it reads as three problems. A kind
//! said more than once is written once, its figures that changed as the range they took
//! ("random reads at 86.5–166 µs"); where the sentences differ in more than figures, the first
//! is written with how many more of its kind the JSON holds. A finding in time (a drop, a
//! recovery) is an event of its own: it keeps its line, with the period it belongs to.

use crate::model::finding::Finding;

/// The findings as the summary's lines ("  - …"): those about the settings one per kind, in
/// the order first said; those in time each, with their period when the run had several
/// (`periods`: each one's start and end, seconds into the run).
pub fn finding_lines(findings: &[Finding], periods: &[(f64, f64)]) -> Vec<String> {
    let mut kinds: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for f in findings {
        if let Some(at) = f.at_s {
            out.push(format!("  - {}{}", f.text, period_of(at, periods)));
            continue;
        }
        if kinds.contains(&f.kind.as_str()) {
            continue;
        }
        kinds.push(&f.kind);
        let texts: Vec<&str> = findings
            .iter()
            .filter(|g| g.kind == f.kind && g.at_s.is_none())
            .map(|g| g.text.as_str())
            .collect();
        out.push(format!("  - {}", merged(&texts)));
    }
    out
}

/// " (period 3)" for a time inside the third of several periods; "" with one period.
fn period_of(at: f64, periods: &[(f64, f64)]) -> String {
    if periods.len() < 2 {
        return String::new();
    }
    periods
        .iter()
        .position(|(start, end)| at >= *start && at < *end)
        .map_or_else(String::new, |i| format!(" (period {})", i + 1))
}

/// One sentence for several of a kind: the figures that differ as their range.
fn merged(texts: &[&str]) -> String {
    let mut distinct: Vec<&str> = Vec::new();
    for t in texts {
        if !distinct.contains(t) {
            distinct.push(t);
        }
    }
    let [first, rest @ ..] = distinct.as_slice() else {
        return String::new();
    };
    if rest.is_empty() {
        return first.to_string();
    }
    let split: Vec<Vec<String>> = distinct.iter().map(|t| figures_apart(t)).collect();
    let same_shape = split.iter().all(|w| w.len() == split[0].len());
    if same_shape {
        let mut words = Vec::new();
        for i in 0..split[0].len() {
            let column: Vec<&str> = split.iter().map(|w| w[i].as_str()).collect();
            match range(&column) {
                Some(r) => words.push(r),
                None => return more(first, rest.len()),
            }
        }
        return words.join(" ");
    }
    more(first, rest.len())
}

fn more(first: &str, n: usize) -> String {
    format!("{first} (and {n} more like it at other settings: see the JSON)")
}

/// The words of `text`, a figure and its unit kept together ("86.5 µs").
fn figures_apart(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for w in text.split(' ') {
        let joins = scale(w.trim_end_matches([',', ':', ';', ')'])).is_some()
            && words.last().is_some_and(|p| number(p).is_some());
        match words.last_mut() {
            Some(prev) if joins => {
                prev.push(' ');
                prev.push_str(w);
            }
            _ => words.push(w.to_string()),
        }
    }
    words
}

/// The same word in every sentence, or the range of a figure: "86.5–166 µs", "64–1024".
/// `None` when a word differs and is no figure.
fn range(column: &[&str]) -> Option<String> {
    if column.iter().all(|w| *w == column[0]) {
        return Some(column[0].to_string());
    }
    let mut values: Vec<(f64, &str)> = column
        .iter()
        .map(|w| value(w).map(|v| (v, *w)))
        .collect::<Option<_>>()?;
    values.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (lo, hi) = (values[0].1, values[values.len() - 1].1);
    // The punctuation after a figure ("1024," "166 µs:") follows the range.
    let tail: String = hi
        .chars()
        .rev()
        .take_while(|c| ",:;)".contains(*c))
        .collect();
    let (lo, hi) = (
        lo.trim_end_matches([',', ':', ';', ')']),
        hi.trim_end_matches([',', ':', ';', ')']),
    );
    let joined = match (lo.split_once(' '), hi.split_once(' ')) {
        (Some((a, u)), Some((b, v))) if u == v => format!("{a}–{b} {u}"),
        _ => format!("{lo}–{hi}"),
    };
    Some(format!("{joined}{tail}"))
}

/// A figure's value, its unit applied: "86.5 µs" → 8.65e-5, "1024" → 1024.
fn value(word: &str) -> Option<f64> {
    let word = word.trim_end_matches([',', ':', ';', ')']);
    match word.split_once(' ') {
        Some((n, unit)) => Some(number(n)? * scale(unit)?),
        None => number(word),
    }
}

fn number(w: &str) -> Option<f64> {
    let w = w.trim_start_matches('(');
    let digits = w.trim_end_matches(['k', 'M', 'G', '%', 'x', '×']);
    let n: f64 = digits.parse().ok()?;
    let mult = match &w[digits.len()..] {
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        _ => 1.0,
    };
    Some(n * mult)
}

/// The scale of a unit that follows a figure.
fn scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1e-9,
        "µs" | "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "IOPS" | "MB/s" | "GB/s" | "MiB/s" => 1.0,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(kind: &str, text: &str) -> Finding {
        Finding::new(kind, text.into())
    }

    #[test]
    fn a_kind_said_at_each_setting_is_written_once_with_its_range() {
        let said = [
            f(
                "rotational_flag",
                "random reads at 98.1 µs say otherwise: flash",
            ),
            f(
                "kernel_queue",
                "64 in flight asked, the device queue holds 256",
            ),
            f(
                "rotational_flag",
                "random reads at 86.5 µs say otherwise: flash",
            ),
            f(
                "rotational_flag",
                "random reads at 1.20 ms say otherwise: flash",
            ),
            f(
                "kernel_queue",
                "1024 in flight asked, the device queue holds 256",
            ),
        ];
        assert_eq!(
            finding_lines(&said, &[]),
            [
                "  - random reads at 86.5 µs–1.20 ms say otherwise: flash",
                "  - 64–1024 in flight asked, the device queue holds 256",
            ]
        );
        let same_unit = [
            f("rotational_flag", "reads at 166 µs say"),
            f("rotational_flag", "reads at 86.5 µs say"),
        ];
        assert_eq!(
            finding_lines(&same_unit, &[]),
            ["  - reads at 86.5–166 µs say"]
        );
    }

    #[test]
    fn sentences_that_differ_in_words_say_how_many_more() {
        let said = [
            f(
                "queue_split",
                "1M blocks are split into 2 requests of 512 KiB",
            ),
            f(
                "queue_split",
                "4M blocks are split into 8 requests (7 of 512 KiB and one of 4 KiB)",
            ),
        ];
        assert_eq!(
            finding_lines(&said, &[]),
            [
                "  - 1M blocks are split into 2 requests of 512 KiB (and 1 more like it at other settings: see the JSON)"
            ]
        );
    }

    #[test]
    fn events_in_time_keep_their_lines_with_their_period() {
        let (p1, p2) = ((0.0, 30.0), (30.0, 60.0));
        let said = [
            f("slowdown", "IOPS fell 40% at 0:10").at(10.0),
            f("slowdown", "IOPS fell 20% at 0:40").at(40.0),
        ];
        assert_eq!(
            finding_lines(&said, &[p1, p2]),
            [
                "  - IOPS fell 40% at 0:10 (period 1)",
                "  - IOPS fell 20% at 0:40 (period 2)"
            ]
        );
        assert_eq!(
            finding_lines(&said[..1], &[p1]),
            ["  - IOPS fell 40% at 0:10"]
        );
    }
}
