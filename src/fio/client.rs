//! One `fio --server`: one `fio --client=HOST,PORT` process, its output read as it comes. It
//! takes the host as a name and a port, nothing of the fleet's.
//!
//! One process per host, not fio's multi-host `--client=hosts.list` (every loopback server
//! here calls itself "<vm>"), run with `--output-format=terse` so its ETA lines stream; why,
//! in `fio`'s quirks.
//!
//! A host is given `CONNECT_TIMEOUT` to show that it runs the job and the run's length plus
//! `FINISH_MARGIN` to end; past either its fio client is killed and the host fails with that
//! reason. A failed host is named with why — no server, a missing target, fio's own error,
//! no results at all (another fio version: fio issue #620) — and never stops the others.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::json::FioEntry;
use super::terse;

/// How long a host may take to start the job (connect, send, lay nothing out).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long past the run's length a host may take to send its results.
pub const FINISH_MARGIN: Duration = Duration::from_secs(30);
/// How much shorter than asked a host's run may be (fio's clock against the job's length)
/// before it counts as stopped early: this, or a tenth of the run if longer.
pub const SHORT_RUN_SLACK: f64 = 0.5;

/// What a host is doing, as the controller sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum HostEvent {
    /// Its fio client started; nothing heard yet.
    Connecting,
    /// An ETA line: the host's rate over the last second.
    Running(Live),
    /// The client ended.
    Finished(Box<HostOutcome>),
}

/// One ETA line of a host.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Live {
    /// I/Os per second over fio's last ETA period (reads + writes), as fio rounds it.
    pub iops: f64,
    /// How far through the run fio says it is, 0-100.
    pub percent: Option<f64>,
}

/// What a host's fio client left behind.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HostOutcome {
    /// Its cumulative snapshots, in order (the last is the final one).
    pub entries: Vec<FioEntry>,
    /// Why the host failed, if it did.
    pub failure: Option<String>,
}

/// What a host runs: the fio binary, the job file, how the job's I/O counts are read.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    pub fio: &'a Path,
    pub job_file: &'a Path,
    /// The target path on the hosts, for messages.
    pub target: &'a str,
    pub bs: u64,
    pub runtime: Duration,
    /// The job writes: its hosts check that the target is a regular file first, and do no
    /// I/O at all when it is not.
    pub writes: bool,
}

/// The `--client=` value fio takes for a server at `name` and `port` (`ip6:` for IPv6).
pub fn client_arg(name: &str, port: u16) -> String {
    if name.contains(':') {
        format!("ip6:{name},{port}")
    } else {
        format!("{name},{port}")
    }
}

/// Runs `job` on the `fio --server` at `name` and `port`, reporting through `report`;
/// returns what the host gave.
pub fn run_host(
    name: &str,
    port: u16,
    job: &Job,
    stop: &dyn Fn() -> bool,
    report: &dyn Fn(HostEvent),
) -> HostOutcome {
    report(HostEvent::Connecting);
    let child = Command::new(job.fio)
        .arg(format!("--client={}", client_arg(name, port)))
        .args([
            "--output-format=terse",
            "--terse-version=3",
            "--status-interval=1",
            "--eta=always",
        ])
        .arg(job.job_file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let outcome = match child {
        Ok(c) => watch(c, job, stop, report),
        Err(e) => HostOutcome {
            entries: vec![],
            failure: Some(format!("cannot run {}: {e}", job.fio.display())),
        },
    };
    report(HostEvent::Finished(Box::new(outcome.clone())));
    outcome
}

/// Lines of a stream, split at `\n` and at the `\r` that ends each ETA line.
fn spawn_lines(mut r: impl Read + Send + 'static, tx: mpsc::Sender<String>) {
    std::thread::spawn(move || {
        crate::signals::leave_to_main();
        let (mut buf, mut chunk) = (Vec::new(), [0u8; 8192]);
        while let Ok(n) = r.read(&mut chunk) {
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
            while let Some(i) = buf.iter().position(|&b| b == b'\n' || b == b'\r') {
                let line: Vec<u8> = buf.drain(..=i).collect();
                let _ = tx.send(String::from_utf8_lossy(&line[..i]).into_owned());
            }
        }
        if !buf.is_empty() {
            let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
        }
    });
}

fn watch(
    mut child: Child,
    job: &Job,
    stop: &dyn Fn() -> bool,
    report: &dyn Fn(HostEvent),
) -> HostOutcome {
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        spawn_lines(out, tx.clone());
    }
    if let Some(err) = child.stderr.take() {
        spawn_lines(err, tx);
    }
    let start = Instant::now();
    let mut started = false;
    let mut stopping = false;
    let mut entries = Vec::new();
    let mut text: Vec<String> = Vec::new();
    let mut timed_out = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(line) => {
                if terse::is_terse(&line) {
                    started = true;
                    entries.extend(terse::parse_line(&line, job.bs, true));
                } else if let Some(live) = parse_eta(&line) {
                    started = true;
                    report(HostEvent::Running(live));
                } else if !line.trim().is_empty() && !line.starts_with(';') && text.len() < 50 {
                    text.push(line.trim().to_string());
                }
            }
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if stop() && !stopping {
            // As Ctrl-C would: fio's client tells its server to stop and still reports.
            stopping = true;
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(child.id() as i32),
                nix::sys::signal::Signal::SIGINT,
            );
        }
        let waited = start.elapsed();
        let late = if !started && waited > CONNECT_TIMEOUT {
            Some(format!(
                "did not start the job within {} s (is `fio --server` running there and the port open?)",
                CONNECT_TIMEOUT.as_secs()
            ))
        } else if waited > job.runtime + CONNECT_TIMEOUT + FINISH_MARGIN {
            Some(format!(
                "did not finish within {} s of the run's end; stopped waiting",
                (CONNECT_TIMEOUT + FINISH_MARGIN).as_secs()
            ))
        } else {
            None
        };
        if late.is_some() {
            let _ = child.kill();
            timed_out = late;
            break;
        }
    }
    let status = child.wait().ok();
    let failure = timed_out.or_else(|| failure(&entries, &text, status, job, stopping));
    HostOutcome { entries, failure }
}

/// Why a host that ran to its end failed, if it did: from fio's messages, its error number,
/// its exit status, the absence of any result, or a run that ended short of its length.
/// A host whose server went away mid-run still leaves the snapshots it had sent (fio's
/// client prints them, exits 1 and says "disconnected"): those are figures of a shorter run,
/// so the host fails, its partial figures kept but not counted. `stopping`: the controller
/// asked every host to stop early, so a short run is expected.
pub fn failure(
    entries: &[FioEntry],
    text: &[String],
    status: Option<std::process::ExitStatus>,
    job: &Job,
    stopping: bool,
) -> Option<String> {
    let has = |needle: &str| text.iter().find(|l| l.contains(needle));
    if let Some(l) = has("fio: connect:") {
        let why = l.trim_start_matches("fio: connect:").trim();
        return Some(format!(
            "cannot connect: {why} (is `fio --server` running there?)"
        ));
    }
    if has("you need to specify size=").is_some() {
        return Some(format!(
            "{}: not there (or empty): a fleet run uses an existing file or device and never creates one{}",
            job.target,
            if job.target.starts_with('/') {
                ""
            } else {
                " (a relative path is taken from the directory each `fio --server` was started in)"
            }
        ));
    }
    if let Some(e) = entries.iter().rev().find(|e| e.error != 0) {
        return Some(fio_error(e.error, text));
    }
    if job.writes && entries.last().is_some_and(|e| e.ios() == 0) {
        return Some(format!(
            "{}: not a regular file on this host (a block device, a directory, or a link to one): a fleet writes only to regular files; nothing was written",
            job.target
        ));
    }
    let ran_s = entries.last().map_or(0.0, |e| e.runtime_ms as f64 / 1e3);
    let asked_s = job.runtime.as_secs_f64();
    let asked = crate::units::format_seconds(asked_s);
    if has("disconnected").is_some() && !entries.is_empty() {
        return Some(format!(
            "lost its fio server after {ran_s:.1} s of the {asked} run (the server stopped or the network went down); its figures so far are kept, not counted"
        ));
    }
    let code = status.and_then(|s| s.code());
    if !entries.is_empty() && !matches!(code, Some(0) | None) {
        return Some(format!(
            "fio exited with status {} after {ran_s:.1} s of the {asked} run: {}",
            code.unwrap_or(-1),
            text.last().map_or("", String::as_str)
        ));
    }
    // A time-based job runs its whole length unless something stopped it.
    if !stopping && !entries.is_empty() && ran_s < asked_s - SHORT_RUN_SLACK.max(asked_s * 0.1) {
        return Some(format!(
            "ran {ran_s:.1} s of the {asked} run: fio on the host stopped early (was its server stopped?); its figures are kept, not counted"
        ));
    }
    if entries.is_empty() {
        let last = text.last().cloned().unwrap_or_default();
        return Some(match code {
            Some(0) | None => format!(
                "gave no results{}: is fio on it the same version as here ({})? fio's client and server must match (fio issue #620)",
                if last.is_empty() {
                    String::new()
                } else {
                    format!(" ({last})")
                },
                super::fio_version(job.fio).unwrap_or_else(|| "unknown".into())
            ),
            Some(code) => format!("fio exited with status {code}: {last}"),
        });
    }
    None
}

/// fio's error `errno` said with what fio printed about it: the call that failed and on
/// what ("func=open(/srv/x)"), and fio's first other complaint ("destination does not
/// support O_DIRECT"), so a directory or an unreadable target is named, not just EINVAL.
fn fio_error(errno: i64, text: &[String]) -> String {
    let name = nix::errno::Errno::from_raw(errno as i32);
    let err_line = text
        .iter()
        .find(|l| l.starts_with("fio:") && l.contains("error="));
    let field = |key: &str| {
        err_line
            .and_then(|l| l.split(", ").find_map(|f| f.trim().strip_prefix(key)))
            .map(str::to_string)
    };
    let msg = field("error=").unwrap_or_else(|| name.desc().to_string());
    let func = field("func=").map_or(String::new(), |f| format!(" in {f}"));
    let said = text
        .iter()
        .filter(|l| l.starts_with("fio:") && !l.contains("error=") && !l.contains("pid="))
        .map(|l| l.trim_start_matches("fio:").trim())
        .next_back()
        .map_or(String::new(), |l| format!("; fio: {l}"));
    format!("fio error {errno} ({name:?}){func}: {msg}{said}")
}

/// The figures of an ETA line: `Jobs: 1 (f=1): [r(1)][75.0%][r=51.1M][r=12.8k IOPS][eta 00m:01s]`.
pub fn parse_eta(line: &str) -> Option<Live> {
    let rest = line.trim().strip_prefix("Jobs:")?;
    let brackets: Vec<&str> = rest
        .split('[')
        .filter_map(|b| b.split(']').next())
        .collect();
    let iops = brackets
        .iter()
        .find_map(|b| b.strip_suffix(" IOPS"))
        .map(|b| {
            b.split(',')
                .filter_map(|kv| kv.split_once('='))
                .map(|(_, v)| rate(v))
                .sum()
        })
        .unwrap_or(0.0);
    let percent = brackets
        .iter()
        .find_map(|b| b.strip_suffix('%'))
        .and_then(|p| p.parse().ok());
    Some(Live { iops, percent })
}

/// fio's rounded count: "12.8k" = 12800, "2560" = 2560, "1.2M" = 1.2e6.
fn rate(v: &str) -> f64 {
    let v = v.trim();
    let (num, mult) = match v.chars().last() {
        Some('k') | Some('K') => (&v[..v.len() - 1], 1e3),
        Some('M') => (&v[..v.len() - 1], 1e6),
        Some('G') => (&v[..v.len() - 1], 1e9),
        _ => (v, 1.0),
    };
    num.parse::<f64>().map_or(0.0, |n| n * mult)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fio::json::{DirStats, PercentileBasis};

    fn entry(runtime_ms: u64, ios: u64) -> FioEntry {
        let read = DirStats {
            ios,
            io_bytes: ios * 4096,
            runtime_ms,
            ..DirStats::default()
        };
        FioEntry {
            host: None,
            port: None,
            jobname: "diskscope".into(),
            error: 0,
            read,
            write: DirStats::default(),
            trim: DirStats::default(),
            runtime_ms,
            basis: PercentileBasis::Lat,
            group: 0,
            job_count: 1,
        }
    }

    fn exit(code: i32) -> Option<std::process::ExitStatus> {
        use std::os::unix::process::ExitStatusExt;
        Some(std::process::ExitStatus::from_raw(code << 8))
    }

    /// What fio 3.33 printed for a directory as the target: the failed call is named.
    #[test]
    fn fio_errors_name_the_call_and_fio_s_complaint() {
        let text: Vec<String> = [
            "fio: looks like your file system does not support direct=1/buffered=0",
            "fio: destination does not support O_DIRECT",
            "fio: pid=26171, err=22/file:filesetup.c:805, func=open(/srv/dir), error=Invalid argument",
            "client <127.0.0.2>: exited with error 1",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            fio_error(22, &text),
            "fio error 22 (EINVAL) in open(/srv/dir): Invalid argument; fio: destination does not support O_DIRECT"
        );
        assert_eq!(
            fio_error(13, &[]),
            "fio error 13 (EACCES): Permission denied"
        );
    }

    /// What fio 3.33's client printed when its server was killed 2 s into a 6 s run: the
    /// snapshots it had, "disconnected", exit status 1. Those are not a finished host.
    #[test]
    fn a_host_that_goes_away_mid_run_fails_with_its_figures_kept() {
        let job = Job {
            fio: Path::new("fio"),
            job_file: Path::new("job.fio"),
            target: "/srv/disk.img",
            bs: 4096,
            runtime: Duration::from_secs(6),
            writes: false,
        };
        let snaps = [entry(894, 8954), entry(1894, 19331)];
        let text = ["client: host=127.0.0.5 disconnected".to_string()];
        let why = failure(&snaps, &text, exit(1), &job, false).unwrap();
        assert!(
            why.contains("lost its fio server after 1.9 s of the 6 s run"),
            "{why}"
        );
        // Exit status 1 without the message, and a short run with status 0, fail too.
        let why = failure(&snaps, &[], exit(1), &job, false).unwrap();
        assert!(why.contains("status 1 after 1.9 s"), "{why}");
        let why = failure(&snaps, &[], exit(0), &job, false).unwrap();
        assert!(why.contains("ran 1.9 s of the 6 s run"), "{why}");
        // Stopped by the controller (Ctrl-C): short, and fine.
        assert_eq!(failure(&snaps, &[], exit(0), &job, true), None);
        // The whole run, to fio's millisecond: fine.
        let whole = [entry(1000, 9000), entry(6001, 60000)];
        assert_eq!(failure(&whole, &[], exit(0), &job, false), None);
    }

    #[test]
    fn eta_lines() {
        let l =
            parse_eta("Jobs: 1 (f=1): [r(1)][75.0%][r=51.1M][r=12.8k IOPS][eta 00m:01s]").unwrap();
        assert_eq!(l.iops, 12800.0);
        assert_eq!(l.percent, Some(75.0));
        let m = parse_eta(
            "Jobs: 2 (f=2): [m(2)][50.0%][r=10.0M,w=3.5M][r=2560,w=900 IOPS][eta 00m:05s]",
        )
        .unwrap();
        assert_eq!(m.iops, 3460.0);
        assert_eq!(parse_eta("Jobs: 1 (f=1)").unwrap().iops, 0.0);
        assert!(parse_eta("3;fio-3.33;d").is_none());
    }
}
