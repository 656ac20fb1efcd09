//! Keys → `Action`s, per screen: the picker, the write confirmation, the layout, the run
//! screen, the sweep's chart and the suite's card. Keys change the screen's own state directly (selection,
//! focus, typed text); what needs the engine or the disk goes out as an `Action`.

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::Action;
use super::state::{App, Confirm, FioOverlay, Picker, PickerRow, Run, Screen, View};
use crate::fio::job as fio;
use crate::settings::{Knob, Settings, Step, rate_ladder_at_or_below, stepped};
use crate::suite::SuiteName;
use crate::sweep::{Dimension, SWEEP_IODEPTH, SWEEP_THREADS, default_sweep, psync_refusal};

impl App {
    /// Handles a key; the returned action is for the run loop to carry out.
    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return Action::Quit,
            KeyCode::Char('z') if ctrl => return Action::Suspend,
            _ => {}
        }
        if self.help || self.fio.is_some() {
            match key.code {
                KeyCode::Char('q') => return Action::Quit,
                _ => {
                    self.help = false;
                    self.fio = None;
                    return Action::None;
                }
            }
        }
        match &mut self.screen {
            Screen::Picker(p) => picker_key(p, key, &mut self.help),
            Screen::Confirm(c) => confirm_key(c, key),
            Screen::Preparing(_) => match key.code {
                KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
                _ => Action::None,
            },
            Screen::Run(run) => {
                if key.code == KeyCode::Char('f') && !run.sweep_prompt {
                    let job = match (&run.view, &run.suite) {
                        (View::Suite, Some(suite)) => {
                            fio::FioJob::suite(&run.suite_config(), suite.runner.plan())
                        }
                        _ => fio::FioJob::run(&run.current_config()),
                    };
                    self.fio = Some(FioOverlay {
                        command_line: job.command_line(),
                        job_file: job.job_file(),
                    });
                    return Action::None;
                }
                run_key(run, key, &mut self.help)
            }
        }
    }
}

fn picker_key(p: &mut Picker, key: KeyEvent, help: &mut bool) -> Action {
    if let Some(input) = &mut p.input {
        match key.code {
            KeyCode::Enter => {
                let path = input.trim().to_string();
                if path.is_empty() {
                    p.message = Some("type the path of a device, file or directory".into());
                    return Action::None;
                }
                p.input = None;
                return Action::Start(Some(PathBuf::from(path)));
            }
            KeyCode::Esc => p.input = None,
            KeyCode::Backspace => {
                input.pop();
            }
            KeyCode::Char(c) => input.push(c),
            _ => {}
        }
        return Action::None;
    }
    let last = p.rows.len().saturating_sub(1);
    match key.code {
        KeyCode::Up | KeyCode::Char('k') => p.selected = p.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => p.selected = (p.selected + 1).min(last),
        KeyCode::Home => p.selected = 0,
        KeyCode::End => p.selected = last,
        KeyCode::Char('?') => *help = true,
        KeyCode::Char('q') | KeyCode::Esc => return Action::Quit,
        KeyCode::Enter => match p.rows.get(p.selected) {
            Some(PickerRow::Scratch { .. }) => return Action::Start(None),
            Some(PickerRow::Device(d)) => {
                if let crate::target::discover::Access::Denied(why) = &d.access {
                    p.message = Some(format!("{}: cannot open it ({why}); try as root", d.path));
                    return Action::None;
                }
                return Action::Start(Some(PathBuf::from(&d.path)));
            }
            Some(PickerRow::EnterPath) => {
                p.input = Some(String::new());
                p.message = None;
            }
            None => {}
        },
        _ => {}
    }
    Action::None
}

fn confirm_key(c: &mut Confirm, key: KeyEvent) -> Action {
    match key.code {
        KeyCode::Enter => return Action::ConfirmWrite(c.input.trim().to_string()),
        KeyCode::Esc => return Action::ReadOnly,
        KeyCode::Backspace => {
            c.input.pop();
        }
        KeyCode::Char(ch) => c.input.push(ch),
        _ => {}
    }
    Action::None
}

/// Keys on the sweep's chart: back to the run, quit, save, help.
fn sweep_view_key(run: &mut Run, key: KeyEvent, help: &mut bool) -> Action {
    match key.code {
        KeyCode::Enter | KeyCode::Esc => run.view = View::Live,
        KeyCode::Char('q') => return Action::Quit,
        KeyCode::Char('e') => return Action::Export,
        KeyCode::Char('?') => *help = true,
        _ => {}
    }
    Action::None
}

/// Keys on the suite's card: while it runs only Esc (cancel), q and ?; once done, back to
/// the run, save, quit, help (f is handled with the overlays).
fn suite_view_key(run: &mut Run, key: KeyEvent, help: &mut bool) -> Action {
    let running = run.suite_running();
    match key.code {
        KeyCode::Esc if running => return run.cancel_suite(),
        KeyCode::Enter | KeyCode::Esc => run.view = View::Live,
        KeyCode::Char('q') => return Action::Quit,
        KeyCode::Char('?') => *help = true,
        KeyCode::Char('e') if !running => return Action::Export,
        KeyCode::Char(' ') if !running => {
            run.paused = !run.paused;
            return Action::Pause(run.paused);
        }
        _ if running => {
            run.message = Some("a suite is running: Esc cancels it, q quits".into());
        }
        _ => {}
    }
    Action::None
}

fn run_key(run: &mut Run, key: KeyEvent, help: &mut bool) -> Action {
    if run.view == View::Sweep {
        return sweep_view_key(run, key, help);
    }
    if run.view == View::Suite {
        return suite_view_key(run, key, help);
    }
    if run.sweep_prompt {
        run.sweep_prompt = false;
        let dimension = match key.code {
            KeyCode::Char('t') => Dimension::Threads,
            KeyCode::Char('b') => Dimension::Bs,
            KeyCode::Char('q') => Dimension::Iodepth,
            KeyCode::Char('r') => Dimension::Rate,
            _ => {
                run.notice = None;
                return Action::None;
            }
        };
        return match default_sweep(dimension, &run.info) {
            Ok(spec) => run.start_sweep(spec),
            Err(e) => {
                run.message = Some(e);
                Action::None
            }
        };
    }
    if run.sweeping() {
        let locked = matches!(
            key.code,
            KeyCode::Left
                | KeyCode::Right
                | KeyCode::Char('h' | 'l' | '-' | '_' | '+' | '=' | 's' | 'c')
        );
        if locked {
            run.message =
                Some("a sweep is running: the sliders are locked (Esc cancels the sweep)".into());
            return Action::None;
        }
        if key.code == KeyCode::Esc {
            run.cancel_sweep("cancelled");
            return Action::None;
        }
    }
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
        KeyCode::Char('?') => {
            *help = true;
            Action::None
        }
        KeyCode::Char('s') => {
            run.sweep_prompt = true;
            run.message = None;
            run.notice = Some(format!(
                "sweep: t threads {}..{} · b block size 512..4M · q depth 1..{} · r latency curve · {:.1} s/step · other keys cancel",
                SWEEP_THREADS.0,
                SWEEP_THREADS.1,
                SWEEP_IODEPTH.1,
                run.step_time.as_secs_f64()
            ));
            Action::None
        }
        KeyCode::Char('e') => Action::Export,
        KeyCode::Char('c') => run.start_suite(SuiteName::Standard, run.suite_timing, run.ram_bytes),
        KeyCode::Char('v') if run.suite.is_some() && run.sweep.is_none() => {
            run.view = View::Suite;
            Action::None
        }
        KeyCode::Char('v') if run.sweep.is_some() => {
            run.view = View::Sweep;
            Action::None
        }
        KeyCode::Char(' ') => {
            run.paused = !run.paused;
            Action::Pause(run.paused)
        }
        KeyCode::Char('r') => {
            run.clear_history();
            Action::ResetStats
        }
        KeyCode::Tab | KeyCode::Down | KeyCode::Char('j') => {
            run.focus = run.focus.next();
            Action::None
        }
        KeyCode::BackTab | KeyCode::Up | KeyCode::Char('k') => {
            run.focus = run.focus.prev();
            Action::None
        }
        KeyCode::PageDown | KeyCode::Char(']') => {
            run.thread_scroll = (run.thread_scroll + 8).min(run.thread_rows().saturating_sub(1));
            Action::None
        }
        KeyCode::Char('d') => {
            run.show_heatmap = !run.show_heatmap;
            Action::None
        }
        KeyCode::Char('m') => {
            // Only an md or dm target has members to show.
            let k = &mut run.kernel;
            k.show_members = !k.show_members && !k.members.is_empty();
            Action::None
        }
        KeyCode::PageUp | KeyCode::Char('[') => {
            run.thread_scroll = run.thread_scroll.saturating_sub(8);
            Action::None
        }
        KeyCode::Left | KeyCode::Char('h') => step(run, Step::Down),
        KeyCode::Right | KeyCode::Char('l') => step(run, Step::Up),
        KeyCode::Char('-') | KeyCode::Char('_') => step(run, Step::Minus),
        KeyCode::Char('+') | KeyCode::Char('=') => step(run, Step::Plus),
        _ => Action::None,
    }
}

fn step(run: &mut Run, step: Step) -> Action {
    if run.focus == Knob::QueueDepth
        && let Err(why) = psync_refusal(&run.info)
    {
        run.message = Some(why);
        return Action::None;
    }
    let next = match (run.focus, run.settings.rate_iops, step) {
        // Leaving "unlimited": the ladder value below what the disk does now, so the first
        // step is a load it can carry rather than the ladder's top.
        (Knob::Rate, 0, Step::Down | Step::Minus) => Ok(Settings {
            rate_iops: run
                .seconds
                .now
                .as_ref()
                .filter(|n| n.iops >= 1.0)
                .map_or(10_000_000, |n| rate_ladder_at_or_below(n.iops as u64)),
            ..run.settings
        }),
        _ => stepped(run.settings, run.focus, step, run.info.target.write_allowed),
    };
    match next {
        Ok(n) if n == run.settings => Action::None,
        Ok(n) => {
            run.message = None;
            if let Some(sweep) = &mut run.sweep {
                sweep.superseded = true;
            }
            Action::Apply(n)
        }
        Err(msg) => {
            run.message = Some(msg);
            Action::None
        }
    }
}
