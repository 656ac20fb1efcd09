//! The block layer's own limits, where the settings cross them: blocks split into smaller
//! requests (`max_sectors_kb`), more in flight than the device queue holds (`nr_requests`, the
//! device's queue depth), writes acknowledged from a volatile write cache (`write_cache`), and
//! a `rotational` flag the timing contradicts. Findings only when a setting actually crosses
//! a limit; a limit that is not known is never guessed. The limits come in as plain fields
//! (`QueueLimits`, filled from the queue's sysfs attributes by another module); nothing here
//! reads sysfs.

pub use crate::model::disk::QueueLimits;

use super::conditions::{Conditions, Detector, ask};
use super::split::{Binding, PAGE, Split, split_of};
use super::thresholds::{HDD_FASTEST_RPM, HDD_LARGEST_CACHE_BYTES, ROTATIONAL_IMPOSSIBLE_NS};
use super::{Finding, kind};
use crate::units::format_latency_ns;

/// The settings judged against the limits.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct QueueSettings {
    pub bs_bytes: u64,
    pub threads: u32,
    /// Per thread (1 for the synchronous engine).
    pub iodepth: u32,
    pub write_pct: u8,
    pub random_pct: u8,
    /// `--fsync N`: a sync every N writes; 0 for none.
    pub fsync_every: u32,
}

/// What the run measured, for the limits the timing speaks to.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Observed {
    /// Median latency of the random reads, ns.
    pub read_latency_p50_ns: Option<f64>,
    /// Bytes of the device the offsets cover.
    pub span_bytes: Option<u64>,
}

/// Every queue finding for these limits and settings that may speak under `c` (each asked
/// through `collect::ask`, so one outside its conditions is never judged).
pub fn queue_findings(
    limits: &QueueLimits,
    settings: &QueueSettings,
    observed: &Observed,
    c: &Conditions,
) -> Vec<Finding> {
    let mut out = ask(c, Detector::QueueSplit, || split(limits, settings));
    out.extend(ask(c, Detector::KernelQueue, || {
        kernel_queue(limits, settings)
    }));
    out.extend(ask(c, Detector::VolatileWriteCache, || {
        volatile_write_cache(limits, settings)
    }));
    out.extend(ask(c, Detector::RotationalFlag, || {
        rotational_flag(limits, settings, observed)
    }));
    out
}

/// "4 MiB blocks are split into 4 requests of 1 MiB (max_sectors_kb 1024): the disk sees
/// 1 MiB I/Os", or where segments bind "… into 8 requests of 512 KiB (max_segments 128: …)",
/// with advice that fits the limit that binds (`split::split_of` is the arithmetic).
pub fn split(limits: &QueueLimits, settings: &QueueSettings) -> Option<Finding> {
    let bs = settings.bs_bytes;
    let s = split_of(limits, bs, PAGE)?;
    let (n, largest) = (s.requests(), s.largest());
    let first = s.sizes[0];
    let last = s.sizes[s.sizes.len() - 1];
    let alike = s.sizes[..s.sizes.len() - 1].iter().all(|x| *x == first);
    let (pieces, sees) = if alike && last == first {
        (
            format!("{n} requests of {}", size(first)),
            format!("{} I/Os", size(first)),
        )
    } else if alike {
        (
            format!(
                "{n} requests ({} of {} and one of {})",
                n - 1,
                size(first),
                size(last)
            ),
            format!("I/Os of at most {}", size(largest)),
        )
    } else {
        (
            format!("{n} requests of at most {}", size(largest)),
            format!("I/Os of at most {}", size(largest)),
        )
    };
    let max_kb = limits.max_sectors_kb.filter(|kb| *kb > 0);
    let why = match (s.binding, max_kb) {
        (Binding::MaxSectors, Some(kb)) => format!("max_sectors_kb {kb}"),
        (_, kb) => {
            let segs = limits.max_segments.unwrap_or(0);
            let allows = kb
                .filter(|kb| u64::from(*kb) * 1024 > largest)
                .map(|kb| format!("; max_sectors_kb {kb} alone would allow {kb} KiB"))
                .unwrap_or_default();
            format!(
                "max_segments {segs}: each {} page of the buffer is a segment, so a request holds \
                 {}{allows}",
                size(PAGE),
                size(largest)
            )
        }
    };
    let mut text = format!(
        "{} blocks are split into {pieces} ({why}): the disk sees {sees}",
        size(bs)
    );
    text.push_str(&advice(limits, bs, &s));
    Some(Finding::new(kind::QUEUE_SPLIT, text))
}

/// What would change the split: for `max_sectors_kb`, the value to write where the hardware
/// takes more (and what the segments then allow); for `max_segments`, that it is the
/// driver's and blocks of the largest request or less go whole.
fn advice(limits: &QueueLimits, bs: u64, s: &Split) -> String {
    match s.binding {
        Binding::MaxSegments => format!(
            "; max_segments is the driver's own, so raising max_sectors_kb changes nothing: \
             blocks of {} or less reach the disk whole",
            size(s.largest())
        ),
        Binding::MaxSectors => {
            let (Some(max_kb), Some(hw_kb)) = (limits.max_sectors_kb, limits.max_hw_sectors_kb)
            else {
                return String::new();
            };
            if hw_kb <= max_kb {
                return String::new();
            }
            let room = u64::from(hw_kb) * 1024;
            let write_kb = bs.min(room) / 1024;
            let raised = QueueLimits {
                max_sectors_kb: u32::try_from(write_kb).ok(),
                ..limits.clone()
            };
            let sends = split_of(&raised, bs, PAGE).map_or(bs, |r| r.largest());
            format!(
                "; the hardware takes up to {} (max_hw_sectors_kb {hw_kb}), so writing \
                 {write_kb} to queue/max_sectors_kb sends {} requests",
                size(room),
                size(sends)
            )
        }
    }
}

/// "256 in flight asked, the device queue holds 64: latency above that is the kernel's
/// queue". Only when it surely crosses: one thread alone asks more than a queue holds, or
/// all of them more than every hardware queue together.
pub fn kernel_queue(limits: &QueueLimits, settings: &QueueSettings) -> Option<Finding> {
    let (depth, source) = match (limits.nr_tags, limits.nr_requests) {
        (Some(d), _) if d > 0 => (d, "nr_tags"),
        (_, Some(n)) if n > 0 => (n, "nr_requests"),
        _ => return None,
    };
    let asked = u64::from(settings.threads) * u64::from(settings.iodepth.max(1));
    let queues = limits.nr_hw_queues.filter(|q| *q > 0);
    let holds = u64::from(depth) * u64::from(queues.unwrap_or(1));
    let one_thread_over = settings.iodepth > depth;
    let all_over = queues.is_some() && asked > holds;
    if !one_thread_over && !all_over {
        return None;
    }
    let queue_words = match queues {
        Some(q) if q > 1 && !one_thread_over => {
            format!("the device's {q} queues hold {depth} each ({source})")
        }
        _ => format!("the device queue holds {depth} ({source})"),
    };
    let asked_words = if one_thread_over && settings.threads > 1 {
        format!("{} in flight per thread asked", settings.iodepth)
    } else {
        format!("{asked} in flight asked")
    };
    let text = format!("{asked_words}, {queue_words}: latency above that is the kernel's queue");
    Some(Finding::new(kind::KERNEL_QUEUE, text))
}

/// With a volatile write cache: writes without `--fsync` are acknowledged from the drive's
/// RAM; with it, the syncs are flushes of that cache.
pub fn volatile_write_cache(limits: &QueueLimits, settings: &QueueSettings) -> Option<Finding> {
    let mode = limits.write_cache.as_deref()?.trim();
    if mode != "write back" || settings.write_pct == 0 {
        return None;
    }
    let text = if settings.fsync_every == 0 {
        "the drive has a volatile write cache (write_cache: write back) and writes run without \
         --fsync: they are acknowledged from the drive's RAM, so write figures show the cache, \
         not the media"
    } else {
        "the drive has a volatile write cache (write_cache: write back): each --fsync flushes \
         that cache to the media, and the sync latency is that flush"
    };
    Some(Finding::new(kind::VOLATILE_WRITE_CACHE, text.to_string()))
}

/// A device flagged rotational whose random reads no spinning disk could serve.
pub fn rotational_flag(
    limits: &QueueLimits,
    settings: &QueueSettings,
    observed: &Observed,
) -> Option<Finding> {
    if limits.rotational != Some(true) || settings.random_pct < 100 || settings.write_pct >= 100 {
        return None;
    }
    let p50 = observed
        .read_latency_p50_ns
        .filter(|ns| ns.is_finite() && *ns > 0.0)?;
    let span = observed.span_bytes?;
    if p50 >= ROTATIONAL_IMPOSSIBLE_NS || span <= HDD_LARGEST_CACHE_BYTES {
        return None;
    }
    let half_turn_ns = 60.0 / HDD_FASTEST_RPM / 2.0 * 1e9;
    let text = format!(
        "the kernel treats it as a spinning disk (rotational=1), but random reads at {} say \
         otherwise: even at {},{:03} rpm a disk needs {} on average for half a turn. It is likely \
         flash behind a RAID controller or a hypervisor; the I/O scheduler and filesystems \
         tune themselves for a spinning disk until queue/rotational is set to 0",
        format_latency_ns(p50),
        HDD_FASTEST_RPM as u64 / 1000,
        HDD_FASTEST_RPM as u64 % 1000,
        format_latency_ns(half_turn_ns)
    );
    Some(Finding::new(kind::ROTATIONAL_FLAG, text))
}

/// "1 MiB", "1280 KiB", "512 B": whole units as the kernel's own limits are written.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
