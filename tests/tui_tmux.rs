//! End to end: the real binary in a real terminal (tmux), on a scratch file in a temporary
//! directory. Keys go in with `send-keys`, the screen comes back with `capture-pane`: pick the
//! scratch file, raise threads, double the block size, pause, quit, and find the summary on
//! the normal screen afterwards; run sweeps (`--sweep`, then `s t`), save one with `e`, and
//! find the sweep's table after quitting. Skipped with a note when tmux is not installed.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Whether tmux can run; when not, says the test is skipped.
fn tmux_installed() -> bool {
    let ok = Command::new("tmux").arg("-V").output().is_ok();
    if !ok {
        eprintln!("note: tmux is not installed; skipping the TUI end-to-end test");
    }
    ok
}

/// A tmux server on its own socket, killed on drop whatever happens in the test.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// A new server on a socket named `name` and this process's id, running `shell` in a
    /// session named e2e of the given size.
    fn start(name: &str, size: (&str, &str), shell: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
        };
        let out = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            size.0,
            "-y",
            size.1,
            shell,
        ]);
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("running tmux")
    }

    fn keys(&self, keys: &[&str]) {
        for k in keys {
            let out = self.run(&["send-keys", "-t", "e2e", k]);
            assert!(
                out.status.success(),
                "send-keys {k}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    /// Waits until `ok(screen)`, or fails showing the last screen.
    fn wait_for(&self, what: &str, timeout: Duration, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A sweep's finding is on the screen: a saturation, or a curve still rising at its end.
fn has_finding(screen: &str) -> bool {
    screen.contains("saturates at") || screen.contains("no saturation within this sweep")
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// The value at the right end of a slider's line, e.g. "2" for threads.
fn slider(screen: &str, label: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains(&format!(" {label} ")))?;
    let inside = line.split('│').nth(1)?;
    inside.split_whitespace().last().map(str::to_string)
}

#[test]
fn tui_raise_threads_change_block_size_pause_and_quit() {
    if !tmux_installed() {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_diskscope");
    let shell = format!(
        "cd '{}' && '{bin}' --size 64M; echo diskscope-exit=$?; sleep 60",
        dir.path().display()
    );
    let tmux = Tmux::start("diskscope-e2e", ("100", "30"), &shell);

    let picker = tmux.wait_for("the picker", Duration::from_secs(15), |s| {
        s.contains("scratch file here")
    });
    assert!(
        picker.contains("▶ scratch file here"),
        "the scratch file is selected:\n{picker}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("the run screen", Duration::from_secs(60), |s| {
        s.contains("IOPS now") && slider(s, "threads").as_deref() == Some("1")
    });
    assert!(dir.path().join("diskscope.scratch").exists());

    tmux.keys(&["+"]);
    tmux.wait_for("2 threads", Duration::from_secs(10), |s| {
        slider(s, "threads").as_deref() == Some("2") && s.contains("threads: 2 active")
    });
    tmux.keys(&["Tab", "Tab", "Right"]);
    tmux.wait_for("8k blocks", Duration::from_secs(10), |s| {
        slider(s, "block size").as_deref() == Some("8k")
    });
    tmux.keys(&["Space"]);
    tmux.wait_for("the paused marker", Duration::from_secs(10), |s| {
        s.contains("PAUSED")
    });
    tmux.keys(&["Space"]);
    tmux.wait_for("resumed", Duration::from_secs(10), |s| {
        !s.contains("PAUSED")
    });

    tmux.keys(&["q"]);
    let end = tmux.wait_for("the summary", Duration::from_secs(20), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
    assert!(end.contains("total over"), "{end}");
    assert!(
        end.contains("thread   1:"),
        "the second thread is in the summary:\n{end}"
    );
    assert!(
        !end.contains("IOPS now"),
        "the alternate screen is gone:\n{end}"
    );
    assert!(
        !Path::new(&dir.path().join("diskscope.scratch")).exists(),
        "the scratch file is removed"
    );
}

/// The pid of the shell's child (the diskscope process) in the tmux pane.
fn child_of_pane(tmux: &Tmux) -> Option<u32> {
    let out = tmux.run(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"]);
    let shell: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).ok()?;
    children.split_whitespace().next()?.parse().ok()
}

#[test]
fn tui_sigterm_sighup_and_sigint_restore_the_terminal_and_print_the_summary() {
    if !tmux_installed() {
        return;
    }
    use nix::sys::signal::Signal;
    for (sig, code) in [
        (Signal::SIGTERM, 143),
        (Signal::SIGHUP, 129),
        (Signal::SIGINT, 130),
    ] {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
        let bin = env!("CARGO_BIN_EXE_diskscope");
        // A directory as TARGET skips the picker and lays out the scratch file inside it.
        // The state directory under the test's own: SIGHUP keeps the run there.
        let shell = format!(
            "XDG_STATE_HOME='{0}/state' '{bin}' '{0}' --size 32M -t 4; echo diskscope-exit=$?; sleep 60",
            dir.path().display()
        );
        let tmux = Tmux::start(
            &format!("diskscope-e2e-sig-{}", sig as i32),
            ("80", "24"),
            &shell,
        );
        tmux.wait_for("the run screen", Duration::from_secs(60), |s| {
            s.contains("IOPS now")
        });
        let pid = child_of_pane(&tmux).expect("the diskscope process");
        let sent = std::time::Instant::now();
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), sig).expect("kill");
        let end = tmux.wait_for("the exit", Duration::from_secs(20), |s| {
            s.contains("diskscope-exit=")
        });
        // Workers stop within a second; the poll of the screen adds a little.
        assert!(
            sent.elapsed() < Duration::from_secs(2),
            "{sig}: exit took {:?}",
            sent.elapsed()
        );
        assert!(
            end.contains(&format!("diskscope-exit={code}")),
            "{sig}: {end}"
        );
        assert!(
            end.contains(&format!("stopped early by {}", sig.as_str())),
            "{end}"
        );
        assert!(
            !end.contains("IOPS now"),
            "{sig}: the alternate screen is gone:\n{end}"
        );
        assert!(
            !dir.path().join("diskscope.scratch").exists(),
            "{sig}: the scratch file is removed"
        );
        // A hang-up is the terminal going away: the run is kept (nothing else saved it).
        let kept = std::fs::read_dir(dir.path().join("state/diskscope"))
            .map(|d| d.filter_map(Result::ok).count())
            .unwrap_or(0);
        let want = if sig == Signal::SIGHUP { 2 } else { 0 }; // the result and the notice
        assert_eq!(kept, want, "{sig}");
    }
}

#[test]
fn tui_sweeps_export_and_quit_to_the_sweep_summary() {
    if !tmux_installed() {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_diskscope");
    // -T with --sweep is the time per step; `s t` later uses it too.
    let shell = format!(
        "cd '{}' && '{bin}' . --size 32M --sweep threads=1..4 -T 1s --json=final.json; echo diskscope-exit=$?; sleep 60",
        dir.path().display()
    );
    let tmux = Tmux::start("diskscope-e2e-sweep", ("80", "24"), &shell);
    tmux.wait_for("the sweep's progress", Duration::from_secs(60), |s| {
        s.contains("sweep threads: step")
    });
    let chart = tmux.wait_for("the sweep's chart", Duration::from_secs(30), |s| {
        has_finding(s) && s.contains("IOPS vs threads")
    });
    assert!(
        chart.contains("IO/s") && chart.contains("Mbit/s"),
        "{chart}"
    );

    // Back to the run, then a sweep from the keyboard: threads 1..64, 1 s per step.
    tmux.keys(&["Enter"]);
    tmux.wait_for("the run screen", Duration::from_secs(10), |s| {
        s.contains("IOPS now")
    });
    tmux.keys(&["s", "t"]);
    tmux.wait_for("the keyboard sweep", Duration::from_secs(10), |s| {
        s.contains("step 1/7") || s.contains("step 2/7")
    });
    let chart = tmux.wait_for("the 64-thread step", Duration::from_secs(60), |s| {
        has_finding(s) && s.lines().any(|l| l.trim_start().starts_with("64 "))
    });
    assert!(chart.contains("sweep of threads (7"), "{chart}");

    tmux.keys(&["e"]);
    let saved = tmux.wait_for("the saved notice", Duration::from_secs(10), |s| {
        s.contains("saved the sweep to")
    });
    let json = std::fs::read_dir(dir.path())
        .expect("read dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("diskscope-") && n.ends_with(".json"))
        })
        .unwrap_or_else(|| panic!("no diskscope-*.json in the directory:\n{saved}"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("read json")).expect("json");
    let steps = v["steps"].as_array().expect("a steps array");
    assert_eq!(steps.len(), 7, "{v}");
    assert_eq!(steps[6]["threads"], 64);
    // Its chart beside it, both named on the status line.
    assert!(saved.contains("and its chart to"), "{saved}");
    let svg = std::fs::read_to_string(json.with_extension("svg")).expect("the chart beside it");
    assert!(svg.contains("<desc>diskscope chart: ") && svg.contains("threads"));

    tmux.keys(&["q"]);
    let end = tmux.wait_for("the summary", Duration::from_secs(20), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
    assert!(has_finding(&end), "the sweep's finding:\n{end}");
    assert!(
        end.contains("IO/s") && end.contains("Mbit/s"),
        "the sweep's table:\n{end}"
    );
    assert!(
        !end.contains("IOPS vs threads"),
        "the alternate screen is gone:\n{end}"
    );
}

/// The process state letter of `pid` (R, S, T for stopped …).
fn state_of(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')').next()?.trim_start().chars().next()
}

#[test]
fn tui_ctrl_z_pauses_the_run_and_fg_resumes_it_without_a_stop_in_the_figures() {
    if !tmux_installed() {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_diskscope");
    // An interactive shell with job control, as over ssh: Ctrl-Z stops, `fg` continues.
    let tmux = Tmux::start(
        "diskscope-ctrlz",
        ("100", "30"),
        "bash --norc --noprofile -i",
    );
    tmux.keys(&[
        &format!(
            "cd '{}' && '{bin}' --size 64M --buffered --json=run.json",
            dir.path().display()
        ),
        "Enter",
    ]);
    tmux.wait_for("the picker", Duration::from_secs(15), |s| {
        s.contains("scratch file here")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the run screen", Duration::from_secs(60), |s| {
        s.contains("IOPS now")
    });
    std::thread::sleep(Duration::from_secs(2));
    let pid = child_of_pane(&tmux).expect("the diskscope process");
    let wall = Instant::now();
    tmux.keys(&["C-z"]);
    let stopped = Instant::now();
    while state_of(pid) != Some('T') {
        assert!(
            stopped.elapsed() < Duration::from_secs(10),
            "Ctrl-Z did not stop it"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    tmux.keys(&["fg; echo fg-exit=$?", "Enter"]);
    tmux.wait_for(
        "the run screen again, running",
        Duration::from_secs(10),
        |s| s.contains("IOPS now") && !s.contains("PAUSED"),
    );
    std::thread::sleep(Duration::from_secs(2));
    tmux.keys(&["q"]);
    // The line echoed, not the command typed (a summary that fits the pane leaves that on
    // screen).
    let end = tmux.wait_for("the summary", Duration::from_secs(20), |s| {
        s.lines().any(|l| l.starts_with("fg-exit="))
    });
    let wall = wall.elapsed().as_secs_f64();
    assert!(end.contains("fg-exit=0"), "{end}");
    // The summary is wrapped to the terminal: read it as words.
    let words = end.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("with 0 ops left out"),
        "paused before the stop:\n{end}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("run.json")).unwrap())
            .unwrap();
    let max_ns = v["total"]["latency_ns"]["max"].as_f64().unwrap();
    assert!(
        max_ns < 1e9,
        "a latency of {max_ns} ns: the stop was timed as I/O"
    );
    // The 3 s spent stopped are not run time.
    let run_s = v["total"]["elapsed_s"].as_f64().unwrap();
    assert!(
        run_s < 2.0 + wall - 2.5,
        "run time {run_s:.1}s of {wall:.1}s wall includes the stop"
    );
}

#[test]
fn term_dumb_gets_text_like_a_non_terminal() {
    if !tmux_installed() {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_diskscope");
    let shell = format!(
        "cd '{}' && TERM=dumb '{bin}' --size 8M -T 2s; echo diskscope-exit=$?; sleep 60",
        dir.path().display()
    );
    let tmux = Tmux::start("diskscope-dumb", ("100", "30"), &shell);
    let end = tmux.wait_for("the text summary", Duration::from_secs(60), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
    assert!(end.contains("total over"), "{end}");
    assert!(!end.contains("IOPS now"), "{end}");
}

/// The run told setting by setting: threads raised twice (1 → 2 → 4) and the block size
/// doubled, each change marked on the sparklines; on quit the summary has a row per period
/// before the totals "all periods together", and the JSON saved at quit has the periods in
/// that order, their ops adding up to the total and each equal to its intervals' ops, and
/// as many latencies as ops.
#[test]
fn tui_changes_are_periods_in_the_summary_and_the_json() {
    if !tmux_installed() {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let bin = env!("CARGO_BIN_EXE_diskscope");
    let shell = format!(
        "cd '{}' && '{bin}' --size 64M --json=run.json; echo diskscope-exit=$?; sleep 60",
        dir.path().display()
    );
    let tmux = Tmux::start("diskscope-periods", ("100", "30"), &shell);
    tmux.wait_for("the picker", Duration::from_secs(15), |s| {
        s.contains("scratch file here")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the run screen", Duration::from_secs(60), |s| {
        s.contains("IOPS now") && slider(s, "threads").as_deref() == Some("1")
    });
    std::thread::sleep(Duration::from_secs(2));
    tmux.keys(&["+"]);
    tmux.wait_for("2 threads, marked", Duration::from_secs(10), |s| {
        slider(s, "threads").as_deref() == Some("2") && s.contains("T2")
    });
    std::thread::sleep(Duration::from_secs(2));
    tmux.keys(&["Right"]);
    tmux.wait_for("4 threads, marked", Duration::from_secs(10), |s| {
        slider(s, "threads").as_deref() == Some("4") && s.contains("T4")
    });
    std::thread::sleep(Duration::from_secs(2));
    tmux.keys(&["Tab", "Tab", "Right"]);
    tmux.wait_for("8k blocks", Duration::from_secs(10), |s| {
        slider(s, "block size").as_deref() == Some("8k")
    });
    std::thread::sleep(Duration::from_secs(2));
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the summary", Duration::from_secs(20), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
    let names = [
        "4k random read QD1 T1",
        "4k random read QD1 T2",
        "4k random read QD1 T4",
        "8k random read QD1 T4",
    ];
    let rows: Vec<&str> = end
        .lines()
        .filter(|l| names.iter().any(|n| l.contains(n)))
        .collect();
    assert_eq!(rows.len(), 4, "a row per period:\n{end}");
    for (row, name) in rows.iter().zip(names) {
        assert!(row.contains(name), "periods in order:\n{end}");
    }
    assert!(end.contains("all periods together:"), "{end}");

    let text = std::fs::read_to_string(dir.path().join("run.json")).expect("run.json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let periods = v["periods"].as_array().expect("periods");
    let settings: Vec<(u64, u64)> = periods
        .iter()
        .map(|p| {
            let s = &p["settings"];
            (s["threads"].as_u64().unwrap(), s["bs"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(settings, [(1, 4096), (2, 4096), (4, 4096), (4, 8192)]);
    let ops = |x: &serde_json::Value| x["ops"].as_u64().unwrap();
    let total = ops(&v["total"]);
    assert_eq!(periods.iter().map(ops).sum::<u64>(), total);
    let intervals = v["intervals"].as_array().unwrap();
    for (i, p) in periods.iter().enumerate() {
        let mine = intervals
            .iter()
            .filter(|r| r["period"].as_u64() == Some(i as u64));
        assert_eq!(mine.map(ops).sum::<u64>(), ops(p), "period {i}'s intervals");
        assert_eq!(p["latency_ns"]["count"].as_u64(), Some(ops(p)));
        assert!(ops(p) > 0, "period {i} did I/O");
    }
    let histogram: u64 = v["latency_log2_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(histogram, total);
    assert!(v["meta"]["version"].is_string());
}
