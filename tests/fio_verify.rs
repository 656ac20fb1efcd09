//! The fio export of the data checks, run by fio itself: `--burn-in --fio` is a sequential
//! write of the whole span in one stripe per thread, then fio reads every byte back and checks
//! it (`verify=crc32c`, `do_verify=1`, no time limit); `=write` and `=verify` are its halves;
//! `--verify --fio` adds fio's in-flight check (`verify_backlog`); `--capacity-probe --fio`
//! is refused in one line. The fio runs are skipped, saying so, when fio is not installed.

mod common;

use std::process::Command;

use common::{diskscope, make_file, stderr, workdir};

fn fio_installed() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: fio is not installed (the fio export cannot be run)");
    }
    ok
}

fn export(dir: &std::path::Path, args: &[&str]) -> String {
    let out = diskscope(dir, args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// The lines of `job` that are options (not comments), trimmed.
fn options(job: &str) -> Vec<&str> {
    job.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .collect()
}

/// Runs the job file `job` in `dir`; returns fio's JSON for its one (grouped) job.
fn run_fio(dir: &std::path::Path, job: &str) -> serde_json::Value {
    let file = dir.join("job.fio");
    std::fs::write(&file, job).unwrap();
    let out = Command::new("timeout")
        .args(["120", "fio", "--output-format=json"])
        .arg(&file)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // fio may print a note before its JSON.
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find('{').unwrap_or_else(|| panic!("{text}"));
    let v: serde_json::Value =
        serde_json::from_str(&text[at..]).unwrap_or_else(|e| panic!("{e}: {text}"));
    v["jobs"][0].clone()
}

#[test]
fn the_burn_ins_fio_job_writes_the_span_in_order_and_reads_it_all_back() {
    let dir = workdir();
    make_file(&dir.path().join("data"), 8 << 20);
    let job = export(
        dir.path(),
        &["data", "--burn-in", "--allow-write", "-t", "2", "--fio"],
    );
    let o = options(&job);
    for want in [
        "rw=write",
        "verify=crc32c",
        "do_verify=1",
        "bs=1048576",
        "numjobs=2",
        "ioengine=psync",
    ] {
        assert!(o.contains(&want), "{want}: {job}");
    }
    assert!(
        !o.contains(&"time_based"),
        "the span once, not a time: {job}"
    );
    let passes = export(
        dir.path(),
        &[
            "data",
            "--burn-in",
            "--allow-write",
            "--passes",
            "3",
            "--fio",
        ],
    );
    assert!(options(&passes).contains(&"loops=3"), "{passes}");
    let write = export(
        dir.path(),
        &["data", "--burn-in=write", "--allow-write", "--fio"],
    );
    assert!(options(&write).contains(&"do_verify=0"), "{write}");
    let verify = export(dir.path(), &["data", "--burn-in=verify", "--fio"]);
    assert!(options(&verify).contains(&"verify_only=1"), "{verify}");
    if !fio_installed() {
        return;
    }
    let j = run_fio(dir.path(), &job);
    assert_eq!(j["error"], 0, "{j}");
    assert_eq!(j["write"]["io_bytes"], 8 << 20, "{j}");
    assert_eq!(j["read"]["io_bytes"], 8 << 20, "every byte read back: {j}");
}

#[test]
fn verify_on_a_run_exports_fios_in_flight_verify_and_the_probe_is_refused() {
    let dir = workdir();
    make_file(&dir.path().join("data"), 8 << 20);
    let job = export(
        dir.path(),
        &[
            "data",
            "--read",
            "50",
            "--verify",
            "--allow-write",
            "-T",
            "1s",
            "--fio",
        ],
    );
    let o = options(&job);
    assert!(o.contains(&"verify=crc32c"), "{job}");
    assert!(o.contains(&"verify_backlog=32"), "{job}");
    if fio_installed() {
        let j = run_fio(dir.path(), &job);
        assert_eq!(j["error"], 0, "{j}");
        assert!(j["write"]["io_bytes"].as_u64().unwrap() > 0, "{j}");
    }
    let out = diskscope(
        dir.path(),
        &["data", "--capacity-probe", "--allow-write", "--fio"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--capacity-probe has no fio job"), "{err}");
}
