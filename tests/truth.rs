//! Figures that must add up, against the real binary: only complete I/Os are ops (a target
//! that shrinks under a buffered run gives short and zero-byte reads, which are counted apart),
//! and a process stopped from outside (SIGSTOP) has the stop left out of its rates and
//! latencies, with the summary saying so.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{make_file, stderr, workdir};
use serde_json::Value;

/// Bytes are ops × bs and there is one latency per op, in every interval and in the totals.
fn assert_adds_up(v: &Value) {
    let bs = v["config"]["bs"].as_u64().unwrap();
    let rows = v["intervals"].as_array().unwrap();
    for r in rows.iter().chain([&v["total"]]) {
        let ops = r["ops"].as_u64().unwrap();
        assert_eq!(r["bytes"].as_u64().unwrap(), ops * bs, "{r}");
        assert_eq!(r["latency_ns"]["count"].as_u64().unwrap(), ops, "{r}");
        let iops = r["iops"].as_f64().unwrap();
        let bw = r["bw_bytes_per_s"].as_f64().unwrap();
        assert!((iops * bs as f64 - bw).abs() <= bw * 1e-9 + 1.0, "{r}");
    }
    let sum: u64 = rows.iter().map(|r| r["ops"].as_u64().unwrap()).sum();
    assert_eq!(sum, v["total"]["ops"].as_u64().unwrap());
}

/// Starts a text run with its JSON saved to `json`, and waits for its first one-second line.
fn start_run(
    dir: &std::path::Path,
    args: &[&str],
) -> (Child, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while out.read_line(&mut line).unwrap() > 0 {
        if line.contains("IOPS") {
            return (child, out);
        }
        line.clear();
    }
    let o = child.wait_with_output().unwrap();
    panic!("no interval line: {}", stderr(&o));
}

/// The rest of the run's text output, and its saved JSON.
fn finish_run(
    mut child: Child,
    mut out: BufReader<std::process::ChildStdout>,
    json: &std::path::Path,
) -> (String, Value) {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut out, &mut text).unwrap();
    let status = child.wait().unwrap();
    let v: Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    eprintln!("{text}");
    assert!(status.code().is_some(), "{status:?}");
    (text, v)
}

#[test]
fn a_file_shrinking_under_a_buffered_run_gives_short_reads_that_are_not_ops() {
    let dir = workdir();
    let file = dir.path().join("target");
    make_file(&file, 16 << 20);
    let json = dir.path().join("run.json");
    let json_arg = format!("--json={}", json.display());
    let (child, out) = start_run(
        dir.path(),
        &[
            file.to_str().unwrap(),
            "--buffered",
            "--no-tui",
            "-t",
            "2",
            "-T",
            "2s",
            &json_arg,
        ],
    );
    // Three quarters of the offsets now lie past the end: short (zero-byte) reads.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(4 << 20)
        .unwrap();
    let (text, v) = finish_run(child, out, &json);
    let total = &v["total"];
    let short = total["short_ios"].as_u64().unwrap();
    let ops = total["ops"].as_u64().unwrap();
    assert!(short > 1000 && ops > 1000, "{total}");
    assert_adds_up(&v);
    // The per-second lines show the short reads beside the rate, not in it.
    assert!(
        text.contains("/s short") && text.contains("(not in IOPS)"),
        "{text}"
    );
    assert!(text.contains(&format!("{short} short")), "{text}");
}

#[test]
fn a_stopped_process_leaves_the_stop_out_of_rates_and_latency() {
    let dir = workdir();
    let file = dir.path().join("target");
    make_file(&file, 16 << 20);
    let json = dir.path().join("run.json");
    let json_arg = format!("--json={}", json.display());
    let started = Instant::now();
    let (child, out) = start_run(
        dir.path(),
        &[
            file.to_str().unwrap(),
            "--buffered",
            "--no-tui",
            "-T",
            "4s",
            &json_arg,
        ],
    );
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
    std::thread::sleep(Duration::from_secs(2));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGCONT).unwrap();
    let (text, v) = finish_run(child, out, &json);
    let wall = started.elapsed().as_secs_f64();
    let total = &v["total"];
    let left_out = &v["left_out"];
    assert_eq!(left_out["stops"], 1, "{left_out}");
    let stopped = left_out["stopped_s"].as_f64().unwrap();
    assert!((1.8..3.0).contains(&stopped), "{left_out}");
    // Four seconds of run time, the stop on top of it.
    let elapsed = total["elapsed_s"].as_f64().unwrap();
    assert!((3.8..4.7).contains(&elapsed), "run time {elapsed}");
    assert!(wall > elapsed + 1.8, "wall {wall}, run {elapsed}");
    // No I/O carries the stop in its latency (a page-cached read takes microseconds).
    let max = total["latency_ns"]["max"].as_u64().unwrap();
    assert!(max < 1_000_000_000, "max latency {max} ns");
    assert_adds_up(&v);
    // The rate is that of the running intervals, not diluted by the stop.
    let iops = total["iops"].as_f64().unwrap();
    let rows = v["intervals"].as_array().unwrap();
    let (ops, secs) = rows.iter().fold((0.0, 0.0), |(o, s), r| {
        (
            o + r["ops"].as_f64().unwrap(),
            s + r["elapsed_s"].as_f64().unwrap(),
        )
    });
    assert!(
        (iops - ops / secs).abs() <= iops * 1e-6,
        "{iops} vs {}",
        ops / secs
    );
    let marked: Vec<&Value> = rows
        .iter()
        .filter(|r| r["left_out"]["stops"] == 1)
        .collect();
    assert_eq!(marked.len(), 1, "one row carries the stop");
    assert!(
        marked[0]["elapsed_s"].as_f64().unwrap() < 1.2,
        "{}",
        marked[0]
    );
    assert!(text.contains("stopped 1× for"), "{text}");
    assert!(text.contains("left out of rates and latency"), "{text}");
}

/// coreutils `timeout` sends SIGTERM and then SIGCONT to a process that was never stopped:
/// the run ends as stopped early by SIGTERM, with no stop counted and no I/O set apart as
/// spanning one (three runs: the SIGCONT's handler once ran before the SIGTERM's).
#[test]
fn the_sigcont_that_timeout_sends_after_sigterm_is_not_a_stop() {
    let dir = workdir();
    let file = dir.path().join("target");
    make_file(&file, 16 << 20);
    let json = dir.path().join("run.json");
    let json_arg = format!("--json={}", json.display());
    for _ in 0..3 {
        let out = Command::new("timeout")
            .args(["-s", "TERM", "1", env!("CARGO_BIN_EXE_diskscope")])
            .args([
                file.to_str().unwrap(),
                "--buffered",
                "--no-tui",
                "-T",
                "10s",
            ])
            .arg(&json_arg)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(124), "{text}{}", stderr(&out));
        let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(v["left_out"]["stops"], 0, "{}\n{text}", v["left_out"]);
        assert_eq!(v["total"]["spanning_stop"], 0, "{}", v["total"]);
        assert!(text.contains("stopped early by SIGTERM"), "{text}");
        assert!(!text.contains("resumed by SIGCONT"), "{text}");
    }
}
