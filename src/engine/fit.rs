//! Whether settings fit the engine's way of driving the disk, checked at the start and at
//! every live change: psync's one I/O in flight, and polled completions (`hipri`, fio's name),
//! beside the target's own check (`target::poll`, whose answer `Options::poll` carries).

use super::Options;
use crate::settings::{IoEngine, Settings};

/// Polled completions (`hipri`) need a ring (io_uring), a queue that polls (checked at the
/// start: `Options::poll`) and no syncs: the kernel takes no sync on a polled ring. Trims go
/// on beside it: the kernel takes no block discard on a polled ring either, so a polled
/// ring's trims are `BLKDISCARD`s from the worker's thread (`uring::fill`), as fio's are.
pub fn check_poll(options: &Options, s: &Settings) -> Result<(), String> {
    if !s.hipri {
        return Ok(());
    }
    let why = if options.ioengine == IoEngine::Psync {
        "polled completions need the io_uring engine; psync has no ring to poll"
    } else if !options.poll {
        "polled completions: the target's queue was not found to poll (queue/io_poll)"
    } else if options.fsync_every > 0 {
        "polled completions with --fsync: the kernel refuses a sync on a polled ring"
    } else {
        return Ok(());
    };
    Err(why.into())
}

/// psync keeps one I/O in flight per thread: a deeper queue needs io_uring.
pub fn check_depth(ioengine: IoEngine, s: &Settings) -> Result<(), String> {
    if ioengine == IoEngine::Psync && s.iodepth > 1 {
        return Err(format!(
            "queue depth {} needs the io_uring engine; psync keeps one I/O in flight per thread",
            s.iodepth
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polling_needs_a_ring_a_polling_queue_and_no_sync() {
        let ring = Options {
            ioengine: IoEngine::IoUring,
            poll: true,
            ..Options::default()
        };
        let polled = Settings {
            hipri: true,
            ..Settings::default()
        };
        assert_eq!(check_poll(&ring, &polled), Ok(()));
        // Interrupts are never refused, whatever the target.
        assert_eq!(
            check_poll(&Options::default(), &Settings::default()),
            Ok(())
        );
        let refused = |o: Options, s: Settings, word: &str| {
            let e = check_poll(&o, &s).unwrap_err();
            assert!(e.contains(word), "{e}");
        };
        refused(
            Options {
                ioengine: IoEngine::Psync,
                ..ring
            },
            polled,
            "io_uring",
        );
        refused(
            Options {
                poll: false,
                ..ring
            },
            polled,
            "io_poll",
        );
        refused(
            Options {
                fsync_every: 1,
                ..ring
            },
            polled,
            "--fsync",
        );
        // Trims beside polling are BLKDISCARDs from the thread: not refused.
        let trims = Settings {
            trim_pct: 5,
            ..polled
        };
        assert_eq!(check_poll(&ring, &trims), Ok(()));
    }
}
