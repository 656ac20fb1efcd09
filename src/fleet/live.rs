//! The fleet while it runs: each host's state (connecting, running at some rate, done,
//! failed with a reason) and the fleet's live rate, the sum of the hosts' latest ETA
//! figures. Plain data fed by `HostEvent`s; the headless printer and the TUI's fleet screen
//! both read it, neither knows the other.

use super::hosts::Host;
use crate::fio::client::{HostEvent, Live};

/// Most seconds of the fleet's live rate kept (for the sparkline).
pub const HISTORY: usize = 600;

/// What one host is doing now.
#[derive(Debug, Clone, PartialEq)]
pub enum HostStatus {
    Waiting,
    Connecting,
    Running(Live),
    Done,
    Failed(String),
}

impl HostStatus {
    /// "connecting", "running", "done", "failed".
    pub fn word(&self) -> &'static str {
        match self {
            HostStatus::Waiting => "waiting",
            HostStatus::Connecting => "connecting",
            HostStatus::Running(_) => "running",
            HostStatus::Done => "done",
            HostStatus::Failed(_) => "failed",
        }
    }
}

/// One row of the board.
#[derive(Debug, Clone, PartialEq)]
pub struct HostRow {
    pub label: String,
    pub status: HostStatus,
}

/// Every host's state and the fleet's live rate, second by second.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Board {
    pub rows: Vec<HostRow>,
    /// The fleet's live IOPS, one value per `tick`, oldest first (at most `HISTORY`).
    pub history: Vec<f64>,
    /// Seconds since the fleet started (ticks).
    pub seconds: u64,
}

impl Board {
    pub fn new(hosts: &[Host]) -> Board {
        Board {
            rows: hosts
                .iter()
                .map(|h| HostRow {
                    label: h.label(),
                    status: HostStatus::Waiting,
                })
                .collect(),
            history: Vec::new(),
            seconds: 0,
        }
    }

    /// Records what host `i` did; returns true when its state word changed.
    pub fn apply(&mut self, i: usize, e: &HostEvent) -> bool {
        let Some(row) = self.rows.get_mut(i) else {
            return false;
        };
        let before = row.status.word();
        row.status = match e {
            HostEvent::Connecting => HostStatus::Connecting,
            HostEvent::Running(l) => HostStatus::Running(*l),
            HostEvent::Finished(o) => match &o.failure {
                Some(why) => HostStatus::Failed(why.clone()),
                None => HostStatus::Done,
            },
        };
        before != row.status.word()
    }

    /// The fleet's rate now: the sum of the running hosts' latest ETA figures.
    pub fn live_iops(&self) -> f64 {
        self.rows
            .iter()
            .map(|r| match r.status {
                HostStatus::Running(l) => l.iops,
                _ => 0.0,
            })
            .sum()
    }

    /// One second passed: the live rate joins the history.
    pub fn tick(&mut self) {
        self.seconds += 1;
        self.history.push(self.live_iops());
        if self.history.len() > HISTORY {
            self.history.remove(0);
        }
    }

    /// How many hosts are in each state: (running, done, failed).
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |w: &str| self.rows.iter().filter(|r| r.status.word() == w).count();
        (n("running"), n("done"), n("failed"))
    }

    /// Whether every host has ended.
    pub fn finished(&self) -> bool {
        self.rows
            .iter()
            .all(|r| matches!(r.status, HostStatus::Done | HostStatus::Failed(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fio::client::HostOutcome;

    #[test]
    fn the_live_rate_is_the_sum_of_running_hosts() {
        let hosts: Vec<Host> = ["a", "b", "c"]
            .iter()
            .map(|n| Host {
                name: n.to_string(),
                port: 8765,
            })
            .collect();
        let mut b = Board::new(&hosts);
        let live = |iops| {
            HostEvent::Running(Live {
                iops,
                percent: None,
            })
        };
        assert!(b.apply(0, &HostEvent::Connecting));
        assert!(b.apply(0, &live(100.0)));
        assert!(!b.apply(0, &live(120.0)));
        b.apply(1, &live(30.0));
        let failed = HostOutcome {
            entries: vec![],
            failure: Some("down".into()),
        };
        b.apply(2, &HostEvent::Finished(Box::new(failed)));
        b.tick();
        assert_eq!(b.history, [150.0]);
        assert_eq!(b.counts(), (2, 0, 1));
        assert!(!b.finished());
    }
}
