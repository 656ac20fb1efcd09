//! Several targets at once without the TUI: the baseline read first, every target checked
//! and prepared (all or none, `disks::prepare`), their engines run together — or each alone,
//! then all together with `--each-then-all` — with a line a second (text) or a row per
//! target and second (CSV), then the summary or the JSON, the comparison with the baseline,
//! the saved files, and the exit status (3 when any target's I/O failed).

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use anyhow::{Result, anyhow};

use super::DEFAULT_HEADLESS_TIME;
use crate::cli::{Config, Output};
use crate::disks::together::{self, Member, Plan, Progress};
use crate::disks::{identify, prepare::prepare_all};

use crate::exit::ExitStatus;
use crate::model::disks::{DisksConfig, DisksReport};
use crate::model::latency_basis;
use crate::render::disks::{self as text, csv_header, csv_row};
use crate::render::disks_compare::compare;
use crate::results::export::Export;
use crate::target::parent::{chain_of, device_of_file, shared};
use crate::target::prepare::{Prepared, TargetRequest};
use crate::why::health::RunHealth;
use crate::{output, signals};

/// Runs the targets `config` names, together.
pub fn run(config: &Config) -> Result<ExitStatus> {
    signals::install();
    // Known now: a terminal that hangs up during the run no longer says it is one.
    let on_terminal = std::io::stdout().is_terminal();
    match (config.baseline_differs(), config.output) {
        (Some(line), Output::Text) => output::print(&(line + "\n")),
        (Some(line), Output::Json | Output::Csv) => output::say(&line),
        _ => {}
    }
    let requests = requests(config);
    let mut progress = super::local::layout_progress();
    let prepared = match prepare_all(&requests, &mut |_, d, t| progress(d, t)) {
        Ok(p) => p,
        Err(_) if signals::received().is_some() => {
            output::say("interrupted; the partial scratch file was removed");
            return Ok(ExitStatus::left());
        }
        Err(e) => return Err(e),
    };
    if config.drop_cache {
        for p in &prepared {
            crate::target::cache::drop_cache(p.target.main_fd()).map_err(|e| {
                anyhow!(
                    "{}: cannot drop its cached pages: {e}",
                    p.target.path.display()
                )
            })?;
        }
    }
    if let Some(sig) = signals::received() {
        return Ok(ExitStatus::Signal(sig));
    }
    let members = members(config, &prepared);
    let report = measure(config, &members)?;
    let io_errors = report.had_io_errors();
    finish(config, report, on_terminal)?;
    drop(prepared);
    Ok(ExitStatus::after_run(io_errors))
}

/// What `target::prepare` makes ready, one per target, with the same flags.
pub fn requests(config: &Config) -> Vec<TargetRequest> {
    config
        .targets
        .iter()
        .map(|t| TargetRequest {
            target: Some(t.clone()),
            ..config.target_request()
        })
        .collect()
}

/// Each prepared target with who it is for the tables.
pub fn members(config: &Config, prepared: &[Prepared]) -> Vec<Member> {
    let sys = crate::sys::sysfs_root();
    prepared
        .iter()
        .zip(&config.targets)
        .map(|(p, given)| Member {
            target: Arc::clone(&p.target),
            id: identify(
                &p.target,
                &given.display().to_string(),
                config.describe(p),
                &sys,
            ),
        })
        .collect()
}

/// What every target ran, for the report.
pub fn disks_config(config: &Config, members: &[Member]) -> DisksConfig {
    let first = members.first().map(|m| &m.id.config);
    DisksConfig {
        targets: config
            .targets
            .iter()
            .map(|t| t.display().to_string())
            .collect(),
        settings: config.settings,
        duration_s: config
            .duration
            .or(Some(DEFAULT_HEADLESS_TIME))
            .map(|d| d.as_secs_f64()),
        ioengine: config.ioengine.unwrap_or_default(),
        ioengine_fallback: config.ioengine_fallback.clone(),
        direct: config.direct,
        write_allowed: first.is_some_and(|c| c.target.write_allowed),
        outlier_pct: config.outlier_pct,
        each_then_all: config.each_then_all,
        latency_basis: latency_basis(config.settings.rate_iops).into(),
    }
}

/// What the run prints as it goes: the header, then a line a second (text) or a row per
/// target and second (CSV); a line when a phase of `--each-then-all` begins.
struct Lines {
    output: Output,
    out: output::Stdout,
    /// The targets of the phase running.
    names: Vec<String>,
    /// How many targets there are in all: CSV rows are of the together phase only.
    all: usize,
}

impl Lines {
    fn start(
        config: &Config,
        disks: &DisksConfig,
        members: &[Member],
        health: &[RunHealth],
    ) -> Lines {
        let names: Vec<String> = members.iter().map(|m| m.id.name.clone()).collect();
        let mut out = output::stdout();
        match config.output {
            Output::Text => {
                let _ = writeln!(out, "{}", text::header(disks, &names));
                for (m, h) in members.iter().zip(health) {
                    let line = crate::render::health::header_line(&h.start());
                    let _ = writeln!(out, "  {}: {line}", m.id.name);
                }
                for m in members {
                    for w in &m.id.config.warnings {
                        let _ = writeln!(out, "  warning: {}: {w}", m.id.name);
                    }
                }
            }
            Output::Csv => {
                let _ = writeln!(out, "{}", csv_header());
            }
            Output::Quiet | Output::Json => {}
        }
        Lines {
            output: config.output,
            out,
            all: names.len(),
            names,
        }
    }

    fn on(&mut self, p: Progress) {
        let out = &mut self.out;
        match (p, self.output) {
            (Progress::Phase(ms), output) => {
                self.names = ms.iter().map(|m| m.id.name.clone()).collect();
                if output == Output::Text {
                    let what = if ms.len() == 1 {
                        "alone"
                    } else {
                        "all together"
                    };
                    let _ = writeln!(out, "{}: {what}", self.names.join(" "));
                }
            }
            (Progress::Second(rows, all), Output::Text) => {
                let _ = writeln!(out, "{}", text::second_line(&self.names, rows, all));
            }
            (Progress::Second(rows, all), Output::Csv) if self.names.len() == self.all => {
                for (n, r) in self.names.iter().zip(rows) {
                    if let Some(r) = r {
                        let _ = writeln!(out, "{}", csv_row(n, r));
                    }
                }
                let _ = writeln!(out, "{}", csv_row("all", all));
            }
            _ => {}
        }
        let _ = out.flush();
    }
}

/// How every target runs, from the command line.
fn plan(config: &Config) -> Plan {
    Plan {
        settings: config.settings,
        options: config.engine_options(),
        duration: config.duration.unwrap_or(DEFAULT_HEADLESS_TIME),
        outlier_pct: config.outlier_pct,
    }
}

/// Runs the members (together, or each alone then all) and builds the report, printing the
/// lines `config.output` asks for as it goes.
fn measure(config: &Config, members: &[Member]) -> Result<DisksReport> {
    let disks = disks_config(config, members);
    let mut health = read_health(members);
    let mut lines = Lines::start(config, &disks, members, &health);
    let mut on = |p: Progress| lines.on(p);
    let plan = plan(config);
    let refs: Vec<&Member> = members.iter().collect();
    let stop = || signals::received().is_some();
    let meta = crate::model::Meta::now();
    let mut report = DisksReport {
        meta: Default::default(),
        disks,
        targets: vec![],
        aggregate: empty_aggregate(members.len()),
        outliers: vec![],
        alone: None,
        findings: vec![],
        interrupted_by: None,
        cpu: None,
    };
    let together = if config.each_then_all {
        let parents = shared_parents(members);
        let e = together::each_then_all(&refs, &plan, parents, &stop, &mut on)
            .map_err(anyhow::Error::msg)?;
        report.alone = Some(e.alone);
        report.findings = e.findings;
        e.together
    } else {
        Some(together::run(&refs, &plan, &stop, &mut on).map_err(anyhow::Error::msg)?)
    };
    if let Some(t) = together {
        report.targets = t.report.targets;
        report.aggregate = t.report.aggregate;
        report.outliers = t.report.outliers;
        // The outliers first, then alone against together.
        report.findings = [t.report.findings, std::mem::take(&mut report.findings)].concat();
        report.cpu = Some(t.cpu);
    }
    health_around(&mut report, &mut health);
    report.interrupted_by = signals::received().map(|s| s.as_str().to_string());
    report.stamp(meta);
    Ok(report)
}

/// Each target's drive health, read side by side before the first I/O and each minute.
fn read_health(members: &[Member]) -> Vec<RunHealth> {
    std::thread::scope(|s| {
        let handles: Vec<_> = members
            .iter()
            .map(|m| s.spawn(|| RunHealth::for_target(&m.target.path)))
            .collect();
        handles
            .into_iter()
            .zip(members)
            .map(|(h, m)| {
                h.join()
                    .unwrap_or_else(|_| RunHealth::for_target(&m.target.path))
            })
            .collect()
    })
}

/// Each target's health read again at the end, kept in its run (`health`, its findings);
/// what reads as failing, worn or moved is said in the report's findings too, by the names
/// of the targets on that drive (targets on one drive share one sentence).
fn health_around(report: &mut DisksReport, health: &mut [RunHealth]) {
    use crate::model::finding::kind;
    // (drive, finding, names of the targets on it)
    let mut named: Vec<(String, crate::model::finding::Finding, Vec<String>)> = Vec::new();
    for (t, h) in report.targets.iter_mut().zip(health.iter_mut()) {
        let run_s = t.run.total.elapsed_s;
        let around = h.finish_into(run_s, &mut t.run.why.findings);
        let drive = around
            .start
            .as_ref()
            .map(|r| r.device.clone())
            .unwrap_or_default();
        t.run.why.health = Some(around);
        let judged = t
            .run
            .why
            .findings
            .iter()
            .filter(|f| f.kind.starts_with("health_") && f.kind != kind::HEALTH_NOT_NEW);
        for f in judged {
            match named
                .iter_mut()
                .find(|(d, g, _)| *d == drive && g.text == f.text)
            {
                Some((_, _, names)) => names.push(t.name.clone()),
                None => named.push((drive.clone(), f.clone(), vec![t.name.clone()])),
            }
        }
    }
    for (_, mut f, names) in named {
        f.text = format!("{}: {}", names.join(", "), f.text);
        report.findings.push(f);
    }
}

/// The aggregate of nothing: a run stopped before its together phase.
fn empty_aggregate(targets: usize) -> crate::model::disks::Aggregate {
    crate::model::disks::Aggregate {
        targets,
        elapsed_s: 0.0,
        counts: Default::default(),
        iops: 0.0,
        bw_bytes_per_s: 0.0,
        latency_ns: Default::default(),
        service_latency_ns: Default::default(),
        median_iops: 0.0,
        cpu_busy_pct: None,
        intervals: vec![],
        sides: None,
    }
}

/// The sentences naming what the targets share in the device tree.
pub fn shared_parents(members: &[Member]) -> Vec<String> {
    let sys = crate::sys::sysfs_root();
    let chains: Vec<(String, Option<_>)> = members
        .iter()
        .map(|m| {
            let chain =
                m.id.device
                    .as_deref()
                    .and_then(|d| chain_of(&sys, d, &device_of_file));
            (m.id.name.clone(), chain)
        })
        .collect();
    shared(&chains)
}

/// Prints the result, compares it with the baseline and saves it: to the files asked for,
/// and to the state directory when its output reached no one (the terminal hung up) and no
/// `--json FILE` holds it, as a single run's is.
fn finish(config: &Config, r: DisksReport, on_terminal: bool) -> Result<()> {
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&r)? + "\n")),
        Output::Csv => {}
        Output::Text | Output::Quiet => output::print(&text::summary(&r)),
    }
    if let (Some(b), Output::Text | Output::Quiet) = (&config.baseline, config.output) {
        output::print(&compare(&b.baseline, b.periods.len(), &r));
    }
    super::local::save_and_keep(config, on_terminal, Export::Disks(Box::new(r)))
}
