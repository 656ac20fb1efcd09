//! The state directory: where a result is kept when the terminal it was printed to went away
//! (a dropped ssh connection) and no `--json FILE` saved it. `$XDG_STATE_HOME/diskscope/`,
//! else `~/.local/state/diskscope/` (the XDG base directory specification's place for state
//! that should survive a restart but is not worth a backup), created 0700. Each result is a
//! new file named for the time, as `e` names its exports (never overwriting one: the kernel
//! links the new file only where no name is); the newest `KEEP` are kept, the oldest removed.
//! A small notice file says the next start in a terminal to tell the admin once, and
//! `--show last` opens the newest.
//!
//! Every write goes through `results::file::place`: a new file beside the name, moved or linked
//! into place, so no symbolic link is followed. The directory itself must be a real
//! directory this user owns and no one else may write, or nothing is written there. It knows
//! nothing of the TUI or the front door; they decide when a result was lost.

use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::export::{Export, export_file_name};
use super::file::{Place, describe_type, place};
use crate::target::shell::quote_path;
use crate::{output, signals};

/// Results kept; the oldest beyond these are removed.
pub const KEEP: usize = 10;

/// The notice for the next start: the saved file's name, then why it was saved.
const NOTICE: &str = "notice";

/// `$XDG_STATE_HOME/diskscope`, else `$HOME/.local/state/diskscope`. A relative value is
/// ignored, as the XDG specification says.
pub fn dir() -> Result<PathBuf, String> {
    let absolute = |v: Option<std::ffi::OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let base = match absolute(std::env::var_os("XDG_STATE_HOME")) {
        Some(p) => p,
        None => absolute(std::env::var_os("HOME"))
            .ok_or("neither XDG_STATE_HOME nor HOME is an absolute path")?
            .join(".local/state"),
    };
    Ok(base.join("diskscope"))
}

/// Where `--burn-in=write` leaves what `--burn-in=verify` needs (`burn-in/` in the state
/// directory), made ready as the directory itself is.
pub fn burn_in_dir() -> Result<PathBuf, String> {
    let d = dir()?;
    ready(&d)?;
    let b = d.join("burn-in");
    ready(&b)?;
    Ok(b)
}

/// Makes `dir` (and its missing parents) 0700, and checks it is one only this user writes:
/// a directory, not a symbolic link, owned by this user, not writable by group or others.
fn ready(dir: &Path) -> Result<(), String> {
    let shown = quote_path(dir);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("{shown}: cannot create it: {e}"))?;
    let m = std::fs::symlink_metadata(dir).map_err(|e| format!("{shown}: {e}"))?;
    if !m.file_type().is_dir() {
        return Err(format!(
            "{shown}: is {}, not a directory; remove it",
            describe_type(&m.file_type())
        ));
    }
    let me = nix::unistd::geteuid().as_raw();
    if m.uid() != me {
        return Err(format!(
            "{shown}: belongs to uid {}, not to this user (uid {me}); remove it or set XDG_STATE_HOME",
            m.uid()
        ));
    }
    if m.mode() & 0o022 != 0 {
        return Err(format!(
            "{shown}: others may write in it (mode {:o}); chmod 700 it",
            m.mode() & 0o777
        ));
    }
    Ok(())
}

/// Keeps `export` in the state directory because `why` ("SIGHUP", "its terminal's input
/// closed"), named for `now`; returns the new file's path.
pub fn keep(export: &Export, why: &str, now: SystemTime) -> Result<PathBuf, String> {
    keep_in(&dir()?, export, why, now)
}

/// A directory of its own inside the state directory (`surface/`: the scans stopped before
/// their end, to resume), made and checked as the state directory itself is.
pub fn subdir(name: &str) -> Result<PathBuf, String> {
    let base = dir()?;
    ready(&base)?;
    let sub = base.join(name);
    ready(&sub)?;
    Ok(sub)
}

/// `keep` in `dir` at the time `now`.
pub fn keep_in(dir: &Path, export: &Export, why: &str, now: SystemTime) -> Result<PathBuf, String> {
    ready(dir)?;
    let text = serde_json::to_string_pretty(export).map_err(|e| e.to_string())? + "\n";
    let name = export_file_name(now);
    let stem = name.trim_end_matches(".json");
    let mut saved = None;
    for n in 1..=100 {
        let file = if n == 1 {
            name.clone()
        } else {
            format!("{stem}-{n}.json")
        };
        let path = dir.join(&file);
        match place(&path, &text, Place::New) {
            Ok(()) => {
                saved = Some((path, file));
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "{}: cannot save the result: {e}",
                    quote_path(&path)
                ));
            }
        }
    }
    let (path, file) =
        saved.ok_or_else(|| format!("{}: 100 results in one second", quote_path(dir)))?;
    prune(dir, KEEP);
    let notice = dir.join(NOTICE);
    place(&notice, &format!("{file}\n{why}\n"), Place::Replace)
        .map_err(|e| format!("{}: {e}", quote_path(&notice)))?;
    Ok(path)
}

/// Why a result printed now would reach no one: SIGHUP came while stdout was a terminal
/// (`on_terminal`, known from when the run began: a hung-up terminal no longer says it is
/// one), or the output went away (`output::lost`: EIO, EPIPE, the TUI's input closed).
pub fn why_lost(on_terminal: bool) -> Option<String> {
    if on_terminal && signals::received() == Some(nix::sys::signal::Signal::SIGHUP) {
        return Some("SIGHUP".into());
    }
    output::lost().map(|l| l.describe().to_string())
}

/// Keeps `export()` in the state directory when the result would be lost (`why_lost`) and
/// `--json FILE` did not save it (`json_saved`), named for `now`; says where on stderr,
/// which may be gone too. Returns the file kept, if any.
pub fn keep_if_lost(
    on_terminal: bool,
    json_saved: bool,
    now: SystemTime,
    export: impl FnOnce() -> Export,
) -> Option<PathBuf> {
    if json_saved {
        return None;
    }
    let why = why_lost(on_terminal)?;
    match keep(&export(), &why, now) {
        Ok(path) => {
            output::say(&format!(
                "{why}: the result is kept in {} (diskscope --show last)",
                quote_path(&path)
            ));
            Some(path)
        }
        Err(e) => {
            output::say(&format!("{why}, and the result could not be kept: {e}"));
            None
        }
    }
}

/// The order of a saved result's name, "diskscope-YYYYmmdd-HHMMSS[-N].json" (time, then N);
/// `None` for any other name.
fn order(name: &str) -> Option<(String, u32)> {
    let stem = name.strip_prefix("diskscope-")?.strip_suffix(".json")?;
    let (time, n) = match stem.get(15..) {
        Some("") => (stem, 1),
        Some(rest) => (&stem[..15], rest.strip_prefix('-')?.parse().ok()?),
        None => return None,
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    (time.len() == 15 && digits(&time[..8]) && &time[8..9] == "-" && digits(&time[9..]))
        .then(|| (time.to_string(), n))
}

/// The results in `dir`, oldest first: regular files with a result's name (a link or a
/// directory by such a name is left alone).
fn saved(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<((String, u32), PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| Some((order(e.file_name().to_str()?)?, e.path())))
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

/// Removes the oldest results beyond the newest `keep`.
fn prune(dir: &Path, keep: usize) {
    let all = saved(dir);
    for old in &all[..all.len().saturating_sub(keep)] {
        let _ = std::fs::remove_file(old);
    }
}

/// `--show last`: the newest result kept; the notice is said by now.
pub fn newest() -> Result<PathBuf, String> {
    let dir = dir().map_err(|e| format!("--show last: {e}"))?;
    let _ = std::fs::remove_file(dir.join(NOTICE));
    saved(&dir).pop().ok_or_else(|| {
        format!(
            "--show last: no result is kept in {}; one is kept there when the terminal goes away during a run",
            quote_path(&dir)
        )
    })
}

/// The line the next start in a terminal says once, when a result was kept since: "the last
/// run ended with the connection (SIGHUP): diskscope --show last". Reading it removes it.
pub fn take_notice() -> Option<String> {
    take_notice_in(&dir().ok()?)
}

/// `take_notice` for `dir`. The notice is first claimed by renaming it to a name of this
/// process's own: of two starts at the same moment only one rename succeeds, and a notice
/// that cannot be moved (a directory that refuses it) is not said at all rather than at every
/// start.
pub fn take_notice_in(dir: &Path) -> Option<String> {
    let path = dir.join(NOTICE);
    let claimed = dir.join(format!(".{NOTICE}.{}", std::process::id()));
    std::fs::rename(&path, &claimed).ok()?;
    let meta = std::fs::symlink_metadata(&claimed).ok();
    let text = meta
        .filter(|m| m.file_type().is_file())
        .and_then(|_| std::fs::read_to_string(&claimed).ok());
    let _ = std::fs::remove_file(&claimed);
    let text = text?;
    let mut lines = text.lines();
    let (file, why) = (
        lines.next()?,
        lines.next().unwrap_or("the terminal went away"),
    );
    dir.join(file).is_file().then(|| {
        format!(
            "the last run ended with the connection ({why}); its result was kept: diskscope --show last"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RunReport;
    use std::time::Duration;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs)
    }

    fn run() -> Export {
        Export::Run(Box::new(RunReport::example()))
    }

    fn names(dir: &Path) -> Vec<String> {
        saved(dir)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn results_are_new_files_the_newest_kept_and_the_notice_said_once() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("state/diskscope");
        let a = keep_in(&dir, &run(), "SIGHUP", at(0)).unwrap();
        let b = keep_in(&dir, &run(), "SIGHUP", at(0)).unwrap();
        assert_ne!(a, b, "a second result in the same second is a new file");
        let mode = std::fs::metadata(&dir).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
        assert!(v["total"].is_object(), "what --json writes: {v}");
        let notice = take_notice_in(&dir).expect("a notice");
        assert!(
            notice.contains("(SIGHUP)") && notice.contains("--show last"),
            "{notice}"
        );
        assert_eq!(take_notice_in(&dir), None, "said once");
        // Twelve more: the ten newest stay, in the order they were made (`-N` after the
        // plain name of the same second).
        for s in 1..=12 {
            keep_in(&dir, &run(), "SIGHUP", at(s)).unwrap();
        }
        let left = names(&dir);
        assert_eq!(left.len(), KEEP, "{left:?}");
        assert_eq!(left.last().unwrap(), "diskscope-20231114-221332.json");
        assert_eq!(left.first().unwrap(), "diskscope-20231114-221323.json");
        assert!(
            order("diskscope-20231114-221320-2.json") > order("diskscope-20231114-221320.json")
        );
        assert_eq!(order("diskscope-2023111-221320.json"), None);
        assert_eq!(order("notes.json"), None);
    }

    /// Starts at the same moment: each notice is said by exactly one of them.
    #[test]
    fn of_two_starts_at_once_one_says_the_notice() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("d");
        keep_in(&dir, &run(), "SIGHUP", at(0)).unwrap();
        let notice = std::fs::read_to_string(dir.join(NOTICE)).unwrap();
        for round in 0..300 {
            std::fs::write(dir.join(NOTICE), &notice).unwrap();
            let go = std::sync::Barrier::new(2);
            let said = std::thread::scope(|s| {
                let two = [(); 2].map(|_| {
                    s.spawn(|| {
                        go.wait();
                        take_notice_in(&dir).is_some()
                    })
                });
                two.map(|t| t.join().unwrap())
            });
            assert_eq!(
                said.iter().filter(|&&s| s).count(),
                1,
                "round {round}: {said:?}"
            );
        }
        assert!(!dir.join(NOTICE).exists());
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "only the result: {left:?}");
    }

    #[test]
    fn a_directory_others_could_write_or_a_link_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let open = root.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o777))
            .unwrap();
        let err = keep_in(&open, &run(), "SIGHUP", at(0)).unwrap_err();
        assert!(err.contains("chmod 700"), "{err}");
        std::os::unix::fs::symlink(&open, root.path().join("link")).unwrap();
        let err = keep_in(&root.path().join("link"), &run(), "SIGHUP", at(0)).unwrap_err();
        assert!(err.contains("a symbolic link"), "{err}");
        assert!(saved(&open).is_empty());
    }

    #[test]
    fn links_by_a_results_name_are_neither_counted_nor_removed_nor_followed() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("d");
        let victim = root.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("diskscope-20231114-221320.json")).unwrap();
        std::os::unix::fs::symlink(&victim, dir.join(NOTICE)).unwrap();
        let kept = keep_in(&dir, &run(), "SIGHUP", at(0)).unwrap();
        assert!(
            kept.ends_with("diskscope-20231114-221320-2.json"),
            "{kept:?}"
        );
        for s in 1..=12 {
            keep_in(&dir, &run(), "SIGHUP", at(s)).unwrap();
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert!(std::fs::symlink_metadata(dir.join("diskscope-20231114-221320.json")).is_ok());
        assert_eq!(saved(&dir).len(), KEEP);
    }
}
