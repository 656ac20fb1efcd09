//! Paths fio would misread, and that would break a line shown to a person: a newline, a
//! tab, a carriage return, an escape (ESC, which a terminal obeys) and a C1 control (NEL).
//! For each, `--fio` writes a job fio runs and a command line bash runs (the path reached
//! through a link the job names, made with the `ln` the output gives, ANSI-C quoted); the
//! run's header shows the name quoted with the character escaped; `--fleet` refuses it with
//! the arguments; an error naming it stays one line. fio runs here when installed.

mod common;

use std::process::{Command, Stdio};

use common::{diskscope, make_file, stderr, workdir};

const NAMES: [&str; 5] = [
    "new\nline.img",
    "tab\there.img",
    "carriage\rreturn.img",
    "escape\u{1b}[31mred.img",
    "next\u{85}line.img",
];

fn fio_installed() -> bool {
    Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// No control character in `text` but the newlines that end its lines.
fn no_raw_controls(text: &str) -> bool {
    !text.chars().any(|c| c.is_control() && c != '\n')
}

#[test]
fn fio_jobs_and_command_lines_name_such_paths_through_a_link() {
    let dir = workdir();
    for name in NAMES {
        let path = dir.path().join(name);
        make_file(&path, 4 << 20);
        let out = diskscope(dir.path(), &[path.to_str().unwrap(), "--fio", "-T", "1s"]);
        assert!(out.status.success(), "{name:?}: {}", stderr(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(no_raw_controls(&text), "{name:?}: {text}");
        // Every line is a comment, a section or an option: the whole output is a job file.
        for line in text.lines() {
            let ok = line.is_empty()
                || line.starts_with('#')
                || (line.starts_with('[') && line.ends_with(']'))
                || line.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            assert!(ok, "{name:?}: a line fio would misread: {line:?}");
        }
        assert!(
            text.contains("filename=/tmp/diskscope-fio-target"),
            "{text}"
        );
        let command = text
            .lines()
            .nth(1)
            .and_then(|l| l.strip_prefix("# "))
            .unwrap()
            .to_string();
        assert!(command.starts_with("ln -sfn $'"), "{command}");
        if !fio_installed() {
            eprintln!("fio is not installed: the job is not run");
            continue;
        }
        // The command line as bash runs it: the link made, fio reading the file through it.
        let run = Command::new("bash")
            .args(["-c", &format!("{command} --output-format=json")])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{name:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let target = std::fs::read_link("/tmp/diskscope-fio-target").unwrap();
        assert_eq!(target, path, "the link names the file");
        // And the job file as fio reads it.
        let job = dir.path().join("job.fio");
        std::fs::write(&job, &text).unwrap();
        let run = Command::new("fio")
            .arg(&job)
            .arg("--output-format=json")
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{name:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert!(v["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 0);
    }
    let _ = std::fs::remove_file("/tmp/diskscope-fio-target");
}

#[test]
fn headers_errors_and_the_fleet_show_such_paths_escaped() {
    let dir = workdir();
    for name in NAMES {
        let path = dir.path().join(name);
        make_file(&path, 4 << 20);
        let p = path.to_str().unwrap();
        let shown = diskscope::units::visible(p).into_owned();
        assert!(shown.starts_with('"') && no_raw_controls(&shown), "{shown}");
        // The run's header: the name quoted, its control character escaped.
        let out = diskscope(dir.path(), &[p, "-T", "200ms", "--no-tui"]);
        assert!(out.status.success(), "{name:?}: {}", stderr(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(no_raw_controls(&text), "{name:?}: {text}");
        assert!(text.lines().next().unwrap().starts_with(&shown), "{text}");
        // A fleet cannot name it on the hosts: refused with the arguments, on one line.
        let out = diskscope(dir.path(), &["--fleet", "127.0.0.9", p]);
        assert_eq!(out.status.code(), Some(2), "{name:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&shown) && err.contains("fio cannot take this path"),
            "{err}"
        );
        // An error that names it (here: writes not allowed) is one line too.
        let missing = dir.path().join(format!("missing-{name}"));
        let out = diskscope(
            dir.path(),
            &[missing.to_str().unwrap(), "-T", "200ms", "--no-tui"],
        );
        assert!(!out.status.success());
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{name:?}: {err}");
        assert!(no_raw_controls(&err), "{err}");
    }
}
