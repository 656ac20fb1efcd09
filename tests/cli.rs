//! The real binary, headless: output shapes (text, JSON, CSV), the scratch file's life, and bad
//! input — one clear line on stderr naming the problem and the fix, a non-zero exit, no panic.

mod common;

use common::{diskscope, json, make_file, stderr, workdir};

/// Asserts a clean refusal: exit `code`, one stderr line containing every needle, no panic,
/// nothing on stdout.
fn refused(out: &std::process::Output, code: i32, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected:\n{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    for n in needles {
        assert!(err.contains(n), "missing {n:?} in: {err}");
    }
}

#[test]
fn json_has_config_totals_threads_and_intervals_that_add_up() {
    let dir = workdir();
    let out = diskscope(
        dir.path(),
        &["--size", "16M", "-t", "2", "-T", "2s", "--json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["config"]["threads"], 2);
    assert_eq!(v["config"]["bs"], 4096);
    assert_eq!(v["config"]["target_kind"], "scratch_file");
    assert_eq!(
        v["final_settings"]["threads"], 2,
        "unchanged settings end as they started"
    );
    let total = &v["total"];
    let ops = total["ops"].as_u64().unwrap();
    assert!(ops > 0);
    assert_eq!(total["bytes"].as_u64().unwrap(), ops * 4096);
    for k in ["min", "mean", "p50", "p90", "p99", "p999", "max"] {
        assert!(
            total["latency_ns"][k].as_f64().unwrap() > 0.0,
            "latency {k}"
        );
    }
    let l = &total["latency_ns"];
    assert!(
        l["min"].as_u64() <= l["p50"].as_u64()
            && l["p50"].as_u64() <= l["p99"].as_u64()
            && l["p99"].as_u64() <= l["max"].as_u64()
    );
    // IOPS is ops over the real elapsed time.
    let iops = total["iops"].as_f64().unwrap();
    let elapsed = total["elapsed_s"].as_f64().unwrap();
    assert!((iops - ops as f64 / elapsed).abs() < 1e-6 * iops);
    assert!((1.9..2.5).contains(&elapsed), "{elapsed}");
    let threads = v["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 2);
    assert_eq!(
        threads
            .iter()
            .map(|t| t["ops"].as_u64().unwrap())
            .sum::<u64>(),
        ops
    );
    let intervals = v["intervals"].as_array().unwrap();
    assert_eq!(intervals.len(), 2, "one row per second");
    assert_eq!(
        intervals
            .iter()
            .map(|i| i["ops"].as_u64().unwrap())
            .sum::<u64>(),
        ops
    );
    // The scratch file is gone.
    assert!(!dir.path().join("diskscope.scratch").exists());
}

#[test]
fn text_prints_a_line_per_second_and_a_summary_and_keep_keeps_the_scratch() {
    let dir = workdir();
    let out = diskscope(
        dir.path(),
        &["--size", "8M", "-T", "3s", "--keep", "--no-tui"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("IOPS") && l.contains("p99"))
            .count(),
        3,
        "{text}"
    );
    assert!(
        text.contains("summary (cumulative):")
            && text.contains("thread   0:")
            && text.contains("p99.9"),
        "{text}"
    );
    let scratch = dir.path().join("diskscope.scratch");
    assert_eq!(std::fs::metadata(&scratch).unwrap().len(), 8 << 20);
    // Quiet: the summary only.
    let quiet = diskscope(dir.path(), &["--size", "8M", "-T", "1s", "-q"]);
    let text = String::from_utf8(quiet.stdout).unwrap();
    assert!(!text.lines().any(|l| l.contains("IOPS  ")), "{text}");
    assert!(text.contains("latency: min"), "{text}");
}

#[test]
fn csv_has_a_header_and_a_row_per_second() {
    let dir = workdir();
    let out = diskscope(dir.path(), &["--size", "8M", "-T", "2s", "--csv"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<_> = text.lines().collect();
    assert!(lines[0].starts_with("t_s,elapsed_s,threads,iodepth,bs"));
    assert_eq!(lines.len(), 3, "{text}");
    let cols = lines[0].split(',').count();
    assert!(lines[1..].iter().all(|l| l.split(',').count() == cols));
}

#[test]
fn a_regular_file_target_and_a_directory_target() {
    let dir = workdir();
    let file = dir.path().join("data");
    make_file(&file, 4 << 20);
    let out = diskscope(dir.path(), &["data", "-T", "1s", "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    assert_eq!(v["config"]["target_kind"], "regular_file");
    assert_eq!(v["config"]["span_bytes"], 4 << 20);
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let out = diskscope(dir.path(), &["sub", "--size", "4M", "-T", "1s", "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    assert_eq!(v["config"]["target_kind"], "scratch_file");
    assert!(
        v["config"]["target"]
            .as_str()
            .unwrap()
            .ends_with("sub/diskscope.scratch")
    );
    assert!(!sub.join("diskscope.scratch").exists());
}

#[test]
fn sparse_files_are_warned_about() {
    let dir = workdir();
    let f = std::fs::File::create(dir.path().join("sparse")).unwrap();
    f.set_len(64 << 20).unwrap();
    let out = diskscope(dir.path(), &["sparse", "-T", "1s", "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    let warnings = v["config"]["warnings"].to_string();
    assert!(warnings.contains("sparse file"), "{warnings}");
}

#[test]
fn bad_input_gets_one_clear_line() {
    let dir = workdir();
    make_file(&dir.path().join("tiny"), 1000);
    make_file(&dir.path().join("small"), 8192);
    std::fs::File::create(dir.path().join("empty")).unwrap();
    let cases: &[(&[&str], i32, &[&str])] = &[
        (&["nope"], 1, &["nope", "no such file", "--list"]),
        (&["empty"], 1, &["empty", "empty (0 bytes)"]),
        (
            &["tiny", "--buffered"],
            1,
            &["tiny", "larger than the span"],
        ),
        (
            &["small", "-b", "64k"],
            1,
            &["small", "larger than the span"],
        ),
        (&["-t", "0"], 2, &["--threads '0'", "1 to 1024"]),
        (&["-t", "100000"], 2, &["--threads '100000'"]),
        (&["-t", "many"], 2, &["--threads 'many'"]),
        (&["-b", "0"], 2, &["--bs 0"]),
        (&["-b", "4kk"], 2, &["'4kk'"]),
        (&["--size", "lots"], 2, &["'lots'"]),
        (&["-T", "forever"], 2, &["'forever'", "10s"]),
        (&["--read", "150"], 2, &["--read '150'", "0 to 100"]),
        (&["--read", "50"], 2, &["--allow-write"]),
        (&["--frobnicate"], 2, &["--frobnicate", "--help"]),
        (
            &["/dev/null"],
            1,
            &["/dev/null", "not a regular file or block device"],
        ),
        (&["--tui"], 1, &["--tui needs a terminal", "--no-tui"]),
    ];
    for (args, code, needles) in cases {
        let out = diskscope(dir.path(), args);
        refused(&out, *code, needles);
    }
    // Nothing was laid out by any refused run.
    assert!(!dir.path().join("diskscope.scratch").exists());
}

#[test]
fn a_directory_where_the_scratch_file_cannot_be_written() {
    let dir = workdir();
    let sub = dir.path().join("ro");
    std::fs::create_dir(&sub).unwrap();
    // A file in the way of the scratch file's name: not ours, so never overwritten.
    std::fs::create_dir(sub.join("diskscope.scratch")).unwrap();
    let out = diskscope(dir.path(), &["ro", "--size", "1M"]);
    refused(&out, 1, &["diskscope.scratch", "not a regular file"]);
    // And a symlink in its place is refused, not followed.
    let sub2 = dir.path().join("link");
    std::fs::create_dir(&sub2).unwrap();
    std::os::unix::fs::symlink(dir.path().join("victim"), sub2.join("diskscope.scratch")).unwrap();
    let out = diskscope(dir.path(), &["link", "--size", "1M"]);
    refused(&out, 1, &["symbolic link"]);
    assert!(!dir.path().join("victim").exists());
}

#[test]
fn help_explains_targets_safety_and_exit_codes() {
    let dir = workdir();
    let out = diskscope(dir.path(), &["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "--threads",
        "--bs",
        "--allow-write",
        "O_DIRECT",
        "Exit status",
        "--list",
        "scratch",
    ] {
        assert!(text.contains(needle), "{needle}");
    }
}

#[test]
fn sigterm_and_sighup_end_a_headless_run_with_a_summary_and_no_scratch_left() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    for (sig, code) in [
        (nix::sys::signal::Signal::SIGTERM, 143),
        (nix::sys::signal::Signal::SIGHUP, 129),
        (nix::sys::signal::Signal::SIGINT, 130),
    ] {
        let dir = workdir();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_diskscope"));
        cmd.args(["--size", "8M", "-T", "60s", "--no-tui"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // diskscope keeps a SIGHUP that was ignored when it started (`nohup`): the run then
        // goes on for its whole 60 s, as whoever ignored it asked. Under a `nohup cargo test`
        // the child inherits that; this test is about the signal arriving, so it starts
        // diskscope with SIGHUP's default disposition.
        // SAFETY: signal() is async-signal-safe and touches no memory of the parent.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                nix::sys::signal::signal(
                    nix::sys::signal::Signal::SIGHUP,
                    nix::sys::signal::SigHandler::SigDfl,
                )
                .map(|_| ())
                .map_err(std::io::Error::from)
            });
        }
        let child = cmd.spawn().unwrap();
        // Wait for the first per-second line, so the signal lands mid-run.
        std::thread::sleep(Duration::from_millis(1500));
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        let sent = Instant::now();
        nix::sys::signal::kill(pid, sig).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            sent.elapsed() < Duration::from_secs(1),
            "{sig}: took {:?} to stop",
            sent.elapsed()
        );
        assert_eq!(out.status.code(), Some(code), "{sig}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("stopped early by {}", sig.as_str())),
            "{text}"
        );
        assert!(text.contains("latency: min"), "{text}");
        assert!(
            !dir.path().join("diskscope.scratch").exists(),
            "{sig}: scratch left behind"
        );
    }
}

#[test]
fn buffered_runs_report_the_cached_share_and_drop_cache_evicts_it() {
    let dir = workdir();
    let file = dir.path().join("data");
    make_file(&file, 4 << 20);
    let _ = std::fs::read(&file).unwrap(); // now in the page cache
    let warnings = |args: &[&str]| {
        let out = diskscope(dir.path(), args);
        let v: serde_json::Value = json(&out);
        v["config"]["warnings"].to_string()
    };
    let cached = warnings(&["data", "--buffered", "-T", "1s", "--json"]);
    assert!(
        cached.contains("page cache is in play") && cached.contains("4 MiB of the span (100%)"),
        "{cached}"
    );
    let dropped = warnings(&[
        "data",
        "--buffered",
        "--drop-cache",
        "-T",
        "1s",
        "--json",
        "--random",
        "0",
        "-b",
        "4M",
    ]);
    // The run itself reads the file back in, but the report says what was cached at the start.
    assert!(dropped.contains("0 B of the span (0%)"), "{dropped}");
}

#[test]
fn writes_to_a_file_need_allow_write_and_then_happen() {
    let dir = workdir();
    let file = dir.path().join("data");
    make_file(&file, 4 << 20);
    let before = std::fs::read(&file).unwrap();
    let refused_run = diskscope(dir.path(), &["data", "--read", "0", "-T", "1s"]);
    refused(&refused_run, 2, &["--allow-write"]);
    assert_eq!(std::fs::read(&file).unwrap(), before);
    let out = diskscope(
        dir.path(),
        &[
            "data",
            "--read",
            "50",
            "--allow-write",
            "-T",
            "1s",
            "--json",
        ],
    );
    let v: serde_json::Value = json(&out);
    assert!(
        v["total"]["write_ops"].as_u64().unwrap() > 0
            && v["total"]["read_ops"].as_u64().unwrap() > 0
    );
    assert!(v["config"]["write_allowed"].as_bool().unwrap());
    assert_ne!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn sigint_during_the_scratch_layout_removes_the_partial_file() {
    use std::process::{Command, Stdio};
    let dir = workdir();
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["--size", "8G", "--no-tui"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the layout has begun writing; a diskscope that ended first (a filesystem
    // without 8 GiB free is refused before any write) says why.
    let scratch = dir.path().join("diskscope.scratch");
    let started = std::time::Instant::now();
    while std::fs::metadata(&scratch).map(|m| m.len()).unwrap_or(0) == 0 {
        if let Ok(Some(_)) = child.try_wait() {
            let out = child.wait_with_output().unwrap();
            panic!("diskscope ended before the layout: {}", stderr(&out));
        }
        assert!(started.elapsed().as_secs() < 10, "the layout never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("partial scratch file was removed"),
        "{}",
        stderr(&out)
    );
    assert!(!scratch.exists());
}

#[test]
fn completions_and_man_page_come_from_the_command_line_definition() {
    let dir = workdir();
    let out = diskscope(dir.path(), &["--completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = String::from_utf8_lossy(&out.stdout);
    assert!(script.contains("--threads"), "{script}");
    assert!(script.contains("--allow-write"), "{script}");
    for shell in ["zsh", "fish"] {
        let out = diskscope(dir.path(), &["--completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("threads"),
            "{shell}"
        );
    }
    let out = diskscope(dir.path(), &["--man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains(".TH diskscope 1"), "{page}");
    // roff escapes each hyphen: this is --allow-write.
    assert!(page.contains(r"\-\-allow\-write"), "{page}");
    // Nothing was laid out.
    assert!(!dir.path().join("diskscope.scratch").exists());
    refused(
        &diskscope(dir.path(), &["--completions", "tcsh"]),
        2,
        &["--completions", "tcsh"],
    );
}
