//! The modes of their own — `--surface`, `--burn-in`, `--capacity-probe`, `--health` — use
//! a few of the run's flags and no others. A flag given beside one of them that it would
//! not use is refused in one line naming both, never dropped in silence (`--surface --suite`
//! once ran a writing suite instead of the read-only scan). Decided from the flags typed on
//! the command line (`Args::given`), so `-b 4k` asked is told apart from `-b` left at 4k.

use super::Args;

/// The flags (clap ids) every one of these modes takes: where to look and how to print.
const ANY: &[&str] = &["targets", "no_tui", "tui", "no_mouse", "quiet", "json"];

/// What a scan opens the target with (`--allow-write` is ignored by the read-only scan, as
/// documented).
const OPEN: &[&str] = &["allow_write", "size", "keep", "buffered"];

/// A mode, what it is, and the flags it uses beside `ANY`.
struct Mode {
    flag: &'static str,
    what: &'static str,
    uses: &'static [&'static [&'static str]],
}

const SURFACE: Mode = Mode {
    flag: "--surface",
    what: "it reads the target once, in order, and draws the map",
    uses: &[OPEN, &["surface", "bs", "iodepth", "csv", "plot"]],
};

const BURN_IN: Mode = Mode {
    flag: "--burn-in",
    what: "it writes every block and reads it back",
    uses: &[
        OPEN,
        &[
            "burn_in",
            "burn_in_state",
            "bs",
            "threads",
            "passes",
            "time",
            // The fio job of the same write and read-back (`fio::verify`).
            "fio",
        ],
    ],
};

const PROBE: Mode = Mode {
    flag: "--capacity-probe",
    what: "it stamps its own blocks and reads them back",
    // `--fio` is taken to say why there is no fio job of a probe (`run::fio`).
    uses: &[OPEN, &["capacity_probe", "fio"]],
};

const HEALTH: Mode = Mode {
    flag: "--health",
    what: "it reads the drives' own records and runs no I/O",
    uses: &[&["health"]],
};

/// How a flag's id is typed, for the message.
fn typed(id: &str) -> String {
    match id {
        "bs" => "-b".into(),
        "iodepth" => "-Q".into(),
        "threads" => "-t".into(),
        "time" => "-T".into(),
        _ => format!("--{}", id.replace('_', "-")),
    }
}

/// Refuses a flag given beside a mode of its own that the mode would not use.
pub(super) fn check(a: &Args) -> Result<(), String> {
    let mode = if a.other.health {
        HEALTH
    } else if a.workload.surface.is_some() {
        SURFACE
    } else if a.verify.burn_in.is_some() {
        BURN_IN
    } else if a.verify.capacity_probe {
        PROBE
    } else {
        return Ok(());
    };
    let used = |id: &str| ANY.contains(&id) || mode.uses.iter().any(|u| u.contains(&id));
    match a.given.iter().find(|id| !used(id)) {
        Some(id) => Err(format!(
            "{} is a test of its own ({}) and does not use {}; drop one of them",
            mode.flag,
            mode.what,
            typed(id)
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_args(args: &[&str]) -> Result<(), String> {
        let mut full = vec!["diskscope", "f"];
        full.extend_from_slice(args);
        check(&Args::try_parse_noting(full).map_err(|e| e.to_string())?)
    }

    #[test]
    fn a_flag_the_scan_would_ignore_is_refused_naming_both() {
        for (args, says) in [
            (
                &["--surface", "--suite", "real"][..],
                "--surface is a test of its own",
            ),
            (&["--surface", "--rate", "100"], "does not use --rate"),
            (&["--surface", "-T", "5s"], "does not use -T"),
            (&["--surface", "-t", "4"], "does not use -t"),
            (
                &["--surface", "--random-distribution", "zipf:1.2"],
                "--random-distribution",
            ),
            (
                &["--burn-in", "--allow-write", "--sweep", "threads=1,2"],
                "--sweep",
            ),
            (
                &["--burn-in", "--allow-write", "--baseline", "b.json"],
                "--baseline",
            ),
            (
                &["--burn-in", "--allow-write", "--read", "50"],
                "does not use --read",
            ),
            (
                &["--burn-in", "--allow-write", "-Q", "8"],
                "does not use -Q",
            ),
            (
                &["--burn-in", "--allow-write", "--csv", "x.csv"],
                "does not use --csv",
            ),
            (
                &[
                    "--capacity-probe",
                    "--allow-write",
                    "--sweep",
                    "threads=1,2",
                ],
                "--sweep",
            ),
            (
                &["--capacity-probe", "--allow-write", "-b", "1M"],
                "does not use -b",
            ),
        ] {
            let e = check_args(args).unwrap_err();
            assert!(e.contains(says), "{args:?}: {e}");
        }
    }

    #[test]
    fn what_each_scan_uses_is_taken_also_at_the_default_value() {
        for args in [
            &[
                "--surface",
                "-b",
                "4k",
                "-Q",
                "1",
                "--json",
                "--allow-write",
            ][..],
            &["--surface=quick", "--csv", "m.csv", "--plot", "m.svg"],
            &[
                "--burn-in",
                "--allow-write",
                "-b",
                "4k",
                "-t",
                "4",
                "--passes",
                "2",
                "-T",
                "1m",
            ],
            &[
                "--burn-in=verify",
                "--burn-in-state",
                "s.json",
                "--size",
                "1G",
            ],
            &["--capacity-probe", "--allow-write", "--json"],
            &["--health", "--json=h.json"],
        ] {
            assert_eq!(check_args(args), Ok(()), "{args:?}");
        }
    }
}
