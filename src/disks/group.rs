//! Many engines as one: an `Engine` per target, unchanged, all started with the same
//! settings and changed together. A change is checked against every target first (each
//! one's geometry, and the limits of all of them together), so it reaches all or none; each
//! engine then cuts its own interval at the change, so no interval of any target mixes two
//! settings. The group knows nothing of screens or reports: each engine hands its snapshots
//! to the sink the caller made for it.

use std::sync::Arc;

use crate::engine::memory::buffer_limit;
use crate::engine::{Engine, Geometry, Options, SnapshotSink};
use crate::settings::{MAX_THREADS, Settings};
use crate::target::open::Target;

/// Whether `targets` engines of `s` may run at once: the thread limit and the buffer limit
/// cover all of them together (each target has its own threads × depth of buffers).
pub fn check_together(targets: usize, s: &Settings) -> Result<(), String> {
    let workers = targets.saturating_mul(s.threads);
    if targets > 1 && workers > MAX_THREADS {
        return Err(format!(
            "{targets} targets × {} threads are {workers} workers, over the {MAX_THREADS} a run may have; \
             use -t {} or fewer",
            s.threads,
            MAX_THREADS / targets
        ));
    }
    buffer_limit()
        .check_engines(targets, s.threads, s.iodepth, s.bs)
        .map_err(|e| match targets {
            1 => e,
            n => format!("{n} targets together: {e}"),
        })
}

/// The engines of a multi-target run.
pub struct Group {
    engines: Vec<Engine>,
    names: Vec<String>,
    geometries: Vec<Geometry>,
    settings: Settings,
}

impl Group {
    /// Starts an engine on each target with `settings`, each handing its snapshots to the
    /// sink `sink(i)` makes. Fails naming the target when one cannot start; the engines
    /// started before it are stopped, so nothing is left running.
    pub fn start(
        targets: &[Arc<Target>],
        settings: Settings,
        options: Options,
        mut sink: impl FnMut(usize) -> Box<dyn SnapshotSink>,
    ) -> Result<Group, String> {
        check_together(targets.len(), &settings)?;
        let names: Vec<String> = targets
            .iter()
            .map(|t| t.path.display().to_string())
            .collect();
        let geometries: Vec<Geometry> = targets.iter().map(|t| t.geometry()).collect();
        for (g, name) in geometries.iter().zip(&names) {
            g.validate(&settings).map_err(|e| format!("{name}: {e}"))?;
        }
        let mut engines = Vec::with_capacity(targets.len());
        for (i, t) in targets.iter().enumerate() {
            match Engine::start_with_sink(t.clone(), t.geometry(), settings, options, sink(i)) {
                Ok(e) => engines.push(e),
                Err(e) => {
                    for started in engines {
                        started.join();
                    }
                    return Err(format!("{}: {e}", names[i]));
                }
            }
        }
        Ok(Group {
            engines,
            names,
            geometries,
            settings,
        })
    }

    /// How many targets.
    pub fn len(&self) -> usize {
        self.engines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.engines.is_empty()
    }

    /// The settings every target runs.
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// Changes every target's settings, live. Every engine is prepared first (the settings
    /// checked against its target, the descriptors its new threads need opened), so a setting
    /// or a descriptor one target cannot take changes none; should an engine still fail (a
    /// thread that cannot start), the targets already changed go back to the old settings.
    pub fn apply(&mut self, settings: Settings) -> Result<(), String> {
        check_together(self.len(), &settings)?;
        for (g, name) in self.geometries.iter().zip(&self.names) {
            g.validate(&settings).map_err(|e| format!("{name}: {e}"))?;
        }
        let prepared = (self.engines.iter().zip(&self.names))
            .map(|(e, name)| e.prepare(settings).map_err(|e| format!("{name}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let old = self.settings;
        for (i, p) in prepared.into_iter().enumerate() {
            if let Err(e) = self.engines[i].apply_prepared(p) {
                for engine in &mut self.engines[..=i] {
                    let _ = engine.apply(old);
                }
                return Err(format!("{}: {e}", self.names[i]));
            }
        }
        self.settings = settings;
        Ok(())
    }

    /// Pauses or resumes every target.
    pub fn set_paused(&mut self, paused: bool) {
        for e in &mut self.engines {
            e.set_paused(paused);
        }
    }

    /// Waits (at most `timeout` each) until every engine has carried out what it was sent:
    /// after `set_paused(true)`, until all workers are parked.
    pub fn settle(&self, timeout: std::time::Duration) {
        for e in &self.engines {
            e.settle(timeout);
        }
    }

    /// Zeroes every target's cumulative statistics.
    pub fn reset_stats(&self) {
        for e in &self.engines {
            e.reset_stats();
        }
    }

    /// Asks every engine to stop; each sends its last snapshot, then its sink's `done`.
    pub fn request_stop(&self) {
        for e in &self.engines {
            e.request_stop();
        }
    }

    /// Stops every engine and waits for it.
    pub fn join(self) {
        self.request_stop();
        for e in self.engines {
            e.join();
        }
    }
}
