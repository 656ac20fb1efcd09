//! What a surface scan reads, in order: the whole span block after block (a full scan, from
//! its start or from where a stopped one left off), or an even sample — the first bytes of
//! each region, so every region of the map gets a cell (a quick scan). Pure: offsets in, offsets
//! out; the scan loop asks it for the next read and the map it fills.

use crate::model::surface::{RegionMap, ScanKind};

/// Regions of a full scan's map: the cells of the map and the points of the curve. Fixed
/// whatever the disk's size, so memory is bounded (a 20 TB drive's region is ~10 GB).
pub const FULL_REGIONS: usize = 2048;
/// Samples of a quick scan, one per region.
pub const QUICK_SAMPLES: usize = 256;
/// Bytes read at each sample of a quick scan: long enough for a sequential rate, short enough
/// that 256 of them take seconds (2 GiB, ~10 s at 200 MB/s).
pub const QUICK_SAMPLE_BYTES: u64 = 8 << 20;

/// One read: where, how long, and whether it starts a run of reads (a sample's first, or the
/// first after a resume: its service time includes the seek to it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub offset: u64,
    pub len: u64,
    pub starts_run: bool,
}

/// A scan's plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanPlan {
    pub kind: ScanKind,
    /// Bytes of the span, from 0.
    pub span_bytes: u64,
    /// Bytes of one read (the last of a run may be shorter).
    pub block_bytes: u64,
    /// Bytes read at the start of each region (a quick scan); the whole region otherwise.
    pub sample_bytes: u64,
    /// Where a full scan starts (a resumed one: where the last stopped).
    pub start: u64,
    /// The empty map the scan fills.
    pub map: RegionMap,
}

impl ScanPlan {
    /// Every byte of `span_bytes`, in `block_bytes` reads, `regions` cells.
    pub fn full(span_bytes: u64, block_bytes: u64, regions: usize) -> ScanPlan {
        let map = RegionMap::new(span_bytes, regions, block_bytes);
        ScanPlan {
            kind: ScanKind::Full,
            span_bytes,
            block_bytes,
            sample_bytes: map.region_bytes,
            start: 0,
            map,
        }
    }

    /// `samples` regions, the first `sample_bytes` of each read in `block_bytes` reads.
    /// `align` is the logical block size every read length must be a multiple of.
    pub fn quick(
        span_bytes: u64,
        block_bytes: u64,
        samples: usize,
        sample_bytes: u64,
        align: u64,
    ) -> ScanPlan {
        let map = RegionMap::new(span_bytes, samples, align);
        ScanPlan {
            kind: ScanKind::Quick,
            span_bytes,
            block_bytes,
            sample_bytes: sample_bytes.min(map.region_bytes),
            start: 0,
            map,
        }
    }

    /// The same full scan, starting at `offset` (rounded down to a block).
    pub fn resumed_at(mut self, offset: u64) -> ScanPlan {
        self.start = (offset / self.block_bytes * self.block_bytes).min(self.span_bytes);
        self
    }

    /// Bytes the plan reads in all (from `start` for a full scan).
    pub fn total_bytes(&self) -> u64 {
        match self.kind {
            ScanKind::Full => self.span_bytes - self.start,
            ScanKind::Quick => (0..self.map.len())
                .map(|i| self.map.region_range(i).1.min(self.sample_bytes))
                .sum(),
        }
    }

    /// The reads, in order.
    pub fn reads(&self) -> Reads<'_> {
        Reads {
            plan: self,
            region: self.map.region_of(self.start),
            at: self.start,
            first: true,
        }
    }
}

/// The reads of a plan, in order (`ScanPlan::reads`).
pub struct Reads<'a> {
    plan: &'a ScanPlan,
    region: usize,
    /// The next read's offset.
    at: u64,
    first: bool,
}

impl Reads<'_> {
    /// Where the next read would start: a stopped full scan resumes here.
    pub fn next_offset(&self) -> u64 {
        self.at
    }

    /// The end of the run the next read belongs to: the span (full) or the region's sample.
    fn run_end(&self) -> u64 {
        match self.plan.kind {
            ScanKind::Full => self.plan.span_bytes,
            ScanKind::Quick => {
                let (start, len) = self.plan.map.region_range(self.region);
                start + len.min(self.plan.sample_bytes)
            }
        }
    }
}

impl Iterator for Reads<'_> {
    type Item = Read;

    fn next(&mut self) -> Option<Read> {
        let plan = self.plan;
        if self.at >= self.run_end() {
            if plan.kind == ScanKind::Full || self.region + 1 >= plan.map.len() {
                return None;
            }
            self.region += 1;
            self.at = plan.map.region_range(self.region).0;
            self.first = true;
        }
        let len = plan.block_bytes.min(self.run_end() - self.at);
        if len == 0 {
            return None;
        }
        let read = Read {
            offset: self.at,
            len,
            starts_run: std::mem::take(&mut self.first),
        };
        self.at += len;
        Some(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_full_scan_reads_every_byte_once_in_order() {
        let plan = ScanPlan::full(10 * MIB + 4096, MIB, 4);
        let reads: Vec<Read> = plan.reads().collect();
        assert_eq!(reads.len(), 11);
        assert!(reads[0].starts_run && !reads[1].starts_run);
        let mut at = 0;
        for r in &reads {
            assert_eq!(r.offset, at);
            at += r.len;
        }
        assert_eq!(at, plan.span_bytes);
        assert_eq!(reads[10].len, 4096);
        assert_eq!(plan.total_bytes(), plan.span_bytes);
    }

    #[test]
    fn a_resumed_scan_starts_at_the_block_it_stopped_before() {
        let plan = ScanPlan::full(8 * MIB, MIB, 8).resumed_at(5 * MIB + 10);
        let reads: Vec<Read> = plan.reads().collect();
        assert_eq!(reads.first().map(|r| r.offset), Some(5 * MIB));
        assert!(reads[0].starts_run);
        assert_eq!(reads.len(), 3);
        assert_eq!(plan.total_bytes(), 3 * MIB);
    }

    #[test]
    fn a_quick_scan_samples_the_start_of_every_region() {
        let plan = ScanPlan::quick(1 << 30, MIB, 16, 3 * MIB / 2, 512);
        let reads: Vec<Read> = plan.reads().collect();
        // Each of 16 regions of 64 MiB: a 1 MiB read and a 512 KiB one at its start.
        assert_eq!(reads.len(), 32);
        for (i, pair) in reads.chunks(2).enumerate() {
            let start = i as u64 * 64 * MIB;
            assert_eq!(
                (pair[0].offset, pair[0].len, pair[0].starts_run),
                (start, MIB, true)
            );
            assert_eq!((pair[1].offset, pair[1].len), (start + MIB, MIB / 2));
            assert!(!pair[1].starts_run);
        }
        assert_eq!(plan.total_bytes(), 16 * 3 * MIB / 2);
    }

    #[test]
    fn a_quick_scan_of_a_small_span_never_reads_past_a_region() {
        let plan = ScanPlan::quick(64 * 4096, MIB, 256, 8 * MIB, 4096);
        let reads: Vec<Read> = plan.reads().collect();
        assert_eq!(reads.len(), 64);
        assert!(reads.iter().all(|r| r.len == 4096 && r.starts_run));
    }
}
