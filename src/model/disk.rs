//! What the disk under a target is, as results carry it: what carries its data (`LinkInfo`,
//! with the ceiling in bytes/s), the block layer's limits (`QueueLimits`), its temperature
//! sensor and the drive's own limits (`SensorInfo`, `Thresholds`), and the NVMe drive's own
//! account of heat (`ThermalLog`). `target` reads these from sysfs and the drive (its
//! `link`, `queue_limits`, `hwmon`, `nvme_log` and `facts`); `--list --json`, the run's
//! `config` and the findings read them here. Plain data: nothing here reads a file.

use serde::{Deserialize, Serialize};

/// The kind of link, serialized in lowercase (`"pcie"`, `"sata"`, `"virtio"` …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    Pcie,
    Sata,
    Sas,
    Usb,
    Virtio,
    Xen,
    Hyperv,
    /// NVMe over fabrics, iSCSI, rbd, nbd: the data crosses a network.
    Network,
    Loop,
    Zram,
    Ram,
    Md,
    Dm,
    /// Another device with no physical link (`sys/devices/virtual`).
    Virtual,
    Unknown,
}

/// One member of an md or dm device (or one path of a multipath NVMe namespace) and its link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberLink {
    pub name: String,
    pub link: LinkInfo,
}

/// A block device's link as sysfs describes it. Every field but `kind` and `label` is `None`
/// when sysfs does not say; `note` then says why, where there is a reason to give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkInfo {
    pub kind: LinkKind,
    /// Ready for a narrow column: `"PCIe 3.0 x2 (of 4.0 x4)"`, `"SATA 3 Gb/s (of 6)"`,
    /// `"USB 2.0 uas"`, `"virtio"`, `"md: 2× SATA 6 Gb/s"`.
    pub label: String,
    /// The trained rate of one lane with its unit: `"8.0 GT/s"`, `"3.0 Gb/s"`, `"480 Mb/s"`.
    pub speed: Option<String>,
    /// Lanes (PCIe), phys in the port (SAS), lanes (USB 3.2 x2); 1 for SATA.
    pub width: Option<u32>,
    /// The most the link could train at: for PCIe the function's own capability (LnkCap),
    /// for SATA the drive's (IDENTIFY word 76), for SAS the host phy's hardware maximum.
    pub max_speed: Option<String>,
    pub max_width: Option<u32>,
    /// Whose maximum `max_speed` is: `"device"` or `"host phy"`.
    pub max_of: Option<String>,
    /// The payload ceiling at the trained speed and width.
    pub ceiling_bytes_per_s: Option<u64>,
    /// The payload ceiling at `max_speed` × `max_width`.
    pub max_ceiling_bytes_per_s: Option<u64>,
    /// The line encoding or protocol bound behind the ceiling (`"128b/130b"`).
    pub encoding: Option<String>,
    /// The host side's limit where sysfs shows one: the PCIe port or slot above the function
    /// (its LnkCap), libata's limit for a SATA port.
    pub port_max_speed: Option<String>,
    pub port_max_width: Option<u32>,
    /// The driver on the transport where it matters (`"uas"`, `"usb-storage"`).
    pub driver: Option<String>,
    /// The sysfs directory the facts were read from, relative to the sysfs root.
    pub sysfs_path: Option<String>,
    /// What the figures mean or why there are none (`"virtio: no physical link"`).
    pub note: Option<String>,
    /// For md, dm and multipath: each member's link.
    pub members: Vec<MemberLink>,
}

impl LinkInfo {
    /// A link with only a kind, a label and a note: the virtual and unknown cases.
    pub fn bare(kind: LinkKind, label: &str, note: Option<String>) -> LinkInfo {
        LinkInfo {
            kind,
            label: label.to_string(),
            speed: None,
            width: None,
            max_speed: None,
            max_width: None,
            max_of: None,
            ceiling_bytes_per_s: None,
            max_ceiling_bytes_per_s: None,
            encoding: None,
            port_max_speed: None,
            port_max_width: None,
            driver: None,
            sysfs_path: None,
            note,
            members: Vec::new(),
        }
    }

    /// The link of a device sysfs says nothing about.
    pub fn unknown(note: &str) -> LinkInfo {
        LinkInfo::bare(LinkKind::Unknown, "?", Some(note.to_string()))
    }

    /// True when the link trained below what it could do (speed or width).
    pub fn below_max(&self) -> bool {
        matches!(
            (self.ceiling_bytes_per_s, self.max_ceiling_bytes_per_s),
            (Some(now), Some(max)) if now < max
        )
    }
}

impl Default for LinkInfo {
    fn default() -> LinkInfo {
        LinkInfo::unknown("not read")
    }
}

/// A device's queue limits; `None` where sysfs does not show the attribute. A partition
/// reports its disk's queue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueLimits {
    /// `queue/max_sectors_kb`: the largest request the kernel builds, in KiB; larger I/Os
    /// are split.
    pub max_sectors_kb: Option<u32>,
    /// `queue/max_hw_sectors_kb`: the most the device accepts (the ceiling of the above).
    pub max_hw_sectors_kb: Option<u32>,
    /// `queue/max_segments`: the memory segments one request may hold (the driver's limit;
    /// each page of a buffer is one unless physically contiguous with the next).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_segments: Option<u32>,
    /// `queue/max_segment_size`: the largest segment, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_segment_size: Option<u32>,
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
    /// `queue/io_poll`: the queue completes polled I/O (`--hipri`); NVMe needs poll queues
    /// for it (the nvme module's `poll_queues`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_poll: Option<bool>,
}

impl QueueLimits {
    /// The largest request the kernel sends, in bytes (`max_sectors_kb` × 1024).
    pub fn max_request_bytes(&self) -> Option<u64> {
        self.max_sectors_kb.map(|kb| u64::from(kb) * 1024)
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

/// The drive's own temperature limits, in °C; `None` where the driver shows none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Thresholds {
    /// `temp1_max`: NVMe's over-temperature threshold (the warning level, WCTEMP by
    /// default); drivetemp's "maximum recommended continuous operating temperature".
    pub warn_c: Option<f64>,
    /// `temp1_crit`: NVMe's critical composite temperature (CCTEMP); drivetemp's maximum.
    pub crit_c: Option<f64>,
}

/// Whether a device has a sensor, for listings and reports (the sensor is not read).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SensorInfo {
    pub present: bool,
    /// The hwmon `name` (`"nvme"`, `"drivetemp"`).
    pub name: Option<String>,
    pub label: Option<String>,
    /// The hwmon directory relative to the sysfs root.
    pub sysfs_path: Option<String>,
    /// Why there is none: `"no temperature sensor (…)"`.
    pub reason: Option<String>,
}

/// The thermal part of the SMART / Health Information log.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThermalLog {
    /// Bytes 1–2: the composite temperature (reported in kelvin), in °C; `None` for 0 K.
    pub composite_temp_c: Option<f64>,
    /// Byte 0: critical warning bits; bit 1 is "temperature above an over-temperature or
    /// below an under-temperature threshold".
    pub critical_warning: u8,
    /// Bytes 192–195: minutes spent at or above the warning composite temperature (WCTEMP).
    pub warning_temp_minutes: u32,
    /// Bytes 196–199: minutes spent at or above the critical composite temperature (CCTEMP).
    pub critical_temp_minutes: u32,
    /// Bytes 216–219: times the controller entered light throttling (TMT1).
    pub tmt1_transitions: u32,
    /// Bytes 220–223: times it entered heavy throttling (TMT2).
    pub tmt2_transitions: u32,
    /// Bytes 224–227: seconds spent throttling at TMT1.
    pub tmt1_total_s: u32,
    /// Bytes 228–231: seconds spent throttling at TMT2.
    pub tmt2_total_s: u32,
}

/// How much more the drive throttled between two readings of its log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThrottleDelta {
    pub tmt1_transitions: u32,
    pub tmt2_transitions: u32,
    pub tmt1_s: u32,
    pub tmt2_s: u32,
}

impl ThrottleDelta {
    /// True when the drive reports any throttling in the interval.
    pub fn throttled(&self) -> bool {
        *self != ThrottleDelta::default()
    }
}

impl ThermalLog {
    /// What changed since `before` (counters that went backwards, as after a controller reset,
    /// count as zero).
    pub fn since(&self, before: &ThermalLog) -> ThrottleDelta {
        ThrottleDelta {
            tmt1_transitions: self
                .tmt1_transitions
                .saturating_sub(before.tmt1_transitions),
            tmt2_transitions: self
                .tmt2_transitions
                .saturating_sub(before.tmt2_transitions),
            tmt1_s: self.tmt1_total_s.saturating_sub(before.tmt1_total_s),
            tmt2_s: self.tmt2_total_s.saturating_sub(before.tmt2_total_s),
        }
    }
}

/// A temperature sensor and the drive's limits, as a run's `config.temperature` says it:
/// `present` false with the `reason` when there is none (each interval's `temp_c` is then
/// null, never 0).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TemperatureInfo {
    #[serde(flatten)]
    pub sensor: SensorInfo,
    #[serde(flatten)]
    pub thresholds: Thresholds,
}

/// What a run's `config` says of the disk under its target: `block_device`, `link`,
/// `queue_limits` and `temperature`, read once at open.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DiskReport {
    /// The block device the facts are of (`"vda"` for a file on it); `None` when the target
    /// has none (tmpfs, NFS), and the link's note says why.
    pub block_device: Option<String>,
    pub link: LinkInfo,
    pub queue_limits: QueueLimits,
    pub temperature: TemperatureInfo,
    /// The NVMe controller (`"nvme0"`) whose SMART log holds the throttling counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvme_controller: Option<String>,
}
