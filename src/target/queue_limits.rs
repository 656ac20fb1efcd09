//! The block layer's own limits for a device, read from its disk's `queue/` directory and, for
//! blk-mq devices, `mq/*/nr_tags`: the largest request the kernel sends, how many requests the
//! kernel queues and the device's hardware queues hold, the write cache and FUA, and the
//! rotational flag. These turn settings into something else (a 4 MiB block split into 1 MiB
//! requests; 256 in flight waiting in a 64-deep queue), so they are read with the other facts
//! at open and kept beside the figures. Field names are the kernel's (sysfs-block ABI); the
//! plain data (`QueueLimits`) lives in `model::disk`, where results carry it.

use std::path::Path;

pub use crate::model::disk::QueueLimits;

use super::sysfs::{BlockDir, entries, read_attr, read_num};

/// Reads the limits of `block`'s disk.
pub fn read(block: &BlockDir) -> QueueLimits {
    read_disk_dir(&block.disk_dir)
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
        max_segments: read_num(&q.join("max_segments")),
        max_segment_size: read_num(&q.join("max_segment_size")),
        nr_requests: read_num(&q.join("nr_requests")),
        write_cache: read_attr(&q.join("write_cache")),
        fua: flag("fua"),
        rotational: flag("rotational"),
        nr_hw_queues: (!queues.is_empty()).then_some(queues.len() as u32),
        nr_tags,
        io_poll: flag("io_poll"),
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
            ("max_segments", "128\n"),
            ("max_segment_size", "65536\n"),
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
        let limits = read_disk_dir(dir.path());
        assert_eq!(
            limits,
            QueueLimits {
                max_sectors_kb: Some(1280),
                max_hw_sectors_kb: Some(2_147_483_647),
                max_segments: Some(128),
                max_segment_size: Some(65536),
                nr_requests: Some(256),
                write_cache: Some("write back".into()),
                fua: Some(false),
                rotational: Some(true),
                nr_hw_queues: Some(2),
                nr_tags: Some(1023),
                io_poll: None,
            }
        );
        assert_eq!(limits.volatile_write_cache(), Some(true));
        assert_eq!(limits.device_queue_depth(), Some(1023));
        let empty = read_disk_dir(&dir.path().join("absent"));
        assert_eq!(empty, QueueLimits::default());
    }
}
