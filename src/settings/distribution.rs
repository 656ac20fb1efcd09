//! Where random offsets land: uniformly (fio's `random`, the default), or skewed so some
//! blocks are hotter than others — Zipf with exponent θ (`zipf:θ`), Pareto with the share `h`
//! of I/Os on the hottest `1 - h` of blocks (`pareto:h`, the 80/20 rule at 0.8), or a hot band
//! of X % of the I/Os on Y % of the span (`zoned:X/Y:R/S`, fio's spelling of vdbench's
//! `hotband`, with R = 100 − X and S = 100 − Y; `hotband:X/Y` is the short form). Plain data:
//! the sampler behind it is `engine::offsets`. Parameters are kept in thousandths, so
//! settings stay `Eq` and a value read back prints as it was typed.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Highest Zipf exponent offered (θ = 3: the hottest block gets over 80 % of the I/Os).
pub const MAX_ZIPF_MILLI: u32 = 3000;

/// The distribution of random offsets (fio's `random_distribution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Distribution {
    /// Every block equally likely.
    #[default]
    Uniform,
    /// Block of rank k (0 the hottest) with probability ∝ 1/(k+1)^θ; θ in thousandths.
    Zipf { theta_milli: u32 },
    /// fio's Pareto: a share h of the I/Os on the hottest 1 − h of the blocks; h in
    /// thousandths, strictly between 0 and 1.
    Pareto { h_milli: u32 },
    /// `io_pct` % of the I/Os on the hottest `span_pct` % of the blocks, the rest on the others.
    HotBand { io_pct: u8, span_pct: u8 },
}

impl Distribution {
    /// fio's spelling, as `random_distribution=` takes it (`random`, `zipf:1.2`, `pareto:0.8`,
    /// `zoned:90/10:10/90`).
    pub fn fio_spelling(self) -> String {
        match self {
            Distribution::Uniform => "random".into(),
            Distribution::Zipf { theta_milli } => format!("zipf:{}", milli(theta_milli)),
            Distribution::Pareto { h_milli } => format!("pareto:{}", milli(h_milli)),
            Distribution::HotBand { io_pct, span_pct } => format!(
                "zoned:{io_pct}/{span_pct}:{}/{}",
                100 - io_pct,
                100 - span_pct
            ),
        }
    }

    /// A short label for headers and period marks: `uniform`, `zipf 1.2`, `pareto 0.8`,
    /// `hot 90%/10%`.
    pub fn label(self) -> String {
        match self {
            Distribution::Uniform => "uniform".into(),
            Distribution::Zipf { theta_milli } => format!("zipf {}", milli(theta_milli)),
            Distribution::Pareto { h_milli } => format!("pareto {}", milli(h_milli)),
            Distribution::HotBand { io_pct, span_pct } => format!("hot {io_pct}%/{span_pct}%"),
        }
    }

    /// Whether some blocks are hotter than others.
    pub fn is_skewed(self) -> bool {
        self != Distribution::Uniform
    }

    /// Reads fio's spelling (and `hotband:X/Y`, `uniform`); the error says what is accepted.
    pub fn parse(text: &str) -> Result<Distribution, String> {
        let t = text.trim();
        let (kind, arg) = match t.split_once(':') {
            Some((k, a)) => (k.trim(), Some(a.trim())),
            None => (t, None),
        };
        let d = match (kind, arg) {
            ("random" | "uniform", None) => Distribution::Uniform,
            ("zipf", Some(a)) => {
                let theta_milli = thousandths(a).filter(|&v| v > 0 && v <= MAX_ZIPF_MILLI);
                match theta_milli {
                    Some(theta_milli) => Distribution::Zipf { theta_milli },
                    None => return Err(format!("'{text}': zipf takes θ from 0.001 to 3 (at most three decimals), e.g. zipf:1.2")),
                }
            }
            ("pareto", Some(a)) => match thousandths(a).filter(|&v| v > 0 && v < 1000) {
                Some(h_milli) => Distribution::Pareto { h_milli },
                None => return Err(format!("'{text}': pareto takes h strictly between 0 and 1 (at most three decimals), e.g. pareto:0.8")),
            },
            ("zoned" | "hotband", Some(a)) => hot_band(kind, a).ok_or_else(|| {
                format!("'{text}': give one hot band, X % of the I/Os on Y % of the span, as hotband:X/Y or fio's zoned:X/Y:R/S (R = 100 - X, S = 100 - Y; whole percentages, 0 < Y < X: the band takes more than its share)")
            })?,
            _ => return Err(format!(
                "'{text}': use random, zipf:θ (e.g. zipf:1.2), pareto:h (e.g. pareto:0.8) or a hot band zoned:X/Y:R/S (e.g. zoned:90/10:10/90)"
            )),
        };
        Ok(d)
    }
}

/// `X/Y` (hotband) or `X/Y:R/S` (zoned) with R = 100 − X, S = 100 − Y.
fn hot_band(kind: &str, arg: &str) -> Option<Distribution> {
    let pair = |p: &str| -> Option<(u8, u8)> {
        let (a, b) = p.split_once('/')?;
        let a: u8 = a.trim().trim_end_matches('%').parse().ok()?;
        let b: u8 = b.trim().trim_end_matches('%').parse().ok()?;
        (a <= 100 && b <= 100).then_some((a, b))
    };
    let mut zones = arg.split(':');
    let (io_pct, span_pct) = pair(zones.next()?)?;
    match (kind, zones.next()) {
        ("hotband", None) => {}
        ("zoned", Some(rest)) if zones.next().is_none() => {
            if pair(rest)? != (100 - io_pct, 100 - span_pct) {
                return None;
            }
        }
        _ => return None,
    }
    // A hot band is hotter than the rest: more than its share of the I/Os (5 % of them on
    // half the span is the cold half, and "hottest 10 %" would report 0 %).
    (span_pct > 0 && span_pct < 100 && io_pct > span_pct)
        .then_some(Distribution::HotBand { io_pct, span_pct })
}

/// A decimal with at most three decimals, in thousandths.
fn thousandths(text: &str) -> Option<u32> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && frac.is_empty()
        || frac.len() > 3
        || !whole
            .chars()
            .chain(frac.chars())
            .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let whole: u32 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac: u32 = format!("{frac:0<3}").parse().ok()?;
    whole.checked_mul(1000)?.checked_add(frac)
}

/// Thousandths as the shortest decimal: 1200 → "1.2", 1000 → "1", 5 → "0.005".
fn milli(v: u32) -> String {
    let s = format!("{}.{:03}", v / 1000, v % 1000);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl Serialize for Distribution {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.fio_spelling())
    }
}

impl<'de> Deserialize<'de> for Distribution {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Distribution::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::Distribution::{self, *};

    #[test]
    fn fio_spellings_read_and_print_back() {
        for (text, d) in [
            ("random", Uniform),
            ("zipf:1.2", Zipf { theta_milli: 1200 }),
            ("zipf:1", Zipf { theta_milli: 1000 }),
            ("zipf:0.005", Zipf { theta_milli: 5 }),
            ("pareto:0.8", Pareto { h_milli: 800 }),
            (
                "zoned:90/10:10/90",
                HotBand {
                    io_pct: 90,
                    span_pct: 10,
                },
            ),
        ] {
            assert_eq!(Distribution::parse(text), Ok(d), "{text}");
            assert_eq!(d.fio_spelling(), text);
        }
        assert_eq!(Distribution::parse("uniform"), Ok(Uniform));
        assert_eq!(
            Distribution::parse("hotband:80/20"),
            Ok(HotBand {
                io_pct: 80,
                span_pct: 20
            })
        );
        assert_eq!(
            Distribution::parse(" zipf:.5 "),
            Ok(Zipf { theta_milli: 500 })
        );
    }

    #[test]
    fn bad_spellings_say_what_is_accepted() {
        for bad in [
            "zipf",
            "zipf:0",
            "zipf:3.5",
            "zipf:1.2345",
            "zipf:x",
            "pareto:1",
            "pareto:0",
            "pareto:1.5",
            "zoned:90/10:20/90",
            "zoned:90/10",
            "zoned:90/0:10/100",
            "hotband:90/100",
            "hotband:0/10",
            "hotband:5/50",
            "hotband:10/10",
            "zoned:5/50:95/50",
            "normal:10",
            "zoned:60/10:30/20:10/70",
            "random:1",
            "",
        ] {
            let e = Distribution::parse(bad).expect_err(bad);
            assert!(e.starts_with(&format!("'{bad}'")), "{e}");
        }
    }

    #[test]
    fn json_carries_fio_spelling() {
        let d = Zipf { theta_milli: 1200 };
        let j = serde_json::to_string(&d).unwrap();
        assert_eq!(j, "\"zipf:1.2\"");
        assert_eq!(serde_json::from_str::<Distribution>(&j).unwrap(), d);
    }
}
