//! What the fourth outside adversarial test broke (issue "Trust, round four"), through the
//! real binary: text from a file name or a fio JSON reaching a terminal or an SVG raw. Each
//! test failed before its fix.

mod common;

use std::path::Path;

use common::{diskscope, workdir};

/// No control character but line feed and tab in `text` (what a terminal may receive).
fn no_controls(what: &str, text: &str) {
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert!(bad.is_empty(), "{what}: controls {bad:?} in:\n{text}");
}

/// A chart that parses as XML and holds no control but white space.
fn good_svg(path: &Path) {
    let svg = std::fs::read_to_string(path).unwrap();
    if let Err(e) = roxmltree::Document::parse(&svg) {
        panic!("{}: not XML ({e})", path.display());
    }
    let bad = svg
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'));
    assert!(!bad, "{}: a control character in the SVG", path.display());
}

#[test]
fn a_target_named_with_controls_reaches_no_terminal_and_no_svg_raw() {
    let dir = workdir();
    let name = "ctl\x01\x1b[31mname.img";
    std::fs::write(dir.path().join(name), vec![1u8; 4 << 20]).unwrap();
    let out = diskscope(
        dir.path(),
        &[
            name,
            "--no-tui",
            "-T",
            "300ms",
            "--json=run.json",
            "--plot",
            "run.svg",
        ],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    no_controls("the run's text", &String::from_utf8_lossy(&out.stdout));
    no_controls("the run's stderr", &common::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r"ctl\u{1}\u{1b}[31mname.img"),
        "the name is shown, its controls made visible:\n{text}"
    );
    good_svg(&dir.path().join("run.svg"));
    let shown = diskscope(dir.path(), &["--show", "run.json", "--plot", "shown.svg"]);
    assert!(shown.status.success(), "{}", common::stderr(&shown));
    no_controls("--show", &String::from_utf8_lossy(&shown.stdout));
    good_svg(&dir.path().join("shown.svg"));
}

#[test]
fn a_fio_jobname_with_an_escape_reaches_no_terminal_and_no_svg_raw() {
    let dir = workdir();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio/jsonplus.json");
    let text = std::fs::read_to_string(fixture).unwrap();
    let jobname = text
        .split("\"jobname\" : \"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap()
        .to_string();
    let evil = text.replace(
        &format!("\"jobname\" : \"{jobname}\""),
        "\"jobname\" : \"job\\u001b[31m\\u009bred\"",
    );
    assert_ne!(evil, text, "the fixture names a job");
    std::fs::write(dir.path().join("fio.json"), evil).unwrap();
    let shown = diskscope(dir.path(), &["--show", "fio.json"]);
    assert!(shown.status.success(), "{}", common::stderr(&shown));
    let stdout = String::from_utf8_lossy(&shown.stdout);
    no_controls("--show of fio", &stdout);
    assert!(stdout.contains("job\\x1b[31m\\x9bred"), "{stdout}");
    let plotted = diskscope(dir.path(), &["--show", "fio.json", "--plot", "fio.svg"]);
    assert!(plotted.status.success(), "{}", common::stderr(&plotted));
    good_svg(&dir.path().join("fio.svg"));
    // fio itself (3.33) writes the ESC raw, which is no JSON: read all the same.
    let raw = std::fs::read_to_string(dir.path().join("fio.json"))
        .unwrap()
        .replace("\\u001b", "\x1b");
    std::fs::write(dir.path().join("raw.json"), raw).unwrap();
    let shown = diskscope(dir.path(), &["--show", "raw.json"]);
    assert!(shown.status.success(), "{}", common::stderr(&shown));
    no_controls(
        "--show of fio's raw output",
        &String::from_utf8_lossy(&shown.stdout),
    );
}

#[test]
fn several_targets_against_a_run_of_several_periods_say_they_compare_totals_only() {
    // A baseline run whose settings changed live (two periods): its total mixes them. One
    // target says "compared as totals only"; several targets must say it too.
    let dir = workdir();
    for f in ["a.img", "b.img"] {
        std::fs::write(dir.path().join(f), vec![3u8; 4 << 20]).unwrap();
    }
    let out = diskscope(dir.path(), &["a.img", "-T", "300ms", "--json=base.json"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let path = dir.path().join("base.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let first = v["periods"][0].clone();
    let mut second = first.clone();
    second["threads"] = 2.into();
    v["periods"] = serde_json::json!([first, second]);
    std::fs::write(&path, v.to_string()).unwrap();
    let one = diskscope(
        dir.path(),
        &["a.img", "-T", "300ms", "--baseline", "base.json"],
    );
    let one = String::from_utf8_lossy(&one.stdout).into_owned();
    assert!(
        one.contains("compared as totals only"),
        "one target:\n{one}"
    );
    let both = diskscope(
        dir.path(),
        &[
            "a.img",
            "b.img",
            "--no-tui",
            "-T",
            "300ms",
            "--baseline",
            "base.json",
        ],
    );
    assert!(both.status.success(), "{}", common::stderr(&both));
    let both = String::from_utf8_lossy(&both.stdout);
    assert!(
        both.contains("baseline base.json went through 2 periods")
            && both.contains("compared as totals only"),
        "several targets:\n{both}"
    );
}
