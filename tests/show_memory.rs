//! `--show` and `--baseline` hold a result file in memory a small multiple of its size: the
//! file's text and what is read from it, never a tree of every value (a 16 MiB fio JSON
//! with one large unused array took 1 GB that way, 60 bytes per byte). The peak resident
//! set of each diskscope process this test starts is the kernel's (`getrusage` of the
//! children waited for; this file holds one test, so no other test's children count).
//! Time is not checked here: `scripts/bench-show` measures both, in release mode.

mod common;

use common::{diskscope, make_file, workdir};
use nix::sys::resource::{UsageWho, getrusage};

const MIB: usize = 1 << 20;

/// The bound README states: four times the file, plus a constant (a debug build's own
/// code and the engine's few buffers for `--baseline`'s short run).
fn bound(file_bytes: usize) -> usize {
    4 * file_bytes + 32 * MIB
}

/// The peak resident set of the largest child waited for so far, bytes.
fn children_peak() -> usize {
    getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss() as usize * 1024
}

/// fio's JSON of one job and an array of `n` small objects nothing reads.
fn fio_with_array(n: usize) -> String {
    let job = r#"{"jobname":"a","groupid":0,"error":0,"job_runtime":1000,"read":{"io_bytes":4096,"total_ios":1,"runtime":1000,"iops":1.0,"bw_bytes":4096,"lat_ns":{"mean":1.0}},"write":{"io_bytes":0,"total_ios":0,"runtime":0,"iops":0.0,"bw_bytes":0,"lat_ns":{"mean":0.0}}}"#;
    let mut s = format!(r#"{{"fio version":"fio-3.33","jobs":[{job}],"unused":["#);
    for i in 0..n {
        s.push_str(if i == 0 { "" } else { "," });
        s.push_str(r#"{"t":1234,"v":56789}"#);
    }
    s.push_str("]}\n");
    s
}

/// A diskscope run's JSON with `n` intervals.
fn run_with_intervals(n: usize) -> String {
    let row = r#"{"t_s":1.0,"elapsed_s":1.0,"threads":1,"iodepth":1,"bs":4096,"read_pct":100,"random_pct":100,"rate_iops":0,"ops":100,"bytes":409600,"iops":100.0,"bw_bytes_per_s":409600.0,"latency_ns":{"count":100,"min":1,"mean":2.0,"p50":2,"p90":3,"p99":4,"p999":5,"max":6}}"#;
    let rows = vec![row; n].join(",");
    format!(
        r#"{{"config":{{"target":"/dev/sdb","direct":true,"threads":1,"iodepth":1,"bs":4096,"read_pct":100,"random_pct":100}},"total":{{"elapsed_s":1.0,"ops":100,"iops":100.0,"bw_bytes_per_s":409600.0,"latency_ns":{{"count":100,"p50":2,"p99":4}}}},"threads":[],"intervals":[{rows}]}}"#
    )
}

#[test]
fn show_and_baseline_stay_within_a_small_multiple_of_the_file() {
    let dir = workdir();
    let target = dir.path().join("target.img");
    make_file(&target, 1 << 20);
    let cases = [
        ("fio-array.json", fio_with_array(16 * MIB / 20)),
        ("run.json", run_with_intervals(16 * MIB / 300)),
    ];
    for (name, text) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &text).unwrap();
        let p = path.to_str().unwrap();
        for args in [
            vec!["--show", p],
            vec![
                target.to_str().unwrap(),
                "-T",
                "200ms",
                "-q",
                "--baseline",
                p,
            ],
        ] {
            let out = diskscope(dir.path(), &args);
            assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
            let peak = children_peak();
            assert!(
                peak <= bound(text.len()),
                "{args:?}: peak {} MiB for a {} MiB file (bound {} MiB)",
                peak / MIB,
                text.len() / MIB,
                bound(text.len()) / MIB
            );
        }
    }
}
