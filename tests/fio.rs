//! The fio export run by fio itself: the exported command line (through sh) and job file
//! against the same file diskscope measured — a path with `:` and spaces — must open that
//! file and nothing else, agree with diskscope's IOPS within the noise, and give sequential
//! jobs the stripes diskscope's threads walk. Skipped, saying so, when fio is not installed.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{diskscope, json, make_file, stderr, workdir};
use diskscope::engine::pattern::OffsetGen;

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

/// A 64 MiB file under a directory whose name has a colon and a space, as by-path names do.
fn target(dir: &Path) -> PathBuf {
    let sub = dir.join("pci-0000:00:1f.2 ata");
    std::fs::create_dir(&sub).unwrap();
    let file = sub.join("disk:1 img");
    make_file(&file, 64 << 20);
    file
}

/// The names in `dir`.
fn listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// `diskscope --fio` for `args`: (command line, job file).
fn export(dir: &Path, file: &Path, args: &[&str]) -> (String, String) {
    let mut all = vec![file.to_str().unwrap(), "--fio"];
    all.extend_from_slice(args);
    let out = diskscope(dir, &all);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let cmd = text.lines().nth(1).unwrap();
    let cmd = cmd
        .strip_prefix("# ")
        .expect("the command line is a comment")
        .to_string();
    let job = text.split_once("diskscope.fio):\n").unwrap().1.to_string();
    (cmd, job)
}

/// Runs fio through sh in `cwd` with `extra` arguments appended; returns its stdout.
fn run_fio(cwd: &Path, cmd: &str, extra: &str) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{cmd} {extra}"))
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(out.status.success(), "fio failed: {cmd}\n{}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// Total IOPS (reads + writes) of fio's JSON, over all jobs.
fn fio_iops(out: &str) -> f64 {
    let v: serde_json::Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["read"]["iops"].as_f64().unwrap() + j["write"]["iops"].as_f64().unwrap())
        .sum()
}

/// The tests here measure the disk; run one at a time so neither loads it for the other.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn fio_runs_the_export_against_the_same_file_and_agrees_with_diskscope() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = target(dir.path());
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let before = listing(file.parent().unwrap());
    for args in [
        vec!["-T", "2s"],
        vec!["-t", "4", "-b", "64k", "--random", "0", "-T", "2s"],
        vec![
            "-t",
            "2",
            "--random",
            "50",
            "--read",
            "70",
            "--allow-write",
            "-T",
            "2s",
        ],
    ] {
        let (cmd, _) = export(dir.path(), &file, &args);
        // O_DIRECT: both are bound by the device, not by CPU shared with other tests. A
        // pair is retried when a burst of load elsewhere split them; a wrong export (another
        // file, the page cache, other offsets or block size) stays wrong on every try.
        let mut tries = Vec::new();
        for _ in 0..3 {
            // Pending writeback (a fresh build leaves a gigabyte of it) would share the disk
            // with one tool and not the other.
            nix::unistd::sync();
            let mut run = vec![file.to_str().unwrap(), "--json"];
            run.extend_from_slice(&args);
            let ours = json(&diskscope(dir.path(), &run))["total"]["iops"]
                .as_f64()
                .unwrap();
            let theirs = fio_iops(&run_fio(&cwd, &cmd, "--output-format=json"));
            tries.push((ours, theirs));
            if (theirs / ours - 1.0).abs() < 0.35 {
                break;
            }
        }
        let &(ours, theirs) = tries.last().unwrap();
        assert!(
            (theirs / ours - 1.0).abs() < 0.35,
            "{args:?}: diskscope vs fio IOPS {tries:?}\n{cmd}"
        );
        // fio opened the file it was given: nothing was created beside it or in its cwd.
        assert_eq!(listing(file.parent().unwrap()), before, "{cmd}");
        assert!(
            listing(&cwd).is_empty(),
            "fio created {:?}: {cmd}",
            listing(&cwd)
        );
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 64 << 20);
    }
    // The job file form names the same file.
    let (_, job) = export(dir.path(), &file, &["-T", "1s"]);
    std::fs::write(dir.path().join("job.fio"), &job).unwrap();
    let out = run_fio(&cwd, "fio ../job.fio", "--output-format=json");
    assert!(fio_iops(&out) > 0.0, "{out}");
    assert!(
        listing(&cwd).is_empty(),
        "fio created {:?}:\n{job}",
        listing(&cwd)
    );
    assert_eq!(listing(file.parent().unwrap()), before, "{job}");
}

/// Each fio thread's offsets from `--debug=io`, by thread id.
fn offsets_by_thread(debug: &str) -> BTreeMap<String, Vec<u64>> {
    let mut by = BTreeMap::<String, Vec<u64>>::new();
    for line in debug.lines().filter(|l| l.contains(" queue: ")) {
        let tid = line.split_whitespace().nth(1).unwrap().to_string();
        let off = line
            .split("off=0x")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap();
        by.entry(tid)
            .or_default()
            .push(u64::from_str_radix(off, 16).unwrap());
    }
    by
}

#[test]
fn sequential_fio_jobs_walk_the_stripes_of_diskscope_threads() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = target(dir.path());
    let bs = 1u64 << 20;
    // 64 blocks: 4 threads get equal stripes (offset_increment), 3 do not (a job each).
    for threads in [4usize, 3] {
        let t = threads.to_string();
        let (cmd, job) = export(
            dir.path(),
            &file,
            &["-t", &t, "-b", "1M", "--random", "0", "-T", "10s"],
        );
        assert_eq!(
            job.contains("offset_increment=16777216"),
            threads == 4,
            "{job}"
        );
        // 60 I/Os per job wrap each stripe (16 or 21-22 blocks) at least twice.
        let debug = run_fio(dir.path(), &cmd, "--number_ios=60 --debug=io");
        let seen: BTreeSet<(u64, u64)> = offsets_by_thread(&debug)
            .values()
            .map(|offs| {
                let (lo, hi) = (*offs.iter().min().unwrap(), *offs.iter().max().unwrap());
                assert!(offs.len() >= 60, "{offs:?}");
                // A whole stripe, walked in order from its start and wrapped at its end.
                assert_eq!(offs[0], lo, "{offs:?}");
                let len = (hi - lo) / bs + 1;
                for (k, &o) in offs.iter().enumerate().take(60) {
                    assert_eq!(o, lo + (k as u64 % len) * bs, "{offs:?}");
                }
                (lo / bs, len)
            })
            .collect();
        let expected: BTreeSet<(u64, u64)> = (0..threads)
            .map(|i| OffsetGen::new(64 << 20, bs, 0, i, threads).stripe())
            .collect();
        assert_eq!(seen, expected, "{threads} threads:\n{job}");
    }
}
