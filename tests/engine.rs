//! The engine against real files and an injected faulty target: live reconfiguration, short
//! reads on a shrinking file, errors that are counted and kept without ending the run, writes.

use std::io;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use diskscope::engine::io::{BlockIo, IoOpener};
use diskscope::engine::{Engine, Geometry};
use diskscope::settings::Settings;
use diskscope::stats::Snapshot;
use diskscope::target::open::{OpenSpec, Target};

const TICK: Duration = Duration::from_millis(20);

fn temp_file(bytes: usize) -> tempfile::NamedTempFile {
    // In the working directory: /tmp may be tmpfs, and the tests should see a real filesystem.
    let mut f = tempfile::NamedTempFile::new_in(".").unwrap();
    let block: Vec<u8> = (0..1 << 16).map(|i| (i * 7 + 3) as u8).collect();
    let mut left = bytes;
    while left > 0 {
        let n = left.min(block.len());
        f.write_all(&block[..n]).unwrap();
        left -= n;
    }
    f.as_file().sync_all().unwrap();
    f
}

fn open(path: &std::path::Path, write: bool) -> Arc<Target> {
    Arc::new(
        Target::open(
            path,
            OpenSpec {
                direct: false,
                write,
                span: None,
            },
        )
        .unwrap(),
    )
}

/// Receives snapshots until `pred` holds for one (returned), or panics after 5 s.
fn wait_for(engine: &Engine, what: &str, mut pred: impl FnMut(&Snapshot) -> bool) -> Snapshot {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(200))
            && pred(&s)
        {
            return s;
        }
    }
    panic!("timed out waiting for: {what}");
}

#[test]
fn thread_count_and_block_size_change_live() {
    let f = temp_file(8 << 20);
    let t = open(f.path(), false);
    let mut engine = Engine::start(t.clone(), t.geometry(), Settings::default(), TICK).unwrap();
    let one = wait_for(&engine, "1 thread doing I/O", |s| {
        s.interval.ops > 0 && s.threads.len() == 1
    });
    let before = one.threads[0].total.ops;

    engine
        .apply(Settings {
            threads: 4,
            ..Settings::default()
        })
        .unwrap();
    let s = wait_for(&engine, "4 threads all doing I/O", |s| {
        s.settings.threads == 4
            && s.threads
                .iter()
                .filter(|t| t.active && t.interval_ops > 0)
                .count()
                == 4
    });
    // The first thread kept running: its history was not lost (which thread did more since
    // is up to the scheduler).
    assert_eq!(s.threads[0].id, 0);
    assert!(
        s.threads[0].total.ops >= before && before > 0,
        "thread 0: {} ops now, {before} before the change",
        s.threads[0].total.ops
    );

    engine
        .apply(Settings {
            threads: 2,
            bs: 8192,
            ..Settings::default()
        })
        .unwrap();
    let s = wait_for(&engine, "2 threads at 8k", |s| {
        s.settings.threads == 2 && s.interval.ops > 0
    });
    let active: Vec<_> = s
        .threads
        .iter()
        .filter(|t| t.active)
        .map(|t| t.id)
        .collect();
    assert_eq!(
        active,
        vec![0, 1],
        "the highest workers stop, the first ones stay"
    );
    // Every interval after the change ran at 8k only: bytes are exactly 8192 per op.
    assert_eq!(s.interval.bytes, s.interval.ops * 8192);
    assert!(
        s.threads
            .iter()
            .filter(|t| !t.active)
            .all(|t| t.interval_ops == 0)
    );
    // Cumulative totals are the sum of the per-thread totals, retired threads included.
    let sum: u64 = s.threads.iter().map(|t| t.total.ops).sum();
    assert_eq!(sum, s.total.ops);
    engine.join();
}

#[test]
fn an_interval_never_spans_two_settings() {
    let f = temp_file(4 << 20);
    let t = open(f.path(), false);
    let mut engine = Engine::start(t.clone(), t.geometry(), Settings::default(), TICK).unwrap();
    wait_for(&engine, "I/O", |s| s.interval.ops > 0);
    for bs in [512u64, 16384, 4096, 65536] {
        engine
            .apply(Settings {
                bs,
                ..Settings::default()
            })
            .unwrap();
        let s = wait_for(&engine, "I/O at the new size", |s| {
            s.settings.bs == bs && s.interval.ops > 0
        });
        assert_eq!(s.interval.bytes, s.interval.ops * bs);
    }
    engine.join();
}

#[test]
fn pause_stops_io_and_is_excluded_from_cumulative_time() {
    let f = temp_file(4 << 20);
    let t = open(f.path(), false);
    let mut engine = Engine::start(t.clone(), t.geometry(), Settings::default(), TICK).unwrap();
    wait_for(&engine, "I/O", |s| s.interval.ops > 0);
    engine.set_paused(true);
    wait_for(&engine, "a paused interval", |s| s.paused);
    let paused = wait_for(&engine, "a second paused interval", |s| s.paused);
    assert_eq!(paused.interval.ops, 0);
    let before = paused.total_elapsed;
    std::thread::sleep(Duration::from_millis(100));
    let still = wait_for(&engine, "still paused", |s| s.paused);
    assert_eq!(still.total_elapsed, before, "paused time must not count");
    engine.set_paused(false);
    wait_for(&engine, "I/O again", |s| !s.paused && s.interval.ops > 0);
    engine.reset_stats();
    let s = wait_for(&engine, "reset totals", |s| {
        s.total.ops > 0 && s.total.ops == s.interval.ops
    });
    assert!(s.total_elapsed < Duration::from_millis(200));
    engine.join();
}

#[test]
fn a_file_that_shrinks_under_the_run_gives_counted_short_reads() {
    let f = temp_file(8 << 20);
    let t = open(f.path(), false);
    let engine = Engine::start(
        t.clone(),
        t.geometry(),
        Settings {
            threads: 2,
            ..Settings::default()
        },
        TICK,
    )
    .unwrap();
    wait_for(&engine, "I/O", |s| s.interval.ops > 0);
    f.as_file().set_len(1 << 20).unwrap();
    let s = wait_for(&engine, "short reads", |s| {
        // Short and zero-byte reads are not ops: every interval's bytes are ops × bs.
        assert_adds_up(s);
        s.total.short_ios > 100
    });
    // The run goes on: reads inside the first MiB still complete in later intervals.
    let seen = s.seq;
    let later = wait_for(&engine, "I/O after shrinking", |x| {
        x.seq > seen && x.interval.ops > 0
    });
    assert!(later.total.ops > s.total.ops);
    let kept = &later.first_errors;
    assert!(!kept.is_empty() && kept.len() <= 16);
    assert!(
        kept.iter().all(|e| e.errno.is_none()
            && e.offset >= 1 << 20
            && e.message.starts_with("short read"))
    );
    engine.join();
}

/// The invariants of complete-I/O accounting, for one snapshot: bytes are ops × bs, one
/// latency per op, the threads add up to the interval.
fn assert_adds_up(s: &Snapshot) {
    let i = &s.interval;
    assert_eq!(i.bytes, i.ops * s.settings.bs, "interval {}: {i:?}", s.seq);
    assert_eq!(i.read_ops + i.write_ops, i.ops, "{i:?}");
    assert_eq!(
        s.interval_latency.count(),
        i.ops,
        "interval {}: latency count vs ops ({:?})",
        s.seq,
        s.settings
    );
    let thread_ops: u64 = s.threads.iter().map(|t| t.interval_ops).sum();
    assert_eq!(thread_ops, i.ops, "interval {}", s.seq);
    assert_eq!(s.total_latency.count, s.total.ops, "totals at {}", s.seq);
}

#[test]
fn every_interval_has_one_latency_per_op_across_settings_changes() {
    let f = temp_file(16 << 20);
    let t = open(f.path(), true);
    let mut engine = Engine::start(t.clone(), t.geometry(), Settings::default(), TICK).unwrap();
    // Many intervals: ticks, and cuts at settings changes in every dimension, with writes.
    let steps = [
        (1, 4096, 100, 100),
        (4, 4096, 70, 100),
        (2, 16384, 70, 0),
        (3, 8192, 100, 50),
        (1, 65536, 0, 0),
        (4, 4096, 50, 100),
    ];
    let mut seen = 0;
    for round in 0..4 {
        for &(threads, bs, read_pct, random_pct) in &steps {
            let settings = Settings {
                threads,
                bs,
                read_pct,
                random_pct,
                ..Settings::default()
            };
            engine.apply(settings).unwrap();
            // A few ticks under these settings; the change itself cut an interval.
            let deadline = Instant::now() + Duration::from_millis(60 + 20 * round);
            while Instant::now() < deadline {
                if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(200)) {
                    assert_adds_up(&s);
                    seen += 1;
                }
            }
        }
    }
    engine.request_stop();
    while let Ok(s) = engine.snapshots().recv_timeout(Duration::from_secs(5)) {
        assert_adds_up(&s);
        seen += 1;
    }
    assert!(seen > 50, "only {seen} intervals");
}

/// A target whose every `fail_every`-th read fails with EIO.
struct Faulty {
    n: Arc<AtomicU64>,
    fail_every: u64,
}

impl BlockIo for Faulty {
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> io::Result<usize> {
        if self.n.fetch_add(1, Ordering::Relaxed) % self.fail_every == self.fail_every - 1 {
            return Err(io::Error::from_raw_os_error(nix::libc::EIO));
        }
        Ok(buf.len())
    }
    fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
        Ok(buf.len())
    }
}

struct FaultyOpener(Arc<AtomicU64>);

impl IoOpener for FaultyOpener {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>> {
        Ok(Box::new(Faulty {
            n: self.0.clone(),
            fail_every: 10,
        }))
    }
}

#[test]
fn io_errors_are_counted_kept_with_errno_and_do_not_stop_the_run() {
    let calls = Arc::new(AtomicU64::new(0));
    let geometry = Geometry {
        span: 1 << 30,
        logical_block_size: 512,
        direct: false,
        write_allowed: false,
    };
    let engine = Engine::start(
        Arc::new(FaultyOpener(calls.clone())),
        geometry,
        Settings {
            threads: 3,
            ..Settings::default()
        },
        TICK,
    )
    .unwrap();
    let s = wait_for(&engine, "many I/Os", |s| s.total.ops > 10_000);
    engine.join();
    let errors = s.total.errors as f64;
    let ratio = errors / (errors + s.total.ops as f64);
    assert!(
        (ratio - 0.1).abs() < 0.01,
        "1 in 10 should fail, got {ratio}"
    );
    assert_eq!(s.first_errors.len(), 16);
    assert!(
        s.first_errors
            .iter()
            .all(|e| e.errno == Some(nix::libc::EIO) && e.op == "read" && e.offset % 4096 == 0)
    );
}

#[test]
fn writes_happen_only_when_allowed_and_carry_fresh_data() {
    let f = temp_file(4 << 20);
    let ro = open(f.path(), false);
    let err = Engine::start(
        ro.clone(),
        ro.geometry(),
        Settings {
            read_pct: 50,
            ..Settings::default()
        },
        TICK,
    )
    .err()
    .expect("writes refused without permission");
    assert!(err.contains("--allow-write"), "{err}");

    let before = std::fs::read(f.path()).unwrap();
    let rw = open(f.path(), true);
    let settings = Settings {
        read_pct: 0,
        random_pct: 0,
        ..Settings::default()
    };
    let engine = Engine::start(rw.clone(), rw.geometry(), settings, TICK).unwrap();
    let s = wait_for(&engine, "a full sequential pass", |s| {
        s.total.write_ops > 2048
    });
    engine.join();
    assert_eq!(s.total.read_ops, 0);
    let after = std::fs::read(f.path()).unwrap();
    assert_eq!(after.len(), before.len());
    // Every 4k block was rewritten, and no two blocks carry the same data (no dedupe).
    let blocks: std::collections::HashSet<&[u8]> = after.chunks(4096).collect();
    assert_eq!(blocks.len(), after.len() / 4096);
    assert!(
        after
            .chunks(4096)
            .zip(before.chunks(4096))
            .all(|(a, b)| a != b)
    );
}

#[test]
fn settings_that_do_not_fit_the_target_are_refused_with_sizes() {
    let g = Geometry {
        span: 1 << 20,
        logical_block_size: 4096,
        direct: true,
        write_allowed: false,
    };
    let check = |s: Settings| g.validate(&s).unwrap_err();
    assert!(
        check(Settings {
            bs: 512,
            ..Settings::default()
        })
        .contains("logical block size (4096 bytes)")
    );
    assert!(
        check(Settings {
            bs: 2 << 20,
            ..Settings::default()
        })
        .contains("larger than the span")
    );
    assert!(
        check(Settings {
            threads: 0,
            ..Settings::default()
        })
        .contains("1 to 1024")
    );
    assert!(
        check(Settings {
            threads: 1025,
            ..Settings::default()
        })
        .contains("1 to 1024")
    );
    assert!(g.validate(&Settings::default()).is_ok());
}

/// A target where every I/O takes 350 ms: longer than the sampler waits for a worker to switch.
struct Slow;

impl BlockIo for Slow {
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> io::Result<usize> {
        std::thread::sleep(Duration::from_millis(350));
        Ok(buf.len())
    }
    fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
        Ok(buf.len())
    }
}

struct SlowOpener;

impl IoOpener for SlowOpener {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>> {
        Ok(Box::new(Slow))
    }
}

/// A worker still inside an old-settings I/O when the sampler gives up waiting for it: that
/// I/O, finishing after the cut, is counted apart (`after_switch`), never as an op of the next
/// interval (which runs under other settings: bytes = ops × bs must hold in every interval).
#[test]
fn an_io_finishing_after_the_switch_was_cut_is_counted_apart() {
    let geometry = Geometry {
        span: 1 << 30,
        logical_block_size: 512,
        direct: false,
        write_allowed: false,
    };
    let mut engine =
        Engine::start(Arc::new(SlowOpener), geometry, Settings::default(), TICK).unwrap();
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline {
        if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(100)) {
            seen.push(s);
        }
    }
    // Mid-I/O (it takes 350 ms): the sampler waits 200 ms, then cuts without this worker.
    std::thread::sleep(Duration::from_millis(100));
    for bs in [65536, 8192] {
        engine
            .apply(Settings {
                bs,
                ..Settings::default()
            })
            .unwrap();
        let deadline = Instant::now() + Duration::from_millis(1500);
        while Instant::now() < deadline {
            if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(100)) {
                seen.push(s);
            }
        }
    }
    engine.request_stop();
    while let Ok(s) = engine.snapshots().recv_timeout(Duration::from_secs(5)) {
        seen.push(s);
    }
    for s in &seen {
        assert_adds_up(s);
    }
    let last = seen.last().unwrap();
    assert!(
        last.total.after_switch >= 1,
        "the I/O in flight at the switch: {:?}",
        last.total
    );
    for bs in [65536, 8192] {
        assert!(
            seen.iter()
                .any(|s| s.settings.bs == bs && s.interval.ops > 0),
            "no ops at bs {bs}"
        );
    }
}

/// Reads at once until the 5000th, which hangs for 3 s: longer than the run's end waits.
struct Hangs(Arc<AtomicU64>);

impl BlockIo for Hangs {
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> io::Result<usize> {
        if self.0.fetch_add(1, Ordering::SeqCst) == 5000 {
            std::thread::sleep(Duration::from_secs(3));
        }
        Ok(buf.len())
    }
    fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
        Ok(buf.len())
    }
}

struct HangsOpener(Arc<AtomicU64>);

impl IoOpener for HangsOpener {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>> {
        Ok(Box::new(Hangs(self.0.clone())))
    }
}

/// A worker the end stops waiting for: what it issued after its last hand-over (the reads it
/// did since, and the one it hangs in) is counted unfinished. Before, only what it had handed
/// over was, and the rest was counted nowhere: on a loop device, 142 reads the kernel did and
/// the run never mentioned.
#[test]
fn what_a_worker_issued_after_its_last_hand_over_is_unfinished_at_the_end() {
    let calls = Arc::new(AtomicU64::new(0));
    let geometry = Geometry {
        span: 1 << 30,
        logical_block_size: 512,
        direct: false,
        write_allowed: false,
    };
    let engine = Engine::start(
        Arc::new(HangsOpener(calls.clone())),
        geometry,
        Settings::default(),
        TICK,
    )
    .unwrap();
    wait_for(&engine, "the hanging read", |_| {
        calls.load(Ordering::SeqCst) > 5000
    });
    engine.request_stop();
    let mut last = None;
    while let Ok(s) = engine.snapshots().recv_timeout(Duration::from_secs(10)) {
        last = Some(s);
    }
    let t = last.expect("a final snapshot").total;
    assert_eq!(t.ops + t.unfinished, 5001, "every read started: {t:?}");
    assert!(t.unfinished >= 1, "the hanging read: {t:?}");
    assert_eq!(t.issued, t.settled() + t.unfinished, "{t:?}");
}
