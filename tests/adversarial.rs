//! What the fourth outside adversarial test broke (after issues 19 and 20), without root: each
//! test runs the real binary and failed before its fix. The root-only ones are in
//! `root_overlay.rs` (overlay filesystems).

mod common;

use common::{checksum, diskscope, make_file, stderr, workdir};

/// A refusal: exit `code`, one line on stderr with every needle, no panic.
fn refused(out: &std::process::Output, code: i32, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected:\n{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "missing {n:?} in: {err}");
    }
}

/// `--allow-write=NAME` that names something other than what the run writes is a mistake,
/// not a licence: `diskscope /var/lib/db/data.ibd --allow-write=/dev/sdb` wrote the file.
#[test]
fn allow_write_naming_something_else_writes_nothing() {
    let dir = workdir();
    let file = dir.path().join("precious.db");
    make_file(&file, 4 << 20);
    let before = checksum(&file);
    let write = |target: &[&str], named: &str| {
        let allow = format!("--allow-write={named}");
        let mut args = target.to_vec();
        args.extend([allow.as_str(), "--read", "0", "--no-tui", "-T", "200ms"]);
        args.extend(["--buffered", "--size", "4M"]);
        diskscope(dir.path(), &args)
    };
    for other in ["/dev/sdb", "other.db", "precious.db.bak"] {
        let out = write(&["precious.db"], other);
        refused(
            &out,
            2,
            &[
                "precious.db",
                "--allow-write names",
                other,
                "not what this run writes",
            ],
        );
        assert_eq!(checksum(&file), before, "precious.db written for {other}");
    }
    // The scratch file: a name of a disk is refused before anything is laid out.
    let out = write(&[], "/dev/sdb");
    refused(
        &out,
        2,
        &["diskscope.scratch", "--allow-write names /dev/sdb"],
    );
    assert!(!dir.path().join("diskscope.scratch").exists());

    // What the run writes, by any of its names, or no name at all, is written.
    let abs = file.to_str().unwrap().to_string();
    for named in ["precious.db", "./precious.db", abs.as_str(), ""] {
        let out = if named.is_empty() {
            diskscope(
                dir.path(),
                &[
                    "precious.db",
                    "--allow-write",
                    "--read",
                    "0",
                    "--no-tui",
                    "-T",
                    "200ms",
                ],
            )
        } else {
            write(&["precious.db"], named)
        };
        assert!(out.status.success(), "{named:?}: {}", stderr(&out));
    }
    assert_ne!(checksum(&file), before, "the named file was written");
    for named in [".", "diskscope.scratch", "./diskscope.scratch"] {
        let out = write(&[], named);
        assert!(out.status.success(), "{named:?}: {}", stderr(&out));
    }
}
