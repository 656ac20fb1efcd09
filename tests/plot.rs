//! `--plot` through the real binary, for every kind of result: a run, a sweep, a rate curve
//! and a suite's card saved beside their JSON, then drawn again from that JSON with `--show
//! FILE --plot` (the same picture, byte for byte: a saved result reads back whole); a fleet
//! and fio's JSON drawn from their files. Each SVG parses, says in its `<desc>` that
//! diskscope drew it, and holds what its result holds. And the file rules: a chart only
//! replaces a chart, and a name that is not .svg is refused before anything runs.

mod chart_common;
mod common;

use std::path::Path;

use chart_common::{FIO_FIXTURES, Svg, fixture, fleet};
use common::{diskscope, stderr, workdir};

fn blue() -> String {
    diskscope::render::chart::style::Tone::Primary.hex()
}

/// Runs diskscope in `dir`; fails showing stderr unless it succeeded.
fn ok(dir: &Path, args: &[&str]) -> String {
    let out = diskscope(dir, args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The chart at `path`, checked to be diskscope's, and the JSON beside it.
fn chart(path: &Path) -> Svg {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains("<desc>diskscope chart: "), "{}", &text[..200]);
    Svg::of(text)
}

/// Draws `json` again with `--show --plot` and checks it is `svg` byte for byte.
fn redrawn_the_same(dir: &Path, json: &str, svg: &str) {
    let again = format!("again-{svg}");
    let text = ok(dir, &["--show", json, "--plot", &again]);
    assert!(text.starts_with("saved by diskscope "), "{text}");
    let (a, b) = (dir.join(svg), dir.join(&again));
    assert!(
        std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
        "{svg} drawn live and from its JSON differ"
    );
}

#[test]
fn a_run_saves_its_chart_and_the_saved_run_draws_the_same() {
    let dir = workdir();
    let d = dir.path();
    ok(
        d,
        &[
            "--size",
            "16M",
            "-T",
            "3s",
            "-q",
            "--json=run.json",
            "--plot=run.svg",
        ],
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("run.json")).unwrap()).unwrap();
    let svg = chart(&d.join("run.svg"));
    // Over time (IOPS, MB/s, p99), with the run's latency distribution stacked below it.
    for text in [
        "IOPS",
        "MB/s (10⁶ bytes/s)",
        "time into the run (s)",
        "latency (log2 scale: one bar per doubling)",
    ] {
        assert!(svg.has_text(text), "{text}");
    }
    let ops = v["total"]["ops"].as_u64().unwrap();
    let count = diskscope::render::chart::spec::thousands(ops);
    assert!(
        svg.has_text(&format!("latency of all {count} I/Os")),
        "{count}"
    );
    // The provenance in the title is the JSON's meta.
    let started = v["meta"]["started"].as_str().unwrap();
    assert!(svg.has_text(started), "{started}");
    let points = svg.polylines(&blue())[0].len();
    assert_eq!(points, v["intervals"].as_array().unwrap().len());
    redrawn_the_same(d, "run.json", "run.svg");
}

/// Two directories, a scratch file in each, run together: the chart has a bar per target
/// with its IOPS and the median line, and the saved JSON draws the same picture.
#[test]
fn a_run_on_several_targets_saves_its_chart_and_draws_the_same() {
    let dir = workdir();
    let d = dir.path();
    for t in ["a", "b"] {
        std::fs::create_dir(d.join(t)).unwrap();
    }
    ok(
        d,
        &[
            "a",
            "b",
            "--size",
            "16M",
            "-T",
            "2s",
            "-q",
            "--json=disks.json",
            "--plot=disks.svg",
        ],
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("disks.json")).unwrap()).unwrap();
    assert!(
        v["meta"]["started"].is_string(),
        "meta in a several-targets JSON"
    );
    let svg = chart(&d.join("disks.svg"));
    assert!(svg.has_text("2 targets: IOPS per target"));
    let median = v["aggregate"]["median_iops"].as_f64().unwrap();
    let words = diskscope::units::format_count_rate(median);
    assert!(svg.has_text(&format!("median {words} IOPS")), "{words}");
    for t in v["targets"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        assert!(svg.has_text(name), "{name}");
        let iops = diskscope::units::format_count_rate(t["total"]["iops"].as_f64().unwrap());
        assert!(svg.has_text(&iops), "{name}: {iops}");
    }
    redrawn_the_same(d, "disks.json", "disks.svg");
}

/// A run saved before meta, periods, the rate, the queue depth and the engine existed still
/// reads back and draws: the fields it lacks take the defaults it ran at.
#[test]
fn a_run_saved_by_an_older_version_still_draws() {
    let dir = workdir();
    let d = dir.path();
    ok(d, &["--size", "16M", "-T", "3s", "-q", "--json=run.json"]);
    let text = std::fs::read_to_string(d.join("run.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in ["meta", "periods", "latency_log2_ns", "cpu"] {
        o.remove(k).unwrap_or_else(|| panic!("{k} in a run's JSON"));
    }
    let config = o["config"].as_object_mut().unwrap();
    for k in [
        "rate_iops",
        "iodepth",
        "ioengine",
        "latency_basis",
        "fsync_every",
        "end_fsync",
    ] {
        config.remove(k).unwrap_or_else(|| panic!("config.{k}"));
    }
    for i in o["intervals"].as_array_mut().unwrap() {
        let i = i.as_object_mut().unwrap();
        for k in [
            "period",
            "rate_iops",
            "iodepth",
            "service_latency_ns",
            "after_switch",
        ] {
            i.remove(k).unwrap_or_else(|| panic!("intervals[].{k}"));
        }
    }
    std::fs::write(d.join("old.json"), v.to_string()).unwrap();
    let shown = ok(d, &["--show", "old.json", "--plot", "old.svg"]);
    assert!(
        shown.starts_with("saved before diskscope wrote meta"),
        "{shown}"
    );
    let svg = chart(&d.join("old.svg"));
    // No histogram saved: the run alone, titled with this version only.
    assert!(svg.text.matches("<svg").count() == 1);
    assert!(svg.has_text("4k random read, 1 thread"));
    assert!(svg.has_text(&format!("diskscope {}", env!("CARGO_PKG_VERSION"))));
}

#[test]
fn a_sweep_a_rate_curve_and_a_card_save_their_charts() {
    let dir = workdir();
    let d = dir.path();
    let small = ["--size", "16M", "-q", "--pause", "0"];
    ok(
        d,
        &[
            &small[..3],
            &[
                "-T",
                "0.3s",
                "--sweep",
                "threads=1,2,4",
                "--json=s.json",
                "--plot=s.svg",
            ],
        ]
        .concat(),
    );
    let svg = chart(&d.join("s.svg"));
    assert!(svg.has_text("threads"));
    // A point per step on the IOPS line.
    assert_eq!(svg.polylines(&blue())[0].len(), 3);
    redrawn_the_same(d, "s.json", "s.svg");

    ok(
        d,
        &[
            &small[..3],
            &[
                "-T",
                "0.3s",
                "--sweep",
                "rate=curve",
                "--json=c.json",
                "--plot=c.svg",
            ],
        ]
        .concat(),
    );
    let svg = chart(&d.join("c.svg"));
    assert!(
        svg.has_text("achieved load (IOPS)"),
        "{}",
        svg.texts().join("|")
    );
    redrawn_the_same(d, "c.json", "c.svg");

    ok(
        d,
        &[
            &small[..],
            &[
                "--suite",
                "peak",
                "--passes",
                "1",
                "-T",
                "0.3s",
                "--json=k.json",
                "--plot=k.svg",
            ],
        ]
        .concat(),
    );
    let svg = chart(&d.join("k.svg"));
    assert!(svg.has_text("SEQ1M Q8T1") && svg.has_text("RND4K Q32T1"));
    redrawn_the_same(d, "k.json", "k.svg");
}

#[test]
fn a_saved_fleet_and_fios_own_json_draw() {
    let dir = workdir();
    let d = dir.path();
    let f = fleet();
    std::fs::write(d.join("fleet.json"), serde_json::to_string(&f).unwrap()).unwrap();
    ok(d, &["--show", "fleet.json", "--plot", "fleet.svg"]);
    let svg = chart(&d.join("fleet.svg"));
    for h in f.hosts.iter().filter(|h| h.total.is_some()) {
        assert!(svg.has_text(&h.host), "{}", h.host);
    }
    for name in FIO_FIXTURES {
        std::fs::write(d.join(name), fixture(name)).unwrap();
        let out = format!("{name}.svg");
        ok(d, &["--show", name, "--plot", &out]);
        let svg = chart(&d.join(&out));
        assert!(svg.has_text("fio-3."), "{name}: fio's version in the title");
    }
    // json+ has latency bins: its distribution is stacked under the chart.
    let plus = chart(&d.join("jsonplus.svg"));
    assert!(
        plus.text.matches("<svg").count() == 3,
        "the outer SVG and two charts"
    );
}

#[test]
fn a_chart_only_replaces_a_chart_and_is_named_svg() {
    let dir = workdir();
    let d = dir.path();
    std::fs::write(
        d.join("logo.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    )
    .unwrap();
    for (file, says) in [
        (
            "logo.svg",
            "is not a diskscope chart, refusing to overwrite it",
        ),
        ("chart.png", "the chart is SVG; name the file .svg"),
    ] {
        let out = diskscope(d, &["--size", "16M", "-T", "1s", "--plot", file]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        assert!(stderr(&out).contains(says), "{file}: {}", stderr(&out));
        // Refused before anything ran: no scratch file was laid out.
        assert!(!d.join("diskscope.scratch").exists());
    }
    assert_eq!(
        std::fs::read_to_string(d.join("logo.svg")).unwrap(),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"
    );
    // A chart it drew is replaced.
    ok(d, &["--size", "16M", "-T", "1s", "-q", "--plot", "run.svg"]);
    let first = std::fs::read(d.join("run.svg")).unwrap();
    ok(d, &["--size", "16M", "-T", "1s", "-q", "--plot", "run.svg"]);
    assert_ne!(std::fs::read(d.join("run.svg")).unwrap(), first);
    let out = diskscope(d, &["--list", "--plot", "x.svg"]);
    assert!(
        stderr(&out).contains("--list has no result to draw"),
        "{}",
        stderr(&out)
    );
}

/// The inputs `scripts/bench-plot` times the binary on: an hour's run in twelve periods
/// (3,600 intervals) and fio's JSON of 10,000 jobs, written to $BENCH_DIR (a temporary
/// directory without it), each drawn once here under a megabyte.
#[test]
#[ignore = "writes the benchmark's inputs (slow in debug builds): scripts/bench-plot runs it"]
fn write_bench_inputs() {
    let temp = workdir();
    let dir = std::env::var_os("BENCH_DIR").map_or_else(|| temp.path().to_path_buf(), Into::into);
    let hour = chart_common::hour_run_with_periods();
    std::fs::write(
        dir.join("hour.json"),
        serde_json::to_string_pretty(&hour).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("fio-10000.json"), chart_common::many_jobs(10_000)).unwrap();
    if std::env::var_os("BENCH_DIR").is_some() {
        return;
    }
    for input in ["hour.json", "fio-10000.json"] {
        ok(&dir, &["--show", input, "--plot", "out.svg"]);
        let bytes = std::fs::metadata(dir.join("out.svg")).unwrap().len();
        assert!(bytes < 1 << 20, "{input}: an SVG of {bytes} bytes");
        std::fs::remove_file(dir.join("out.svg")).unwrap();
    }
}
