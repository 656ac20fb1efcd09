//! A saved run whose figures disagree with each other (a rate that is not its count over
//! its span): edited or damaged, refused rather than shown or compared against.

use super::saved_doc::SavedRun;
use crate::fio::raw::Lenient;

/// The first of a saved run's figures that disagrees with the others, named. diskscope
/// writes every rate as its count over the span (`stats::snapshot::per_second`: 0 for no
/// span), so a rate that is not, or a count that is not a count, was edited or damaged;
/// shown or compared against, it would be a figure no run measured (a count too large for
/// one read as 0 ops beside 421,232 IOPS). A field a file lacks (older versions) is not
/// judged.
pub(super) fn disagreement(run: &SavedRun) -> Option<String> {
    let t = &run.total;
    let total = [("ops", t.ops, "iops", t.iops)];
    let total_bytes = [("bytes", t.bytes, "bw_bytes_per_s", t.bw_bytes_per_s)];
    rates_disagree("total", t.elapsed_s, &total)
        .or_else(|| rates_disagree("total", t.elapsed_s, &total_bytes))
        .or_else(|| {
            run.threads.iter().enumerate().find_map(|(k, th)| {
                let pair = [("ops", th.ops, "iops", th.iops)];
                rates_disagree(&format!("threads[{k}]"), th.elapsed_s, &pair)
            })
        })
}

/// A number as an error names it: in full, or in exponent form where it would run on.
fn num(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-6..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// A count, its rate and the span they share, under `at`: what disagrees, if anything.
fn rates_disagree(
    at: &str,
    elapsed_s: Lenient,
    pairs: &[(&str, Lenient, &str, Lenient)],
) -> Option<String> {
    let elapsed_s = elapsed_s.f64();
    if let Some(e) = elapsed_s.filter(|e| !(e.is_finite() && *e >= 0.0)) {
        return Some(format!("{at}.elapsed_s is {}, not a span of time", num(e)));
    }
    for &(count_name, count, rate_name, rate) in pairs {
        if count != Lenient::None && count.u64().is_none() {
            let shown = count.f64().map_or("?".into(), num);
            let shown = count.i64().map_or(shown, |c| c.to_string());
            return Some(format!("{at}.{count_name} is {shown}, not a count"));
        }
        let (Some(c), Some(e), Some(r)) = (count.u64(), elapsed_s, rate.f64()) else {
            continue;
        };
        let expected = if e > 0.0 { c as f64 / e } else { 0.0 };
        // The writer's own formula read back: equal but for the last digits printed (a NaN
        // rate agrees with nothing).
        let agrees = (r - expected).abs() <= 1e-6 * expected.abs().max(1.0);
        if !agrees {
            return Some(format!(
                "{at}.{rate_name} is {}, but {at}.{count_name} / {at}.elapsed_s is {c} / {} = {}",
                num(r),
                num(e),
                num(expected)
            ));
        }
    }
    None
}
