//! Root-only: the end of a run on a slow target with a deep queue. A loop device is throttled
//! for the run's process alone (cgroup v1 `blkio.throttle.*_iops_device`, the group removed
//! by a guard), so a queue of a thousand I/Os would take seconds to drain. The run must end
//! within a bound of `-T` — what is not yet started is cancelled, what the device holds is
//! waited for at most the engine's grace — and every I/O it issued must be accounted for:
//! an op, or counted apart as cancelled or unfinished, never lost and never an error.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{LoopDev, workdir};

/// How long the engine waits for in-flight I/O at the end (`sampler::STOP_GRACE`).
const GRACE: Duration = Duration::from_secs(1);
/// Start-up, the scheduler of a loaded machine, the exit.
const SLACK: Duration = Duration::from_millis(900);

/// A blkio cgroup limiting `dev` to `iops` reads and writes a second; removed on drop.
struct Throttle(PathBuf);

impl Throttle {
    fn new(dev: &LoopDev, iops: u32) -> Option<Throttle> {
        let root = Path::new("/sys/fs/cgroup/blkio");
        if !root.join("blkio.throttle.read_iops_device").exists() {
            eprintln!("skipped: no cgroup v1 blkio throttling here");
            return None;
        }
        let dir = root.join(format!(
            "diskscope-drain-{}-{}",
            std::process::id(),
            dev.name()
        ));
        std::fs::create_dir(&dir).expect("a blkio cgroup");
        let throttle = Throttle(dir);
        let rdev = std::fs::read_to_string(format!("/sys/block/{}/dev", dev.name())).unwrap();
        for file in ["read_iops_device", "write_iops_device"] {
            let rule = format!("{} {iops}", rdev.trim());
            std::fs::write(throttle.0.join(format!("blkio.throttle.{file}")), rule).unwrap();
        }
        Some(throttle)
    }

    /// Runs diskscope with `args` inside the group; returns its JSON and the wall time.
    fn run(&self, dir: &Path, args: &[&str]) -> (serde_json::Value, Duration) {
        let t0 = Instant::now();
        let out = self.output(dir, args);
        (common::json(&out), t0.elapsed())
    }

    /// Runs diskscope with `args` inside the group.
    fn output(&self, dir: &Path, args: &[&str]) -> std::process::Output {
        let procs = self.0.join("cgroup.procs");
        let script = format!("echo $$ > '{}' && exec \"$0\" \"$@\"", procs.display());
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(env!("CARGO_BIN_EXE_diskscope"))
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .expect("sh runs")
    }
}

impl Throttle {
    /// Moves this thread into the group, with the threads it starts from now on (an engine's
    /// sampler, and its workers); `leave` moves it back.
    fn enter(&self) {
        std::fs::write(self.0.join("tasks"), nix::unistd::gettid().to_string()).unwrap();
    }

    fn leave(&self) {
        let root = Path::new("/sys/fs/cgroup/blkio/tasks");
        std::fs::write(root, nix::unistd::gettid().to_string()).unwrap();
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        // The run's process has exited, so the group is empty.
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn u(v: &serde_json::Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k}: {v}"))
}

/// Every issued I/O ended as an op or as one of the kinds counted apart.
fn accounted(t: &serde_json::Value) {
    let apart = ["errors", "short_ios", "spanning_stop", "after_switch"];
    let settled = u(t, "ops") + apart.iter().map(|k| u(t, k)).sum::<u64>();
    assert_eq!(
        settled + u(t, "cancelled") + u(t, "unfinished"),
        u(t, "issued"),
        "issued I/Os unaccounted for: {t}"
    );
    assert_eq!(u(t, "errors"), 0, "nothing here is an error: {t}");
}

#[test]
#[ignore = "needs root: attaches a loop device and a blkio cgroup"]
fn a_deep_queue_on_a_slow_device_ends_within_the_grace_and_is_accounted_for() {
    if diskscope::engine::ioengine::probe().is_err() {
        eprintln!("skipped: io_uring refused here");
        return;
    }
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let Some(throttle) = Throttle::new(&dev, 200) else {
        return;
    };
    let run_time = Duration::from_secs(2);

    // 1,024 reads in flight at 200 a second: five seconds to drain. The device holds them
    // (the throttle sits below io_uring), so they cannot be cancelled: the grace bounds the
    // wait and what is left is counted as unfinished.
    let args = [
        &dev.path, "--no-tui", "--json", "-T", "2s", "-t", "4", "-Q", "256",
    ];
    let (v, wall) = throttle.run(dir.path(), &args);
    let t = &v["total"];
    eprintln!("reads: {wall:?}: {t}");
    assert!(wall < run_time + GRACE + SLACK, "ran {wall:?} for -T 2s");
    assert!(
        u(t, "unfinished") > 0,
        "the device could not have drained: {t}"
    );
    accounted(t);

    // Another device: the reads the first run left unfinished still drain through the first
    // one's throttle after it exited.
    let dir2 = workdir();
    let dev = LoopDev::on_new_file(dir2.path(), 64 << 20, &[]);
    let Some(throttle) = Throttle::new(&dev, 200) else {
        return;
    };
    // Writes each linked to its fdatasync: the syncs wait in the kernel's io-wq queue, so
    // they are cancelled, and the run ends without waiting for the grace.
    let allow = format!("--allow-write={}", dev.path);
    let args = [
        &dev.path, "--no-tui", "--json", "-T", "2s", "-t", "2", "-Q", "64", "--read", "0",
        "--fsync", "1", &allow,
    ];
    let (v, wall) = throttle.run(dir.path(), &args);
    let t = &v["total"];
    eprintln!("synced writes: {wall:?}: {t}");
    assert!(u(t, "cancelled") > 0, "nothing was cancelled: {t}");
    assert!(wall < run_time + SLACK, "ran {wall:?} for -T 2s");
    accounted(t);
}

/// A rate the throttled device cannot carry: the workers wait on the device, not on a CPU, so
/// every second and the summary say the disk is saturated.
#[test]
#[ignore = "needs root: attaches a loop device and a blkio cgroup"]
fn a_rate_beyond_a_slow_device_is_a_saturated_disk() {
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let Some(throttle) = Throttle::new(&dev, 200) else {
        return;
    };
    let args = [
        &dev.path, "--no-tui", "-T", "3s", "-t", "4", "--rate", "1000",
    ];
    let out = throttle.output(dir.path(), &args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("IOPS")).collect();
    assert!(
        text.contains("rate: asked 1000 IOPS, did") && text.contains("the disk is saturated"),
        "{text}"
    );
    assert!(!text.contains("the CPU is the limit"), "{text}");
    assert!(
        lines
            .iter()
            .filter(|l| l.contains("the disk is saturated"))
            .count()
            >= 2,
        "{text}"
    );
}

/// `--rate` asks ten times what a throttled device does, at QD16 on 4 threads: what is in
/// flight is at most 16 per thread and 64 in all (the kernel's count of requests at the
/// device too, the throttle holding the rest above it), and what is due but not yet issued is
/// shown apart, as
/// behind schedule. Before, Little's law over latencies counted from the due time put the
/// backlog into "in flight": 30,307 on a thread, 47,529/64 in the kernel pane.
#[test]
#[ignore = "needs root: attaches a loop device and a blkio cgroup"]
fn under_a_rate_in_flight_is_at_most_the_depth_and_the_backlog_is_apart() {
    use diskscope::engine::{Engine, Options};
    use diskscope::settings::{IoEngine, Settings};
    use diskscope::stats::seconds::Seconds;
    use diskscope::target::open::{OpenSpec, Target};
    if diskscope::engine::ioengine::probe().is_err() {
        eprintln!("skipped: io_uring refused here");
        return;
    }
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let Some(throttle) = Throttle::new(&dev, 200) else {
        return;
    };
    let spec = OpenSpec {
        direct: true,
        write: false,
        span: None,
    };
    let target = std::sync::Arc::new(Target::open(Path::new(&dev.path), spec).unwrap());
    let settings = Settings {
        threads: 4,
        iodepth: 16,
        rate_iops: 2000,
        ..Settings::default()
    };
    let options = Options {
        ioengine: IoEngine::IoUring,
        ..Options::default()
    };
    throttle.enter();
    let engine = Engine::start_with(target.clone(), target.geometry(), settings, options);
    throttle.leave();
    let engine = engine.unwrap();
    let inflight = format!("/sys/block/{}/inflight", dev.name());
    let mut seconds = Seconds::default();
    let mut kernel_most = 0;
    let end = Instant::now() + Duration::from_secs(4);
    while Instant::now() < end {
        if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(200)) {
            seconds.push(&s);
        }
        let text = std::fs::read_to_string(&inflight).unwrap();
        let n: u64 = text
            .split_whitespace()
            .map(|v| v.parse::<u64>().unwrap())
            .sum();
        kernel_most = kernel_most.max(n);
    }
    engine.request_stop();
    engine.join();
    let now = seconds.now.expect("a whole second");
    let rows: Vec<(f64, u64)> = now
        .threads
        .iter()
        .map(|t| (t.in_flight, t.behind))
        .collect();
    eprintln!("per thread (in flight, behind): {rows:?}; kernel at most {kernel_most}");
    for (fl, _) in &rows {
        assert!(
            *fl <= 16.0,
            "a thread's in flight beyond its depth: {rows:?}"
        );
    }
    let in_flight: f64 = rows.iter().map(|r| r.0).sum();
    assert!((32.0..=64.0).contains(&in_flight), "{rows:?}");
    assert!(kernel_most <= 64, "the kernel held {kernel_most}");
    let behind: u64 = rows.iter().map(|r| r.1).sum();
    assert!(behind > 1000, "2,000 a second asked, 200 done: {rows:?}");
}
