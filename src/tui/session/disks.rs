//! The controller's part for several targets at once: every target checked and prepared on
//! a background thread (all or none), their engines started as one `Group`, each engine's
//! snapshots put on the group's clock and cut into shared seconds for the disks screen, the
//! kernel's counters read once per shared second for every target's %util and run screen,
//! the sliders, pause and reset carried to every engine, `e`'s export of the run so far, and
//! at the end the report of all of them. Which events need a redraw is decided here: a
//! snapshot of the target shown, of the first target (which paces the live sum, ten times a
//! second), or one that completed a second; not the other targets' snapshots in between.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Result, anyhow};

use super::{Outcome, Session};
use crate::disks::clock::{Clock, SharedSeconds};
use crate::disks::collect::{Finish, kernel_count};
use crate::disks::cpu::CpuTimes;
use crate::disks::{Group, Identity, identify, prepare::prepare_all};
use crate::diskstats::{self, DiskCounters, KernelRates};

use crate::model::disks::{DisksConfig, DisksReport};
use crate::model::latency_basis;
use crate::render::files;
use crate::results::export::{Export, write_export, write_export_chart};
use crate::signals;
use crate::stats::Snapshot;
use crate::target::prepare::{Prepared, TargetRequest};
use crate::tui::action::Action;
use crate::tui::event::{DiskSink, Event};
use crate::tui::state::{App, Disks, Preparing, Run, Screen};

/// What the session drives while several targets run.
pub(crate) struct DisksSession {
    group: Option<Group>,
    shared: SharedSeconds,
    /// Held for the run: the targets' descriptors, scratch files and locks.
    _prepared: Vec<Prepared>,
    config: DisksConfig,
    identities: Vec<Identity>,
    /// /proc/diskstats at the start or the last reset, for each device's count over the
    /// same time as its ops.
    kernel_start: Vec<(String, DiskCounters)>,
    /// The last reading, for the rates of the next second.
    kernel_prev: Option<(Instant, Vec<(String, DiskCounters)>)>,
    cpu_start: Option<CpuTimes>,
    done: usize,
    /// What made the run, from its start.
    meta: crate::model::Meta,
}

fn read_diskstats() -> Vec<(String, DiskCounters)> {
    std::fs::read_to_string("/proc/diskstats")
        .map(|t| diskstats::parse_diskstats(&t))
        .unwrap_or_default()
}

impl Session {
    /// Prepares `targets` on a background thread, all or none.
    pub(super) fn start_many(&mut self, app: &mut App, targets: Vec<PathBuf>) {
        if let Screen::Picker(p) = &app.screen {
            self.picker = Some(p.clone());
        }
        let picked: Vec<Option<&Path>> = targets.iter().map(|t| Some(t.as_path())).collect();
        if let Err(why) = self.check_picked(&picked) {
            return self.fail(app, anyhow!(why));
        }
        app.screen = Screen::Preparing(Preparing {
            label: format!("{} targets", targets.len()),
            done: 0,
            total: 0,
        });
        let requests: Vec<TargetRequest> = targets
            .iter()
            .map(|t| TargetRequest {
                target: Some(t.clone()),
                ..self.config.target_request()
            })
            .collect();
        self.config.target = targets.first().cloned();
        self.config.targets = targets;
        let tx = self.events.clone();
        let spawned = std::thread::Builder::new()
            .name("tui-prepare".into())
            .spawn(move || {
                crate::signals::leave_to_main();
                let progress_tx = tx.clone();
                let mut last = None;
                let mut progress = |_, done: u64, total: u64| {
                    let pct = done * 100 / total.max(1);
                    if last != Some(pct) {
                        last = Some(pct);
                        let _ = progress_tx.send(Event::Progress(done, total));
                    }
                };
                let result = prepare_all(&requests, &mut progress);
                let _ = tx.send(Event::PreparedMany(result));
            });
        if let Err(e) = spawned {
            self.fail(app, anyhow!("starting the preparation thread: {e}"));
        }
    }

    /// Every target is ready: start their engines and show the disks screen.
    pub(super) fn prepared_many(&mut self, app: &mut App, result: Result<Vec<Prepared>>) {
        let prepared = match result {
            Ok(p) if !self.cancelled && signals::received().is_none() => p,
            Ok(_) => return self.leave_many(self.config.targets.len()),
            Err(_) if self.cancelled || signals::received().is_some() => {
                return self.leave_many(self.config.targets.len());
            }
            Err(e) => return self.fail(app, e),
        };
        let sys = crate::sys::sysfs_root();
        let identities: Vec<Identity> = prepared
            .iter()
            .zip(&self.config.targets)
            .map(|(p, t)| {
                identify(
                    &p.target,
                    &t.display().to_string(),
                    self.config.describe(p),
                    &sys,
                )
            })
            .collect();
        let targets: Vec<_> = prepared.iter().map(|p| p.target.clone()).collect();
        let options = self.config.engine_options();
        let kernel_start = read_diskstats();
        let cpu_start = CpuTimes::read(Path::new("/proc"));
        let origin = Instant::now();
        let events = self.events.clone();
        let group = match Group::start(&targets, self.config.settings, options, |i| {
            Box::new(DiskSink(i, events.clone()))
        }) {
            Ok(g) => g,
            Err(e) => return self.fail(app, anyhow!("{e}")),
        };
        let runs = identities
            .iter()
            .map(|id| {
                let mut run = Run::new(id.config.clone(), group.settings(), id.device.clone());
                run.ram_bytes = crate::engine::memory::ram_bytes();
                (id.clone(), run)
            })
            .collect();
        let config = self.disks_config(&identities);
        let mode = format!(
            "{}, {}",
            config.ioengine.name(),
            if config.direct {
                "O_DIRECT"
            } else {
                "buffered"
            }
        );
        let mut disks = Disks::new(mode, group.settings(), runs, self.config.outlier_pct);
        disks.ask_before_quit = std::io::IsTerminal::is_terminal(&std::io::stdout());
        app.screen = Screen::Disks(Box::new(disks));
        let n = targets.len();
        self.disks = Some(DisksSession {
            group: Some(group),
            shared: SharedSeconds::new(Clock::new(origin, n), n),
            _prepared: prepared,
            config,
            identities,
            kernel_prev: Some((Instant::now(), kernel_start.clone())),
            kernel_start,
            cpu_start,
            done: 0,
            meta: crate::model::Meta::now(),
        });
    }

    fn disks_config(&self, ids: &[Identity]) -> DisksConfig {
        let c = &self.config;
        DisksConfig {
            targets: c.targets.iter().map(|t| t.display().to_string()).collect(),
            settings: c.settings,
            duration_s: c.duration.map(|d| d.as_secs_f64()),
            ioengine: c.ioengine.unwrap_or_default(),
            ioengine_fallback: c.ioengine_fallback.clone(),
            direct: c.direct,
            write_allowed: ids.first().is_some_and(|i| i.config.target.write_allowed),
            outlier_pct: c.outlier_pct,
            each_then_all: false,
            latency_basis: latency_basis(c.settings.rate_iops).into(),
        }
    }

    /// Carries out `action` on every target; false when no run on several targets is going
    /// (the single-target session handles it).
    pub(super) fn disks_act(&mut self, app: &mut App, action: &Action) -> bool {
        let Some(ds) = &mut self.disks else {
            return false;
        };
        let Screen::Disks(d) = &mut app.screen else {
            return false;
        };
        let Some(group) = &mut ds.group else {
            return true;
        };
        match action {
            Action::Apply(settings) => {
                let result = group.apply(*settings);
                d.applied(result, group.settings());
            }
            Action::Pause(p) => group.set_paused(*p),
            Action::ResetStats => {
                group.reset_stats();
                ds.shared.reset();
                // The kernel's counts and the CPU's start again with the targets' own: once
                // every engine has cut its totals there.
                group.settle(Duration::from_millis(500));
                ds.kernel_start = read_diskstats();
                ds.cpu_start = CpuTimes::read(Path::new("/proc"));
            }
            Action::Export if d.rows.iter().any(|r| r.run.last.is_none()) => {
                d.message = Some("nothing to save yet: not every target has a snapshot".into());
            }
            Action::Export => d.message = Some(export(ds, d)),
            Action::Quit => {
                d.stopping = true;
                ds.shared.close();
                group.request_stop();
            }
            _ => {}
        }
        true
    }

    /// Ctrl-Z with several targets: every engine paused before the terminal is given back
    /// (`pause`), and resumed after `fg`. Returns whether it paused them (they were
    /// running).
    pub(super) fn disks_suspend(&mut self, app: &App, pause: bool) -> bool {
        let (Some(ds), Screen::Disks(d)) = (&mut self.disks, &app.screen) else {
            return false;
        };
        let Some(group) = &mut ds.group else {
            return false;
        };
        if d.paused {
            return false;
        }
        group.set_paused(pause);
        if pause {
            group.settle(Duration::from_millis(500));
        }
        true
    }

    /// Takes in target `i`'s snapshot; returns whether the screen needs drawing.
    pub(super) fn disk_snapshot(
        &mut self,
        app: &mut App,
        i: usize,
        s: Snapshot,
        at: Instant,
    ) -> bool {
        let (Some(ds), Screen::Disks(d)) = (&mut self.disks, &mut app.screen) else {
            return false;
        };
        let (end, seconds) = ds.shared.push(i, &s, at);
        d.push_snapshot(i, s, end);
        let completed = !seconds.is_empty();
        for second in &seconds {
            d.push_second(second);
        }
        if completed {
            d.set_kernel(ds.kernel_rates());
        }
        let out_of_time = self.config.duration.is_some_and(|t| end >= t);
        if out_of_time && !d.stopping {
            d.stopping = true;
            ds.shared.close();
            if let Some(g) = &ds.group {
                g.request_stop();
            }
        }
        completed || i == 0 || d.open == Some(i)
    }

    /// Target `i`'s engine ended; once all have, the report.
    pub(super) fn disk_done(&mut self, app: &mut App, i: usize) {
        let (Some(ds), Screen::Disks(d)) = (&mut self.disks, &mut app.screen) else {
            return;
        };
        for second in ds.shared.done(i) {
            d.push_second(&second);
        }
        ds.done += 1;
        if ds.done < ds.identities.len() {
            return;
        }
        if let Some(g) = ds.group.take() {
            g.join();
        }
        self.outcome = Some(ds.report(d).map(|r| Outcome::Disks(Box::new(r))));
    }
}

impl DisksSession {
    /// The kernel's rates of every target's device since the last reading (one read of
    /// /proc/diskstats for all of them).
    fn kernel_rates(&mut self) -> Vec<Option<KernelRates>> {
        let now = (Instant::now(), read_diskstats());
        let rates = self
            .identities
            .iter()
            .map(|id| {
                let (t0, before) = self.kernel_prev.as_ref()?;
                let name = id.device.as_deref()?;
                let find = |all: &[(String, DiskCounters)]| {
                    all.iter().find(|(n, _)| n == name).map(|(_, c)| *c)
                };
                let elapsed: Duration = now.0.duration_since(*t0);
                Some(diskstats::rates(&find(before)?, &find(&now.1)?, elapsed))
            })
            .collect();
        self.kernel_prev = Some(now);
        rates
    }

    /// The report of the run: every target's, the aggregate, the outliers.
    fn report(&self, d: &Disks) -> Result<DisksReport> {
        let kernel_end = read_diskstats();
        let kernel = self
            .identities
            .iter()
            .map(|id| kernel_count(&self.kernel_start, &kernel_end, id.device.as_deref()?))
            .collect();
        let cpu_busy_pct = self
            .cpu_start
            .zip(CpuTimes::read(Path::new("/proc")))
            .and_then(|(a, b)| b.busy_pct_since(&a));
        let parts = d
            .collector
            .finish(&Finish {
                identities: &self.identities,
                lasts: d.rows.iter().map(|r| r.run.last.as_ref()).collect(),
                periods: (0..self.identities.len())
                    .map(|i| Some(self.shared.periods(i)))
                    .collect(),
                kernel,
                outlier_pct: self.config.outlier_pct,
                cpu_busy_pct,
            })
            .map_err(anyhow::Error::msg)?;
        let mut report = DisksReport {
            meta: Default::default(),
            disks: self.config.clone(),
            targets: parts.targets,
            aggregate: parts.aggregate,
            outliers: parts.outliers,
            alone: None,
            findings: parts.findings,
            interrupted_by: signals::received().map(|s| s.as_str().to_string()),
            cpu: None,
        };
        report.stamp(self.meta.clone());
        Ok(report)
    }
}

/// `e`: every target's run so far as JSON in the current directory and its chart beside it;
/// what was saved, or why not, in words.
fn export(ds: &DisksSession, d: &Disks) -> String {
    let export = match ds.report(d) {
        Ok(r) => Export::Disks(Box::new(r)),
        Err(e) => return format!("{e:#}"),
    };
    let path = match write_export(Path::new("."), &export, SystemTime::now()) {
        Ok(path) => path,
        Err(e) => return format!("{e:#}"),
    };
    let saved = format!(
        "saved every target's run so far to {}",
        crate::target::shell::quote_path(&path)
    );
    match write_export_chart(&path, &export, &files::EXPORT) {
        Ok(svg) => format!(
            "{saved} and its chart to {}",
            crate::target::shell::quote_path(&svg)
        ),
        Err(e) => format!("{saved}; the chart was not saved: {e:#}"),
    }
}
