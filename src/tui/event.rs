//! Everything the TUI's loop reacts to arrives on one channel as an `Event`: keys and resizes
//! from the input thread (blocked in crossterm's `read`), the engine's snapshots (sent from
//! the sampler's own thread through `EventSink`), and the scratch layout's progress.

use std::sync::mpsc::Sender;

use anyhow::{Result, anyhow};
use ratatui::crossterm::event::{self as ct, KeyEvent};

use crate::engine::SnapshotSink;
use crate::stats::Snapshot;
use crate::target::prepare::Prepared;

/// Everything the loop reacts to.
pub enum Event {
    Key(KeyEvent),
    /// The terminal changed size.
    Resize,
    /// Terminal input ended (the terminal went away).
    InputClosed,
    Snapshot(Box<Snapshot>),
    /// The engine sent its last snapshot.
    EngineDone,
    /// Scratch layout progress: bytes done, bytes total.
    Progress(u64, u64),
    /// The target is ready, or could not be prepared.
    Prepared(Result<Prepared>),
}

/// Delivers the engine's snapshots straight into the event channel, from the sampler's
/// thread: no forwarding thread to wake (that hop cost frame time beside 1024 workers).
pub struct EventSink(pub Sender<Event>);

impl SnapshotSink for EventSink {
    fn send(&mut self, snapshot: Snapshot) -> bool {
        self.0.send(Event::Snapshot(Box::new(snapshot))).is_ok()
    }
    fn done(&mut self) {
        let _ = self.0.send(Event::EngineDone);
    }
}

/// Reads terminal input on its own thread and forwards keys and resizes.
pub fn spawn_input(tx: Sender<Event>) -> Result<()> {
    std::thread::Builder::new()
        .name("tui-input".into())
        .spawn(move || {
            loop {
                let event = match ct::read() {
                    Ok(ct::Event::Key(k)) => Event::Key(k),
                    Ok(ct::Event::Resize(..)) => Event::Resize,
                    Ok(_) => continue,
                    Err(_) => Event::InputClosed,
                };
                let closed = matches!(event, Event::InputClosed);
                if tx.send(event).is_err() || closed {
                    return;
                }
            }
        })
        .map_err(|e| anyhow!("starting the input thread: {e}"))?;
    Ok(())
}
