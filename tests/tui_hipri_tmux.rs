//! Polled completions as a live knob (`P`, `--hipri`), in a real terminal (tmux), on a loop
//! device (root). A loop device's queue does not poll: `P` says so, naming the device's
//! `queue/io_poll`, and nothing changes. With the test seam `DISKSCOPE_TEST_ASSUME_IO_POLL=1`
//! taking the queue to poll, `P` makes each worker reap what it has in flight and build its
//! ring anew with `IORING_SETUP_IOPOLL` — the kernel's own `io_uring:io_uring_create` trace
//! shows the flag — and a second `P` builds them without it again: three periods, the middle
//! one polled, in the JSON and the CSV. The kernel fails a polled read on a queue that cannot
//! poll with EOPNOTSUPP (Linux 6.18 here; older kernels served it by interrupt), so the polled
//! period counts errors and no ops: what a real polling queue does with them no machine here
//! can show (no NVMe, no poll queues).
//! Waits act on the program's own screen. Skipped with a note when tmux is not installed.

mod common;
mod tmux_common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::LoopDev;
use tmux_common::{Tmux, bin, tmux_installed};

/// The kernel's trace is the machine's: one test of this file at a time, so the rings traced
/// are the traced test's own.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn on_a_queue_that_does_not_poll_the_key_says_why_and_nothing_changes() {
    if !tmux_installed() {
        return;
    }
    let _alone = one_at_a_time();
    let dir = common::workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let shell = format!(
        "cd '{}' && '{}' {} --ioengine io_uring --json=run.json; echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin(),
        dev.path
    );
    let tmux = Tmux::start("diskscope-hipri-refused", (80, 24), &shell);
    tmux.wait_for("the run", Duration::from_secs(60), |s| {
        s.contains("IOPS now")
    });
    tmux.keys(&["P"]);
    let said = format!("{}'s queue does not poll", dev.name());
    let refused = tmux.wait_for("the reason", Duration::from_secs(20), |s| s.contains(&said));
    assert!(!refused.contains("polled"), "{refused}");
    std::thread::sleep(Duration::from_millis(1500));
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the exit", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
    let v = read_json(&dir.path().join("run.json"));
    let periods = v["periods"].as_array().expect("periods");
    assert_eq!(periods.len(), 1, "nothing changed: {periods:?}");
    assert!(periods[0]["settings"].get("hipri").is_none(), "{periods:?}");
}

#[test]
#[ignore = "needs root: attaches a loop device, reads the kernel's trace"]
fn polling_switches_live_each_ring_built_anew_with_iopoll_and_back() {
    if !tmux_installed() {
        return;
    }
    let _alone = one_at_a_time();
    let dir = common::workdir();
    let dev = LoopDev::on_new_file(dir.path(), 32 << 20, &[]);
    let trace = Trace::start();
    let shell = format!(
        "cd '{}' && DISKSCOPE_TEST_ASSUME_IO_POLL=1 '{}' {} --ioengine io_uring -t 2 -Q 4 \
         --json=run.json --csv=run.csv; echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin(),
        dev.path
    );
    let tmux = Tmux::start("diskscope-hipri", (80, 24), &shell);
    tmux.wait_for("the run", Duration::from_secs(60), |s| {
        s.contains("IOPS now") && !s.contains("IOPS now 0 ")
    });
    std::thread::sleep(Duration::from_millis(1500));
    tmux.keys(&["P"]);
    tmux.wait_for("polled", Duration::from_secs(20), |s| {
        s.contains("direct, polled") && s.contains("│polled")
    });
    std::thread::sleep(Duration::from_millis(1500));
    tmux.keys(&["P"]);
    tmux.wait_for("interrupts again", Duration::from_secs(20), |s| {
        !s.contains("direct, polled") && s.contains("interrupts")
    });
    std::thread::sleep(Duration::from_millis(2000));
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the exit", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    let rings = trace.stop();
    // Errors (the polled reads refused) make the exit status 3.
    let refused = end.contains("diskscope-exit=3");
    assert!(refused || end.contains("diskscope-exit=0"), "{end}");

    let v = read_json(&dir.path().join("run.json"));
    let periods = v["periods"].as_array().expect("periods");
    let polled: Vec<bool> = periods
        .iter()
        .map(|p| p["settings"]["hipri"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(polled, [false, true, false], "{periods:?}");
    let ops = |i: usize| {
        (
            periods[i]["ops"].as_u64().unwrap(),
            periods[i]["errors"].as_u64().unwrap(),
        )
    };
    let (before, during, after) = (ops(0), ops(1), ops(2));
    assert!(before.0 > 0 && before.1 == 0, "{before:?}");
    // Linux 6.x refuses a polled read on a queue that cannot poll; kernels before served it
    // by interrupt. Either way, all of the period's reads alike.
    match refused {
        true => assert!(during.0 == 0 && during.1 > 0, "{during:?}"),
        false => assert!(during.0 > 0 && during.1 == 0, "{during:?}"),
    }
    assert!(after.0 > 0 && after.1 == 0, "{after:?}");

    // Every thread's ring built three times: interrupts, polled (IORING_SETUP_IOPOLL, 0x1),
    // interrupts — each by the worker itself, at its switch. The workers' rings are those
    // sized apart (IORING_SETUP_CQSIZE, 0x8); the engine's probe at the start is not.
    let workers: Vec<bool> = rings
        .iter()
        .filter(|&&f| f & 8 != 0)
        .map(|f| f & 1 == 1)
        .collect();
    assert_eq!(
        workers,
        [false, false, true, true, false, false],
        "ring flags: {rings:x?}"
    );

    // The CSV's rows say which were polled, in their last column.
    let csv = std::fs::read_to_string(dir.path().join("run.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",hipri"));
    let column: Vec<&str> = lines.map(|l| l.rsplit(',').next().unwrap()).collect();
    assert!(
        column.contains(&"1") && column.first() == Some(&"0"),
        "{column:?}"
    );
    assert_eq!(column.last(), Some(&"0"), "{column:?}");
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).expect("the run's JSON");
    serde_json::from_str(&text).unwrap()
}

/// The kernel's `io_uring:io_uring_create` events while it runs: the flags of every ring a
/// diskscope thread set up.
struct Trace {
    mounted_here: bool,
}

const TRACING: &str = "/sys/kernel/tracing";
const EVENT: &str = "events/io_uring/io_uring_create/enable";

impl Trace {
    fn start() -> Trace {
        let t = Path::new(TRACING);
        let mounted_here = !t.join("trace").exists();
        if mounted_here {
            common::run("mount", &["-t", "tracefs", "nodev", TRACING]);
        }
        let w = |f: &str, v: &str| std::fs::write(t.join(f), v).unwrap();
        w("tracing_on", "0");
        w("trace", "");
        w(EVENT, "1");
        w("tracing_on", "1");
        Trace { mounted_here }
    }

    /// The flags of each ring created by a thread whose name starts with "diskscope" or
    /// "ds-" (the workers), in order.
    fn stop(self) -> Vec<u32> {
        let t = Path::new(TRACING);
        let w = |f: &str, v: &str| std::fs::write(t.join(f), v).unwrap();
        w("tracing_on", "0");
        w(EVENT, "0");
        let text = std::fs::read_to_string(t.join("trace")).unwrap();
        w("trace", "");
        text.lines()
            .filter(|l| !l.starts_with('#') && l.contains("io_uring_create"))
            .filter(|l| !l.trim_start().starts_with("tmux") && !l.trim_start().starts_with("sh-"))
            .filter_map(|l| l.rsplit_once("flags 0x"))
            .filter_map(|(_, hex)| u32::from_str_radix(hex.trim(), 16).ok())
            .collect()
    }
}

impl Drop for Trace {
    fn drop(&mut self) {
        let t = Path::new(TRACING);
        let _ = std::fs::write(t.join(EVENT), "0");
        if self.mounted_here {
            let _ = Command::new("umount").arg(TRACING).status();
        }
    }
}

/// With several targets the disks screen's `P` switches every target: each target's periods
/// go interrupts, then polled (the engines take the config's polling, as one target's does).
#[test]
#[ignore = "needs root: attaches loop devices"]
fn several_targets_switch_together() {
    if !tmux_installed() {
        return;
    }
    let _alone = one_at_a_time();
    let dir = common::workdir();
    let (fa, fb) = (dir.path().join("a.img"), dir.path().join("b.img"));
    common::make_file(&fa, 16 << 20);
    common::make_file(&fb, 16 << 20);
    let (a, b) = (LoopDev::attach(&fa, &[]), LoopDev::attach(&fb, &[]));
    let shell = format!(
        "cd '{}' && DISKSCOPE_TEST_ASSUME_IO_POLL=1 '{}' {} {} --ioengine io_uring \
         --json=m.json; echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin(),
        a.path,
        b.path
    );
    let tmux = Tmux::start("diskscope-hipri-disks", (100, 30), &shell);
    tmux.wait_for("both running", Duration::from_secs(60), |s| {
        s.contains("2 targets") && s.contains("IOPS")
    });
    std::thread::sleep(Duration::from_millis(1500));
    tmux.keys(&["P"]);
    tmux.wait_for("polled on each", Duration::from_secs(20), |s| {
        s.contains("polled on each")
    });
    std::thread::sleep(Duration::from_millis(1500));
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the exit", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit="), "{end}");
    let v = read_json(&dir.path().join("m.json"));
    for t in v["targets"].as_array().expect("targets") {
        let polled: Vec<bool> = t["periods"]
            .as_array()
            .expect("periods")
            .iter()
            .map(|p| p["settings"]["hipri"].as_bool().unwrap_or(false))
            .collect();
        assert_eq!(polled, [false, true], "{}: {polled:?}", t["name"]);
    }
}
