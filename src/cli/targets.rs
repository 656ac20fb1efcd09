//! The command line's checks for several targets at once: what a run on many targets cannot
//! do yet (a sweep, a suite, the fio job, the timed final flush, the steady-state check and
//! `--until-steady`), a target named twice, `--each-then-all` with one target, and the limits
//! of all targets' workers together (the thread limit and the buffer memory rule cover them
//! all). `--allow-write` names become one comma list here, however they were typed. Nothing
//! here opens a target: that a device is named for writing, in use, or the same as another
//! under another name is checked when the targets are prepared.

use std::collections::HashSet;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use super::Args;
use crate::settings::Settings;

/// `--allow-write` as typed (repeated, each maybe a comma list) as one comma list; `None`
/// when not given, `Some("")` when given without a device. Bytes throughout: a device name
/// need not be UTF-8; spaces around a name are dropped.
pub fn allow_write_list(given: &[OsString]) -> Option<OsString> {
    if given.is_empty() {
        return None;
    }
    let named: Vec<&[u8]> = given
        .iter()
        .flat_map(|g| g.as_bytes().split(|b| *b == b','))
        .map(<[u8]>::trim_ascii)
        .filter(|n| !n.is_empty())
        .collect();
    Some(OsString::from_vec(named.join(&b',')))
}

/// Refuses what several targets cannot do, and workers beyond the limits of all of them.
pub fn check(a: &Args, settings: Settings) -> Result<(), String> {
    let n = a.targets.len();
    if a.disks.each_then_all && n < 2 {
        return Err(
            "--each-then-all compares several targets alone and together; give two or more TARGETs"
                .into(),
        );
    }
    if n < 2 {
        return Ok(());
    }
    let mut seen = HashSet::new();
    if let Some(twice) = a.targets.iter().find(|t| !seen.insert(*t)) {
        return Err(format!(
            "{}: named twice; give each target once",
            twice.display()
        ));
    }
    // The steady-state check judges one run's seconds; several targets have no one series
    // (the aggregate's would hide a target that never settles), so its flags are refused.
    let steady = &a.steady;
    for (flag, given, instead) in [
        ("--sweep", a.series.sweep.is_some(), "one TARGET"),
        ("--suite", a.series.suite.is_some(), "one TARGET"),
        ("--fio", a.output.fio, "one TARGET for its job file"),
        ("--end-fsync", a.workload.end_fsync, "one TARGET"),
        (
            "--until-steady",
            steady.until_steady.is_some(),
            "one TARGET",
        ),
        (
            "--steady-round",
            steady.steady_round.is_some(),
            "one TARGET",
        ),
        (
            "--steady-excursion",
            steady.steady_excursion.is_some(),
            "one TARGET",
        ),
        (
            "--steady-slope",
            steady.steady_slope.is_some(),
            "one TARGET",
        ),
    ] {
        if given {
            return Err(format!(
                "{flag} works on one target at a time; give {instead}, or drop {flag} to run the {n} targets together"
            ));
        }
    }
    crate::disks::check_together(n, &settings)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn config(args: &[&str]) -> Result<crate::cli::Config, String> {
        let mut full = vec!["diskscope"];
        full.extend_from_slice(args);
        Args::try_parse_from(full)
            .map_err(|e| crate::cli::values::describe(&e))?
            .validate()
    }

    #[test]
    fn several_targets_keep_the_first_as_target_and_all_in_order() {
        let c = config(&["/dev/sdb", "/dev/sdc", "/dev/sdd", "-t", "4"]).unwrap();
        assert_eq!(c.target.as_deref(), Some("/dev/sdb".as_ref()));
        let all: Vec<&str> = c.targets.iter().map(|t| t.to_str().unwrap()).collect();
        assert_eq!(all, ["/dev/sdb", "/dev/sdc", "/dev/sdd"]);
        assert!(!c.each_then_all);
        let one = config(&["/dev/sdb"]).unwrap();
        assert_eq!(one.targets.len(), 1);
        assert!(
            config(&["/a", "/b", "--each-then-all"])
                .unwrap()
                .each_then_all
        );
    }

    #[test]
    fn allow_write_names_are_one_list_however_typed() {
        let c = config(&[
            "/dev/sdb",
            "/dev/sdc",
            "/dev/sdd",
            "--allow-write=/dev/sdb",
            "--allow-write=/dev/sdc, /dev/sdd",
            "--read",
            "50",
        ])
        .unwrap();
        assert_eq!(
            c.allow_write.as_deref(),
            Some("/dev/sdb,/dev/sdc,/dev/sdd".as_ref())
        );
        assert_eq!(allow_write_list(&[]), None);
        assert_eq!(allow_write_list(&["".into()]).as_deref(), Some("".as_ref()));
        assert_eq!(
            allow_write_list(&["".into(), "/dev/x".into()]).as_deref(),
            Some("/dev/x".as_ref())
        );
    }

    #[test]
    fn what_several_targets_cannot_do_is_refused_by_name() {
        for (args, needle) in [
            (
                vec!["/a", "/b", "--sweep", "threads=1..4"],
                "--sweep works on one target",
            ),
            (vec!["/a", "/b", "--suite"], "--suite works on one target"),
            (vec!["/a", "/b", "--fio"], "--fio works on one target"),
            (vec!["/a", "/b", "--end-fsync"], "--end-fsync works"),
            (
                vec!["/a", "/b", "--until-steady"],
                "--until-steady works on one target",
            ),
            (
                vec!["/a", "/b", "--steady-slope", "5"],
                "--steady-slope works",
            ),
            (
                vec!["/a", "/b", "--steady-round", "5s"],
                "--steady-round works",
            ),
            (vec!["/a", "/b", "/a"], "/a: named twice"),
            (vec!["/a", "--each-then-all"], "two or more TARGETs"),
            (
                vec!["/a", "/b", "--fleet", "h1,h2"],
                "--fleet runs one TARGET",
            ),
            (
                vec!["/a", "/b", "--csv=/b"],
                "the same file as the target /b",
            ),
        ] {
            let err = config(&args).expect_err(&format!("{args:?}"));
            assert!(err.contains(needle), "{args:?}: {err}");
        }
    }

    #[test]
    fn the_limits_cover_every_targets_workers_together() {
        let mut args: Vec<String> = (0..24).map(|i| format!("/dev/loop{i}")).collect();
        args.extend(["-t", "4", "-Q", "32"].map(String::from));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert!(config(&refs).is_ok(), "24 targets × 4 threads × QD32 fit");
        args[25] = "64".into();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let err = config(&refs).unwrap_err();
        assert!(
            err.contains("24 targets × 64 threads are 1536 workers") && err.contains("-t 42"),
            "{err}"
        );
    }
}
