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
            .map(|i| OffsetGen::new(64 << 20, bs, 0, Default::default(), i, threads).stripe())
            .collect();
        assert_eq!(seen, expected, "{threads} threads:\n{job}");
    }
}

/// The io_uring requests fio submitted while running `job`, by opcode, from the kernel's own
/// `io_uring:io_uring_submit_req` trace (tracefs, root), only those of fio's process (its
/// thread group): fio's report is not the count (fio 3.33 reports a sync per write it never
/// sent).
fn traced_submissions(job: &Path) -> BTreeMap<String, u64> {
    let t = Path::new("/sys/kernel/tracing");
    let mounted_here = !t.join("trace").exists();
    if mounted_here {
        common::run("mount", &["-t", "tracefs", "nodev", t.to_str().unwrap()]);
    }
    let w = |f: &str, v: &str| std::fs::write(t.join(f), v).unwrap();
    let event = "events/io_uring/io_uring_submit_req/enable";
    w("tracing_on", "0");
    w("options/record-tgid", "1");
    w("buffer_size_kb", "16384");
    w("trace", "");
    w(event, "1");
    w("tracing_on", "1");
    let run = Command::new("fio")
        .arg(job)
        .arg("--output-format=json")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let tgid = run.id();
    let out = run.wait_with_output().unwrap();
    w("tracing_on", "0");
    w(event, "0");
    let trace = std::fs::read_to_string(t.join("trace")).unwrap();
    w("trace", "");
    w("options/record-tgid", "0");
    if mounted_here {
        let _ = Command::new("umount").arg(t).status();
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut counts = BTreeMap::new();
    for line in trace.lines().filter(|l| !l.starts_with('#')) {
        // "fio-1235    (   1234) [001] ....: io_uring_submit_req: …, opcode FSYNC, …"
        let group = line
            .split_once('(')
            .and_then(|(_, r)| r.split_once(')'))
            .and_then(|(g, _)| g.trim().parse::<u32>().ok());
        if group == Some(tgid)
            && let Some(op) = line.split("opcode ").nth(1)
        {
            let op = op.split([',', ' ']).next().unwrap_or("").to_string();
            *counts.entry(op).or_insert(0) += 1;
        }
    }
    counts
}

#[test]
#[ignore = "needs root: counts fio's io_uring submissions with tracefs"]
fn the_exported_sync_job_sends_a_sync_per_write_on_the_installed_fio() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = dir.path().join("disk.img");
    make_file(&file, 64 << 20);
    let allow = format!("--allow-write={}", file.display());
    let out = diskscope(
        dir.path(),
        &[
            file.to_str().unwrap(),
            "--fio",
            "--fsync",
            "1",
            "--read",
            "0",
            &allow,
            "-Q",
            "4",
            "-T",
            "2s",
            "--ioengine",
            "io_uring",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The whole output is the job file.
    let job = String::from_utf8(out.stdout).unwrap();
    let version = Command::new("fio").arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let count = |job: &str| {
        let path = dir.path().join("probe.fio");
        std::fs::write(&path, job).unwrap();
        traced_submissions(&path)
    };
    let exported = count(&job);
    let writes = exported.get("WRITE").copied().unwrap_or(0)
        + exported.get("WRITE_FIXED").copied().unwrap_or(0);
    let syncs = exported.get("FSYNC").copied().unwrap_or(0);
    // What the export left out, for the record: the same job with registered buffers.
    let trap = count(&job.replace("registerfiles\n", "registerfiles\nfixedbufs\n"));
    eprintln!("{version}: exported job {exported:?}; with fixedbufs {trap:?}");
    assert!(writes > 100, "too few writes to judge: {exported:?}");
    assert!(
        syncs as f64 >= 0.98 * writes as f64,
        "{version}: the exported job sent {syncs} syncs for {writes} writes at fdatasync=1"
    );
}

/// Each distribution's export runs on the installed fio (Debian's 3.33 here) with the
/// distribution fio's JSON says it took: `zipf:1`, which fio refuses, goes out as the nearest
/// it takes, said in the job file.
#[test]
fn the_exported_random_distribution_runs_on_the_installed_fio() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = target(dir.path());
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    for (ours, fios) in [
        ("zipf:1.2", "zipf:1.2"),
        ("zipf:1", "zipf:1.001"),
        ("pareto:0.8", "pareto:0.8"),
        ("hotband:90/10", "zoned:90/10:10/90"),
    ] {
        let (cmd, job) = export(
            dir.path(),
            &file,
            &["--random-distribution", ours, "-t", "2", "-T", "1s"],
        );
        assert!(
            job.contains(&format!("random_distribution={fios}\n")),
            "{ours}:\n{job}"
        );
        if ours == "zipf:1" {
            assert!(job.contains("fio refuses zipf:1"), "{job}");
        }
        let out = run_fio(&cwd, &cmd, "--output-format=json");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        for j in v["jobs"].as_array().unwrap() {
            assert_eq!(
                j["job options"]["random_distribution"].as_str(),
                Some(fios),
                "{ours}: {j}"
            );
            assert!(j["read"]["io_kbytes"].as_u64().unwrap() > 0, "{ours}: {j}");
        }
    }
}
