//! Paths written into advice ("use --allow-write=PATH", "rm -- PATH") must survive being pasted
//! into a shell: a path with a space, a quote or a `$` is single-quoted, POSIX style (a `'`
//! inside becomes `'\''`). Plain paths are left as they are, so the common case reads cleanly.
//! A path is bytes, not text: one that is not UTF-8, or holds a control character, is written
//! in the `$'…'` form bash, zsh and ksh read (`$'r\xff.json'`), so it is shown on one line
//! and nothing of it is lost (`quote_path`).

use std::fmt::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// `text` as one shell word; one with a control character in the `$'…'` form (`quote_path`),
/// which keeps it on one line and its controls out of the terminal.
pub fn quote(text: &str) -> String {
    if text.chars().any(char::is_control) {
        return quote_path(Path::new(text));
    }
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:=@%,".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `path` as one shell word, losslessly: `quote` when it is UTF-8 without control
/// characters, else `$'…'` with every byte that is not printable (and every byte of an
/// invalid sequence) as `\xHH`.
pub fn quote_path(path: &Path) -> String {
    let bytes = path.as_os_str().as_bytes();
    if let Ok(text) = std::str::from_utf8(bytes)
        && !text.chars().any(char::is_control)
    {
        return quote(text);
    }
    let mut out = String::from("$'");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' | '\'' => {
                    out.push('\\');
                    out.push(c);
                }
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c if c.is_control() => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        let _ = write!(out, "\\x{b:02x}");
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::{quote, quote_path};
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    #[test]
    fn plain_paths_stay_and_others_are_single_quoted() {
        assert_eq!(quote("/dev/sdb"), "/dev/sdb");
        assert_eq!(
            quote("/dev/disk/by-path/pci-0000:00:1f.2-ata-1"),
            "/dev/disk/by-path/pci-0000:00:1f.2-ata-1"
        );
        assert_eq!(quote("/mnt/my disk/f"), "'/mnt/my disk/f'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("$HOME"), "'$HOME'");
        assert_eq!(quote(""), "''");
        // A control character: the one-line, pasteable form, never the raw byte.
        assert_eq!(quote("ctl\x01\x1b[31m.img"), r"$'ctl\x01\x1b[31m.img'");
    }

    #[test]
    fn paths_that_are_not_text_are_quoted_without_loss() {
        let p = |b: &[u8]| quote_path(Path::new(OsStr::from_bytes(b)));
        assert_eq!(p(b"/dev/sdb"), "/dev/sdb");
        assert_eq!(p(b"/mnt/my disk"), "'/mnt/my disk'");
        assert_eq!(p(b"r\xff.json"), r"$'r\xff.json'");
        assert_eq!(p(b"a\nb"), r"$'a\nb'");
        assert_eq!(p(b"it's\xfe\\"), r"$'it\'s\xfe\\'");
        // Valid characters beside the bad byte stay as they are.
        assert_eq!(p("é\u{1}".as_bytes()), r"$'é\x01'");
    }
}
