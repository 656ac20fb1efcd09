//! What a fleet cannot honour, refused with the arguments: a fleet runs one test over each
//! host's whole existing target, so every flag either reaches the job every host runs, is
//! the controller's own, or is refused here with one line saying what to drop.

use super::Args;
use super::args::FleetArgs;

/// A fleet runs one test over each host's whole existing target: every flag either reaches
/// the job every host runs (`fio::job::FioJob::fleet`), is the controller's own (how it
/// shows, saves and compares the result), or is refused here, never dropped without a word
/// (`run::fleet`'s test goes through every flag clap knows).
/// `--hipri` and `--trim` depend on each host's device, which only a run on the host checks.
fn check_host_facts(a: &Args) -> Result<(), String> {
    let asked = [
        (a.workload.hipri, "--hipri", "queue polls"),
        (a.workload.trim > 0, "--trim", "device discards"),
    ];
    match asked.iter().find(|(on, ..)| *on) {
        Some((_, flag, what)) => Err(format!(
            "--fleet with {flag}: whether each host's {what} is not known here; run {flag} on a host alone (where it is checked), or drop it"
        )),
        None => Ok(()),
    }
}

pub(super) fn check_fleet(a: &Args) -> Result<(), String> {
    let FleetArgs { fleet: Some(_), .. } = &a.fleet else {
        return Ok(());
    };
    if a.targets.len() > 1 {
        return Err(
            "--fleet runs one TARGET path on every host; give one (several hosts, not several targets)"
                .into(),
        );
    }
    if a.targets.is_empty() {
        return Err(
            "--fleet needs TARGET: the path of the file or device on every host \
                    (fio never creates it there)"
                .into(),
        );
    }
    if let Some(t) = a.targets.first() {
        crate::fio::job::check_fleet_path(t)?;
        crate::fleet::check_writes(&t.display().to_string(), a.workload.read)?;
    }
    check_host_facts(a)?;
    if a.series.sweep.is_some() {
        return Err("--fleet runs one test, not a --sweep; drop one of them".into());
    }
    if a.series.suite.is_some() {
        return Err("--fleet runs one test, not a --suite; drop one of them".into());
    }
    if a.output.fio {
        return Err("--fio prints the job without running it; --fleet runs it (its --json FILE keeps the job file); drop one of them".into());
    }
    if let Some(size) = a.workload.size {
        return Err(format!(
            "--size {size}: a fleet covers each host's whole target (fio's size=100%: a byte count would make fio lay out a smaller file); drop --size"
        ));
    }
    if a.safety.keep {
        return Err(
            "--keep keeps a scratch file, and a fleet never creates one; drop --keep".into(),
        );
    }
    if let Some(show) = &a.output.show {
        return Err(format!(
            "--show {} prints a saved result and runs nothing; drop --fleet or --show",
            crate::target::shell::quote_path(show)
        ));
    }
    if a.output.csv.is_some() {
        return Err(
            "--csv writes a single run's seconds; a fleet saves its result with --json FILE (each host's seconds are in it); drop --csv"
                .into(),
        );
    }
    if a.workload.surface.is_some() {
        return Err(
            "--surface reads one target of this machine in order, and --fleet runs a test on the hosts; drop one of them"
                .into(),
        );
    }
    super::verify::check_fleet(&a.verify)?;
    let prints_and_exits = [
        ("--list", a.other.list),
        ("--health", a.other.health),
        ("--all", a.other.all),
        ("--completions", a.other.completions.is_some()),
        ("--man", a.other.man),
    ];
    if let Some((flag, _)) = prints_and_exits.iter().find(|(_, given)| *given) {
        return Err(format!(
            "{flag} prints something of this machine and exits, and --fleet runs a test on the hosts; drop one of them"
        ));
    }
    Ok(())
}
