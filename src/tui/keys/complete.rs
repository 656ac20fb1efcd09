//! Tab in the picker's path entry, as a shell completes: the typed path is extended as far
//! as every name that starts with it agrees (a directory gains its `/`), and when several
//! names remain they are listed on the message line. `~/` is the home directory. The choice
//! is made by `complete_among` over a directory's names (pure, tested); `complete` reads the
//! directory.

use std::path::Path;

/// One name in a directory, and whether it is a directory.
pub struct Name {
    pub name: String,
    pub dir: bool,
}

/// `input` completed, and the choices to show when several remain (or why none did).
pub fn complete(input: &str) -> (String, Option<String>) {
    let (dir, _) = split(input);
    let listed = expand(if dir.is_empty() { "." } else { dir });
    let names = match std::fs::read_dir(&listed) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| Name {
                name: e.file_name().to_string_lossy().into_owned(),
                // A link to a directory completes as one.
                dir: std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir()),
            })
            .collect(),
        Err(e) => {
            return (
                input.to_string(),
                Some(format!("{listed}: cannot list it ({e})")),
            );
        }
    };
    complete_among(input, names)
}

/// `~/x` read as the home directory's `x`.
fn expand(dir: &str) -> String {
    match (dir.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => Path::new(&home).join(rest).display().to_string(),
        _ => dir.to_string(),
    }
}

/// The directory part (up to and with its last `/`) and the name being typed.
fn split(input: &str) -> (&str, &str) {
    match input.rfind('/') {
        Some(i) => (&input[..=i], &input[i + 1..]),
        None => ("", input),
    }
}

/// `input` completed among `names` (the directory's entries): as far as they agree.
pub fn complete_among(input: &str, names: Vec<Name>) -> (String, Option<String>) {
    let (dir, typed) = split(input);
    let mut matching: Vec<Name> = names
        .into_iter()
        .filter(|n| {
            n.name.starts_with(typed) && (typed.starts_with('.') || !n.name.starts_with('.'))
        })
        .collect();
    matching.sort_by(|a, b| a.name.cmp(&b.name));
    match matching.as_slice() {
        [] => (
            input.to_string(),
            Some(format!(
                "no name in {} starts with {typed:?}",
                shown_dir(dir)
            )),
        ),
        [one] => {
            let slash = if one.dir { "/" } else { "" };
            (format!("{dir}{}{slash}", one.name), None)
        }
        many => {
            let first = &many[0].name;
            let common = many.iter().skip(1).fold(first.as_str(), |acc, m| {
                let n = acc
                    .char_indices()
                    .zip(m.name.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(acc.len().min(m.name.len()), |((i, _), _)| i);
                &acc[..n]
            });
            let names: Vec<String> = many
                .iter()
                .map(|n| format!("{}{}", n.name, if n.dir { "/" } else { "" }))
                .collect();
            (
                format!("{dir}{common}"),
                Some(format!("{} choices: {}", many.len(), names.join("  "))),
            )
        }
    }
}

fn shown_dir(dir: &str) -> &str {
    if dir.is_empty() { "." } else { dir }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[(&str, bool)]) -> Vec<Name> {
        list.iter()
            .map(|(n, d)| Name {
                name: n.to_string(),
                dir: *d,
            })
            .collect()
    }

    #[test]
    fn completes_as_far_as_the_names_agree() {
        let dev = names(&[
            ("loop0", false),
            ("loop1", false),
            ("vda", false),
            ("shm", true),
        ]);
        let (got, choices) = complete_among("/dev/lo", dev);
        assert_eq!(got, "/dev/loop");
        assert_eq!(choices.as_deref(), Some("2 choices: loop0  loop1"));
        let (got, choices) = complete_among("/dev/s", names(&[("shm", true), ("vda", false)]));
        assert_eq!((got.as_str(), choices), ("/dev/shm/", None));
        let (got, choices) = complete_among("/dev/x", names(&[("vda", false)]));
        assert_eq!(got, "/dev/x");
        assert!(choices.unwrap().contains("no name in /dev/"));
        let hidden = names(&[(".cache", true), ("data", true)]);
        assert_eq!(complete_among("", hidden).0, "data/");
    }

    #[test]
    fn a_real_directory_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("scratch-dir")).unwrap();
        let typed = format!("{}/scr", dir.path().display());
        let (got, _) = complete(&typed);
        assert_eq!(got, format!("{}/scratch-dir/", dir.path().display()));
    }
}
