//! The disks screen's slider line: every knob on one line, the focused one marked, the
//! skew left out while offsets are uniform and the trims while there are none, unless chosen
//! (80 columns must hold it).

use ratatui::text::{Line, Span};

use super::disks::fit;
use crate::settings::Knob;
use crate::tui::state::disks::Disks;
use crate::tui::widgets::Theme;
use crate::units::{format_block_size, format_count_rate};

/// Every slider on one line, the focused one marked: "▶threads 4 · depth 32 · bs 4k …".
pub(super) fn slider_line(d: &Disks, theme: Theme, width: u16) -> Line<'static> {
    let s = d.settings;
    let mut spans = Vec::new();
    for knob in Knob::ALL {
        // Uniform offsets leave the skew out of a line 80 columns must hold, unless chosen.
        // And trims, while there are none.
        let idle = match knob {
            Knob::Skew => !s.random_distribution.is_skewed(),
            Knob::TrimPct => s.trim_pct == 0,
            _ => false,
        };
        if idle && d.focus != knob {
            continue;
        }
        let value = match knob {
            Knob::Threads => s.threads.to_string(),
            Knob::QueueDepth => s.iodepth.to_string(),
            Knob::BlockSize => format_block_size(s.bs),
            Knob::ReadPct => format!("{}%", s.read_pct),
            Knob::RandomPct => format!("{}%", s.random_pct),
            Knob::Skew => s.random_distribution.label(),
            Knob::Rate if s.rate_iops == 0 => "unlimited".into(),
            Knob::Rate => format_count_rate(s.rate_iops as f64),
            Knob::TrimPct => format!("{}%", s.trim_pct),
        };
        let name = match knob {
            Knob::Threads => "threads",
            Knob::QueueDepth => "depth",
            Knob::BlockSize => "bs",
            Knob::ReadPct => "read",
            Knob::RandomPct => "random",
            Knob::Skew => "skew",
            Knob::Rate => "rate",
            Knob::TrimPct => "trim",
        };
        if !spans.is_empty() {
            spans.push(Span::styled(" · ", theme.dim()));
        }
        if knob == d.focus {
            spans.push(Span::styled(format!("▶{name} {value}"), theme.accent()));
        } else {
            spans.push(Span::raw(format!("{name} {value}")));
        }
    }
    let parts: Vec<(u8, Span<'static>)> = spans
        .into_iter()
        .map(|s| (0, s))
        .chain([(1, Span::styled("  (every target)", theme.dim()))])
        .collect();
    fit(parts, width)
}
