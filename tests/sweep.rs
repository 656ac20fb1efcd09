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
    check_finding(&v["saturation"], steps);
}

/// The finding follows the rule whatever the disk did: the first step within 10% of the best
/// IOPS is the saturation, unless it is the last step, which then still rose and is reported
/// as such with the next range to try.
fn check_finding(sat: &serde_json::Value, steps: &[serde_json::Value]) {
    let iops: Vec<f64> = steps.iter().map(|s| s["iops"].as_f64().unwrap()).collect();
    let best = iops.iter().copied().fold(0.0, f64::max);
    let first = iops.iter().position(|&x| x * 1.1 >= best).unwrap();
    let summary = sat["summary"].as_str().unwrap();
    assert_eq!(sat["step"].as_u64().unwrap() as usize, first, "{sat}");
    if first + 1 < steps.len() {
        assert_eq!(sat["saturated"], true, "{sat}");
        assert_eq!(sat["threads"], steps[first]["threads"]);
        assert!(summary.starts_with("saturates at "), "{summary}");
    } else {
        assert_eq!(sat["saturated"], false, "{sat}");
        assert!(sat.get("threads").is_none(), "{sat}");
        assert_eq!(sat["still_rising_at"]["threads"], steps[first]["threads"]);
        let last = steps[first]["threads"].as_u64().unwrap();
        assert_eq!(sat["suggest"], format!("threads={last}..{}", last * 16));
        assert!(summary.contains("still rising at"), "{summary}");
    }
}

#[test]
fn rising_or_repeated_sweep_steps_are_refused_naming_the_flag() {
    let dir = workdir();
    for (spec, needle) in [
        ("threads=4,2", "steps must rise"),
        ("threads=1,1", "1 thread is listed twice"),
        ("bs=4k..4k", "a single step"),
        ("bs=64k,4k,16k", "list them in order: bs=4k,16k,64k"),
    ] {
        let out = diskscope(dir.path(), &["--size", "8M", "--sweep", spec]);
        assert_eq!(out.status.code(), Some(2), "{spec}");
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{spec}: {err}");
        assert!(err.contains(&format!("--sweep '{spec}'")), "{err}");
        assert!(err.contains(needle), "{spec}: {err}");
        assert!(
            !dir.path().join("diskscope.scratch").exists(),
            "{spec}: laid out a file before refusing"
        );
    }
}

#[test]
fn sigint_in_the_first_step_reports_the_io_it_did() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let dir = workdir();
    make_file(&dir.path().join("data"), 8 << 20);
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args([
            "data",
            "--sweep",
            "threads=1,2",
            "-T",
            "5s",
            "--json=steps.json",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The table header is printed once the engine runs; 2 s later the first step (0.5 s ramp,
    // then 5 s measured) is well into its measurement.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    while !text.contains("IO/s") {
        assert!(stdout.read_line(&mut text).unwrap() > 0, "no table: {text}");
    }
    std::thread::sleep(Duration::from_secs(2));
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    stdout.read_to_string(&mut text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(!text.contains("no step did any I/O"), "{text}");
    assert!(
        text.contains("(stopped early by SIGINT after 0 of 2 steps)"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("step 1 of 2 (1 thread) cut short "))
        .unwrap_or_else(|| panic!("no cut-short step: {text}"));
    let ops: u64 = line
        .split(": ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no op count: {line}"));
    assert!(ops > 0, "{line}");
    // The saved JSON carries the same step, apart from the measured ones.
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("steps.json")).unwrap())
            .unwrap();
    assert_eq!(saved["steps"].as_array().unwrap().len(), 0);
    assert_eq!(saved["interrupted_by"], "SIGINT");
    let partial = &saved["partial_step"];
    assert_eq!(partial["ops"].as_u64(), Some(ops), "{partial}");
    assert_eq!(partial["threads"], 1);
    assert!(partial["iops"].as_f64().unwrap() > 0.0);
    assert!(partial["elapsed_s"].as_f64().unwrap() > 0.5, "{partial}");
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
    assert!(
        text.contains("saturates at") || text.contains("no saturation within this sweep"),
        "{text}"
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("steps.json")).unwrap())
            .unwrap();
    assert_eq!(saved["steps"].as_array().unwrap().len(), 3);
    let csv = std::fs::read_to_string(dir.path().join("steps.csv")).unwrap();
    assert!(csv.starts_with("step,t_s,elapsed_s,threads,iodepth,bs,"));
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
    assert_eq!(bad.status.code(), Some(2), "refused with the arguments");
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
            "--fio",
            "-t",
            "8",
            "-b",
            "64k",
            "--random",
            "50",
            "-T",
            "30s",
            "--ioengine",
            "psync",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "fio --ioengine=psync",
        " --name=diskscope ",
        "--offset_increment=",
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

/// Under `--until-steady` the sweep's header says what a step lasts (until steady, at most
/// MAX), not the step time it does not use ("3.0s each").
#[test]
fn the_header_of_a_sweep_until_steady_says_how_long_a_step_lasts() {
    use std::io::BufRead;
    let dir = workdir();
    make_file(&dir.path().join("data"), 8 << 20);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["data", "--buffered", "--no-tui", "--sweep", "threads=1,2"])
        .args(["--until-steady=6s", "--steady-round", "1s"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let intro = lines
        .map_while(Result::ok)
        .inspect(|l| seen.push(l.clone()))
        .find(|l| l.starts_with("sweep of"));
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let _ = child.wait();
    assert_eq!(
        intro.as_deref(),
        Some(
            "sweep of threads over 2 steps, each until steady (5 rounds of 1 s) or 6.0s at most, \
             after a 0.5s ramp"
        ),
        "{seen:?}"
    );
}
