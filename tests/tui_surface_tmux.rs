//! The surface screen end to end at 80x24, the real binary in tmux: `--surface` in a terminal
//! fills the map and the curve and says when it is done, q prints the map on the normal
//! screen and saves `--json FILE`; on a disk that misbehaves on cue (root: FUSE and a loop
//! device), `S` from the run screen pauses the run and scans its target, `p` pauses and
//! resumes the scan, the read error is in the map, and Esc goes back to the run. Skipped
//! with a note when tmux is not installed.

mod common;
mod fusedisk;
mod tmux_common;

use std::time::Duration;

use fusedisk::{Behaviour, FuseDisk};
use tmux_common::{Tmux, bin, tmux_installed, wait_gone};

const WAIT: Duration = Duration::from_secs(90);
const MIB: u64 = 1 << 20;

#[test]
fn the_surface_screen_fills_in_and_q_prints_the_map() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let file = dir.path().join("disk.img");
    common::make_file(&file, 64 << 20);
    let json = dir.path().join("scan.json");
    let shell = format!(
        "XDG_STATE_HOME={} {} {} --surface --json {}; echo EXITED $?; sleep 60",
        dir.path().join("state").display(),
        bin(),
        file.display(),
        json.display()
    );
    let t = Tmux::start("surface", (80, 24), &shell);
    let screen = t.wait_for("the scan to finish", WAIT, |s| s.contains(" · done"));
    let first = screen.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("full scan · done · 64 MiB of 64 MiB (100.0%)"),
        "{screen}"
    );
    assert!(screen.contains("no read errors"), "{screen}");
    assert!(screen.contains("map: a character per cell"), "{screen}");
    // 64 regions of 1 MiB: 64 characters of the fast bands on the map's first line.
    let map_row = screen
        .lines()
        .find(|l| l.starts_with("│.") || l.starts_with("│:"))
        .unwrap_or_default();
    let cells = map_row.trim_matches('│').trim_end();
    assert_eq!(cells.chars().count(), 64, "{screen}");
    assert!(cells.chars().all(|c| ".:-".contains(c)), "{screen}");
    assert!(
        screen.lines().last().unwrap_or_default().contains("q quit"),
        "{screen}"
    );
    t.keys(&["q"]);
    let after = t.wait_for("the exit", WAIT, |s| s.contains("EXITED"));
    assert!(after.contains("EXITED 0"), "{after}");
    assert!(
        after.contains("full scan of"),
        "the report on the normal screen: {after}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["surface"]["bytes_read"], 64 << 20);
}

#[test]
#[ignore = "needs root: FUSE mount and loop device"]
fn s_on_the_run_screen_scans_its_target_and_p_pauses_and_resumes() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let disk = match FuseDisk::start(
        dir.path(),
        &Behaviour {
            claim: 64 * MIB,
            slow: vec![(24 * MIB, 48 * MIB, 30)],
            eio: vec![(56 * MIB, 56 * MIB + 4096)],
            ..Behaviour::default()
        },
    ) {
        Ok(d) => d,
        Err(why) => return eprintln!("skipped: {why}"),
    };
    let shell = format!(
        "XDG_STATE_HOME={} {} {} -b 64k; echo EXITED $?; sleep 60",
        dir.path().join("state").display(),
        bin(),
        disk.path()
    );
    let t = Tmux::start("surface-run", (80, 24), &shell);
    t.wait_for("the run screen", WAIT, |s| s.contains("IOPS"));
    t.keys(&["S"]);
    t.wait_for("the surface screen", WAIT, |s| s.starts_with("full scan"));
    t.wait_for("the slow half", WAIT, |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains(" MiB of 64 MiB") && !l.contains(" 0 B of"))
    });
    t.keys(&["p"]);
    let paused = t.wait_for("the pause", WAIT, |s| s.contains(" · paused"));
    assert!(paused.contains("p resumes"), "{paused}");
    t.keys(&["p"]);
    let done = t.wait_for("the end of the scan", WAIT, |s| s.contains(" · done"));
    // The block layer merges the 64 KiB reads in flight: the failing request may take its
    // neighbours with it, before as well as after, so one or more errors, the first within
    // the MiB before 56 MiB ("first at 55.9 MiB" was seen) or at it.
    let first = done
        .split(" at ")
        .skip(1)
        .find_map(|w| w.split(" MiB").next()?.parse::<f64>().ok())
        .unwrap_or(-1.0);
    assert!(
        done.contains("read error") && (55.0..=56.0).contains(&first),
        "{done}"
    );
    let map: String = done
        .lines()
        .filter(|l| l.starts_with('│'))
        .skip(5)
        .map(|l| l.trim_matches('│').trim_end().to_string())
        .collect();
    assert!(map.contains('X'), "the read error's cell: {done}");
    t.keys(&["Escape"]);
    t.wait_for("the run screen again", WAIT, |s| {
        s.contains("back from the surface scan")
    });
    t.keys(&["q"]);
    let pid = t.process(disk.path());
    t.wait_for("the summary", WAIT, |s| s.contains("EXITED"));
    if let Some(pid) = pid {
        wait_gone(pid, WAIT);
    }
}

#[test]
fn a_scan_from_the_picker_left_with_esc_is_printed_and_saved_by_q_in_the_picker() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let json = dir.path().join("scan.json");
    let shell = format!(
        "cd '{}' && XDG_STATE_HOME=state {} --size 16M --json {}; echo EXITED $?; sleep 60",
        dir.path().display(),
        bin(),
        json.display()
    );
    let t = Tmux::start("surface-picker", (80, 24), &shell);
    t.wait_for("the picker", WAIT, |s| s.contains("scratch file here"));
    t.keys(&["S"]);
    let done = t.wait_for("the scan to finish", WAIT, |s| s.contains(" · done"));
    assert!(done.contains("Esc back"), "{done}");
    assert!(
        !done.contains("p resume"),
        "a finished scan is not resumed: {done}"
    );
    t.keys(&["Escape"]);
    t.wait_for("the picker again", WAIT, |s| {
        s.contains("scratch file here")
    });
    t.keys(&["q"]);
    let after = t.wait_for("the exit", WAIT, |s| s.contains("EXITED"));
    assert!(after.contains("EXITED 0"), "{after}");
    assert!(!after.contains("nothing was run"), "{after}");
    assert!(after.contains("full scan of"), "the map printed: {after}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["surface"]["bytes_read"], 16 << 20, "{doc}");
}

#[test]
fn a_scan_from_the_run_screen_is_saved_with_the_runs_results() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let file = dir.path().join("disk.img");
    common::make_file(&file, 32 << 20);
    let json = dir.path().join("run.json");
    let shell = format!(
        "XDG_STATE_HOME={} {} {} --json {}; echo EXITED $?; sleep 60",
        dir.path().join("state").display(),
        bin(),
        file.display(),
        json.display()
    );
    let t = Tmux::start("surface-of-run", (80, 24), &shell);
    t.wait_for("the run screen", WAIT, |s| s.contains("IOPS"));
    t.keys(&["S"]);
    t.wait_for("the scan to finish", WAIT, |s| s.contains(" · done"));
    t.keys(&["Escape"]);
    let back = t.wait_for("the run screen again", WAIT, |s| {
        s.contains("back from the surface scan")
    });
    assert!(
        back.contains("saved with the run") && !back.contains("not saved"),
        "{back}"
    );
    t.keys(&["q"]);
    let after = t.wait_for("the exit", WAIT, |s| s.contains("EXITED"));
    assert!(after.contains("EXITED 0"), "{after}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(doc["surface"]["surface"]["bytes_read"], 32 << 20, "{doc}");
    assert_eq!(doc["surface"]["surface"]["complete"], true);
    assert!(
        doc["total"].is_object(),
        "the run's own results are there too"
    );
}
