//! Suites (`--suite`): each suite's tests in order with their block size, depth and threads,
//! read from the JSON the real binary prints; the card's medians, spreads and p99 agree with
//! the passes it reports; writes only with permission; sequential tests really sequential
//! (offsets recorded through the engine's `BlockIo` seam); the fio export parses in fio; and
//! on a loop device (root) the kernel's own counters agree with the card.

mod common;

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{diskscope, json, stderr, workdir};
use diskscope::engine::io::{BlockIo, IoOpener};
use diskscope::engine::{Engine, Geometry, Options};
use diskscope::settings::IoEngine;
use diskscope::suite::{Plan, SuiteName, SuiteRunner, Timing};
use diskscope::sweep::Next;
use serde_json::Value;

/// Short passes: enough I/O to count, quick enough for a test run.
const FAST: &[&str] = &["-T", "0.3s", "--pause", "0.1s", "--size", "32M"];

fn suite_json(dir: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(FAST);
    args.extend_from_slice(extra);
    json(&diskscope(dir, &args))
}

/// A test as the JSON must show it: name, bs, iodepth, threads, random.
type Expected = (&'static str, u64, u64, u64, bool);

#[test]
fn every_suite_runs_its_tests_in_order_with_their_settings() {
    let dir = workdir();
    let expected: [(&str, &[Expected]); 4] = [
        (
            "standard",
            &[
                ("SEQ1M Q8T1", 1 << 20, 8, 1, false),
                ("SEQ1M Q1T1", 1 << 20, 1, 1, false),
                ("RND4K Q32T1", 4096, 32, 1, true),
                ("RND4K Q1T1", 4096, 1, 1, true),
            ],
        ),
        (
            "nvme",
            &[
                ("SEQ1M Q8T1", 1 << 20, 8, 1, false),
                ("SEQ128K Q32T1", 128 << 10, 32, 1, false),
                ("RND4K Q32T16", 4096, 32, 16, true),
                ("RND4K Q1T1", 4096, 1, 1, true),
            ],
        ),
        (
            "peak",
            &[
                ("SEQ1M Q8T1", 1 << 20, 8, 1, false),
                ("RND4K Q32T1", 4096, 32, 1, true),
            ],
        ),
        (
            "real",
            &[
                ("SEQ1M Q1T1", 1 << 20, 1, 1, false),
                ("RND4K Q1T1", 4096, 1, 1, true),
            ],
        ),
    ];
    for (name, tests) in expected {
        let v = suite_json(dir.path(), &[&format!("--suite={name}"), "--passes", "1"]);
        assert_eq!(v["suite"], name);
        let got = v["tests"].as_array().unwrap();
        assert_eq!(got.len(), tests.len(), "{name}");
        let uring = v["config"]["ioengine"] == "io_uring";
        let mut total_ops = 0;
        for (t, &(tname, bs, depth, threads, random)) in got.iter().zip(tests) {
            assert_eq!(t["name"], tname);
            assert_eq!(t["bs"], bs, "{tname}");
            assert_eq!(t["iodepth"], depth, "{tname}");
            assert_eq!(t["threads"], threads, "{tname}");
            assert_eq!(t["random"], random, "{tname}");
            // Each pass ran the test's own settings (depth 1 only on psync, and then said).
            let pass = &t["read"]["passes"][0];
            assert_eq!(pass["bs"], bs, "{tname}");
            assert_eq!(pass["threads"], threads, "{tname}");
            assert_eq!(pass["random_pct"], if random { 100 } else { 0 }, "{tname}");
            assert_eq!(pass["read_pct"], 100, "{tname}");
            let run_depth = if uring { depth } else { 1 };
            assert_eq!(pass["iodepth"], run_depth, "{tname}");
            assert_eq!(t["iodepth_run"], run_depth, "{tname}");
            // A pass of a busy disk may complete nothing in 0.3 s (one 1 MiB read can stall
            // longer); what it did complete is whole blocks.
            let ops = pass["ops"].as_u64().unwrap();
            assert_eq!(pass["bytes"].as_u64().unwrap(), ops * bs, "{tname}");
            total_ops += ops;
        }
        assert!(total_ops > 0, "{name}: no I/O at all");
    }
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn figures_come_from_the_passes_and_writes_need_permission() {
    let dir = workdir();
    let v = suite_json(dir.path(), &["--suite", "real", "--passes", "3"]);
    for t in v["tests"].as_array().unwrap() {
        assert!(t["write"].is_null(), "{t}");
        assert_eq!(t["write_not_run"], "not run: add --allow-write");
        let r = &t["read"];
        let passes = r["passes"].as_array().unwrap();
        assert_eq!(passes.len(), 3);
        let mut mb: Vec<f64> = passes
            .iter()
            .map(|p| f(&p["bw_bytes_per_s"]) / 1e6)
            .collect();
        mb.sort_by(f64::total_cmp);
        // serde_json reads floats back to within an ulp or so.
        let same = |a: f64, b: f64| assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} vs {b}");
        same(f(&r["mb_per_s"]["median"]), mb[1]);
        same(f(&r["mb_per_s"]["min"]), mb[0]);
        same(f(&r["mb_per_s"]["max"]), mb[2]);
        same(f(&r["mb_per_s"]["best"]), mb[2]);
        let ops: u64 = passes.iter().map(|p| p["ops"].as_u64().unwrap()).sum();
        assert_eq!(r["ops"].as_u64().unwrap(), ops);
        // Latency over every I/O of every pass: one latency per op, and the merged p99 lies
        // within the passes' own p99s.
        assert_eq!(r["latency_ns"]["count"].as_u64().unwrap(), ops);
        let p99s: Vec<f64> = passes.iter().map(|p| f(&p["latency_ns"]["p99"])).collect();
        let p99 = f(&r["latency_ns"]["p99"]);
        let lo = p99s.iter().copied().fold(f64::MAX, f64::min);
        let hi = p99s.iter().copied().fold(0.0, f64::max);
        assert!(
            p99 >= lo * 0.999 && p99 <= hi * 1.001,
            "{p99} not in {lo}..{hi}"
        );
    }
    // With permission the writes run, and write passes only write.
    let v = suite_json(
        dir.path(),
        &["--suite", "real", "--passes", "2", "--allow-write"],
    );
    for t in v["tests"].as_array().unwrap() {
        let w = &t["write"];
        assert!(w.is_object(), "{t}");
        assert!(t.get("write_not_run").is_none());
        assert!(w["write_ops"].as_u64().unwrap() > 0);
        assert_eq!(w["read_ops"], 0);
        assert_eq!(t["read"]["write_ops"], 0);
        for p in w["passes"].as_array().unwrap() {
            assert_eq!(p["read_pct"], 0);
        }
    }
}

#[test]
fn text_csv_saved_files_and_baseline() {
    let dir = workdir();
    let mut args = vec![
        "--suite",
        "peak",
        "--passes",
        "2",
        "--json=card.json",
        "--csv=card.csv",
    ];
    args.extend_from_slice(FAST);
    let out = diskscope(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    // A line per pass, a row per test, then the pasteable summary.
    assert_eq!(text.matches(" pass ").count(), 4, "{text}");
    let row = |name: &str| text.lines().find(|l| l.starts_with(name)).unwrap_or("");
    assert!(
        row("SEQ1M Q8T1").contains("not run: add --allow-write"),
        "{text}"
    );
    assert!(row("RND4K Q32T1").contains("MB/s") || row("RND4K Q32T1").contains('–'));
    let summary = text.lines().last().unwrap();
    assert!(
        summary.starts_with("diskscope peak card,") && summary.contains("RND4K Q32T1"),
        "{summary}"
    );
    let csv = std::fs::read_to_string(dir.path().join("card.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    let columns = lines[0].split(',').count();
    assert_eq!(lines.len(), 1 + 2 * 2, "{csv}");
    for l in &lines {
        assert_eq!(l.split(',').count(), columns, "{l}");
    }
    assert!(lines[2].starts_with("peak,SEQ1M Q8T1,write,") && lines[2].contains("not run"));
    // `--show` prints the saved card: each test's median IOPS as the JSON has it.
    let shown = diskscope(dir.path(), &["--show", "card.json"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let shown = String::from_utf8_lossy(&shown.stdout);
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("card.json")).unwrap())
            .unwrap();
    for t in card["tests"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        let iops = format!("{:.0}", t["read"]["iops"]["median"].as_f64().unwrap());
        let line = shown
            .lines()
            .find(|l| l.starts_with(name) && l.contains(" read "))
            .unwrap_or_else(|| panic!("{name} read: {shown}"));
        assert!(line.contains(&iops), "{line} vs {iops}");
        assert!(
            shown.contains(&format!("{name:<14} write not run: add --allow-write")),
            "{shown}"
        );
    }
    // The saved card is a baseline for the next one, test by test.
    let mut args = vec![
        "--suite",
        "peak",
        "--passes",
        "1",
        "--baseline",
        "card.json",
    ];
    args.extend_from_slice(FAST);
    let out = diskscope(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("vs baseline card.json (suite peak)"),
        "{text}"
    );
    let cmp = |name: &str| {
        text.lines()
            .rfind(|l| l.starts_with(&format!("  {name}")))
            .unwrap_or("")
            .to_string()
    };
    assert!(cmp("SEQ1M Q8T1").contains("MB/s (") && cmp("SEQ1M Q8T1").contains('%'));
    assert!(cmp("RND4K Q32T1").contains("IOPS ("), "{text}");
    // A saved card may be replaced by the next card.
    let mut args = vec!["--suite", "peak", "--passes", "1", "--json=card.json"];
    args.extend_from_slice(FAST);
    assert!(diskscope(dir.path(), &args).status.success());
}

#[test]
fn the_card_says_what_it_measured() {
    let dir = workdir();
    let v = suite_json(
        dir.path(),
        &[
            "--suite",
            "peak",
            "--passes",
            "1",
            "--buffered",
            "--ioengine",
            "psync",
        ],
    );
    let notes = v["notes"].to_string();
    assert!(notes.contains("measured the page cache"), "{notes}");
    // 32 MiB is less than any machine's RAM.
    assert!(notes.contains("smaller than this machine's RAM"), "{notes}");
    assert!(notes.contains("ran at Q1"), "{notes}");
    let q32 = &v["tests"][1];
    assert_eq!(
        (q32["iodepth"].as_u64(), q32["iodepth_run"].as_u64()),
        (Some(32), Some(1))
    );
    assert!(q32["note"].as_str().unwrap().contains("ran at Q1"));
}

#[test]
fn bad_suite_flags_are_one_clear_line() {
    let dir = workdir();
    for (args, needle) in [
        (vec!["--suite", "fast"], "no such suite"),
        (vec!["--suite", "-b", "64k"], "cannot be used with"),
        (vec!["--passes", "2"], "--suite"),
    ] {
        let out = diskscope(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

#[test]
fn the_fio_export_has_a_section_per_pass_and_parses_in_fio() {
    let dir = workdir();
    let out = diskscope(
        dir.path(),
        &[
            "--suite",
            "--passes",
            "2",
            "-T",
            "2s",
            "--allow-write",
            "--fio",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let job = text.split_once("# fio job file").unwrap().1;
    let job = job.split_once('\n').unwrap().1;
    let sections: Vec<&str> = job
        .lines()
        .filter(|l| l.starts_with('[') && *l != "[global]")
        .collect();
    // 4 tests × read and write × 2 passes, in the card's order.
    assert_eq!(sections.len(), 16, "{job}");
    assert_eq!(sections[0], "[SEQ1M-Q8T1-read-pass1]");
    assert_eq!(sections[3], "[SEQ1M-Q8T1-write-pass2]");
    assert_eq!(sections[15], "[RND4K-Q1T1-write-pass2]");
    assert_eq!(job.matches("\nstonewall\n").count(), 16);
    assert!(job.contains("\nruntime=2s\n") && job.contains("\nramp_time=500ms\n"));
    let has_fio = std::process::Command::new("fio").arg("--version").output();
    if has_fio.is_ok_and(|o| o.status.success()) {
        let path = dir.path().join("suite.fio");
        std::fs::write(&path, job).unwrap();
        let parsed = std::process::Command::new("fio")
            .arg("--parse-only")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            parsed.status.success(),
            "{}",
            String::from_utf8_lossy(&parsed.stderr)
        );
    }
}

/// A target in memory that records every I/O's (offset, length) per handle.
/// Every I/O of one handle: (offset, length).
type Log = Arc<Mutex<Vec<(u64, usize)>>>;

struct Recorder {
    log: Log,
}

impl BlockIo for Recorder {
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.log.lock().unwrap().push((offset, buf.len()));
        Ok(buf.len())
    }
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.log.lock().unwrap().push((offset, buf.len()));
        Ok(buf.len())
    }
}

#[derive(Default)]
struct Recording(Mutex<Vec<Log>>);

impl IoOpener for Recording {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>> {
        let log = Arc::new(Mutex::new(Vec::new()));
        self.0.lock().unwrap().push(log.clone());
        Ok(Box::new(Recorder { log }))
    }
}

/// The standard suite on the real engine through a recording seam: every 1 MiB I/O (the
/// SEQ tests) follows the previous one, or starts the stream over at the stripe's start
/// (a new pass setting, or the wrap at the end of the span).
#[test]
fn sequential_tests_are_sequential() {
    let span = 64u64 << 20;
    let geometry = Geometry {
        span,
        logical_block_size: 512,
        direct: false,
        write_allowed: true,
    };
    let timing = Timing {
        passes: 2,
        pass_time: Duration::from_millis(200),
        pause: Duration::from_millis(100),
    };
    let plan = Plan::new(SuiteName::Standard, timing, None, IoEngine::IoUring);
    let mut runner = SuiteRunner::new(plan);
    let opener = Arc::new(Recording::default());
    let options = Options {
        ioengine: IoEngine::IoUring,
        ..Options::default()
    };
    let mut engine = Engine::start_with(opener.clone(), geometry, runner.first(), options).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        let Ok(s) = engine.snapshots().recv_timeout(Duration::from_secs(5)) else {
            break;
        };
        match runner.on_snapshot(&s) {
            Next::Continue => {}
            Next::Apply(next) => engine.apply(next).unwrap(),
            Next::Rest(next) => {
                engine.set_paused(true);
                engine.apply(next).unwrap();
            }
            Next::Resume => engine.set_paused(false),
            Next::Done => break,
        }
    }
    engine.join();
    assert!(runner.done(), "the suite did not finish");
    let logs = opener.0.lock().unwrap();
    let log = logs[0].lock().unwrap();
    let seq: Vec<u64> = log
        .iter()
        .filter(|(_, len)| *len == 1 << 20)
        .map(|(o, _)| *o)
        .collect();
    assert!(seq.len() > 100, "only {} sequential I/Os", seq.len());
    let restarts = seq.windows(2).filter(|w| w[1] != w[0] + (1 << 20)).count();
    for w in seq.windows(2) {
        assert!(
            w[1] == w[0] + (1 << 20) || w[1] == 0,
            "{} after {}: not sequential",
            w[1],
            w[0]
        );
    }
    // Restarts: one per change of SEQ settings (read → write → next test), plus wraps.
    let wraps = seq.len() as u64 / (span >> 20);
    assert!(
        restarts as u64 <= 4 + wraps,
        "{restarts} restarts in {} I/Os",
        seq.len()
    );
}

fn kernel(dev: &common::LoopDev) -> diskscope::diskstats::DiskCounters {
    let text = std::fs::read_to_string(format!("/sys/block/{}/stat", dev.name())).unwrap();
    diskscope::diskstats::parse_stat_file(&text).expect("a parsable stat file")
}

/// On a block device the writes need the device named: without it the card's write column
/// says how, the kernel completes no write and the data is unchanged; with it the writes run
/// and the kernel wrote at least what the card counts (the uncounted ramps add to it).
#[test]
#[ignore = "needs root: attaches a loop device"]
fn on_a_device_writes_run_only_when_it_is_named() {
    let dir = workdir();
    let dev = common::LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let sum = dev.checksum();
    let args = |extra: &[&str]| {
        let mut a = vec![
            dev.path.as_str(),
            "--suite",
            "real",
            "--passes",
            "2",
            "--json",
        ];
        a.extend_from_slice(&["-T", "0.3s", "--pause", "0.1s"]);
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        json(&diskscope(
            dir.path(),
            &a.iter().map(String::as_str).collect::<Vec<_>>(),
        ))
    };
    let before = kernel(&dev);
    let v = run(&[]);
    let after = kernel(&dev);
    assert_eq!(after.writes_completed, before.writes_completed);
    assert_eq!(dev.checksum(), sum, "a read-only card changed the device");
    let reads: u64 = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert!(t["write"].is_null());
            assert_eq!(
                t["write_not_run"],
                format!("not run: add --allow-write={}", dev.path)
            );
            t["read"]["read_ops"].as_u64().unwrap()
        })
        .sum();
    assert!(after.reads_completed - before.reads_completed >= reads);
    let allow = format!("--allow-write={}", dev.path);
    let before = kernel(&dev);
    let v = run(&[&allow]);
    let after = kernel(&dev);
    let written: u64 = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["write"]["write_bytes"].as_u64().unwrap())
        .sum();
    assert!(written > 0);
    let kernel_written = (after.sectors_written - before.sectors_written) * 512;
    assert!(
        kernel_written >= written,
        "kernel {kernel_written} < card {written}"
    );
    assert_ne!(dev.checksum(), sum, "the writes did not reach the device");
}

/// Under `--until-steady` the suite's header says what a pass lasts (until steady, at most
/// MAX), not the `-T` it does not use ("3 passes of 5.0 s").
#[test]
fn the_header_of_a_suite_until_steady_says_how_long_a_pass_lasts() {
    use std::io::BufRead;
    let dir = workdir();
    common::make_file(&dir.path().join("data"), 8 << 20);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["data", "--buffered", "--no-tui", "--suite", "real"])
        .args(["--until-steady=6s", "--steady-round", "1s"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let timing = lines
        .map_while(Result::ok)
        .inspect(|l| seen.push(l.clone()))
        .find(|l| l.contains(" passes "));
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    );
    let _ = child.wait();
    let timing = timing.unwrap_or_else(|| panic!("no timing line: {seen:?}"));
    assert!(
        timing.starts_with("3 passes until steady (5 rounds of 1 s) or 6.0 s at most per test"),
        "{timing}"
    );
}
