//! How findings write numbers: run clock ("1:12"), decimal rates ("2.10 GB/s", as drives and
//! links are sold), temperatures and shares. Only sentences in `findings` use these; the
//! binary sizes of written data come from `units::format_bytes` ("38.2 GiB").

use super::thresholds::LINK_FRACTION_WORDS_TOLERANCE;

/// Seconds into the run as a clock, rounded to the nearest second: "0:42", "1:12", "1:02:05".
pub fn clock(t_s: f64) -> String {
    let total = if t_s.is_finite() && t_s > 0.0 {
        t_s.round() as u64
    } else {
        0
    };
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// A count with thousands grouped: 23456 → "23,456".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Decimal bytes as drives are sold, three significant digits: "412 TB", "85.3 GB".
pub fn decimal_bytes(value: f64) -> String {
    bytes_per_s(value).trim_end_matches("/s").to_string()
}

/// A decimal byte rate with three significant digits: "850 B/s", "480 MB/s", "2.10 GB/s".
pub fn bytes_per_s(value: f64) -> String {
    const UNITS: [&str; 7] = ["B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s", "EB/s"];
    if !value.is_finite() || value <= 0.0 {
        return "0 B/s".into();
    }
    let mut scaled = value;
    let mut unit = 0;
    // 999.6 MB/s would print as "1000 MB/s"; move up a unit before rounding can do that.
    while scaled >= 999.5 && unit < UNITS.len() - 1 {
        scaled /= 1000.0;
        unit += 1;
    }
    let digits = if unit == 0 || scaled >= 99.95 {
        0
    } else if scaled >= 9.995 {
        1
    } else {
        2
    };
    format!("{scaled:.digits$} {}", UNITS[unit])
}

/// A temperature: "79 °C".
pub fn celsius(c: f64) -> String {
    format!("{c:.0} °C")
}

/// A share as a whole percentage of 1: 0.412 → "41%".
pub fn pct(fraction: f64) -> String {
    format!("{:.0}%", fraction * 100.0)
}

/// A share in words when it is near a simple fraction ("half", "a quarter", "an eighth",
/// "a sixteenth"), else as a percentage ("38%").
pub fn fraction(share: f64) -> String {
    const NAMED: [(f64, &str); 4] = [
        (0.5, "half"),
        (0.25, "a quarter"),
        (0.125, "an eighth"),
        (0.0625, "a sixteenth"),
    ];
    for (value, name) in NAMED {
        if ((share - value) / value).abs() <= LINK_FRACTION_WORDS_TOLERANCE {
            return name.into();
        }
    }
    pct(share)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_and_bytes_decimal() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1204), "1,204");
        assert_eq!(grouped(23_456), "23,456");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(decimal_bytes(412.16e12), "412 TB");
        assert_eq!(decimal_bytes(85.3e9), "85.3 GB");
        // A datacenter SSD's lifetime writes: petabytes, not "3200 TB".
        assert_eq!(decimal_bytes(3.2e15), "3.20 PB");
        assert_eq!(decimal_bytes(18.4e18), "18.4 EB");
    }

    #[test]
    fn the_clock_reads_like_a_stopwatch() {
        assert_eq!(clock(42.0), "0:42");
        assert_eq!(clock(71.6), "1:12");
        assert_eq!(clock(125.0), "2:05");
        assert_eq!(clock(3725.0), "1:02:05");
        assert_eq!(clock(-3.0), "0:00");
        assert_eq!(clock(f64::NAN), "0:00");
    }

    #[test]
    fn rates_keep_three_significant_digits_in_decimal_units() {
        assert_eq!(bytes_per_s(2.1e9), "2.10 GB/s");
        assert_eq!(bytes_per_s(480e6), "480 MB/s");
        assert_eq!(bytes_per_s(1.97e9), "1.97 GB/s");
        assert_eq!(bytes_per_s(97.34e6), "97.3 MB/s");
        assert_eq!(bytes_per_s(999.7e6), "1.00 GB/s");
        assert_eq!(bytes_per_s(850.0), "850 B/s");
        assert_eq!(bytes_per_s(0.0), "0 B/s");
        assert_eq!(bytes_per_s(f64::INFINITY), "0 B/s");
    }

    #[test]
    fn simple_fractions_are_said_in_words() {
        assert_eq!(fraction(0.5), "half");
        assert_eq!(fraction(0.508), "half");
        assert_eq!(fraction(0.25), "a quarter");
        assert_eq!(fraction(0.127), "an eighth");
        assert_eq!(fraction(0.0625), "a sixteenth");
        assert_eq!(fraction(0.38), "38%");
        assert_eq!(fraction(0.75), "75%");
        assert_eq!(pct(0.412), "41%");
        assert_eq!(celsius(79.4), "79 °C");
    }
}
