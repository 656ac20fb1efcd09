//! Sweeps and exports through the real binary: the step table, the saturation finding, JSON
//! and CSV of the steps, saving to files safely, baselines, and the fio equivalent.

mod common;

use common::{diskscope, json, make_file, stderr, workdir};

#[test]
fn a_thread_sweep_reports_every_step_and_the_saturation() {
    let dir = workdir();
    let out = diskscope(
        dir.path(),
        &[
            "--size",
            "32M",
            "--sweep",
            "threads=1..4",
            "-T",
            "1s",
            "--json",
        ],
    );
    let v = json(&out);
    assert_eq!(v["dimension"], "threads");
    let steps = v["steps"].as_array().unwrap();
    let threads: Vec<u64> = steps
        .iter()
        .map(|s| s["threads"].as_u64().unwrap())
        .collect();
    assert_eq!(threads, vec![1, 2, 4]);
    for s in steps {
        // Each step measured about its step time (ramp excluded) at exactly its block size.
        let elapsed = s["elapsed_s"].as_f64().unwrap();
        assert!((0.9..1.3).contains(&elapsed), "{elapsed}");
        assert_eq!(
            s["bytes"].as_u64().unwrap(),
            s["ops"].as_u64().unwrap() * 4096
        );
        assert!(s["latency_ns"]["p99"].as_u64().unwrap() > 0);
    }
    let sat = &v["saturation"];
    let i = sat["step"].as_u64().unwrap() as usize;
    let best = steps
        .iter()
        .map(|s| s["iops"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(steps[i]["iops"].as_f64().unwrap() >= 0.9 * best);
    assert!(
        steps[..i]
            .iter()
            .all(|s| s["iops"].as_f64().unwrap() < 0.9 * best)
    );
    assert_eq!(sat["threads"], steps[i]["threads"]);
    assert!(
        sat["summary"]
            .as_str()
            .unwrap()
            .starts_with("saturates at ")
    );
}

#[test]
fn a_block_size_sweep_prints_a_table_and_saves_json_and_csv() {
    let dir = workdir();
    let out = diskscope(
        dir.path(),
        &[
            "--size",
            "32M",
            "--sweep",
            "bs=4k..16k",
            "-T",
            "1s",
            "--json=steps.json",
            "--csv=steps.csv",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("IO/s") && text.contains("Mbit/s"), "{text}");
    for bs in ["4k", "8k", "16k"] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(bs)),
            "{bs} row missing:\n{text}"
        );
    }
    assert!(text.contains("saturates at"), "{text}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("steps.json")).unwrap())
            .unwrap();
    assert_eq!(saved["steps"].as_array().unwrap().len(), 3);
    let csv = std::fs::read_to_string(dir.path().join("steps.csv")).unwrap();
    assert!(csv.starts_with("step,t_s,elapsed_s,threads,bs,"));
    assert_eq!(csv.lines().count(), 4);

    // The saved sweep as a baseline: each step is compared with the same step.
    let again = diskscope(
        dir.path(),
        &[
            "--size",
            "32M",
            "--sweep",
            "bs=4k..16k",
            "-T",
            "1s",
            "--baseline",
            "steps.json",
        ],
    );
    let text = String::from_utf8(again.stdout).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.contains("(baseline ")).count(),
        3,
        "{text}"
    );
}

#[test]
fn a_saved_run_is_a_baseline_for_the_next_one() {
    let dir = workdir();
    let first = diskscope(
        dir.path(),
        &["--size", "8M", "-T", "1s", "-q", "--json=before.json"],
    );
    assert!(first.status.success(), "{}", stderr(&first));
    let out = diskscope(
        dir.path(),
        &[
            "--size",
            "8M",
            "-T",
            "1s",
            "-q",
            "--baseline",
            "before.json",
        ],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("vs baseline before.json: IOPS"), "{text}");
    let bad = diskscope(dir.path(), &["--size", "8M", "--baseline", "nope.json"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("nope.json"));
}

#[test]
fn result_files_never_overwrite_a_target() {
    let dir = workdir();
    make_file(&dir.path().join("data.img"), 1 << 20);
    let before = std::fs::read(dir.path().join("data.img")).unwrap();
    // The user meant `diskscope data.img --json`, but clap reads data.img as the JSON file.
    let out = diskscope(dir.path(), &["--json", "data.img"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("refusing to overwrite"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(dir.path().join("data.img")).unwrap(), before);
    let out = diskscope(dir.path(), &["--json", "/dev/null"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bad_sweeps_are_refused_before_anything_runs() {
    let dir = workdir();
    for (args, needle) in [
        (vec!["--sweep", "threads=0..4"], "outside 1..1024"),
        (vec!["--sweep", "disks=1,2"], "unknown dimension"),
        (vec!["--sweep", "threads=8"], "at least two steps"),
    ] {
        let out = diskscope(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    make_file(&dir.path().join("small"), 64 << 10);
    let out = diskscope(dir.path(), &["small", "--sweep", "bs=4k..1M"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("sweep step") && stderr(&out).contains("larger than the span"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fio_prints_an_equivalent_job_without_running() {
    let dir = workdir();
    let out = diskscope(
        dir.path(),
        &[
            "--fio", "-t", "8", "-b", "64k", "--random", "50", "-T", "30s",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "fio --name=diskscope",
        "--numjobs=8",
        "--bs=65536",
        "--ioengine=psync",
        "--direct=1",
        "percentage_random=50",
        "runtime=30s",
        "[diskscope]",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    assert!(
        !dir.path().join("diskscope.scratch").exists(),
        "--fio must not lay out anything"
    );
}
