//! The workers' CPU priority, read from /proc while the real binary runs: at the niceness
//! diskscope was started with while there are no more workers than CPUs (as fio's threads),
//! and lower by `engine::niceness::levels_below` beyond — never at nice 19 for one worker, which
//! on a busy server measured a fiftieth of what fio did.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use diskscope::engine::niceness::levels_below;

/// The niceness of every thread named `worker-*` of a run with `args`, started under `nice
/// -n start`, seen once all `threads` are there; the run is stopped after.
fn worker_niceness(start: i32, threads: usize) -> Vec<i32> {
    let dir = common::workdir();
    let layout = common::diskscope(dir.path(), &["--size", "16M", "--keep", "-T", "0.2s", "-q"]);
    assert!(layout.status.success(), "{}", common::stderr(&layout));
    let t = threads.to_string();
    let mut child = Command::new("nice")
        .args(["-n", &start.to_string(), env!("CARGO_BIN_EXE_diskscope")])
        .args([
            "--size", "16M", "--keep", "--no-tui", "-q", "-T", "30s", "-t", &t,
        ])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nice runs diskscope");
    let tasks = format!("/proc/{}/task", child.id());
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        seen = std::fs::read_dir(&tasks)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter_map(|e| {
                        let comm = std::fs::read_to_string(e.path().join("comm")).ok()?;
                        comm.starts_with("worker-").then_some(())?;
                        let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
                        // Field 19 of stat, the 17th after the ")" that ends the name.
                        stat.rsplit(')')
                            .next()?
                            .split_whitespace()
                            .nth(16)?
                            .parse()
                            .ok()
                    })
                    .collect()
            })
            .unwrap_or_default();
        // Each worker sets its niceness at its start and again at each hand-over (10 ms):
        // once all are there and the last set agrees, the picture is settled.
        if seen.len() == threads && seen.iter().all(|n| *n == seen[0]) {
            std::thread::sleep(Duration::from_millis(100));
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let out = child.wait_with_output().expect("waitable");
    assert_eq!(seen.len(), threads, "{seen:?}: {}", common::stderr(&out));
    seen
}

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn one_worker_runs_at_the_niceness_diskscope_was_started_with() {
    assert_eq!(worker_niceness(0, 1), vec![0]);
    assert_eq!(worker_niceness(3, 1), vec![3]);
}

#[test]
fn workers_beyond_one_a_cpu_step_down_together() {
    let n = 4 * cpus();
    let expect = (3 + levels_below(n, cpus())).min(19);
    assert!(expect > 3, "4 workers a CPU step down");
    let seen = worker_niceness(3, n);
    assert!(
        seen.iter().all(|x| *x == expect),
        "{seen:?}, expected {expect}"
    );
}
