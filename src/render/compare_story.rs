//! A run against a baseline over its story: period by period when both went through the
//! same settings in the same order (`compare_periods`), and what made the baseline against
//! what made this result (`compare_meta`). Part of `compare`.

use crate::model::{Meta, RunReport};
use crate::render::baseline::{SavedPeriod, change};
use crate::render::periods::period_words;
use crate::settings::Settings;
use crate::units::format_latency_ns;

/// A run against a saved run (`then`, the baseline `label`'s periods) period by period: a
/// row each when both went through the same settings in the same order, else a line saying
/// where they part (the totals are compared on their own line). `None` when neither has more
/// than one period.
pub fn compare_periods(label: &str, then: &[SavedPeriod], r: &RunReport) -> Option<String> {
    let now = &r.periods.list;
    if now.len() < 2 && then.len() < 2 {
        return None;
    }
    if then.is_empty() {
        return Some(format!(
            "baseline {label} keeps no periods (fio's, or saved before periods): compared as totals only"
        ));
    }
    let words =
        |s: Option<Settings>| s.map_or_else(|| "merged periods".into(), |s| period_words(&s));
    let parted = (0..now.len().max(then.len())).find(|&i| {
        let n = now.get(i).and_then(|p| p.settings);
        let t = then.get(i).and_then(|p| p.settings);
        n.is_none() || n != t
    });
    if let Some(i) = parted {
        let side = |s: Option<Option<Settings>>| s.map_or_else(|| "none".into(), words);
        return Some(format!(
            "baseline {label} went through other settings ({} periods then, {} now; period {} was {} then, {} now): compared as totals only",
            then.len(),
            now.len(),
            i + 1,
            side(then.get(i).map(|p| p.settings)),
            side(now.get(i).map(|p| p.settings)),
        ));
    }
    let mut out = format!(
        "vs baseline {label} period by period (the same {} settings in the same order):\n",
        now.len()
    );
    for (i, (n, t)) in now.iter().zip(then).enumerate() {
        if !crate::render::periods::has_rate(n) {
            let w = words(n.settings);
            out.push_str(&format!(
                "  {:>3}  {w}: ran {:.3}s, too short to compare\n",
                i + 1,
                n.elapsed_s
            ));
            continue;
        }
        let p99 = n.latency_ns.p99 as f64;
        out.push_str(&format!(
            "  {:>3}  {}: IOPS {:.0} vs {:.0} ({}), p99 {} vs {} ({})\n",
            i + 1,
            words(n.settings),
            n.iops,
            t.figures.iops,
            change(n.iops, t.figures.iops),
            format_latency_ns(p99),
            format_latency_ns(t.figures.p99_ns),
            change(p99, t.figures.p99_ns)
        ));
    }
    Some(out)
}

/// What made the baseline `label` (`then`) and how it differs from this result (`now`):
/// "baseline run.json: saved by diskscope 0.1.0 on db-7 (Linux 6.1.0), started …" and, when
/// they differ, "  different hosts: db-7 then, db-8 now" — figures from another host or
/// version may differ for that reason alone.
pub fn compare_meta(label: &str, then: &Meta, now: &Meta) -> String {
    if !then.is_known() {
        return format!(
            "baseline {label}: nothing in it says what made it or where (fio's output, or saved before diskscope wrote meta)\n"
        );
    }
    let mut out = format!("baseline {label}: saved by {}\n", then.describe());
    for d in now.differences(then) {
        out.push_str(&format!(
            "  {d}: its figures may differ for that reason alone\n"
        ));
    }
    out
}
