//! The fleet screen's loop (placeholder until the screen exists): runs headless.

use anyhow::Result;

use crate::fleet::{FleetReport, FleetSpec};
use crate::report::baseline::Baseline;

/// Runs the fleet with its screen.
pub fn run(spec: &FleetSpec, _baseline: Option<&Baseline>) -> Result<FleetReport> {
    let stop = || crate::signals::received().is_some();
    crate::fleet::front::headless(spec, crate::cli::Output::Text, &stop)
}
