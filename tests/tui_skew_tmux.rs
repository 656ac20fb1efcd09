//! The skew slider, live in a real terminal (tmux): a run started at `zipf:1.2` is made more
//! skewed with → and then uniform with ←, each change a period of its own — on the screen
//! (the slider's value, the measured share of the hottest 1 % beside its promise), in the
//! summary's periods table and in the JSON (each period's `random_distribution`, and
//! `hot_spots` for the skewed ones, their measured share near the promised one). Waits act
//! on the program's own screen. Skipped with a note when tmux is not installed.

mod common;
mod tmux_common;

use std::time::Duration;

use tmux_common::{Tmux, bin, tmux_installed};

/// The value at the right end of a slider's line, e.g. "1.2" for "skew … zipf 1.2".
fn slider(screen: &str, label: &str) -> Option<String> {
    let line = screen.lines().find(|l| l.contains(&format!(" {label} ")))?;
    let inside = line.split('│').nth(1)?;
    inside.split_whitespace().last().map(str::to_string)
}

/// The measured share of the hottest 1 % under the sliders: "hottest 1%: 77.3% of …".
fn measured_hot_share(screen: &str) -> Option<f64> {
    let rest = screen.split("hottest 1%: ").nth(1)?;
    rest.split('%').next()?.trim().parse().ok()
}

/// The run's clock on the status line ("… │ 4.0s │ …"), in seconds.
fn clock(screen: &str) -> Option<f64> {
    let status = screen.lines().next()?;
    status
        .split('│')
        .map(str::trim)
        .find_map(|f| f.strip_suffix('s')?.parse::<f64>().ok())
}

#[test]
fn the_skew_slider_changes_the_distribution_live_and_each_change_is_a_period() {
    if !tmux_installed() {
        return;
    }
    let dir = common::workdir();
    common::make_file(&dir.path().join("t.img"), 64 << 20);
    let shell = format!(
        "cd '{}' && '{}' t.img --random-distribution zipf:1.2 --json=run.json; echo diskscope-exit=$?; sleep 60",
        dir.path().display(),
        bin()
    );
    let tmux = Tmux::start("diskscope-skew", (120, 40), &shell);
    let first = tmux.wait_for("the run at zipf 1.2", Duration::from_secs(60), |s| {
        slider(s, "skew").as_deref() == Some("1.2") && measured_hot_share(s).is_some()
    });
    // 64 MiB of 4k blocks at θ 1.2: the hottest 1 % are promised 77.7 %.
    assert!(
        first.contains("(promised 77.7%)"),
        "the promise beside it:\n{first}"
    );
    // threads → depth → block size → read % → random % → skew.
    tmux.keys(&["Tab", "Tab", "Tab", "Tab", "Tab", "Right"]);
    let at_13 = tmux.wait_for("zipf 1.3, marked, measured", Duration::from_secs(20), |s| {
        slider(s, "skew").as_deref() == Some("1.3")
            && s.contains("▶ skew")
            && s.contains("(promised 85.6%)")
            && measured_hot_share(s).is_some()
    });
    // A period shorter than half a second gets no hot-spot line in the summary: let zipf
    // 1.3 run a second by the run's own clock first.
    let from = clock(&at_13).expect("the run's clock on its status line");
    tmux.wait_for("a second at zipf 1.3", Duration::from_secs(20), |s| {
        clock(s).is_some_and(|t| t >= from + 1.0)
    });
    for _ in 0..13 {
        tmux.keys(&["Left"]);
    }
    let uniform = tmux.wait_for("uniform", Duration::from_secs(20), |s| {
        slider(s, "skew").as_deref() == Some("uniform")
    });
    assert!(
        !uniform.contains("hot 1%"),
        "no share for uniform:\n{uniform}"
    );
    // Let the uniform period count something before quitting.
    tmux.wait_for("the uniform period running", Duration::from_secs(20), |s| {
        s.contains("uniform") && s.contains("IOPS now")
    });
    std::thread::sleep(Duration::from_millis(1500));
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the summary", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
    assert!(
        end.contains("hot spots, period 2, zipf 1.3: hottest 1 % of blocks got "),
        "each skewed period's shares, named by its row:\n{end}"
    );

    let text = std::fs::read_to_string(dir.path().join("run.json")).expect("run.json");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let periods = v["periods"].as_array().expect("periods");
    let dists: Vec<&str> = periods
        .iter()
        .map(|p| p["settings"]["random_distribution"].as_str().unwrap())
        .collect();
    // The Left presses may land in one tick or several: the periods between 1.3 and uniform
    // step down through Zipf, every one a period of its own.
    assert_eq!(dists.first(), Some(&"zipf:1.2"), "{dists:?}");
    assert_eq!(dists.get(1), Some(&"zipf:1.3"), "{dists:?}");
    assert_eq!(dists.last(), Some(&"random"), "{dists:?}");
    let hot = v["hot_spots"].as_array().expect("hot_spots");
    assert_eq!(hot.len(), periods.len() - 1, "every skewed period: {hot:?}");
    for h in hot.iter().take(2) {
        let issued = h["random_ios"].as_u64().unwrap();
        let promised = h["top1"]["promised"].as_f64().unwrap();
        let measured = h["top1"]["measured"].as_f64().unwrap();
        assert!(issued > 0, "{h}");
        // Binomial: within five standard deviations of the promise (a loaded machine may
        // issue only a few dozen I/Os in a period this short).
        let sd = (promised * (1.0 - promised) / issued as f64).sqrt();
        assert!((measured - promised).abs() <= 5.0 * sd + 1e-9, "{h}");
    }
    let total: u64 = periods
        .iter()
        .map(|p| p["random_issued"].as_u64().unwrap())
        .sum();
    assert_eq!(total, v["total"]["random_issued"].as_u64().unwrap());
}
