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

/// `s` as one shell word on one line: the project's one quoting (`target::shell::quote`),
/// `$'…'` with `\n`, `\t` and `\xHH` where a control character would end the line and the
/// comment it stands in.
pub fn shell_quote(s: &str) -> String {
    crate::target::shell::quote(s)
}

/// Whether a fleet's job can name `path` on every host as it is: fio takes no file name
/// with a control character, a comment sign or blanks at its ends, and a job file is text,
/// so a name that is not UTF-8 cannot be written into one. The refusal names the path as
/// shown (`units::visible`) and says what to do.
pub fn check_fleet_path(path: &std::path::Path) -> Result<(), String> {
    let shown = crate::units::visible(&path.to_string_lossy()).into_owned();
    let Some(text) = path.to_str() else {
        return Err(format!(
            "{shown}: not UTF-8, and a fio job file is text that cannot name it; link it on the hosts to a plain name"
        ));
    };
    match fio_cannot_name(text) {
        Some(why) => Err(format!(
            "{shown}: fio cannot take this path ({why}); link it on the hosts to a plain name"
        )),
        None => Ok(()),
    }
}
