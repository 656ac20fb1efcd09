//! The surface screen's state: the scan of one target as it fills in (the report so far and
//! where the scan stands), whether it runs, is paused or finished, its findings once it
//! ends, and the run screen it was opened from (its engine paused meanwhile), to go back to.
//! No clock and no I/O: the session feeds it the scan's progress.

use crate::model::finding::Finding;
use crate::model::surface::{ScanKind, SurfaceReport};
use crate::surface::scan::Progress;

use super::Run;

/// One surface scan on screen.
#[derive(Debug, Clone)]
pub struct SurfaceView {
    /// The target's path as shown.
    pub target: String,
    pub kind: ScanKind,
    /// The report so far (`None` before the first progress).
    pub report: Option<SurfaceReport>,
    pub progress: Option<Progress>,
    /// A scan is running.
    pub scanning: bool,
    /// Stopped by `p`: a full scan is kept and `p` resumes it.
    pub paused: bool,
    /// What the findings say, once the scan stopped or ended.
    pub findings: Vec<Finding>,
    /// An error or what happened last (the status line).
    pub message: Option<String>,
    /// The run screen this scan was opened from (`S` there): Esc goes back to it.
    pub from_run: Option<Box<Run>>,
    /// Leaving was asked: the scan is stopping, then the session ends.
    pub quitting: bool,
    /// The screen runs surface scans (opened by `S` or `--surface`): `p` resumes a kept full
    /// scan, `x` and `R` start one. False for a burn-in shown on it, which starts no scan.
    pub scans: bool,
    /// Opened from the picker: Esc goes back to it.
    pub from_picker: bool,
}

impl SurfaceView {
    /// A scan of `target` about to start.
    pub fn new(target: String, kind: ScanKind) -> SurfaceView {
        SurfaceView {
            target,
            kind,
            report: None,
            progress: None,
            scanning: true,
            paused: false,
            findings: Vec::new(),
            message: None,
            from_run: None,
            quitting: false,
            scans: false,
            from_picker: false,
        }
    }

    /// A surface scan's screen (not a burn-in's): `p`, `x` and `R` start scans.
    pub fn scanning_screen(target: String, kind: ScanKind) -> SurfaceView {
        SurfaceView {
            scans: true,
            ..SurfaceView::new(target, kind)
        }
    }

    /// The scan's report and progress, ~10 times a second.
    pub fn update(&mut self, report: SurfaceReport, progress: Progress) {
        self.report = Some(report);
        self.progress = Some(progress);
    }

    /// The scan ended (or stopped) with `report` and what it says.
    pub fn finished(&mut self, report: SurfaceReport, findings: Vec<Finding>) {
        self.scanning = false;
        if let Some(p) = &mut self.progress
            && report.complete
        {
            p.done_bytes = p.total_bytes;
        }
        self.report = Some(report);
        self.findings = findings;
    }

    /// Whether the screen may start a scan (none runs, none is stopping).
    pub fn idle(&self) -> bool {
        !self.scanning && !self.quitting
    }

    /// Whether the screen may start a scan and is a scan's screen (a burn-in's starts none).
    pub fn may_scan(&self) -> bool {
        self.scans && self.idle()
    }

    /// A full scan stopped by `p` before its end, kept to resume: `p` resumes it. A finished
    /// scan is not resumed (that would start over and lose its map); `R` rescans it.
    pub fn resumable(&self) -> bool {
        self.may_scan()
            && self.paused
            && self.kind == ScanKind::Full
            && !self.report.as_ref().is_some_and(|r| r.complete)
    }

    /// Whether Esc has somewhere to go back to: the run or the picker it was opened from.
    pub fn can_go_back(&self) -> bool {
        self.from_run.is_some() || self.from_picker
    }

    /// Bytes of the whole plan done and in all: a resumed full scan counts from the start of
    /// the span, not from where this session began; a finished scan is all done.
    pub fn overall(&self) -> Option<(u64, u64)> {
        let r = self.report.as_ref()?;
        let span = r.map.span_bytes;
        match (self.kind, self.progress) {
            _ if r.complete && !self.scanning => Some(match self.kind {
                ScanKind::Full => (span, span),
                ScanKind::Quick => (r.bytes_read, r.bytes_read),
            }),
            (ScanKind::Full, Some(p)) => {
                let start = r.resumed_from.unwrap_or(0);
                Some(((start + p.done_bytes).min(span), span))
            }
            (ScanKind::Quick, Some(p)) => Some((p.done_bytes, p.total_bytes)),
            (_, None) => Some((r.bytes_read, span)),
        }
    }
}
