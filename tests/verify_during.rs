//! `--verify` during an ordinary run, through the engine with an in-memory disk that misbehaves
//! on cue: one block's writes come back with a bit flipped (corrupt), another's are
//! acknowledged and dropped (stale: the block keeps its first write). Reading back what was
//! written catches both at their offsets while the run goes on, keeps them with the run's
//! errors, and a disk that behaves passes clean.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use diskscope::engine::check::Checker;
use diskscope::engine::io::{BlockIo, IoOpener};
use diskscope::engine::{Engine, Geometry, Options};
use diskscope::settings::Settings;
use diskscope::verify::during::During;

const SPAN: u64 = 64 * 4096;
const FLIP_AT: u64 = 5 * 4096;
const DROP_AT: u64 = 9 * 4096;

/// A disk in memory; `bad` makes it corrupt writes at `FLIP_AT` and drop all but the first
/// write at `DROP_AT`.
#[derive(Clone)]
struct Mem {
    data: Arc<Mutex<Vec<u8>>>,
    bad: bool,
}

impl BlockIo for Mem {
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let d = self.data.lock().unwrap();
        buf.copy_from_slice(&d[offset as usize..offset as usize + buf.len()]);
        Ok(buf.len())
    }
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let mut d = self.data.lock().unwrap();
        let at = offset as usize;
        if self.bad && offset == DROP_AT && d[at..at + 4] == *b"DSv1" {
            return Ok(buf.len()); // acknowledged, never stored
        }
        d[at..at + buf.len()].copy_from_slice(buf);
        if self.bad && offset == FLIP_AT {
            d[at + 777] ^= 0x20;
        }
        Ok(buf.len())
    }
}

impl IoOpener for Mem {
    fn open_io(&self) -> io::Result<Box<dyn BlockIo>> {
        Ok(Box::new(self.clone()))
    }
}

fn run(bad: bool, read_pct: u8) -> (Arc<During>, Vec<diskscope::stats::IoErrorRecord>) {
    let disk = Mem {
        data: Arc::new(Mutex::new(vec![0; SPAN as usize])),
        bad,
    };
    let geometry = Geometry {
        span: SPAN,
        logical_block_size: 4096,
        direct: false,
        write_allowed: true,
    };
    let settings = Settings {
        threads: 2,
        bs: 4096,
        read_pct,
        ..Settings::default()
    };
    let during = Arc::new(During::new(42));
    let checker = during.clone() as Arc<dyn Checker>;
    let engine = Engine::start_checked(
        Arc::new(disk),
        geometry,
        settings,
        Options::default(),
        Some(checker),
    )
    .unwrap();
    let mut errors = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    // Until both blocks were caught (or a good while passed): waits on what the run found.
    while std::time::Instant::now() < deadline {
        if let Ok(s) = engine.snapshots().recv_timeout(Duration::from_millis(200)) {
            errors = s.first_errors.clone();
            let t = during.tally();
            if t.counts.intact > 20_000 && (!bad || (t.counts.corrupt > 0 && t.counts.stale > 0)) {
                break;
            }
        }
    }
    engine.join();
    (during, errors)
}

#[test]
fn a_flipped_bit_and_a_dropped_write_are_caught_while_the_run_goes_on() {
    for read_pct in [0, 70] {
        let (during, errors) = run(true, read_pct);
        let r = during.report("mem", SPAN, 4096);
        let corrupt: Vec<_> = r
            .bad
            .iter()
            .filter(|e| e.kind.label().starts_with("corrupt"))
            .collect();
        assert!(
            !corrupt.is_empty(),
            "read {read_pct}%: {:?} {:?}",
            r.counts,
            &r.bad[..r.bad.len().min(4)]
        );
        assert_eq!(
            corrupt.len(),
            1,
            "one stretch however often it is read: {corrupt:?}"
        );
        assert_eq!(corrupt[0].offset, FLIP_AT);
        let stale: Vec<_> = r
            .bad
            .iter()
            .filter(|e| e.kind.label().starts_with("stale"))
            .collect();
        assert!(
            !stale.is_empty(),
            "read {read_pct}%: {:?} {:?}",
            r.counts,
            &r.bad[..r.bad.len().min(4)]
        );
        assert_eq!(stale.len(), 1, "{stale:?}");
        assert_eq!(stale[0].offset, DROP_AT);
        assert!(r.counts.intact > 0);
        let kept: Vec<_> = errors.iter().filter(|e| e.op == "verify").collect();
        assert!(
            kept.iter().any(|e| e.offset == FLIP_AT)
                && kept
                    .iter()
                    .all(|e| e.offset == FLIP_AT || e.offset == DROP_AT),
            "{errors:?}"
        );
    }
}

#[test]
fn a_disk_that_keeps_what_it_is_given_passes_clean() {
    let (during, errors) = run(false, 50);
    let r = during.report("mem", SPAN, 4096);
    assert_eq!(r.counts.bad(), 0, "{r:?}");
    assert!(r.counts.intact > 20_000, "{:?}", r.counts);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].kind, "verified");
}
