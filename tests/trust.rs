//! What an outside adversarial test broke (issue "Trust"): buffers bounded by memory, result
//! files that are never someone else's file, baselines that cannot eat memory, and a closed
//! stdout that stops the run quietly. Each test ran the real binary and failed before its fix.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{diskscope, make_file, stderr, workdir};

/// A refusal: exit `code`, one line on stderr with every needle, no panic, nothing laid out.
fn refused(dir: &std::path::Path, out: &std::process::Output, code: i32, needles: &[&str]) {
    refused_keeping(out, code, needles);
    assert!(
        !dir.join("diskscope.scratch").exists(),
        "a refused run laid out a file"
    );
}

#[test]
fn buffer_memory_is_bounded_before_anything_starts() {
    let dir = workdir();
    let out = diskscope(dir.path(), &["--no-tui", "-t", "1024", "-b", "16M"]);
    refused(
        dir.path(),
        &out,
        2,
        &[
            "1024 threads × 16 MiB blocks",
            "16 GiB",
            "limit of",
            "fewer threads",
        ],
    );
    // Every sweep step is checked, not only the first.
    let out = diskscope(
        dir.path(),
        &["--no-tui", "-t", "1024", "--sweep", "bs=4k..16M"],
    );
    refused(
        dir.path(),
        &out,
        2,
        &["--sweep step", "1024 threads ×", "limit of"],
    );
}

#[test]
fn an_address_space_limit_lowers_the_bound_and_is_named() {
    use nix::sys::resource::{Resource, setrlimit};
    let dir = workdir();
    // ulimit -v 2 GiB: buffers may take 512 MiB, so 64 × 16 MiB (1 GiB) is refused.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_diskscope"));
    cmd.args(["--no-tui", "-t", "64", "-b", "16M"])
        .current_dir(dir.path())
        .stdin(Stdio::null());
    // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            setrlimit(Resource::RLIMIT_AS, 2 << 30, 2 << 30).map_err(std::io::Error::from)
        });
    }
    let out = cmd.output().unwrap();
    refused(
        dir.path(),
        &out,
        2,
        &["64 threads × 16 MiB blocks", "ulimit -v"],
    );
}

#[test]
fn result_files_only_replace_diskscope_results_and_are_checked_first() {
    let dir = workdir();
    let d = dir.path();
    let package = "{\"name\": \"app\", \"version\": \"1.0.0\"}\n";
    std::fs::write(d.join("package.json"), package).unwrap();
    let inventory = "host,rack,serial\nweb1,4,XK12\n";
    std::fs::write(d.join("inventory.csv"), inventory).unwrap();
    let out = diskscope(d, &["--no-tui", "--json", "package.json"]);
    refused(d, &out, 2, &["package.json", "not a diskscope json result"]);
    let out = diskscope(d, &["--no-tui", "--csv=inventory.csv"]);
    refused(d, &out, 2, &["inventory.csv", "not a diskscope csv result"]);
    assert_eq!(
        std::fs::read_to_string(d.join("package.json")).unwrap(),
        package
    );
    assert_eq!(
        std::fs::read_to_string(d.join("inventory.csv")).unwrap(),
        inventory
    );
    // A directory that is not there fails before the run, not after it.
    let out = diskscope(d, &["--no-tui", "--json=missing/run.json"]);
    refused(d, &out, 2, &["missing/run.json", "does not exist"]);
    let out = diskscope(d, &["--no-tui", "--json", "."]);
    refused(d, &out, 2, &["a directory"]);

    // A diskscope result is replaced by the next one.
    make_file(&d.join("data"), 8 << 20);
    for _ in 0..2 {
        let out = diskscope(
            d,
            &[
                "data",
                "--buffered",
                "-T",
                "1s",
                "-q",
                "--json=r.json",
                "--csv=r.csv",
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    assert!(saved["total"]["ops"].as_u64().unwrap() > 0);
}

#[test]
#[ignore = "needs root: mounts a read-only filesystem"]
fn a_read_only_directory_for_results_fails_before_the_run() {
    let dir = workdir();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "ro,size=1m", "none"])
        .arg(&ro)
        .status()
        .unwrap();
    assert!(ok.success());
    let out = diskscope(dir.path(), &["--no-tui", "--json=ro/run.json"]);
    let _ = Command::new("umount").arg(&ro).status();
    refused(dir.path(), &out, 2, &["ro/run.json", "read-only"]);
}

#[test]
fn baselines_must_be_regular_files_of_sane_size() {
    let dir = workdir();
    let d = dir.path();
    let huge = std::fs::File::create(d.join("huge.json")).unwrap();
    huge.set_len(1 << 30).unwrap(); // sparse: costs no disk
    let cases: &[(&str, &str)] = &[
        ("/dev/zero", "a character device"),
        ("huge.json", "larger than any diskscope result"),
        (".", "a directory"),
    ];
    for (path, needle) in cases {
        let start = Instant::now();
        let out = diskscope(d, &["--no-tui", "--size", "8M", "--baseline", path]);
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{path} took long"
        );
        refused(d, &out, 2, &[path, needle]);
    }
}

#[test]
fn a_closed_stdout_stops_the_run_quietly_and_still_saves_the_result() {
    let dir = workdir();
    make_file(&dir.path().join("data"), 8 << 20);
    let start = Instant::now();
    // Like `| head -1`: read a line, then close the pipe.
    let mut child = start_run(
        dir.path(),
        &[
            "data",
            "--buffered",
            "--no-tui",
            "-T",
            "20s",
            "--json=r.json",
        ],
    );
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "the run went on for {:?} after its reader left",
        start.elapsed()
    );
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(saved["interrupted_by"], "SIGPIPE");
    assert!(!dir.path().join("diskscope.scratch").exists());

    // --list and --fio into a closed pipe: no panic either.
    for args in [&["--list"][..], &["--fio", "data"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}

#[test]
fn the_engine_refuses_settings_over_the_buffer_limit_so_a_live_slider_stops_there() {
    use diskscope::engine::Geometry;
    use diskscope::engine::memory::buffer_limit;
    use diskscope::settings::Settings;
    let g = Geometry {
        span: 1 << 40,
        logical_block_size: 512,
        direct: true,
        write_allowed: false,
    };
    let limit = buffer_limit();
    let bs = 16u64 << 20;
    let need = |t| diskscope::engine::memory::Need::of(t, 1, bs, limit.address_space).total();
    let fits = (1..=1024)
        .take_while(|&t| need(t) <= limit.bytes)
        .last()
        .unwrap_or(1);
    let s = |threads| Settings {
        threads,
        bs,
        ..Settings::default()
    };
    assert!(g.validate(&s(fits)).is_ok());
    if fits < 1024 {
        let e = g.validate(&s(fits + 1)).unwrap_err();
        assert!(e.contains("limit of") && e.contains("fewer threads"), "{e}");
    }
}

#[test]
fn a_named_pipe_as_baseline_is_refused_at_once() {
    let dir = workdir();
    let fifo = dir.path().join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let start = Instant::now();
    let out = diskscope(
        dir.path(),
        &["--no-tui", "--size", "8M", "--baseline", "pipe"],
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "waited for a writer"
    );
    refused(dir.path(), &out, 2, &["pipe", "a named pipe"]);
}

#[test]
fn a_result_file_replaced_during_the_run_is_not_overwritten_nor_followed() {
    let dir = workdir();
    let d = dir.path();
    make_file(&d.join("data"), 8 << 20);
    let package = "{\"name\": \"app\"}\n";
    std::fs::write(d.join("victim"), package).unwrap();
    for (name, plant) in [("a.json", "file"), ("b.json", "link")] {
        let child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
            .args(["data", "--buffered", "-q", "-T", "2s"])
            .arg(format!("--json={name}"))
            .current_dir(d)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(700));
        if plant == "file" {
            std::fs::write(d.join(name), package).unwrap();
        } else {
            std::os::unix::fs::symlink("victim", d.join(name)).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{plant}: {err}");
        assert!(
            err.contains(name) && !err.contains("saved"),
            "{plant}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(d.join(name)).unwrap(),
            package,
            "{plant}"
        );
    }
    assert_eq!(std::fs::read_to_string(d.join("victim")).unwrap(), package);
}

#[test]
fn under_a_tight_ulimit_v_a_run_starts_or_is_refused_never_aborts() {
    use nix::sys::resource::{Resource, setrlimit};
    let dir = workdir();
    make_file(&dir.path().join("data"), 8 << 20);
    for args in [
        ["-t", "16", "-b", "4M"],
        ["-t", "1024", "-b", "4k"],
        ["-t", "4", "-b", "1M"],
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_diskscope"));
        cmd.args(["data", "--buffered", "--no-tui", "-q", "-T", "1s"])
            .args(args)
            .current_dir(dir.path())
            .stdin(Stdio::null());
        // SAFETY: setrlimit is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                setrlimit(Resource::RLIMIT_AS, 400 << 20, 400 << 20).map_err(std::io::Error::from)
            });
        }
        let out = cmd.output().unwrap();
        let err = stderr(&out);
        assert!(
            matches!(out.status.code(), Some(0 | 2)),
            "{args:?}: {:?} {err}",
            out.status
        );
        assert!(!err.contains("memory allocation"), "{args:?}: {err}");
        if out.status.code() == Some(2) {
            assert!(err.contains("ulimit -v"), "{args:?}: {err}");
        }
    }
}

/// Starts a headless run in `dir` and waits until it prints its header (the file is open).
fn start_run(dir: &std::path::Path, args: &[&str]) -> std::process::Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    child
}

#[test]
fn a_scratch_file_in_use_is_not_written_through_its_name() {
    let dir = workdir();
    let d = dir.path();
    let first = start_run(d, &["--no-tui", "--size", "16M", "-T", "4s"]);
    let scratch = d.join("diskscope.scratch");
    let before = common::checksum(&scratch);
    let out = diskscope(
        d,
        &[
            "diskscope.scratch",
            "--read",
            "0",
            "--allow-write",
            "-T",
            "1s",
        ],
    );
    refused_keeping(
        &out,
        1,
        &[
            "diskscope.scratch",
            "another diskscope run is using this file",
        ],
    );
    assert_eq!(common::checksum(&scratch), before, "written while in use");
    // Reading it beside the other run is allowed, and said.
    let out = diskscope(d, &["diskscope.scratch", "-T", "1s"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("another diskscope run is using this file"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = first.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A refusal that may leave a scratch file (another run's): exit `code`, one line on stderr
/// with every needle, no panic.
fn refused_keeping(out: &std::process::Output, code: i32, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected:\n{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "missing {n:?} in: {err}");
    }
}
