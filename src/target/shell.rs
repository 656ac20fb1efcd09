//! Paths written into advice ("use --allow-write=PATH", "rm -- PATH") must survive being pasted
//! into a shell: a path with a space, a quote or a `$` is single-quoted, POSIX style (a `'`
//! inside becomes `'\''`). Plain paths are left as they are, so the common case reads cleanly.

/// `text` as one shell word.
pub fn quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:=@%,".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::quote;

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
    }
}
