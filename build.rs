//! What `diskscope --version` says beside the version, for bug reports: the commit the binary
//! was built from and the target it was built for ("0.2.0 (abc1234, x86_64 glibc ≥ 2.28)").
//!
//! The commit is git's, asked only when this directory is the top of its own repository (a
//! crate unpacked inside someone else's checkout must not claim that checkout's commit); a
//! crate tarball made from git by `cargo package` carries it in `.cargo_vcs_info.json`.
//! Anything else — no git, no repository, a git that fails — says "unknown commit" and the
//! build goes on. The glibc floor is only stated when the build declares it
//! (`DISKSCOPE_GLIBC_FLOOR`, set by scripts/dist, which checks the binary keeps to it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DISKSCOPE_GLIBC_FLOOR");
    let commit = git_commit(&dir)
        .or_else(|| packaged_commit(&dir))
        .unwrap_or_else(|| "unknown commit".into());
    println!("cargo:rustc-env=DISKSCOPE_BUILD={commit}, {}", target());
}

/// `git` in `dir`, its output trimmed; `None` when it cannot run or fails.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// The short commit of HEAD when `dir` is the top of a git work tree, and the files whose
/// change means another commit (HEAD, the branch it names, packed refs) told to cargo.
pub(crate) fn git_commit(dir: &Path) -> Option<String> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same(Path::new(&top), dir) {
        return None;
    }
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(dir, &["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        // Only files that are there: cargo runs a build script again on every build for a
        // watched file that does not exist.
        let path = git(dir, &["rev-parse", "--git-path", &name]).map(|p| dir.join(p));
        if let Some(path) = path.filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    git(dir, &["rev-parse", "--short=7", "HEAD"])
}

/// The commit `cargo package` recorded: `"sha1": "<40 hex>"` in `.cargo_vcs_info.json`.
pub(crate) fn packaged_commit(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let after = &text[text.find("\"sha1\"")? + 6..];
    let hex: String = after
        .trim_start_matches(|c: char| c == ':' || c == '"' || c.is_whitespace())
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (hex.len() >= 7).then(|| hex[..7].to_string())
}

/// "x86_64 glibc ≥ 2.28", "x86_64 glibc", "aarch64 musl, static".
fn target() -> String {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let arch = var("CARGO_CFG_TARGET_ARCH");
    match var("CARGO_CFG_TARGET_ENV").as_str() {
        "gnu" => match var("DISKSCOPE_GLIBC_FLOOR") {
            floor if floor.is_empty() => format!("{arch} glibc"),
            floor => format!("{arch} glibc ≥ {floor}"),
        },
        "musl" => format!("{arch} musl, static"),
        other => format!("{arch} {other}").trim_end().to_string(),
    }
}
