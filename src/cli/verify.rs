//! The data-verified flags: `--burn-in[=write|verify]`, `--capacity-probe`, `--burn-in-state`
//! and `--verify`, their `--help` section, and the check that turns them into a `VerifyConfig`:
//! what writes needs `--allow-write`, and what cannot go together is refused in one line.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;

use crate::verify::burnin::Half;

/// Writing every block and reading it back.
#[derive(Debug, Args)]
#[command(next_help_heading = "Data verified")]
pub struct VerifyArgs {
    /// Write the span with stamped blocks (offset, seed, pass, sequence, CRC-32C), then read
    /// it all back and check every 4 KiB: corrupt, stale (a lost write), zeroes, another
    /// offset's data (a fake capacity) are named by offset. =write does the write alone and
    /// keeps a state file; =verify checks later (after a power cycle), reading only. Needs
    /// --allow-write but for =verify; --passes N repeats it; -b and -t set the I/O size and
    /// threads (1M and 4 are good for a whole disk); -T stops it early
    #[arg(long, value_name = "HALF", num_args = 0..=1, require_equals = true,
          default_missing_value = "both", value_parser = half)]
    pub burn_in: Option<Half>,

    /// The quick test for a disk that claims more than it holds: stamps at 1024 positions,
    /// 1 GiB written past the cache, read back in seconds; the full --burn-in is the proof.
    /// Needs --allow-write
    #[arg(long, conflicts_with = "burn_in")]
    pub capacity_probe: bool,

    /// On a run that writes (--read below 100): stamp every write and read it back soon after
    /// (fio's verify_backlog: a read takes the oldest write of its thread's last 32, every I/O
    /// does when 32 wait), so corruption or a lost write is caught while the load runs; what
    /// fails is listed with the run's errors by offset and in `verify` in the JSON
    #[arg(long, conflicts_with_all = ["burn_in", "capacity_probe"])]
    pub verify: bool,

    /// With --burn-in=write or =verify: the state file to keep or read [default: one per
    /// target in the state directory, printed by the write]
    #[arg(long, value_name = "FILE")]
    pub burn_in_state: Option<PathBuf>,
}

fn half(text: &str) -> Result<Half, String> {
    match text {
        "both" => Ok(Half::Both),
        "write" => Ok(Half::Write),
        "verify" => Ok(Half::Verify),
        _ => Err(format!(
            "'{text}': use --burn-in (write, then verify), --burn-in=write or --burn-in=verify"
        )),
    }
}

/// The checked data-verified flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyConfig {
    pub burn_in: Option<Half>,
    pub capacity_probe: bool,
    pub state: Option<PathBuf>,
    /// `--passes` with `--burn-in`.
    pub passes: u32,
    /// `--verify`: writes stamped and read back during an ordinary run.
    pub live: bool,
}

impl VerifyConfig {
    /// Whether this is a burn-in or a probe (`run::Mode::BurnIn`).
    pub fn any(&self) -> bool {
        self.burn_in.is_some() || self.capacity_probe
    }
}

/// Checks the flags against the rest: writing needs --allow-write.
pub fn check(
    v: &VerifyArgs,
    allow_write: &Option<OsString>,
    passes: Option<usize>,
    read_pct: u8,
) -> Result<VerifyConfig, String> {
    if v.verify && read_pct == 100 {
        return Err(
            "--verify reads back what the run writes, and --read 100 writes nothing; use \
             --read below 100 (with --allow-write), or --burn-in to check the whole disk"
                .into(),
        );
    }
    let writes = matches!(v.burn_in, Some(Half::Both | Half::Write)) || v.capacity_probe;
    let flag = match v.burn_in {
        _ if v.capacity_probe => "--capacity-probe",
        Some(Half::Write) => "--burn-in=write",
        _ => "--burn-in",
    };
    if writes && allow_write.is_none() {
        return Err(format!(
            "{flag} writes every block it checks, which destroys the target's data; add \
             --allow-write (for a device: --allow-write=/dev/NAME) if that is intended"
        ));
    }
    if v.burn_in_state.is_some() && !matches!(v.burn_in, Some(Half::Write | Half::Verify)) {
        return Err(
            "--burn-in-state names the state of a write now, verify later: add \
             --burn-in=write or --burn-in=verify"
                .into(),
        );
    }
    if passes.is_some() && v.burn_in == Some(Half::Verify) {
        return Err("--burn-in=verify checks the pass the write left; drop --passes".into());
    }
    Ok(VerifyConfig {
        burn_in: v.burn_in,
        capacity_probe: v.capacity_probe,
        state: v.burn_in_state.clone(),
        passes: passes.unwrap_or(1) as u32,
        live: v.verify,
    })
}

/// With `--fleet`: the stamps are written and read on this machine, a fleet runs fio on the
/// hosts, so these are refused.
pub fn check_fleet(v: &VerifyArgs) -> Result<(), String> {
    let stamps = [
        ("--burn-in", v.burn_in.is_some()),
        ("--capacity-probe", v.capacity_probe),
        ("--verify", v.verify),
    ];
    match stamps.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(format!(
            "{flag} writes and reads back diskscope's stamps on a target of this machine, and \
             --fleet runs fio on the hosts; drop one of them"
        )),
        None => Ok(()),
    }
}
