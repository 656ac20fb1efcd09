//! Whether `--hipri` (io_uring with `IORING_SETUP_IOPOLL`, fio's `hipri`) can run on a target,
//! and why not: the ring polls the device's queue for completions instead of waiting for an
//! interrupt, which only a queue with polling enabled does (`queue/io_poll` 1 — on NVMe, only
//! with poll queues: the nvme module's `poll_queues`), only for O_DIRECT I/O, and with no
//! fsync in the ring (the kernel refuses a sync on a polled ring). Decided from the disk's
//! sysfs, read through `SYSFS_PATH`, before anything is opened for I/O.
//!
//! The test seam `DISKSCOPE_TEST_ASSUME_IO_POLL=1` takes any disk's queue to poll, so that the
//! tests can build polled rings on a loop device, which has no poll queues: the kernel then
//! fails each polled I/O with EOPNOTSUPP (Linux 6.x), which the run counts as errors.

use crate::model::disk::QueueLimits;
use crate::settings::IoEngine;

/// What `--hipri` depends on.
#[derive(Debug, Clone, Copy)]
pub struct PollAsk<'a> {
    /// The disk under the target (`nvme0n1`), when known.
    pub disk: Option<&'a str>,
    pub limits: &'a QueueLimits,
    pub ioengine: IoEngine,
    pub direct: bool,
    pub fsync_every: u32,
}

/// Why `--hipri` cannot run, with how to make it run; `None` when it can.
pub fn hipri_refusal(ask: PollAsk) -> Option<String> {
    if let Some(why) = config_refusal(ask.ioengine, ask.direct, ask.fsync_every) {
        return Some(why);
    }
    queue_refusal(ask)
}

/// The part of the answer that depends on the run's config alone, not on the machine: the
/// engine, O_DIRECT, `--fsync`. A fio export for another machine is checked for this part.
pub fn config_refusal(ioengine: IoEngine, direct: bool, fsync_every: u32) -> Option<String> {
    if ioengine != IoEngine::IoUring {
        return Some(
            "--hipri polls io_uring's completions: it needs --ioengine io_uring (psync has no ring to poll)"
                .into(),
        );
    }
    if !direct {
        return Some(
            "--hipri needs O_DIRECT: the kernel polls only direct I/O; drop --buffered".into(),
        );
    }
    if fsync_every > 0 {
        return Some(
            "--hipri with --fsync: the kernel refuses a sync on a polled ring; drop one of them"
                .into(),
        );
    }
    None
}

/// The part that depends on the disk under the target: whether its queue polls.
fn queue_refusal(ask: PollAsk) -> Option<String> {
    let Some(disk) = ask.disk else {
        return Some(
            "--hipri: the disk under the target is unknown (no block device in sysfs), so whether its queue polls is too"
                .into(),
        );
    };
    let assumed = std::env::var_os("DISKSCOPE_TEST_ASSUME_IO_POLL").is_some_and(|v| v == "1");
    match ask.limits.io_poll {
        Some(true) => None,
        _ if assumed => None,
        Some(false) => Some(format!(
            "--hipri: {disk}'s queue does not poll (/sys/block/{disk}/queue/io_poll is 0){}",
            how_to_enable(disk)
        )),
        None => Some(format!(
            "--hipri: {disk} has no queue/io_poll in sysfs: its driver cannot poll{}",
            how_to_enable(disk)
        )),
    }
}

/// How to get a polling queue on `disk`.
fn how_to_enable(disk: &str) -> String {
    if disk.starts_with("nvme") {
        "; NVMe polls only with poll queues: load the driver with them (nvme.poll_queues=4 on the kernel command line, or `modprobe nvme poll_queues=4` with nothing on it in use), then io_poll reads 1".into()
    } else {
        "; only drivers with poll queues poll (NVMe with the nvme module's poll_queues); virtio, loop, SATA and SAS disks cannot".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(limits: &QueueLimits, disk: &'static str) -> PollAsk<'static> {
        let limits: &'static QueueLimits = Box::leak(Box::new(limits.clone()));
        PollAsk {
            disk: Some(disk),
            limits,
            ioengine: IoEngine::IoUring,
            direct: true,
            fsync_every: 0,
        }
    }

    #[test]
    fn a_polling_queue_runs_and_every_other_case_says_why_and_how() {
        let polls = QueueLimits {
            io_poll: Some(true),
            ..QueueLimits::default()
        };
        assert_eq!(hipri_refusal(ask(&polls, "nvme0n1")), None);
        let not = QueueLimits {
            io_poll: Some(false),
            ..QueueLimits::default()
        };
        let e = hipri_refusal(ask(&not, "nvme0n1")).unwrap();
        assert!(
            e.contains("io_poll is 0") && e.contains("poll_queues=4"),
            "{e}"
        );
        let e = hipri_refusal(ask(&not, "vda")).unwrap();
        assert!(
            e.contains("vda's queue does not poll") && e.contains("virtio"),
            "{e}"
        );
        let e = hipri_refusal(ask(&QueueLimits::default(), "sda")).unwrap();
        assert!(e.contains("no queue/io_poll"), "{e}");
        let psync = PollAsk {
            ioengine: IoEngine::Psync,
            ..ask(&polls, "nvme0n1")
        };
        assert!(
            hipri_refusal(psync)
                .unwrap()
                .contains("--ioengine io_uring")
        );
        let buffered = PollAsk {
            direct: false,
            ..ask(&polls, "nvme0n1")
        };
        assert!(hipri_refusal(buffered).unwrap().contains("O_DIRECT"));
        let synced = PollAsk {
            fsync_every: 1,
            ..ask(&polls, "nvme0n1")
        };
        assert!(hipri_refusal(synced).unwrap().contains("--fsync"));
    }
}
