//! How the kernel cuts one I/O into requests, from every limit that cuts it and the buffer's
//! layout — the arithmetic of `bio_split_rw` (block/blk-merge.c), not a guess from one limit.
//!
//! The block layer builds a request from the buffer's segments: each physically contiguous
//! run of memory is one segment, cut further at `max_segment_size`. A request holds at most
//! `max_segments` segments and `max_sectors_kb` of data; when either is full, the rest goes
//! in the next one (a segment may be cut at the byte limit, never at the segment limit).
//! diskscope's buffers are ordinary pages, so with no two pages found contiguous every 4 KiB
//! page is a segment: on a loop device (`max_segments` 128, `max_sectors_kb` 1280) a 4 MiB
//! block becomes 8 requests of 512 KiB, not 4 of 1280 KiB — the kernel's own count
//! (`/sys/block/loopN/stat`) agrees. A device with a `virt_boundary_mask` (NVMe) splits
//! where one segment ends off the boundary or the next starts off it; page-aligned whole
//! pages never do, so it cuts nothing here. `chunk_sectors` (RAID stripes, zones) is not
//! read and not modelled.

use crate::model::disk::QueueLimits;

/// The buffer's layout: its physically contiguous runs. Ordinary pages are `PAGE` each; the
/// kernel may merge neighbours it finds contiguous (transparent huge pages), which only
/// makes fewer segments, so this is the most requests an I/O becomes.
pub const PAGE: u64 = 4096;

/// Which limit closed the requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// `max_sectors_kb`: the bytes a request may hold.
    MaxSectors,
    /// `max_segments`: the segments (here, pages) a request may hold.
    MaxSegments,
}

/// One I/O of a block, as requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// How many requests, and their sizes in order.
    pub sizes: Vec<u64>,
    pub binding: Binding,
}

impl Split {
    pub fn requests(&self) -> u64 {
        self.sizes.len() as u64
    }

    /// The largest request.
    pub fn largest(&self) -> u64 {
        self.sizes.iter().copied().max().unwrap_or(0)
    }
}

/// The requests one I/O of `bs` bytes becomes, from a page-aligned buffer of `page`-byte
/// runs; `None` when no limit that splits is known, or it is not split.
pub fn split_of(limits: &QueueLimits, bs: u64, page: u64) -> Option<Split> {
    let max_bytes = limits
        .max_sectors_kb
        .filter(|kb| *kb > 0)
        .map(|kb| u64::from(kb) * 1024);
    let max_segs = limits
        .max_segments
        .filter(|n| *n > 0)
        .map(u64::from)
        .unwrap_or(u64::MAX);
    let seg_size = limits
        .max_segment_size
        .filter(|n| *n >= 512)
        .map(u64::from)
        .unwrap_or(u64::MAX)
        .min(page.max(1));
    if max_bytes.is_none() && max_segs == u64::MAX {
        return None;
    }
    let max_bytes = max_bytes.unwrap_or(u64::MAX);
    let mut sizes = Vec::new();
    let (mut segs, mut bytes) = (0u64, 0u64);
    let mut binding = None;
    let mut offset = 0;
    while offset < bs {
        let run = (bs - offset).min(page);
        let mut left = run;
        while left > 0 {
            if segs == max_segs || bytes == max_bytes {
                binding.get_or_insert(if bytes == max_bytes {
                    Binding::MaxSectors
                } else {
                    Binding::MaxSegments
                });
                sizes.push(bytes);
                (segs, bytes) = (0, 0);
            }
            let take = left.min(seg_size).min(max_bytes - bytes);
            segs += 1;
            bytes += take;
            left -= take;
        }
        offset += run;
    }
    sizes.push(bytes);
    Some(Split {
        sizes,
        binding: binding?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loop_device() -> QueueLimits {
        QueueLimits {
            max_sectors_kb: Some(1280),
            max_hw_sectors_kb: Some(1280),
            max_segments: Some(128),
            max_segment_size: Some(65536),
            ..QueueLimits::default()
        }
    }

    #[test]
    fn a_loop_device_splits_at_its_segments_the_kernel_counted_so() {
        // The figures, counted by the kernel on a loop device: 1M → 2, 4M → 8,
        // 16M → 32 requests per I/O.
        for (bs, n) in [(1u64 << 20, 2), (4 << 20, 8), (16 << 20, 32)] {
            let s = split_of(&loop_device(), bs, PAGE).unwrap();
            assert_eq!((s.requests(), s.largest()), (n, 512 << 10), "{bs}");
            assert_eq!(s.binding, Binding::MaxSegments);
        }
        assert_eq!(split_of(&loop_device(), 512 << 10, PAGE), None);
        // Bytes bind when segments are plenty: 4 MiB at 1280 KiB, 3 whole and 256 KiB.
        let bytes_bound = QueueLimits {
            max_segments: Some(1024),
            ..loop_device()
        };
        let s = split_of(&bytes_bound, 4 << 20, PAGE).unwrap();
        assert_eq!(s.sizes, [1280 << 10, 1280 << 10, 1280 << 10, 256 << 10]);
        assert_eq!(s.binding, Binding::MaxSectors);
        // Only max_sectors_kb known (an older result): as before.
        let old = QueueLimits {
            max_sectors_kb: Some(1024),
            ..QueueLimits::default()
        };
        assert_eq!(split_of(&old, 4 << 20, PAGE).unwrap().requests(), 4);
        assert_eq!(split_of(&QueueLimits::default(), 4 << 20, PAGE), None);
        // A segment size below a page: each page is two segments.
        let small = QueueLimits {
            max_segment_size: Some(2048),
            ..loop_device()
        };
        assert_eq!(split_of(&small, 1 << 20, PAGE).unwrap().requests(), 4);
    }
}
