//! A run's health sensor: the drive's record read at the start (before the first I/O, so the
//! header can show it), then once a minute on a thread of its own, and once more at the end.
//! A smartctl call takes from milliseconds to seconds; on its own thread it never holds up the
//! once-a-second sensor loop that polls it (`why::Live`), let alone the workers.
//!
//! It keeps the reads, not their meaning: `findings::health` compares them.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::HealthTarget;
use crate::model::health::{GapKind, HealthGap, HealthRead, HealthRecord};

/// How often a run reads the record between its start and its end.
pub const EVERY: Duration = Duration::from_secs(60);

/// A run's health reads.
pub struct HealthWatch {
    target: HealthTarget,
    start: HealthRead,
    /// Reads since the last poll, with the seconds since the start read.
    rx: Option<Receiver<(f64, HealthRead)>>,
    /// The last minute read, when it failed (smartctl hung or printed garbage): the end read
    /// is not tried again to wait as long.
    failed: Option<HealthGap>,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    reads: usize,
    read: fn(&HealthTarget) -> HealthRead,
}

impl HealthWatch {
    /// Reads `target`'s record now and, where it can change, once every `every` after.
    pub fn start(target: HealthTarget, every: Duration) -> HealthWatch {
        Self::start_with(target, every, super::read)
    }

    /// `start`, reading with `read` (a test's stand-in for the drive).
    pub fn start_with(
        target: HealthTarget,
        every: Duration,
        read: fn(&HealthTarget) -> HealthRead,
    ) -> HealthWatch {
        let started = Instant::now();
        let start = read(&target);
        // Without a record at the start nothing later can be compared with it: no SMART, no
        // smartctl, a drive asleep, or smartctl failing or hanging (which would hang again
        // each minute and at the end).
        let unchanging = start.is_err();
        let mut watch = HealthWatch {
            target,
            start,
            rx: None,
            stop: None,
            thread: None,
            failed: None,
            reads: 1,
            read,
        };
        if unchanging {
            return watch;
        }
        let (tx, rx) = mpsc::channel();
        let (stop, stopped) = mpsc::channel::<()>();
        let target = watch.target.clone();
        let thread = std::thread::Builder::new()
            .name("diskscope-health".into())
            .spawn(move || {
                crate::signals::leave_to_main();
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                    if tx
                        .send((started.elapsed().as_secs_f64(), read(&target)))
                        .is_err()
                    {
                        return;
                    }
                }
            })
            .ok();
        watch.rx = Some(rx);
        watch.stop = Some(stop);
        watch.thread = thread;
        watch
    }

    /// The read at the start.
    pub fn start_read(&self) -> &HealthRead {
        &self.start
    }

    /// The records read since the last poll (none most seconds), each with the seconds since
    /// the start read when it was read.
    pub fn poll(&mut self) -> Vec<(f64, HealthRecord)> {
        let got: Vec<_> = self.rx.iter().flat_map(|rx| rx.try_iter()).collect();
        self.reads += got.len();
        let mut records = Vec::new();
        for (at, read) in got {
            match read {
                Ok(r) => {
                    self.failed = None;
                    records.push((at, r));
                }
                Err(gap) if gap.kind == GapKind::Failed => self.failed = Some(gap),
                // Asleep: the end read may find it awake.
                Err(_) => self.failed = None,
            }
        }
        records
    }

    /// Stops the minute reads and reads once more: the records not polled yet (with their
    /// seconds), and the end read (`None` where the start read none). Where the last minute
    /// read failed, its failure stands for the end read: a hung smartctl is not waited on
    /// twice.
    pub fn finish(&mut self) -> (Vec<(f64, HealthRecord)>, Option<HealthRead>) {
        self.stop = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let last = self.poll();
        if self.rx.is_none() {
            return (last, None);
        }
        self.rx = None;
        if let Some(gap) = self.failed.take() {
            return (last, Some(Err(gap)));
        }
        self.reads += 1;
        (last, Some((self.read)(&self.target)))
    }

    /// Reads made so far, the start's included.
    pub fn reads(&self) -> usize {
        self.reads
    }
}

impl Drop for HealthWatch {
    fn drop(&mut self) {
        self.stop = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::disk::LinkKind;
    use crate::model::health::{GapKind, HealthGap, counter};
    use std::sync::atomic::{AtomicU64, Ordering};

    static CALLS: AtomicU64 = AtomicU64::new(0);

    fn rising(_: &HealthTarget) -> HealthRead {
        let n = CALLS.fetch_add(1, Ordering::SeqCst);
        let mut r = HealthRecord::default();
        r.set_counter(counter::UDMA_CRC, "UDMA_CRC_Error_Count", Some(199), n);
        Ok(r)
    }

    fn target(link: LinkKind) -> HealthTarget {
        HealthTarget {
            disk: Some("sda".into()),
            link,
            nvme_controller: None,
            dev_root: "/dev".into(),
        }
    }

    #[test]
    fn the_thread_reads_between_start_and_end_and_stops() {
        let mut w =
            HealthWatch::start_with(target(LinkKind::Sata), Duration::from_millis(5), rising);
        assert!(w.start_read().is_ok());
        let mut seen = Vec::new();
        while seen.len() < 2 {
            seen.extend(w.poll());
            std::thread::sleep(Duration::from_millis(2));
        }
        let crc: Vec<u64> = seen
            .iter()
            .filter_map(|(_, r)| r.counter(counter::UDMA_CRC))
            .collect();
        assert!(crc.windows(2).all(|w| w[0] < w[1]), "{crc:?}");
        assert!(w.reads() >= 3);
    }

    static HANGS: AtomicU64 = AtomicU64::new(0);
    static END_READS: AtomicU64 = AtomicU64::new(0);

    /// Answers at the start, then fails as a hung smartctl does.
    fn hangs_later(_: &HealthTarget) -> HealthRead {
        if HANGS.fetch_add(1, Ordering::SeqCst) == 0 {
            return Ok(HealthRecord::default());
        }
        if std::thread::current().name() != Some("diskscope-health") {
            END_READS.fetch_add(1, Ordering::SeqCst);
        }
        Err(HealthGap::new(
            GapKind::Failed,
            "smartctl did not answer for /dev/sda within 10 s: stopped it",
        ))
    }

    #[test]
    fn a_minute_read_that_failed_stands_for_the_end_read() {
        let mut w = HealthWatch::start_with(
            target(LinkKind::Sata),
            Duration::from_millis(5),
            hangs_later,
        );
        while HANGS.load(Ordering::SeqCst) < 2 {
            std::thread::sleep(Duration::from_millis(2));
        }
        let (seen, end) = w.finish();
        assert!(seen.is_empty());
        let gap = end.expect("an end").expect_err("the failure");
        assert!(gap.text.contains("did not answer"), "{gap:?}");
        let again = END_READS.load(Ordering::SeqCst);
        assert_eq!(again, 0, "read again at the end");
    }

    #[test]
    fn a_drive_without_a_record_at_the_start_is_read_once() {
        fn none(_: &HealthTarget) -> HealthRead {
            Err(HealthGap::new(
                GapKind::NoSmart,
                "no SMART data (loop device)",
            ))
        }
        fn hung(_: &HealthTarget) -> HealthRead {
            Err(HealthGap::new(GapKind::Failed, "smartctl did not answer"))
        }
        for read in [none, hung] {
            let mut w =
                HealthWatch::start_with(target(LinkKind::Loop), Duration::from_millis(1), read);
            std::thread::sleep(Duration::from_millis(10));
            assert!(w.poll().is_empty());
            assert_eq!(w.finish().1, None);
            assert_eq!(w.reads(), 1);
        }
    }
}
