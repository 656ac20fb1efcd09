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
    // Every number agrees: the run's findings name the bad block, the bytes and the time
    // are the run's (they were 0 beside ~100k stamped writes).
    let kinds: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"verify_bad"), "{kinds:?}");
    let written = verify["written_bytes"].as_u64().unwrap();
    // The total's writes (an I/O in flight across the end is left out of it, not of these).
    let total = v["total"]["write_bytes"].as_u64().unwrap();
    assert!(
        total > 0 && written >= total && written <= total + (1 << 20),
        "verify wrote {written}, the run {total}"
    );
    assert!(verify["verify_s"].as_f64().unwrap() > 1.0, "{verify}");
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
    assert!(
        text.contains("every block came back as written"),
        "the findings say the verify passed: {text}"
    );
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

/// The whole of the pane, scrollback included: the summary printed after the TUI left.
fn history(tmux: &Tmux) -> String {
    let out = tmux.run(&["capture-pane", "-p", "-S", "-", "-t", "e2e"]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `args` in an 80x24 pane, waits for the run screen (`spoil`: then spoils the block at
/// `SPOILED` until the screen says so), quits with q and returns the pane's history and the
/// `--json` file.
fn tui_verify(name: &str, spoil: bool) -> (String, serde_json::Value) {
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, 256 << 10);
    let shell = format!(
        "cd {} && {} data --read 50 --verify --allow-write --json=tv.json; \
         echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin()
    );
    let tmux = Tmux::start(name, (80, 24), &shell);
    tmux.wait_for("the run screen", Duration::from_secs(30), |s| {
        s.contains("IOPS")
    });
    if spoil {
        let spoiler = Spoiler::start(path.clone());
        tmux.wait_for("the verify mark", Duration::from_secs(30), |s| {
            s.contains("verify: bad at 8 KiB")
        });
        drop(spoiler);
    }
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    let text = history(&tmux);
    let json = std::fs::read(dir.path().join("tv.json"))
        .unwrap_or_else(|e| panic!("tv.json: {e}; the pane:\n{text}"));
    (text, serde_json::from_slice(&json).unwrap())
}

#[test]
fn a_tui_run_with_verify_keeps_its_result_in_the_summary_json_and_exit_status() {
    if !tmux_installed() {
        return;
    }
    let (text, v) = tui_verify("tuiverify", true);
    assert!(text.contains("diskscope-exit=3"), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("verify: "))
        .unwrap_or_else(|| panic!("no verify line in the summary:\n{text}"));
    assert!(!line.contains(" 0 not this run's"), "{line}");
    assert!(!text.contains("findings: none"), "{text}");
    assert!(text.contains("not this run's data in"), "{text}");
    let verify = &v["verify"];
    assert_eq!(verify["mode"], "verify", "{v}");
    let bad = verify["bad"].as_array().unwrap();
    assert!(bad.iter().any(|e| e["offset"] == SPOILED), "{verify}");
    let kinds: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"verify_bad"), "{kinds:?}");
    assert!(verify["written_bytes"].as_u64().unwrap() > 0, "{verify}");
    assert!(verify["verified_bytes"].as_u64().unwrap() > 0, "{verify}");
}

#[test]
fn a_clean_tui_run_with_verify_has_its_verify_result_and_exits_0() {
    if !tmux_installed() {
        return;
    }
    let (text, v) = tui_verify("tuiclean", false);
    assert!(text.contains("diskscope-exit=0"), "{text}");
    assert!(text.contains("\nverify: "), "{text}");
    assert!(text.contains("every block came back as written"), "{text}");
    assert_eq!(v["verify"]["counts"]["corrupt"], 0, "{v}");
    assert!(v["verify"]["counts"]["intact"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn p_pauses_and_resumes_a_burn_in_and_never_starts_a_surface_scan() {
    if !tmux_installed() {
        return;
    }
    let dir = workdir();
    common::make_file(&dir.path().join("data"), 128 << 20);
    let shell = format!(
        "cd {} && XDG_STATE_HOME={}/state {} data --burn-in --allow-write -b 4k -t 1; \
         echo EXIT=$?; sleep 30",
        dir.path().display(),
        dir.path().display(),
        bin()
    );
    let tmux = Tmux::start("burnpause", (100, 30), &shell);
    tmux.wait_for("the burn-in", Duration::from_secs(30), |s| {
        s.contains("stamped blocks written")
    });
    tmux.keys(&["p"]);
    tmux.wait_for("the pause", Duration::from_secs(20), |s| {
        s.contains("burn-in paused")
    });
    tmux.keys(&["p"]);
    tmux.wait_for("the resume", Duration::from_secs(20), |s| {
        s.contains("burn-in resumed")
    });
    tmux.wait_for("the end", Duration::from_secs(120), |s| {
        s.contains("every block came back as written")
    });
    tmux.keys(&["q"]);
    let out = tmux.wait_for("the report", Duration::from_secs(20), |s| {
        s.contains("EXIT=")
    });
    assert!(out.contains("EXIT=0"), "{out}");
    assert!(
        out.contains("32768 intact, 0 corrupt"),
        "the whole burn-in: {out}"
    );
    assert!(!out.contains("stopped early"), "{out}");
    let surface = dir.path().join("state/diskscope/surface");
    let left: Vec<_> = std::fs::read_dir(&surface)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "no surface scan ran: {left:?}");
}
