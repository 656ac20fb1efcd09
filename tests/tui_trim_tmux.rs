//! The trim slider, live in a real terminal (tmux). On a file it reads "0 off" and a step
//! says why (not a block device) without moving. On a loop device (root) a run that only
//! reads is given trims with →, then more, then none again: each change a period of its own
//! (the JSON's `trim_pct` per period), the trims' own line on the screen while they run, the
//! kernel pane's discards per second beside the run's trims, and the kernel's count of
//! discards equal to the run's count of trims. Waits act on the
//! program's own screen. Skipped with a note when tmux is not installed.

mod common;
mod tmux_common;

use std::time::Duration;

use common::LoopDev;
use diskscope::diskstats::parse_stat_file;
use tmux_common::{Tmux, bin, tmux_installed};

/// The value at the right end of a slider's line, e.g. "10" for "trim % … 10".
fn slider(screen: &str, label: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains(&format!(" {label} ")))?;
    let inside = line.split('│').nth(1)?;
    let words: Vec<&str> = inside.split_whitespace().collect();
    match words.as_slice() {
        [.., n, "off"] => Some(format!("{n} off")),
        [.., last] => Some(last.to_string()),
        [] => None,
    }
}

/// threads → depth → block size → read % → random % → skew → trim %.
const TO_TRIM: [&str; 6] = ["Tab", "Tab", "Tab", "Tab", "Tab", "Tab"];

#[test]
fn on_a_file_the_trim_slider_is_off_and_says_why() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    common::make_file(&dir.path().join("t.img"), 16 << 20);
    let shell = format!(
        "cd '{}' && '{}' t.img --allow-write; echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin()
    );
    let tmux = Tmux::start("diskscope-trim-file", (120, 40), &shell);
    tmux.wait_for("the run, trims off", Duration::from_secs(60), |s| {
        slider(s, "trim %").as_deref() == Some("0 off") && s.contains("IOPS now")
    });
    tmux.keys(&TO_TRIM);
    tmux.keys(&["Right"]);
    let refused = tmux.wait_for("the reason", Duration::from_secs(20), |s| {
        s.contains("not a block device")
    });
    assert_eq!(
        slider(&refused, "trim %").as_deref(),
        Some("0 off"),
        "{refused}"
    );
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the exit", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
}

/// The kernel pane's "t/s MB/s" row: the kernel's discards per second and the app's trims
/// per second ("1.2k" read as 1200).
fn discard_row(screen: &str) -> Option<(f64, f64)> {
    let line = screen.lines().find(|l| l.contains("t/s MB/s"))?;
    let rest = line.split("t/s MB/s").nth(1)?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    let count = |w: &str| -> Option<f64> {
        let (n, mult) = match w.strip_suffix('k') {
            Some(n) => (n, 1e3),
            None => (w, 1.0),
        };
        n.parse::<f64>().ok().map(|v| v * mult)
    };
    // kernel count, kernel MB/s, app count, app MB/s.
    Some((count(words.first()?)?, count(words.get(2)?)?))
}

fn kernel_discards(dev: &LoopDev) -> u64 {
    let text = std::fs::read_to_string(format!("/sys/block/{}/stat", dev.name())).unwrap();
    let c = parse_stat_file(&text).unwrap();
    c.discards_completed.unwrap() + c.discards_merged.unwrap_or(0)
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn the_trim_slider_changes_the_share_live_and_each_change_is_a_period() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let dev = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let before = kernel_discards(&dev);
    let shell = format!(
        "cd '{}' && '{}' {dev} --allow-write={dev} --json=run.json; echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin(),
        dev = dev.path
    );
    let tmux = Tmux::start("diskscope-trim", (120, 40), &shell);
    tmux.wait_for("the run reading", Duration::from_secs(60), |s| {
        slider(s, "trim %").as_deref() == Some("0") && s.contains("IOPS now")
    });
    tmux.keys(&TO_TRIM);
    tmux.keys(&["Right", "Right"]);
    let trimming = tmux.wait_for("10 % trims, their line", Duration::from_secs(20), |s| {
        slider(s, "trim %").as_deref() == Some("10")
            && s.contains("▶ trim %")
            && s.lines()
                .any(|l| l.trim_start().starts_with("trim ") && l.contains("IOPS"))
    });
    assert!(trimming.contains("90% read / 10% trim"), "{trimming}");
    tmux.wait_for("the trims' figures", Duration::from_secs(20), |s| {
        s.lines()
            .any(|l| l.trim_start().starts_with("trim ") && !l.contains(" - IOPS"))
    });
    // The kernel pane's discard row: the kernel's discards beside the run's trims, the same
    // second on both sides.
    let pane = tmux.wait_for("the kernel's discards", Duration::from_secs(20), |s| {
        discard_row(s).is_some_and(|(k, a)| k > 0.0 && a > 0.0)
    });
    let (kernel, app) = discard_row(&pane).unwrap();
    assert!(
        (kernel - app).abs() <= 0.25 * app.max(kernel),
        "kernel {kernel} vs app {app}:\n{pane}"
    );
    tmux.keys(&["Right", "Right"]);
    tmux.wait_for("20 %", Duration::from_secs(20), |s| {
        slider(s, "trim %").as_deref() == Some("20")
    });
    std::thread::sleep(Duration::from_millis(1500));
    for _ in 0..4 {
        tmux.keys(&["Left"]);
    }
    tmux.wait_for("no trims", Duration::from_secs(20), |s| {
        slider(s, "trim %").as_deref() == Some("0")
    });
    std::thread::sleep(Duration::from_millis(1500));
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the summary", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");

    let text = std::fs::read_to_string(dir.path().join("run.json")).expect("run.json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let periods = v["periods"].as_array().expect("periods");
    let shares: Vec<u64> = periods
        .iter()
        .map(|p| p["settings"]["trim_pct"].as_u64().unwrap())
        .collect();
    // Two Right presses may land in one tick or two: 0, (5,) 10, (15,) 20, … 0.
    assert_eq!(shares.first(), Some(&0), "{shares:?}");
    assert!(shares.contains(&10) && shares.contains(&20), "{shares:?}");
    assert_eq!(shares.last(), Some(&0), "{shares:?}");
    let trims: Vec<u64> = periods
        .iter()
        .map(|p| p["trim_ops"].as_u64().unwrap())
        .collect();
    assert_eq!(trims[0], 0, "no trim before the slider moved: {trims:?}");
    let total = v["total"]["trim_ops"].as_u64().unwrap();
    assert!(total > 0, "{}", v["total"]);
    assert_eq!(trims.iter().sum::<u64>(), total, "{trims:?}");
    assert_eq!(
        kernel_discards(&dev) - before,
        total,
        "the kernel's discards"
    );
}

/// Several targets in the TUI trim as one does: with `--trim 20` each target's trims reach
/// its kernel, counted alike (the disks screen once started its engines without the trims
/// the start had checked: the screen said 20 % and no trim was drawn).
#[test]
#[ignore = "needs root: attaches loop devices"]
fn several_targets_in_the_tui_trim_and_their_kernels_count_it() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    let (fa, fb) = (dir.path().join("a.img"), dir.path().join("b.img"));
    common::make_file(&fa, 16 << 20);
    common::make_file(&fb, 16 << 20);
    let devs = [LoopDev::attach(&fa, &[]), LoopDev::attach(&fb, &[])];
    let before: Vec<u64> = devs.iter().map(kernel_discards).collect();
    let shell = format!(
        "cd '{}' && '{}' {a} {b} --trim 20 --allow-write={a},{b} --json=m.json -T 3s; \
         echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin(),
        a = devs[0].path,
        b = devs[1].path
    );
    let tmux = Tmux::start("diskscope-trim-disks", (100, 30), &shell);
    let end = tmux.wait_for("the exit", Duration::from_secs(60), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
    let text = std::fs::read_to_string(dir.path().join("m.json")).expect("m.json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let targets = v["targets"].as_array().expect("targets");
    for ((t, dev), was) in targets.iter().zip(&devs).zip(before) {
        let trims = t["total"]["trim_ops"].as_u64().unwrap();
        assert!(trims > 0, "{}: no trims drawn: {}", t["name"], t["total"]);
        assert_eq!(kernel_discards(dev) - was, trims, "{}", t["name"]);
    }
}
