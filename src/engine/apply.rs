//! Changing a running engine's settings, in two steps a group of engines can share: `prepare`
//! checks the settings against the target and opens the descriptors new threads need, without
//! touching the run; `apply_prepared` hands them to the sampler. `Engine::apply` does both.
//! Several targets (`disks::Group`) prepare every engine before applying any, so a target
//! that cannot take a change (a descriptor refused) leaves every target as it was, rather
//! than others running the new settings for a moment.

use std::sync::mpsc;

use super::io::BlockIo;
use super::{Command, Engine, check_depth, open_many};
use crate::settings::Settings;

/// Settings checked against an engine's target, with the descriptors its new threads need.
pub struct Prepared {
    settings: Settings,
    ios: Vec<Box<dyn BlockIo>>,
}

impl Engine {
    /// Changes the settings live: threads added or stopped in place, the others reap what they
    /// have in flight and take the new depth, block size and mix. On error nothing changed,
    /// but a thread increase that failed part-way keeps the threads it started (`settings`).
    pub fn apply(&mut self, settings: Settings) -> Result<(), String> {
        let prepared = self.prepare(settings)?;
        self.apply_prepared(prepared)
    }

    /// Checks `settings` against the target and opens the descriptors the threads added need;
    /// the run is not touched.
    pub fn prepare(&self, settings: Settings) -> Result<Prepared, String> {
        self.geometry.validate(&settings)?;
        check_depth(self.options.ioengine, &settings)?;
        super::check_poll(&self.options, &settings)?;
        let more = settings.threads.saturating_sub(self.settings.threads);
        let ios = if settings == self.settings {
            Vec::new()
        } else {
            open_many(&*self.opener, more)?
        };
        Ok(Prepared { settings, ios })
    }

    /// Takes up settings `prepare` checked (see `apply`).
    pub fn apply_prepared(&mut self, p: Prepared) -> Result<(), String> {
        if p.settings == self.settings {
            return Ok(());
        }
        self.send_apply(p.settings, p.ios)
    }

    pub(super) fn send_apply(
        &mut self,
        settings: Settings,
        ios: Vec<Box<dyn BlockIo>>,
    ) -> Result<(), String> {
        let (reply_tx, reply) = mpsc::channel();
        let wanted = ios.len();
        self.commands
            .send(Command::Apply(settings, ios, reply_tx))
            .map_err(|_| "the engine has stopped".to_string())?;
        match reply.recv() {
            Ok(Ok(())) => {
                self.settings = settings;
                Ok(())
            }
            Ok(Err((started, msg))) => {
                self.settings = Settings {
                    threads: self.settings.threads + started,
                    ..settings
                };
                Err(format!(
                    "started only {started} of {wanted} new threads: {msg}"
                ))
            }
            Err(_) => Err("the engine has stopped".into()),
        }
    }
}
