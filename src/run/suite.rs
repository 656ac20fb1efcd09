//! The front door of `--suite`: the plan for this target (writes only when allowed, depth 1
//! on psync), the tests checked against the target before anything runs, what the card must
//! say about what it measured, then the run, the card, the baseline and the saved files. And
//! `--suite --fio`: one fio job file reproducing the whole suite.

use anyhow::{Result, anyhow};

use super::local::start_engine;
use crate::cli::{Config, Output};
use crate::engine::Geometry;
use crate::engine::memory::ram_bytes;
use crate::model::ConfigReport;
use crate::render::baseline::BaselineFile;
use crate::render::compare::{compare_meta, compare_suite};
use crate::render::{card, csv};
use crate::results::export::Export;
use crate::suite::{Plan, SuiteName, SuiteRunner, notes, write_refusal};
use crate::target::prepare::Prepared;
use crate::why::health::RunHealth;
use crate::{headless, output};

/// The plan of `name` on the target `c` describes, with the config's timing, engine and
/// polling.
pub fn plan(config: &Config, name: SuiteName, c: &ConfigReport) -> Plan {
    Plan::new(name, config.suite_timing, write_refusal(c), c.ioengine).polled(c.settings.hipri)
}

/// Checks every pass's settings against the target; the error names the test.
pub fn check(plan: &Plan, geometry: &Geometry, target: &str) -> Result<()> {
    for p in &plan.passes {
        let s = plan.settings(p.test, p.direction);
        geometry.validate(&s).map_err(|e| {
            let name = plan.tests()[p.test].name();
            anyhow!("{target}: suite {} test {name}: {e}", plan.suite.name())
        })?;
    }
    Ok(())
}

/// A headless suite; returns whether any pass had I/O errors.
pub fn run(
    config: &Config,
    name: SuiteName,
    prepared: &Prepared,
    baseline: Option<&BaselineFile>,
    on_terminal: bool,
) -> Result<bool> {
    let info = config.describe(prepared);
    let plan = plan(config, name, &info);
    check(&plan, &prepared.target.geometry(), &info.target.path)?;
    let runner = SuiteRunner::new(plan).until_steady(super::local::until_steady(config));
    let mut info = info.with_settings(runner.first());
    info.duration_s = Some(config.suite_timing.pass_time.as_secs_f64());
    let notes = notes(&info, ram_bytes());
    let health = RunHealth::for_target(&prepared.target.path);
    let engine = start_engine(config, prepared, runner.first())?;
    let report = headless::run_suite(engine, runner, info, notes, config.output, Some(health))?;
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
        Output::Csv => {
            output::print(&csv::suite(&report));
        }
        Output::Text | Output::Quiet => output::print(&card::card(&report)),
    }
    if let (Some(b), Output::Text | Output::Quiet) = (baseline, config.output) {
        output::print(&compare_suite(&b.baseline, &report));
        output::print(&compare_meta(b.baseline.label(), &b.meta, &report.meta));
    }
    let errors = report.had_io_errors();
    super::local::save_and_keep(config, on_terminal, Export::Suite(Box::new(report)))?;
    Ok(errors)
}
