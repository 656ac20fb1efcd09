//! Units people type and read: sizes ("4k", "64KiB", "1M"), durations ("10s", "2m", "500ms")
//! and their human formatting (KiB/MiB/GiB, µs/ms/s); and text such as a path made safe to
//! show (`visible`).
//!
//! Sizes are binary: k, K, KiB and KB all mean 1024 — a disk benchmark is about blocks, and
//! nobody types "4k" meaning 4000 bytes. Parsing is strict: a value that does not parse is an
//! error naming what was typed, never a silent zero. Nothing here touches a clock or a disk.

use std::time::Duration;

/// Parses a size: a whole number with an optional binary suffix (b, k, m, g, t; with or
/// without "iB" / "B"; case-insensitive). "4k" = 4096, "1M" = 1048576, "512" = 512.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    if digits.is_empty() {
        return Err(format!(
            "'{text}' is not a size; use a number with an optional unit, e.g. 4k, 64KiB, 1M, 2G"
        ));
    }
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        "p" | "pb" | "pib" => 50,
        other => {
            return Err(format!(
                "'{text}': unknown size unit '{other}'; use b, k, M, G or T (binary: 1k = 1024)"
            ));
        }
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is too large a size"))?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}' is too large a size"))
}

/// Parses a duration: a number (decimals allowed) with a unit of ms, s, m or h; a bare number
/// means seconds. "10s", "2m", "1.5s", "250ms", "1h". Exact to the nanosecond (no floats).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let bad = || format!("'{text}' is not a duration; use e.g. 10s, 2m, 500ms, 1h");
    let ns_per_unit: u128 = match unit.trim().to_ascii_lowercase().as_str() {
        "ms" => 1_000_000,
        "" | "s" | "sec" | "secs" => 1_000_000_000,
        "m" | "min" | "mins" => 60_000_000_000,
        "h" | "hr" | "hrs" => 3_600_000_000_000,
        _ => return Err(bad()),
    };
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    if (whole.is_empty() && frac.is_empty()) || frac.contains('.') || frac.len() > 9 {
        return Err(bad());
    }
    let digits = |d: &str| -> Result<u128, String> {
        if d.is_empty() {
            Ok(0)
        } else {
            d.parse::<u128>().map_err(|_| bad())
        }
    };
    let whole = digits(whole)?;
    let frac_scaled = digits(frac)? * 10u128.pow(9 - frac.len() as u32);
    // whole * unit + fraction * unit, with the fraction in billionths.
    let ns = whole
        .checked_mul(ns_per_unit)
        .and_then(|w| w.checked_add(frac_scaled * ns_per_unit / 1_000_000_000))
        .ok_or_else(|| format!("'{text}' is too long a duration (at most a year)"))?;
    // One year is far beyond any benchmark.
    if ns > 365 * 86_400 * 1_000_000_000 {
        return Err(format!("'{text}' is too long a duration (at most a year)"));
    }
    Ok(Duration::from_nanos(ns as u64))
}

/// Formats a byte count with a binary unit: "512 B", "4 KiB", "1.5 MiB", "931.5 GiB".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Formats a byte range "START–END" in the unit of its end, with enough decimals (at most
/// two; none for a whole number) that its length shows two significant digits, else in the
/// next smaller unit: "16 MiB–18 MiB", "1500 MiB–1503 MiB" where GiB would say "1.46 GiB–1.47
/// GiB" (or, with one decimal, "1.5 GiB–1.5 GiB").
pub fn format_byte_range(start: u64, end: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let top = (0..UNITS.len())
        .rev()
        .find(|&u| end >> (10 * u) > 0)
        .unwrap_or(0);
    let show = |bytes: u64, unit: usize, decimals: usize| -> String {
        let value = bytes as f64 / (1u64 << (10 * unit)) as f64;
        if bytes == 0 {
            "0 B".to_string()
        } else if value.fract() == 0.0 {
            format!("{value:.0} {}", UNITS[unit])
        } else {
            format!("{value:.decimals$} {}", UNITS[unit])
        }
    };
    let length = end.saturating_sub(start);
    for unit in (1..=top).rev() {
        let shown = length as f64 / (1u64 << (10 * unit)) as f64;
        let decimals = if shown > 0.0 {
            (1.0 - shown.log10().floor()).max(0.0) as usize
        } else {
            0
        };
        if decimals <= 2 {
            return format!(
                "{}–{}",
                show(start, unit, decimals),
                show(end, unit, decimals)
            );
        }
    }
    format!("{}–{}", show(start, 0, 0), show(end, 0, 0))
}

/// Formats a block size compactly, the way it is typed: "512", "4k", "64k", "1M", "16M".
pub fn format_block_size(bytes: u64) -> String {
    for (shift, suffix) in [(30, "G"), (20, "M"), (10, "k")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{suffix}", bytes >> shift);
        }
    }
    bytes.to_string()
}

/// Formats a latency in nanoseconds with a unit that keeps 3–4 significant digits:
/// "850 ns", "12.3 µs", "4.56 ms", "1.20 s".
pub fn format_latency_ns(ns: f64) -> String {
    let (value, unit) = if ns < 1_000.0 {
        return format!("{ns:.0} ns");
    } else if ns < 1_000_000.0 {
        (ns / 1e3, "µs")
    } else if ns < 1_000_000_000.0 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if value < 10.0 {
        format!("{value:.2} {unit}")
    } else if value < 100.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// Formats a rate of operations: "950", "12.3k", "1.25M".
pub fn format_count_rate(per_s: f64) -> String {
    if per_s < 10_000.0 {
        format!("{per_s:.0}")
    } else if per_s < 1_000_000.0 {
        format!("{:.1}k", per_s / 1e3)
    } else {
        format!("{:.2}M", per_s / 1e6)
    }
}

/// Formats a duration as seconds with one decimal below a minute, else "2m05s".
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs < 60.0 {
        format!("{secs:.1}s")
    } else {
        let whole = d.as_secs();
        format!("{}m{:02}s", whole / 60, whole % 60)
    }
}

/// "10 s", "0.3 s": a length in seconds without rounding a short run to nothing.
pub fn format_seconds(s: f64) -> String {
    if s.fract() == 0.0 || s >= 10.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// A message kept on one line: each control character in it (a path's newline, an escape
/// sequence) written as an escape, `\n`, `\u{1b}`, without quoting the rest.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` as shown to a person: unchanged unless it holds a control character or a
/// bidirectional override, which would break the line, move the cursor or reorder what is
/// read (a path may hold any of them); then quoted with each escaped (`"a\nb"`, `\u{202e}`),
/// so what is shown is what is there and cannot be taken for a plain name.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    std::borrow::Cow::Owned(out)
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_ranges_ends_differ_as_they_do() {
        assert_eq!(format_byte_range(16 << 20, 18 << 20), "16 MiB–18 MiB");
        assert_eq!(format_byte_range(0, 4 << 20), "0 B–4 MiB");
        assert_eq!(
            format_byte_range(1536 << 20, 1537 << 20),
            "1536 MiB–1537 MiB"
        );
        assert_eq!(
            format_byte_range(1500 << 20, 1503 << 20),
            "1500 MiB–1503 MiB"
        );
        assert_eq!(
            format_byte_range((3 << 30) / 2, (3 << 30) / 2 + (200 << 20)),
            "1.50 GiB–1.70 GiB"
        );
        assert_eq!(
            format_byte_range(16 << 20, (16 << 20) + (128 << 10)),
            "16 MiB–16.12 MiB"
        );
        assert_eq!(format_byte_range(100, 612), "100 B–612 B");
        assert_eq!(format_byte_range(1 << 30, 1 << 30), "1 GiB–1 GiB");
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(visible("/dev/sdb"), "/dev/sdb");
        assert_eq!(visible(r"C:\x"), r"C:\x");
        assert_eq!(visible("/a\nb"), r#""/a\nb""#);
        assert_eq!(visible("/a\u{1b}[31m\"b\\"), r#""/a\u{1b}[31m\"b\\""#);
        assert_eq!(visible("x\u{202e}gnp.exe"), r#""x\u{202e}gnp.exe""#);
        assert_eq!(one_line("a: /x\ny: gone"), r"a: /x\ny: gone");
        assert_eq!(one_line("plain"), "plain");
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size(" 8 MiB "), Ok(8 << 20));
        assert_eq!(parse_size("0"), Ok(0));
    }

    #[test]
    fn bad_sizes_are_errors_that_quote_the_input() {
        for bad in [
            "",
            "k",
            "4x",
            "-4k",
            "4.5k",
            "99999999999999999999",
            "16777216T",
        ] {
            let err = parse_size(bad).expect_err(bad);
            assert!(err.contains(&format!("'{bad}'")), "{err}");
        }
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration(".25s"), Ok(Duration::from_millis(250)));
        for bad in [
            "",
            "s",
            ".",
            "10x",
            "1..2s",
            "-1s",
            "1e400s",
            "100000h",
            "1.0000000001s",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn formatting_adapts_units() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(4096), "4 KiB");
        assert_eq!(format_bytes(1536 * 1024), "1.5 MiB");
        assert_eq!(format_bytes(1 << 30), "1 GiB");
        assert_eq!(format_block_size(512), "512");
        assert_eq!(format_block_size(4096), "4k");
        assert_eq!(format_block_size(1 << 20), "1M");
        assert_eq!(format_block_size(3 << 10), "3k");
        assert_eq!(format_latency_ns(850.0), "850 ns");
        assert_eq!(format_latency_ns(12_345.0), "12.3 µs");
        assert_eq!(format_latency_ns(4_560_000.0), "4.56 ms");
        assert_eq!(format_latency_ns(1_200_000_000.0), "1.20 s");
        assert_eq!(format_count_rate(950.0), "950");
        assert_eq!(format_count_rate(12_340.0), "12.3k");
        assert_eq!(format_duration(Duration::from_secs(125)), "2m05s");
    }
}
