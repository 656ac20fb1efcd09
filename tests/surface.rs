//! `--surface` on a disk that misbehaves on cue (tests/fixtures/fusedisk.py through a loop
//! device): the slow stretch and the read error are shown at their offsets in the JSON, the
//! map and the text; a stopped full scan resumes where it stopped; the quick scan samples every
//! region. And the refusals: --surface never writes, and says what it cannot go with.

mod common;
mod fusedisk;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{diskscope, json, stderr, workdir};
use fusedisk::{Behaviour, FuseDisk};
use serde_json::Value;

const MIB: u64 = 1 << 20;

/// A 64 MiB disk, slow (300 ms a request) at 16–18 MiB, failing reads at 40 MiB.
fn faulty() -> Behaviour {
    Behaviour {
        claim: 64 * MIB,
        slow: vec![(16 * MIB, 18 * MIB, 300)],
        eio: vec![(40 * MIB, 40 * MIB + 4096)],
        ..Behaviour::default()
    }
}

fn start(dir: &Path, b: &Behaviour) -> Option<FuseDisk> {
    match FuseDisk::start(dir, b) {
        Ok(d) => Some(d),
        Err(why) => {
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// The scan with its state directory in `dir`.
fn surface(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .env("XDG_STATE_HOME", dir.join("state"))
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn cells(doc: &Value) -> Vec<String> {
    doc["surface"]["map"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect()
}

fn kinds(doc: &Value) -> Vec<String> {
    (doc["findings"].as_array().unwrap().iter())
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
#[ignore = "needs root: FUSE mount and loop device"]
fn the_slow_stretch_and_the_read_error_are_where_the_disk_put_them() {
    let dir = workdir();
    let Some(disk) = start(dir.path(), &faulty()) else {
        return;
    };
    // 128 KiB reads, one FUSE request each (the kernel's cap): the fixture's threads serve
    // the reads in flight side by side, as a disk's queue does, and a slow request holds no
    // other read behind it (1 MiB reads are 8 requests each, and 8 of them in flight take
    // every thread the fixture has, so a read before the slow stretch would wait on it).
    let out = surface(
        dir.path(),
        &[disk.path(), "--surface", "--json", "-b", "128k"],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "read errors exit 3: {}",
        stderr(&out)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &doc["surface"];
    assert_eq!(s["complete"], true);
    // 64 MiB in 128 KiB regions (the map's cells are whole reads).
    assert_eq!(s["map"]["region_bytes"], 128 * 1024, "{}", s["map"]);
    let errors = s["errors"].as_array().unwrap();
    // The block layer merges neighbouring reads in flight: the failed request may take a few
    // of them with it, never one before the failing byte or past the next MiB.
    assert!(!errors.is_empty());
    assert_eq!(errors[0]["offset"], 40 * MIB, "{errors:?}");
    for e in errors {
        let at = e["offset"].as_u64().unwrap();
        assert!((40 * MIB..41 * MIB).contains(&at), "{errors:?}");
    }
    let cells = cells(&doc);
    assert_eq!(cells.len(), 512);
    let (slow, failed) = (128..144, 320..320 + errors.len());
    for (i, c) in cells.iter().enumerate() {
        let said = format!("region {i} ({} KiB) says {c}", i * 128);
        if slow.contains(&i) {
            assert!(c == "under600_ms" || c == "over600_ms", "{said}: {cells:?}");
        } else if failed.contains(&i) {
            assert_eq!(c, "read_error", "{said}");
        } else {
            let fast = ["under5_ms", "under20_ms", "under50_ms"];
            assert!(fast.contains(&c.as_str()), "{said}: {cells:?}");
        }
    }
    let found = kinds(&doc);
    for k in [
        "surface_read_errors",
        "surface_slow_region",
        "surface_slow_reads",
    ] {
        assert!(
            found.contains(&k.to_string()),
            "{k} missing: {:?}",
            doc["findings"]
        );
    }
    let slow = (doc["findings"].as_array().unwrap().iter())
        .find(|f| f["kind"] == "surface_slow_region")
        .unwrap();
    let text = slow["text"].as_str().unwrap();
    assert!(text.contains("at 16 MiB–18 MiB"), "{text}");
    assert_eq!(
        found.iter().filter(|k| *k == "surface_slow_region").count(),
        1,
        "{found:?}"
    );

    // The same in text: the map's row, the error's line, the finding.
    let out = surface(
        dir.path(),
        &[disk.path(), "--surface", "--no-tui", "-b", "128k"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("at 40 MiB (byte 41943040), 128 KiB: Input/output error"),
        "{text}"
    );
    // The text map: 64 cells a row, 8 rows of 8 MiB; 16 MiB and 40 MiB start rows.
    let row = |at: &str| -> String {
        let line = (text.lines()).find(|l| l.trim_start().starts_with(at));
        line.unwrap_or_default()
            .split('|')
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(row("40 MiB |").chars().next(), Some('X'), "{text}");
    let slow_row = row("16 MiB |");
    assert!(
        slow_row.chars().take(16).all(|c| "*#".contains(c)),
        "{text}"
    );
    assert!(row("8 MiB |").chars().all(|c| ".:-".contains(c)), "{text}");
}

#[test]
#[ignore = "needs root: FUSE mount and loop device"]
fn a_stopped_scan_resumes_where_it_stopped() {
    let dir = workdir();
    let log = dir.path().join("reads.log");
    let b = Behaviour {
        claim: 64 * MIB,
        slow: vec![(32 * MIB, 64 * MIB, 40)],
        log: Some(log.clone()),
        ..Behaviour::default()
    };
    let Some(disk) = start(dir.path(), &b) else {
        return;
    };
    let child = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args([disk.path(), "--surface", "--json"])
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Stop it once the disk says it is reading the slow half.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = std::fs::read_to_string(&log).unwrap_or_default();
        let past = seen
            .lines()
            .any(|l| l.split(' ').nth(1).and_then(|o| o.parse::<u64>().ok()) >= Some(40 * MIB));
        if past {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the scan never reached 40 MiB: {seen}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let first = child.wait_with_output().unwrap();
    let err = stderr(&first);
    assert!(err.contains("the same command resumes it"), "{err}");
    let doc: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(doc["surface"]["complete"], false);
    let kept = doc["resume_file"].as_str().unwrap().to_string();
    assert!(
        kept.starts_with(
            &dir.path()
                .join("state/diskscope/surface")
                .display()
                .to_string()
        ),
        "{kept}"
    );
    let read_first = doc["surface"]["bytes_read"].as_u64().unwrap();
    assert!((40 * MIB..64 * MIB).contains(&read_first), "{read_first}");

    std::fs::write(&log, "").unwrap();
    let second = surface(dir.path(), &[disk.path(), "--surface", "--json"]);
    let doc = json(&second);
    let s = &doc["surface"];
    assert_eq!(s["complete"], true, "{}", stderr(&second));
    assert_eq!(
        s["resumed_from"], read_first,
        "it resumes at the first byte not read"
    );
    assert_eq!(s["bytes_read"], 64 * MIB);
    assert!(
        cells(&doc).iter().all(|c| c != "not_yet"),
        "{:?}",
        cells(&doc)
    );
    let reads = std::fs::read_to_string(&log).unwrap();
    // The open's O_DIRECT probe reads the first block; the scan's reads are the rest.
    let lowest = (reads.lines())
        .filter_map(|l| {
            let mut w = l.split(' ').skip(1).map(|n| n.parse::<u64>().ok());
            Some((w.next()??, w.next()??))
        })
        .filter(|&(offset, len)| !(offset == 0 && len <= 4096))
        .map(|(offset, _)| offset)
        .min();
    assert_eq!(
        lowest,
        Some(read_first),
        "the second session read nothing before it"
    );
    assert!(
        !Path::new(&kept).exists(),
        "a finished scan forgets its state"
    );
}

#[test]
#[ignore = "needs root: FUSE mount and loop device"]
fn a_quick_scan_samples_every_region_of_a_large_disk() {
    let dir = workdir();
    let b = Behaviour {
        claim: 4 << 30,
        real: Some(64 * MIB),
        log: Some(dir.path().join("reads.log")),
        ..Behaviour::default()
    };
    let Some(disk) = start(dir.path(), &b) else {
        return;
    };
    let doc = json(&surface(
        dir.path(),
        &[disk.path(), "--surface=quick", "--json"],
    ));
    let s = &doc["surface"];
    assert_eq!(s["kind"], "quick");
    assert_eq!(s["map"]["region_bytes"], 16 * MIB);
    assert_eq!(cells(&doc).len(), 256);
    assert!(
        cells(&doc).iter().all(|c| c.starts_with("under")),
        "{:?}",
        cells(&doc)
    );
    // 8 MiB of each 16 MiB region: half the disk, from each region's start.
    assert_eq!(s["bytes_read"], 2048 * MIB);
    let reads = std::fs::read_to_string(dir.path().join("reads.log")).unwrap();
    assert!(reads.lines().all(|l| {
        let off: u64 = l.split(' ').nth(1).unwrap().parse().unwrap();
        off % (16 * MIB) < 8 * MIB
    }));
}

#[test]
fn the_scan_refuses_what_it_cannot_go_with() {
    let dir = workdir();
    let file = dir.path().join("f");
    common::make_file(&file, 1 << 20);
    let f = file.to_str().unwrap();
    let other = dir.path().join("g");
    common::make_file(&other, 1 << 20);
    let g = other.to_str().unwrap();
    for (args, says) in [
        (
            vec![f, "--surface", "--sweep", "threads=1,2"],
            "does not use --sweep",
        ),
        (vec![f, g, "--surface"], "cannot go with several targets"),
        (vec![f, "--surface=slow"], "--surface takes quick"),
        // Once, a suite given beside the scan ran instead of it, and wrote.
        (
            vec![
                f,
                "--surface",
                "--suite",
                "real",
                "--allow-write",
                "-T",
                "1s",
            ],
            "does not use --suite",
        ),
        (vec![f, "--surface", "--rate", "100"], "does not use --rate"),
        (vec![f, "--surface", "--hipri"], "does not use --hipri"),
        (
            vec!["--surface", "--no-tui"],
            "reads what a disk or file already holds",
        ),
        (
            vec![dir.path().to_str().unwrap(), "--surface", "--no-tui"],
            "a directory would get a scratch file",
        ),
    ] {
        let before = common::checksum(&file);
        let out = diskscope(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).lines().count(),
            1,
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}: nothing ran");
        assert_eq!(common::checksum(&file), before, "{args:?} wrote");
        assert!(!dir.path().join("diskscope.scratch").exists(), "{args:?}");
    }
}

/// `-b` and `-Q` typed are the scan's read size and depth even at the run's own defaults
/// (4k, 1), which once counted as "not given" and became 1 MiB at depth 8.
#[test]
fn the_read_size_and_depth_typed_are_used_even_at_the_runs_defaults() {
    let dir = workdir();
    let file = dir.path().join("f");
    common::make_file(&file, 1 << 20);
    let f = file.to_str().unwrap();
    for (args, block, depth) in [
        (
            vec![f, "--surface", "--json", "-b", "4k", "-Q", "1"],
            4096,
            1,
        ),
        (vec![f, "--surface", "--json"], 1 << 20, 8),
        (vec![f, "--surface", "--json", "-b", "64k"], 64 << 10, 8),
    ] {
        let doc = json(&surface(dir.path(), &args));
        let s = &doc["surface"];
        assert_eq!(
            (&s["block_bytes"], &s["depth"]),
            (&block.into(), &depth.into()),
            "{args:?}"
        );
    }
}

#[test]
fn a_scan_of_a_file_reads_it_all_writes_nothing_and_saves_its_csv_and_chart() {
    let dir = workdir();
    let file = dir.path().join("f");
    common::make_file(&file, 8 << 20);
    let before = common::checksum(&file);
    let (csv, svg) = (dir.path().join("scan.csv"), dir.path().join("scan.svg"));
    let args = [
        file.to_str().unwrap(),
        "--surface",
        "--json",
        "--allow-write",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        svg.to_str().unwrap(),
    ];
    let doc = json(&surface(dir.path(), &args));
    assert_eq!(doc["surface"]["bytes_read"], 8 << 20);
    assert_eq!(doc["surface"]["complete"], true);
    assert_eq!(
        common::checksum(&file),
        before,
        "the scan wrote to its target"
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(
        rows.starts_with("region,offset_bytes,len_bytes,bytes_read,"),
        "{rows}"
    );
    assert_eq!(
        rows.lines().count(),
        1 + 8,
        "a row per 1 MiB region: {rows}"
    );
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(
        chart.contains("<desc>diskscope chart: surface scan: full scan of"),
        "{chart}"
    );
}
