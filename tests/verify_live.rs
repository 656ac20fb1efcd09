//! `--verify` end to end on a small file that another writer keeps spoiling at one block while
//! the run goes on (what a failing disk does between a write and its read-back): the headless
//! run names that block in its summary, its JSON (`verify`, and `errors` with op "verify") and
//! exits 3; the run screen says where, live. A clean run exits 0 with every stamp intact.

mod common;
mod tmux_common;

use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{diskscope, stderr, workdir};
use tmux_common::{Tmux, bin, tmux_installed};

const SPOILED: u64 = 8192;

/// Overwrites the block at `SPOILED` with other data every millisecond until dropped.
struct Spoiler {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Spoiler {
    fn start(path: std::path::PathBuf) -> Spoiler {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            while !s.load(Ordering::Relaxed) {
                f.write_all_at(&[0x5a; 4096], SPOILED).unwrap();
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        Spoiler {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Spoiler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

const ARGS: [&str; 9] = [
    "data",
    "--read",
    "50",
    "--allow-write",
    "--verify",
    "-T",
    "3s",
    "--no-tui",
    "--json",
];

#[test]
fn a_block_spoiled_during_the_run_is_named_in_the_json_and_the_exit_status() {
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, 64 << 10);
    let spoiler = Spoiler::start(path.clone());
    let out = diskscope(dir.path(), &ARGS);
    drop(spoiler);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let verify = &v["verify"];
    assert_eq!(verify["mode"], "verify");
    let bad = verify["bad"].as_array().unwrap();
    assert!(!bad.is_empty(), "{verify}");
    assert!(bad.iter().all(|e| e["offset"] == SPOILED), "{bad:?}");
    assert!(
        verify["counts"]["intact"].as_u64().unwrap() > 100,
        "{verify}"
    );
    let errors = v["errors"].as_array().unwrap();
    assert!(
        errors
            .iter()
            .any(|e| e["op"] == "verify" && e["offset"] == SPOILED),
        "{errors:?}"
    );
}

#[test]
fn a_clean_run_with_verify_reads_back_its_writes_and_exits_0() {
    let dir = workdir();
    common::make_file(&dir.path().join("data"), 1 << 20);
    let out = diskscope(dir.path(), &ARGS[..8]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("verify: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(" 0 corrupt, 0 stale"), "{line}");
    let out = diskscope(dir.path(), &["data", "--verify", "--no-tui"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--read 100 writes nothing"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_run_screen_says_where_a_write_read_back_bad() {
    if !tmux_installed() {
        return;
    }
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, 64 << 10);
    let spoiler = Spoiler::start(path.clone());
    let shell = format!(
        "cd {} && {} data --read 50 --allow-write --verify; sleep 5",
        dir.path().display(),
        bin()
    );
    let tmux = Tmux::start("verify", (120, 40), &shell);
    tmux.wait_for("the verify mark", Duration::from_secs(30), |s| {
        s.contains("verify: bad at 8 KiB")
    });
    tmux.keys(&["q"]);
    drop(spoiler);
}

#[test]
fn a_burn_in_in_a_terminal_paints_the_surface_map_and_prints_its_report() {
    if !tmux_installed() {
        return;
    }
    let dir = workdir();
    common::make_file(&dir.path().join("data"), 32 << 20);
    let shell = format!(
        "cd {} && {} data --burn-in --allow-write -b 1M; echo EXIT=$?; sleep 30",
        dir.path().display(),
        bin()
    );
    let tmux = Tmux::start("burnin", (100, 30), &shell);
    let screen = tmux.wait_for(
        "the burn-in's end on the map",
        Duration::from_secs(60),
        |s| s.contains("every block came back as written"),
    );
    assert!(screen.contains("v verified"), "{screen}");
    assert!(!screen.contains("not yet"), "{screen}");
    tmux.keys(&["q"]);
    let out = tmux.wait_for("the report", Duration::from_secs(20), |s| {
        s.contains("EXIT=")
    });
    assert!(out.contains("EXIT=0"), "{out}");
    assert!(out.contains("8192 intact, 0 corrupt"), "{out}");
}
