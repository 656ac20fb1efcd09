//! Data verified, on a regular file (no root): a burn-in that finds nothing says so and counts
//! every stamp; a bit flipped in the file between the write and the verify is reported at its
//! offset; a block whose old contents were put back after a newer write is reported stale; a
//! verify without the state file learns the seed from the stamps; writes need --allow-write.

mod common;

use std::os::unix::fs::FileExt;
use std::path::Path;

use common::{diskscope, stderr, workdir};

const MIB: u64 = 1 << 20;

fn verify_json(out: &std::process::Output) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: stdout {:?}, stderr {}", out.stdout, stderr(out)));
    v["verify"].clone()
}

fn burn(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["data", "-b", "256k", "-t", "2", "--json"];
    all.extend_from_slice(args);
    diskscope(dir, &all)
}

#[test]
fn a_clean_burn_in_checks_every_stamp_and_says_so() {
    let dir = workdir();
    common::make_file(&dir.path().join("data"), 8 * MIB as usize);
    let out = burn(dir.path(), &["--burn-in", "--allow-write", "--passes", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = verify_json(&out);
    assert_eq!(v["counts"]["intact"], 2 * 8 * MIB / 4096, "{v}");
    assert_eq!(v["pass"], 2);
    assert_eq!(v["written_bytes"], 16 * MIB);
    assert_eq!(v["verified_bytes"], 16 * MIB);
    assert_eq!(v["bad"].as_array().unwrap().len(), 0);
    assert_eq!(v["findings"][0]["kind"], "verified", "{v}");
    let cells = v["map"]["cells"].as_array().unwrap();
    assert!(cells.iter().all(|c| c == "verified"), "{cells:?}");
    assert_eq!(v["block_bytes"], 256 * 1024, "-b as asked");
    // Without -b, a whole-disk pass goes in 1 MiB blocks, not the run's 4 KiB.
    let out = diskscope(
        dir.path(),
        &["data", "--json", "--burn-in", "--allow-write"],
    );
    let v = verify_json(&out);
    assert_eq!(v["block_bytes"], MIB, "{v}");
    assert_eq!(v["counts"]["intact"], 8 * MIB / 4096, "{v}");
}

#[test]
fn a_flipped_bit_is_reported_corrupt_at_its_offset() {
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, 8 * MIB as usize);
    let state = dir.path().join("state.json");
    let st = state.to_str().unwrap();
    let w = burn(
        dir.path(),
        &["--burn-in=write", "--allow-write", "--burn-in-state", st],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    assert!(stderr(&w).contains("state.json"), "{}", stderr(&w));
    let at = 5 * MIB + 3 * 4096 + 1000;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut b = [0u8];
    f.read_exact_at(&mut b, at).unwrap();
    f.write_all_at(&[b[0] ^ 0x10], at).unwrap();
    f.sync_all().unwrap();
    let out = burn(dir.path(), &["--burn-in=verify", "--burn-in-state", st]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v = verify_json(&out);
    assert_eq!(v["counts"]["corrupt"], 1, "{v}");
    let bad = &v["bad"][0];
    assert_eq!(bad["kind"], "corrupt");
    assert_eq!(bad["offset"], at / 4096 * 4096);
    assert_eq!(bad["bytes"], 4096);
    let text = v["findings"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("offset {}", at / 4096 * 4096)),
        "{text}"
    );
    assert_eq!(v["written_bytes"], 0, "a verify writes nothing");
}

#[test]
fn old_contents_put_back_over_a_newer_write_are_stale() {
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, 4 * MIB as usize);
    let w = burn(dir.path(), &["--burn-in=write", "--allow-write"]);
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    let f = std::fs::File::open(&path).unwrap();
    let mut old = vec![0u8; 8192];
    f.read_exact_at(&mut old, 2 * MIB).unwrap();
    let state = dir.path().join("s.json");
    let st = state.to_str().unwrap();
    let w = burn(
        dir.path(),
        &["--burn-in=write", "--allow-write", "--burn-in-state", st],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    // The newer write "lost": the block holds what the first run left.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .write_all_at(&old, 2 * MIB)
        .unwrap();
    let out = burn(dir.path(), &["--burn-in=verify", "--burn-in-state", st]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let v = verify_json(&out);
    assert_eq!(v["counts"]["stale"], 2, "{v}");
    assert_eq!(v["bad"][0]["kind"], "stale");
    assert_eq!(v["bad"][0]["offset"], 2 * MIB);
    assert_eq!(v["bad"][0]["bytes"], 8192);
    assert!(
        v["findings"][0]["text"].as_str().unwrap().contains("lost"),
        "{v}"
    );
}

#[test]
fn a_verify_without_its_state_file_learns_the_seed_from_the_stamps() {
    let dir = workdir();
    common::make_file(&dir.path().join("data"), 2 * MIB as usize);
    let missing = dir.path().join("none.json");
    let m = missing.to_str().unwrap();
    let w = burn(dir.path(), &["--burn-in", "--allow-write"]);
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    let out = burn(dir.path(), &["--burn-in=verify", "--burn-in-state", m]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("come from the stamps"),
        "{}",
        stderr(&out)
    );
    assert_eq!(verify_json(&out)["counts"]["intact"], 2 * MIB / 4096);
    // A file that was never written has no stamp to learn from: one line, exit 1.
    common::make_file(&dir.path().join("data"), 2 * MIB as usize);
    let out = burn(dir.path(), &["--burn-in=verify", "--burn-in-state", m]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("run --burn-in=write first"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn writing_modes_need_allow_write_and_leave_the_file_alone_without_it() {
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, MIB as usize);
    let before = std::fs::read(&path).unwrap();
    for args in [
        vec!["data", "--burn-in"],
        vec!["data", "--burn-in=write"],
        vec!["data", "--capacity-probe"],
    ] {
        let out = diskscope(dir.path(), &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--allow-write"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    for (args, needle) in [
        (vec!["data", "--burn-in=read"], "--burn-in=verify"),
        (
            vec!["data", "--passes", "2", "--burn-in=verify"],
            "drop --passes",
        ),
        (vec!["data", "--burn-in-state", "x"], "--burn-in=write"),
    ] {
        let out = diskscope(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file was written"
    );
}

/// Writes the burn-in state at `state` over with `edit` applied.
fn edit_state(state: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut s: serde_json::Value = serde_json::from_slice(&std::fs::read(state).unwrap()).unwrap();
    edit(&mut s);
    std::fs::write(state, serde_json::to_vec(&s).unwrap()).unwrap();
}

#[test]
fn a_verify_of_a_write_that_stopped_early_checks_only_what_it_wrote() {
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, 8 * MIB as usize);
    let state = dir.path().join("state.json");
    let st = state.to_str().unwrap();
    let w = burn(
        dir.path(),
        &["--burn-in=write", "--allow-write", "--burn-in-state", st],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    // As a write stopped after 1 MiB of each thread's stripe leaves it: the rest never written.
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all_at(&vec![0; 3 * MIB as usize], MIB).unwrap();
    f.write_all_at(&vec![0; 3 * MIB as usize], 5 * MIB).unwrap();
    edit_state(&state, |s| {
        s["complete"] = false.into();
        s["written_bytes"] = (2 * MIB).into();
        s["written_ranges"] = serde_json::json!([[0, MIB], [4 * MIB, 5 * MIB]]);
    });
    let out = burn(dir.path(), &["--burn-in=verify", "--burn-in-state", st]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("only what it wrote is checked"), "{err}");
    let v = verify_json(&out);
    assert_eq!(v["verified_bytes"], 2 * MIB, "{v}");
    assert_eq!(v["counts"]["intact"], 2 * MIB / 4096, "{v}");
    assert_eq!(v["counts"]["zeroes"], 0, "{v}");
    assert_eq!(v["written_ranges"][1][0], 4 * MIB, "{v}");
    // The text says what was checked.
    let out = diskscope(
        dir.path(),
        &[
            "data",
            "-b",
            "256k",
            "--burn-in=verify",
            "--burn-in-state",
            st,
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("it wrote 2 MiB of 8 MiB in 2 stretch(es): only that was checked"),
        "{text}"
    );
}

#[test]
fn a_state_file_of_another_target_is_refused_in_one_line_naming_both() {
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, 2 * MIB as usize);
    let state = dir.path().join("state.json");
    let st = state.to_str().unwrap();
    let w = burn(
        dir.path(),
        &["--burn-in=write", "--allow-write", "--burn-in-state", st],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    edit_state(&state, |s| s["target"] = "/dev/loop3".into());
    let out = burn(dir.path(), &["--burn-in=verify", "--burn-in-state", st]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("of /dev/loop3, not data"), "{err}");
    assert!(out.stdout.is_empty(), "nothing checked");
}

#[test]
fn one_older_block_at_offset_0_does_not_choose_the_run_a_stateless_verify_checks() {
    let dir = workdir();
    let path = dir.path().join("data");
    common::make_file(&path, 8 * MIB as usize);
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let w = burn(
        dir.path(),
        &[
            "--burn-in=write",
            "--allow-write",
            "--burn-in-state",
            a.to_str().unwrap(),
        ],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    let old = std::fs::read(&path).unwrap()[..4096].to_vec();
    let w = burn(
        dir.path(),
        &[
            "--burn-in=write",
            "--allow-write",
            "--burn-in-state",
            b.to_str().unwrap(),
        ],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    let seed_b: serde_json::Value = serde_json::from_slice(&std::fs::read(&b).unwrap()).unwrap();
    // The first run's block put back at offset 0 (restored from an old image).
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all_at(&old, 0).unwrap();
    let none = dir.path().join("none.json");
    let out = burn(
        dir.path(),
        &[
            "--burn-in=verify",
            "--burn-in-state",
            none.to_str().unwrap(),
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "the old block is bad: {err}");
    let v = verify_json(&out);
    assert_eq!(v["seed"], seed_b["seed"], "the newer run is checked: {err}");
    assert_eq!(v["counts"]["intact"], 8 * MIB / 4096 - 1, "{v}");
    assert_eq!(v["bad"][0]["offset"], 0, "{v}");
    assert_eq!(v["bad"][0]["bytes"], 4096, "{v}");
    let from = v["seed_from"].as_str().unwrap_or_default();
    assert!(from.contains("of 128 places sampled"), "{v}");
    assert!(err.contains(from), "{err}");
}

#[test]
fn a_burn_in_of_part_of_a_disk_says_what_the_disk_claims_and_what_was_checked() {
    let dir = workdir();
    common::make_file(&dir.path().join("data"), 8 * MIB as usize);
    let out = burn(dir.path(), &["--burn-in", "--allow-write", "--size", "2M"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = verify_json(&out);
    assert_eq!(v["claimed_bytes"], 8 * MIB, "{v}");
    assert_eq!(v["span_bytes"], 2 * MIB, "{v}");
    let text = v["findings"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("(of 2 MiB of the disk's 8 MiB: the rest was not checked)"),
        "{text}"
    );
}
