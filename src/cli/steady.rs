//! The steady-state flags turned into `SteadyConfig`: the SNIA PTS check's round and limits
//! (`--steady-round`, `--steady-excursion`, `--steady-slope`) and `--until-steady[=MAX]`,
//! whose MAX is resolved here (given, else `-T`, else the run's, sweep step's or suite pass's
//! default) and refused with one line where no run could settle in it or it cannot end one.

use std::time::Duration;

use super::Args;
use crate::findings::steady::SteadyParams;
use crate::findings::thresholds::{
    STEADY_MAX_EXCURSION_PCT, STEADY_MAX_SLOPE_PCT, STEADY_ROUND_HEADLESS_S, STEADY_ROUNDS,
};

/// The steady-state check's flags (`--steady-round`, `--steady-excursion`,
/// `--steady-slope`) and `--until-steady[=MAX]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyConfig {
    /// `None`: the TUI's or headless default.
    pub round: Option<Duration>,
    pub excursion_pct: f64,
    pub slope_pct: f64,
    /// `Some(max)`: end once steady or at `max` (`-T` when MAX is not given).
    pub until: Option<Duration>,
}

impl SteadyConfig {
    /// The check's parameters for the TUI (`tui`) or a headless run.
    pub fn params(&self, tui: bool) -> SteadyParams {
        let base = if tui {
            SteadyParams::tui()
        } else {
            SteadyParams::headless()
        };
        SteadyParams {
            max_excursion_pct: self.excursion_pct,
            max_slope_pct: self.slope_pct,
            ..self
                .round
                .map_or(base, |r| SteadyParams::with_round(r.as_secs_f64()))
        }
    }
}

/// The steady-state flags, and `--until-steady` where it can end something: a local headless
/// run, sweep step or suite pass, given room for a whole window of rounds.
pub(super) fn steady(a: &Args) -> Result<SteadyConfig, String> {
    let s = &a.steady;
    let given = [
        ("--steady-round", s.steady_round.is_some()),
        ("--steady-excursion", s.steady_excursion.is_some()),
        ("--steady-slope", s.steady_slope.is_some()),
        ("--until-steady", s.until_steady.is_some()),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, on)| *on) {
        for (other, on) in [
            ("--fleet", a.fleet.fleet.is_some()),
            ("--fio", a.output.fio),
        ] {
            if on {
                return Err(format!(
                    "{flag} sets diskscope's steady-state check, and {other} runs or prints a \
                     fio job, which has none; drop one of them"
                ));
            }
        }
    }
    let excursion_pct = s.steady_excursion.unwrap_or(STEADY_MAX_EXCURSION_PCT);
    let slope_pct = s.steady_slope.unwrap_or(STEADY_MAX_SLOPE_PCT);
    let round = s.steady_round;
    let Some(given) = s.until_steady else {
        return Ok(SteadyConfig {
            round,
            excursion_pct,
            slope_pct,
            until: None,
        });
    };
    if a.output.tui {
        return Err(
            "--until-steady ends a run without the TUI once it is steady (the run screen shows \
             the steady mark live), and --tui asks for the screen; drop one of them"
                .into(),
        );
    }
    // MAX is -T where not given: the run's, or a sweep step's or a suite pass's default.
    let default_time = if a.series.sweep.is_some() {
        crate::sweep::DEFAULT_STEP_TIME
    } else if a.series.suite.is_some() {
        crate::suite::DEFAULT_PASS_TIME
    } else {
        crate::settings::DEFAULT_HEADLESS_TIME
    };
    let max = given.or(a.workload.time).unwrap_or(default_time);
    let round_s = round.unwrap_or(Duration::from_secs_f64(STEADY_ROUND_HEADLESS_S));
    let needs = round_s * STEADY_ROUNDS as u32;
    if max < needs {
        let what = match (given, a.workload.time) {
            (Some(_), _) => format!("--until-steady={}", secs(max)),
            (None, Some(_)) => format!("its MAX, -T {},", secs(max)),
            (None, None) => format!("its MAX, the default -T {},", secs(max)),
        };
        return Err(format!(
            "--until-steady: {what} is shorter than the {STEADY_ROUNDS} rounds of {} a steady \
             window needs ({}); give a longer MAX (--until-steady=2m) or a shorter \
             --steady-round",
            secs(round_s),
            secs(needs)
        ));
    }
    Ok(SteadyConfig {
        round,
        excursion_pct,
        slope_pct,
        until: Some(max),
    })
}

/// "10s", "2.5s": a duration as typed.
fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s:.1}s")
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn config(args: &[&str]) -> Result<super::super::Config, String> {
        let mut full = vec!["diskscope"];
        full.extend_from_slice(args);
        Args::try_parse_from(full)
            .map_err(|e| super::super::values::describe(&e))?
            .validate()
    }

    #[test]
    fn the_steady_flags_set_the_check_and_until_steady_its_max() {
        let c = config(&["--steady-round", "3s", "--steady-excursion", "15"]).unwrap();
        let p = c.steady.params(true);
        assert_eq!(
            (p.round_s, p.max_excursion_pct, p.max_slope_pct),
            (3.0, 15.0, 10.0)
        );
        assert_eq!(config(&[]).unwrap().steady.params(true).round_s, 2.0);
        assert_eq!(config(&[]).unwrap().steady.params(false).round_s, 5.0);
        assert_eq!(config(&[]).unwrap().steady.until, None);
        let max = |args: &[&str]| config(args).unwrap().steady.until;
        assert_eq!(max(&["--until-steady=2m"]), Some(Duration::from_secs(120)));
        assert_eq!(
            max(&["--until-steady", "-T", "1m"]),
            Some(Duration::from_secs(60))
        );
        // A sweep's MAX is its step time.
        assert_eq!(
            max(&["--until-steady", "--sweep", "threads=1,2", "-T", "30s"]),
            Some(Duration::from_secs(30))
        );
    }

    #[test]
    fn until_steady_is_refused_where_no_run_could_settle_or_end_on_it() {
        let err = |args: &[&str]| config(args).unwrap_err();
        assert_eq!(
            err(&["--until-steady"]),
            "--until-steady: its MAX, the default -T 10s, is shorter than the 5 rounds of 5s \
             a steady window needs (25s); give a longer MAX (--until-steady=2m) or a shorter \
             --steady-round"
        );
        assert!(err(&["--until-steady=20s"]).starts_with("--until-steady: --until-steady=20s is"));
        assert!(config(&["--until-steady=20s", "--steady-round", "2s"]).is_ok());
        assert_eq!(
            err(&["--until-steady=1m", "--fio"]),
            "--until-steady sets diskscope's steady-state check, and --fio runs or prints a fio \
             job, which has none; drop one of them"
        );
        assert!(
            err(&["--steady-slope", "5", "--fleet", "h1", "/dev/x"])
                .starts_with("--steady-slope sets")
        );
        assert!(err(&["--until-steady=1m", "--tui"]).contains("and --tui asks for the screen"));
        assert!(err(&["--steady-round", "500ms"]).starts_with("--steady-round '500ms'"));
        // A round is whole rows: 1.5 s would be one row or two as their lengths jitter.
        let e = err(&["--steady-round", "1.5s"]);
        assert!(
            e.starts_with("--steady-round '1.5s'") && e.contains("whole"),
            "{e}"
        );
        assert!(config(&["--steady-round", "2s"]).is_ok());
        assert!(err(&["--steady-slope", "0"]).starts_with("--steady-slope '0'"));
    }
}
