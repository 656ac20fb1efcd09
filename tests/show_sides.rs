//! `--show` keeps reads and writes apart. fio's randrw and rw jobs (fixture made by fio 3.33
//! here: `tests/fixtures/fio/randrw.fio`) print a line per direction with fio's own p50 and
//! p99 of that direction, labelled — not the larger of the two, unlabelled (issue 28, item
//! 6). A saved diskscope run that read and wrote prints the same read and write lines as the
//! live summary did; several targets print each target's and all targets' sides, live and
//! in `--show`; `--baseline` compares reads with reads and writes with writes.

mod common;

use std::path::PathBuf;

use common::{diskscope, make_file, stderr, workdir};
use diskscope::units::format_latency_ns;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio")
        .join(name)
}

/// The two words after `key` on `line` ("p99 6.91 ms" → "6.91 ms").
fn after(line: &str, key: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == key)?;
    Some(words.get(at + 1..at + 3)?.join(" "))
}

#[test]
fn show_prints_fios_read_and_write_apart_with_their_own_percentiles() {
    let dir = workdir();
    let path = fixture("randrw.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let out = diskscope(dir.path(), &["--show", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "randrw then rw");
    for job in jobs {
        let name = job["jobname"].as_str().unwrap();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(&format!("{name}:")))
            .unwrap_or_else(|| panic!("no {name} in:\n{text}"));
        let (r, w) = (&job["read"], &job["write"]);
        assert!(
            lines[at].contains(&format!(
                "({} reads, {} writes)",
                r["total_ios"], w["total_ios"]
            )),
            "{text}"
        );
        for (k, dir) in ["read", "write"].iter().enumerate() {
            let line = lines[at + 1 + k];
            assert_eq!(line.split_whitespace().next(), Some(*dir), "{text}");
            let pct = &job[*dir]["clat_ns"]["percentile"];
            let want = |q: &str| format_latency_ns(pct[q].as_f64().unwrap());
            assert_eq!(after(line, "p50"), Some(want("50.000000")), "{line}");
            assert_eq!(after(line, "p99"), Some(want("99.000000")), "{line}");
            let iops = job[*dir]["iops"].as_f64().unwrap();
            assert!(line.contains(&format!("{iops:.0} IOPS")), "{line}");
        }
        // The combined line says whose percentiles they are, and gives none of its own.
        let both = lines[at + 3];
        assert!(
            both.contains("percentiles each direction's own") && !both.contains("p99"),
            "{text}"
        );
    }
}

#[test]
fn show_of_a_saved_mixed_run_prints_read_and_write_as_the_summary_did() {
    let dir = workdir();
    make_file(&dir.path().join("data.img"), 16 << 20);
    let run = diskscope(
        dir.path(),
        &[
            "data.img",
            "--read",
            "70",
            "--allow-write=data.img",
            "--no-tui",
            "-T",
            "1s",
            "--json=run.json",
        ],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let live = String::from_utf8_lossy(&run.stdout).into_owned();
    let shown = diskscope(dir.path(), &["--show", "run.json"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    let side_lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("  read ") || l.starts_with("  write "))
            .map(String::from)
            .collect()
    };
    let (a, b) = (side_lines(&live), side_lines(&shown));
    assert_eq!(a.len(), 2, "{live}");
    assert_eq!(a, b, "live:\n{live}\nshown:\n{shown}");
    let t = &saved["total"];
    assert!(
        b[1].contains(&format!(" {} ops ", t["write"]["ops"])),
        "{b:?} vs {t}"
    );
}

#[test]
fn several_targets_keep_reads_and_writes_apart_live_in_json_and_in_show() {
    let dir = workdir();
    for name in ["a.img", "b.img"] {
        make_file(&dir.path().join(name), 16 << 20);
    }
    let run = diskscope(
        dir.path(),
        &[
            "a.img",
            "b.img",
            "--read",
            "70",
            "--allow-write",
            "--no-tui",
            "-T",
            "1s",
            "--json=d.json",
        ],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let live = String::from_utf8_lossy(&run.stdout).into_owned();
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("d.json")).unwrap()).unwrap();
    let a = &v["aggregate"];
    let ops = |x: &Value, side: &str| x[side]["ops"].as_u64().unwrap();
    let mut sum = (0, 0);
    for t in v["targets"].as_array().unwrap() {
        let total = &t["total"];
        assert_eq!(
            ops(total, "read") + ops(total, "write"),
            total["ops"].as_u64().unwrap(),
            "{total}"
        );
        sum = (sum.0 + ops(total, "read"), sum.1 + ops(total, "write"));
    }
    assert_eq!((ops(a, "read"), ops(a, "write")), sum, "{a}");
    assert_eq!(sum.0 + sum.1, a["ops"].as_u64().unwrap());
    let apart = |text: &str| -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if l.ends_with(", reads and writes apart:") {
                out.extend(lines[i..i + 3].iter().map(|s| s.to_string()));
            }
        }
        out
    };
    let shown = diskscope(dir.path(), &["--show", "d.json"]);
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    let (l, s) = (apart(&live), apart(&shown));
    assert_eq!(
        l.len(),
        9,
        "a.img, b.img and all 2, three lines each:\n{live}"
    );
    assert_eq!(l, s, "live:\n{live}\nshown:\n{shown}");
    assert!(l[6].starts_with("all 2"), "{l:?}");
    assert!(l.iter().all(|x| x.chars().count() <= 80), "{l:?}");
}

/// `--baseline` of a saved mixed run compares each direction with the baseline's.
#[test]
fn baseline_compares_reads_with_reads_and_writes_with_writes() {
    let dir = workdir();
    make_file(&dir.path().join("data.img"), 16 << 20);
    let args = [
        "data.img",
        "--read",
        "70",
        "--allow-write=data.img",
        "--no-tui",
        "-T",
        "1s",
    ];
    let first = diskscope(dir.path(), &[&args[..], &["--json=before.json"]].concat());
    assert!(first.status.success(), "{}", stderr(&first));
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("before.json")).unwrap())
            .unwrap();
    let second = diskscope(
        dir.path(),
        &[&args[..], &["--baseline", "before.json"]].concat(),
    );
    assert!(second.status.success(), "{}", stderr(&second));
    let text = String::from_utf8_lossy(&second.stdout).into_owned();
    for side in ["read", "write"] {
        let then = saved["total"][side]["iops"].as_f64().unwrap();
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("  {side}:")))
            .unwrap_or_else(|| panic!("no {side} comparison in:\n{text}"));
        assert!(
            line.contains(&format!(" vs {then:.0} (")) && line.contains("p99"),
            "{line} (baseline {side} IOPS {then})"
        );
    }
}

/// fio's single randrw job as a baseline: each direction against fio's own read and write.
#[test]
fn a_fio_randrw_baseline_is_compared_direction_by_direction() {
    let dir = workdir();
    make_file(&dir.path().join("data.img"), 16 << 20);
    let path = fixture("randrw-one.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let out = diskscope(
        dir.path(),
        &[
            "data.img",
            "--read",
            "70",
            "--allow-write=data.img",
            "--no-tui",
            "-T",
            "1s",
            "--baseline",
            path.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    for side in ["read", "write"] {
        let fio = &doc["jobs"][0][side];
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("  {side}:")))
            .unwrap_or_else(|| panic!("no {side} comparison in:\n{text}"));
        let iops = fio["iops"].as_f64().unwrap();
        let p99 = format_latency_ns(fio["lat_ns"]["percentile"]["99.000000"].as_f64().unwrap());
        assert!(
            line.contains(&format!(" vs {iops:.0} (")) && line.contains(&format!(" vs {p99} (")),
            "{line}: fio's {side} is {iops:.0} IOPS, p99 {p99}"
        );
    }
}
