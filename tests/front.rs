//! The front door, headless (issue 19): what an admin types that the program used to misread
//! or lose — a duration shorter than one tick of the sampler, result paths that are the same
//! file (by name, through `./`, a hard link, the target or the baseline), and paths that are
//! not UTF-8. Each refusal is one line, exit 2, before anything is laid out.

mod common;

use std::process::Output;

use common::{diskscope, stderr, workdir};

/// Asserts a refusal before anything ran: exit 2, one stderr line holding every needle,
/// nothing on stdout, no scratch file laid out.
fn refused_before_the_run(dir: &std::path::Path, out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line:\n{err}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for n in needles {
        assert!(err.contains(n), "missing {n:?} in: {err}");
    }
    assert!(
        !dir.join("diskscope.scratch").exists(),
        "nothing may be laid out before the refusal"
    );
}

#[test]
fn durations_shorter_than_one_tick_are_refused_naming_the_shortest() {
    let dir = workdir();
    let d = dir.path();
    for args in [
        &["--size", "8M", "-T", "1ms", "--no-tui"][..],
        &["--size", "8M", "-T", "99ms", "--no-tui"],
        &["--size", "8M", "-T", "0.05s", "--sweep", "threads=1,2"],
        &["--size", "8M", "-T", "10ms", "--suite", "real"],
    ] {
        let out = diskscope(d, args);
        refused_before_the_run(d, &out, &["--time", "at least 100ms"]);
    }
    // A rest between passes is counted in ticks too: none, or at least one.
    let out = diskscope(d, &["--size", "8M", "--suite", "--pause", "20ms"]);
    refused_before_the_run(d, &out, &["--pause '20ms'", "100ms", "0"]);
    // One tick is the shortest run, and it runs one tick, not a hundred times what was asked.
    let out = diskscope(d, &["--size", "8M", "-T", "100ms", "--json"]);
    let v = common::json(&out);
    let elapsed = v["total"]["elapsed_s"].as_f64().unwrap();
    assert!((0.09..0.2).contains(&elapsed), "{elapsed}");
    let out = diskscope(
        d,
        &[
            "--size", "8M", "-T", "0.3s", "--suite", "real", "--pause", "0", "--passes", "1",
            "--json",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
}
