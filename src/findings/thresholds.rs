//! Every number a finding is judged by, each with where it comes from. Nothing else in
//! `findings` may hold a threshold: a detector that needs a limit takes it from here (or from a
//! parameter whose default is here), so a reader can trace any finding to its source.
//!
//! Two kinds of numbers live here: standards (SNIA PTS, the PCIe/USB specifications, the
//! physics of a spinning disk) and choices of this project's issues 21 and 22. A choice says
//! that it is one and why it is sane.

// ---------------------------------------------------------------------------------------------
// Steady state: SNIA Solid State Storage Performance Test Specification (PTS) Enterprise
// v2.0 (and Client v2.0), definitions "Steady State" and "Measurement Window". A figure is
// steady when, over a Measurement Window of at least five Rounds:
//   max(y) − min(y) ≤ 20% of ave(y)                       (data excursion), and
//   max − min of the least-squares line over the window ≤ 10% of ave(y)   (slope excursion).
// The line's max − min over rounds 0..n−1 is |slope| × (n − 1). fio's `ss=iops_slope:` is a
// different criterion (slope per sample over the mean); diskscope follows PTS.
// ---------------------------------------------------------------------------------------------

/// Rounds in the steady-state window (PTS: "at least five Rounds").
pub const STEADY_ROUNDS: usize = 5;
/// Largest data excursion, max − min, as a percentage of the window's mean (PTS: 20%).
pub const STEADY_MAX_EXCURSION_PCT: f64 = 20.0;
/// Largest excursion of the least-squares line across the window, as a percentage of the
/// window's mean (PTS: 10%).
pub const STEADY_MAX_SLOPE_PCT: f64 = 10.0;
/// Round length in the TUI (issue 22's choice: short enough that the mark appears within
/// 10 s of a steady start, long enough that a 1-s sampler gives each round two samples).
pub const STEADY_ROUND_TUI_S: f64 = 2.0;
/// Round length headless (issue 22's choice: a 5-round window of 25 s, near fio's
/// documented `ss_dur=30s` example, for runs that are judged once at the end).
pub const STEADY_ROUND_HEADLESS_S: f64 = 5.0;

// ---------------------------------------------------------------------------------------------
// Slowdowns (issue 22's rule, not a standard): the median of the last 10 s below 60% of the
// best earlier 10-s median, holding ≥ 10 s. Why these are sane: a median over 10 one-second
// samples ignores up to four stalled seconds (a GC pause, a flush), so one bad second never
// reads as a slowdown; 60% is far outside the ±20% band PTS calls steady, so ordinary noise
// never crosses it, while a write-cache cliff (typically to a third or less of the cached
// speed) or throttling to half always does; holding 10 s separates a cliff from a pause.
// ---------------------------------------------------------------------------------------------

/// The window whose median is compared, in seconds of real elapsed time.
pub const SLOWDOWN_WINDOW_S: f64 = 10.0;
/// A window's median below this share of the best earlier window's is a drop.
pub const SLOWDOWN_FRACTION: f64 = 0.60;
/// A drop (and a recovery) counts once it has lasted this long, from its onset.
pub const SLOWDOWN_HOLD_S: f64 = 10.0;

// ---------------------------------------------------------------------------------------------
// Thermal throttling (issue 21's rule): throughput fell ≥ 25% over a span in which the drive's
// temperature rose to within 5 °C of its warning threshold or above. The warning threshold is
// the drive's own (NVMe WCTEMP, exposed by the kernel's hwmon as temp1_max); 5 °C is the
// issue's margin because drives start light throttling (NVMe TMT1, "Host Controlled Thermal
// Management") at a host-set temperature that is usually a few degrees below WCTEMP. 25% is
// the choice: larger than PTS's ±10% steady band around a mean, so it is not noise.
// The span must last SLOWDOWN_HOLD_S, like any other drop, to be judged.
// ---------------------------------------------------------------------------------------------

/// Smallest fall, as a fraction of the figure before the heat, that counts as throttling.
pub const THROTTLE_MIN_FALL: f64 = 0.25;
/// Degrees below the warning threshold at which a temperature counts as "at the limit".
pub const THROTTLE_MARGIN_C: f64 = 5.0;

// ---------------------------------------------------------------------------------------------
// The link (issue 21's rule): bandwidth at ≥ 90% of the link's usable ceiling means the link
// is the limit. The ceiling is the raw rate less the line encoding (PCIe 3.0+ 128b/130b,
// SATA 8b/10b, ...); packet overhead (PCIe TLP headers with a 256-byte payload, SATA FIS
// framing) costs another 5–10% that no disk can get past, so at 90% there is nothing left.
// ---------------------------------------------------------------------------------------------

/// Measured bandwidth at or above this share of the ceiling: the link is the limit.
pub const LINK_BOUND_FRACTION: f64 = 0.90;
/// Above this share of the ceiling the data cannot all have crossed the link: the ceiling is
/// a hard bound, and 2% allows for a sampled second that holds a few milliseconds of the
/// next one's completions.
pub const LINK_EXCEEDED_FRACTION: f64 = 1.02;
/// A link whose ceiling is below this share of its maximum is "below its maximum" (1% so
/// that rounding in the ceilings never reads as a slower link).
pub const LINK_BELOW_MAX_FRACTION: f64 = 0.99;
/// A fraction within this relative distance of 1/2, 1/4, 1/8 or 1/16 is said in words
/// (PCIe 2.0 against 3.0 at the same width is 0.508: 8b/10b against 128b/130b).
pub const LINK_FRACTION_WORDS_TOLERANCE: f64 = 0.02;
/// What a USB 2.0 high-speed link carries at best for a disk, bytes/s. USB 2.0 specification
/// table 5-10: at most 13 bulk packets of 512 bytes per 125-µs microframe, 53.2 MB/s; the
/// mass-storage protocol's command and status phases leave about 40 MB/s (issue 21's figure).
pub const USB2_PRACTICAL_BYTES_PER_S: f64 = 40e6;
/// USB 1.1 full speed (12 Mbit/s): at most 19 bulk packets of 64 bytes per 1-ms frame,
/// 1.2 MB/s (USB 2.0 specification table 5-9), about 1 MB/s in practice.
pub const USB1_PRACTICAL_BYTES_PER_S: f64 = 1e6;

// ---------------------------------------------------------------------------------------------
// Rotational flag against the timing. A random read on a spinning disk waits, on average,
// half a revolution for its sector, before any seek: 60 s / rpm / 2. The fastest disks ever
// sold spin at 15,000 rpm (Seagate Cheetah 15K and Savvio 15K, Western Digital/HGST
// Ultrastar C15K), so no spinning disk averages under 2 ms of rotational latency, and their
// data sheets add 2–4 ms of average seek (the seeds' article: "Typical mean access times ...
// 5 ms to 15 ms"). Half of that 2 ms is the project's margin for reads the drive's own cache
// answers; the cache is at most 512 MiB on current disks (e.g. Ultrastar DC HC5xx data
// sheets), so a span no larger is not judged.
// ---------------------------------------------------------------------------------------------

/// The fastest spindle speed of any spinning disk sold, revolutions per minute.
pub const HDD_FASTEST_RPM: f64 = 15_000.0;
/// Median random-read latency below which a device cannot be a spinning disk, ns: half of
/// the average rotational latency at HDD_FASTEST_RPM (60/15000/2 s = 2 ms).
pub const ROTATIONAL_IMPOSSIBLE_NS: f64 = 0.5 * (60.0 / HDD_FASTEST_RPM / 2.0) * 1e9;
/// The largest on-drive cache of a spinning disk, bytes; spans up to this are not judged.
pub const HDD_LARGEST_CACHE_BYTES: u64 = 512 << 20;

// ---------------------------------------------------------------------------------------------
// A `--rate` that was kept (issue 20's rule, measured): a window is behind its timetable when
// more slots came due than were started by more than 3% of what came due (and more than one
// slot per thread). Measured on a page-cached file, deliverable many times over, one-second
// windows came within 0.5% of the rate. Behind, the disk (or the CPU) set the pace; kept, the
// cap did, and no finding about the disk's pace may speak (`conditions`).
// ---------------------------------------------------------------------------------------------

/// Started below due by more than this share of what came due is behind the timetable.
pub const RATE_SHORTFALL: f64 = 0.03;

// ---------------------------------------------------------------------------------------------
// Many disks side by side (issue 24). Outliers: a member more than 20% below the group's
// median. The fleet's rule since issue 17, kept for disks so one rule judges both; 20% is the
// data excursion PTS allows a device that it still calls steady (see STEADY_MAX_EXCURSION_PCT),
// so a disk inside its own normal wobble is never named, and half of SLOWDOWN_FRACTION's 40%
// drop, so a disk running at that lower speed always is. Live, a disk is judged over its last
// five seconds: PTS's five-round window, in which one stalled second moves the figure by a
// fifth at most, never past the rule's own share on its own.
// ---------------------------------------------------------------------------------------------

/// A member this many percent below the median of its group is an outlier (`--outlier-pct`'s
/// default, for a fleet's hosts and a run's disks alike).
pub const OUTLIER_BELOW_MEDIAN_PCT: f64 = 20.0;
/// The live screen judges each disk over this many of its last one-second windows.
pub const OUTLIER_WINDOW_S: usize = STEADY_ROUNDS;

// ---------------------------------------------------------------------------------------------
// Alone and together (issue 24's `--each-then-all`). Disks that share nothing add up: all
// together do what each did alone, summed, up to run-to-run noise. Together below 80% of the
// sum of alone is more than that noise can explain (the same 20% band PTS calls steady, as
// for outliers above): something between the disks and the CPU is shared and full — an HBA,
// a PCIe switch or its uplink, the one disk under several loop devices, or the CPU itself.
// The CPU is named when it was at least 90% busy over the together phase (the issue's
// figure): with less than a tenth of it idle, the workers, the sampler and the kernel's block
// layer wait for it, so it may be what stops the sum growing.
// ---------------------------------------------------------------------------------------------

/// Together below this share of the sum of alone: the disks share a limit.
pub const SHARED_LIMIT_FRACTION: f64 = 0.80;
/// The CPU this busy (all cores, user + system + interrupts, percent) during the together
/// phase may be the limit.
pub const CPU_LIMIT_BUSY_PCT: f64 = 90.0;

// ---------------------------------------------------------------------------------------------
// The drive's own health (issue 31). The standards: the NVM Express Base Specification's
// SMART / Health log — Percentage Used "may exceed 100"; a value of 100 means the rated
// endurance is used, "but may not indicate an NVM subsystem failure"; Available Spare below
// Available Spare Threshold sets Critical Warning bit 0. smartmontools#537: a drive at 100%
// used also sets Critical Warning bit 2 (reliability degraded) while it works. The counters:
// Backblaze's drive statistics ("What SMART Stats Tell Us About Hard Drives", 2016) found a
// non-zero raw value of SMART 5, 187, 197 or 198 in most failed drives and few working ones,
// so any pending, uncorrectable or reported-uncorrect sector (and any NVMe media error, SAS
// uncorrected error) reads as failing; reallocated sectors and grown defects, remapped and
// no longer in use, read as worn. The rest are this choices, each said why.
// ---------------------------------------------------------------------------------------------

/// Power-on hours from which the record shows real use (choice: drives leave the factory with
/// a few hours of test time, rarely more than a day; two days is past any of that).
pub const HEALTH_NOT_NEW_HOURS: u64 = 48;
/// Bytes written from which the record shows real use (choice: factory tests write little;
/// 100 GB is more than any burn-in writes and less than a week of a desktop's use).
pub const HEALTH_NOT_NEW_WRITTEN_BYTES: u64 = 100_000_000_000;
/// How far SMART's power-on hours may fall short of the FARM log's before they read as reset
/// (choice: the two count on their own clocks and may differ by rounding; the drives sold as
/// new in 2025 differed by thousands of hours).
pub const HEALTH_FARM_SLACK_HOURS: u64 = 24;
/// Share of rated endurance used from which a drive reads as near its rated writes (choice:
/// the last tenth of its rated life; the specification's 100 is "used up").
pub const HEALTH_WORN_USED_PCT: u32 = 90;
/// Percentage Used at which the rated endurance is used (NVMe Base Specification).
pub const HEALTH_ENDURANCE_USED_PCT: u32 = 100;
/// Hours in a year, for "2.7 years" (365.25 days).
pub const HOURS_PER_YEAR: f64 = 8766.0;

// ---------------------------------------------------------------------------------------------
// The surface scan (`findings::surface`, `findings::surface_stretch`). A stretch is judged
// against the disk around it, measured in the same scan: the nearest regions on either side
// that are not themselves slow, whose median is what the disk reads there. On a spinning disk
// the rate falls smoothly from the outer to the inner tracks (zoned bit recording), never by
// half between neighbouring regions.
// ---------------------------------------------------------------------------------------------

/// Regions on each side of a region (or a stretch) that make the disk around it, slow regions
/// left out (choice: 32 + 32 of 2,048 is 3% of the disk, across which the outer-to-inner fall
/// is under 2%; enough regions that the median of one side is not one region's jitter).
pub const SURFACE_NEIGHBOURS: usize = 32;
/// At most this share of the disk around it for a region, and a stretch judged whole, to
/// read as much slower (choice: a quarter. A spinning disk's fall across the whole disk is
/// about half, so no zone boundary between neighbouring regions comes near it; a scan on a
/// busy machine swings by more than half over a stretch: 209 against 744 MB/s over 114 MiB of
/// a sound FUSE disk at load 6, and with half its slower noise chained onto a real stretch
/// and diluted it; retried or remapped sectors read at a tenth or less: 12 against 550 MB/s,
/// 3 against 550).
pub const SURFACE_SLOW_SHARE: f64 = 0.25;
/// Seconds a stretch must have cost, in all, beyond what the disk around it would have taken
/// for its bytes (choice: a quarter of a second. A busy machine stalls a scan for a tenth of a
/// second or two at a time: 0.13 s over 6 MiB and 0.16 s over 12 MiB of a sound FUSE disk at
/// load 6, and a few milliseconds of jitter already read as "half as fast" on a region of one
/// read. A weak stretch of a real disk costs seconds, each retried read alone 0.2–2 s: 80 MiB
/// at 12 MB/s against 550 costs 6.5 s, though each of its 1 MiB regions costs only 0.08 s).
pub const SURFACE_MIN_EXCESS_S: f64 = 0.25;
/// Service time from which a read is slow by Victoria's legend: its orange (< 600 ms) and red
/// (≥ 600 ms) bands begin at 200 ms.
pub const SURFACE_SLOW_READ_NS: u64 = 200_000_000;
/// Share of the read regions at each end of the disk whose rates are compared for the curve's
/// shape (choice: the outer and inner tenth, as HD Tune's curve is read by eye).
pub const SURFACE_CURVE_EDGE: f64 = 0.1;
/// Regions read at the least before the curve's shape is judged.
pub const SURFACE_CURVE_MIN_REGIONS: usize = 20;
/// Share of the device the span must cover for its curve's shape to be judged: a short span
/// holds only a part of the fall.
pub const SURFACE_CURVE_MIN_SPAN: f64 = 0.9;
/// A rotational disk's inner tenth reads at least this much slower than its outer tenth:
/// below it the curve "does not fall" (zoned bit recording: inner tracks hold ~0.5–0.6 of
/// the outer tracks' sectors, so a single disk falls by 40–50%; choice: 10%, well short of it).
pub const SURFACE_HDD_MIN_FALL: f64 = 0.10;
/// On flash, the inner tenth reading this much slower than the outer one is a fall (choice:
/// 20%, twice the run-to-run scatter of a sequential read; flash has no geometry to fall by).
pub const SURFACE_FLASH_MAX_FALL: f64 = 0.20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rotational_bound_is_half_of_half_a_turn_at_15k_rpm() {
        // 15,000 rpm: 4 ms a turn, 2 ms on average to the sector, 1 ms with the margin.
        assert!((ROTATIONAL_IMPOSSIBLE_NS - 1_000_000.0).abs() < 1e-6);
    }
}
