//! Root-only tests of `--trim` on loop devices (a loop device discards by punching holes in
//! its backing file): every trim diskscope counts is a discard the kernel counts
//! (`/sys/block/X/stat`'s discard fields), the backing file's allocated blocks fall, and each
//! I/O path (psync's BLKDISCARD, io_uring's block discard command, and the ring's BLKDISCARD
//! fallback) is the one that carried them. Run with `cargo test -- --include-ignored` as root
//! (.ci/run does).

mod common;

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

use common::{LoopDev, diskscope, json, stderr, workdir};
use diskscope::diskstats::parse_stat_file;

/// One loop device at a time: the kernel's counters are compared whole.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The device's discards as the kernel counts them: (completed + merged, sectors). A
/// discard merged into another is one diskscope sent, so the two are added.
fn kernel_discards(dev: &LoopDev) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/sys/block/{}/stat", dev.name())).unwrap();
    let c = parse_stat_file(&text).expect("a parsable stat file");
    (
        c.discards_completed.expect("4.18+ has discard fields") + c.discards_merged.unwrap_or(0),
        c.sectors_discarded.unwrap_or(0),
    )
}

/// 512-byte blocks the file has on its filesystem (stat's st_blocks).
fn allocated(file: &Path) -> u64 {
    std::fs::metadata(file).unwrap().blocks()
}

/// Runs diskscope under strace (the `ioctl` calls of every thread) with `args` and `env`:
/// its JSON and how many BLKDISCARD ioctls it made.
fn traced(
    dir: &Path,
    dev: &LoopDev,
    args: &[&str],
    env: &[(&str, &str)],
) -> (serde_json::Value, usize) {
    let trace = dir.join("ioctl.trace");
    let allow = format!("--allow-write={}", dev.path);
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=ioctl", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_diskscope"))
        .args([dev.path.as_str(), &allow, "--no-tui", "--json", "-T", "1s"])
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("strace runs (apt-get install strace)");
    let v = json(&out);
    let text = std::fs::read_to_string(&trace).unwrap();
    (v, text.lines().filter(|l| l.contains("BLKDISCARD")).count())
}

/// The mix, engine flags, environment, and whether the trims go through BLKDISCARD ioctls.
type Path4 = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
    bool,
);

#[test]
#[ignore = "needs root: attaches a loop device"]
fn every_trim_is_a_discard_the_kernel_counts_and_punches_a_hole() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let backing = dir.path().join("backing");
    let discard_max: u64 =
        std::fs::read_to_string(format!("/sys/block/{}/queue/discard_max_bytes", dev.name()))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
    assert!(
        discard_max > 0,
        "this loop device's backing filesystem cannot punch holes"
    );
    const MIX: &[&str] = &["--trim", "40", "--read", "50"];
    const URING: &[&str] = &["--ioengine", "io_uring", "-Q", "8"];
    const SEAM: &[(&str, &str)] = &[("DISKSCOPE_NO_URING_DISCARD", "1")];
    let paths: [Path4; 4] = [
        (MIX, &["--ioengine", "psync"], &[], true),
        (MIX, URING, &[], false),
        (MIX, URING, SEAM, true),
        // Trims alone on the ring's fallback: done at once, they free no slot, and the run's
        // end must still reach the worker (it once went on trimming past it, uncounted).
        (&["--trim", "100"], URING, SEAM, true),
    ];
    for (mix, engine, env, by_ioctl) in paths {
        let blocks_before = allocated(&backing);
        let (ops_before, sectors_before) = kernel_discards(&dev);
        let mut args = mix.to_vec();
        args.extend_from_slice(engine);
        let (v, ioctls) = traced(dir.path(), &dev, &args, env);
        let (ops_after, sectors_after) = kernel_discards(&dev);
        let t = &v["total"];
        let trims = t["trim_ops"].as_u64().unwrap();
        let what = format!("{mix:?} {engine:?} {env:?}: {t}");
        assert_eq!(t["unfinished"].as_u64(), Some(0), "{what}");
        assert!(trims > 0, "{what}");
        assert_eq!(t["errors"].as_u64(), Some(0), "{what}");
        assert_eq!(ops_after - ops_before, trims, "kernel's discards, {what}");
        assert_eq!(
            (sectors_after - sectors_before) * 512,
            t["trim_bytes"].as_u64().unwrap(),
            "kernel's discarded sectors, {what}"
        );
        assert_eq!(t["trim_bytes"].as_u64(), Some(trims * 4096), "{what}");
        // The JSON's own side, with its own latency histogram.
        // Trims alone: the totals are theirs.
        let side = match t["read_ops"].as_u64() {
            Some(0) => t.clone(),
            _ => t["trim"].clone(),
        };
        assert_eq!(side["ops"].as_u64(), Some(trims), "{what}");
        assert_eq!(side["latency_ns"]["count"].as_u64(), Some(trims), "{what}");
        let ops = t["ops"].as_u64().unwrap();
        let sides = ["read_ops", "write_ops", "trim_ops"].map(|k| t[k].as_u64().unwrap());
        assert_eq!(sides.iter().sum::<u64>(), ops, "{what}");
        match by_ioctl {
            true => assert_eq!(ioctls as u64, trims, "a BLKDISCARD per trim, {what}"),
            false => assert_eq!(ioctls, 0, "the ring's discard command carries them, {what}"),
        }
        let blocks_after = allocated(&backing);
        assert!(
            blocks_after < blocks_before,
            "the backing file's blocks did not fall: {blocks_before} -> {blocks_after}, {what}"
        );
    }
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn a_trimmed_block_reads_back_as_zeros() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 1 << 20, &[]);
    let allow = format!("--allow-write={}", dev.path);
    // Every I/O a trim, sequential from block 0 (one thread: one stripe), so the first
    // `trim_ops` blocks (all 256 once it wrapped) were discarded, however slow the disk.
    let v = json(&diskscope(
        dir.path(),
        &[
            &dev.path, &allow, "--trim", "100", "--random", "0", "--no-tui", "--json", "-T", "1s",
        ],
    ));
    let trims = v["total"]["trim_ops"].as_u64().unwrap();
    assert!(trims > 0, "{}", v["total"]);
    assert_eq!(v["total"]["write_ops"].as_u64(), Some(0));
    let data = std::fs::read(&dev.path).unwrap();
    let trimmed = (trims.min(256) * 4096) as usize;
    assert!(
        data[..trimmed].iter().all(|&b| b == 0),
        "the {trims} blocks discarded read back as zeros"
    );
    assert!(
        trims >= 256 || data[trimmed..].iter().any(|&b| b != 0),
        "the rest was not touched"
    );
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn a_device_that_does_not_discard_is_refused_with_the_reason_and_untouched() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 1 << 20, &[]);
    // A sysfs tree in which this loop device's queue does not discard.
    let sys = dir.path().join("sys");
    let meta = std::fs::metadata(&dev.path).unwrap();
    let (major, minor) = (
        nix::sys::stat::major(meta.rdev()),
        nix::sys::stat::minor(meta.rdev()),
    );
    let disk = sys.join("devices/virtual/block").join(dev.name());
    std::fs::create_dir_all(disk.join("queue")).unwrap();
    std::fs::write(disk.join("queue/discard_max_bytes"), "0\n").unwrap();
    std::fs::create_dir_all(sys.join("dev/block")).unwrap();
    std::os::unix::fs::symlink(&disk, sys.join(format!("dev/block/{major}:{minor}"))).unwrap();
    let before = dev.checksum();
    let (ops_before, _) = kernel_discards(&dev);
    let allow = format!("--allow-write={}", dev.path);
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args([&dev.path, &allow, "--trim", "10", "--no-tui", "-T", "1s"])
        .env("SYSFS_PATH", &sys)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{} does not discard", dev.name()))
            && err.contains("discard_max_bytes is 0"),
        "{err}"
    );
    assert_eq!(kernel_discards(&dev).0, ops_before, "nothing discarded");
    assert_eq!(dev.checksum(), before, "nothing written");
}

/// The exported job (`--fio`) for a mix with trims runs on fio 3.33 and does what it says:
/// its trims reach the kernel, at about the share asked, beside the reads and writes.
#[test]
#[ignore = "needs root: attaches a loop device"]
fn the_fio_export_of_a_trim_mix_runs_and_keeps_the_share() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let allow = format!("--allow-write={}", dev.path);
    let export = diskscope(
        dir.path(),
        &[
            &dev.path, &allow, "--trim", "30", "--read", "50", "-T", "3s", "--fio",
        ],
    );
    assert!(export.status.success(), "{}", stderr(&export));
    let job = dir.path().join("trim.fio");
    std::fs::write(&job, &export.stdout).unwrap();
    let (before, _) = kernel_discards(&dev);
    let out = Command::new("fio")
        .arg(&job)
        .arg("--output-format=json")
        .current_dir(dir.path())
        .output()
        .expect("fio runs");
    assert!(
        out.status.success(),
        "fio: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (after, _) = kernel_discards(&dev);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let sum = |dir: &str| -> u64 {
        v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j[dir]["total_ios"].as_u64().unwrap())
            .sum()
    };
    let (r, w, t) = (sum("read"), sum("write"), sum("trim"));
    assert_eq!(after - before, t, "fio's trims reached the kernel");
    let share = t as f64 / (r + w + t) as f64;
    // fio's flow control holds the share by tokens, not per I/O: within 8 points.
    assert!(
        (share - 0.30).abs() < 0.08,
        "trim share {share:.3}: {r} {w} {t}"
    );
    assert!(r > 0 && w > 0, "{r} {w} {t}");
}

/// A run with trims as the baseline of one without: the comparison says the shares differ,
/// and the saved run's trims read back (`--show`).
#[test]
#[ignore = "needs root: attaches a loop device"]
fn a_baseline_with_trims_says_so_against_a_run_without() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let allow = format!("--allow-write={}", dev.path);
    let first = diskscope(
        dir.path(),
        &[
            &dev.path,
            &allow,
            "--trim",
            "30",
            "--no-tui",
            "-T",
            "1s",
            "--json=trims.json",
        ],
    );
    assert!(first.status.success(), "{}", stderr(&first));
    let shown = diskscope(dir.path(), &["--show", "trims.json"]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("trim ")),
        "{text}"
    );
    let second = diskscope(
        dir.path(),
        &[
            &dev.path,
            "--no-tui",
            "-T",
            "1s",
            "--baseline",
            "trims.json",
        ],
    );
    let out = String::from_utf8_lossy(&second.stdout).into_owned() + &stderr(&second);
    assert!(second.status.success(), "{out}");
    assert!(out.contains("trims 30% then, 0% now"), "{out}");
}

/// Trims beside a read-back (`--verify`, `--burn-in`) are refused before anything is
/// written: a trimmed block reads back as zeros, which a check would call corrupt.
#[test]
#[ignore = "needs root: attaches a loop device"]
fn trims_with_a_read_back_are_refused_and_nothing_is_written() {
    let _one = one_at_a_time();
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 1 << 20, &[]);
    let before = dev.checksum();
    let allow = format!("--allow-write={}", dev.path);
    let modes: [&[&str]; 2] = [&["--read", "50", "--verify"], &["--burn-in"]];
    for mode in modes {
        let mut args = vec![
            dev.path.as_str(),
            &allow,
            "--trim",
            "10",
            "--no-tui",
            "-T",
            "1s",
        ];
        args.extend_from_slice(mode);
        let out = diskscope(dir.path(), &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{mode:?}: {err}");
        // --burn-in is a mode of its own, which refuses every run flag it does not use.
        let said = err.contains("--trim with --verify")
            || err.contains("--burn-in is a test of its own") && err.contains("--trim");
        assert!(said, "{mode:?}: {err}");
    }
    assert_eq!(dev.checksum(), before, "nothing written");
}
