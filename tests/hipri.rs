//! `--hipri` (io_uring with `IORING_SETUP_IOPOLL`): run only where the device's queue polls,
//! refused with the reason and how to enable it everywhere else. This machine's virtio disk
//! and loop devices have no poll queues: the real binary is refused on both (the loop device
//! as root). The decision where a queue does poll is taken on the `nvme-x2` sysfs fixture
//! tree (an NVMe namespace with `queue/io_poll` 1) through the library's own lookup, the
//! same one the binary makes, and the job `--fio` writes with `hipri` parses on fio 3.33.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{LoopDev, diskscope, make_file, stderr, workdir};
use diskscope::settings::IoEngine;
use diskscope::target::facts::DiskFacts;
use diskscope::target::poll::{PollAsk, hipri_refusal};
use diskscope::target::sysfs::BlockDir;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysfs")
        .join(name)
}

/// The decision for device `name` of fixture `tree`.
fn decision(tree: &str, name: &str) -> Option<String> {
    let sys = fixture(tree);
    let block = BlockDir::by_name(&sys, name).unwrap_or_else(|| panic!("{name} in {tree}"));
    let facts = DiskFacts::for_block(&sys, &block);
    hipri_refusal(PollAsk {
        disk: facts.disk.as_deref(),
        limits: &facts.queue_limits,
        ioengine: IoEngine::IoUring,
        direct: true,
        fsync_every: 0,
    })
}

#[test]
fn a_queue_that_polls_runs_and_one_that_does_not_is_refused_saying_how() {
    // The namespace and its partition (whose queue is its disk's) poll.
    assert_eq!(decision("nvme-x2", "nvme0n1"), None);
    assert_eq!(decision("nvme-x2", "nvme0n1p1"), None);
    // Without poll queues NVMe does not: the reason and the module parameter.
    let e = decision("nvme-multipath", "nvme0n1").expect("refused");
    assert!(
        e.contains("nvme0n1's queue does not poll") && e.contains("poll_queues="),
        "{e}"
    );
    // A SATA disk never does.
    let e = decision("sata-3g", "sda").expect("refused");
    assert!(
        e.contains("sda's queue does not poll") && e.contains("SATA"),
        "{e}"
    );
}

/// Refused on this machine's disk before anything is laid out: exit 2, one line naming the
/// target, the disk, the reason and what would poll.
#[test]
fn the_virtio_disk_here_is_refused_before_the_run() {
    let dir = workdir();
    let file = dir.path().join("t.img");
    make_file(&file, 1 << 20);
    let out = diskscope(dir.path(), &["t.img", "--hipri", "--no-tui", "-T", "1s"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("t.img: --hipri: ")
            && (err.contains("queue does not poll") || err.contains("no queue/io_poll"))
            && err.contains("poll_queues"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing ran");
    // The scratch file (not made yet) is named as such, not as its directory ".".
    let out = diskscope(dir.path(), &["--hipri", "--no-tui", "-T", "1s"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("diskscope: ./diskscope.scratch: --hipri: "),
        "{err}"
    );
    assert!(
        !dir.path().join("diskscope.scratch").exists(),
        "nothing laid out"
    );
    // A target that does not exist is said to not exist, not to sit on an unknown disk.
    let out = diskscope(
        dir.path(),
        &["nothing.img", "--hipri", "--no-tui", "-T", "1s"],
    );
    let err = stderr(&out);
    assert!(err.contains("nothing.img: no such file"), "{err}");
    assert!(!err.contains("--hipri"), "{err}");
    // The other needs, each with its own reason.
    for (extra, needle) in [
        ("--buffered", "needs O_DIRECT"),
        ("--ioengine=psync", "needs --ioengine io_uring"),
    ] {
        let out = diskscope(dir.path(), &["t.img", "--hipri", extra, "--no-tui"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{extra}: {}", stderr(&out));
    }
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn a_loop_device_is_refused() {
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let name = dev.name().to_string();
    let path = format!("/dev/{name}");
    let out = diskscope(dir.path(), &[&path, "--hipri", "--no-tui", "-T", "1s"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{name}'s queue does not poll")) && err.contains("loop"),
        "{err}"
    );
}

/// The export carries `hipri` in the io_uring job, and fio 3.33 takes the job as written.
#[test]
fn the_fio_export_asks_hipri_and_parses_on_the_installed_fio() {
    if Command::new("fio").arg("--version").output().is_err() {
        eprintln!("skipped: fio is not installed");
        return;
    }
    let dir = workdir();
    make_file(&dir.path().join("t.img"), 1 << 20);
    let out = diskscope(
        dir.path(),
        &["t.img", "--hipri", "--ioengine", "io_uring", "--fio"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let job = text.split_once("diskscope.fio):\n").unwrap().1.to_string();
    assert!(
        job.contains("\nhipri\n") && job.contains("ioengine=io_uring"),
        "{job}"
    );
    std::fs::write(dir.path().join("job.fio"), &job).unwrap();
    let parsed = Command::new("fio")
        .args(["--parse-only", "job.fio"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        parsed.status.success(),
        "{}\n{job}",
        String::from_utf8_lossy(&parsed.stderr)
    );
}

/// An export may be for another machine's disk, so its queue is not asked; but what does not
/// depend on the machine is refused as the run refuses it, not written into a job fio then
/// fails on: psync, buffered I/O, syncs beside polling.
#[test]
fn the_fio_export_refuses_what_no_machine_could_poll() {
    let dir = workdir();
    make_file(&dir.path().join("t.img"), 1 << 20);
    for (extra, needle) in [
        (&["--ioengine", "psync"][..], "needs --ioengine io_uring"),
        (
            &["--ioengine", "io_uring", "--buffered"][..],
            "needs O_DIRECT",
        ),
        (
            &[
                "--ioengine",
                "io_uring",
                "--fsync",
                "1",
                "--read",
                "0",
                "--allow-write",
            ][..],
            "--fsync",
        ),
    ] {
        let mut args = vec!["t.img", "--hipri", "--fio"];
        args.extend_from_slice(extra);
        let out = diskscope(dir.path(), &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: no job written");
    }
}

/// Modes that do no I/O are not asked whether a queue polls (`--list --hipri` was refused
/// for the scratch file's engine).
#[test]
fn modes_without_io_do_not_check_polling() {
    let dir = workdir();
    let out = diskscope(dir.path(), &["--completions", "bash", "--hipri"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Trims go on beside polling, as `BLKDISCARD`s from the worker's thread (the kernel takes no
/// block discard on a polled ring): with the test seam taking the loop device's queue to
/// poll, every trim reaches the kernel (its discard count is the run's), while the polled
/// reads fail as a queue that cannot poll fails them (EOPNOTSUPP on Linux 6.x; older kernels
/// served them by interrupt).
#[test]
#[ignore = "needs root: attaches a loop device"]
fn trims_beside_polling_are_discards_from_the_thread() {
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let discards = || {
        let text = std::fs::read_to_string(format!("/sys/block/{}/stat", dev.name())).unwrap();
        let c = diskscope::diskstats::parse_stat_file(&text).unwrap();
        c.discards_completed.unwrap() + c.discards_merged.unwrap_or(0)
    };
    let before = discards();
    let allow = format!("--allow-write={}", dev.path);
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .current_dir(dir.path())
        .env("DISKSCOPE_TEST_ASSUME_IO_POLL", "1")
        .stdin(std::process::Stdio::null())
        .args([&dev.path, "--hipri", "--ioengine", "io_uring", "-Q", "4"])
        .args(["--trim", "50", &allow, "-T", "1s", "--json"])
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 3)), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let trims = v["total"]["trim_ops"].as_u64().unwrap();
    assert!(trims > 0, "{}", v["total"]);
    assert_eq!(discards() - before, trims, "the kernel's discards");
}

/// `--show` of a saved card says it was polled, and where a direction's every I/O failed it
/// says how many and shows no latency (not "0 ns").
#[test]
fn a_shown_card_says_polled_and_what_failed() {
    let dir = workdir();
    let card = r#"{"suite":"peak","config":{"target":"/dev/nvme0n1","direct":true,"ioengine":"io_uring","hipri":true},
        "passes":1,"pass_time_s":1.0,"tests":[{"name":"SEQ1M Q8T1",
        "read":{"passes":[{}],"mb_per_s":{"median":0.0,"min":0.0,"max":0.0},"iops":{"median":0.0},
        "latency_ns":{"count":0,"p99":0},"errors":942273}}]}"#;
    std::fs::write(dir.path().join("card.json"), card).unwrap();
    let out = diskscope(dir.path(), &["--show", "card.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.ends_with("median of 1 passes of 1.0s, polled")),
        "{text}"
    );
    let row = text.lines().find(|l| l.starts_with("SEQ1M")).unwrap();
    assert!(
        row.contains("(942273 I/Os failed, not in the figures)"),
        "{text}"
    );
    assert!(!row.contains("0 ns"), "{row}");
}
