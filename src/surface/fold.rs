//! Per-read results folded into the map: each completed read adds its bytes and its device
//! time to its region, marks the region with the band of its service time (or a read error),
//! and a failed read is kept by offset. Pure: the scan loop times the reads and hands them in.
//!
//! Service time, not latency: at depth every read waits behind those ahead of it, so a healthy
//! disk's 1 MiB reads at depth 8 each take ~8 transfer times from submission. The time the
//! device spent on a read is the gap since the previous completion (or its latency, where that
//! is shorter: the first of a run, or after the queue ran dry), as iostat's svctm. A stall of
//! 300 ms shows as one read of 300 ms, as Victoria's single-block reads would show it; the
//! sum of service times is the scan's busy time, so a region's bandwidth is its bytes over it.
//! Reads reaped together share the gap since the previous completion: each is judged on the
//! whole gap (it waited that long) but adds its share of it to its region's busy time.

use crate::model::surface::{Cell, LatencyClass, ReadError, RegionStat, ScanKind, SurfaceReport};
use crate::surface::plan::ScanPlan;

/// Read errors kept by offset; beyond these only the count grows (a dead disk fails every
/// read, and the list must stay bounded).
pub const MAX_ERRORS_KEPT: usize = 10_000;

/// One completed read, as the scan loop timed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub offset: u64,
    pub len: u64,
    /// Submission to completion.
    pub latency_ns: u64,
    /// The device's time on it (see the module's note): what its class is judged on.
    pub service_ns: u64,
    /// Its share of the scan's busy time: the service time divided among the reads reaped
    /// together (a fast device completes several at once; the first is not the only one
    /// that took the time). Regions' rates are their bytes over the sum of these.
    pub busy_ns: u64,
    /// `Err` with the kernel's words for a failed (or short) read.
    pub result: Result<(), String>,
}

/// The report being filled.
#[derive(Debug, Clone)]
pub struct Fold {
    pub report: SurfaceReport,
    /// Read errors beyond `MAX_ERRORS_KEPT`, counted only.
    pub errors_not_kept: u64,
}

impl Fold {
    /// An empty report for `plan` on `target`, `depth` reads in flight.
    pub fn new(plan: &ScanPlan, target: &str, depth: usize) -> Fold {
        let regions = vec![RegionStat::default(); plan.map.len()];
        Fold {
            report: SurfaceReport {
                kind: plan.kind,
                target: target.to_string(),
                block_bytes: plan.block_bytes,
                depth,
                map: plan.map.clone(),
                regions,
                errors: Vec::new(),
                bytes_read: 0,
                elapsed_s: 0.0,
                resumed_from: (plan.kind == ScanKind::Full && plan.start > 0).then_some(plan.start),
                complete: false,
            },
            errors_not_kept: 0,
        }
    }

    /// Continues a stopped scan's report: its map, regions and errors, this session's timing.
    pub fn resume(mut previous: SurfaceReport, plan: &ScanPlan) -> Fold {
        previous.resumed_from = Some(plan.start);
        previous.complete = false;
        Fold {
            report: previous,
            errors_not_kept: 0,
        }
    }

    /// Adds one completed read.
    pub fn add(&mut self, c: &Completion) {
        let r = &mut self.report;
        let index = r.map.region_of(c.offset);
        let Some(stat) = r.regions.get_mut(index) else {
            return;
        };
        stat.ios += 1;
        stat.busy_s += c.busy_ns as f64 / 1e9;
        stat.max_latency_ns = stat.max_latency_ns.max(c.latency_ns);
        stat.max_service_ns = stat.max_service_ns.max(c.service_ns);
        match &c.result {
            Ok(()) => {
                stat.bytes_read += c.len;
                r.bytes_read += c.len;
                r.map
                    .mark_region(index, Cell::Latency(LatencyClass::of_ns(c.service_ns)));
            }
            Err(why) => {
                stat.errors += 1;
                r.map.mark_region(index, Cell::ReadError);
                if r.errors.len() < MAX_ERRORS_KEPT {
                    r.errors.push(ReadError {
                        offset: c.offset,
                        len: c.len,
                        error: why.clone(),
                    });
                } else {
                    self.errors_not_kept += 1;
                }
            }
        }
    }

    /// The report as it stands, errors in offset order.
    pub fn finish(mut self, elapsed_s: f64, complete: bool) -> SurfaceReport {
        self.report.elapsed_s = elapsed_s;
        self.report.complete = complete;
        self.report.errors.sort_by_key(|e| e.offset);
        self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn ok(offset: u64, service_ms: u64) -> Completion {
        Completion {
            offset,
            len: MIB,
            latency_ns: service_ms * 8_000_000,
            service_ns: service_ms * 1_000_000,
            busy_ns: service_ms * 1_000_000,
            result: Ok(()),
        }
    }

    #[test]
    fn reads_land_in_their_regions_with_their_class() {
        let plan = ScanPlan::full(8 * MIB, MIB, 4);
        let mut fold = Fold::new(&plan, "/dev/x", 8);
        for i in 0..8 {
            fold.add(&ok(i * MIB, if i == 5 { 300 } else { 2 }));
        }
        let mut bad = ok(7 * MIB, 1);
        bad.result = Err("Input/output error (os error 5)".into());
        fold.add(&bad);
        let report = fold.finish(1.0, true);
        assert_eq!(report.map.cells[0], Cell::Latency(LatencyClass::Under5Ms));
        assert_eq!(report.map.cells[2], Cell::Latency(LatencyClass::Under600Ms));
        assert_eq!(report.map.cells[3], Cell::ReadError);
        assert_eq!(report.errors.len(), 1);
        assert_eq!(report.errors[0].offset, 7 * MIB);
        assert_eq!(report.regions[2].bytes_read, 2 * MIB);
        let bw = report.regions[2].bw_bytes_per_s().unwrap_or(0.0);
        assert!((bw - 2.0 * MIB as f64 / 0.302).abs() < 1.0, "{bw}");
        assert_eq!(
            report.regions[3].bytes_read,
            2 * MIB,
            "a failed read adds no bytes"
        );
        assert_eq!(report.bytes_read, 8 * MIB);
        assert_eq!(report.slowest(1)[0].0, 2);
    }

    #[test]
    fn errors_come_out_in_offset_order_and_bounded() {
        let plan = ScanPlan::full(4 * MIB, MIB, 4);
        let mut fold = Fold::new(&plan, "/dev/x", 8);
        for offset in [3 * MIB, MIB] {
            let mut c = ok(offset, 1);
            c.result = Err("EIO".into());
            fold.add(&c);
        }
        let report = fold.finish(0.1, false);
        let offsets: Vec<u64> = report.errors.iter().map(|e| e.offset).collect();
        assert_eq!(offsets, vec![MIB, 3 * MIB]);
        assert!(!report.complete);
    }
}
