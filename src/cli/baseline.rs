//! The baseline with the arguments: `--baseline FILE` read before anything runs and refused
//! (a bad-arguments exit) when this mode cannot compare with what it holds
//! (`render::compare::fits`), and what this run will measure (`Config::conditions`), so the
//! front door can say what the baseline measured differently before the run.

use super::Args;
use super::config::Config;
use crate::render::baseline::BaselineFile;
use crate::render::compare::{Wants, fits};
use crate::render::conditions::{Conditions, differ_line};
use crate::settings::IoEngine;

impl Config {
    /// What this run will measure, as far as a baseline's comparison needs it: before the
    /// target is opened, so the target is the path given (or the scratch file's); a sweep
    /// leaves out the knob it varies, a suite all but what its tests share.
    pub fn conditions(&self) -> Conditions {
        let target = match crate::target::prepare::scratch_dir(self.target.as_deref()) {
            Some(dir) => dir.join(crate::target::prepare::SCRATCH_NAME),
            None => self.target.clone().unwrap_or_default(),
        };
        let mut c = Conditions::of_settings(
            &self.settings,
            self.ioengine.map(IoEngine::name),
            &target.display().to_string(),
            self.direct,
        );
        c.fsync_every = Some(self.durability.fsync_every);
        if self.targets.len() > 1 {
            // Several targets compare by name, each with its own; no one path to set against.
            c.target = None;
        }
        if self.suite.is_some() {
            return c.of_card();
        }
        match &self.sweep {
            Some(spec) => c.without(spec.dimension.name()),
            None => c,
        }
    }

    /// The line saying what the baseline measured differently from this run, if it did.
    pub fn baseline_differs(&self) -> Option<String> {
        let b = &self.baseline.as_ref()?.baseline;
        differ_line(b.label(), &b.conditions(), &self.conditions())
    }
}

/// `--baseline FILE` read before anything runs, and refused (a bad-arguments exit) when this
/// mode cannot compare with what it holds: a sweep with a sweep of the same knob, a suite
/// with a card, a run or a fleet with a run or a fleet; a mode that runs nothing with none.
pub(super) fn check_baseline(a: &Args) -> Result<Option<BaselineFile>, String> {
    let Some(path) = &a.output.baseline else {
        return Ok(None);
    };
    let shown = crate::units::visible(&path.display().to_string()).into_owned();
    let runs_nothing = [
        ("--show", a.output.show.is_some()),
        ("--fio", a.output.fio),
        ("--list", a.other.list),
        ("--completions", a.other.completions.is_some()),
        ("--man", a.other.man),
    ];
    if let Some((flag, _)) = runs_nothing.iter().find(|(_, given)| *given) {
        return Err(format!(
            "--baseline {shown} compares a run with a saved result, and {flag} runs nothing; drop one of them"
        ));
    }
    let b = BaselineFile::load(path)?;
    let wants = if a.series.suite.is_some() {
        Wants::Suite
    } else if let Some(spec) = &a.series.sweep {
        Wants::Sweep(spec.dimension)
    } else if a.fleet.fleet.is_some() {
        Wants::Fleet
    } else if a.targets.len() > 1 {
        Wants::Disks
    } else {
        Wants::Run
    };
    fits(&b.baseline, wants, path)?;
    Ok(Some(b))
}
