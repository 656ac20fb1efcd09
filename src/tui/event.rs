//! Everything the TUI's loop reacts to arrives on one channel as an `Event`: keys, the mouse
//! and resizes from the input thread (blocked in crossterm's `read`), the engine's snapshots (sent from
//! the sampler's own thread through `EventSink`, or per target through `DiskSink` when
//! several run), and the scratch layout's progress.

use std::sync::mpsc::Sender;
use std::time::Instant;

use anyhow::{Result, anyhow};
use ratatui::crossterm::event::{self as ct, KeyEvent, MouseEvent};

use crate::engine::SnapshotSink;
use crate::stats::Snapshot;
use crate::target::prepare::Prepared;

/// Everything the loop reacts to.
pub enum Event {
    Key(KeyEvent),
    /// A press, release, drag or wheel notch (while the mouse is captured), stamped when it
    /// was read (for a double click).
    Mouse(MouseEvent, Instant),
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
    /// A snapshot of one target's engine in a run on several (the target's index first),
    /// and when it was handed over (which puts it on the group's clock).
    DiskSnapshot(usize, Box<Snapshot>, Instant),
    /// That target's engine sent its last snapshot.
    DiskDone(usize),
    /// Every target of a run on several is ready, or why one could not be.
    PreparedMany(Result<Vec<Prepared>>),
    /// The surface scan's report so far and where it stands.
    SurfaceProgress(
        Box<crate::model::surface::SurfaceReport>,
        crate::surface::scan::Progress,
    ),
    /// The surface scan stopped or ended.
    SurfaceDone(Result<crate::surface::session::Outcome>),
    /// The burn-in stopped or ended: its report, or why it could not run.
    BurnInDone(Box<std::result::Result<crate::model::verify::VerifyReport, String>>),
}

/// Delivers one target's snapshots in a run on several, stamped with the moment they were
/// handed over.
pub struct DiskSink(pub usize, pub Sender<Event>);

impl SnapshotSink for DiskSink {
    fn send(&mut self, snapshot: Snapshot) -> bool {
        let e = Event::DiskSnapshot(self.0, Box::new(snapshot), Instant::now());
        self.1.send(e).is_ok()
    }
    fn done(&mut self) {
        let _ = self.1.send(Event::DiskDone(self.0));
    }
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
            crate::signals::leave_to_main();
            loop {
                let event = match ct::read() {
                    Ok(ct::Event::Key(k)) => Event::Key(k),
                    Ok(ct::Event::Mouse(m)) if m.kind != ct::MouseEventKind::Moved => {
                        Event::Mouse(m, Instant::now())
                    }
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
