//! End to end, several targets in a real terminal (tmux): files named on the command line
//! open the disks screen, `e` saves the run so far and its chart, a slider moved there
//! reaches every target (each opened run screen
//! shows it, and the saved JSON's final settings say so), Esc comes back from a target's run
//! screen, and quitting prints the table; as root, two loop devices marked in the picker
//! with space start together with Enter. Skipped with a note when tmux is not installed.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{LoopDev, make_file, workdir};

fn tmux_installed() -> bool {
    let ok = Command::new("tmux").arg("-V").output().is_ok();
    if !ok {
        eprintln!("note: tmux is not installed; skipping the TUI end-to-end test");
    }
    ok
}

/// A tmux server on its own socket, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(name: &str, shell: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
        };
        let out = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            "120",
            "-y",
            "40",
            shell,
        ]);
        assert!(
            out.status.success(),
            "tmux: {}",
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
            self.run(&["send-keys", "-t", "e2e", k]);
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// The threads slider's value on the opened run screen.
fn threads(screen: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains(" threads "))?;
    line.split('│')
        .nth(1)?
        .split_whitespace()
        .last()
        .map(str::to_string)
}

/// Raises threads on the disks screen, opens each target in turn and checks its run screen
/// shows the change, and quits; returns the saved JSON.
fn change_open_each_and_quit(tmux: &Tmux, names: &[&str], json: &Path) -> serde_json::Value {
    tmux.keys(&["Right"]);
    tmux.wait_for("threads 2 on the disks screen", |s| {
        s.contains("▶threads 2 ·")
    });
    for (i, name) in names.iter().enumerate() {
        tmux.keys(&["Home"]);
        tmux.keys(&vec!["Down"; i]);
        tmux.keys(&["Enter"]);
        let screen = tmux.wait_for(name, |s| s.starts_with(&format!("diskscope {name}")));
        assert_eq!(threads(&screen).as_deref(), Some("2"), "{name}:\n{screen}");
        assert!(screen.contains("Esc: every target"), "{screen}");
        tmux.keys(&["Escape"]);
        tmux.wait_for("the disks screen again", |s| {
            s.contains("Enter open · o order")
        });
    }
    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the table after quitting", |s| {
        s.contains("diskscope-exit=")
    });
    assert!(
        screen.contains("each target (cumulative over its run):"),
        "{screen}"
    );
    assert!(screen.contains("diskscope-exit=0"), "{screen}");
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

#[test]
fn targets_on_the_command_line_open_the_disks_screen_and_a_slider_reaches_them_all() {
    if !tmux_installed() {
        return;
    }
    let dir = workdir();
    for f in ["f0", "f1", "f2"] {
        make_file(&dir.path().join(f), 16 << 20);
    }
    let bin = env!("CARGO_BIN_EXE_diskscope");
    let shell = format!(
        "cd '{}' && '{bin}' f0 f1 f2 --json=out.json; echo diskscope-exit=$?; sleep 60",
        dir.path().display()
    );
    let tmux = Tmux::start("diskscope-disks", &shell);
    let screen = tmux.wait_for("the disks screen", |s| {
        s.contains("all 3:") && s.contains("IOPS now")
    });
    for f in ["f0", "f1", "f2"] {
        assert!(screen.lines().any(|l| l.starts_with(f)), "{f}:\n{screen}");
    }
    // `e` saves every target's run so far and its chart, and says both names.
    // Once every target has handed over a second (before, `e` says there is nothing yet).
    tmux.wait_for("two seconds run", |s| {
        let elapsed = s.lines().next().and_then(|l| l.split(" │ ").nth(2));
        elapsed.and_then(|e| e.trim_end_matches('s').parse::<f64>().ok()) >= Some(2.0)
    });
    tmux.keys(&["e"]);
    let said = tmux.wait_for("the export's message", |s| s.contains("and its chart to"));
    let saved: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("diskscope-"))
        .collect();
    let json = saved
        .iter()
        .find(|n| n.ends_with(".json"))
        .expect("the JSON");
    assert!(said.contains(json.as_str()), "{json}:\n{said}");
    let svg = json.replace(".json", ".svg");
    assert!(saved.contains(&svg), "{saved:?}");
    let chart = std::fs::read_to_string(dir.path().join(&svg)).unwrap();
    assert!(chart.contains("3 targets: IOPS per target"), "{svg}");
    let v = change_open_each_and_quit(&tmux, &["f0", "f1", "f2"], &dir.path().join("out.json"));
    for t in v["targets"].as_array().unwrap() {
        assert_eq!(t["final_settings"]["threads"], 2, "{}", t["name"]);
        assert!(t["total"]["ops"].as_u64().unwrap() > 0);
    }
}

#[test]
#[ignore = "needs root: attaches loop devices"]
fn two_disks_marked_in_the_picker_start_together() {
    if !tmux_installed() {
        return;
    }
    let dir = workdir();
    let devs: Vec<LoopDev> = (0..2)
        .map(|i| {
            let f = dir.path().join(format!("backing{i}"));
            make_file(&f, 32 << 20);
            LoopDev::attach(&f, &[])
        })
        .collect();
    let bin = env!("CARGO_BIN_EXE_diskscope");
    let shell = format!(
        "cd '{}' && '{bin}' --json=out.json; echo diskscope-exit=$?; sleep 60",
        dir.path().display()
    );
    let tmux = Tmux::start("diskscope-mark", &shell);
    tmux.wait_for("the picker", |s| s.contains("pick a target"));
    for dev in &devs {
        // Walk down to the device's row, checking the arrow is on it before marking.
        let row = |s: &str| {
            s.lines()
                .position(|l| l.contains(&format!("{} ", dev.path)))
        };
        let mut moved = 0;
        loop {
            let screen = tmux.screen();
            let selected = screen.lines().position(|l| l.starts_with('▶'));
            match (selected, row(&screen)) {
                (Some(a), Some(b)) if a == b => break,
                (Some(a), Some(b)) => tmux.keys(&[if a < b { "Down" } else { "Up" }]),
                _ => panic!("{} not in the picker:\n{screen}", dev.path),
            }
            moved += 1;
            assert!(moved < 100, "cannot reach {}", dev.path);
        }
        tmux.keys(&["Space"]);
    }
    let screen = tmux.screen();
    assert!(
        screen.contains("2 marked: Enter starts on all of them at once"),
        "{screen}"
    );
    assert_eq!(screen.matches('✓').count(), 2, "{screen}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the disks screen", |s| {
        s.contains("all 2:") && s.contains("IOPS now")
    });
    let names: Vec<&str> = devs.iter().map(|d| d.path.as_str()).collect();
    let v = change_open_each_and_quit(&tmux, &names, &dir.path().join("out.json"));
    for (t, dev) in v["targets"].as_array().unwrap().iter().zip(&devs) {
        assert_eq!(t["name"], dev.name());
        assert_eq!(t["final_settings"]["threads"], 2);
        let ops = t["total"]["ops"].as_u64().unwrap();
        let k = &t["kernel"];
        let kernel = k["reads_completed"].as_u64().unwrap() + k["reads_merged"].as_u64().unwrap();
        assert!(
            ops > 0 && kernel.abs_diff(ops) <= 1,
            "{}: {ops} ops, kernel {kernel}",
            dev.name()
        );
    }
}
