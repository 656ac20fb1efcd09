//! Everything diskscope knows about fio, in one room: the job writer (`job`), the readers of
//! fio's JSON and terse output (`json` over `scan`, `raw` and `snapshots`; `terse`), the
//! client/server driver (`client`) and the version probe here. The fleet, `--fio`, `--show`
//! and `--baseline` call it; nothing in it knows about diskscope's command line, the fleet's
//! hosts file or how results are shown.
//!
//! fio 3.33's quirks, found by running it, each handled in the file named:
//!
//! - **File names** (`job`): fio splits `filename` at `:` unless escaped as `\:` (HOWTO,
//!   "filename"), cuts a value at `;` or `#` and trims blanks at its ends (parse.c,
//!   `strip_blank_end`), and in job files replaces `${VAR}`, `$pagesize`, `$mb_memory` and
//!   `$ncpus` (options.c). A path fio cannot name is reached through a symlink instead.
//! - **Stripes** (`job`): with `filesize` set, fio lets each job run to the end of the file
//!   instead of its stripe, so the stripes are `offset` + `size` (+ `offset_increment`).
//! - **Mixed patterns** (`job`): fio keeps one sequential position per direction and moves
//!   it after every I/O, random ones included (io_u.c); its random I/Os stay in the job's
//!   stripe. The job file says where this differs from diskscope.
//! - **Rates** (`job`): `rate_iops` is per job, per direction and whole; fio times a
//!   rate-limited I/O from its submission (diskscope's `service_latency_ns`).
//! - **`exec_prerun`** (`job`): fio appends `> NAME.prerun.txt 2>&1` to the command.
//! - **JSON output** (`json`): error lines are printed around the document (fio issue #731);
//!   a local run with `--status-interval` prints one whole document per interval; a
//!   client/server run lists every host's cumulative snapshots in one `client_stats` array,
//!   and its "All clients" entry sums only the first snapshot. A direction's `runtime` is
//!   the one fio's `iops` and `bw` are over (`job_runtime` can be a millisecond shorter).
//! - **Jobs** (`json`, `snapshots`): `numjobs=N` without `group_reporting` writes N entries
//!   of one `jobname`, so a job is an entry, never a name. Nothing in `client_stats` marks
//!   where one snapshot ends, but the client appends a job's options again at each snapshot
//!   (client.c `handle_job_opt`): the k-th lists them k times. Options set without a value
//!   (`thread`, `group_reporting`) are not printed at all.
//! - **Client mode** (`client`, `terse`): a client prints its ETA lines — the only figures
//!   that stream during a run — only when no JSON is asked for (client.c), so each host's
//!   client runs `--output-format=terse`; its `--status-interval` snapshots arrive together
//!   at the end. Terse carries kilobytes instead of bytes and I/O counts, and latencies in
//!   whole microseconds. A multi-host `--client` sums the hosts' ETA figures and names a host
//!   by what it calls itself, so each host gets its own client process.
//! - **Versions** (`client`): a client and a server of different versions exchange nothing
//!   useful (fio issue #620): a host that gives no results is asked about its version.

pub mod client;
pub mod job;
pub mod json;
mod names;
mod placement;
pub mod raw;
pub mod scan;
mod snapshots;
pub mod terse;
mod trim;
pub mod verify;

use std::path::{Path, PathBuf};

/// `fio --version` of `fio`, if it runs.
pub fn fio_version(fio: &Path) -> Option<String> {
    let out = std::process::Command::new(fio)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The fio found on PATH, or the one line saying to install it.
pub fn find_fio() -> Result<PathBuf, String> {
    let fio = PathBuf::from("fio");
    match fio_version(&fio) {
        Some(_) => Ok(fio),
        None => Err(
            "--fleet drives fio's client/server mode, and fio is not installed here: \
                     install it (apt-get install fio, or your distribution's fio package)"
                .into(),
        ),
    }
}
