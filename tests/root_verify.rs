//! Data verified on real block devices (root): a loop device whose backing file has a bit
//! flipped after the write, or a block's old contents put back over a newer write (a dropped
//! write), is reported at the offset, corrupt or stale; a fake-capacity disk (the FUSE fixture
//! claiming 1 GiB, keeping 128 MiB, wrapping) is named with its real size by the full burn-in
//! and by the probe; and the write checks hold: no burn-in of a device not named by
//! --allow-write, none of a mounted one, the device left as it was.

mod common;
mod fusedisk;

use std::os::unix::fs::FileExt;

use common::{LoopDev, Mounted, diskscope, stderr, workdir};
use fusedisk::{Behaviour, FuseDisk};

const MIB: u64 = 1 << 20;

fn verify_json(out: &std::process::Output) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: stderr {}", stderr(out)));
    v["verify"].clone()
}

/// Puts `data` at `at` in the backing file of a loop device with direct I/O, and makes the
/// device see it (the loop device reads the file with O_DIRECT, which writes back first).
fn patch(file: &std::path::Path, at: u64, data: &[u8]) {
    let f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    f.write_all_at(data, at).unwrap();
    f.sync_all().unwrap();
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn a_bit_flipped_in_the_backing_file_is_reported_at_its_offset() {
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 32 << 20, &[]);
    let d = dev.path.as_str();
    let allow = format!("--allow-write={d}");
    let st = dir.path().join("s.json");
    let st = st.to_str().unwrap();
    let common = ["-b", "1M", "-t", "2", "--json", "--burn-in-state", st];
    let mut w = vec![d, "--burn-in=write", allow.as_str()];
    w.extend(common);
    let out = diskscope(dir.path(), &w);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let at = 17 * MIB + 12345;
    let backing = dir.path().join("backing");
    let mut b = [0u8];
    std::fs::File::open(&backing)
        .unwrap()
        .read_exact_at(&mut b, at)
        .unwrap();
    patch(&backing, at, &[b[0] ^ 0x01]);
    let mut v = vec![d, "--burn-in=verify"];
    v.extend(common);
    let out = diskscope(dir.path(), &v);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let r = verify_json(&out);
    assert_eq!(r["counts"]["corrupt"], 1, "{r}");
    assert_eq!(r["bad"][0]["offset"], at / 4096 * 4096, "{r}");
    assert_eq!(r["counts"]["intact"], 32 * MIB / 4096 - 1);
}

#[test]
#[ignore = "needs root: attaches a loop device"]
fn a_dropped_write_is_reported_stale() {
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 16 << 20, &[]);
    let d = dev.path.as_str();
    let allow = format!("--allow-write={d}");
    let backing = dir.path().join("backing");
    let st = dir.path().join("s.json");
    let st = st.to_str().unwrap();
    let args = |half: &'static str| {
        let mut a = vec![
            d.to_string(),
            half.into(),
            "-b".into(),
            "1M".into(),
            "--json".into(),
        ];
        a.extend(["--burn-in-state".into(), st.to_string()]);
        if half != "--burn-in=verify" {
            a.push(allow.clone());
        }
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        diskscope(dir.path(), &a)
    };
    assert_eq!(run(args("--burn-in=write")).status.code(), Some(0));
    let mut old = vec![0u8; 4096];
    std::fs::File::open(&backing)
        .unwrap()
        .read_exact_at(&mut old, 9 * MIB)
        .unwrap();
    assert_eq!(run(args("--burn-in=write")).status.code(), Some(0));
    patch(&backing, 9 * MIB, &old);
    let out = run(args("--burn-in=verify"));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let r = verify_json(&out);
    assert_eq!(r["counts"]["stale"], 1, "{r}");
    assert_eq!(r["bad"][0]["kind"], "stale");
    assert_eq!(r["bad"][0]["offset"], 9 * MIB);
}

fn fake(dir: &std::path::Path) -> Option<FuseDisk> {
    fake_of(dir, 1 << 30, 128 * MIB)
}

fn fake_of(dir: &std::path::Path, claim: u64, real: u64) -> Option<FuseDisk> {
    let b = Behaviour {
        claim,
        real: Some(real),
        ..Default::default()
    };
    match FuseDisk::start(dir, &b) {
        Ok(d) => Some(d),
        Err(why) => {
            eprintln!("skipped: {why}");
            None
        }
    }
}

#[test]
#[ignore = "needs root: FUSE mount and loop device"]
fn the_full_burn_in_names_a_fake_and_its_real_size() {
    let dir = workdir();
    let Some(disk) = fake(dir.path()) else { return };
    let d = disk.path();
    let allow = format!("--allow-write={d}");
    let out = diskscope(
        dir.path(),
        &[d, "--burn-in", &allow, "-b", "1M", "-t", "1", "--json"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let r = verify_json(&out);
    assert_eq!(r["capacity"]["real_bytes"], 128 * MIB, "{r}");
    let f = &r["findings"][0];
    assert_eq!(f["kind"], "fake_capacity", "{r}");
    let text = f["text"].as_str().unwrap();
    assert!(
        text.starts_with("the disk claims 1 GiB, but what is written at ")
            && text.contains("it holds at most 128 MiB; do not trust data past it"),
        "{text}"
    );
    let text_out = diskscope(dir.path(), &[d, "--burn-in=verify", "-b", "1M"]);
    let shown = String::from_utf8_lossy(&text_out.stdout);
    assert!(shown.contains("holds at most 128 MiB"), "{shown}");
}

#[test]
#[ignore = "needs root: FUSE mount and loop device"]
fn the_probe_names_a_fake_and_its_real_size_within_one_step() {
    let dir = workdir();
    let Some(disk) = fake(dir.path()) else { return };
    let d = disk.path();
    let allow = format!("--allow-write={d}");
    let out = diskscope(dir.path(), &[d, "--capacity-probe", &allow, "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let r = verify_json(&out);
    let real = r["capacity"]["real_bytes"].as_u64().unwrap();
    let step = (1u64 << 30) / 1024;
    assert!(
        (128 * MIB..=128 * MIB + step).contains(&real),
        "probe says {real}: {r}"
    );
    assert_eq!(r["findings"][0]["kind"], "fake_capacity", "{r}");
    // An honest disk of the same claim passes the probe.
    let honest = LoopDev::on_new_file(dir.path(), 64 << 20, &[]);
    let h = honest.path.as_str();
    let allow = format!("--allow-write={h}");
    let out = diskscope(dir.path(), &[h, "--capacity-probe", &allow, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = verify_json(&out);
    assert!(r["capacity"].is_null(), "{r}");
    assert_eq!(r["counts"]["intact"], 1024, "{r}");
}

#[test]
#[ignore = "needs root: attaches a loop device and mounts it"]
fn no_burn_in_of_a_device_not_named_or_mounted_and_nothing_written() {
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 32 << 20, &[]);
    let d = dev.path.as_str();
    let before = dev.checksum();
    for args in [
        vec![d, "--burn-in", "--allow-write"],
        vec![d, "--capacity-probe", "--allow-write=/dev/null"],
    ] {
        let out = diskscope(dir.path(), &args);
        let err = stderr(&out);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.contains("--allow-write="), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert_eq!(dev.checksum(), before, "the unnamed device was written");
    common::run("mkfs.ext4", &["-q", "-E", "nodiscard", d]);
    let mounted = Mounted::ext4(d, dir.path().join("mnt"));
    // Mounting writes the superblock: the sum is taken once the mount is made and idle.
    common::run("sync", &[]);
    let fs_sum = dev.checksum();
    let allow = format!("--allow-write={d}");
    for mode in ["--burn-in", "--burn-in=write", "--capacity-probe"] {
        let out = diskscope(dir.path(), &[d, mode, &allow]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{mode}: {err}");
        assert!(err.contains("mounted"), "{mode}: {err}");
    }
    assert_eq!(dev.checksum(), fs_sum, "the mounted device was written");
    drop(mounted);
}

/// A fake whose real size is a whole number of sectors but not of 4 KiB stamps.
const ODD_REAL: u64 = 100_001_280;

#[test]
#[ignore = "needs root: FUSE mount and loop device"]
fn a_fake_whose_size_is_not_a_whole_number_of_stamps_is_named_by_the_probe_and_the_burn_in() {
    let dir = workdir();
    let Some(disk) = fake_of(dir.path(), 512 * MIB, ODD_REAL) else {
        return;
    };
    let d = disk.path();
    let allow = format!("--allow-write={d}");
    let out = diskscope(dir.path(), &[d, "--capacity-probe", &allow, "--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let r = verify_json(&out);
    assert_eq!(r["capacity"]["real_bytes"], ODD_REAL, "{r}");
    assert_eq!(r["findings"][0]["kind"], "fake_capacity", "{r}");
    let out = diskscope(
        dir.path(),
        &[d, "--burn-in", &allow, "-b", "1M", "-t", "2", "--json"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let r = verify_json(&out);
    assert_eq!(r["capacity"]["real_bytes"], ODD_REAL, "{r}");
    assert_eq!(r["findings"][0]["kind"], "fake_capacity", "{r}");
    // Every number agrees: a finding's bytes are its stamps' (4 KiB each).
    let c = &r["counts"];
    let units: u64 = [
        "intact",
        "zeroes",
        "other_data",
        "corrupt",
        "stale",
        "aliased",
    ]
    .iter()
    .map(|k| c[*k].as_u64().unwrap())
    .sum();
    assert_eq!(units * 4096, 512 * MIB, "{c}");
}
