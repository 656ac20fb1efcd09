//! The drive's own health through the real binary: a stand-in `smartctl` first on `PATH`
//! prints JSON written from smartmontools' documented output (`tests/fixtures/smartctl/`),
//! and a sysfs fixture tree (`SYSFS_PATH`) makes the target look like a SATA, SAS or NVMe
//! disk. The stand-in logs every command line it gets, so the tests can check what was asked
//! (`-n standby`, never a self-test). Nothing here touches a real drive's SMART.

mod common;
mod tmux_common;

use std::ffi::OsString;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/smartctl")
        .join(name)
}

fn sysfs(name: &str) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysfs");
    // git keeps no empty directory: make.py lists the trees' empty ones, made here once.
    let list = std::fs::read_to_string(base.join("empty-dirs.txt")).unwrap();
    for dir in list.lines() {
        let _ = std::fs::create_dir_all(base.join(dir));
    }
    base.join(name)
}

/// A directory holding a stand-in `smartctl` whose body is `body` (sh); every call's
/// arguments are appended to `calls` beside it, and `$n` is the call's number (1, 2, …).
struct Stub {
    dir: tempfile::TempDir,
}

impl Stub {
    fn new(body: &str) -> Stub {
        let dir = tempfile::tempdir().unwrap();
        let calls = dir.path().join("calls");
        let script = format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nn=$(wc -l < '{}')\n{body}\n",
            calls.display(),
            calls.display()
        );
        let path = dir.path().join("smartctl");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Stub { dir }
    }

    /// Prints `file` and exits with `status`, whatever it is asked.
    fn answering(file: &str, status: i32) -> Stub {
        Stub::new(&format!("cat '{}'\nexit {status}", fixture(file).display()))
    }

    /// `PATH` with the stand-in first.
    fn path(&self) -> OsString {
        let mut p = OsString::from(self.dir.path());
        p.push(":");
        p.push(std::env::var_os("PATH").unwrap_or_default());
        p
    }

    fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// `diskscope args…` with `PATH` and `SYSFS_PATH` set.
fn run(path: &OsString, sys: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .env("PATH", path)
        .env("SYSFS_PATH", sys)
        .env("DISKSCOPE_SMARTCTL_TIMEOUT", "5")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("diskscope runs")
}

fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "diskscope failed: {}",
        common::stderr(o)
    );
    assert!(
        !common::stderr(o).contains("panicked"),
        "{}",
        common::stderr(o)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

fn listed<'a>(devs: &'a Value, name: &str) -> &'a Value {
    devs.as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {devs}"))
}

fn texts(findings: &Value) -> Vec<String> {
    findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap().to_string())
        .collect()
}

/// `--health`'s report with each wrapped line joined to the one it continues (a line
/// indented four or more that is not a new "- " item).
fn joined(report: &str) -> String {
    let mut out = String::new();
    for line in report.lines() {
        let deep = line.starts_with("    ") && !line.trim_start().starts_with("- ");
        if deep && !out.is_empty() {
            out.pop();
            out.push(' ');
            out.push_str(line.trim_start());
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn row<'a>(table: &'a str, name: &str) -> &'a str {
    table
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no {name} row in\n{table}"))
}

fn assert_fits(table: &str) {
    for line in table.lines() {
        assert!(
            line.chars().count() <= 80,
            "wider than 80: {line:?}\n{table}"
        );
    }
}

/// smartctl was asked with `-n standby` every time, and never to run a test.
fn assert_gentle(stub: &Stub) {
    let calls = stub.calls();
    assert!(!calls.is_empty(), "smartctl was never called");
    for c in &calls {
        assert!(c.contains("-n standby"), "{c}");
        assert!(c.contains("--json"), "{c}");
        assert!(!c.contains("-t ") && !c.contains("--test"), "{c}");
    }
}

#[test]
fn a_worn_sata_ssd_is_worn_in_the_list_within_80_columns_and_in_its_json() {
    let stub = Stub::answering("sata-ssd-worn.json", 0);
    let sys = sysfs("sata-3g");
    let table = stdout(&run(&stub.path(), &sys, &["--list"]));
    assert!(table.lines().next().unwrap().contains("HEALTH"), "{table}");
    assert!(row(&table, "sda").contains("worn 31002h"), "{table}");
    assert_fits(&table);
    assert_gentle(&stub);
    assert!(stub.calls()[0].ends_with("/dev/sda"), "{:?}", stub.calls());

    let devs = json(&run(&stub.path(), &sys, &["--list", "--json"]));
    let h = &listed(&devs, "sda")["health"];
    assert_eq!(h["status"], "worn");
    assert_eq!(h["power_on_hours"], 31002);
    let rec = &h["record"];
    assert_eq!(rec["source"], "smartctl");
    assert_eq!(rec["source_version"], "7.3");
    assert_eq!(rec["percentage_used"], 93);
    assert_eq!(rec["written_bytes"], 300_000_000_000_000u64);
    assert_eq!(rec["raw"]["5 Reallocated_Sector_Ct"], "12");
    let said = texts(&h["findings"]);
    assert!(
        said.iter()
            .any(|t| t.starts_with("12 reallocated sectors: ")),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|t| t == "has used 93% of its rated endurance: near its rated writes"),
        "{said:?}"
    );
    assert!(
        said.iter()
            .any(|t| t
                == "has run 31,002 hours (3.5 years) over 846 power cycles and written 300 TB"),
        "{said:?}"
    );
    assert!(
        listed(&devs, "sda1").get("health").is_none(),
        "a partition shares its disk's"
    );
}

#[test]
fn an_hdd_sold_as_new_is_caught_by_its_farm_log() {
    let stub = Stub::new(&format!(
        "case \"$*\" in *farm*) cat '{}';; *) cat '{}';; esac",
        fixture("hdd-farm.json").display(),
        fixture("hdd-reset.json").display()
    ));
    let out = joined(&stdout(&run(
        &stub.path(),
        &sysfs("sata-3g"),
        &["--health"],
    )));
    assert!(
        out.starts_with("/dev/sda: worn; its own verdict: PASSED"),
        "{out}"
    );
    assert!(
        out.contains(
            "SMART says 12 hours, the drive's FARM log says 23,456: the SMART hours were reset"
        ),
        "{out}"
    );
    assert!(
        out.contains("read from /dev/sda (smartctl 7.4, ATA, ST8000NM000A-2KE101"),
        "{out}"
    );
    let calls = stub.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls[1].contains("-l farm"), "{calls:?}");
    assert_gentle(&stub);
}

#[test]
fn a_sas_drive_says_its_grown_defects_and_non_medium_errors() {
    let stub = Stub::answering("sas.json", 0);
    let list = json(&run(&stub.path(), &sysfs("sas"), &["--health", "--json"]));
    let h = &list[0]["health"];
    assert_eq!(list[0]["target"], "/dev/sdd");
    assert_eq!(h["status"], "worn");
    let counters = h["record"]["counters"].as_array().unwrap();
    let value = |key: &str| counters.iter().find(|c| c["key"] == key).unwrap()["value"].clone();
    assert_eq!(value("grown_defects"), 3);
    assert_eq!(value("non_medium_errors"), 12);
    assert_eq!(value("uncorrected_read_errors"), 0);
    assert_eq!(h["record"]["power_on_hours"], 41210);
    assert_eq!(h["record"]["power_cycles"], 97);
    assert_eq!(h["record"]["written_bytes"], 98_211_004_000_000u64);
    assert_eq!(h["record"]["model"], "TOSHIBA AL15SEB18EQ");
    assert!(
        texts(&h["findings"])
            .iter()
            .any(|t| t.starts_with("3 grown defects: "))
    );
}

#[test]
fn an_nvme_drive_at_100_percent_used_is_worn_and_told_why_bit_0x04_is_set() {
    let stub = Stub::answering("nvme-used-up.json", 8);
    let sys = sysfs("nvme-x2");
    let list = json(&run(&stub.path(), &sys, &["--health", "--json"]));
    let h = &list[0]["health"];
    assert_eq!(h["status"], "worn", "{h}");
    let said = texts(&h["findings"]);
    assert!(
        said[0].contains("has used 100% of its rated endurance"),
        "{said:?}"
    );
    assert!(said[0].contains("smartmontools#537"), "{said:?}");
    assert!(said.iter().all(|t| !t.contains("FAILING")), "{said:?}");
    assert_eq!(h["record"]["written_bytes"], 717_936_577_024_000u64);
    // Without root's ioctl on the controller, smartctl is asked about the controller.
    assert!(
        stub.calls()[0].ends_with("/dev/nvme0"),
        "{:?}",
        stub.calls()
    );
    // This link's label is long: the hours give way so the line keeps its 80 columns.
    let table = stdout(&run(&stub.path(), &sys, &["--list"]));
    let cells: Vec<&str> = row(&table, "nvme0n1").split_whitespace().collect();
    assert!(cells.contains(&"worn"), "{table}");
    assert_fits(&table);
}

/// `--health --json=FILE` saves the same list `--json` prints (it printed text and saved
/// nothing), and a flag `--health` does not use is refused.
#[test]
fn health_saves_its_json_to_the_file_named() {
    let stub = Stub::answering("nvme-used-up.json", 8);
    let sys = sysfs("nvme-x2");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("h.json");
    let arg = format!("--json={}", file.display());
    let text = stdout(&run(&stub.path(), &sys, &["--health", &arg]));
    assert!(text.contains("worn"), "{text}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let printed = json(&run(&stub.path(), &sys, &["--health", "--json"]));
    assert_eq!(saved[0]["health"]["status"], printed[0]["health"]["status"]);
    assert_eq!(saved[0]["target"], printed[0]["target"]);
    let out = run(&stub.path(), &sys, &["--health", "--csv=h.csv"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("does not use --csv"));
}

#[test]
fn without_smartctl_one_line_says_how_to_get_it_and_nothing_else_breaks() {
    let empty = tempfile::tempdir().unwrap();
    let path = OsString::from(empty.path());
    let table = stdout(&run(&path, &sysfs("usb"), &["--list"]));
    assert!(row(&table, "sdb").contains("unknown"), "{table}");
    let notes: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("HEALTH unknown"))
        .collect();
    assert_eq!(notes.len(), 1, "one line for both drives:\n{table}");
    assert!(
        notes[0].starts_with("HEALTH unknown (sdb, sdc): smartctl not found"),
        "{table}"
    );
    assert!(table.contains("apt install smartmontools"), "{table}");
    assert_fits(&table);
    let out = stdout(&run(&path, &sysfs("usb"), &["--health"]));
    assert!(
        out.contains("smartctl not found: `apt install smartmontools`"),
        "{out}"
    );
}

#[test]
fn smartctl_failing_printing_garbage_or_hanging_is_one_clear_line() {
    let sys = sysfs("sata-3g");
    let cases = [
        (
            Stub::answering("open-failed.json", 2),
            "/dev/sda: smartctl could not read /dev/sda: Smartctl open device: /dev/sda failed: Permission denied",
        ),
        (
            Stub::new("echo 'Segmentation fault'\nexit 139"),
            "/dev/sda: smartctl printed no JSON (Segmentation fault) for /dev/sda, exit status 139",
        ),
        (
            Stub::new("echo '=======> UNRECOGNIZED OPTION: json'\nexit 1"),
            "/dev/sda: smartctl is older than 7.0 and has no --json: upgrade smartmontools",
        ),
        (
            Stub::new("exit 0"),
            "/dev/sda: smartctl printed nothing for /dev/sda, exit status 0",
        ),
    ];
    for (stub, line) in cases {
        let out = stdout(&run(&stub.path(), &sys, &["--health"]));
        assert_eq!(out.trim_end(), line);
        let table = stdout(&run(&stub.path(), &sys, &["--list"]));
        assert!(row(&table, "sda").contains("unknown"), "{table}");
    }
    let hung = Stub::new("exec sleep 30");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["--health"])
        .env("PATH", hung.path())
        .env("SYSFS_PATH", &sys)
        .env("DISKSCOPE_SMARTCTL_TIMEOUT", "0.5")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "waited {:?}",
        started.elapsed()
    );
    assert_eq!(
        text.trim_end(),
        "/dev/sda: smartctl did not answer for /dev/sda within 0.5 s: stopped it"
    );
}

#[test]
fn a_sleeping_drive_is_listed_asleep_and_not_woken() {
    let stub = Stub::answering("standby.json", 2);
    let table = stdout(&run(&stub.path(), &sysfs("sata-3g"), &["--list"]));
    assert!(row(&table, "sda").contains("asleep"), "{table}");
    assert!(!table.contains("HEALTH unknown"), "{table}");
    assert_gentle(&stub);
    assert_eq!(stub.calls().len(), 1, "asked once, not again to wake it");
}

#[test]
fn a_loop_device_has_no_smart_and_smartctl_is_not_asked() {
    let stub = Stub::answering("sata-ssd-worn.json", 0);
    let sys = sysfs("loop");
    let table = stdout(&run(&stub.path(), &sys, &["--list", "--all"]));
    assert!(
        row(&table, "loop0").split_whitespace().any(|c| c == "-"),
        "{table}"
    );
    let out = stdout(&run(&stub.path(), &sys, &["--health"]));
    assert!(
        out.contains("/dev/loop0: no SMART data (loop device)"),
        "{out}"
    );
    assert!(stub.calls().is_empty(), "{:?}", stub.calls());
}

#[test]
fn health_of_a_target_that_does_not_exist_is_one_line_naming_it() {
    let stub = Stub::answering("sata-ssd-worn.json", 0);
    let out = run(
        &stub.path(),
        &sysfs("sata-3g"),
        &["--health", "/nonexistent/x"],
    );
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(
        err.contains("/nonexistent/x: No such file or directory"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// A copy of the sata-3g tree in which the device under `dir` is its SATA disk `sda`.
fn sata_under(dir: &Path) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let sys = root.path().join("sys");
    common::run(
        "cp",
        &[
            "-a",
            sysfs("sata-3g").to_str().unwrap(),
            sys.to_str().unwrap(),
        ],
    );
    let dev = std::fs::metadata(dir).unwrap().dev();
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    let link = sys.join(format!("dev/block/{major}:{minor}"));
    let target = std::fs::read_link(sys.join("dev/block/8:0")).unwrap();
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(target, link).unwrap();
    root
}

#[test]
fn crc_errors_that_rise_during_a_run_are_a_finding_and_the_json_keeps_start_and_end() {
    let stub = Stub::new(&format!(
        "if [ \"$n\" -le 1 ]; then cat '{}'; else cat '{}'; fi",
        fixture("sata-crc-before.json").display(),
        fixture("sata-crc-after.json").display()
    ));
    let work = common::workdir();
    let fake = sata_under(work.path());
    let sys = fake.path().join("sys");
    let args = ["--size", "16M", "-T", "2s", "--no-tui"];
    let text_run = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .env("PATH", stub.path())
        .env("SYSFS_PATH", &sys)
        .current_dir(work.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = stdout(&text_run);
    assert!(
        text.contains("  health: ok (smartctl 7.3): 4,012 h on, 61 power cycles, 36 °C"),
        "{text}"
    );
    assert!(
        text.contains(
            "  - 3 new UDMA CRC errors during the run: the cable or backplane, not the drive"
        ),
        "{text}"
    );
    assert!(
        text.contains("health: read 2 times (smartctl 7.3)"),
        "{text}"
    );
    assert_gentle(&stub);
    assert_eq!(
        stub.calls().len(),
        2,
        "read at the start and the end: {:?}",
        stub.calls()
    );

    // Again as JSON: the counters at the start and the end, and the finding with its time.
    let stub = Stub::new(&format!(
        "if [ \"$n\" -le 1 ]; then cat '{}'; else cat '{}'; fi",
        fixture("sata-crc-before.json").display(),
        fixture("sata-crc-after.json").display()
    ));
    let json_run = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .arg("--json")
        .env("PATH", stub.path())
        .env("SYSFS_PATH", &sys)
        .current_dir(work.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let j = json(&json_run);
    let crc = |at: &str| {
        j["health"][at]["counters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["key"] == "udma_crc_errors")
            .unwrap()["value"]
            .clone()
    };
    assert_eq!((crc("start"), crc("end")), (Value::from(4), Value::from(7)));
    assert_eq!(j["health"]["reads"], 2);
    assert_eq!(j["health"]["start"]["device"], "/dev/sda");
    let changed: Vec<&Value> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "health_changed")
        .collect();
    assert_eq!(changed.len(), 1, "{}", j["findings"]);
    assert!(
        changed[0]["at_s"].as_f64().unwrap() >= 1.5,
        "{}",
        changed[0]
    );
}

#[test]
fn a_suite_card_says_the_drives_health_and_its_json_keeps_start_and_end() {
    let stub = Stub::answering("sata-ssd-worn.json", 0);
    let work = common::workdir();
    let fake = sata_under(work.path());
    let fast = [
        "--suite", "peak", "--passes", "1", "-T", "0.3s", "--pause", "0.1s", "--size", "32M",
    ];
    let card = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(fast)
        .env("PATH", stub.path())
        .env("SYSFS_PATH", fake.path().join("sys"))
        .current_dir(work.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = stdout(&card);
    assert!(
        text.contains("  health: worn (smartctl 7.3): 31,002 h on"),
        "{text}"
    );
    assert!(
        text.contains("health: read 2 times (smartctl 7.3); at the end 31,002 h on"),
        "{text}"
    );
    assert!(text.contains("  - 12 reallocated sectors: "), "{text}");
    let j = json(
        &Command::new(env!("CARGO_BIN_EXE_diskscope"))
            .args(fast)
            .arg("--json")
            .env("PATH", stub.path())
            .env("SYSFS_PATH", fake.path().join("sys"))
            .current_dir(work.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap(),
    );
    assert_eq!(j["health"]["start"]["percentage_used"], 93);
    assert_eq!(j["health"]["end"]["percentage_used"], 93);
    assert!(
        texts(&j["findings"])
            .iter()
            .any(|t| t.starts_with("has run 31,002 hours"))
    );
}

#[test]
fn the_picker_and_the_run_screen_show_the_drives_health_and_the_tuis_json_keeps_it() {
    if !tmux_common::tmux_installed() {
        return;
    }
    let stub = Stub::answering("sata-ssd-worn.json", 0);
    let work = common::workdir();
    let fake = sata_under(work.path());
    let shell = format!(
        "cd '{}' && PATH='{}' SYSFS_PATH='{}' '{}' --size 32M --json=run.json; echo diskscope-exit=$?; sleep 60",
        work.path().display(),
        stub.path().to_string_lossy(),
        fake.path().join("sys").display(),
        tmux_common::bin()
    );
    let tmux = tmux_common::Tmux::start("diskscope-health", (110, 30), &shell);
    let picker = tmux.wait_for("the picker", Duration::from_secs(20), |s| {
        s.contains("scratch file here")
    });
    let sda = picker
        .lines()
        .find(|l| l.contains("/dev/sda "))
        .unwrap_or_else(|| panic!("no sda row:\n{picker}"));
    assert!(sda.contains("worn 31002h"), "{picker}");
    assert!(picker.contains("health"), "the column's title:\n{picker}");
    tmux.keys(&["Enter"]);
    let run = tmux.wait_for("the run screen", Duration::from_secs(60), |s| {
        s.contains("IOPS now")
    });
    assert!(
        run.contains(" health worn 31002h "),
        "the kernel pane's foot:\n{run}"
    );
    tmux.keys(&["q"]);
    let end = tmux.wait_for("the exit", Duration::from_secs(30), |s| {
        s.contains("diskscope-exit=")
    });
    assert!(end.contains("diskscope-exit=0"), "{end}");
    let j: Value =
        serde_json::from_str(&std::fs::read_to_string(work.path().join("run.json")).unwrap())
            .unwrap();
    assert_eq!(
        j["health"]["start"]["percentage_used"], 93,
        "{}",
        j["health"]
    );
    assert_eq!(j["health"]["end"]["percentage_used"], 93);
    assert!(
        texts(&j["findings"])
            .iter()
            .any(|t| t.starts_with("12 reallocated sectors"))
    );
    assert_gentle(&stub);
}

#[test]
fn several_targets_each_keep_their_drives_health_and_a_change_is_named() {
    // Both targets' start reads come first (calls 1 and 2), the end reads after.
    let stub = Stub::new(&format!(
        "if [ \"$n\" -le 2 ]; then cat '{}'; else cat '{}'; fi",
        fixture("sata-crc-before.json").display(),
        fixture("sata-crc-after.json").display()
    ));
    let work = common::workdir();
    for d in ["a", "b"] {
        std::fs::create_dir(work.path().join(d)).unwrap();
    }
    let fake = sata_under(work.path());
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["a", "b", "--size", "8M", "--no-tui", "--json", "-T", "1s"])
        .env("PATH", stub.path())
        .env("SYSFS_PATH", fake.path().join("sys"))
        .current_dir(work.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let j = json(&out);
    for t in j["targets"].as_array().unwrap() {
        assert_eq!(
            t["health"]["start"]["device"], "/dev/sda",
            "{}",
            t["health"]
        );
        assert!(t["health"]["end"].is_object(), "{}", t["health"]);
    }
    let named: Vec<String> = texts(&j["findings"])
        .into_iter()
        .filter(|t| t.contains("new UDMA CRC errors"))
        .collect();
    assert_eq!(
        named,
        ["a, b: 3 new UDMA CRC errors during the run: the cable or backplane, not the drive"],
        "one drive under both targets: one sentence naming both"
    );
    assert_eq!(stub.calls().len(), 4, "{:?}", stub.calls());
}

#[test]
fn a_sweep_keeps_the_drives_health_at_its_start_and_end() {
    let stub = Stub::new(&format!(
        "if [ \"$n\" -le 1 ]; then cat '{}'; else cat '{}'; fi",
        fixture("sata-crc-before.json").display(),
        fixture("sata-crc-after.json").display()
    ));
    let work = common::workdir();
    let fake = sata_under(work.path());
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args([
            "--sweep",
            "threads=1,2",
            "-T",
            "0.5s",
            "--size",
            "16M",
            "--json",
        ])
        .env("PATH", stub.path())
        .env("SYSFS_PATH", fake.path().join("sys"))
        .current_dir(work.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let j = json(&out);
    assert_eq!(
        j["health"]["start"]["device"], "/dev/sda",
        "{}",
        j["health"]
    );
    assert!(j["health"]["end"].is_object());
    assert!(
        texts(&j["findings"])
            .iter()
            .any(|t| t.starts_with("3 new UDMA CRC errors during the run")),
        "{}",
        j["findings"]
    );
}

#[test]
fn a_hung_smartctl_whose_child_holds_its_output_open_is_still_stopped_in_time() {
    // A wrapper script (`sh` running smartctl as its child, not exec'ing it) that hangs: the
    // child keeps the output pipe open after the script itself is killed.
    let hung = Stub::new("sleep 30\nexit 0");
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["--health"])
        .env("PATH", hung.path())
        .env("SYSFS_PATH", sysfs("sata-3g"))
        .env("DISKSCOPE_SMARTCTL_TIMEOUT", "0.5")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "waited {:?} for: {text}",
        started.elapsed()
    );
    assert_eq!(
        text.trim_end(),
        "/dev/sda: smartctl did not answer for /dev/sda within 0.5 s: stopped it"
    );
}

#[test]
fn bytes_that_are_not_utf8_in_a_drives_strings_do_not_lose_its_record() {
    // A drive's IDENTIFY strings are bytes; smartctl passes bytes above 0x7f through as they
    // are, which is not UTF-8.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("sata-ssd-worn.json")).unwrap();
    let mut bytes = text.into_bytes();
    let at = bytes
        .windows(b"S3Z1NB0K".len())
        .position(|w| w == b"S3Z1NB0K")
        .expect("the fixture's serial");
    bytes[at] = 0xe9;
    let answer = dir.path().join("latin1.json");
    std::fs::write(&answer, bytes).unwrap();
    let stub = Stub::new(&format!("cat '{}'", answer.display()));
    let out = joined(&stdout(&run(
        &stub.path(),
        &sysfs("sata-3g"),
        &["--health"],
    )));
    assert!(out.starts_with("/dev/sda: worn"), "{out}");
    assert!(out.contains("serial \u{fffd}3Z1NB0K000001X"), "{out}");
}

#[test]
fn json_cut_short_is_one_short_line_not_the_whole_answer() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("sata-ssd-worn.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let compact = serde_json::to_string(&v).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &compact[..compact.len() / 2]).unwrap();
    let stub = Stub::new(&format!("cat '{}'\nexit 0", cut.display()));
    let out = stdout(&run(&stub.path(), &sysfs("sata-3g"), &["--health"]));
    assert_eq!(
        out.trim_end(),
        format!(
            "/dev/sda: smartctl's JSON for /dev/sda ended after {} bytes, cut short, exit status 0",
            compact.len() / 2
        )
    );
}

#[test]
fn a_drive_that_answers_no_smart_figures_is_unknown_not_ok() {
    // A USB bridge that passes identity through but no SMART data: smartctl exits with bit 2
    // (a SMART command failed) and its answer holds no verdict, counter or wear figure.
    let stub = Stub::answering("usb-silent.json", 4);
    let sys = sysfs("sata-3g");
    let table = stdout(&run(&stub.path(), &sys, &["--list"]));
    assert!(row(&table, "sda").contains("unknown"), "{table}");
    let out = stdout(&run(&stub.path(), &sys, &["--health"]));
    assert!(out.starts_with("/dev/sda: unknown\n"), "{out}");
    assert!(
        joined(&out).contains(
            "its answer holds no SMART verdict, error counter or wear figure: nothing here \
             says whether it is sound"
        ),
        "{out}"
    );
    let devs = json(&run(&stub.path(), &sys, &["--health", "--json"]));
    assert_eq!(devs[0]["health"]["status"], "unknown", "{devs}");
    assert_eq!(devs[0]["health"]["power_on_hours"], 9120, "{devs}");
}

#[test]
fn the_health_report_fits_80_columns_as_the_list_does() {
    for (file, status) in [
        ("sata-ssd-worn.json", 0),
        ("nvme-used-up.json", 0),
        ("sas.json", 0),
        ("usb-silent.json", 4),
    ] {
        let stub = Stub::answering(file, status);
        let out = stdout(&run(&stub.path(), &sysfs("sata-3g"), &["--health"]));
        assert_fits(&out);
    }
}

#[test]
fn two_names_of_one_drive_read_it_once_and_say_the_same() {
    let stub = Stub::answering("sata-ssd-worn.json", 0);
    let work = common::workdir();
    let sub = work.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let fake = sata_under(work.path());
    let sys = fake.path().join("sys");
    let (a, b) = (work.path().to_str().unwrap(), sub.to_str().unwrap());
    let list = json(&run(
        &stub.path(),
        &sys,
        &["--health", "--json", "--", a, b],
    ));
    assert_eq!(stub.calls().len(), 1, "{:?}", stub.calls());
    assert_eq!(list[0]["disk"], "sda", "{list}");
    assert_eq!(list[0]["health"], list[1]["health"], "{list}");
}

#[test]
fn a_smartctl_on_path_that_cannot_run_is_named_with_the_fix() {
    // A directory named smartctl first on PATH, and nothing else by that name.
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("smartctl");
    std::fs::create_dir(&bogus).unwrap();
    let path = OsString::from(format!("{}:/nonexistent", dir.path().display()));
    let out = stdout(&run(&path, &sysfs("sata-3g"), &["--health"]));
    assert_eq!(
        out.trim_end(),
        format!(
            "/dev/sda: smartctl did not start: {} is not an executable file (Permission \
             denied); remove it from PATH or install smartmontools",
            bogus.display()
        )
    );
}
