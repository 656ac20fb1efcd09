//! `--surface[=quick|restart]` without the TUI: the target prepared read-only (every check a
//! run makes), the scan run with a progress line and ETA on a terminal's stderr, stopped by
//! Ctrl-C or SIGTERM (a full scan is then kept to resume), the map, the slowest regions, the
//! read errors and the findings printed as text or JSON, and the chart saved with `--plot`.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::{Result, anyhow};

use crate::cli::{Config, Output};
use crate::exit::ExitStatus;
use crate::model::Meta;
use crate::model::surface::{SurfaceDoc, SurfaceReport};
use crate::surface::judge::findings;
use crate::surface::scan::Progress;
use crate::surface::session::{self, SurfaceAsk, request};
use crate::target::prepare::prepare;
use crate::target::shell::quote_path;
use crate::units::{format_bytes, format_duration};
use crate::{output, render, signals};

/// What `--surface` cannot go with beyond the flags it does not use, refused in one line. `tui`: the screen is drawn,
/// where without TARGET the picker asks which disk.
pub fn check(config: &Config, tui: bool) -> Result<()> {
    // The scan never writes: it reads what is there, so there must be something to read, not
    // a scratch file it would first have to lay out.
    let scratch_why = match &config.target {
        None if !tui => Some("without TARGET it would read a scratch file it first writes"),
        Some(t) if t.is_dir() => Some("a directory would get a scratch file, written first"),
        _ => None,
    };
    if let Some(why) = scratch_why {
        let at = config
            .target
            .as_deref()
            .unwrap_or(std::path::Path::new("."));
        return Err(crate::exit::Refused(format!(
            "{}: --surface reads what a disk or file already holds, and {why}; name the device (diskscope --list shows them) or a file",
            quote_path(at)
        ))
        .into());
    }
    // The flags it does not use are refused with the command line (`cli::modes`).
    if config.targets.len() > 1 {
        return Err(crate::exit::Refused(
            "--surface reads one target in order and cannot go with several targets (scan one disk at a time); drop one of them".into(),
        )
        .into());
    }
    Ok(())
}

/// The progress line on stderr: updated in place once a second on a terminal; a line a
/// minute otherwise (a log of an hours-long scan under nohup or systemd says how far it is).
fn progress_line() -> impl FnMut(&SurfaceReport, &Progress) -> bool {
    let tty = std::io::stderr().is_terminal();
    let every_s = if tty { 1.0 } else { 60.0 };
    let mut last_s = 0.0;
    move |_report, p| {
        if p.elapsed_s - last_s >= every_s {
            last_s = p.elapsed_s;
            let eta = p
                .eta_s()
                .map(|s| format_duration(std::time::Duration::from_secs_f64(s)))
                .unwrap_or_else(|| "…".into());
            let pct = p.done_bytes as f64 * 100.0 / p.total_bytes.max(1) as f64;
            let (start, end) = if tty { ("\r", "   ") } else { ("", "\n") };
            output::to_stderr(&format!(
                "{start}  {} of {} ({pct:.1}%), {} MB/s, {eta} left{end}",
                format_bytes(p.done_bytes),
                format_bytes(p.total_bytes),
                render::card::mb(p.done_bytes as f64 / p.elapsed_s.max(1e-9) / 1e6)
            ));
        }
        signals::received().is_none()
    }
}

/// `--surface`: scans, prints, saves.
pub fn run(config: &Config, ask: SurfaceAsk) -> Result<ExitStatus> {
    signals::install();
    let mut target_request = config.target_request();
    // Read-only whatever else was allowed: the scan never writes.
    target_request.allow_write = None;
    let prepared = prepare(&target_request, &mut super::local::layout_progress())?;
    let target = &prepared.target;
    for w in &target.warnings {
        output::say(&format!("note: {w}"));
    }
    let ready = session::ready(target, request(ask, config.scan_shape()))?;
    if let Some((path, at)) = &ready.resumed {
        output::say(&format!(
            "resuming the scan stopped at {} (kept in {}; --surface=restart starts over)",
            format_bytes(*at),
            quote_path(path)
        ));
    }
    let outcome = ready.run(target, &mut progress_line())?;
    if std::io::stderr().is_terminal() {
        output::to_stderr("\n");
    }
    let found = findings(&outcome.report, target);
    let resume_file = outcome.kept.as_ref().map(|p| p.display().to_string());
    let doc = SurfaceDoc {
        meta: Meta::now(),
        surface: outcome.report,
        findings: found,
        resume_file,
    };
    print(config.output, &doc)?;
    if let Some(path) = &outcome.kept {
        output::say(&format!(
            "stopped at {} of {}: the same command resumes it (kept in {})",
            format_bytes(doc.surface.resumed_from.unwrap_or(0).max(done_to(&doc))),
            format_bytes(doc.surface.map.span_bytes),
            quote_path(path)
        ));
    }
    if let Some(e) = &outcome.keep_error {
        output::say(&format!(
            "the stopped scan could not be kept to resume: {e}"
        ));
    }
    save(config, &doc)?;
    Ok(ExitStatus::after_run(!doc.surface.errors.is_empty()))
}

/// How far the map is read: the end of the last region marked.
fn done_to(doc: &SurfaceDoc) -> u64 {
    let map = &doc.surface.map;
    let last = map.cells.iter().rposition(|c| *c != Default::default());
    last.map_or(0, |i| {
        let (start, len) = map.region_range(i);
        start + len
    })
}

fn print(out: Output, doc: &SurfaceDoc) -> Result<()> {
    match out {
        Output::Json => output::print(&(serde_json::to_string_pretty(doc)? + "\n")),
        Output::Csv => output::print(&render::surface::csv(&doc.surface)),
        Output::Text | Output::Quiet => {
            output::print(&render::surface::report(&doc.surface, &doc.findings))
        }
    }
    Ok(())
}

/// `--json FILE`, `--csv FILE` and `--plot FILE.svg`.
fn save(config: &Config, doc: &SurfaceDoc) -> Result<()> {
    let write = |path: &Path, text: &str| {
        crate::results::file::place(path, text, crate::results::file::Place::Replace)
            .map_err(|e| anyhow!("{}: cannot save: {e}", quote_path(path)))
    };
    if let Some(p) = config.files.json.as_deref() {
        write(p, &(serde_json::to_string_pretty(doc)? + "\n"))?;
    }
    if let Some(p) = config.files.csv.as_deref() {
        write(p, &render::surface::csv(&doc.surface))?;
    }
    if let Some(p) = config.files.plot.as_deref() {
        write(p, &render::chart::surface::svg(&doc.surface))?;
    }
    Ok(())
}
