//! What the run screen shows of why: the steady state and its line, the findings said so far
//! (the latest for the message line), the drive's temperature with a short history and its
//! warning level, the link's ceiling, the bytes written and the drive's health at the start. Plain data, copied in once a
//! second from the run's live `why` (`tui::kernel` does that); drawing reads it, nothing
//! here reads a file or a clock.

use std::collections::VecDeque;

use crate::model::ConfigReport;
use crate::model::finding::Finding;
use crate::model::health::{DeviceHealth, GapKind};
use crate::model::why::WhyReport;
use crate::why::live::Live;

/// The why of the run screen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WhyView {
    /// The findings said so far in reading order, the steady state and its line: what `e`
    /// and `--json FILE` save, and the summary prints on quit.
    pub report: WhyReport,
    /// The newest finding, for the message line.
    pub latest: Option<Finding>,
    /// The drive's temperature now, and the last minute of it (`None`: a failed read).
    pub temp_c: Option<f64>,
    pub temps: VecDeque<Option<f64>>,
    /// The drive's warning temperature, °C.
    pub warn_c: Option<f64>,
    /// Why there is no temperature, said once in the kernel pane.
    pub no_sensor: Option<String>,
    /// The link's usable ceiling, bytes/s, where it has one.
    pub ceiling_bytes_per_s: Option<u64>,
    /// The link as a short label ("PCIe 3.0 x2 (of 4.0 x4)", "virtio").
    pub link_label: String,
    /// Bytes written since the run began (stops and resets included: they were written).
    pub written_bytes: u64,
    /// The drive's health at the start as the kernel pane's foot shows it ("health worn
    /// 31002h"); `None` where it is not read or the device keeps no SMART record.
    pub health: Option<String>,
}

impl WhyView {
    /// What the run's description says before the first second.
    pub fn new(info: &ConfigReport) -> WhyView {
        let d = &info.disk;
        let t = &d.temperature;
        WhyView {
            warn_c: t.thresholds.warn_c,
            no_sensor: (!t.sensor.present).then(|| {
                t.sensor
                    .reason
                    .clone()
                    .unwrap_or_else(|| "no temperature sensor".into())
            }),
            ceiling_bytes_per_s: d.link.ceiling_bytes_per_s,
            link_label: d.link.label.clone(),
            ..WhyView::default()
        }
    }

    /// Takes in the drive's health read at the start.
    pub fn set_health(&mut self, h: Option<&DeviceHealth>) {
        self.health = h
            .filter(|h| h.gap.as_ref().is_none_or(|g| g.kind != GapKind::NoSmart))
            .map(|h| format!("health {}", h.cell()));
    }

    /// Copies in the run's live why after a second was fed; `new` are the findings that
    /// second brought.
    pub fn update(&mut self, live: &Live, new: &[Finding]) {
        self.report = live.tracker.live_report();
        if let Some(f) = new.last() {
            self.latest = Some(f.clone());
        }
        self.temp_c = live.latest.temp_c;
        self.temps = live.temps.clone();
    }

    /// True once the steady-state check is met.
    pub fn steady(&self) -> bool {
        self.report.steady_state.as_ref().is_some_and(|s| s.reached)
    }
}
