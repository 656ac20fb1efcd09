//! The summary's lines on what became of a run's written data: what the page cache still
//! held, of the target and of the whole system, when the I/O ended, and the `--end-fsync`
//! that brought the target's part to the device (or why it failed). Text only; the figures
//! are `model::WritebackReport`'s, measured by headless.

use std::fmt::Write;

use crate::units::{format_bytes, format_latency_ns};

/// Where the written data was when the I/O ended, and the final sync.
pub(super) fn writeback_lines(out: &mut String, w: &crate::model::WritebackReport) {
    let target = w
        .target_pending_bytes
        .map(|b| format!("{} of the target", format_bytes(b)));
    let system = w
        .system_dirty_bytes
        .map(|b| format!("{} system-wide (all files)", format_bytes(b)));
    let known: Vec<String> = [target, system].into_iter().flatten().collect();
    if !known.is_empty() {
        let _ = writeln!(
            out,
            "written but not yet on the device when the I/O ended (dirty + writeback): {}",
            known.join("; ")
        );
    }
    match (&w.end_fsync_s, &w.end_fsync_error) {
        (Some(s), _) => {
            let _ = writeln!(
                out,
                "end fsync: {} to bring the target's pending writes to the device{}",
                format_latency_ns(s * 1e9),
                w.target_pending_bytes
                    .map(|b| format!(" ({} were pending)", format_bytes(b)))
                    .unwrap_or_default()
            );
        }
        (None, Some(e)) => {
            let _ = writeln!(out, "end fsync failed: {e}");
        }
        (None, None) => {}
    }
}
