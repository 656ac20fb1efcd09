//! The kernel's view of the device beside the app's: reads and writes per second, MB/s, queue
//! depth, await and utilisation from /proc/diskstats, next to what diskscope itself counted
//! over the same second. Differences are the point: merges, splits, other processes' I/O.
//! Then the drive's temperature and its last minute (or why there is none); last, while the
//! run trims or the kernel counts discards, `t/s MB/s`: discards per second and MB/s
//! discarded on both sides.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;
use crate::tui::state::KernelView;
use crate::units::{format_count_rate, format_latency_ns};

/// The panel's content.
pub struct KernelPanel<'a> {
    pub view: &'a KernelView,
    pub theme: Theme,
    /// The temperature row: now (with the warning level), and the last readings; or why
    /// there is no sensor.
    pub temp: (String, String),
    /// The run asks for trims: the discard row shows even in a second without any.
    pub trims: bool,
}

/// An average count of I/Os in flight: one decimal while small, whole numbers beyond.
pub fn format_in_flight(n: f64) -> String {
    if n < 100.0 {
        format!("{n:.1}")
    } else {
        format!("{n:.0}")
    }
}

fn pair(a: String, b: String) -> String {
    format!("{a} {b}")
}

impl KernelPanel<'_> {
    /// The rows: a label, the kernel's cell, the app's cell.
    fn rows(self) -> Vec<(&'static str, String, String)> {
        let v = self.view;
        let dash = || "-".to_string();
        let mb = |b: f64| format!("{:.1}", b / 1e6);
        let k = v.kernel;
        let a = v.app;
        let kernel_name = v.device.as_deref().unwrap_or("n/a");
        let mut rows: Vec<(&'static str, String, String)> = vec![
            ("", format!("kernel {kernel_name}"), "diskscope".into()),
            (
                "r/s w/s",
                k.map_or_else(dash, |k| {
                    pair(format_count_rate(k.r_per_s), format_count_rate(k.w_per_s))
                }),
                a.map_or_else(dash, |a| {
                    pair(format_count_rate(a.r_per_s), format_count_rate(a.w_per_s))
                }),
            ),
            (
                "MB/s r w",
                k.map_or_else(dash, |k| pair(mb(k.r_bytes_per_s), mb(k.w_bytes_per_s))),
                a.map_or_else(dash, |a| pair(mb(a.r_bytes_per_s), mb(a.w_bytes_per_s))),
            ),
            (
                "queue",
                k.map_or_else(dash, |k| format!("{:.2}", k.avg_queue_depth)),
                // Measured in flight, of the most there can be (threads × depth); with a rate,
                // what is due and not yet issued apart: behind schedule, not in any queue.
                a.map_or_else(dash, |a| {
                    let most = a.threads * a.iodepth.max(1);
                    let fl = format_in_flight(a.in_flight.min(most as f64));
                    match a.behind {
                        0 => format!("{fl}/{most}"),
                        n => format!("{fl}/{most} +{} late", format_count_rate(n as f64)),
                    }
                }),
            ),
            (
                "await",
                k.and_then(|k| k.await_ms)
                    .map_or_else(dash, |ms| format_latency_ns(ms * 1e6)),
                a.filter(|a| a.mean_latency_ns > 0.0)
                    .map_or_else(dash, |a| format_latency_ns(a.mean_latency_ns)),
            ),
            (
                "%util",
                k.map_or_else(dash, |k| format!("{:.1}", k.util_pct)),
                dash(),
            ),
            ("temp", self.temp.0, self.temp.1),
        ];
        let kernel_discards = k.and_then(|k| k.discards);
        if self.trims || kernel_discards.is_some_and(|(n, _)| n > 0.0) {
            let trims = |(n, bytes): (f64, f64)| format!("{} {}", format_count_rate(n), mb(bytes));
            rows.push((
                "t/s MB/s",
                kernel_discards.map_or_else(dash, trims),
                a.map_or_else(dash, |a| trims((a.t_per_s, a.t_bytes_per_s))),
            ));
        }
        rows
    }
}

impl Widget for KernelPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let theme = self.theme;
        let rows = self.rows();
        let w = area.width as usize;
        let label_w = 9.min(w);
        let col = (w.saturating_sub(label_w)) / 2;
        for (i, (label, kv, av)) in rows.iter().enumerate().take(area.height as usize) {
            let y = area.y + i as u16;
            let style = if i == 0 {
                theme.dim()
            } else {
                ratatui::style::Style::new()
            };
            buf.set_stringn(area.x, y, label, label_w, theme.dim());
            // A row with nothing on the app's side (the temperature's reason) spans both.
            let kv_w = if av.is_empty() {
                w.saturating_sub(label_w)
            } else {
                col.saturating_sub(1)
            };
            buf.set_stringn(area.x + label_w as u16, y, kv, kv_w, style);
            buf.set_stringn(area.x + (label_w + col) as u16, y, av, col, style);
        }
    }
}
