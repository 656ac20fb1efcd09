//! The block layer's own limits for a device, read from its disk's `queue/` directory and, for
//! blk-mq devices, `mq/*/nr_tags`: the largest request the kernel sends, how many requests the
//! kernel queues and the device's hardware queues hold, the write cache and FUA, and the
//! rotational flag. These turn settings into something else (a 4 MiB block split into 1 MiB
//! requests; 256 in flight waiting in a 64-deep queue), so they are read with the other facts
//! at open and kept beside the figures. Field names are the kernel's (sysfs-block ABI).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::sysfs::{BlockDir, entries, read_attr, read_num};

/// A device's queue limits; `None` where sysfs does not show the attribute. A partition
/// reports its disk's queue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueLimits {
    /// `queue/max_sectors_kb`: the largest request the kernel builds, in KiB; larger I/Os
    /// are split.
    pub max_sectors_kb: Option<u32>,
    /// `queue/max_hw_sectors_kb`: the most the device accepts (the ceiling of the above).
    pub max_hw_sectors_kb: Option<u32>,
    /// `queue/nr_requests`: requests the kernel queues per hardware queue (the scheduler's
    /// depth with a scheduler, the tag depth without).
    pub nr_requests: Option<u32>,
    /// `queue/write_cache`: `"write back"` (a volatile cache acknowledges writes) or
    /// `"write through"`.
    pub write_cache: Option<String>,
    /// `queue/fua`: the device honours Force Unit Access writes.
    pub fua: Option<bool>,
    /// `queue/rotational`: the kernel treats the device as a spinning disk.
    pub rotational: Option<bool>,
    /// How many blk-mq hardware queues the device has (`mq/<n>` directories).
    pub nr_hw_queues: Option<u32>,
    /// `mq/<n>/nr_tags`: requests one hardware queue can have at the device (the largest over
    /// the hardware queues).
    pub nr_tags: Option<u32>,
}

impl QueueLimits {
    /// Reads the limits of `block`'s disk.
    pub fn read(block: &BlockDir) -> QueueLimits {
        Self::read_disk_dir(&block.disk_dir)
    }

    /// Reads the limits from a disk directory (`sys/block/<disk>`).
    pub fn read_disk_dir(disk_dir: &Path) -> QueueLimits {
        let q = disk_dir.join("queue");
        let flag = |f: &str| match read_attr(&q.join(f)).as_deref() {
            Some("1") => Some(true),
            Some("0") => Some(false),
            _ => None,
        };
        let mq = disk_dir.join("mq");
        let queues: Vec<String> = entries(&mq)
            .into_iter()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            .collect();
        let nr_tags = queues
            .iter()
            .filter_map(|n| read_num::<u32>(&mq.join(n).join("nr_tags")))
            .max();
        QueueLimits {
            max_sectors_kb: read_num(&q.join("max_sectors_kb")),
            max_hw_sectors_kb: read_num(&q.join("max_hw_sectors_kb")),
            nr_requests: read_num(&q.join("nr_requests")),
            write_cache: read_attr(&q.join("write_cache")),
            fua: flag("fua"),
            rotational: flag("rotational"),
            nr_hw_queues: (!queues.is_empty()).then_some(queues.len() as u32),
            nr_tags,
        }
    }

    /// The largest request the kernel sends, in bytes (`max_sectors_kb` × 1024).
    pub fn max_request_bytes(&self) -> Option<u64> {
        self.max_sectors_kb.map(|kb| u64::from(kb) * 1024)
    }

    /// How many requests an I/O of `block_bytes` becomes: 4 for 4 MiB at `max_sectors_kb`
    /// 1024. `None` when the limit is unknown.
    pub fn requests_per_io(&self, block_bytes: u64) -> Option<u64> {
        let max = self.max_request_bytes().filter(|&m| m > 0)?;
        Some(block_bytes.div_ceil(max).max(1))
    }

    /// True when a volatile write cache acknowledges writes (`write_cache` is "write back").
    pub fn volatile_write_cache(&self) -> Option<bool> {
        match self.write_cache.as_deref()? {
            "write back" => Some(true),
            "write through" => Some(false),
            _ => None,
        }
    }

    /// The deepest queue the device itself holds: the hardware queues' tags where blk-mq
    /// shows them, else `nr_requests`.
    pub fn device_queue_depth(&self) -> Option<u32> {
        self.nr_tags.or(self.nr_requests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn reads_what_the_kernel_shows_and_none_for_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("queue");
        fs::create_dir_all(&q).unwrap();
        for (file, text) in [
            ("max_sectors_kb", "1280\n"),
            ("max_hw_sectors_kb", "2147483647\n"),
            ("nr_requests", "256\n"),
            ("write_cache", "write back\n"),
            ("fua", "0\n"),
            ("rotational", "1\n"),
        ] {
            fs::write(q.join(file), text).unwrap();
        }
        for (n, tags) in [("0", "128\n"), ("1", "1023\n")] {
            fs::create_dir_all(dir.path().join("mq").join(n)).unwrap();
            fs::write(dir.path().join("mq").join(n).join("nr_tags"), tags).unwrap();
        }
        let limits = QueueLimits::read_disk_dir(dir.path());
        assert_eq!(
            limits,
            QueueLimits {
                max_sectors_kb: Some(1280),
                max_hw_sectors_kb: Some(2_147_483_647),
                nr_requests: Some(256),
                write_cache: Some("write back".into()),
                fua: Some(false),
                rotational: Some(true),
                nr_hw_queues: Some(2),
                nr_tags: Some(1023),
            }
        );
        assert_eq!(limits.volatile_write_cache(), Some(true));
        assert_eq!(limits.device_queue_depth(), Some(1023));
        // 4 MiB at 1280 KiB: 4 requests (3 full, one partial).
        assert_eq!(limits.requests_per_io(4 << 20), Some(4));
        assert_eq!(limits.requests_per_io(4096), Some(1));
        let empty = QueueLimits::read_disk_dir(&dir.path().join("absent"));
        assert_eq!(empty, QueueLimits::default());
        assert_eq!(empty.requests_per_io(4096), None);
    }
}
