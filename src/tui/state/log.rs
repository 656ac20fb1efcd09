//! The message log: every message, notice and finding a screen showed, whole, each with
//! the time on the run's clock when it first showed — what `L` opens, so a message cut to
//! the terminal's width can still be read. Bounded: the oldest go first.

use std::collections::VecDeque;
use std::time::Duration;

/// Entries kept.
pub const LOG_LEN: usize = 500;

/// One message as it first showed.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The run's clock then (`None` before a run started).
    pub at: Option<Duration>,
    pub text: String,
}

/// The log, and what each source showed last (a source logs when it shows something new).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MessageLog {
    pub entries: VecDeque<Entry>,
    last: [Option<String>; 5],
}

/// Where a message comes from: each remembers its last text.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    Message = 0,
    Notice = 1,
    Finding = 2,
    Warning = 3,
    /// A suite card's notes.
    Note = 4,
}

impl MessageLog {
    /// Logs `text` from `source` unless that source showed the same text last.
    pub fn see(&mut self, source: Source, text: Option<&str>, at: Option<Duration>) {
        let last = &mut self.last[source as usize];
        if last.as_deref() == text {
            return;
        }
        *last = text.map(str::to_string);
        let Some(text) = text else { return };
        if self.entries.len() == LOG_LEN {
            self.entries.pop_front();
        }
        self.entries.push_back(Entry {
            at,
            text: text.to_string(),
        });
    }

    /// Logs a line said once, whatever was said before ("saved run to …").
    pub fn say(&mut self, text: &str, at: Option<Duration>) {
        if self.entries.len() == LOG_LEN {
            self.entries.pop_front();
        }
        self.entries.push_back(Entry {
            at,
            text: text.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_logs_each_new_text_once() {
        let mut log = MessageLog::default();
        let t = Some(Duration::from_secs(3));
        log.see(Source::Message, Some("refused"), t);
        log.see(Source::Message, Some("refused"), t);
        log.see(Source::Finding, Some("refused"), t);
        log.see(Source::Message, None, t);
        log.see(Source::Message, Some("refused"), t);
        let texts: Vec<&str> = log.entries.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(texts, ["refused", "refused", "refused"]);
        for _ in 0..LOG_LEN + 5 {
            log.say("x", None);
        }
        assert_eq!(log.entries.len(), LOG_LEN);
    }
}
