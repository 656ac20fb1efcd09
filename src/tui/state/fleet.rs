//! The fleet screen's state: the fleet's header, the live board (each host's state and the
//! fleet's rate second by second), and once every host has ended the final report with its
//! outliers. No drawing and no I/O: fed by `FleetEvent`s, read by `ui::fleet`.

use crate::fleet::live::Board;
use crate::fleet::{FleetEvent, FleetReport};

/// What the fleet screen shows.
#[derive(Debug, Clone)]
pub struct FleetScreen {
    /// "fleet of 3 hosts: /srv/disk.img, 4k random read, 1 thread (psync, O_DIRECT), 10 s".
    pub header: String,
    pub board: Board,
    /// Set when every host has ended.
    pub report: Option<FleetReport>,
    /// `q` was pressed while hosts ran: they are being stopped.
    pub stopping: bool,
    /// False under NO_COLOR.
    pub color: bool,
    /// Draw in ASCII: the locale's character set is not UTF-8.
    pub ascii: bool,
}

impl FleetScreen {
    pub fn new(header: String, board: Board, color: bool) -> FleetScreen {
        FleetScreen {
            header,
            board,
            report: None,
            stopping: false,
            color,
            ascii: false,
        }
    }

    /// Records what happened.
    pub fn apply(&mut self, e: &FleetEvent) {
        match e {
            FleetEvent::Host(i, ev) => {
                self.board.apply(*i, ev);
            }
            FleetEvent::Tick => self.board.tick(),
        }
    }
}
