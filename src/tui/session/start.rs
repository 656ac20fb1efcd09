//! How a session gets to its run screen: the picker (or the target named on the command
//! line), the write confirmation a bare `--allow-write` needs on a block device, the target
//! prepared on a background thread, the engine started — or, when a target fails, back to
//! the picker (or the confirmation) with the reason.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, anyhow};

use super::Session;
use crate::engine::Engine;
use crate::signals;
use crate::sweep::DEFAULT_STEP_TIME;
use crate::target::discover::{Roots, discover, visible};
use crate::target::prepare::{DEFAULT_SCRATCH_SIZE, Prepared, SCRATCH_NAME};
use crate::target::safety;
use crate::tui::action::Action;
use crate::tui::event::{Event, EventSink};
use crate::tui::kernel::KernelSampler;
use crate::tui::state::{App, Confirm, Picker, Preparing, Run, Screen};
use crate::units::format_bytes;
use crate::why::Live;

impl Session {
    /// The picker when no target was given; else starts preparing the target (or all of
    /// them, when several were given).
    pub fn first_screen(&mut self, color: bool) -> App {
        if self.config.targets.len() > 1 {
            let mut app = App::new(
                Screen::Preparing(Preparing {
                    label: String::new(),
                    done: 0,
                    total: 0,
                }),
                color,
            );
            let targets = self.config.targets.clone();
            self.start_many(&mut app, targets);
            return app;
        }
        if self.config.target.is_some() {
            let mut app = App::new(
                Screen::Preparing(Preparing {
                    label: String::new(),
                    done: 0,
                    total: 0,
                }),
                color,
            );
            let target = self.config.target.clone();
            self.start(&mut app, target);
            return app;
        }
        let roots = Roots::system();
        let (devices, message) = match discover(&roots) {
            Ok(d) => {
                let mut d = visible(d, self.config.all);
                crate::health::read_listed(&mut d);
                (d, None)
            }
            Err(e) => (Vec::new(), Some(format!("cannot list devices: {e:#}"))),
        };
        let loops = crate::target::loopdev::backing_files(&roots, &devices);
        let size = self.config.size.unwrap_or(DEFAULT_SCRATCH_SIZE);
        let label = format!(
            "scratch file here (./{SCRATCH_NAME}, {})",
            format_bytes(size)
        );
        let mut picker = Picker::new(label, devices);
        picker.message = message;
        picker.loops = loops;
        App::new(Screen::Picker(picker), color)
    }

    /// Starts on `target`: asks for the write confirmation first when a bare
    /// `--allow-write` meets a block device, else prepares it.
    pub(super) fn start(&mut self, app: &mut App, target: Option<PathBuf>) {
        if let Screen::Picker(p) = &app.screen {
            self.picker = Some(p.clone());
        }
        self.confirmed = None;
        let is_device = target
            .as_deref()
            .is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device()));
        if self.bare_write && is_device {
            app.screen = Screen::Confirm(Confirm {
                device: target.unwrap_or_default(),
                input: String::new(),
                message: None,
            });
            return;
        }
        if self.bare_write {
            // A device declined or confirmed earlier does not carry over to this target.
            self.config.allow_write = Some(Default::default());
            self.config.settings = self.asked_settings;
        }
        self.begin(app, target);
    }

    /// The confirmation was answered: the device's path (or another path to it) allows
    /// writes; anything else asks again.
    pub(super) fn confirm_write(&mut self, app: &mut App, typed: String) {
        let Screen::Confirm(c) = &mut app.screen else {
            return;
        };
        if typed.is_empty() || !safety::names_device(typed.as_ref(), &c.device) {
            c.message = Some(format!(
                "'{typed}' is not {}: type its path exactly, or Esc to run read-only",
                c.device.display()
            ));
            c.input.clear();
            return;
        }
        let device = c.device.clone();
        self.config.allow_write = Some(typed.into());
        self.config.settings = self.asked_settings;
        self.confirmed = Some(device.clone());
        self.begin(app, Some(device));
    }

    /// The confirmation was declined: the device runs read-only, read % at 100.
    pub(super) fn read_only(&mut self, app: &mut App) {
        let Screen::Confirm(c) = &app.screen else {
            return;
        };
        let device = c.device.clone();
        self.config.allow_write = None;
        self.config.settings = crate::settings::Settings {
            read_pct: 100,
            trim_pct: 0,
            ..self.asked_settings
        };
        self.begin(app, Some(device));
    }

    /// Prepares `target` on a background thread (laying out the scratch file if needed).
    fn begin(&mut self, app: &mut App, target: Option<PathBuf>) {
        if let Err(why) = self.check_picked(&[target.as_deref()]) {
            return self.fail(app, anyhow!(why));
        }
        let path = match &target {
            None => Path::new(".").join(SCRATCH_NAME),
            Some(p) if p.is_dir() => p.join(SCRATCH_NAME),
            Some(p) => p.clone(),
        };
        let label = path.display().to_string();
        self.preparing = Some(path);
        app.screen = Screen::Preparing(Preparing {
            label,
            done: 0,
            total: 0,
        });
        self.config.target = target;
        let request = self.config.target_request();
        let tx = self.events.clone();
        let spawned = std::thread::Builder::new()
            .name("tui-prepare".into())
            .spawn(move || {
                crate::signals::leave_to_main();
                let mut last_pct = None;
                let progress_tx = tx.clone();
                let mut progress = move |done: u64, total: u64| {
                    let pct = done * 100 / total.max(1);
                    if last_pct != Some(pct) {
                        last_pct = Some(pct);
                        let _ = progress_tx.send(Event::Progress(done, total));
                    }
                };
                let result = crate::target::prepare::prepare(&request, &mut progress);
                let _ = tx.send(Event::Prepared(result));
            });
        if let Err(e) = spawned {
            self.fail(app, anyhow!("starting the preparation thread: {e}"));
        }
    }

    /// Trims and polling checked on `targets`, those picked (the start checked only those
    /// typed, or the working directory for the picker): `Config::check_targets`. A surface
    /// scan does neither, and is not refused for them.
    pub(super) fn check_picked(&mut self, targets: &[Option<&Path>]) -> Result<(), String> {
        self.config.check_targets(targets, !self.surface_next)
    }

    /// A target could not be used: back to the picker with the reason, or out. A device
    /// refused after its write confirmation (mounted, in use) goes back to the confirmation
    /// with the reason when there is no picker, so Esc can still run it read-only.
    pub(super) fn fail(&mut self, app: &mut App, error: anyhow::Error) {
        if let Some(device) = self.confirmed.take()
            && self.picker.is_none()
            && !self.cancelled
            && signals::received().is_none()
        {
            app.screen = Screen::Confirm(Confirm {
                device,
                input: String::new(),
                message: Some(format!("{error:#}")),
            });
            return;
        }
        match self.picker.take() {
            Some(mut p) if !self.cancelled && signals::received().is_none() => {
                p.message = Some(format!("{error:#}"));
                app.screen = Screen::Picker(p);
            }
            _ if self.cancelled || signals::received().is_some() => self.leave_prepared(app),
            _ => self.outcome = Some(Err(error)),
        }
    }

    /// The target is ready: start the engine and show the run screen.
    pub(super) fn prepared(&mut self, app: &mut App, result: Result<Prepared>) {
        let prepared = match result {
            Ok(p) if !self.cancelled && signals::received().is_none() => p,
            Ok(p) => {
                // Dropped first: a scratch file laid out for this run goes with it.
                drop(p);
                return self.leave_prepared(app);
            }
            Err(e) => return self.fail(app, e),
        };
        if self.config.verify.burn_in.is_some() {
            self.prepared = Some(prepared);
            return self.burn_in_start(app);
        }
        if self.surface_next {
            self.prepared = Some(prepared);
            return self.surface_prepared(app);
        }
        let target = prepared.target.clone();
        // The drive's health is read before the first I/O (as headless does).
        let mut report = self.config.describe(&prepared);
        if self.config.sweep.is_some() {
            // -T is the step time here; the run itself goes on until quit.
            report.duration_s = None;
        }
        let live = Live::for_target(&report, &target.path, self.config.steady.params(true));
        let engine = match self.start_engine(&target) {
            Ok(e) => e,
            Err(e) => return self.fail(app, anyhow!("{}: {e}", target.path.display())),
        };
        let device = live.device().map(str::to_string);
        let health = live.health_start();
        self.kernel = Some(KernelSampler::new(live));
        let mut run = Run::new(report.clone(), engine.settings(), device);
        run.why.set_health(health.as_ref());
        run.step_time = self.config.duration.unwrap_or(DEFAULT_STEP_TIME);
        run.suite_timing = self.config.suite_timing;
        run.ram_bytes = crate::engine::memory::ram_bytes();
        run.meta = crate::model::Meta::now();
        // Quitting after a minute asks once, where a person watches the screen.
        run.ask_before_quit = std::io::IsTerminal::is_terminal(&std::io::stdout());
        // The test seam: an hour of graph history without an hour's wait (bench-load).
        if let Some(secs) = std::env::var(crate::tui::state::run::HISTORY_ENV)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
        {
            run.pretend_history(secs.min(7 * 24 * 3600));
        }
        // `--sweep` in a terminal: the sweep starts at once (its steps are checked against
        // the target first, as headless does).
        let sweep = self.config.sweep.take();
        let mut first = Action::None;
        if let Some(spec) = sweep {
            if let Err(e) = spec.check_steps(self.config.settings, &target.geometry()) {
                engine.request_stop();
                engine.join();
                return self.fail(app, anyhow!("{}: {e}", target.path.display()));
            }
            first = run.start_sweep(spec);
        }
        run.notice = self.notice.take();
        app.screen = Screen::Run(Box::new(run));
        self.report = Some(report);
        self.engine = Some(engine);
        self.prepared = Some(prepared);
        self.confirmed = None;
        self.act(app, first);
    }
}

impl Session {
    /// Starts the engine on `target` with the run's settings, and with `--verify` its
    /// checker (kept by the session: what it finds joins the run's report at the end).
    fn start_engine(
        &mut self,
        target: &Arc<crate::target::open::Target>,
    ) -> Result<Engine, String> {
        self.during = checker(&self.config);
        Engine::start_with_sink_checked(
            target.clone(),
            target.geometry(),
            self.config.settings,
            self.config.engine_options(),
            Box::new(EventSink(self.events.clone())),
            self.during
                .clone()
                .map(|d| d as Arc<dyn crate::engine::check::Checker>),
        )
    }
}

/// `--verify`: the checker that stamps the run's writes and reads them back (the session
/// keeps it to put what it found into the run's report at the end).
fn checker(config: &crate::cli::Config) -> Option<Arc<crate::verify::during::During>> {
    config.verify.live.then(|| {
        Arc::new(crate::verify::during::During::new(
            rand::random::<u64>() | 1,
        ))
    })
}
