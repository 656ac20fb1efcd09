//! The headless run: consume the engine's snapshots until the time is up or a signal arrives,
//! print a line per second (unless quiet or machine output), and build the `RunReport` with
//! its periods (the same `PeriodTracker` the TUI feeds; a headless run changes nothing, so it
//! has one) and its provenance, stamped when the run starts. Time here is run time: an
//! interval in which the process was stopped (SIGSTOP, Ctrl-Z) does not count toward `-T` or
//! the one-second rows. Each row is read beside the target's second (the kernel's counters
//! and the drive's temperature) and fed to the run's `why` under its period (the steady
//! check's windows are the periods'), whose findings and steady-state changes are printed as
//! they appear; `--until-steady` ends the run once steady. After a run that wrote, it looks
//! at what the page
//! cache still holds of the target and, with `--end-fsync`, times the final sync. Sweeps and
//! suites run their series of steps on the same live engine, the runner deciding each change.

use std::io::Write;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use crate::cli::Output;
use crate::engine::Engine;
use crate::model::health::DeviceHealth;
use crate::model::{ConfigReport, CpuReport, Meta, RunReport, SweepReport, WritebackReport};
use crate::render::baseline::Baseline;
use crate::render::{card, csv, sweep as sweep_text, text, why as why_text};
use crate::stats::{Snapshot, Window};
use crate::suite::{SuiteReport, SuiteRunner};
use crate::sweep::{Next, RAMP, SweepRunner, findings};
use crate::why::health::RunHealth;
use crate::why::{Live, WhyFacts, step_findings};
use crate::{output, signals};

mod rows;
use rows::{Rows, step_lines};

/// Length of a reporting interval.
pub const REPORT_EVERY: Duration = Duration::from_secs(1);

/// Feeds the engine's snapshots to `on` until the channel closes after the final one. `on`
/// gets the engine, the snapshot and whether a stop was asked already, and returns true to
/// ask for one; a termination signal asks too. Returns the last snapshot.
fn drive(
    engine: &mut Engine,
    mut on: impl FnMut(&mut Engine, &Snapshot, bool) -> bool,
) -> Option<Snapshot> {
    let mut stopping = false;
    let mut last = None;
    loop {
        match engine.snapshots().recv_timeout(Duration::from_millis(50)) {
            Ok(s) => {
                if on(engine, &s, stopping) && !stopping {
                    engine.request_stop();
                    stopping = true;
                }
                last = Some(s);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return last,
        }
        if !stopping && signals::received().is_some() {
            engine.request_stop();
            stopping = true;
        }
    }
}

/// What a run prints before its first result: the target, the drive's health at the start
/// and warnings (text), or the CSV header.
fn print_header(
    out: &mut impl Write,
    config: &ConfigReport,
    output: Output,
    csv_header: &str,
    health: Option<DeviceHealth>,
) {
    match output {
        Output::Text => {
            let _ = writeln!(out, "{}", text::header(config));
            for line in why_text::disk_lines(config) {
                let _ = writeln!(out, "  {line}");
            }
            if let Some(h) = health {
                let _ = writeln!(out, "  {}", crate::render::health::header_line(&h));
            }
            for w in &config.warnings {
                let _ = writeln!(out, "  warning: {w}");
            }
        }
        Output::Csv => {
            let _ = writeln!(out, "{csv_header}");
        }
        Output::Quiet | Output::Json => {}
    }
}

/// Runs `engine` for `duration` (or until a termination signal, or with `--until-steady`
/// until steady) and returns the report, with what `live` found.
pub fn run(
    mut engine: Engine,
    config: ConfigReport,
    duration: Duration,
    output: Output,
    live: Live,
) -> RunReport {
    let meta = Meta::now();
    let cpu_start = cpu_seconds();
    let mut out = output::stdout();
    print_header(
        &mut out,
        &config,
        output,
        &csv::header(),
        live.health_start(),
    );
    let mut window = Window::default();
    let mut rows = Rows::new(output, live);
    let mut next_row = REPORT_EVERY;
    // Real time of the intervals the process was stopped in: not run time.
    let mut stopped = Duration::ZERO;
    let mut steady_end = false;
    let last = drive(&mut engine, |_, s, stopping| {
        let run_s = s.at.saturating_sub(stopped).as_secs_f64();
        steady_end |= rows.take_in(s, &mut window, &mut out, run_s);
        if s.stopped.is_some() {
            stopped += s.interval_elapsed;
        }
        let run_time = s.at.saturating_sub(stopped);
        let stop = run_time >= duration || steady_end;
        // A row per second of run time; half a tick of slack absorbs timer jitter. Once
        // stopping, the last row waits for the final snapshot so the rows add up to the
        // totals without a sliver of a row at the end.
        if !stopping && !stop && run_time + Duration::from_millis(50) >= next_row {
            steady_end |= rows.emit(&mut window, &mut out, run_time.as_secs_f64(), false);
            next_row += REPORT_EVERY;
        }
        stop || steady_end
    });
    // The last row: the final second, or the part of one before a signal; after
    // `--until-steady`, what came as the engine stopped joins the row that ended it.
    if !rows.release(&mut window, &mut out) && window.snapshots > 0 {
        let run_s = last
            .as_ref()
            .map_or(0.0, |s| s.at.saturating_sub(stopped).as_secs_f64());
        rows.emit(&mut window, &mut out, run_s, true);
    }
    let last = last.expect("the engine always sends a final snapshot");
    let ios = last.total.ops + last.total_left_out.counts.ops;
    let cpu = CpuReport::between(cpu_start, cpu_seconds(), ios);
    let durability = config.durability;
    let run_s = last.at.saturating_sub(stopped).as_secs_f64();
    let periods = rows.periods.report();
    let mut report = RunReport::new(config, &last, rows.intervals)
        .with_meta(meta)
        .with_periods(periods);
    report.cpu = Some(cpu);
    report.why = rows.live.finish(run_s);
    let written = report.total.counts.write_bytes + report.left_out.counts.write_bytes;
    if written > 0 {
        report.writeback = Some(writeback(engine, durability.end_fsync));
    } else {
        engine.join();
    }
    report.interrupted_by = signals::received().map(|s| s.as_str().to_string());
    report
}

/// The process's user and system CPU seconds so far (getrusage; zero if it fails).
fn cpu_seconds() -> (f64, f64) {
    use nix::sys::resource::{UsageWho, getrusage};
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    getrusage(UsageWho::RUSAGE_SELF)
        .map(|u| (secs(u.user_time()), secs(u.system_time())))
        .unwrap_or_default()
}

/// Stops the engine, then measures what the page cache still holds of the written data and,
/// when asked, times one fdatasync of the target (fio's `end_fsync`).
fn writeback(engine: Engine, end_fsync: bool) -> WritebackReport {
    let io = engine.join_with_handle();
    let mut w = WritebackReport {
        system_dirty_bytes: system_dirty_bytes(),
        ..WritebackReport::default()
    };
    let mut io = match io {
        Ok(io) => io,
        Err(e) => {
            if end_fsync {
                w.end_fsync_error = Some(e);
            }
            return w;
        }
    };
    w.target_pending_bytes = io.pending_writeback_bytes();
    if end_fsync {
        let start = std::time::Instant::now();
        match io.sync_data() {
            Ok(()) => w.end_fsync_s = Some(start.elapsed().as_secs_f64()),
            Err(e) => w.end_fsync_error = Some(format!("fdatasync: {e}")),
        }
    }
    w
}

/// Dirty + Writeback of /proc/meminfo in bytes: written data of every file on the system not
/// yet on its device.
fn system_dirty_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        line[key.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    };
    Some((kib("Dirty:")? + kib("Writeback:")?) * 1024)
}

/// Carries out a series' decision on the engine (a sweep's next step, a suite's rest and
/// resume); returns true when the series is over: done, or a step's settings refused
/// (`failure` says why). Once stopping, nothing more is applied.
fn follow(engine: &mut Engine, next: Next, stopping: bool, failure: &mut Option<String>) -> bool {
    let applied = match next {
        _ if stopping => Ok(false),
        Next::Apply(settings) => engine.apply(settings).map(|()| false),
        Next::Rest(settings) => {
            engine.set_paused(true);
            engine.apply(settings).map(|()| false)
        }
        Next::Resume => {
            engine.set_paused(false);
            Ok(false)
        }
        Next::Done => Ok(true),
        Next::Continue => Ok(false),
    };
    applied.unwrap_or_else(|e| {
        *failure = Some(e);
        true
    })
}

/// Runs a sweep: each step's settings applied live when the previous step has been measured.
/// Prints a table row per step (text) and returns the report, with the drive's temperature
/// at each step's end and what the steps' settings crossed (`findings`). Fails only if a
/// step's settings cannot be applied (they were validated before the start, so this means
/// the engine failed).
pub fn run_sweep(
    mut engine: Engine,
    mut runner: SweepRunner,
    config: ConfigReport,
    output: Output,
    baseline: Option<&Baseline>,
    mut live: Live,
) -> anyhow::Result<SweepReport> {
    let meta = Meta::now();
    let mut out = output::stdout();
    let dimension = runner.spec().dimension;
    print_header(
        &mut out,
        &config,
        output,
        &csv::step_header(),
        live.health_start(),
    );
    if output == Output::Text {
        let _ = writeln!(
            out,
            "sweep of {} over {} steps, {:.1}s each after a {:.1}s ramp",
            dimension.name(),
            runner.steps().len(),
            config.duration_s.unwrap_or(0.0),
            crate::sweep::RAMP.as_secs_f64()
        );
        let _ = writeln!(out, "{}", sweep_text::step_header(dimension));
    }
    let mut failure = None;
    let mut temps = Vec::new();
    let last = drive(&mut engine, |engine, s, stopping| {
        let measured = runner.results().len();
        let next = runner.on_snapshot(s);
        if runner.results().len() > measured {
            temps.push(live.read_now());
        }
        step_lines(&mut out, output, &runner, measured, baseline);
        follow(engine, next, stopping, &mut failure)
    });
    engine.join();
    if let Some(e) = failure {
        anyhow::bail!("{}: sweep stopped: {e}", config.target.path);
    }
    let mut steps = runner.results().to_vec();
    for (step, t) in steps.iter_mut().zip(temps) {
        step.temp_c = t;
    }
    let (saturation, latency_curve) = findings(dimension, &steps, config.target.direct);
    let mut step_said = step_findings(&WhyFacts::of(&config), &steps);
    let run_s = last.as_ref().map_or(0.0, |s| s.at.as_secs_f64());
    let health = live.finish_health(run_s, &mut step_said);
    Ok(SweepReport {
        meta,
        saturation,
        latency_curve,
        partial_step: runner.partial(),
        dimension,
        step_time_s: config.duration_s.unwrap_or(0.0),
        errors: last.map(|s| s.first_errors).unwrap_or_default(),
        interrupted_by: signals::received().map(|s| s.as_str().to_string()),
        findings: step_said,
        until_steady: runner.steadies().to_vec(),
        health,
        config,
        steps,
    })
}

/// Runs a suite: each pass's settings applied live, the engine paused between passes. Prints
/// the header and a line per pass (text) and returns the card; the caller prints it. Fails
/// only if a pass's settings cannot be applied (they were checked before the start).
pub fn run_suite(
    mut engine: Engine,
    mut runner: SuiteRunner,
    config: ConfigReport,
    notes: Vec<String>,
    output: Output,
    mut health: Option<RunHealth>,
) -> anyhow::Result<SuiteReport> {
    let meta = Meta::now();
    let mut out = output::stdout();
    let plan = runner.plan().clone();
    if output == Output::Text {
        let name = plan.suite.name();
        let header = card::header(
            name,
            &config,
            plan.timing.passes,
            plan.timing.pause.as_secs_f64(),
        );
        let _ = writeln!(out, "{header}");
        for line in why_text::disk_lines(&config) {
            let _ = writeln!(out, "  {line}");
        }
        if let Some(h) = &health {
            let _ = writeln!(out, "  {}", crate::render::health::header_line(&h.start()));
        }
        for w in config.warnings.iter().filter(|w| !notes.contains(w)) {
            let _ = writeln!(out, "  warning: {w}");
        }
    }
    let mut failure = None;
    let last = drive(&mut engine, |engine, s, stopping| {
        let pass = runner.current();
        let next = runner.on_snapshot(s);
        if let (Some(p), Output::Text) = (pass, output)
            && runner.current() != Some(p)
            && let Some(f) = runner.card("").get(p.test).and_then(|t| {
                t.direction(p.direction)
                    .ok()
                    .and_then(|d| d.passes.last().cloned())
            })
        {
            let test = plan.tests()[p.test].name();
            let line = card::pass_line(&test, p.direction, p.pass + 1, plan.timing.passes, &f);
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
        follow(engine, next, stopping, &mut failure)
    });
    engine.join();
    if let Some(e) = failure {
        anyhow::bail!("{}: suite stopped: {e}", config.target.path);
    }
    let interrupted_by = signals::received().map(|s| s.as_str().to_string());
    let pending = match &interrupted_by {
        Some(sig) => format!("not run: the suite was stopped by {sig}"),
        None => "not run".to_string(),
    };
    let tests = runner.card(&pending);
    let run_s = last.as_ref().map_or(0.0, |s| s.at.as_secs_f64());
    let mut findings = crate::suite::card::findings(&config, &tests);
    let health = health.as_mut().map(|h| h.finish_into(run_s, &mut findings));
    Ok(SuiteReport {
        meta,
        suite: plan.suite,
        passes: plan.timing.passes,
        pass_time_s: plan.timing.pass_time.as_secs_f64(),
        ramp_s: RAMP.as_secs_f64(),
        pause_s: plan.timing.pause.as_secs_f64(),
        notes,
        findings,
        until_steady: runner.steadies().to_vec(),
        health,
        tests,
        errors: last.map(|s| s.first_errors).unwrap_or_default(),
        interrupted_by,
        config,
    })
}
