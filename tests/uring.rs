//! The io_uring engine on real files: live changes with requests in flight keep every interval
//! whole (bytes = ops × bs, one latency per op), depth changes take effect, short completions
//! are counted with their offsets, and when io_uring is refused (the test seam) the run falls
//! back to psync at depth 1 and says why, while `--ioengine io_uring` fails saying why.

mod common;

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{diskscope, json, stderr, workdir};
use diskscope::engine::{Engine, Geometry, Options, ioengine};
use diskscope::settings::{IoEngine, Settings};
use diskscope::stats::Snapshot;
use diskscope::target::open::{OpenSpec, Target};

const TICK: Duration = Duration::from_millis(20);

fn temp_file(dir: &std::path::Path, bytes: usize) -> std::path::PathBuf {
    let path = dir.join("data");
    let mut f = std::fs::File::create(&path).unwrap();
    let block: Vec<u8> = (0..1 << 16).map(|i| (i * 7 + 3) as u8).collect();
    for _ in 0..bytes / block.len() {
        f.write_all(&block).unwrap();
    }
    f.sync_all().unwrap();
    path
}

fn open(path: &std::path::Path, write: bool) -> Arc<Target> {
    open_with(path, write, false)
}

/// With O_DIRECT, requests really are in flight (page-cached reads complete inside the
/// submitting call).
fn open_with(path: &std::path::Path, write: bool, direct: bool) -> Arc<Target> {
    let spec = OpenSpec {
        direct,
        write,
        span: None,
    };
    Arc::new(Target::open(path, spec).unwrap())
}

fn uring() -> Options {
    Options {
        tick: TICK,
        ioengine: IoEngine::IoUring,
        ..Options::default()
    }
}

/// Skips (with the reason printed) where the kernel refuses io_uring.
fn uring_allowed() -> bool {
    match ioengine::probe() {
        Ok(()) => true,
        Err(why) => {
            eprintln!("skipped: io_uring refused here: {why}");
            false
        }
    }
}

fn assert_adds_up(s: &Snapshot) {
    let i = &s.interval;
    assert_eq!(i.bytes, i.ops * s.settings.bs, "interval {}: {i:?}", s.seq);
    assert_eq!(i.read_ops + i.write_ops, i.ops, "{i:?}");
    let lat = s.interval_latency.count();
    assert_eq!(lat, i.ops, "interval {}: latencies vs ops", s.seq);
    assert_eq!(s.total_latency.count, s.total.ops, "totals at {}", s.seq);
}

/// Drains snapshots for `time`, checking each; returns them.
fn drain(engine: &Engine, time: Duration) -> Vec<Snapshot> {
    let deadline = Instant::now() + time;
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(200)) {
            assert_adds_up(&s);
            seen.push(s);
        }
    }
    seen
}

#[test]
fn bs_changes_at_depth_32_never_mix_two_block_sizes_in_an_interval() {
    if !uring_allowed() {
        return;
    }
    let dir = workdir();
    let t = open_with(&temp_file(dir.path(), 32 << 20), true, true);
    let start = Settings {
        threads: 2,
        iodepth: 32,
        ..Settings::default()
    };
    let mut engine = Engine::start_with(t.clone(), t.geometry(), start, uring()).unwrap();
    let mut per_bs = std::collections::HashMap::new();
    for round in 0..3 {
        for (bs, read_pct) in [(4096, 100), (65536, 70), (16384, 0), (8192, 50)] {
            let s = Settings {
                bs,
                read_pct,
                random_pct: if round == 1 { 0 } else { 100 },
                ..start
            };
            engine.apply(s).unwrap();
            // At least 120 ms of snapshots, and (up to 5 s under load) until this setting ran:
            // the workers reap what is in flight before they switch.
            let deadline = Instant::now() + Duration::from_secs(5);
            let mut ran = false;
            while !ran && Instant::now() < deadline {
                for snap in drain(&engine, Duration::from_millis(120)) {
                    *per_bs.entry(snap.settings.bs).or_insert(0) += snap.interval.ops;
                    ran |= snap.settings == s && snap.interval.ops > 0;
                }
            }
        }
        // Pause and reset with requests in flight: the workers reap before parking.
        engine.set_paused(true);
        engine.settle(Duration::from_secs(2));
        // Snapshots cut before the pause may still be queued; those of paused time are empty.
        let quiet = drain(&engine, Duration::from_millis(100));
        assert!(
            quiet
                .iter()
                .filter(|s| s.paused)
                .all(|s| s.interval.ops == 0),
            "I/O while paused"
        );
        engine.reset_stats();
        engine.set_paused(false);
    }
    engine.request_stop();
    while let Ok(s) = engine.snapshots().recv_timeout(Duration::from_secs(5)) {
        assert_adds_up(&s);
    }
    for bs in [4096, 65536, 16384, 8192] {
        assert!(
            per_bs.get(&bs).copied().unwrap_or(0) > 0,
            "no ops at bs {bs}: {per_bs:?}"
        );
    }
}

#[test]
fn depth_changes_live_and_psync_refuses_a_deeper_queue() {
    if !uring_allowed() {
        return;
    }
    let dir = workdir();
    let t = open(&temp_file(dir.path(), 8 << 20), false);
    let mut engine =
        Engine::start_with(t.clone(), t.geometry(), Settings::default(), uring()).unwrap();
    for depth in [64, 1, 256, 7] {
        let s = Settings {
            iodepth: depth,
            ..Settings::default()
        };
        engine.apply(s).unwrap();
        // Under load the switch may take a while: wait (up to 5 s) for work at this depth.
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut ops = 0;
        while ops == 0 && Instant::now() < deadline {
            if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(200)) {
                assert_adds_up(&s);
                if s.settings.iodepth == depth {
                    ops += s.interval.ops;
                }
            }
        }
        assert!(ops > 0, "no ops at depth {depth}");
    }
    let e = engine
        .apply(Settings {
            iodepth: 257,
            ..Settings::default()
        })
        .unwrap_err();
    assert!(e.contains("queue depth 257"), "{e}");
    engine.join();

    let psync = Options {
        ioengine: IoEngine::Psync,
        ..uring()
    };
    let deep = Settings {
        iodepth: 8,
        ..Settings::default()
    };
    let e = Engine::start_with(t.clone(), t.geometry(), deep, psync)
        .err()
        .expect("psync at depth 8 is refused");
    assert!(e.contains("needs the io_uring engine"), "{e}");
}

#[test]
fn completions_short_of_the_block_are_counted_with_their_offset() {
    if !uring_allowed() {
        return;
    }
    let dir = workdir();
    let path = temp_file(dir.path(), 4 << 20);
    let t = open(&path, false);
    let g: Geometry = t.geometry();
    let s = Settings {
        iodepth: 16,
        ..Settings::default()
    };
    let engine = Engine::start_with(t.clone(), g, s, uring()).unwrap();
    drain(&engine, Duration::from_millis(100));
    // Cut the file to a quarter, 100 bytes into a block: reads beyond come back short (0 or
    // 100 bytes), which are not ops.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len((1 << 20) + 100)
        .unwrap();
    let seen = drain(&engine, Duration::from_millis(300));
    let last = seen.last().expect("snapshots");
    assert!(last.total.short_ios > 0, "{:?}", last.total);
    let kept = &last.first_errors;
    assert!(!kept.is_empty(), "short reads are kept");
    assert!(
        kept.iter()
            .all(|e| e.offset >= 1 << 20 && e.message.contains("short read")),
        "{kept:?}"
    );
    engine.join();
}

#[test]
fn refused_io_uring_falls_back_to_psync_saying_why() {
    let dir = workdir();
    temp_file(dir.path(), 4 << 20);
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_diskscope"))
            .args(args)
            .current_dir(dir.path())
            .env(ioengine::REFUSE_ENV, "1")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&[
        "data",
        "--buffered",
        "-Q",
        "8",
        "-T",
        "1s",
        "--no-tui",
        "--json",
    ]);
    let v = json(&out);
    assert_eq!(v["config"]["ioengine"], "psync");
    assert_eq!(v["config"]["iodepth"], 1);
    let why = v["config"]["ioengine_fallback"].as_str().unwrap();
    assert!(
        why.contains(ioengine::REFUSE_ENV) && why.contains("-Q 8"),
        "{why}"
    );
    assert!(v["total"]["ops"].as_u64().unwrap() > 0);

    let out = run(&["data", "--buffered", "-T", "1s", "--no-tui"]);
    // Said in the header and again in the summary, never per interval.
    let text = String::from_utf8_lossy(&out.stdout);
    let (header, _) = text.split_once("IOPS").unwrap();
    assert_eq!(header.matches("io_uring unavailable").count(), 1, "{text}");
    assert_eq!(text.matches("io_uring unavailable").count(), 2, "{text}");

    let out = run(&["data", "--ioengine", "io_uring", "-T", "1s", "--no-tui"]);
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains("--ioengine io_uring") && e.contains(ioengine::REFUSE_ENV),
        "{e}"
    );
}

#[test]
fn json_names_the_engine_depth_and_latency_basis() {
    if !uring_allowed() {
        return;
    }
    let dir = workdir();
    temp_file(dir.path(), 4 << 20);
    let args = [
        "data",
        "--buffered",
        "-Q",
        "4",
        "-t",
        "2",
        "-T",
        "1s",
        "--no-tui",
        "--json",
    ];
    let v = json(&diskscope(dir.path(), &args));
    assert_eq!(v["config"]["ioengine"], "io_uring");
    assert_eq!(v["config"]["iodepth"], 4);
    assert!(v["config"].get("ioengine_fallback").is_none());
    let basis = v["config"]["latency_basis"].as_str().unwrap();
    assert!(
        basis.contains("submission") && basis.contains("lat"),
        "{basis}"
    );
    let cpu = &v["cpu"];
    assert!(
        cpu["user_s"].as_f64().unwrap() + cpu["system_s"].as_f64().unwrap() > 0.0,
        "{cpu}"
    );
    assert!(cpu["s_per_million_ios"].as_f64().unwrap() > 0.0, "{cpu}");

    let out = diskscope(
        dir.path(),
        &["data", "--fio", "-Q", "32", "--sweep", "iodepth=1..8"],
    );
    let job = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "--ioengine=io_uring",
        "--fixedbufs",
        "--registerfiles",
        "iodepth=8",
    ] {
        assert!(job.contains(needle), "{needle} missing:\n{job}");
    }
}

#[test]
fn a_depth_sweep_reports_each_depth_and_speaks_of_depth() {
    if !uring_allowed() {
        return;
    }
    let dir = workdir();
    temp_file(dir.path(), 4 << 20);
    let args = ["data", "--sweep", "iodepth=1..4", "-T", "1s", "--json"];
    let v = json(&diskscope(dir.path(), &args));
    assert_eq!(v["dimension"], "iodepth");
    let depths: Vec<u64> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["iodepth"].as_u64().unwrap())
        .collect();
    assert_eq!(depths, vec![1, 2, 4]);
    let said = v["saturation"]["summary"].as_str().unwrap();
    assert!(said.contains("depth"), "{said}");
    // Through the page cache the curve is the cache's: no saturation point is named.
    let mut cached = args.to_vec();
    cached.push("--buffered");
    let v = json(&diskscope(dir.path(), &cached));
    assert!(v["saturation"].is_null(), "{}", v["saturation"]);
}

/// The per-thread in-flight figure (time in flight ÷ window, Little's law) of one-second
/// windows over a real O_DIRECT run: never above the depth, and deeper queues really are out.
#[test]
fn in_flight_per_thread_stays_within_the_depth_and_rises_with_it() {
    if !uring_allowed() {
        return;
    }
    let dir = workdir();
    let t = open_with(&temp_file(dir.path(), 32 << 20), false, true);
    let mut engine =
        Engine::start_with(t.clone(), t.geometry(), Settings::default(), uring()).unwrap();
    let mut in_flight = Vec::new();
    for depth in [1, 8] {
        engine
            .apply(Settings {
                iodepth: depth,
                ..Settings::default()
            })
            .unwrap();
        let mut seconds = diskscope::stats::seconds::Seconds::default();
        let deadline = Instant::now() + Duration::from_secs(10);
        // Two whole windows at this depth; the first one may hold the switch.
        while seconds.windows < 2 && Instant::now() < deadline {
            if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(200))
                && s.settings.iodepth == depth
            {
                seconds.push(&s);
            }
        }
        let now = seconds.now.expect("a whole second at this depth");
        let row = &now.threads[0];
        let expected = row.ops_per_s * row.latency_mean_ns.expect("I/O done") / 1e9;
        // An I/O that started before the second and ended in it brings its whole latency
        // in: at most `depth` of them, each at most the second's slowest. Under load (the
        // other tests share the disk) that is more than a rounding error, and it can take
        // ops/s × mean latency above the depth, where the in-flight figure stops (one CI
        // run: 8.38 against 8 at QD8).
        let spill = now.latency.max as f64 / now.elapsed.as_nanos() as f64;
        let slack = expected * 0.02 + depth as f64 * spill;
        assert!(
            (row.in_flight - expected.min(depth as f64)).abs() <= slack,
            "depth {depth}: in flight {} vs ops/s × mean latency {expected} (slowest {} ns)",
            row.in_flight,
            now.latency.max
        );
        assert!(
            row.in_flight <= depth as f64,
            "depth {depth}: {} in flight",
            row.in_flight
        );
        in_flight.push(row.in_flight);
    }
    engine.join();
    assert!(
        in_flight[1] > in_flight[0] * 2.0,
        "depth 8 should keep more out than depth 1: {in_flight:?}"
    );
}

/// `/dev/full` as a target: every write fails with ENOSPC. Each handle is its own descriptor
/// on it, so the io_uring engine submits there, and each write's linked sync comes back
/// cancelled when the write breaks the link.
struct DevFull;

impl diskscope::engine::io::IoOpener for DevFull {
    fn open_io(&self) -> std::io::Result<Box<dyn diskscope::engine::io::BlockIo>> {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/full")?;
        Ok(Box::new(f))
    }
}

/// A write that fails breaks the link to its sync: it is one error, never a second one for
/// the sync that the kernel cancelled, and every issued write is accounted for.
#[test]
fn a_failed_write_is_one_error_not_two_with_its_linked_sync() {
    if !uring_allowed() || !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let g = Geometry {
        span: 64 << 20,
        logical_block_size: 512,
        direct: false,
        write_allowed: true,
    };
    let s = Settings {
        iodepth: 8,
        read_pct: 0,
        ..Settings::default()
    };
    let options = Options {
        fsync_every: 1,
        ..uring()
    };
    let engine = Engine::start_with(Arc::new(DevFull), g, s, options).unwrap();
    drain(&engine, Duration::from_millis(300));
    engine.request_stop();
    let last = drain(&engine, Duration::from_secs(3))
        .pop()
        .expect("a last snapshot");
    engine.join();
    let t = &last.total;
    assert!(t.errors > 10, "{t:?}");
    assert_eq!((t.ops, t.syncs), (0, 0), "{t:?}");
    assert_eq!(
        t.errors + t.cancelled + t.unfinished,
        t.issued,
        "each write once: {t:?}"
    );
    for e in &last.first_errors {
        assert_eq!((e.op, e.errno), ("write", Some(nix::libc::ENOSPC)), "{e:?}");
    }
}
