//! The files diskscope reads and writes as results (`--json FILE`, `--csv FILE`, `--plot
//! FILE.svg`, `--baseline FILE`), checked before anything runs. A result file is only ever replaced when it already
//! holds a diskscope result of the same kind — never a `package.json`, an inventory `.csv` or a
//! disk image typed in the wrong place — and its directory must be writable now, not after a
//! ten-minute sweep. A file read as a result must be a regular file of a sane size, so a
//! character device or a huge file cannot grow memory without bound.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use nix::unistd::{AccessFlags, access};

use crate::target::shell::quote_path;

/// The largest result file read back: an hour of per-second rows is about 2 MiB of JSON.
pub const MAX_RESULT_BYTES: u64 = 64 << 20;

/// How the header line of each CSV diskscope writes begins: a run's intervals, a sweep's
/// steps, a suite's card (`render::csv` derives the headers; its tests check these).
pub const CSV_HEADS: [&str; 4] = [
    "t_s,elapsed_s,",
    "step,t_s,elapsed_s,",
    "suite,test,direction,",
    "target,t_s,elapsed_s,",
];

/// How the `<desc>` of every chart diskscope draws begins (`render::chart` writes it): how
/// `--plot` knows a file it may replace.
pub const SVG_DESC: &str = "<desc>diskscope chart: ";

/// The kinds of result file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Json,
    Csv,
    /// A chart (`--plot`): an SVG diskscope drew, known by its `<desc>`.
    Svg,
}

impl Kind {
    fn flag(self) -> &'static str {
        match self {
            Kind::Json => "--json",
            Kind::Csv => "--csv",
            Kind::Svg => "--plot",
        }
    }

    /// What the message calls a result of this kind.
    fn noun(self) -> &'static str {
        match self {
            Kind::Json => "json result",
            Kind::Csv => "csv result",
            Kind::Svg => "chart",
        }
    }
}

/// Checks that `path` may receive a result of `kind`: it does not exist and its directory is
/// writable, or it is a writable regular file that already holds a diskscope result of that
/// kind. The message names the path, what is wrong and what to do.
pub fn check_output(kind: Kind, path: &Path) -> Result<PathBuf, String> {
    let flag = kind.flag();
    let shown = quote_path(path);
    let elsewhere = format!("save to a new file with {flag}=FILE");
    match std::fs::symlink_metadata(path) {
        Err(_) => {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            if !dir.is_dir() {
                return Err(format!(
                    "{flag} {shown}: the directory {} does not exist; create it or {elsewhere}",
                    quote_path(dir)
                ));
            }
            writable(flag, path, dir)?;
        }
        Ok(m) if m.file_type().is_file() => {
            // Unreadable, binary or huge: not a result either way.
            if !read_bounded(flag, path).is_ok_and(|text| holds(kind, &text)) {
                return Err(format!(
                    "{flag} {shown}: exists and is not a diskscope {}, refusing to \
                     overwrite it; put TARGET before the options, or {elsewhere}",
                    kind.noun()
                ));
            }
            writable(flag, path, path)?;
        }
        Ok(m) => {
            return Err(format!(
                "{flag} {shown}: is {}, not a result file; {elsewhere}",
                describe_type(&m.file_type())
            ));
        }
    }
    Ok(path.to_path_buf())
}

/// Whether `a` and `b` name one file: the same device and inode when both exist (a hard
/// link, a symbolic link, `x` and `./x`), else the same name in the same real directory
/// (`sub/../x` and `x`, before either is created).
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        (Err(_), Err(_)) => real_name(a).is_some_and(|x| Some(x) == real_name(b)),
        _ => false,
    }
}

/// The real path of `path`'s directory joined with its name; `None` for a path without a
/// name (`..`) or in a directory that cannot be resolved.
fn real_name(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(name))
}

/// Reads a result file whole, accepting only a regular file of at most `MAX_RESULT_BYTES`.
pub fn read_bounded(flag: &str, path: &Path) -> Result<String, String> {
    let shown = quote_path(path);
    // O_NONBLOCK: opening a named pipe must not wait for a writer (it is refused below).
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            let why = e.raw_os_error().map_or_else(
                || e.to_string(),
                |n| {
                    let errno = nix::errno::Errno::from_raw(n);
                    format!("{errno:?}: {}", errno.desc())
                },
            );
            format!("{flag} {shown}: cannot read it ({why})")
        })?;
    // The open file's type, not the name's: nothing can swap it in between.
    let meta = file
        .metadata()
        .map_err(|e| format!("{flag} {shown}: cannot read it: {e}"))?;
    if !meta.file_type().is_file() {
        return Err(format!(
            "{flag} {shown}: is {}, not a saved result; give a file saved with --json FILE",
            describe_type(&meta.file_type())
        ));
    }
    if meta.len() > MAX_RESULT_BYTES {
        return Err(format!(
            "{flag} {shown}: is {} bytes, larger than any diskscope result ({} MiB at most); \
             is it the right file?",
            meta.len(),
            MAX_RESULT_BYTES >> 20
        ));
    }
    let mut text = String::new();
    file.take(MAX_RESULT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{flag} {shown}: not a text result file ({e})"))?;
    // fio writes a jobname's controls raw: escaped here, the one place results are read.
    Ok(match crate::escape::json_controls(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(escaped) => escaped,
    })
}

/// Saves `text` as a result of `kind` at `path`: checked again now (the file may have been
/// replaced, or made a symbolic link, during the run), then put in place by `place`.
pub fn write_result(kind: Kind, path: &Path, text: &str) -> Result<(), String> {
    check_output(kind, path)?;
    place(path, text, Place::Replace).map_err(|e| {
        format!(
            "{} {}: cannot save the result: {e}",
            kind.flag(),
            quote_path(path)
        )
    })
}

/// Whether `place` may replace a file already at the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Rename over it (a symbolic link there is replaced, never followed).
    Replace,
    /// Fail with `AlreadyExists` instead (a hard link of the new file, which the kernel
    /// makes only where no name is).
    New,
}

/// The one way diskscope writes a file: `text` to a new file beside `path` (created
/// exclusively, so no link is followed), then moved to `path` in one step, so a failed
/// write leaves whatever was there whole and no reader sees half a file.
pub fn place(path: &Path, text: &str, how: Place) -> std::io::Result<()> {
    let mut temp = std::ffi::OsString::from(".");
    temp.push(path.file_name().unwrap_or("result".as_ref()));
    temp.push(format!(".diskscope-{}", std::process::id()));
    let temp = path.with_file_name(temp);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .and_then(|()| match how {
            Place::Replace => std::fs::rename(&temp, path),
            Place::New => std::fs::hard_link(&temp, path),
        });
    // After a rename the temporary name is gone already; after a link it is a second name.
    if written.is_err() || how == Place::New {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// Whether `text` is a diskscope result of `kind`.
pub fn holds(kind: Kind, text: &str) -> bool {
    match kind {
        Kind::Json => serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| {
            (v["config"]["target"].is_string()
                && (v["total"].is_object()
                    || v["steps"].is_array()
                    || (v["suite"].is_string() && v["tests"].is_array())))
                || (v["fleet"]["target"].is_string() && v["hosts"].is_array())
                || (v["disks"]["targets"].is_array() && v["targets"].is_array())
        }),
        Kind::Csv => {
            let first = text.lines().next().unwrap_or("");
            CSV_HEADS.iter().any(|head| first.starts_with(head))
        }
        // The desc follows the root's opening tag.
        Kind::Svg => {
            text.trim_start().starts_with("<svg ") && {
                let head: String = text.chars().take(400).collect();
                head.contains(SVG_DESC)
            }
        }
    }
}

/// Fails unless this process may write `target` (a file, or the directory for a new file).
fn writable(flag: &str, path: &Path, target: &Path) -> Result<(), String> {
    access(target, AccessFlags::W_OK).map_err(|e| {
        let why = match e {
            nix::errno::Errno::EROFS => "the filesystem is read-only".to_string(),
            nix::errno::Errno::EACCES => "permission denied".to_string(),
            other => other.desc().to_string(),
        };
        format!(
            "{flag} {}: cannot be written ({why}); save it elsewhere with {flag}=FILE",
            quote_path(path)
        )
    })
}

/// "a directory", "a character device" … for messages.
pub fn describe_type(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_fifo() {
        "a named pipe"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::csv;

    #[test]
    fn recognises_results_and_nothing_else() {
        let run = r#"{"config":{"target":"x"},"total":{"ops":1}}"#;
        let sweep = r#"{"config":{"target":"x"},"steps":[]}"#;
        assert!(holds(Kind::Json, run));
        assert!(holds(Kind::Json, sweep));
        assert!(holds(Kind::Json, r#"{"fleet":{"target":"x"},"hosts":[]}"#));
        assert!(holds(
            Kind::Json,
            r#"{"disks":{"targets":["a","b"]},"targets":[]}"#
        ));
        assert!(holds(Kind::Csv, "target,t_s,elapsed_s,threads\n"));
        let suite = r#"{"suite":"standard","config":{"target":"x"},"tests":[]}"#;
        assert!(holds(Kind::Json, suite));
        assert!(!holds(Kind::Json, r#"{"suite":"mine","tests":[]}"#));
        assert!(holds(Kind::Csv, &format!("{}\n", csv::suite_header())));
        assert!(!holds(Kind::Json, r#"{"name":"pkg","version":"1.0.0"}"#));
        assert!(!holds(Kind::Json, "not json"));
        assert!(holds(Kind::Csv, &format!("{}\n1,2\n", csv::header())));
        assert!(holds(Kind::Csv, &format!("{}\n", csv::step_header())));
        assert!(!holds(Kind::Csv, "host,rack,serial\na,1,2\n"));
        assert!(!holds(Kind::Csv, ""));
        let chart = "<svg width=\"1200\" height=\"9\">\n<desc>diskscope chart: x</desc></svg>";
        assert!(holds(Kind::Svg, chart));
        assert!(!holds(
            Kind::Svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><desc>logo</desc></svg>"
        ));
        assert!(!holds(Kind::Svg, run));
    }

    #[test]
    fn one_file_is_found_by_any_of_its_names() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let a = d.join("a");
        std::fs::write(&a, "x").unwrap();
        std::fs::hard_link(&a, d.join("h")).unwrap();
        std::os::unix::fs::symlink("a", d.join("s")).unwrap();
        assert!(same_file(&a, &d.join("h")) && same_file(&d.join("s"), &a));
        // Not made yet: by the real directory and the name.
        std::fs::create_dir(d.join("sub")).unwrap();
        assert!(same_file(&d.join("n"), &d.join("sub/../n")));
        assert!(!same_file(&a, &d.join("n")));
        assert!(!same_file(&d.join("n"), &d.join("sub/n")));
        assert!(!same_file(&d.join("gone/.."), &d.join("gone/..")));
    }
}
