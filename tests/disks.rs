//! Several targets at once, on regular files (no root needed): a settings change reaches every
//! target's engine with no interval mixing two settings, a change one target cannot take
//! changes none, and the headless run's JSON, CSV and text agree with themselves — each
//! target's seconds add up to its totals, the aggregate to the targets, its latency count to
//! its ops — and a directory target gets a scratch file of its own.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use common::{diskscope, json, make_file, stderr, workdir};
use diskscope::disks::Group;
use diskscope::engine::{Options, SnapshotSink};
use diskscope::settings::{IoEngine, Settings};
use diskscope::stats::Snapshot;
use diskscope::target::open::{OpenSpec, Target};

struct Tagged(usize, Sender<(usize, Snapshot)>);

impl SnapshotSink for Tagged {
    fn send(&mut self, s: Snapshot) -> bool {
        self.1.send((self.0, s)).is_ok()
    }
}

fn files(dir: &Path, sizes: &[usize]) -> Vec<PathBuf> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let p = dir.join(format!("t{i}"));
            make_file(&p, len);
            p
        })
        .collect()
}

fn open(path: &Path) -> Arc<Target> {
    let spec = OpenSpec {
        direct: false,
        write: false,
        span: None,
    };
    Arc::new(Target::open(path, spec).unwrap())
}

fn start(targets: &[Arc<Target>], s: Settings) -> (Group, Receiver<(usize, Snapshot)>) {
    let (tx, rx) = mpsc::channel();
    let options = Options {
        tick: Duration::from_millis(20),
        fsync_every: 0,
        ioengine: IoEngine::Psync,
        poll: false,
        trim: false,
    };
    let group = Group::start(targets, s, options, |i| Box::new(Tagged(i, tx.clone()))).unwrap();
    (group, rx)
}

/// Everything the targets sent for `d`.
fn drain_for(rx: &Receiver<(usize, Snapshot)>, d: Duration) -> Vec<(usize, Snapshot)> {
    let end = Instant::now() + d;
    let mut out = Vec::new();
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        if let Ok(x) = rx.recv_timeout(left) {
            out.push(x);
        }
    }
    out
}

#[test]
fn a_change_reaches_every_target_and_no_interval_mixes_two_settings() {
    let dir = workdir();
    let targets: Vec<Arc<Target>> = files(dir.path(), &[4 << 20; 3])
        .iter()
        .map(|p| open(p))
        .collect();
    let before = Settings::default();
    let (mut group, rx) = start(&targets, before);
    let mut seen = drain_for(&rx, Duration::from_millis(300));
    let after = Settings {
        threads: 3,
        bs: 8192,
        ..before
    };
    group.apply(after).unwrap();
    assert_eq!(group.settings(), after);
    seen.extend(drain_for(&rx, Duration::from_millis(400)));
    group.join();
    for i in 0..3 {
        let mine: Vec<&Snapshot> = seen
            .iter()
            .filter(|(t, _)| *t == i)
            .map(|(_, s)| s)
            .collect();
        let first_new = mine
            .iter()
            .position(|s| s.settings == after)
            .unwrap_or_else(|| panic!("target {i} never ran the new settings"));
        assert!(first_new > 0, "target {i} ran the old settings first");
        assert!(
            mine[first_new..].iter().all(|s| s.settings == after),
            "target {i}: the old settings came back"
        );
        assert!(mine[first_new..].iter().any(|s| s.interval.ops > 0));
        for s in &mine {
            // An interval that mixed 4k and 8k I/Os could not have bytes = ops × bs.
            assert_eq!(
                s.interval.bytes,
                s.interval.ops * s.settings.bs,
                "target {i}"
            );
            assert_eq!(s.interval_latency.count(), s.interval.ops);
        }
        let threads = mine
            .last()
            .unwrap()
            .threads
            .iter()
            .filter(|t| t.active)
            .count();
        assert_eq!(threads, 3, "target {i}");
    }
}

#[test]
fn a_change_one_target_cannot_take_changes_none_and_names_it() {
    let dir = workdir();
    let paths = files(dir.path(), &[4 << 20, 4 << 20, 64 << 10]);
    let targets: Vec<Arc<Target>> = paths.iter().map(|p| open(p)).collect();
    let (mut group, rx) = start(&targets, Settings::default());
    let too_big = Settings {
        bs: 1 << 20,
        ..Settings::default()
    };
    let err = group.apply(too_big).unwrap_err();
    assert!(err.starts_with(&paths[2].display().to_string()), "{err}");
    assert!(err.contains("larger than the span"), "{err}");
    assert_eq!(group.settings(), Settings::default());
    let seen = drain_for(&rx, Duration::from_millis(200));
    group.join();
    assert!(seen.iter().all(|(_, s)| s.settings.bs == 4096));
    assert!((0..3).all(|i| seen.iter().any(|(t, _)| *t == i)));
}

/// `diskscope ARGS` in `dir`, its JSON.
fn run_json(dir: &Path, args: &[&str]) -> serde_json::Value {
    json(&diskscope(dir, args))
}

fn sum(v: &serde_json::Value, field: &str) -> u64 {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r[field].as_u64().unwrap())
        .sum()
}

#[test]
fn the_json_adds_up_target_by_target_and_in_all() {
    let dir = workdir();
    files(dir.path(), &[8 << 20; 3]);
    let v = run_json(
        dir.path(),
        &[
            "t0",
            "t1",
            "t2",
            "--no-tui",
            "--json",
            "-T",
            "2s",
            "-t",
            "2",
            "--buffered",
        ],
    );
    let targets = v["targets"].as_array().unwrap();
    let names: Vec<&str> = targets
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["t0", "t1", "t2"]);
    assert_eq!(v["disks"]["targets"].as_array().unwrap().len(), 3);
    let mut ops = 0;
    for t in targets {
        let total = t["total"]["ops"].as_u64().unwrap();
        assert!(total > 0);
        assert_eq!(sum(&t["intervals"], "ops"), total, "{}", t["name"]);
        assert_eq!(t["total"]["latency_ns"]["count"].as_u64(), Some(total));
        assert_eq!(t["config"]["target"], t["name"]);
        ops += total;
    }
    let a = &v["aggregate"];
    assert_eq!(a["ops"].as_u64(), Some(ops));
    assert_eq!(sum(&a["intervals"], "ops"), ops);
    assert_eq!(a["latency_ns"]["count"].as_u64(), Some(ops));
    let iops: f64 = targets
        .iter()
        .map(|t| t["total"]["iops"].as_f64().unwrap())
        .sum();
    assert!((a["iops"].as_f64().unwrap() - iops).abs() < 1e-6);
    // Every second of the aggregate is the same second of each target, added.
    let rows = a["intervals"].as_array().unwrap();
    assert!(rows.len() >= 2, "{rows:?}");
    assert!(v["outliers"].is_array());
}

#[test]
fn the_csv_has_a_row_per_target_and_second_and_the_text_a_line_a_second() {
    let dir = workdir();
    files(dir.path(), &[8 << 20; 2]);
    let out = diskscope(
        dir.path(),
        &["t0", "t1", "--no-tui", "--csv", "-T", "2s", "--buffered"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("target,t_s,elapsed_s,"),
        "{}",
        lines[0]
    );
    let of = |who: &str| {
        lines
            .iter()
            .filter(|l| l.starts_with(&format!("{who},")))
            .count()
    };
    assert_eq!(of("t0"), of("all"));
    assert_eq!(of("t1"), of("all"));
    assert!(of("all") >= 2);

    let out = diskscope(
        dir.path(),
        &["t0", "t1", "--no-tui", "-T", "2s", "--buffered"],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("2 targets: t0 t1; 4k random read, 1 thread on each"),
        "{text}"
    );
    assert!(text.contains("│ t0 ") && text.contains("  t1 "), "{text}");
    assert!(
        text.contains("each target (cumulative over its run):"),
        "{text}"
    );
    assert!(
        text.contains("outliers (more than 20% below the median"),
        "{text}"
    );
}

#[test]
fn each_directory_gets_its_own_scratch_file_and_one_named_twice_is_refused() {
    let dir = workdir();
    for d in ["a", "b"] {
        std::fs::create_dir(dir.path().join(d)).unwrap();
    }
    let v = run_json(
        dir.path(),
        &["a", "b", "--size", "8M", "--no-tui", "--json", "-T", "1s"],
    );
    let paths: Vec<&str> = v["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["config"]["target"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a/diskscope.scratch", "b/diskscope.scratch"]);
    assert!(
        !dir.path().join("a/diskscope.scratch").exists(),
        "removed after the run"
    );
    let out = diskscope(dir.path(), &["a", "./a", "--no-tui", "-T", "1s"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("./a: the same directory as a"), "{err}");
    assert!(
        !dir.path().join("a/diskscope.scratch").exists(),
        "nothing laid out"
    );
}

#[test]
fn each_then_all_runs_every_file_alone_then_all_together() {
    let dir = workdir();
    files(dir.path(), &[8 << 20; 2]);
    let v = run_json(
        dir.path(),
        &[
            "t0",
            "t1",
            "--each-then-all",
            "--no-tui",
            "--json",
            "-T",
            "1s",
        ],
    );
    let alone = v["alone"].as_array().unwrap();
    assert_eq!(alone.len(), 2);
    assert_eq!(alone[1]["name"], "t1");
    assert!(alone[0]["total"]["ops"].as_u64().unwrap() > 0);
    assert!(alone[0]["cpu_busy_pct"].is_number());
    assert_eq!(v["targets"].as_array().unwrap().len(), 2);
    let kinds: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"shared_limit") || kinds.contains(&"independent"),
        "{kinds:?}"
    );
    // Through the page cache, alone and together compare the cache: nothing is said of the
    // disks (the findings' conditions table).
    let cached = run_json(
        dir.path(),
        &[
            "t0",
            "t1",
            "--each-then-all",
            "--no-tui",
            "--json",
            "-T",
            "1s",
            "--buffered",
        ],
    );
    assert_eq!(cached["findings"], serde_json::json!([]), "{cached:#}");
}

/// A change one target cannot take (its file went, so no descriptor opens for the new
/// threads) leaves every target as it was: no target runs the new settings even for a
/// moment. Before, the first target took them and went back, leaving a period of a few
/// milliseconds at settings the run never had ("67 threads" in a run that stayed at 64).
#[test]
fn a_change_one_target_cannot_take_touches_no_target() {
    let dir = workdir();
    let paths = files(dir.path(), &[4 << 20; 2]);
    let targets: Vec<Arc<Target>> = paths.iter().map(|p| open(p)).collect();
    let before = Settings::default();
    let (mut group, rx) = start(&targets, before);
    drain_for(&rx, Duration::from_millis(200));
    std::fs::rename(&paths[1], dir.path().join("gone")).unwrap();
    let more = Settings {
        threads: 3,
        ..before
    };
    let err = group.apply(more).unwrap_err();
    assert!(err.contains("t1"), "{err}");
    let seen = drain_for(&rx, Duration::from_millis(300));
    group.request_stop();
    for (i, s) in &seen {
        assert_eq!(
            s.settings, before,
            "target {i} ran other settings: {:?}",
            s.settings
        );
    }
    assert_eq!(group.settings(), before);
}
