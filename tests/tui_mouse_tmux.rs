//! End to end at 80x24 (the zoom at 80x25, where a mark's label has room), the real binary in tmux: the graphs' time scale (`z`) and their
//! axes, and the mouse — xterm's SGR mouse sequences (`ESC [ < button ; column ; row M`,
//! `m` for a release) sent into the pane as a terminal sends them once the program has
//! turned mouse reporting on (which tmux shows in its pane flags). A click on a slider's
//! bar sets its value, the wheel scrolls the help, a double click on a picker row starts a
//! run, `M` and `--no-mouse` leave the mouse to the terminal, and every way out (quit,
//! Ctrl-Z, SIGTERM) turns reporting off. Skipped with a note when tmux is not installed.

mod tmux_common;

use std::time::Duration;

use tmux_common::{Tmux, bin, tmux_installed, wait_gone};

const WAIT: Duration = Duration::from_secs(60);

fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

/// Whether the program in the pane asked for mouse reports of presses and drags (1002;
/// tmux shows 1000 as off once 1002 is on) in SGR encoding (1006); tmux keeps the modes the
/// pane's program set.
fn mouse_on(t: &Tmux) -> bool {
    let out = t.run(&[
        "display-message",
        "-p",
        "-t",
        "e2e",
        "#{mouse_button_flag}#{mouse_sgr_flag}",
    ]);
    let flags = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(flags == "11" || flags == "00", "mixed mouse modes: {flags}");
    flags == "11"
}

fn wait_mouse(t: &Tmux, on: bool) {
    let start = std::time::Instant::now();
    while mouse_on(t) != on {
        assert!(
            start.elapsed() < WAIT,
            "the mouse never turned {}; the screen:\n{}",
            if on { "on" } else { "off" },
            t.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Sends `bytes` to the program as the terminal would (`send-keys -l`: literally).
fn send_raw(t: &Tmux, bytes: &str) {
    let out = t.run(&["send-keys", "-t", "e2e", "-l", bytes]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A left press and release at the 0-based cell (`x`, `y`).
fn click(t: &Tmux, x: usize, y: usize) {
    send_raw(
        t,
        &format!("\x1b[<0;{};{}M\x1b[<0;{};{}m", x + 1, y + 1, x + 1, y + 1),
    );
}

/// One notch of the wheel down at the 0-based cell (`x`, `y`).
fn wheel_down(t: &Tmux, x: usize, y: usize) {
    send_raw(t, &format!("\x1b[<65;{};{}M", x + 1, y + 1));
}

/// The row of `screen` holding `needle` and the columns of the bar on it (its first and
/// last `█`/`░` cell).
fn bar_of(screen: &str, needle: &str) -> (usize, usize, usize) {
    let (y, line) = screen
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} row:\n{screen}"));
    let cells: Vec<char> = line.chars().collect();
    let is_bar = |c: &char| *c == '█' || *c == '░';
    let first = cells.iter().position(is_bar).expect("a bar");
    let last = cells.iter().rposition(is_bar).expect("a bar");
    (y, first, last)
}

/// The value at the right end of a slider's line ("32" for threads): at 80x24 the seven
/// sliders fill their box, with no row for the settings' phrase.
fn slider(screen: &str, label: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains(&format!(" {label} ")))?;
    let inside = line.split('│').nth(1)?;
    inside.split_whitespace().last().map(str::to_string)
}

/// The x-axis row under the graphs.
fn axis(screen: &str) -> String {
    screen
        .lines()
        .find(|l| l.starts_with("time "))
        .unwrap_or_else(|| panic!("no time axis:\n{screen}"))
        .to_string()
}

/// `z` steps the time per column from 0.1 s to 1 s, 10 s and the whole run, the x-axis
/// saying which; a change marked ("T2") scrolls off at 0.1 s a column within seconds but is
/// back on the screen when the whole run is shown.
#[test]
fn zoom_changes_the_time_per_column_and_the_axis_says_so() {
    if !tmux_installed() {
        return;
    }
    let dir = scratch_dir();
    let shell = format!(
        "cd '{}' && '{}' . --size 16M; sleep 30",
        dir.path().display(),
        bin()
    );
    // 80x25: the mark's label needs a free cell on the frame's line or above the bars, and
    // at 80x24 the trim slider leaves each graph two rows, which a level IOPS line fills: the
    // label is then left out (its line still drawn, `widgets::marks`), once in a few runs.
    let t = Tmux::start("dsz", (80, 25), &shell);
    // The run's clock, from the header ("│ 2.3s │").
    let clock = |s: &str| -> f64 {
        let head = s.lines().next().unwrap_or("");
        head.split('│')
            .filter_map(|w| w.trim().strip_suffix('s')?.parse::<f64>().ok())
            .next()
            .unwrap_or(0.0)
    };
    // Two seconds in, so the change has columns before it at 1 s a column too.
    let s = t.wait_for("two seconds of run", WAIT, |s| {
        s.contains("IOPS now") && clock(s) >= 2.0
    });
    assert!(axis(&s).contains("0.1 s/col"), "{s}");
    t.keys(&["Right"]);
    let at = clock(&t.wait_for("the T2 mark", WAIT, |s| s.contains("T2")));
    // About 3.7 s of intervals fit at 80 columns: the mark goes.
    t.wait_for("the mark to scroll off", WAIT, |s| {
        !s.contains("T2") && clock(s) > at + 4.0
    });
    t.keys(&["z"]);
    let s = t.wait_for("1 s a column", WAIT, |s| axis(s).contains(" 1 s/col"));
    assert!(s.contains("T2"), "the mark is back at 1 s a column:\n{s}");
    assert!(
        s.contains(" peak│") || s.contains("▼ (peaks)"),
        "the latency lines are peaks:\n{s}"
    );
    t.keys(&["z"]);
    t.wait_for("10 s a column", WAIT, |s| axis(s).contains(" 10 s/col"));
    t.keys(&["z"]);
    let s = t.wait_for("the whole run", WAIT, |s| axis(s).contains("run: "));
    assert!(s.contains("T2"), "the whole run keeps the mark:\n{s}");
    // Ticks on the run's clock from its start.
    assert!(axis(&s).contains("╵0:00"), "{s}");
    // Each graph's y-axis has its top; IOPS and bandwidth their 0 too (at this size, under the
    // hint and message lines, the latency's p99 and p50 rows are one row each, both
    // scaled to the same top).
    assert!(
        s.lines().filter(|l| l.contains("    0┤")).count() >= 2,
        "{s}"
    );
    assert!(s.lines().filter(|l| l.contains("┤")).count() >= 6, "{s}");
    t.keys(&["z"]);
    t.wait_for("0.1 s again", WAIT, |s| axis(s).contains("0.1 s/col"));
    t.keys(&["q"]);
}

/// A press on the threads slider's bar at its middle sets 32 threads (the bar is log2 from
/// 1 to 1024); dragging along the random % bar sets it where the drag ends; the wheel
/// scrolls the help; M gives the mouse back (and a click then does nothing) and takes it
/// again; quitting gives it back to the terminal.
#[test]
fn a_click_on_a_slider_bar_changes_its_value_and_the_wheel_scrolls_the_help() {
    if !tmux_installed() {
        return;
    }
    let dir = scratch_dir();
    let shell = format!(
        "cd '{}' && '{}' . --size 16M; echo exited=$?; sleep 30",
        dir.path().display(),
        bin()
    );
    let t = Tmux::start("dsm", (80, 24), &shell);
    let s = t.wait_for("the run screen", WAIT, |s| s.contains("IOPS now"));
    wait_mouse(&t, true);
    let (y, first, last) = bar_of(&s, "threads ");
    click(&t, (first + last) / 2, y);
    let s = t.wait_for("32 threads", WAIT, |s| {
        slider(s, "threads").as_deref() == Some("32")
    });
    assert!(bar_of(&s, "threads ").0 == y, "{s}");
    // Drag on random %: press at the left end, drag to the right end, back to the middle.
    let (y, first, last) = bar_of(&s, "random % ");
    let mid = (first + last) / 2;
    send_raw(
        &t,
        &format!(
            "\x1b[<0;{};{y1}M\x1b[<32;{};{y1}M\x1b[<32;{};{y1}M\x1b[<0;{};{y1}m",
            first + 1,
            last + 1,
            mid + 1,
            mid + 1,
            y1 = y + 1
        ),
    );
    t.wait_for("random 50%", WAIT, |s| {
        slider(s, "random %").as_deref() == Some("50")
    });
    // The help scrolls with the wheel.
    t.keys(&["?"]);
    t.wait_for("the help", WAIT, |s| s.contains("lines 1-"));
    wheel_down(&t, 40, 10);
    t.wait_for("the help scrolled", WAIT, |s| s.contains("lines 4-"));
    t.keys(&["Escape"]);
    t.wait_for("the help closed", WAIT, |s| !s.contains("lines 4-"));
    // M: the terminal has its mouse (and its text selection) back.
    t.keys(&["M"]);
    let s = t.wait_for("the notice", WAIT, |s| s.contains("mouse off"));
    wait_mouse(&t, false);
    let (y, first, _) = bar_of(&s, "threads ");
    click(&t, first, y);
    std::thread::sleep(Duration::from_millis(500));
    let s = t.wait_for("the run", WAIT, |s| s.contains("IOPS now"));
    assert!(
        slider(&s, "threads").as_deref() == Some("32"),
        "a click with the mouse off did something:\n{s}"
    );
    t.keys(&["M"]);
    wait_mouse(&t, true);
    t.keys(&["q"]);
    t.wait_for("the summary", WAIT, |s| s.contains("exited="));
    assert!(!mouse_on(&t), "quitting left mouse reporting on");
}

/// A double click on the scratch file's row of the picker starts the run on it; one click
/// only selects.
#[test]
fn a_double_click_on_a_picker_row_starts_a_run() {
    if !tmux_installed() {
        return;
    }
    let dir = scratch_dir();
    let shell = format!(
        "cd '{}' && '{}' --tui --size 16M; sleep 30",
        dir.path().display(),
        bin()
    );
    let t = Tmux::start("dsp", (80, 24), &shell);
    let s = t.wait_for("the picker", WAIT, |s| s.contains("enter a path"));
    wait_mouse(&t, true);
    let row = |s: &str, needle: &str| {
        s.lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?}:\n{s}"))
    };
    // One click on "enter a path…" selects it (and starts nothing).
    let y = row(&s, "enter a path");
    click(&t, 10, y);
    t.wait_for("the selection", WAIT, |s| {
        s.lines().nth(y).is_some_and(|l| l.starts_with('▶'))
    });
    let y = row(&s, "scratch file here");
    click(&t, 10, y);
    click(&t, 10, y);
    t.wait_for("the run screen", WAIT, |s| s.contains("IOPS now"));
    t.keys(&["q"]);
}

/// `--no-mouse`: the terminal keeps its mouse (no reporting asked for), and a mouse
/// sequence that comes anyway changes nothing.
#[test]
fn no_mouse_leaves_the_mouse_off() {
    if !tmux_installed() {
        return;
    }
    let dir = scratch_dir();
    let shell = format!(
        "cd '{}' && '{}' . --size 16M --no-mouse; sleep 30",
        dir.path().display(),
        bin()
    );
    let t = Tmux::start("dsn", (80, 24), &shell);
    let s = t.wait_for("the run screen", WAIT, |s| s.contains("IOPS now"));
    assert!(!mouse_on(&t), "--no-mouse turned mouse reporting on");
    let (y, first, last) = bar_of(&s, "threads ");
    click(&t, (first + last) / 2, y);
    t.keys(&["z"]);
    let s = t.wait_for("the zoom (after the click)", WAIT, |s| {
        axis(s).contains(" 1 s/col")
    });
    assert!(
        slider(&s, "threads").as_deref() == Some("1"),
        "the click changed the threads:\n{s}"
    );
    t.keys(&["q"]);
}

/// Ctrl-Z gives the mouse back while stopped and `fg` takes it again; SIGTERM ends the run
/// with the mouse given back.
#[test]
fn mouse_reporting_is_given_back_on_suspend_and_on_sigterm() {
    if !tmux_installed() {
        return;
    }
    let dir = scratch_dir();
    let t = Tmux::start("dss", (80, 24), "bash --norc --noprofile");
    let cmd = format!("cd '{}' && '{}' . --size 16M", dir.path().display(), bin());
    t.keys(&[&cmd, "Enter"]);
    t.wait_for("the run screen", WAIT, |s| s.contains("IOPS now"));
    wait_mouse(&t, true);
    t.keys(&["C-z"]);
    t.wait_for("the shell", WAIT, |s| s.contains("Stopped"));
    assert!(!mouse_on(&t), "stopped with mouse reporting on");
    t.keys(&["fg", "Enter"]);
    t.wait_for("the run again", WAIT, |s| s.contains("IOPS now"));
    wait_mouse(&t, true);
    let pid = t.process("--size 16M").expect("the diskscope process");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("SIGTERM");
    wait_gone(pid, WAIT);
    wait_mouse(&t, false);
}
