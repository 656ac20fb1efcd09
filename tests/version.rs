//! `diskscope --version` for bug reports: the version, the commit the binary was built from and
//! the target. The commit's sources (build.rs) are checked here too: git only at the top of
//! this crate's own work tree, `.cargo_vcs_info.json` in a packaged crate, else "unknown
//! commit" — never a failed build.

use std::process::Command;

#[allow(dead_code)] // its `main` is cargo's; the tests call the parts.
#[path = "../build.rs"]
mod build;

fn version_line() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .arg("--version")
        .output()
        .expect("run diskscope");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn version_names_the_commit_and_the_target() {
    let line = version_line();
    let prefix = format!("diskscope {} (", env!("CARGO_PKG_VERSION"));
    let inner = line
        .trim_end()
        .strip_prefix(&prefix)
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not \"{prefix}COMMIT, TARGET)\": {line:?}"));
    let (commit, target) = inner.split_once(", ").expect("COMMIT, TARGET");
    // Built from this checkout: HEAD's commit, as git says it now (the build script is run
    // again at every commit); outside git, or in a copy without it, "unknown commit".
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let expected = build::git_commit(dir).unwrap_or_else(|| "unknown commit".into());
    assert_eq!(commit, expected, "{line}");
    let libc = if cfg!(target_env = "musl") {
        "musl, static"
    } else {
        "glibc"
    };
    assert!(
        target.starts_with(std::env::consts::ARCH) && target.contains(libc),
        "{line}"
    );
    // -V says the same.
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .arg("-V")
        .output()
        .expect("run diskscope");
    assert_eq!(String::from_utf8_lossy(&out.stdout), line);
}

#[test]
fn a_build_outside_its_own_git_tree_says_unknown_commit() {
    let dir = tempfile::tempdir().expect("temp dir");
    // No repository at all.
    assert_eq!(build::git_commit(dir.path()), None);
    assert_eq!(build::packaged_commit(dir.path()), None);
    // Inside someone else's repository (a crate unpacked in a checkout): not its commit.
    let init = Command::new("git")
        .args(["init", "-q"])
        .arg(dir.path())
        .status();
    if init.is_ok_and(|s| s.success()) {
        let sub = dir.path().join("vendor/diskscope");
        std::fs::create_dir_all(&sub).expect("mkdir");
        assert_eq!(build::git_commit(&sub), None);
    }
    // A crate packaged from git says where it came from.
    std::fs::write(
        dir.path().join(".cargo_vcs_info.json"),
        "{\n  \"git\": {\n    \"sha1\": \"0123456789abcdef0123456789abcdef01234567\"\n  },\n  \"path_in_vcs\": \"\"\n}\n",
    )
    .expect("write");
    assert_eq!(
        build::packaged_commit(dir.path()).as_deref(),
        Some("0123456")
    );
}
