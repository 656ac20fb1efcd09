//! Trims through the engine on test targets (no device needed): a trim is drawn only where the
//! run was told the target takes them (`Options::trim`), is counted on its own side with its
//! own latencies, and a failed one is an error kept with its errno under "trim". The kernel's
//! side of it is `root_trim.rs`.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use diskscope::engine::io::{BlockIo, IoOpener};
use diskscope::engine::{Engine, Geometry, Options};
use diskscope::settings::Settings;
use diskscope::stats::Snapshot;

const TICK: Duration = Duration::from_millis(20);

fn wait_for(engine: &Engine, what: &str, mut pred: impl FnMut(&Snapshot) -> bool) -> Snapshot {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(200))
            && pred(&s)
        {
            return s;
        }
    }
    panic!("timed out waiting for: {what}");
}

/// A target that counts its discards, and fails every one of them with `fail` when set.
struct Discards {
    discarded: Arc<AtomicU64>,
    fail: Option<i32>,
}

impl BlockIo for Discards {
    fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> io::Result<usize> {
        Ok(buf.len())
    }
    fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
        Ok(buf.len())
    }
    fn discard(&mut self, offset: u64, len: u64) -> io::Result<()> {
        assert_eq!((offset % len, len), (0, 4096), "whole, aligned blocks");
        if let Some(errno) = self.fail {
            return Err(io::Error::from_raw_os_error(errno));
        }
        self.discarded.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

struct Opener(Arc<AtomicU64>, Option<i32>);

impl IoOpener for Opener {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>> {
        Ok(Box::new(Discards {
            discarded: self.0.clone(),
            fail: self.1,
        }))
    }
}

fn start(
    fail: Option<i32>,
    trim: bool,
    write_allowed: bool,
) -> (Arc<AtomicU64>, Result<Engine, String>) {
    let discarded = Arc::new(AtomicU64::new(0));
    let geometry = Geometry {
        span: 1 << 30,
        logical_block_size: 512,
        direct: false,
        write_allowed,
    };
    let settings = Settings {
        threads: 2,
        trim_pct: 40,
        ..Settings::default()
    };
    let options = Options {
        tick: TICK,
        trim,
        ..Options::default()
    };
    let opener = Arc::new(Opener(discarded.clone(), fail));
    let engine = Engine::start_with(opener, geometry, settings, options);
    (discarded, engine)
}

#[test]
fn trims_are_counted_apart_with_their_own_latencies_and_every_one_reached_the_target() {
    let (discarded, engine) = start(None, true, true);
    let engine = engine.unwrap();
    let s = wait_for(&engine, "many I/Os", |s| s.total.ops > 20_000);
    engine.request_stop();
    engine.join();
    let t = s.total;
    assert_eq!(t.ops, t.read_ops + t.trim_ops, "{t:?}");
    assert_eq!(t.write_ops, 0);
    assert_eq!(t.trim_bytes, t.trim_ops * 4096);
    let share = t.trim_ops as f64 / t.ops as f64;
    assert!((share - 0.4).abs() < 0.02, "trim share {share}");
    assert!(
        discarded.load(Ordering::Relaxed) >= t.trim_ops,
        "counted trims were done"
    );
    assert_eq!(s.sides.total_trim.count, t.trim_ops, "their own histogram");
    assert_eq!(s.sides.total_read.count, t.read_ops);
    assert_eq!(s.total_latency.count, t.ops);
}

#[test]
fn a_failed_trim_is_an_error_with_its_errno_and_no_op() {
    let (_, engine) = start(Some(nix::libc::EOPNOTSUPP), true, true);
    let engine = engine.unwrap();
    let s = wait_for(&engine, "errors", |s| s.total.errors > 1_000);
    engine.request_stop();
    engine.join();
    assert_eq!(s.total.trim_ops, 0);
    assert_eq!(s.total.ops, s.total.read_ops);
    assert!(
        s.first_errors
            .iter()
            .all(|e| e.op == "trim" && e.errno == Some(nix::libc::EOPNOTSUPP)),
        "{:?}",
        s.first_errors
    );
}

#[test]
fn without_the_targets_check_or_writes_no_trim_is_drawn() {
    let (discarded, engine) = start(None, false, true);
    let engine = engine.unwrap();
    let s = wait_for(&engine, "many I/Os", |s| s.total.ops > 5_000);
    engine.request_stop();
    engine.join();
    assert_eq!((s.total.trim_ops, s.total.errors), (0, 0));
    assert_eq!(discarded.load(Ordering::Relaxed), 0);
    let (_, refused) = start(None, true, false);
    let err = refused.err().expect("trims without writes are refused");
    assert!(err.contains("--allow-write"), "{err}");
}
