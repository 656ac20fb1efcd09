//! Byte ranges of storage and the windows that map one device onto what lies below it: a loop
//! device's `[offset, offset + sizelimit)` of its backing file, a partition's
//! `[start, start + size)` of its disk. Two names of the same storage conflict only where
//! their ranges overlap, so two loop devices on separate windows of one file stay separate,
//! and a loop device over the whole file overlaps every window. Pure arithmetic: it reads
//! nothing and knows nothing of devices; `walk` uses it to follow writes down and across.
//!
//! All arithmetic saturates: a garbled `offset` near 2^64 in sysfs gives "to the end", never
//! a panic or a wrapped range that would miss an overlap.

use crate::units::format_bytes;

/// Bytes `[start, end)` of a file or device; `end == u64::MAX` means "to its end".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

impl ByteRange {
    /// Every byte, whatever the size.
    pub const ALL: ByteRange = ByteRange {
        start: 0,
        end: u64::MAX,
    };

    /// The first `len_bytes` bytes.
    pub fn upto(len_bytes: u64) -> ByteRange {
        ByteRange {
            start: 0,
            end: len_bytes,
        }
    }

    /// The bytes both ranges hold; `None` when they are disjoint (or either is empty).
    pub fn intersect(self, other: ByteRange) -> Option<ByteRange> {
        let start = self.start.max(other.start);
        let end = self.end.min(other.end);
        (start < end).then_some(ByteRange { start, end })
    }

    /// "1 MiB–101 MiB", or "1 MiB to the end" when unbounded.
    pub fn describe(self) -> String {
        if self.end == u64::MAX {
            format!("{} to the end", format_bytes(self.start))
        } else {
            format!("{}–{}", format_bytes(self.start), format_bytes(self.end))
        }
    }
}

/// Where an upper device's bytes lie in what is below it: from `offset_bytes`, `len_bytes`
/// of them (`None`: to the end of what is below, as a loop device with sizelimit 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub offset_bytes: u64,
    pub len_bytes: Option<u64>,
}

impl Window {
    /// All of what is below, from its byte 0.
    pub const WHOLE: Window = Window {
        offset_bytes: 0,
        len_bytes: None,
    };

    /// A loop device's window from its `lo_offset` and `lo_sizelimit` (0: to the end).
    pub fn of_loop(offset_bytes: u64, sizelimit_bytes: u64) -> Window {
        Window {
            offset_bytes,
            len_bytes: (sizelimit_bytes != 0).then_some(sizelimit_bytes),
        }
    }

    /// The bytes below that the window covers.
    pub fn below(self) -> ByteRange {
        ByteRange {
            start: self.offset_bytes,
            end: self
                .len_bytes
                .map_or(u64::MAX, |l| self.offset_bytes.saturating_add(l)),
        }
    }

    /// The bytes below that `upper` (a range of the upper device) reaches; `None` when it lies
    /// wholly past the window's end (the upper device has no such bytes).
    pub fn down(self, upper: ByteRange) -> Option<ByteRange> {
        let end = self.len_bytes.map_or(upper.end, |l| upper.end.min(l));
        if upper.start >= end {
            return None;
        }
        let shift = |x: u64| {
            if x == u64::MAX {
                u64::MAX
            } else {
                self.offset_bytes.saturating_add(x)
            }
        };
        Some(ByteRange {
            start: shift(upper.start),
            end: shift(end),
        })
    }

    /// The bytes of the upper device that `lower` (a range below) reaches; `None` when they
    /// do not meet the window.
    pub fn up(self, lower: ByteRange) -> Option<ByteRange> {
        let hit = lower.intersect(self.below())?;
        let unshift = |x: u64| {
            if x == u64::MAX {
                u64::MAX
            } else {
                x - self.offset_bytes
            }
        };
        Some(ByteRange {
            start: unshift(hit.start),
            end: unshift(hit.end),
        })
    }
}

/// Whether every byte of `range` lies inside one of `windows` (a disk's partitions). Bytes
/// outside every partition hold the partition table (and the gaps the tools leave), which
/// describes them all: writing there concerns every partition.
pub fn covered(range: ByteRange, windows: &[Window]) -> bool {
    let mut parts: Vec<ByteRange> = windows.iter().map(|w| w.below()).collect();
    parts.sort_by_key(|r| r.start);
    let mut reached = range.start;
    for p in parts {
        if reached >= range.end {
            break;
        }
        if p.start <= reached && p.end > reached {
            reached = p.end;
        }
    }
    reached >= range.end
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn r(start: u64, end: u64) -> ByteRange {
        ByteRange { start, end }
    }

    #[test]
    fn a_window_maps_down_clamped_to_its_limit_and_back_up() {
        // losetup -o 1M --sizelimit 100M: loop bytes [0, 4M) are file bytes [1M, 5M).
        let w = Window::of_loop(MIB, 100 * MIB);
        assert_eq!(w.down(ByteRange::upto(4 * MIB)), Some(r(MIB, 5 * MIB)));
        // A write over the whole loop device reaches only its window of the file.
        assert_eq!(w.down(ByteRange::ALL), Some(r(MIB, 101 * MIB)));
        // Past the window's end the loop device has no bytes.
        assert_eq!(w.down(r(100 * MIB, 200 * MIB)), None);
        // From the file up: bytes [0, 2M) of the file meet the loop's bytes [0, 1M).
        assert_eq!(w.up(ByteRange::upto(2 * MIB)), Some(r(0, MIB)));
        assert_eq!(w.up(ByteRange::upto(MIB)), None, "the first MiB is outside");
        assert_eq!(w.up(ByteRange::ALL), Some(r(0, 100 * MIB)));
    }

    #[test]
    fn sizelimit_zero_runs_to_the_end_and_overlaps_every_window() {
        let whole = Window::of_loop(0, 0);
        assert_eq!(whole.below(), ByteRange::ALL);
        assert_eq!(whole.down(ByteRange::ALL), Some(ByteRange::ALL));
        assert_eq!(
            whole.up(r(7 * MIB, 9 * MIB)),
            Some(r(7 * MIB, 9 * MIB)),
            "a whole-file loop sees every window's bytes"
        );
        let tail = Window::of_loop(50 * MIB, 0);
        assert_eq!(tail.down(ByteRange::upto(MIB)), Some(r(50 * MIB, 51 * MIB)));
        assert_eq!(tail.up(ByteRange::ALL), Some(ByteRange::ALL));
    }

    #[test]
    fn adjacent_windows_do_not_overlap_and_one_byte_in_common_does() {
        let a = Window::of_loop(0, 100 * MIB);
        let b = Window::of_loop(100 * MIB, 100 * MIB);
        assert_eq!(a.below().intersect(b.below()), None);
        let c = Window::of_loop(100 * MIB - 1, 10);
        assert_eq!(
            a.below().intersect(c.below()),
            Some(r(100 * MIB - 1, 100 * MIB))
        );
    }

    #[test]
    fn garbled_offsets_saturate_to_the_end_instead_of_wrapping() {
        let w = Window::of_loop(u64::MAX - 10, 100);
        assert_eq!(w.below(), r(u64::MAX - 10, u64::MAX));
        assert_eq!(w.down(r(5, 50)), Some(r(u64::MAX - 5, u64::MAX)));
        // Its end saturated to "the end", so from below it reaches all of the upper device.
        assert_eq!(w.up(ByteRange::ALL), Some(ByteRange::ALL));
        assert_eq!(r(5, 5).intersect(ByteRange::ALL), None, "empty");
    }

    #[test]
    fn the_partition_table_concerns_every_partition() {
        // Partitions at [1M, 101M) and [101M, 201M) of a disk.
        let parts = [
            Window {
                offset_bytes: MIB,
                len_bytes: Some(100 * MIB),
            },
            Window {
                offset_bytes: 101 * MIB,
                len_bytes: Some(100 * MIB),
            },
        ];
        assert!(covered(r(2 * MIB, 3 * MIB), &parts));
        assert!(covered(r(100 * MIB, 102 * MIB), &parts), "across both");
        assert!(!covered(r(0, MIB), &parts), "the table");
        assert!(!covered(ByteRange::ALL, &parts), "the whole disk");
        assert!(!covered(r(200 * MIB, 202 * MIB), &parts), "past the end");
        assert!(!covered(r(0, 1), &[]), "no partitions at all");
    }

    #[test]
    fn ranges_are_described_in_binary_units() {
        assert_eq!(r(MIB, 101 * MIB).describe(), "1 MiB–101 MiB");
        assert_eq!(r(0, 32 * MIB).describe(), "0 B–32 MiB");
        assert_eq!(r(MIB, u64::MAX).describe(), "1 MiB to the end");
    }
}
