//! Fleets run for real: `fio --server` on loopback addresses (127.0.0.2, .3, .4; each test on
//! its own port), started by the test and stopped when it ends (a Drop guard, a `timeout`
//! around each server), and diskscope's `--fleet` driving them. The figures must agree with
//! each other (the aggregate is the sum of the hosts, a host's seconds add up to its total)
//! and with the kernel (every operation fio counted is a read the disk completed). fio's own
//! JSON (fixtures made by fio 3.33 here) is read by `--show` and `--baseline`. Skipped,
//! saying so, when fio is not installed.

mod common;

use std::net::TcpStream;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{LoopDev, diskscope, make_file, stderr, workdir};
use serde_json::Value;

fn fio_installed() -> bool {
    let ok = Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "skipped: fio is not installed (a fleet needs fio on the controller and the hosts)"
        );
    }
    ok
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

impl Server {
    /// Kills the server and the job it forked, at once (`timeout` leads their process
    /// group): a host that dies mid-run.
    fn kill_all(&self) {
        let group = nix::unistd::Pid::from_raw(-(self.0.id() as i32));
        let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM to timeout, which passes it on to fio.
        let pid = nix::unistd::Pid::from_raw(self.0.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        let _ = self.0.wait();
    }
}

/// Completed reads of the block device holding `path` (/sys/dev/block/M:m/stat).
fn device_reads(path: &Path) -> Option<u64> {
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    let stat = std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/stat")).ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// A 16 MiB file of data in `dir`.
fn target(dir: &Path, name: &str) -> PathBuf {
    let f = dir.join(name);
    make_file(&f, 16 << 20);
    f
}

fn fleet_json(dir: &Path, args: &[&str]) -> (Value, std::process::Output) {
    let out = diskscope(dir, args);
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: stdout {:?} stderr {}", out.stdout, stderr(&out)));
    (v, out)
}

fn hosts_of(v: &Value) -> &Vec<Value> {
    v["hosts"].as_array().unwrap()
}

/// Every finished host's seconds add up to its total; the aggregate is the sum of hosts.
fn assert_consistent(v: &Value) {
    let done: Vec<&Value> = hosts_of(v)
        .iter()
        .filter(|h| h["state"] == "done")
        .collect();
    let mut ops = 0;
    let mut iops = 0.0;
    for h in &done {
        let t = &h["total"];
        let total = t["ops"].as_u64().unwrap();
        assert!(total > 0, "{h}");
        let secs: u64 = h["intervals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["ops"].as_u64().unwrap())
            .sum();
        assert_eq!(secs, total, "{}: seconds vs total", h["host"]);
        assert_eq!(t["bytes"].as_u64().unwrap(), total * 4096);
        let rate = total as f64 / t["elapsed_s"].as_f64().unwrap();
        assert!((rate - t["iops"].as_f64().unwrap()).abs() < 1.0);
        ops += total;
        iops += t["iops"].as_f64().unwrap();
    }
    let a = &v["aggregate"];
    assert_eq!(
        a["ops"].as_u64().unwrap(),
        ops,
        "aggregate ops = sum of hosts"
    );
    assert!((a["iops"].as_f64().unwrap() - iops).abs() < 1e-6);
    assert_eq!(a["hosts_done"].as_u64().unwrap(), done.len() as u64);
    let fleet_secs: u64 = v["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(fleet_secs, ops, "the fleet's seconds add up to its ops");
}

#[test]
fn two_hosts_agree_with_each_other_and_with_the_kernel() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = target(dir.path(), "disk.img");
    let before = std::fs::read(&file).unwrap();
    let _a = Server::start("127.0.0.2", 18801, dir.path());
    let _b = Server::start("127.0.0.3", 18801, dir.path());
    let reads0 = device_reads(&file);
    let (v, out) = fleet_json(
        dir.path(),
        &[
            "--fleet",
            "127.0.0.2:18801,127.0.0.3:18801",
            file.to_str().unwrap(),
            "-T",
            "2s",
            "--json",
        ],
    );
    let reads1 = device_reads(&file);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(hosts_of(&v).len(), 2);
    assert!(hosts_of(&v).iter().all(|h| h["state"] == "done"), "{v}");
    assert_consistent(&v);
    // Each O_DIRECT 4k read is one read the disk completed (others may read too: at least).
    if let (Some(r0), Some(r1)) = (reads0, reads1) {
        let ops = v["aggregate"]["ops"].as_u64().unwrap();
        assert!(r1 - r0 >= ops, "kernel reads {} < fleet ops {ops}", r1 - r0);
    }
    // The job file is saved with the result, and reading never changed the file.
    assert!(
        v["job_file"]
            .as_str()
            .unwrap()
            .contains("allow_file_create=0")
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn three_hosts_and_one_down_still_count() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = target(dir.path(), "disk.img");
    let _s: Vec<Server> = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
        .iter()
        .map(|ip| Server::start(ip, 18802, dir.path()))
        .collect();
    let hosts = dir.path().join("hosts.list");
    std::fs::write(
        &hosts,
        "# three up, one down\n127.0.0.2,18802\n127.0.0.3,18802\n127.0.0.4,18802\n127.0.0.5,18802\n",
    )
    .unwrap();
    let (v, out) = fleet_json(
        dir.path(),
        &[
            "--fleet",
            hosts.to_str().unwrap(),
            file.to_str().unwrap(),
            "-T",
            "2s",
            "--json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "some hosts failed: {}",
        stderr(&out)
    );
    let failed: Vec<&Value> = hosts_of(&v)
        .iter()
        .filter(|h| h["state"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{v}");
    assert_eq!(failed[0]["host"], "127.0.0.5");
    assert!(
        failed[0]["reason"]
            .as_str()
            .unwrap()
            .contains("cannot connect"),
        "{v}"
    );
    assert_eq!(v["aggregate"]["hosts_done"], 3);
    assert_consistent(&v);
    // Failed hosts come last; the finished ones by IOPS, highest first.
    let iops: Vec<f64> = hosts_of(&v)
        .iter()
        .filter_map(|h| h["total"]["iops"].as_f64())
        .collect();
    assert!(iops.windows(2).all(|w| w[0] >= w[1]), "{iops:?}");
    assert_eq!(hosts_of(&v).last().unwrap()["host"], "127.0.0.5");
}

#[test]
fn a_host_whose_server_dies_mid_run_fails_and_is_not_counted() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = target(dir.path(), "disk.img");
    let _a = Server::start("127.0.0.2", 18806, dir.path());
    let b = Server::start("127.0.0.3", 18806, dir.path());
    let run = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["--fleet", "127.0.0.2:18806,127.0.0.3:18806"])
        .arg(&file)
        .args(["-T", "6s", "--json"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Both hosts start within a few seconds; one dies 2 s before the run can end.
    std::thread::sleep(Duration::from_secs(6));
    b.kill_all();
    let out = run.wait_with_output().unwrap();
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
    assert_eq!(out.status.code(), Some(3), "{v}");
    let dead = hosts_of(&v)
        .iter()
        .find(|h| h["host"] == "127.0.0.3")
        .unwrap();
    assert_eq!(dead["state"], "failed", "{v}");
    let why = dead["reason"].as_str().unwrap();
    assert!(why.contains("of the 6 s run"), "{why}");
    // Its partial figures are kept but the fleet's are the survivor's alone.
    let alive = hosts_of(&v)
        .iter()
        .find(|h| h["host"] == "127.0.0.2")
        .unwrap();
    assert_eq!(alive["state"], "done");
    assert_eq!(v["aggregate"]["ops"], alive["total"]["ops"]);
    assert!(dead["total"]["elapsed_s"].as_f64().unwrap() < 5.5, "{dead}");
    assert_consistent(&v);
}

/// Writes from the kernel's counters of a block device (`/sys/block/NAME/stat`, field 5).
fn device_writes(name: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    stat.split_whitespace().nth(4).unwrap().parse().unwrap()
}

#[test]
#[ignore = "needs root: a loop device"]
fn a_write_fleet_never_writes_a_block_device_behind_a_link() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let dev = LoopDev::on_new_file(dir.path(), 8 << 20, &[]);
    let before = dev.checksum();
    // A path that is not under /dev but names the device, as a host could have it.
    let link = dir.path().join("bench.img");
    std::os::unix::fs::symlink(&dev.path, &link).unwrap();
    let file = target(dir.path(), "disk.img");
    let _a = Server::start("127.0.0.2", 18807, dir.path());
    let writes0 = device_writes(dev.name());
    let write_run = |path: &Path| {
        fleet_json(
            dir.path(),
            &[
                "--fleet",
                "127.0.0.2:18807",
                path.to_str().unwrap(),
                "--read",
                "0",
                "--allow-write",
                "-T",
                "1s",
                "--json",
            ],
        )
    };
    let (v, out) = write_run(&link);
    assert_eq!(out.status.code(), Some(1), "{v}");
    let why = hosts_of(&v)[0]["reason"].as_str().unwrap();
    assert!(why.contains("not a regular file"), "{why}");
    assert_eq!(device_writes(dev.name()), writes0, "the kernel saw writes");
    assert_eq!(dev.checksum(), before);
    // A regular file is written as before, and fio's prerun left no file on the host.
    let (v, out) = write_run(&file);
    assert!(out.status.success(), "{v}");
    assert!(v["aggregate"]["ops"].as_u64().unwrap() > 0);
    assert_consistent(&v);
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("prerun"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_host_without_the_target_fails_by_name_and_nothing_is_created() {
    if !fio_installed() {
        return;
    }
    // The target is a relative path: each server resolves it in its own directory, and
    // only one of them has it.
    let dir = workdir();
    let (has, lacks) = (dir.path().join("has"), dir.path().join("lacks"));
    std::fs::create_dir(&has).unwrap();
    std::fs::create_dir(&lacks).unwrap();
    target(&has, "disk.img");
    let _a = Server::start("127.0.0.2", 18803, &has);
    let _b = Server::start("127.0.0.3", 18803, &lacks);
    let out = diskscope(
        dir.path(),
        &[
            "--fleet",
            "127.0.0.2:18803,127.0.0.3:18803",
            "disk.img",
            "-T",
            "1s",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(3), "{text}{}", stderr(&out));
    let line = text
        .lines()
        .find(|l| l.contains("127.0.0.3") && l.contains("failed"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("disk.img: not there"), "{line}");
    assert!(text.contains("fleet: 1 of 2 hosts finished"), "{text}");
    // fio created nothing on the host without it.
    assert!(!lacks.join("disk.img").exists());
}

#[test]
fn fio_missing_on_the_controller_is_one_line() {
    let dir = workdir();
    let empty = dir.path().join("bin");
    std::fs::create_dir(&empty).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["--fleet", "127.0.0.2", "/srv/disk.img"])
        .env("PATH", &empty)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("fio is not installed") && err.contains("apt-get install fio"),
        "{err}"
    );
}

#[test]
fn fleet_writes_to_devices_and_bad_hosts_are_refused() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    for (args, needle) in [
        (
            vec![
                "--fleet",
                "h1",
                "/dev/sdb",
                "--read",
                "50",
                "--allow-write=/dev/sdb",
            ],
            "read-only",
        ),
        (
            vec!["--fleet", "h1", "/srv/x", "--read", "50"],
            "--allow-write",
        ),
        (vec!["--fleet", "h1:0", "/srv/x"], "--fleet"),
        (vec!["--fleet", "h1"], "needs TARGET"),
        (
            vec!["--fleet", "h1", "/srv/x", "--outlier-pct", "0"],
            "--outlier-pct",
        ),
        (
            vec!["--fleet", "h1", "/srv/x", "--sweep", "threads=1,2"],
            "--sweep",
        ),
        (vec!["--fleet", "h1", "/srv/x", "--size", "1M"], "--size"),
        (vec!["--fleet", "h1", "/srv/x", "--keep"], "--keep"),
        (
            vec!["--fleet", "h1", "/srv/x", "--show", "a.json"],
            "--show",
        ),
        (vec!["--fleet", "h1", "/srv/x", "--csv"], "--csv"),
        (vec!["--fleet", "h1", "/srv/x", "--list"], "--list"),
    ] {
        let out = diskscope(dir.path(), &args);
        let err = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: refused with the arguments"
        );
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// Flushes the block device holding `path` completed (/sys/dev/block/M:m/stat, field 16).
fn device_flushes(path: &Path) -> Option<u64> {
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    let stat = std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/stat")).ok()?;
    stat.split_whitespace().nth(15)?.parse().ok()
}

/// `--fsync N` on an O_DIRECT fleet reaches every host's fio and the disk (the job once had
/// no fdatasync there, while --buffered kept it): the flushes the disk completed during the
/// run are in proportion to the writes fio counted. Other processes' flushes only add; the
/// bound is half of one per N writes, as the kernel may merge a flush with another's.
#[test]
fn fsync_reaches_every_hosts_fio_and_the_disk() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = target(dir.path(), "disk.img");
    let _a = Server::start("127.0.0.2", 18809, dir.path());
    let flushes0 = device_flushes(&file);
    let (v, out) = fleet_json(
        dir.path(),
        &[
            "--fleet",
            "127.0.0.2:18809",
            file.to_str().unwrap(),
            "--read",
            "0",
            "--allow-write",
            "--fsync",
            "2",
            "-T",
            "2s",
            "--json",
        ],
    );
    let flushes1 = device_flushes(&file);
    assert!(out.status.success(), "{}", stderr(&out));
    let job = v["job_file"].as_str().unwrap();
    assert!(job.lines().any(|l| l == "direct=1"), "{job}");
    assert!(job.lines().any(|l| l == "fdatasync=2"), "{job}");
    let writes = v["aggregate"]["ops"].as_u64().unwrap();
    assert!(writes > 100, "{v}");
    if let (Some(f0), Some(f1)) = (flushes0, flushes1) {
        assert!(
            (f1 - f0) * 4 >= writes,
            "{} flushes for {writes} writes with --fsync 2",
            f1 - f0
        );
    }
}

/// --drop-cache reaches the hosts: fio's invalidate=1 in the job every host runs.
#[test]
fn drop_cache_is_in_the_fleet_job() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    for (flag, want) in [
        (None, "invalidate=0"),
        (Some("--drop-cache"), "invalidate=1"),
    ] {
        let mut args = vec!["--fleet", "127.0.0.9:18808", "/srv/x", "-T", "1s", "--json"];
        args.extend(flag);
        let (v, out) = fleet_json(dir.path(), &args);
        assert_eq!(out.status.code(), Some(1), "nobody listens there: {v}");
        let job = v["job_file"].as_str().unwrap();
        assert!(job.lines().any(|l| l == want), "{flag:?}: {job}");
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio")
        .join(name)
}

/// The last document of a fixture, parsed by the test itself.
fn last_doc(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    let start = text.rfind("\n{\n").map_or(0, |i| i + 1);
    serde_json::from_str(&text[start..]).unwrap()
}

#[test]
fn a_result_cut_short_is_said_to_be_so() {
    let dir = workdir();
    let whole = std::fs::read_to_string(fixture("clientserver.json")).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    for flag in ["--show", "--baseline"] {
        let out = diskscope(dir.path(), &[flag, cut.to_str().unwrap(), "/srv/x"]);
        let err = stderr(&out);
        assert!(!out.status.success(), "{flag}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("cut.json") && err.contains("cut short"),
            "{err}"
        );
    }
}

#[test]
fn show_reads_fio_json_plain_jsonplus_and_concatenated() {
    let dir = workdir();
    for name in ["plain.json", "jsonplus.json", "concatenated.json"] {
        let doc = last_doc(name);
        let ios = doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
        let out = diskscope(dir.path(), &["--show", fixture(name).to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(text.contains(&format!("{ios} ops")), "{name}: {text}");
    }
    let plus = diskscope(
        dir.path(),
        &["--show", fixture("jsonplus.json").to_str().unwrap()],
    );
    assert!(String::from_utf8_lossy(&plus.stdout).contains("total latency (lat)"));
}

#[test]
fn show_reads_fio_client_server_per_host_with_junk_around() {
    let dir = workdir();
    let doc = last_doc("clientserver.json");
    // The test's own reading: the last snapshot of each host.
    let mut want = std::collections::BTreeMap::new();
    for e in doc["client_stats"].as_array().unwrap() {
        if e["jobname"] != "All clients" {
            want.insert(
                e["hostname"].as_str().unwrap().to_string(),
                e["read"]["total_ios"].as_u64().unwrap(),
            );
        }
    }
    assert_eq!(want.len(), 2);
    let out = diskscope(
        dir.path(),
        &["--show", fixture("clientserver.json").to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    for (host, ios) in &want {
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(host.as_str()))
            .unwrap();
        assert!(row.trim_end().ends_with(&ios.to_string()), "{row}");
    }
    let sum: u64 = want.values().sum();
    assert!(text.contains(&format!("{sum} ops")), "{text}");
    let failed = diskscope(
        dir.path(),
        &[
            "--show",
            fixture("clientserver-one-failed.json").to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&failed.stdout).into_owned();
    assert!(failed.status.success(), "{}", stderr(&failed));
    assert!(text.contains("127.0.0.3 failed: fio error 22"), "{text}");
}

/// fio's output with three jobs of one name, local and client/server with a snapshot a
/// second (fixtures made by fio 3.33 here): every entry of the last snapshot counts.
#[test]
fn show_sums_every_job_of_fios_output() {
    let dir = workdir();
    let doc = last_doc("numjobs.json");
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    let sum: u64 = jobs
        .iter()
        .map(|j| j["read"]["total_ios"].as_u64().unwrap())
        .sum();
    let out = diskscope(
        dir.path(),
        &["--show", fixture("numjobs.json").to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains(&format!("3 jobs together: total over 2.0s: {sum} ops")),
        "{text}"
    );

    let doc = last_doc("clientserver-numjobs.json");
    let stats = doc["client_stats"].as_array().unwrap();
    let out = diskscope(
        dir.path(),
        &[
            "--show",
            fixture("clientserver-numjobs.json").to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("2 hosts, 3 jobs each"), "{text}");
    let mut total = 0;
    for host in ["127.0.0.2", "127.0.0.3"] {
        let mine: Vec<u64> = stats
            .iter()
            .filter(|e| e["hostname"] == host && e["jobname"] != "All clients")
            .map(|e| e["read"]["total_ios"].as_u64().unwrap())
            .collect();
        assert_eq!(mine.len(), 9, "three snapshots of three jobs");
        let last: u64 = mine[6..].iter().sum();
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(host))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            row.trim_end().ends_with(&last.to_string()),
            "{row} vs {last}"
        );
        total += last;
    }
    assert!(text.contains(&format!("{total} ops")), "{text}");
}

#[test]
fn fio_json_is_a_baseline_for_a_run() {
    let dir = workdir();
    let file = target(dir.path(), "disk.img");
    let want = last_doc("plain.json")["jobs"][0]["read"]["iops"]
        .as_f64()
        .unwrap();
    let out = diskscope(
        dir.path(),
        &[
            file.to_str().unwrap(),
            "-T",
            "1s",
            "-q",
            "--baseline",
            fixture("plain.json").to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("vs baseline plain.json: IOPS"), "{text}");
    assert!(text.contains(&format!("vs {want:.0} (")), "{text}");
    // A client/server result is a fleet: the run is compared with its median host.
    let out = diskscope(
        dir.path(),
        &[
            file.to_str().unwrap(),
            "-T",
            "1s",
            "-q",
            "--baseline",
            fixture("clientserver.json").to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("vs baseline fleet clientserver.json (2 hosts)"),
        "{text}"
    );
}

#[test]
fn a_fleet_compares_with_a_client_server_baseline_by_host() {
    if !fio_installed() {
        return;
    }
    let dir = workdir();
    let file = target(dir.path(), "disk.img");
    let _a = Server::start("127.0.0.2", 18804, dir.path());
    let out = diskscope(
        dir.path(),
        &[
            "--fleet",
            "127.0.0.2:18804",
            file.to_str().unwrap(),
            "-T",
            "1s",
            "--baseline",
            fixture("clientserver.json").to_str().unwrap(),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains("vs baseline fleet clientserver.json:"),
        "{text}"
    );
    // Matched by name (the fixture's server was on 8765); the baseline had two hosts, this
    // fleet one: the totals are not set side by side as if they were the same fleet.
    assert!(text.contains("  127.0.0.2:18804: IOPS"), "{text}");
    assert!(text.contains("the 1 host in both, summed"), "{text}");
    assert!(
        text.contains("fleet total (1 finished hosts now, 2 then: not the same fleet)"),
        "{text}"
    );
}
