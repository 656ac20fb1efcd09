//! Names as fio and sh read them: a duration in fio's units, the paths fio cannot take as a
//! file name (and the link used instead), fio's escape for a `:`, and sh quoting for the
//! command line.

use std::time::Duration;

/// Where a path fio cannot name is linked from.
pub const LINK: &str = "/tmp/diskscope-fio-target";

/// "3s", or "1500ms" when not whole seconds.
pub fn fio_time(d: Duration) -> String {
    let ms = d.as_millis().max(1);
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// Why fio cannot take `path` as a file name in a job file or on its command line, if so.
pub fn fio_cannot_name(path: &str) -> Option<&'static str> {
    let trimmed = path.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    if path.contains(';') || path.contains('#') {
        Some("fio reads ';' and '#' as the start of a comment")
    } else if trimmed != path || path.chars().any(|c| c.is_control()) {
        Some("fio trims blanks at its ends, and a job file line cannot hold control characters")
    } else if ["$pagesize", "$mb_memory", "$ncpus"]
        .iter()
        .any(|k| path.contains(k))
        || path
            .find("${")
            .is_some_and(|i| path[i + 2..].find('}').is_some_and(|j| j > 0))
    {
        Some("fio replaces ${VAR} and $pagesize, $mb_memory, $ncpus in job files")
    } else {
        None
    }
}

/// fio's escape for a `:` inside one file name (HOWTO, "filename").
pub fn escape_colons(path: &str) -> String {
    path.replace(':', "\\:")
}

/// `s` as one shell word on one line: unchanged when it holds only safe characters, else
/// single-quoted; with a control character (a newline would end the line, and the comment
/// it stands in), ANSI-C quoted, `$'…'` (bash, zsh, ksh, busybox sh; POSIX since 2024), each
/// control character's bytes as `\xHH`.
pub fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        return s.to_string();
    }
    if !s.chars().any(char::is_control) {
        return format!("'{}'", s.replace('\'', "'\\''"));
    }
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                for b in c.encode_utf8(&mut [0; 4]).bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}
