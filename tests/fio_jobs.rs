//! fio's own output, made here by running fio, read back by `--show` and `--baseline`: a
//! job is an entry, not a name. `numjobs=3` without `group_reporting` writes three entries
//! of one name; several named jobs, a `group_reporting` run, stonewalled groups with
//! status-interval snapshots, and a client/server run with three jobs on each of two hosts
//! (fio servers on loopback, started and stopped by the test). Every figure diskscope shows
//! is checked against the file as this test reads it, against fio's own "All clients" sum,
//! and against the kernel's count of the reads the disk completed. Skipped, saying so, when
//! fio is not installed.

mod common;

use std::net::TcpStream;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{diskscope, make_file, stderr, workdir};
use serde_json::Value;

fn fio_installed() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: fio is not installed");
    }
    ok
}

/// Runs fio in `dir` on the job text `job` with `args`; returns what it printed.
fn fio(dir: &Path, job: &str, args: &[&str]) -> String {
    let file = dir.join("job.fio");
    std::fs::write(&file, job).unwrap();
    let out = Command::new("timeout")
        .args(["60", "fio"])
        .arg(&file)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "fio failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A job file over `fixture.img` with `sections` after the global section.
fn job(global: &str, sections: &str) -> String {
    format!(
        "[global]\nioengine=psync\ndirect=1\nthread\ntime_based\nruntime=1s\nfilename=fixture.img\nsize=100%\n{global}\n{sections}"
    )
}

/// Every JSON document in fio's output, as this test reads it (fio's own error lines
/// around them skipped): each object starting at the beginning of a line.
fn docs(text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest
        .find("\n{")
        .map(|i| i + 1)
        .or(rest.starts_with('{').then_some(0))
    {
        let mut stream = serde_json::Deserializer::from_str(&rest[i..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => {
                out.push(v);
                rest = &rest[i + stream.byte_offset()..];
            }
            _ => rest = &rest[i + 1..],
        }
    }
    out
}

fn ios(job: &Value) -> u64 {
    job["read"]["total_ios"].as_u64().unwrap() + job["write"]["total_ios"].as_u64().unwrap()
}

/// Completed reads of the block device holding `path`.
fn device_reads(path: &Path) -> Option<u64> {
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    let stat = std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/stat")).ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn show(dir: &Path, file: &Path) -> String {
    let out = diskscope(dir, &["--show", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// A directory with a 16 MiB `fixture.img` and fio's output of `job` with `args` in
/// `name`; returns the directory, the output's path and the kernel's reads during it.
fn run_fio(job: &str, args: &[&str], name: &str) -> (tempfile::TempDir, PathBuf, Option<u64>) {
    let dir = workdir();
    let img = dir.path().join("fixture.img");
    make_file(&img, 16 << 20);
    let before = device_reads(&img);
    let text = fio(dir.path(), job, args);
    let after = device_reads(&img);
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path, before.zip(after).map(|(b, a)| a - b))
}

/// `numjobs=3`, no `group_reporting`: three entries named "fixture". Every one counts, in
/// json and json+ alike; before, `--show` said "1 job(s)" with the last one's figures and a
/// baseline compared with a third of the run.
#[test]
fn numjobs_are_every_entry_in_json_and_json_plus() {
    if !fio_installed() {
        return;
    }
    for (format, lat) in [("json", false), ("json+", false), ("json+", true)] {
        let job = job("", "[fixture]\nrw=randread\nbs=4096\nnumjobs=3\n");
        let mut args = vec![format!("--output-format={format}")];
        if lat {
            args.push("--lat_percentiles=1".into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (dir, path, kernel) = run_fio(&job, &args, "out.json");
        let doc = &docs(&std::fs::read_to_string(&path).unwrap())[0];
        let jobs = doc["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 3, "{format}");
        assert!(jobs.iter().all(|j| j["jobname"] == "fixture"));
        let total: u64 = jobs.iter().map(ios).sum();
        if let Some(k) = kernel {
            assert!(
                k >= total,
                "{format}: the kernel saw {k} reads, fio says {total}"
            );
        }
        let text = show(dir.path(), &path);
        assert!(text.contains("result, 3 jobs:"), "{format}: {text}");
        assert!(
            text.contains(&format!("3 jobs together: total over 1.0s: {total} ops")),
            "{format}: {text}"
        );
        for j in jobs {
            assert!(text.contains(&format!("fixture: total over 1.0s: {} ops", ios(j))));
        }
        // The rate a baseline compares with is the three jobs' together, fio's group way:
        // the I/Os over the longest runtime.
        let runtime = jobs
            .iter()
            .map(|j| j["read"]["runtime"].as_u64().unwrap())
            .max()
            .unwrap();
        let want = total as f64 * 1e3 / runtime as f64;
        let img = dir.path().join("fixture.img");
        let out = diskscope(
            dir.path(),
            &[
                img.to_str().unwrap(),
                "-T",
                "300ms",
                "-q",
                "--baseline",
                path.to_str().unwrap(),
            ],
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            text.contains(&format!("vs {want:.0} (")),
            "{format}, {want:.0}: {text}"
        );
        // What the run did differently is said: fio's p99 is the worst of three jobs', and
        // completion latency unless the job asked for total latency's percentiles.
        assert!(text.contains("worst of fio's 3 jobs'"), "{text}");
        assert_eq!(
            text.contains("completion latency (clat"),
            !lat,
            "{format} {lat}: {text}"
        );
    }
}

/// Two jobs of other names in one group, and `group_reporting`, which fio sums itself.
#[test]
fn named_jobs_are_summed_and_group_reporting_is_said() {
    if !fio_installed() {
        return;
    }
    let job2 = job(
        "",
        "[a]\nrw=randread\nbs=4096\n\n[b]\nrw=randread\nbs=8192\n",
    );
    let (dir, path, _) = run_fio(&job2, &["--output-format=json"], "named.json");
    let doc = &docs(&std::fs::read_to_string(&path).unwrap())[0];
    let total: u64 = doc["jobs"].as_array().unwrap().iter().map(ios).sum();
    let text = show(dir.path(), &path);
    assert!(text.contains("result, 2 jobs:"), "{text}");
    assert!(
        text.contains(&format!("2 jobs together: total over 1.0s: {total} ops")),
        "{text}"
    );
    assert!(
        text.contains("\n  a: total") && text.contains("\n  b: total"),
        "{text}"
    );

    let grouped = job(
        "group_reporting",
        "[fixture]\nrw=randread\nbs=4096\nnumjobs=3\n",
    );
    let (dir, path, kernel) = run_fio(&grouped, &["--output-format=json"], "grouped.json");
    let doc = &docs(&std::fs::read_to_string(&path).unwrap())[0];
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "fio summed the group itself");
    let total = ios(&jobs[0]);
    if let Some(k) = kernel {
        assert!(k >= total);
    }
    let text = show(dir.path(), &path);
    assert!(
        text.contains("result, 1 job (fio's group_reporting"),
        "{text}"
    );
    assert!(
        text.contains(&format!("total over 1.0s: {total} ops")),
        "{text}"
    );
}

/// Two stonewalled groups with a status-interval snapshot every second: the last document
/// is the result, each group summed apart, and the groups, run one after the other, are
/// not a run a baseline can stand for.
#[test]
fn stonewalled_groups_are_shown_apart_and_refused_as_a_run() {
    if !fio_installed() {
        return;
    }
    let job = job(
        "",
        "[a]\nrw=randread\nbs=4096\nnumjobs=2\n\n[b]\nstonewall\nrw=read\nbs=65536\nnumjobs=2\n",
    );
    let (dir, path, _) = run_fio(
        &job,
        &["--output-format=json", "--status-interval=1"],
        "groups.json",
    );
    let all = docs(&std::fs::read_to_string(&path).unwrap());
    assert!(all.len() >= 2, "one document per second and the result");
    let last = all.last().unwrap()["jobs"].as_array().unwrap().clone();
    let group = |g: u64| -> u64 {
        last.iter()
            .filter(|j| j["groupid"].as_u64() == Some(g))
            .map(ios)
            .sum()
    };
    let text = show(dir.path(), &path);
    assert!(
        text.contains("4 jobs in 2 groups run one after another"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "2 jobs together: total over 1.0s: {} ops",
            group(0)
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "2 jobs together: total over 1.0s: {} ops",
            group(1)
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "all groups, one after another: {} ops over 2.0s",
            group(0) + group(1)
        )),
        "{text}"
    );
    let img = dir.path().join("fixture.img");
    let out = diskscope(
        dir.path(),
        &[
            img.to_str().unwrap(),
            "-T",
            "1s",
            "--baseline",
            path.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "refused before the run");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("groups.json: holds fio's output of 2 groups"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing ran");
}

/// `fio --server` on `ip:port` in `cwd`, at most 120 s; stopped on drop.
struct Server(Child);

impl Server {
    fn start(ip: &str, port: u16, cwd: &Path) -> Server {
        let child = Command::new("timeout")
            .args(["120", "fio", &format!("--server=ip:{ip},{port}")])
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("fio --server starts");
        let server = Server(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect((ip, port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "fio --server on {ip}:{port} did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.0.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        let _ = self.0.wait();
    }
}

/// "fleet total: … N ops" of `--show`'s text.
fn fleet_ops(text: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.starts_with("fleet total:"))
        .unwrap();
    let before = line.split(" ops").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

/// A host's row: "  127.0.0.2:18812  IOPS … ops", and a mark after it when the host is
/// an outlier (one of two loopback servers on a loaded machine can be).
fn host_ops(text: &str, host: &str) -> u64 {
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with(host))
        .unwrap_or_else(|| panic!("{host}: {text}"));
    row.split_whitespace()
        .rev()
        .find_map(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{row}"))
}

/// Three jobs on each of two hosts: the fleet's total is fio's own "All clients" sum
/// (before, a third of it: one job a host), each host's the sum of its three; and with a
/// snapshot every second, each host's last three entries.
#[test]
fn client_server_with_three_jobs_a_host_sums_every_job() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    make_file(&dir.path().join("fixture.img"), 16 << 20);
    let _a = Server::start("127.0.0.2", 18812, dir.path());
    let _b = Server::start("127.0.0.3", 18812, dir.path());
    std::fs::write(
        dir.path().join("hosts.list"),
        "127.0.0.2,18812\n127.0.0.3,18812\n",
    )
    .unwrap();
    let img = dir.path().join("fixture.img");
    let job = job("", "[fixture]\nrw=randread\nbs=4096\nnumjobs=3\n").replace(
        "filename=fixture.img",
        &format!("filename={}", img.display()),
    );
    for interval in [None, Some("--status-interval=1")] {
        let mut args = vec!["--client=hosts.list", "--output-format=json"];
        args.extend(interval);
        let job_file = dir.path().join("cs.fio");
        std::fs::write(&job_file, &job).unwrap();
        let out = Command::new("timeout")
            .args(["60", "fio"])
            .args(&args)
            .arg(&job_file)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = dir.path().join("cs.json");
        std::fs::write(&path, &out.stdout).unwrap();
        let doc = docs(&String::from_utf8_lossy(&out.stdout)).pop().unwrap();
        let stats = doc["client_stats"].as_array().unwrap();
        let text = show(dir.path(), &path);
        assert!(text.contains("2 hosts, 3 jobs each"), "{text}");
        for host in ["127.0.0.2", "127.0.0.3"] {
            let mine: Vec<&Value> = stats
                .iter()
                .filter(|e| e["hostname"] == host && e["jobname"] != "All clients")
                .collect();
            assert_eq!(
                mine.len() % 3,
                0,
                "{interval:?}: whole snapshots of three jobs"
            );
            let last: u64 = mine[mine.len() - 3..].iter().map(|e| ios(e)).sum();
            assert_eq!(host_ops(&text, host), last, "{interval:?} {host}: {text}");
        }
        let all: u64 = stats
            .iter()
            .filter(|e| e["jobname"] == "All clients")
            .map(ios)
            .sum();
        if interval.is_none() {
            // One snapshot: fio's own sum of every job of every host is the fleet's total.
            assert_eq!(fleet_ops(&text), all, "{text}");
        } else {
            // fio's "All clients" sums only the first snapshot: less than the run.
            assert!(fleet_ops(&text) > all, "{text}");
        }
    }
}

fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio")
            .join(name),
    )
    .unwrap()
}

/// fio's client/server output with three jobs a host and a snapshot a second (a fixture
/// made here): each host's seconds, differenced from its summed snapshots, add up to its
/// total, and the fleet's to the sum of the hosts'.
#[test]
fn a_client_servers_seconds_add_up_to_its_totals() {
    let out = diskscope::fio::json::parse(&fixture_text("clientserver-numjobs.json")).unwrap();
    assert_eq!(out.snapshots.len(), 6, "three snapshots of two hosts");
    assert!(out.snapshots.iter().all(|s| s.jobs.len() == 3));
    let r = diskscope::fleet::results::from_fio(&out, diskscope::fleet::DEFAULT_OUTLIER_PCT);
    let mut ops = 0;
    for h in &r.hosts {
        let total = h.total.unwrap().ops;
        let secs: u64 = h.intervals.iter().map(|i| i.figures.ops).sum();
        assert_eq!(secs, total, "{}", h.host);
        ops += total;
    }
    assert_eq!(r.aggregate.ops, ops);
}

/// A bar per job, clones of one name told apart.
#[test]
fn the_chart_draws_a_bar_per_job_and_names_clones_apart() {
    let svg = diskscope::render::chart::fio_svg(
        &fixture_text("numjobs.json"),
        &diskscope::render::chart::Provenance::default(),
    )
    .unwrap();
    for k in 1..=3 {
        assert!(svg.contains(&format!("fixture #{k}")), "fixture #{k}");
    }
    assert!(svg.contains("3 jobs"));
}

/// Client/server, two stonewalled groups with `group_reporting`, a snapshot a second (a
/// fixture made here): the second group's entries carry no options, and a lower group
/// starts each snapshot; a host's total is its last snapshot's two groups, one after the
/// other.
#[test]
fn a_client_servers_groups_are_told_apart_and_added_one_after_the_other() {
    let text = fixture_text("clientserver-groups.json");
    let out = diskscope::fio::json::parse(&text).unwrap();
    assert_eq!(out.snapshots.len(), 8, "four snapshots of two hosts");
    assert!(out.snapshots.iter().all(|s| s.groups() == vec![0, 1]));
    assert_eq!(out.summed_by_fio(), Some(2));
    let doc = docs(&text).pop().unwrap();
    for f in out.finals() {
        let host = f.host.as_deref().unwrap();
        let mine: Vec<&Value> = doc["client_stats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["hostname"] == host && e["jobname"] != "All clients")
            .collect();
        let last: u64 = mine[mine.len() - 2..].iter().map(|e| ios(e)).sum();
        let runtime: u64 = mine[mine.len() - 2..]
            .iter()
            .map(|e| e["read"]["runtime"].as_u64().unwrap())
            .sum();
        let sum = f.sum();
        assert_eq!((sum.ios(), sum.runtime_ms), (last, runtime), "{host}");
    }
}
