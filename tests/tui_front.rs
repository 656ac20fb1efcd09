//! End to end in a real terminal (tmux), issue 19: what the admin loses or misreads at the
//! front door of the TUI. Leaving a setup screen says what happened; quitting a suite or a
//! sweep midway prints and saves what was measured; a terminal that goes away (the tmux
//! server killed, as a dropped ssh connection) keeps the result in the state directory and
//! the next start says so once. `DISKSCOPE_BIN` runs another build (see `tmux_common`).

mod common;
mod tmux_common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::sys::signal::Signal;
use tmux_common::{Tmux, bin, tmux_installed, wait_gone};

/// The screen and its scrollback, for a summary longer than the pane.
fn history(tmux: &Tmux) -> String {
    let out = tmux.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", "e2e"]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `args` in a pane of `dir`, then echoes the exit status, with the state directory in
/// `dir/state`.
fn pane(name: &str, dir: &Path, args: &str) -> Tmux {
    let shell = format!(
        "cd '{}' && XDG_STATE_HOME='{}/state' '{}' {args}; echo diskscope-exit=$?; sleep 60",
        dir.display(),
        dir.display(),
        bin()
    );
    Tmux::start(name, (160, 50), &shell)
}

fn exit_line(tmux: &Tmux) -> String {
    tmux.wait_for("the exit", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    history(tmux)
}

fn kill(tmux: &Tmux, sig: Signal) {
    let pid = tmux.process("diskscope").expect("the diskscope process");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), sig).expect("kill");
}

/// The results kept in the state directory under `dir`.
fn kept(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir.join("state/diskscope"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.extension().is_some_and(|e| e == "json"));
    found.sort();
    found
}

#[test]
fn leaving_the_setup_screens_says_what_happened() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let d = dir.path();
    let tmux = pane("front-picker", d, "");
    tmux.wait_for("the picker", Duration::from_secs(15), |s| {
        s.contains("scratch file here")
    });
    tmux.keys(&["q"]);
    let end = exit_line(&tmux);
    assert!(
        end.contains("diskscope: quit in the picker; nothing was run"),
        "{end}"
    );
    assert!(end.contains("diskscope-exit=0"), "{end}");
    drop(tmux);

    // A layout stopped by a key or a signal: what it was doing, and that its file is gone.
    for (how, said, code) in [
        ("Escape", "cancelled", 0),
        ("C-c", "cancelled", 0),
        ("SIGTERM", "SIGTERM", 143),
    ] {
        let tmux = pane(&format!("front-layout-{how}"), d, "--size 8G");
        tmux.wait_for("the picker", Duration::from_secs(15), |s| {
            s.contains("scratch file here")
        });
        tmux.keys(&["Enter"]);
        tmux.wait_for("the layout", Duration::from_secs(15), |s| {
            s.contains(" of 8 GiB")
        });
        if how == "SIGTERM" {
            kill(&tmux, Signal::SIGTERM);
        } else {
            tmux.keys(&[how]);
        }
        let end = exit_line(&tmux);
        let line = format!("diskscope: {said} while laying out ./diskscope.scratch (");
        assert!(end.contains(&line), "{how}: {end}");
        assert!(
            end.contains("the partial file was removed; nothing was run"),
            "{end}"
        );
        assert!(
            end.contains(&format!("diskscope-exit={code}")),
            "{how}: {end}"
        );
        assert!(!d.join("diskscope.scratch").exists(), "{how}");
    }
}

#[test]
#[ignore = "needs root: a loop device for the write confirmation"]
fn ctrl_c_at_the_write_confirmation_says_so() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let dev = common::LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let tmux = pane(
        "front-confirm",
        dir.path(),
        &format!("{} --allow-write", dev.path),
    );
    tmux.wait_for("the confirmation", Duration::from_secs(15), |s| {
        s.contains("allow writes to")
    });
    tmux.keys(&["C-c"]);
    let end = exit_line(&tmux);
    let line = format!(
        "quit at the write confirmation for {}; nothing was run",
        dev.path
    );
    assert!(end.contains(&line), "{end}");
    assert!(end.contains("diskscope-exit=0"), "{end}");
}

/// Quitting while the standard suite runs (its first test measured once): the card so far
/// is printed on the normal screen and saved to --json FILE, marked as stopped early by
/// what quit, its first test saying it ran 1 of 3 passes.
#[test]
fn quitting_mid_suite_prints_and_saves_the_card_so_far() {
    if !tmux_installed() {
        return;
    }
    for (how, by, code) in [
        ("q", "the q key", 0),
        ("C-c", "Ctrl-C", 0),
        ("SIGTERM", "SIGTERM", 143),
        ("SIGHUP", "SIGHUP", 129),
    ] {
        let dir = common::workdir();
        let d = dir.path();
        let tmux = pane(
            &format!("front-suite-{how}"),
            d,
            ". --size 32M --json=card.json",
        );
        tmux.wait_for("the run screen", Duration::from_secs(60), |s| {
            s.contains("IOPS now")
        });
        tmux.keys(&["c"]);
        tmux.wait_for("the second pass", Duration::from_secs(30), |s| {
            s.contains("pass 2/3")
        });
        match how {
            "SIGTERM" => kill(&tmux, Signal::SIGTERM),
            "SIGHUP" => kill(&tmux, Signal::SIGHUP),
            key => tmux.keys(&[key]),
        }
        let end = exit_line(&tmux);
        assert!(
            end.contains(&format!("diskscope-exit={code}")),
            "{how}: {end}"
        );
        assert!(
            end.contains(&format!("(stopped early by {by})")),
            "{how}: {end}"
        );
        assert!(
            end.contains("SEQ1M Q8T1 read: 1 of 3 passes"),
            "{how}: {end}"
        );
        assert!(
            end.contains("SEQ1M Q8T1") && end.contains("MB/s (1 of 3 passes)"),
            "{end}"
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("card.json")).unwrap()).unwrap();
        assert_eq!(v["suite"], "standard", "{how}");
        assert_eq!(v["interrupted_by"], by, "{how}");
        assert_eq!(v["tests"][0]["read"]["passes"].as_array().unwrap().len(), 1);
        // --json FILE holds it: nothing is kept in the state directory, SIGHUP or not.
        assert!(kept(d).is_empty(), "{how}: {:?}", kept(d));
    }
    // SIGHUP without --json FILE: the card so far is kept in the state directory.
    let dir = common::workdir();
    let d = dir.path();
    let tmux = pane("front-suite-kept", d, ". --size 32M");
    tmux.wait_for("the run screen", Duration::from_secs(60), |s| {
        s.contains("IOPS now")
    });
    tmux.keys(&["c"]);
    tmux.wait_for("the second pass", Duration::from_secs(30), |s| {
        s.contains("pass 2/3")
    });
    kill(&tmux, Signal::SIGHUP);
    let end = exit_line(&tmux);
    assert!(end.contains("diskscope-exit=129"), "{end}");
    let kept = kept(d);
    assert_eq!(kept.len(), 1, "{end}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&kept[0]).unwrap()).unwrap();
    assert_eq!(
        (&v["suite"], &v["interrupted_by"]),
        (&"standard".into(), &"SIGHUP".into())
    );
    assert!(end.contains("SIGHUP: the result is kept in"), "{end}");
}

/// Quitting while a sweep runs: the steps measured are printed and saved, marked.
#[test]
fn quitting_mid_sweep_prints_and_saves_the_steps_so_far() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let d = dir.path();
    let args = ". --size 32M --sweep threads=1..8 -T 1s --json=sweep.json";
    let tmux = pane("front-sweep", d, args);
    tmux.wait_for("the third step", Duration::from_secs(60), |s| {
        s.contains("step 3/4")
    });
    tmux.keys(&["q"]);
    let end = exit_line(&tmux);
    assert!(end.contains("diskscope-exit=0"), "{end}");
    assert!(end.contains("(stopped early by the q key after 2"), "{end}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(v["steps"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["interrupted_by"], "the q key");
}

/// Starts `command` in an interactive shell (job control, as over ssh), waits for `ready`
/// on the screen with a second of run, kills the tmux server and waits for diskscope to end;
/// returns the last screen.
fn drop_connection(dir: &Path, command: &str, ready: &str) -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let name = format!(
        "front-drop-{}",
        N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    );
    let tmux = Tmux::start(&name, (120, 40), "bash --norc --noprofile -i");
    let state = dir.join("state");
    // Between the shell and diskscope, a shell that outlives the hang-up (a trap, not an
    // ignore, so diskscope gets SIGHUP as it would) and writes diskscope's exit status: a
    // failure then says how the run ended, not only that nothing was kept.
    let exit = dir.join(format!("{name}.exit"));
    tmux.keys(&[
        &format!(
            "cd '{}' && export XDG_STATE_HOME='{}' && bash -c \"trap : HUP; '{}' {command}; echo \\$? > '{}'\"",
            dir.display(),
            state.display(),
            bin(),
            exit.display()
        ),
        "Enter",
    ]);
    let screen = wait_running(&tmux, ready);
    let pid = tmux.process("diskscope").expect("the diskscope process");
    tmux.hang_up();
    wait_gone(pid, Duration::from_secs(20));
    let mut code = None;
    for _ in 0..50 {
        code = std::fs::read_to_string(&exit)
            .ok()
            .filter(|t| t.ends_with('\n'));
        if code.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let code = code.map_or("none written".into(), |c| c.trim().to_string());
    format!("{screen}\n(diskscope's exit status: {code})")
}

/// Whether `screen` shows a second of run time or more: the TUI's elapsed ("│ 1.2s │") or a
/// headless row ("    1.0s   84.8k IOPS").
fn ran_a_second(screen: &str) -> bool {
    screen
        .split(|c: char| c.is_whitespace() || c == '│')
        .any(|w| {
            w.strip_suffix('s')
                .filter(|n| n.contains('.'))
                .and_then(|n| n.parse::<f64>().ok())
                .is_some_and(|t| t >= 1.0)
        })
}

/// Waits for `ready` and a second of run on the screen (the run's own output, not a timer:
/// a hang-up while the scratch file was still laid out kept nothing); returns the screen.
fn wait_running(tmux: &Tmux, ready: &str) -> String {
    let what = format!("{ready:?} and a second of run");
    tmux.wait_for(&what, Duration::from_secs(60), |s| {
        s.contains(ready) && ran_a_second(s)
    })
}

/// The same, with diskscope run by a shell that survives the hang-up and writes its exit
/// status, and SIGHUP ignored (as `nohup` leaves it): diskscope gets no signal, only a
/// terminal that fails every write (EIO) and whose input ends. Returns its exit status and the
/// last screen.
fn lose_terminal(dir: &Path, command: &str, ready: &str) -> (i32, String) {
    let shell = format!(
        "bash -c \"trap '' HUP; cd '{d}' && XDG_STATE_HOME='{d}/state' '{b}' {command}; echo \\$? > '{d}/exit'\"",
        d = dir.display(),
        b = bin()
    );
    let _ = std::fs::remove_file(dir.join("exit"));
    let name = format!("front-lose-{}", command.len());
    let tmux = Tmux::start(&name, (120, 40), &shell);
    let screen = wait_running(&tmux, ready);
    tmux.hang_up();
    let exit = dir.join("exit");
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(&exit)
            && let Ok(code) = text.trim().parse()
        {
            return (code, screen);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "no exit status in {}; the last screen:\n{screen}",
        exit.display()
    );
}

#[test]
fn a_dropped_terminal_keeps_the_result_and_the_next_start_says_so() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let d = dir.path();
    // The TUI, sent SIGHUP by the interactive shell as the connection drops.
    let screen = drop_connection(d, ". --size 16M", "IOPS now");
    assert!(screen.ends_with("exit status: 129)"), "{screen}");
    let first = kept(d);
    assert_eq!(first.len(), 1, "{first:?}; the last screen:\n{screen}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&first[0]).unwrap()).unwrap();
    assert!(v["total"]["ops"].as_u64().unwrap() > 0, "a run: {v}");
    assert_eq!(v["interrupted_by"], "SIGHUP");
    let mode = std::fs::metadata(d.join("state/diskscope"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    assert!(!d.join("diskscope.scratch").exists());
    // With --json FILE the result is there, and nothing is kept besides. (This start in a
    // terminal says the notice of the first.)
    let screen = drop_connection(d, ". --size 16M --json=run.json", "IOPS now");
    assert_eq!(
        kept(d).len(),
        1,
        "{:?}; the last screen:\n{screen}",
        kept(d)
    );
    let saved = std::fs::read_to_string(d.join("run.json"))
        .unwrap_or_else(|e| panic!("run.json: {e}; the last screen:\n{screen}"));
    let v: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert!(v["total"].is_object());
    // The TUI whose terminal fails under it (no signal): ends as a hang-up, 129, kept.
    let (code, screen) = lose_terminal(d, ". --size 16M", "IOPS now");
    assert_eq!(code, 129, "the last screen:\n{screen}");
    assert_eq!(
        kept(d).len(),
        2,
        "{:?}; the last screen:\n{screen}",
        kept(d)
    );
    // Headless, on a terminal: the same, SIGHUP or not.
    let screen = drop_connection(d, ". --size 16M --no-tui -T 60s", "IOPS");
    assert_eq!(
        kept(d).len(),
        3,
        "{:?}; the last screen:\n{screen}",
        kept(d)
    );
    let (code, screen) = lose_terminal(d, ". --size 16M --no-tui -T 3s", "IOPS");
    assert_eq!(code, 0, "the last screen:\n{screen}");
    assert_eq!(
        kept(d).len(),
        4,
        "{:?}; the last screen:\n{screen}",
        kept(d)
    );

    // The next start in a terminal says so, once; --show last opens the newest.
    let twice = format!(
        "--size 8M -T 0.2s -q --no-tui; XDG_STATE_HOME='{}/state' '{}' --size 8M -T 0.2s -q --no-tui",
        d.display(),
        bin()
    );
    let tmux = pane("front-notice", d, &twice);
    let end = exit_line(&tmux);
    let said = "the last run ended with the connection (";
    assert_eq!(end.matches(said).count(), 1, "{end}");
    assert!(end.contains("diskscope --show last"), "{end}");
    let out = std::process::Command::new(bin())
        .args(["--show", "last"])
        .env("XDG_STATE_HOME", d.join("state"))
        .current_dir(d)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(text.contains("total over"), "{text}");
    assert!(common::stderr(&out).contains(&kept(d)[3].display().to_string()));
}

/// A terminal whose locale is not UTF-8 — `LC_ALL=C`, no locale at all, or `LC_CTYPE=POSIX`
/// over a UTF-8 `LANG` (setlocale's order) — gets the screen, the help and the summary after
/// it in ASCII; a UTF-8 one still gets box drawing.
#[test]
fn a_terminal_without_utf8_gets_ascii_throughout() {
    if !tmux_installed() {
        return;
    }
    for (env, ascii) in [
        ("LC_ALL=C", true),
        ("-u LC_ALL -u LC_CTYPE -u LANG", true),
        ("-u LC_ALL LC_CTYPE=POSIX LANG=C.UTF-8", true),
        ("-u LC_ALL -u LC_CTYPE LANG=C.UTF-8", false),
    ] {
        let dir = common::workdir();
        let shell = format!(
            "cd '{}' && env {env} '{}' . --size 16M; echo diskscope-exit=$?; sleep 60",
            dir.path().display(),
            bin()
        );
        let tmux = Tmux::start(&format!("front-ascii-{}", env.len()), (80, 24), &shell);
        let screen = tmux.wait_for("the run screen", Duration::from_secs(60), |s| {
            s.contains("IOPS now")
        });
        tmux.keys(&["?"]);
        let help = tmux.wait_for("the help", Duration::from_secs(10), |s| {
            s.contains("PgUp PgDn scroll")
        });
        tmux.keys(&["Escape", "q"]);
        let end = exit_line(&tmux);
        assert!(end.contains("diskscope-exit=0"), "{env}: {end}");
        for (what, text) in [("screen", &screen), ("help", &help), ("summary", &end)] {
            assert_eq!(text.is_ascii(), ascii, "{env}: the {what}:\n{text}");
        }
        if ascii {
            assert!(
                screen.contains("+ controls: Tab/^v select"),
                "{env}: {screen}"
            );
            assert!(end.contains(" us "), "{env}: {end}");
        } else {
            assert!(
                screen.contains("┌ controls: Tab/↑↓ select"),
                "{env}: {screen}"
            );
        }
    }
    // Text without the TUI on such a terminal too.
    let dir = common::workdir();
    let shell = format!(
        "cd '{}' && LC_ALL=C '{}' . --size 8M -T 0.5s --no-tui; echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin()
    );
    let tmux = Tmux::start("front-ascii-text", (120, 40), &shell);
    let end = exit_line(&tmux);
    assert!(
        end.contains("diskscope-exit=0") && end.contains("total over"),
        "{end}"
    );
    assert!(end.is_ascii() && end.contains(" us "), "{end}");
}
