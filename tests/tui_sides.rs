//! End to end in a real terminal (tmux) at 80x24, issue 29: a run that reads and writes shows
//! each direction apart — a line each with its IOPS, bandwidth, p50 and p99 — agreeing with
//! the kernel pane's own diskscope r/s and w/s on the same screen, and its summary on quit
//! has a line per direction within 80 columns; a read-only run shows no write line.
//! `DISKSCOPE_BIN` runs another build (see `tmux_common`).

mod common;
mod tmux_common;

use std::path::Path;
use std::time::Duration;

use tmux_common::{Tmux, bin, tmux_installed};

/// Runs diskscope with `args` on `dir/data.img` in an 80x24 pane, then echoes its exit.
fn pane(name: &str, dir: &Path, args: &str) -> Tmux {
    let shell = format!(
        "cd '{}' && XDG_STATE_HOME='{}/state' '{}' data.img {args}; echo diskscope-exit=$?; sleep 60",
        dir.display(),
        dir.display(),
        bin()
    );
    Tmux::start(name, (80, 24), &shell)
}

/// "12.3k" and "950" as numbers.
fn number(s: &str) -> Option<f64> {
    match s.strip_suffix('k') {
        Some(k) => k.parse::<f64>().ok().map(|v| v * 1e3),
        None => s.parse().ok(),
    }
}

/// The IOPS on the screen's line for `side` ("read" or "write"), when it shows a number.
fn side_iops(screen: &str, side: &str) -> Option<f64> {
    let line = screen
        .lines()
        .find(|l| l.split_whitespace().next() == Some(side))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "IOPS")?;
    number(words[at - 1])
}

/// The diskscope column of the kernel pane's "r/s w/s" row: (reads/s, writes/s).
fn app_column(screen: &str) -> Option<(f64, f64)> {
    let row = screen.lines().find(|l| l.contains("r/s w/s"))?;
    let pane = row.split('│').find(|c| c.contains("r/s w/s"))?;
    let n: Vec<f64> = pane.split_whitespace().filter_map(number).collect();
    (n.len() == 4).then(|| (n[2], n[3]))
}

#[test]
fn a_mixed_run_shows_reads_and_writes_apart_at_80x24() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    common::make_file(&dir.path().join("data.img"), 32 << 20);
    let tmux = pane(
        "diskscope-sides",
        dir.path(),
        "--read 70 --allow-write=data.img",
    );
    let screen = tmux.wait_for(
        "read and write lines with figures",
        Duration::from_secs(30),
        |s| {
            side_iops(s, "read").is_some_and(|r| r > 0.0)
                && side_iops(s, "write").is_some_and(|w| w > 0.0)
                && app_column(s).is_some()
        },
    );
    let (r, w) = (
        side_iops(&screen, "read").unwrap(),
        side_iops(&screen, "write").unwrap(),
    );
    let (app_r, app_w) = app_column(&screen).unwrap();
    // The same second as the kernel pane's diskscope column, on the same frame.
    let close = |a: f64, b: f64| (a - b).abs() <= 0.01 * a.max(b) + 1.0;
    assert!(
        close(r, app_r) && close(w, app_w),
        "read {r} / write {w} against the kernel pane's {app_r} / {app_w}:\n{screen}"
    );
    for side in ["read ", "write"] {
        let line = screen
            .lines()
            .find(|l| l.trim_start().starts_with(side))
            .unwrap();
        assert!(
            line.contains("p50") && line.contains("p99") && line.contains("/s"),
            "{line}\n{screen}"
        );
    }
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the summary", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    let history = String::from_utf8_lossy(
        &tmux
            .run(&["capture-pane", "-p", "-S", "-", "-t", "e2e"])
            .stdout,
    )
    .into_owned();
    for side in ["  read ", "  write "] {
        let line = history
            .lines()
            .find(|l| l.starts_with(side) && l.contains(" ops "))
            .unwrap_or_else(|| panic!("no {side:?} line in the summary:\n{history}\n{end}"));
        assert!(line.contains("p99"), "{line}");
        assert!(line.chars().count() <= 80, "over 80 columns: {line}");
    }
}

#[test]
fn a_read_only_run_has_no_write_line() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    common::make_file(&dir.path().join("data.img"), 32 << 20);
    let tmux = pane("diskscope-sides-ro", dir.path(), "");
    let screen = tmux.wait_for("a second of figures", Duration::from_secs(30), |s| {
        app_column(s).is_some_and(|(r, _)| r > 0.0)
    });
    assert!(
        side_iops(&screen, "write").is_none() && side_iops(&screen, "read").is_none(),
        "{screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
}
