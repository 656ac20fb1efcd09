//! Running smartmontools' `smartctl` for a drive's record: a real process with a real JSON
//! contract, found on `PATH` (tests put a stand-in first there). It is asked
//! `smartctl --json=c -n standby -a DEVICE`: `-a` reads the SMART/health figures and logs and
//! starts nothing (no self-test), `-n standby` leaves a spun-down drive asleep (smartctl exits
//! at once with bit 1 set instead of waking it). For a Seagate drive under smartctl 7.4 or
//! later whose first answer has no FARM log, a second call asks for it alone
//! (`-l farm`): its power-on hours are the drive's own, kept apart from SMART's.
//!
//! Every call is bounded (`DISKSCOPE_SMARTCTL_TIMEOUT` seconds, 10 by default): a hung
//! smartctl is killed with whatever it started (its own process group) and said in one line. Absent, failing or printing garbage, it is one line
//! too (`HealthGap`), never a panic. What the JSON means is `smartctl_json`'s.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::smartctl_json;
use crate::model::health::{GapKind, HealthGap, HealthRead, HealthRecord};

/// How long one call may take, by default.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What smartctl answered: its stdout and exit status (`None`: killed by a signal).
struct Answer {
    stdout: String,
    status: Option<i32>,
}

/// The one line said when smartctl is not installed.
pub fn absent_text() -> String {
    "smartctl not found: `apt install smartmontools` (or your system's smartmontools \
     package) to read SATA, SAS and USB drives' health"
        .into()
}

fn timeout() -> Duration {
    std::env::var("DISKSCOPE_SMARTCTL_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs_f64)
}

/// The most of smartctl's output read: its JSON is kilobytes; a runaway is cut here.
const MOST_READ: u64 = 16 << 20;

/// Kills smartctl and whatever it started (it runs in a process group of its own), so that
/// no child of a wrapper script keeps its output open.
fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

fn hung(device: &str, limit: Duration) -> HealthGap {
    HealthGap::new(
        GapKind::Failed,
        format!(
            "smartctl did not answer for {device} within {}: stopped it",
            crate::units::format_seconds(limit.as_secs_f64())
        ),
    )
}

/// Why smartctl did not start, naming the file on `PATH` that could not run (a directory
/// named smartctl, a file without its execute bit) and what to do.
fn not_started(e: &std::io::Error) -> String {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("smartctl"))
            .find(|p| p.exists())
    });
    match found {
        Some(p) if e.kind() == std::io::ErrorKind::PermissionDenied => format!(
            "smartctl did not start: {} is not an executable file (Permission denied); remove \
             it from PATH or install smartmontools",
            crate::units::visible(&p.display().to_string())
        ),
        _ => format!("smartctl did not start: {e}"),
    }
}

/// Runs `smartctl args…`, waiting at most the timeout: for it to exit, and for its output to
/// end (a child it left behind may hold that open). Its output is read as bytes, since a
/// drive's strings need not be UTF-8, and what is not is replaced, not the whole answer lost.
fn call(args: &[&str], device: &str) -> Result<Answer, HealthGap> {
    let mut child = Command::new("smartctl")
        .args(args)
        .arg(device)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => HealthGap::new(GapKind::NoSmartctl, absent_text()),
            _ => HealthGap::new(GapKind::Failed, not_started(&e)),
        })?;
    let pid = child.id();
    let mut stdout = child.stdout.take();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        crate::signals::leave_to_main();
        let mut bytes = Vec::new();
        if let Some(out) = stdout.as_mut() {
            let _ = out.take(MOST_READ).read_to_end(&mut bytes);
        }
        let _ = tx.send(bytes);
    });
    let limit = timeout();
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                kill_group(pid);
                let _ = child.wait();
                return Err(hung(device, limit));
            }
        }
    };
    let left = limit.saturating_sub(start.elapsed());
    let bytes = match rx.recv_timeout(left.max(Duration::from_millis(100))) {
        Ok(bytes) => bytes,
        Err(_) => {
            // smartctl exited, something it started holds its output open: what it printed
            // is all there is.
            kill_group(pid);
            rx.recv_timeout(Duration::from_secs(1))
                .map_err(|_| hung(device, limit))?
        }
    };
    Ok(Answer {
        stdout: String::from_utf8_lossy(&bytes).into_owned(),
        status: status.code(),
    })
}

/// True for a version at least `major.minor` ("7.4" ≥ 7.4).
fn at_least(version: Option<&str>, major: u64, minor: u64) -> bool {
    let Some(v) = version else { return false };
    let mut parts = v.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    let (a, b) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (a, b) >= (major, minor)
}

/// A drive Seagate made, by its model ("ST4000DM004…") or family.
fn seagate(r: &HealthRecord) -> bool {
    r.model
        .as_deref()
        .is_some_and(|m| m.starts_with("ST") || m.to_ascii_lowercase().contains("seagate"))
}

/// The record of `device` (`/dev/sda`) as smartctl reads it.
pub fn read(device: &str) -> HealthRead {
    let answer = call(&["--json=c", "-n", "standby", "-a"], device)?;
    let mut record = smartctl_json::parse(device, &answer.stdout, answer.status)?;
    if record.farm_power_on_hours.is_none()
        && seagate(&record)
        && at_least(record.source_version.as_deref(), 7, 4)
        && let Ok(farm) = call(&["--json=c", "-n", "standby", "-l", "farm"], device)
    {
        record.farm_power_on_hours = smartctl_json::farm_hours(&farm.stdout);
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number() {
        assert!(at_least(Some("7.4"), 7, 4));
        assert!(at_least(Some("7.10"), 7, 4));
        assert!(at_least(Some("8.0"), 7, 4));
        assert!(!at_least(Some("7.3"), 7, 4));
        assert!(!at_least(None, 7, 4));
    }

    #[test]
    fn seagate_by_model() {
        let with = |m: &str| HealthRecord {
            model: Some(m.into()),
            ..HealthRecord::default()
        };
        assert!(seagate(&with("ST4000DM004-2U9104")));
        assert!(seagate(&with("Seagate IronWolf")));
        assert!(!seagate(&with("WDC WD40EFRX")));
    }
}
