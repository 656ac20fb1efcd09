//! `--baseline` through the binary: the file is read with the arguments, before anything is
//! laid out or run. A baseline of the wrong kind for the mode (a single run for a sweep, a
//! sweep over another knob, fio's output for a sweep, a run for a suite, a card for a run)
//! is refused with exit status 2 and one line naming the file, what it holds and what this
//! run needs — no scratch file is laid out. A baseline of the right kind that measured
//! something else (a 1 MiB sequential write against a 4 KiB random read, fio's completion
//! latency against diskscope's total latency) is still compared, with the line saying what
//! differs before the run and above the figures.

mod common;

use std::path::Path;

use common::{diskscope, make_file, stderr, workdir};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio")
        .join(name)
        .display()
        .to_string()
}

/// Saved results of each kind, small and by hand (their keys are those `--json` writes).
fn saved(dir: &Path) {
    let config = r#""config":{"target":"disk.img","direct":true,"threads":1,"iodepth":1,"bs":4096,"read_pct":100,"random_pct":100,"ioengine":"io_uring"}"#;
    let figures = r#""iops":1000.0,"bw_bytes_per_s":4096000.0,"latency_ns":{"p50":100,"p99":500}"#;
    let files = [
        ("run.json", format!(r#"{{{config},"total":{{{figures}}}}}"#)),
        (
            "threads.json",
            format!(r#"{{{config},"dimension":"threads","steps":[{{"threads":1,{figures}}}]}}"#),
        ),
        (
            "card.json",
            format!(r#"{{"suite":"peak",{config},"passes":1,"tests":[]}}"#),
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// Refused before the run: exit 2, one line with every needle, nothing printed or laid out.
fn refused_before_the_run(dir: &Path, args: &[&str], needles: &[&str]) {
    let out = diskscope(dir, args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: {n:?} not in {err}");
    }
    assert!(out.stdout.is_empty(), "{args:?}: something ran");
    assert!(
        !dir.join("diskscope.scratch").exists(),
        "{args:?}: a scratch file was laid out"
    );
}

#[test]
fn a_baseline_of_the_wrong_kind_is_refused_before_the_run() {
    let dir = workdir();
    let d = dir.path();
    saved(d);
    let plain = fixture("plain.json");
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["--sweep", "threads=1,2", "--baseline", "run.json"],
            vec![
                "--baseline run.json: holds a single run",
                "--sweep threads compares step by step",
            ],
        ),
        (
            vec!["--sweep", "bs=4k,8k", "--baseline", "threads.json"],
            vec![
                "holds a sweep of threads",
                "--sweep bs compares step by step with a sweep of bs",
            ],
        ),
        (
            vec!["--sweep", "threads=1,2", "--baseline", &plain],
            vec![
                "plain.json: holds fio's output of one run",
                "--sweep threads",
            ],
        ),
        (
            vec!["--suite", "--baseline", "run.json"],
            vec![
                "holds a single run",
                "--suite compares test by test with a suite's card",
            ],
        ),
        (
            vec!["--suite", "peak", "--baseline", "threads.json"],
            vec!["holds a sweep of threads", "--suite"],
        ),
        (
            vec!["--no-tui", "--baseline", "card.json"],
            vec![
                "holds suite peak's card",
                "a run compares with a single run",
            ],
        ),
        (
            vec![
                "--fleet",
                "127.0.0.9",
                "/srv/x",
                "--baseline",
                "threads.json",
            ],
            vec![
                "holds a sweep of threads",
                "--fleet compares with a fleet's result",
            ],
        ),
        (
            vec!["--show", "run.json", "--baseline", "run.json"],
            vec!["--show runs nothing"],
        ),
        (
            vec!["--fio", "--baseline", "run.json"],
            vec!["--fio runs nothing"],
        ),
    ];
    for (args, needles) in cases {
        refused_before_the_run(d, &args, &needles);
    }
    // The kinds that fit are not refused: a sweep of the same knob, a card for a suite.
    for args in [
        vec![
            "--sweep",
            "threads=1,2",
            "--baseline",
            "threads.json",
            "--fio",
        ],
        vec!["--suite", "peak", "--baseline", "card.json", "--fio"],
    ] {
        // --fio runs nothing, so it is refused for that reason and no other.
        let out = diskscope(d, &args);
        assert!(stderr(&out).contains("--fio runs nothing"), "{args:?}");
    }
}

/// A 4 KiB random read against a saved 1 MiB sequential write: compared, with what differs
/// said first (before the header) and again above the figures.
#[test]
fn an_unlike_baseline_is_compared_under_the_line_saying_what_differs() {
    let dir = workdir();
    let d = dir.path();
    make_file(&d.join("disk.img"), 16 << 20);
    let before = diskscope(
        d,
        &[
            "disk.img",
            "-b",
            "1M",
            "--read",
            "0",
            "--random",
            "0",
            "--allow-write",
            "-T",
            "300ms",
            "-q",
            "--json=write.json",
        ],
    );
    assert!(before.status.success(), "{}", stderr(&before));
    let out = diskscope(
        d,
        &[
            "disk.img",
            "-T",
            "300ms",
            "--no-tui",
            "--baseline",
            "write.json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let differs = "baseline write.json measured something else: block size 1M then, 4k now; reads 0% then, 100% now; random 0% then, 100% now — the figures compare unlike runs";
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], differs, "said first: {text}");
    let vs = lines
        .iter()
        .position(|l| l.starts_with("vs baseline write.json: IOPS"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(lines[vs - 1], differs, "and above the figures: {text}");
    // The same settings: no such line.
    let same = diskscope(d, &["disk.img", "-T", "300ms", "-q", "--json=read.json"]);
    assert!(same.status.success());
    let again = diskscope(
        d,
        &["disk.img", "-T", "300ms", "-q", "--baseline", "read.json"],
    );
    let text = String::from_utf8(again.stdout).unwrap();
    assert!(text.contains("vs baseline read.json: IOPS"), "{text}");
    assert!(!text.contains("measured something else"), "{text}");
    // With --json on stdout the line goes to stderr, and the JSON stays whole.
    let json = diskscope(
        d,
        &[
            "disk.img",
            "-T",
            "300ms",
            "--json",
            "--baseline",
            "write.json",
        ],
    );
    assert!(stderr(&json).contains(differs), "{}", stderr(&json));
    serde_json::from_slice::<serde_json::Value>(&json.stdout).unwrap();
}

/// fio's percentiles are completion latency unless its job asked for total latency's
/// (`lat_percentiles=1`, as the json+ fixture did): said only when they differ.
#[test]
fn fios_latency_basis_is_said_when_it_is_not_diskscopes() {
    let dir = workdir();
    let d = dir.path();
    make_file(&d.join("disk.img"), 16 << 20);
    let run = |fixture_name: &str| {
        let out = diskscope(
            d,
            &[
                "disk.img",
                "-T",
                "300ms",
                "-q",
                "--ioengine",
                "psync",
                "--baseline",
                &fixture(fixture_name),
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = run("plain.json");
    assert!(
        plain.contains("p99 of fio's completion latency (clat, without submission; its job lacked lat_percentiles=1) then, of total latency (submission to completion, fio's lat) now"),
        "{plain}"
    );
    let plus = run("jsonplus.json");
    assert!(!plus.contains("p99 of"), "{plus}");
    assert!(plus.contains("vs baseline jsonplus.json: IOPS"), "{plus}");
}

/// A card compares what its tests share with the baseline card's: polled completions then,
/// interrupts now, is said above the figures (it was dropped for cards alone).
#[test]
fn a_polled_card_is_said_to_differ_from_one_by_interrupt() {
    let dir = workdir();
    let d = dir.path();
    make_file(&d.join("disk.img"), 16 << 20);
    let config = r#""config":{"target":"disk.img","direct":true,"threads":1,"iodepth":1,"bs":4096,"read_pct":100,"random_pct":100,"ioengine":"io_uring","hipri":true}"#;
    let card = format!(r#"{{"suite":"peak",{config},"passes":1,"tests":[]}}"#);
    std::fs::write(d.join("polled.json"), card).unwrap();
    let out = diskscope(
        d,
        &[
            "disk.img",
            "--ioengine",
            "io_uring",
            "--suite",
            "peak",
            "--passes",
            "1",
            "--pause",
            "0",
            "-T",
            "300ms",
            "--baseline",
            "polled.json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("completions polled (--hipri) then, by interrupt now"),
        "{text}"
    );
}
