//! End to end at 80x24 in a real terminal (tmux), issue 29: what a new user over ssh expects
//! of a TUI. The hint line stays with a finding on screen and a cut message says the log has
//! it (`L` shows it whole); Esc goes back and never ends a run; `e` during a sweep says what it
//! saved; one key puts the rate back to unlimited; quitting after a minute asks once; the
//! summary fits 80 columns with each finding once; the picker completes a path with Tab, a
//! small terminal says how large it must be, and (as root) a loop device shows its backing
//! file. `DISKSCOPE_BIN` runs another build (see `tmux_common`).

mod tmux_common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use tmux_common::{Tmux, bin, tmux_installed, wait_gone};

const LONG: Duration = Duration::from_secs(60);

/// Runs diskscope with `args` in `dir` at 80x24; the exit status is echoed after it.
fn pane(name: &str, dir: &Path, args: &str) -> Tmux {
    let shell = format!(
        "cd '{}' && XDG_STATE_HOME='{}/state' '{}' {args}; echo diskscope-exit=$?; sleep 120",
        dir.display(),
        dir.display(),
        bin()
    );
    Tmux::start(name, (80, 24), &shell)
}

/// The pane and its scrollback with wrapped lines joined: a line longer than the terminal
/// comes back whole, as it was printed.
fn history(tmux: &Tmux) -> String {
    let out = tmux.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", "e2e"]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text inside an overlay's box, its lines joined with spaces (a wrapped sentence reads
/// whole again).
fn boxed_text(screen: &str) -> String {
    screen
        .lines()
        .filter_map(|l| {
            let a = l.find('│')?;
            let b = l.rfind('│')?;
            (b > a).then(|| l[a + '│'.len_utf8()..b].trim().to_string())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last line of the screen: the hint line.
fn bottom(screen: &str) -> &str {
    screen.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("")
}

/// A file of 1 GiB with no blocks: reads of its holes are fast, so on a disk the kernel calls
/// rotational (this machine's virtio disk) the rotational-flag finding is said within seconds.
fn sparse_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("sparse.img");
    let f = std::fs::File::create(&path).expect("create");
    f.set_len(1 << 30).expect("set_len");
    path
}

/// `q`, and `y` should the run have gone on for a minute on a slow machine (then `q` asks).
fn quit(tmux: &Tmux) {
    tmux.keys(&["q"]);
    let s = tmux.wait_for("the exit or the question", LONG, |s| {
        s.contains("diskscope-exit=") || s.contains("q or y quits")
    });
    if !s.contains("diskscope-exit=") {
        tmux.keys(&["y"]);
    }
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir")
}

#[test]
fn hints_stay_with_a_finding_on_screen_and_l_shows_the_message_whole() {
    if !tmux_installed() {
        return;
    }
    let dir = temp_dir();
    let file = sparse_file(dir.path());
    let tmux = pane("dshab-hints", dir.path(), &format!("'{}'", file.display()));
    // Where the disk is flagged rotational the finding comes; elsewhere the small-span
    // warning takes the message line. Either way a message is there, cut at 80 columns.
    let screen = tmux.wait_for("a finding or warning cut to the width", LONG, |s| {
        s.contains("why:") && s.contains("… L log")
    });
    let hints = bottom(&screen);
    for key in ["? help", "s sweep", "c suite", "e save", "L log", "q quit"] {
        assert!(
            hints.contains(key),
            "the hint line lacks {key:?}:\n{screen}"
        );
    }
    assert!(
        screen.lines().all(|l| l.chars().count() <= 80),
        "a line wider than the terminal:\n{screen}"
    );
    tmux.keys(&["L"]);
    let log = tmux.wait_for("the message log", LONG, |s| {
        s.contains("messages, newest last")
    });
    // The end of the finding, cut from the message line, is in the log (the newest last,
    // so on the page it opens at).
    assert!(
        boxed_text(&log).contains("until queue/rotational is set to 0"),
        "the log lacks the whole finding:\n{log}"
    );
    tmux.keys(&["x"]);
    tmux.wait_for("the log closed", LONG, |s| {
        !s.contains("messages, newest last")
    });
    quit(&tmux);
    let out = tmux.wait_for("the exit", LONG, |s| s.contains("diskscope-exit=0"));
    drop(out);
    // The summary: no line over 80 columns, each finding kind once.
    let text = history(&tmux);
    let summary = &text[text.find("sparse.img:").expect("the summary's header")..];
    for line in summary.lines() {
        assert!(
            line.chars().count() <= 80,
            "a summary line of {} columns: {line:?}\n{summary}",
            line.chars().count()
        );
    }
    assert_eq!(
        summary.matches("treats it as a spinning disk").count(),
        1,
        "{summary}"
    );
}

#[test]
fn esc_goes_back_and_never_ends_the_run_and_e_mid_sweep_says_what_it_saved() {
    if !tmux_installed() {
        return;
    }
    let dir = temp_dir();
    let tmux = pane("dshab-esc", dir.path(), "--size 64M -T 10m");
    tmux.wait_for("the picker", LONG, |s| s.contains("pick a target"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the run screen", LONG, |s| s.contains("IOPS now"));
    let pid = tmux.process("diskscope").expect("the diskscope process");
    tmux.keys(&["Escape"]);
    tmux.wait_for("Esc saying the run goes on", LONG, |s| {
        s.contains("Esc goes back")
    });
    tmux.keys(&["Escape", "Escape"]);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        Path::new(&format!("/proc/{pid}")).exists(),
        "Esc ended the run"
    );
    // A sweep: e saves it as it stands and says where; Esc cancels it and puts the
    // settings back; the run goes on.
    tmux.keys(&["s", "t"]);
    tmux.wait_for("the sweep running", LONG, |s| {
        s.contains("sweep threads: step")
    });
    tmux.keys(&["e"]);
    let saved = tmux.wait_for("e saying what it saved", LONG, |s| {
        s.contains("saved the sweep so far to")
    });
    let json: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .collect();
    assert_eq!(json.len(), 1, "one file saved:\n{saved}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("the sweep cancelled, its settings back", LONG, |s| {
        s.contains("sweep cancelled after") && s.contains("settings back to 4k random read QD1 T1")
    });
    tmux.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        Path::new(&format!("/proc/{pid}")).exists(),
        "Esc ended the run"
    );
    quit(&tmux);
    tmux.wait_for("the exit", LONG, |s| s.contains("diskscope-exit=0"));
    wait_gone(pid, LONG);
}

/// The value at the right end of a slider's line.
fn slider(screen: &str, label: &str) -> String {
    let line = screen
        .lines()
        .find(|l| l.contains(&format!(" {label} ")))
        .unwrap_or_default();
    let inside = line.split('│').nth(1).unwrap_or_default();
    inside
        .split('█')
        .next_back()
        .unwrap_or_default()
        .trim_start_matches('░')
        .trim()
        .to_string()
}

/// The rate in a slider's value: "90% 2754" → 2754, "80% 12.3k" → 12300.
fn rate_of(value: &str) -> f64 {
    let figure = value.split_whitespace().last().unwrap_or_default();
    let (digits, scale) = match figure.strip_suffix('k') {
        Some(d) => (d, 1e3),
        None => (figure, 1.0),
    };
    digits.parse::<f64>().map_or(f64::NAN, |v| v * scale)
}

#[test]
fn the_rate_steps_in_fractions_of_the_measured_iops_and_u_makes_it_unlimited() {
    if !tmux_installed() {
        return;
    }
    let dir = temp_dir();
    let tmux = pane("dshab-rate", dir.path(), "--size 64M -T 10m");
    tmux.wait_for("the picker", LONG, |s| s.contains("pick a target"));
    tmux.keys(&["Enter"]);
    // Two whole seconds unpaced: the slider knows what the disk does.
    tmux.wait_for("a few seconds of running", LONG, |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("│ 3.") || l.contains("│ 4."))
    });
    // ↑ from threads wraps to the rate slider.
    tmux.keys(&["Up", "Left"]);
    // The first step is 90% of what the disk did; the share shown follows the disk after
    // that (on a busy machine it may fall short of the rate asked), so the test reads the rate.
    let paced = tmux.wait_for("the rate as a share of the disk's IOPS", LONG, |s| {
        slider(s, "rate IOPS").contains("% ")
    });
    let first = rate_of(&slider(&paced, "rate IOPS"));
    tmux.keys(&["Left"]);
    tmux.wait_for("a lower rate", LONG, |s| {
        rate_of(&slider(s, "rate IOPS")) < first
    });
    // Back to unlimited with one key, whichever slider is selected.
    tmux.keys(&["Tab", "u"]);
    let back = tmux.wait_for("the rate unlimited", LONG, |s| {
        slider(s, "rate IOPS") == "unlimited"
    });
    assert!(bottom(&back).contains("u unlimited"), "{back}");
    // And 0 puts every slider back to its start: threads and the rate together.
    tmux.keys(&["Right", "Up", "Left"]);
    tmux.wait_for("threads doubled and the rate paced", LONG, |s| {
        slider(s, "threads") == "2" && slider(s, "rate IOPS").contains('%')
    });
    tmux.keys(&["0"]);
    tmux.wait_for("threads back to 1, the rate unlimited", LONG, |s| {
        slider(s, "threads") == "1" && slider(s, "rate IOPS") == "unlimited"
    });
    quit(&tmux);
    tmux.wait_for("the exit", LONG, |s| s.contains("diskscope-exit=0"));
}

#[test]
fn quitting_after_a_minute_asks_once() {
    if !tmux_installed() {
        return;
    }
    let dir = temp_dir();
    let tmux = pane("dshab-quit", dir.path(), "--size 64M -T 10m");
    tmux.wait_for("the picker", LONG, |s| s.contains("pick a target"));
    tmux.keys(&["Enter"]);
    let pid = {
        tmux.wait_for("the run screen", LONG, |s| s.contains("IOPS now"));
        tmux.process("diskscope").expect("the diskscope process")
    };
    tmux.wait_for("a minute of running", Duration::from_secs(120), |s| {
        s.lines().next().is_some_and(|l| l.contains("│ 1m0"))
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the question", LONG, |s| {
        s.contains("of running? q or y quits, any other key goes on")
    });
    assert!(
        Path::new(&format!("/proc/{pid}")).exists(),
        "q quit without asking"
    );
    // Another key: the run goes on, and the question is gone.
    tmux.keys(&["x"]);
    tmux.wait_for("the question gone", LONG, |s| !s.contains("q or y quits"));
    assert!(Path::new(&format!("/proc/{pid}")).exists(), "x quit");
    tmux.keys(&["q", "y"]);
    tmux.wait_for("the exit", LONG, |s| s.contains("diskscope-exit=0"));
    wait_gone(pid, LONG);
}

#[test]
fn the_picker_completes_a_path_with_tab_and_a_small_terminal_says_its_size() {
    if !tmux_installed() {
        return;
    }
    let dir = temp_dir();
    std::fs::create_dir(dir.path().join("scratch-area")).unwrap();
    let tmux = pane("dshab-pick", dir.path(), "--size 64M");
    let picker = tmux.wait_for("the picker", LONG, |s| s.contains("pick a target"));
    assert!(bottom(&picker).starts_with("? help"), "{picker}");
    tmux.keys(&["End", "Enter"]);
    tmux.wait_for("the path entry", LONG, |s| s.contains("path: "));
    tmux.keys(&["scr", "Tab"]);
    tmux.wait_for("the completed path", LONG, |s| {
        s.contains("path: scratch-area/")
    });
    tmux.keys(&["Escape"]);
    // Too small to use: the screen says how large it must be.
    tmux.run(&["resize-window", "-t", "e2e", "-x", "30", "-y", "8"]);
    tmux.wait_for("the size it needs", LONG, |s| {
        s.replace('\n', " ").contains("at least 40x10")
    });
    tmux.run(&["resize-window", "-t", "e2e", "-x", "80", "-y", "24"]);
    tmux.wait_for("the picker again", LONG, |s| s.contains("pick a target"));
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", LONG, |s| s.contains("diskscope-exit=0"));
}

/// A loop device attached for a test, detached on drop whatever happens.
struct Loop(String);

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.0]).status();
    }
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn the_picker_names_a_loop_devices_backing_file() {
    if !tmux_installed() {
        return;
    }
    let dir = temp_dir();
    let backing = dir.path().join("backing.img");
    std::fs::File::create(&backing)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let out = Command::new("losetup")
        .args(["-f", "--show"])
        .arg(&backing)
        .output()
        .expect("losetup");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dev = Loop(String::from_utf8_lossy(&out.stdout).trim().to_string());
    let tmux = pane("dshab-loop", dir.path(), "--size 64M");
    let name = format!("{} ", dev.0);
    let picker = tmux.wait_for("the loop device's row", LONG, |s| s.contains(&name));
    let row = picker.lines().find(|l| l.contains(&name)).unwrap();
    assert!(row.contains("loop → "), "{picker}");
    assert!(row.trim_end().ends_with("/backing.img"), "{picker}");
    assert!(!row.contains("rotational"), "{picker}");
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", LONG, |s| s.contains("diskscope-exit=0"));
    // `--list` calls it a loop device too, not an HDD.
    let list = Command::new(bin()).arg("--list").output().expect("--list");
    let list = String::from_utf8_lossy(&list.stdout);
    let short = dev.0.trim_start_matches("/dev/");
    let line = list
        .lines()
        .find(|l| l.split_whitespace().next() == Some(short))
        .unwrap_or_else(|| panic!("{short} not listed:\n{list}"));
    assert!(line.contains(" loop ") && !line.contains("HDD"), "{line}");
    drop(dev);
}
