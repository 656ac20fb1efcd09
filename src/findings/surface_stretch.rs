//! Stretches of a surface scan much slower than the disk around them, whatever their width:
//! a weak spot of one region, a hundred megabytes of retried sectors, half a small disk.
//!
//! The reference a region is judged against must not be made of the stretch itself: a median
//! of the regions on either side of it is, as soon as the stretch is wider than half the
//! neighbourhood (its middle then reads as its own "around"). So the regions already found
//! slow are left out of every reference: two sweeps over the regions, start to end and end to
//! start, judge each region against the `SURFACE_NEIGHBOURS` nearest regions on each side
//! that are not (yet) slow, the faster side's median. A sweep that enters a slow stretch from
//! the disk around it carries that disk's rate through the stretch to its far end, so the
//! stretch is found whole (the sweep from the other end finds one at the start of the disk).
//! The faster side, not the pair's median: the side still inside the stretch reads as slowly
//! as the region judged. On a spinning disk the faster side is the outer one, under 2%
//! faster over 32 regions of 2,048.
//!
//! Each run of neighbouring slow regions is then judged whole, against the nearest regions
//! outside it on both sides (their median: what the disk reads there), by what it cost: at
//! most `SURFACE_SLOW_SHARE` of the reference and at least `SURFACE_MIN_EXCESS_S` seconds
//! more than the reference's rate would have taken, in all (so a wide stretch slowed a little
//! in each region counts by its whole cost; a few milliseconds of jitter in one region do
//! not). A region at a run's edge reading more than four times the run's median is left out of it
//! (the disk around it, slowed by a read of the stretch queued beside it), so the stretch has
//! its real extent. A stretch may be any share of the disk, half and more included: the
//! regions around it are what it is judged against, however few.

use super::surface::median;
use super::thresholds::{SURFACE_MIN_EXCESS_S, SURFACE_NEIGHBOURS, SURFACE_SLOW_SHARE};
use crate::model::surface::SurfaceReport;

/// A stretch found slow: regions `first..=last` of the map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    pub first: usize,
    pub last: usize,
    /// Its bytes over its busy time.
    pub rate: f64,
    /// The median rate of the regions nearest it, outside any slow stretch.
    pub around: f64,
}

/// The rates of the `SURFACE_NEIGHBOURS` regions nearest `from` (exclusive) in the direction
/// `step` (−1 or +1) that are not flagged.
fn nearest_unflagged(rates: &[f64], flagged: &[bool], from: usize, step: isize) -> Vec<f64> {
    let mut out = Vec::with_capacity(SURFACE_NEIGHBOURS);
    let mut at = from as isize + step;
    while out.len() < SURFACE_NEIGHBOURS && at >= 0 && (at as usize) < rates.len() {
        if !flagged[at as usize] {
            out.push(rates[at as usize]);
        }
        at += step;
    }
    out
}

/// Flags read region `j` when it reads at most `SURFACE_SLOW_SHARE` of the faster side's
/// median (sides of unflagged regions only).
fn judge(rates: &[f64], flagged: &mut [bool], j: usize) {
    let left = median(nearest_unflagged(rates, flagged, j, -1));
    let right = median(nearest_unflagged(rates, flagged, j, 1));
    let reference = match (left, right) {
        (Some(l), Some(r)) => l.max(r),
        (Some(v), None) | (None, Some(v)) => v,
        (None, None) => return,
    };
    if rates[j] <= SURFACE_SLOW_SHARE * reference {
        flagged[j] = true;
    }
}

/// The stretches of `report` much slower than the disk around them, in offset order.
pub fn slow_stretches(report: &SurfaceReport) -> Vec<Stretch> {
    let read: Vec<(usize, f64)> = (report.regions.iter().enumerate())
        .filter_map(|(i, r)| r.bw_bytes_per_s().map(|bw| (i, bw)))
        .collect();
    let rates: Vec<f64> = read.iter().map(|r| r.1).collect();
    let mut flagged = vec![false; read.len()];
    for j in 0..read.len() {
        judge(&rates, &mut flagged, j);
    }
    for j in (0..read.len()).rev() {
        if !flagged[j] {
            judge(&rates, &mut flagged, j);
        }
    }
    runs(&read, &flagged)
        .into_iter()
        .filter_map(|(a, b)| stretch(report, &read, &flagged, a, b))
        .collect()
}

/// Runs of flagged entries of `read` whose regions are neighbours: (first, last) positions.
fn runs(read: &[(usize, f64)], flagged: &[bool]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for j in (0..read.len()).filter(|&j| flagged[j]) {
        match out.last_mut() {
            Some((_, last)) if *last + 1 == j && read[*last].0 + 1 == read[j].0 => *last = j,
            _ => out.push((j, j)),
        }
    }
    out
}

/// The run of read entries `a..=b` as a stretch, if it holds up judged whole (its edges
/// trimmed of regions that read like the disk around it).
fn stretch(
    report: &SurfaceReport,
    read: &[(usize, f64)],
    flagged: &[bool],
    a: usize,
    b: usize,
) -> Option<Stretch> {
    let rates: Vec<f64> = read.iter().map(|r| r.1).collect();
    // A region at either edge that reads more than 1/SURFACE_SLOW_SHARE times the run's median
    // is the disk around it, slowed by a neighbour's read queued with it: not the stretch.
    let core = median(rates[a..=b].to_vec())?;
    let (mut a, mut b) = (a, b);
    while a < b && rates[a] * SURFACE_SLOW_SHARE > core {
        a += 1;
    }
    while b > a && rates[b] * SURFACE_SLOW_SHARE > core {
        b -= 1;
    }
    let mut near = nearest_unflagged(&rates, flagged, a, -1);
    near.extend(nearest_unflagged(&rates, flagged, b, 1));
    let around = median(near)?;
    let (first, last) = (read[a].0, read[b].0);
    let regions = &report.regions[first..=last];
    let bytes: u64 = regions.iter().map(|r| r.bytes_read).sum();
    let busy: f64 = regions.iter().map(|r| r.busy_s).sum();
    let rate = bytes as f64 / busy.max(1e-9);
    let excess = busy - bytes as f64 / around.max(1.0);
    (rate <= SURFACE_SLOW_SHARE * around && excess >= SURFACE_MIN_EXCESS_S).then_some(Stretch {
        first,
        last,
        rate,
        around,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::fold::{Completion, Fold};
    use crate::surface::plan::ScanPlan;

    const MIB: u64 = 1 << 20;

    /// A full scan of `regions` regions of `region_mib` MiB, read in 1 MiB reads, each MiB at
    /// `mb_s(mib)` MB/s.
    fn scan(regions: usize, region_mib: u64, mb_s: impl Fn(u64) -> f64) -> SurfaceReport {
        let span = regions as u64 * region_mib * MIB;
        let plan = ScanPlan::full(span, MIB, regions);
        let mut fold = Fold::new(&plan, "/dev/sdz", 8);
        for m in 0..span / MIB {
            let ns = (MIB as f64 / (mb_s(m) * 1e6) * 1e9) as u64;
            fold.add(&Completion {
                offset: m * MIB,
                len: MIB,
                latency_ns: ns,
                service_ns: ns,
                busy_ns: ns,
                result: Ok(()),
            });
        }
        fold.finish(10.0, true)
    }

    /// (first MiB, end MiB, rate against around) of each stretch.
    fn found(report: &SurfaceReport, region_mib: u64) -> Vec<(u64, u64, f64)> {
        (slow_stretches(report).iter())
            .map(|s| {
                let (a, b) = (s.first as u64, s.last as u64 + 1);
                (a * region_mib, b * region_mib, s.rate / s.around)
            })
            .collect()
    }

    #[test]
    fn a_hundred_mib_stretch_is_one_stretch_from_its_start_to_its_end() {
        // A 2 GiB disk at 550 MB/s, 3.2 MB/s over 200–300 MiB and 1500–1503 MiB (the FUSE
        // disk sleeping 40 ms a 128 KiB request read so).
        let slow = |m: u64| (200..300).contains(&m) || (1500..1503).contains(&m);
        let report = scan(2048, 1, |m| if slow(m) { 3.2 } else { 550.0 });
        let got = found(&report, 1);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[0].0, got[0].1), (200, 300), "{got:?}");
        assert_eq!((got[1].0, got[1].1), (1500, 1503), "{got:?}");
        assert!((got[0].2 - 3.2 / 550.0).abs() < 1e-4, "{got:?}");
    }

    #[test]
    fn a_wide_stretch_slowed_a_little_per_region_counts_by_its_whole_cost() {
        // 80 MiB at 12 MB/s against 550: each region costs 0.085 s more, the stretch 6.8 s.
        let slow = |m: u64| (100..180).contains(&m) || (1000..1010).contains(&m);
        let report = scan(2048, 1, |m| if slow(m) { 12.0 } else { 550.0 });
        let got = found(&report, 1);
        let ranges: Vec<(u64, u64)> = got.iter().map(|g| (g.0, g.1)).collect();
        assert_eq!(ranges, vec![(100, 180), (1000, 1010)], "{got:?}");
    }

    #[test]
    fn stretches_at_both_ends_and_one_over_half_the_disk_are_each_found() {
        // 64 MiB in 512 regions of 128 KiB are too fine for 1 MiB reads: 64 regions of 1 MiB,
        // slow at 0–4 and 60–64 MiB (the slowest) and at 20–52 MiB.
        let rate = |m: u64| match m {
            0..4 | 60..64 => 2.0,
            20..52 => 5.0,
            _ => 550.0,
        };
        let report = scan(64, 1, rate);
        let ranges: Vec<(u64, u64)> = found(&report, 1).iter().map(|g| (g.0, g.1)).collect();
        assert_eq!(ranges, vec![(0, 4), (20, 52), (60, 64)]);
    }

    #[test]
    fn a_spinning_disks_fall_and_its_jitter_are_no_stretch() {
        // 550 MB/s falling to 260 from the outer to the inner tracks, every fifth region 30%
        // slower and every seventh 2.5x slower for one 8 MiB region (8 ms of jitter a MiB).
        let report = scan(256, 8, |m| {
            let base = 550.0 - 290.0 * m as f64 / 2048.0;
            match (m / 8) % 35 {
                0 => base / 2.5,
                5 | 10 | 15 => base * 0.7,
                _ => base,
            }
        });
        assert_eq!(found(&report, 8), vec![]);
    }

    #[test]
    fn a_half_slowed_region_at_an_edge_is_not_the_stretch() {
        // 19.5 MiB–20 MiB read at 240 MB/s (queued beside the first slow reads): 32 of 64 MiB
        // at 5 MB/s is still exactly half the disk, and its extent stays 20–52 MiB.
        let report = scan(128, 1, |m| match m {
            39 => 240.0,
            40..104 => 5.0,
            _ => 550.0,
        });
        let ranges: Vec<(u64, u64)> = found(&report, 1).iter().map(|g| (g.0, g.1)).collect();
        assert_eq!(ranges, vec![(40, 104)]);
    }

    #[test]
    fn a_busy_machines_swing_is_no_stretch() {
        // Seen on a sound FUSE disk at load 6: 114 MiB at 209 MB/s against 744, and 6 MiB at
        // 45 MB/s against 700 (0.13 s in all).
        let report = scan(1024, 1, |m| match m {
            23..137 => 209.0,
            621..627 => 45.0,
            _ => 744.0,
        });
        assert_eq!(found(&report, 1), vec![]);
    }

    #[test]
    fn a_stretch_over_most_of_the_disk_is_still_named() {
        let report = scan(64, 1, |m| if m < 40 { 100.0 } else { 550.0 });
        let ranges: Vec<(u64, u64)> = found(&report, 1).iter().map(|g| (g.0, g.1)).collect();
        assert_eq!(ranges, vec![(0, 40)]);
    }
}
