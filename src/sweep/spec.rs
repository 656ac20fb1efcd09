//! `--sweep` as typed: "threads=1,2,4,8", "threads=1..64" (doubling), "bs=512..4M" (doubling),
//! "bs=4k,64k,1M", "iodepth=1..256", "rate=curve" (an unlimited step, then 10 … 100% of what it
//! did; see `curve`) or "rate=1000,5000,20k". A sweep is a curve over rising values, so a list must rise strictly: a
//! repeated or falling value (`threads=4,2`, `threads=1,1`) or a one-step range (`bs=4k..4k`)
//! is refused here, before anything is opened, with one line naming the flag.

use super::Dimension;
use crate::settings::{MAX_BS, MAX_IODEPTH, MAX_RATE_IOPS, MAX_THREADS};
use crate::units::parse_size;

/// A parsed `--sweep`: the dimension and its strictly rising values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepSpec {
    pub dimension: Dimension,
    pub values: Vec<u64>,
    /// `rate=curve`: `values` is the unlimited step alone; the paced steps follow from it.
    pub curve: bool,
}

const USAGE: &str =
    "use e.g. threads=1,2,4,8, threads=1..64, bs=512..4M, iodepth=1..256 or rate=curve";

impl SweepSpec {
    /// Parses "threads=1,2,4,8", "threads=1..64" (doubling), "bs=512..4M" (doubling) or
    /// "bs=4k,64k,1M".
    pub fn parse(text: &str) -> Result<SweepSpec, String> {
        let (dim, list) = text
            .split_once('=')
            .ok_or_else(|| format!("--sweep '{text}': {USAGE}"))?;
        let dimension = match dim.trim() {
            "threads" | "t" => Dimension::Threads,
            "bs" | "b" => Dimension::Bs,
            "iodepth" | "q" => Dimension::Iodepth,
            "rate" | "r" => Dimension::Rate,
            other => {
                return Err(format!(
                    "--sweep '{text}': unknown dimension '{other}'; {USAGE}"
                ));
            }
        };
        if dimension == Dimension::Rate && list.trim() == "curve" {
            return Ok(SweepSpec::curve());
        }
        let one = |v: &str| parse_value(text, dimension, v);
        let values = if let Some((a, b)) = list.split_once("..") {
            doubling(text, dimension, one(a)?, one(b)?)?
        } else {
            list.split(',').map(one).collect::<Result<Vec<_>, _>>()?
        };
        if values.len() < 2 {
            return Err(format!(
                "--sweep '{text}': a sweep needs at least two steps; {USAGE}"
            ));
        }
        check_rising(text, dimension, &values)?;
        Ok(SweepSpec {
            dimension,
            values,
            curve: false,
        })
    }

    /// `rate=curve`: one unlimited step, then `curve::CURVE_PCTS` of what it did.
    pub fn curve() -> SweepSpec {
        SweepSpec {
            dimension: Dimension::Rate,
            values: vec![0],
            curve: true,
        }
    }

    /// The settings of every step, from `base`.
    pub fn steps(&self, base: crate::settings::Settings) -> Vec<crate::settings::Settings> {
        self.values
            .iter()
            .map(|&v| self.dimension.with(base, v))
            .collect()
    }

    /// Checks every step from `base` against the target's `geometry`; the error names the
    /// first step that does not fit.
    pub fn check_steps(
        &self,
        base: crate::settings::Settings,
        geometry: &crate::engine::Geometry,
    ) -> Result<(), String> {
        for (i, s) in self.steps(base).iter().enumerate() {
            geometry.validate(s).map_err(|e| {
                let step = self.dimension.describe(self.dimension.value(s));
                format!("sweep step {} ({step}): {e}", i + 1)
            })?;
        }
        Ok(())
    }

    /// The spec as it would be typed, e.g. "threads=64..1024" for a doubling range.
    pub fn doubling_text(dimension: Dimension, from: u64, to: u64) -> String {
        format!(
            "{}={}..{}",
            dimension.name(),
            typed(dimension, from),
            typed(dimension, to)
        )
    }
}

/// A value as `--sweep` takes it: "64", "4k".
fn typed(dimension: Dimension, v: u64) -> String {
    match dimension {
        Dimension::Threads | Dimension::Iodepth | Dimension::Rate => v.to_string(),
        Dimension::Bs => crate::units::format_block_size(v),
    }
}

/// The largest value `dimension` takes.
pub fn max_value(dimension: Dimension) -> u64 {
    match dimension {
        Dimension::Threads => MAX_THREADS as u64,
        Dimension::Bs => MAX_BS,
        Dimension::Iodepth => MAX_IODEPTH as u64,
        Dimension::Rate => MAX_RATE_IOPS,
    }
}

/// One value of the list or range, checked against the dimension's limits.
fn parse_value(text: &str, dimension: Dimension, v: &str) -> Result<u64, String> {
    let v = v.trim();
    let n = match dimension {
        Dimension::Threads | Dimension::Iodepth => v
            .parse::<u64>()
            .map_err(|_| format!("--sweep '{text}': '{v}' is not a whole number"))?,
        Dimension::Bs => parse_size(v).map_err(|e| format!("--sweep {e}"))?,
        Dimension::Rate => {
            crate::settings::parse_rate_iops(v).map_err(|e| format!("--sweep {e}"))?
        }
    };
    let (lo, hi) = match dimension {
        Dimension::Threads => (1, MAX_THREADS as u64),
        Dimension::Bs => (512, MAX_BS),
        Dimension::Iodepth => (1, MAX_IODEPTH as u64),
        Dimension::Rate => (1, MAX_RATE_IOPS),
    };
    if !(lo..=hi).contains(&n) {
        return Err(format!("--sweep '{text}': {v} is outside {lo}..{hi}"));
    }
    Ok(n)
}

/// `a`, 2a, 4a … below `b`, then `b`.
fn doubling(text: &str, dimension: Dimension, a: u64, b: u64) -> Result<Vec<u64>, String> {
    if a >= b {
        let (da, db) = (dimension.describe(a), dimension.describe(b));
        return Err(if a == b {
            format!(
                "--sweep '{text}': the range {da}..{db} is a single step; give a wider range, \
                 e.g. {}",
                SweepSpec::doubling_text(dimension, a, (a * 16).min(max_value(dimension)))
            )
        } else {
            format!("--sweep '{text}': the range must go up ({da} > {db})")
        });
    }
    let mut v = Vec::new();
    let mut x = a;
    while x < b {
        v.push(x);
        x *= 2;
    }
    v.push(b);
    Ok(v)
}

/// Refuses a repeated or falling value: a sweep's curve is read left to right.
fn check_rising(text: &str, dimension: Dimension, values: &[u64]) -> Result<(), String> {
    for pair in values.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if b == a {
            return Err(format!(
                "--sweep '{text}': {} is listed twice; each step must differ from the last",
                dimension.describe(a)
            ));
        }
        if b < a {
            let mut sorted = values.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            let shown: Vec<String> = sorted.iter().map(|&v| typed(dimension, v)).collect();
            return Err(format!(
                "--sweep '{text}': steps must rise ({} comes after {}); list them in order: {}={}",
                dimension.describe(b),
                dimension.describe(a),
                dimension.name(),
                shown.join(",")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_specs_parse() {
        let p = |t| SweepSpec::parse(t).unwrap();
        assert_eq!(p("threads=1,2,4,8").values, vec![1, 2, 4, 8]);
        assert_eq!(p("threads=1..64").values, vec![1, 2, 4, 8, 16, 32, 64]);
        assert_eq!(p("threads=1..48").values, vec![1, 2, 4, 8, 16, 32, 48]);
        let bs = p("bs=512..4M");
        assert_eq!(bs.dimension, Dimension::Bs);
        assert_eq!(bs.values.first(), Some(&512));
        assert_eq!(bs.values.last(), Some(&(4 << 20)));
        assert_eq!(bs.values.len(), 14);
        assert_eq!(p("bs=4k,64k").values, vec![4096, 65536]);
        for bad in [
            "threads",
            "disks=1,2",
            "threads=0..4",
            "threads=8..2",
            "threads=4",
            "bs=1..4k",
            "bs=4k..32M",
            "threads=a,b",
        ] {
            assert!(SweepSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rate_sweeps_parse() {
        let c = SweepSpec::parse("rate=curve").unwrap();
        assert_eq!(
            (c.dimension, c.values.clone(), c.curve),
            (Dimension::Rate, vec![0], true)
        );
        let l = SweepSpec::parse("rate=1000,5k,20k").unwrap();
        assert_eq!((l.values, l.curve), (vec![1000, 5000, 20_000], false));
        assert_eq!(
            SweepSpec::parse("r=1k..8k").unwrap().values,
            vec![1000, 2000, 4000, 8000]
        );
        for bad in ["rate=curvy", "rate=0,100", "rate=5k,1k", "rate=fast"] {
            let e = SweepSpec::parse(bad).expect_err(bad);
            assert!(
                e.starts_with(&format!("--sweep '{bad}'")) || e.starts_with("--sweep"),
                "{e}"
            );
        }
    }

    #[test]
    fn repeated_or_falling_steps_are_refused_with_one_line() {
        for (bad, needle) in [
            (
                "threads=4,2",
                "steps must rise (2 threads comes after 4 threads)",
            ),
            ("threads=1,1", "1 thread is listed twice"),
            ("threads=1,2,2,4", "2 threads is listed twice"),
            ("threads=1,8,4,16", "list them in order: threads=1,4,8,16"),
            ("bs=64k,4k", "list them in order: bs=4k,64k"),
            ("bs=4k,4096", "4k is listed twice"),
            ("bs=4k..4k", "a single step"),
            (
                "threads=8..8",
                "a single step; give a wider range, e.g. threads=8..128",
            ),
        ] {
            let err = SweepSpec::parse(bad).expect_err(bad);
            assert!(err.starts_with(&format!("--sweep '{bad}': ")), "{err}");
            assert!(err.contains(needle), "{bad}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn doubling_text_parses_back() {
        for (d, a, b) in [
            (Dimension::Threads, 64, 1024),
            (Dimension::Bs, 65536, 1 << 20),
            (Dimension::Bs, 512, 8192),
        ] {
            let text = SweepSpec::doubling_text(d, a, b);
            let spec = SweepSpec::parse(&text).unwrap();
            assert_eq!(spec.dimension, d);
            assert_eq!(
                (spec.values[0], *spec.values.last().unwrap()),
                (a, b),
                "{text}"
            );
        }
    }
}
