//! A saved run on several targets (`--json FILE`) as `--show` prints it: a line naming the
//! targets and settings, then, for a file this version reads whole, the live summary itself
//! (`disks::summary`, the one renderer of a finished run: the table, the aggregate, the
//! outliers, which targets' I/Os failed and why, the findings); a file from an older version
//! is read field by field and shows what it has.

use std::fmt::Write;

use serde_json::Value;

use super::disks::{Totals, kernel_cell, table_lines};
use super::text::describe_settings;
use crate::model::disks::DisksReport;
use crate::settings::Settings;
use crate::units::{format_bytes, format_latency_ns, format_seconds};

fn f64_at(v: &Value, path: &[&str]) -> f64 {
    path.iter().fold(v, |v, k| &v[*k]).as_f64().unwrap_or(0.0)
}

fn text_at(v: &Value, key: &str) -> Option<String> {
    v[key].as_str().map(str::to_string)
}

/// One target of a saved run.
fn totals(t: &Value) -> Totals {
    let name = text_at(t, "name").unwrap_or_else(|| "?".into());
    let k = &t["kernel"];
    let ios = k.is_object().then(|| {
        [
            "reads_completed",
            "reads_merged",
            "writes_completed",
            "writes_merged",
        ]
        .iter()
        .map(|f| k[*f].as_u64().unwrap_or(0))
        .sum()
    });
    Totals {
        kernel: kernel_cell(&name, t["device"].as_str(), ios),
        name,
        iops: f64_at(t, &["total", "iops"]),
        bw_bytes_per_s: f64_at(t, &["total", "bw_bytes_per_s"]),
        mean_ns: f64_at(t, &["total", "latency_ns", "mean"]),
        p99_ns: f64_at(t, &["total", "latency_ns", "p99"]),
        ops: t["total"]["ops"].as_u64().unwrap_or(0),
        link: text_at(t, "link"),
        model: text_at(t, "model"),
        below_median_pct: t["below_median_pct"].as_f64(),
    }
}

/// The saved aggregate's line (`n` targets where the file does not say).
fn aggregate_line(a: &Value, n: usize) -> String {
    format!(
        "all {}: {:.0} IOPS, {}/s (each target's rate added), {} ops; latency of every I/O \
         (histograms merged): mean {}, p99 {}",
        a["targets"].as_u64().unwrap_or(n as u64),
        f64_at(a, &["iops"]),
        format_bytes(f64_at(a, &["bw_bytes_per_s"]) as u64),
        a["ops"].as_u64().unwrap_or(0),
        format_latency_ns(f64_at(a, &["latency_ns", "mean"])),
        format_latency_ns(f64_at(a, &["latency_ns", "p99"])),
    )
}

/// The text of a saved run on several targets.
pub fn saved(v: &Value) -> String {
    let mut out = String::new();
    let d = &v["disks"];
    let names: Vec<&str> = d["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let settings = serde_json::from_value::<Settings>(d.clone())
        .map_or_else(|_| "settings not saved".into(), |s| describe_settings(&s));
    // A run in the TUI has no set time (null): it ran until stopped, as its live header said.
    let _ = writeln!(
        out,
        "{} targets: {}; {settings} on each, {}",
        names.len(),
        super::disks::target_words(names.iter().copied()),
        d["duration_s"]
            .as_f64()
            .map_or("until stopped".into(), format_seconds),
    );
    // The result as the run had it: the lines it printed, from the same renderer.
    if let Ok(r) = serde_json::from_value::<DisksReport>(v.clone()) {
        out.push_str(&super::disks::summary(&r));
        return out;
    }
    if let Some(sig) = v["interrupted_by"].as_str() {
        let _ = writeln!(out, "(stopped early by {sig})");
    }
    let targets: Vec<Totals> = v["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(totals)
        .collect();
    let what = if v["alone"].is_array() {
        "all together"
    } else {
        "each target"
    };
    let _ = writeln!(out, "{what} (cumulative over its run):");
    out.push_str(&table_lines(&targets));
    let a = &v["aggregate"];
    let _ = writeln!(out, "{}", aggregate_line(a, targets.len()));
    let outliers: Vec<&str> = v["outliers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let _ = writeln!(
        out,
        "outliers (more than {:.0}% below the median {:.0} IOPS): {}",
        f64_at(d, &["outlier_pct"]),
        f64_at(a, &["median_iops"]),
        if outliers.is_empty() {
            "none".into()
        } else {
            outliers.join(", ")
        }
    );
    for f in v["findings"].as_array().into_iter().flatten() {
        if let Some(t) = f["text"].as_str() {
            let _ = writeln!(out, "  {t}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_prints_the_lines_the_live_summary_printed_failed_ios_included() {
        // loop2's I/Os failed (a shrunken backing file): the live summary named them and the
        // run exited 3; --show of its JSON must say the same, line for line.
        let mut report = crate::render::disks::tests::example();
        let c = &mut report.targets[1].run.total.counts;
        c.errors = 3467;
        c.short_ios = 2;
        report.targets[1].run.errors = vec![crate::stats::IoErrorRecord {
            thread: 0,
            op: "read",
            offset: 4096,
            errno: Some(5),
            message: "Input/output error".into(),
        }];
        let v = serde_json::to_value(&report).unwrap();
        let shown = saved(&v);
        let live = crate::render::disks::summary(&report);
        assert!(
            live.contains("loop2: not counted as ops: 3467 failed, 2 short"),
            "{live}"
        );
        let (_, body) = shown.split_once('\n').unwrap();
        assert_eq!(body, live);
        // The chart of it (live `--plot` and `--show --plot` draw the same) says so too.
        let svg = crate::render::chart::plot_disks(&report).unwrap();
        assert!(
            svg.contains("loop2: 3467 I/Os failed and 2 came back short"),
            "no failed I/Os in the chart"
        );
    }

    #[test]
    fn a_saved_run_shows_the_table_it_printed() {
        let report = crate::render::disks::tests::example();
        let v = serde_json::to_value(&report).unwrap();
        let text = saved(&v);
        let printed = crate::render::disks::summary(&report);
        // The table and the outliers are the lines the run printed.
        for line in printed
            .lines()
            .filter(|l| l.starts_with("  ") || l.starts_with("outliers"))
        {
            assert!(text.contains(line), "{line:?} missing from:\n{text}");
        }
        assert!(
            text.starts_with(
                "3 targets: /dev/loop1 /dev/loop2 /dev/loop3; 4k random read, QD32 T4 on each, 10 s\n"
            ),
            "{text}"
        );
        assert!(text.contains("all 3: 25800 IOPS"), "{text}");
        // A TUI run kept when its terminal went away: no set time, and the signal said.
        let mut v = v;
        v["disks"]["duration_s"] = Value::Null;
        v["interrupted_by"] = "SIGHUP".into();
        let text = saved(&v);
        assert!(text.contains("T4 on each, until stopped\n"), "{text}");
        assert!(text.contains("(stopped early by SIGHUP)\n"), "{text}");
        // After --each-then-all, the alone/together table the run printed, and the targets'
        // table named as the together phase's.
        let mut r = report;
        r.disks.each_then_all = true;
        r.alone = Some(
            ["loop1", "loop2", "loop3"]
                .iter()
                .map(|n| crate::model::disks::AloneRun {
                    target: crate::render::disks::tests::target(n, 20_000.0, None),
                    cpu_busy_pct: Some(40.0),
                })
                .collect(),
        );
        let text = saved(&serde_json::to_value(&r).unwrap());
        let printed = crate::render::disks::summary(&r);
        let table: Vec<&str> = printed.lines().take(5).collect();
        assert!(text.contains(&table.join("\n")), "{text}");
        assert!(
            text.contains("all together (cumulative over its run):"),
            "{text}"
        );
        // Nothing in it: still a sentence per part, no panic.
        assert!(saved(&Value::Null).contains("0 targets"));
    }
}
