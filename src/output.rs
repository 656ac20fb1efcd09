//! Standard output for results, and what is known about where it goes. When the reader goes
//! away (`diskscope --no-tui | head -3`), a write fails with EPIPE (Rust ignores SIGPIPE, so
//! the process is not killed). Rather than panic in `println!` after the whole run, a closed
//! pipe is treated like the SIGPIPE a C tool would get: the run stops at once, result files
//! asked for are still saved, the scratch file is removed, and the exit status is 141
//! (128 + SIGPIPE) like `yes | head`'s.
//!
//! A terminal that hangs up (a dropped ssh connection) fails writes with EIO instead, and
//! the TUI's input ends. Either way the output is `lost`: whatever is printed from then on
//! reaches no one, so the front door keeps the result in the state directory instead. `say`
//! writes a line to stderr without `eprintln!`'s panic when stderr is gone too.
//!
//! On a terminal whose locale is not UTF-8 (`LC_ALL=C`), text goes out in ASCII
//! (`use_ascii`, set by the front door for text output only). Text output (`use_text`, set
//! by the front door when stdout carries text, never JSON, CSV or a fio job) and every line
//! on stderr pass `escape::terminal` here, the one boundary: a control character read from a
//! path, sysfs or a saved file reaches the terminal as `\x1b`, never as a command.

use std::io::{self, StdoutLock, Write};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use crate::signals;

/// Why the output was lost, once it was (0: it was not).
static LOST: AtomicU8 = AtomicU8::new(0);

/// Text goes out in ASCII (`locale::ascii`): it is read on a terminal whose locale is not
/// UTF-8. Never set for JSON, CSV or a fio job, which must reach their reader byte for byte.
static ASCII: AtomicBool = AtomicBool::new(false);

/// Standard output carries text for people (not JSON, CSV or a fio job): its control
/// characters are shown, not sent (`escape::terminal`).
static TEXT: AtomicBool = AtomicBool::new(false);

/// From now on, what is printed on standard output is text: controls in it are shown.
pub fn use_text() {
    TEXT.store(true, Ordering::SeqCst);
}

/// From now on, text printed here and said on stderr is turned into ASCII.
pub fn use_ascii() {
    ASCII.store(true, Ordering::SeqCst);
}

/// `text` as it should reach the terminal: its controls shown (`escape::terminal`), then
/// as it is or in ASCII (`use_ascii`).
fn for_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    let shown = crate::escape::terminal(text);
    if ASCII.load(Ordering::SeqCst) && !shown.is_ascii() {
        crate::locale::to_ascii(&shown).into()
    } else {
        shown
    }
}

/// How the output went away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lost {
    /// A write failed with EIO: the terminal hung up.
    TerminalGone = 1,
    /// A write failed with EPIPE: the reader of a pipe went away.
    PipeClosed = 2,
    /// The TUI's input ended: the terminal went away.
    InputClosed = 3,
}

impl Lost {
    /// What happened, for a message: "its terminal hung up (EIO)".
    pub fn describe(self) -> &'static str {
        match self {
            Lost::TerminalGone => "its terminal stopped taking output (EIO)",
            Lost::PipeClosed => "the reader of its output went away (EPIPE)",
            Lost::InputClosed => "its terminal's input closed",
        }
    }
}

/// Records that the output went away (the first cause is kept).
pub fn note_lost(how: Lost) {
    let _ = LOST.compare_exchange(0, how as u8, Ordering::SeqCst, Ordering::SeqCst);
}

/// How the output went away, if it did.
pub fn lost() -> Option<Lost> {
    match LOST.load(Ordering::SeqCst) {
        1 => Some(Lost::TerminalGone),
        2 => Some(Lost::PipeClosed),
        3 => Some(Lost::InputClosed),
        _ => None,
    }
}

/// How the other end went away, if `e` says it did: EIO from a hung-up terminal, EPIPE from
/// a closed pipe.
pub fn gone(e: &io::Error) -> Option<Lost> {
    match e.raw_os_error().map(nix::errno::Errno::from_raw) {
        Some(nix::errno::Errno::EIO) => Some(Lost::TerminalGone),
        _ if e.kind() == io::ErrorKind::BrokenPipe => Some(Lost::PipeClosed),
        _ => None,
    }
}

/// How the terminal went away when a draw failed with an error that does not say so itself:
/// crossterm asks the size through `/dev/tty` and `tput` before it writes, so after a hang-up
/// the error a draw returns may be whatever errno that left behind. The terminal is gone when
/// standard output, asked for its modes, answers EIO (a hung-up terminal does), or when SIGHUP
/// came: then nothing more is drawn and the run ends as a hang-up, its result kept.
pub fn gone_after_failed_draw(e: Option<&io::Error>) -> Option<Lost> {
    if let Some(how) = e.and_then(gone) {
        return Some(how);
    }
    let hung_up = matches!(
        nix::sys::termios::tcgetattr(io::stdout()),
        Err(nix::errno::Errno::EIO)
    );
    (hung_up || signals::received() == Some(nix::sys::signal::Signal::SIGHUP))
        .then_some(Lost::TerminalGone)
}

/// Records `e` when it says the output is gone (`gone`); a closed pipe also stops the run
/// as SIGPIPE would.
pub fn watch_error(e: &io::Error) {
    let Some(how) = gone(e) else {
        return;
    };
    if how == Lost::PipeClosed {
        signals::note(nix::sys::signal::Signal::SIGPIPE);
    }
    note_lost(how);
}

/// Standard output, locked, turning EPIPE into a stop request and EIO into `lost`.
pub struct Stdout(StdoutLock<'static>);

/// Locks standard output for results.
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

impl Stdout {
    fn watch<T>(r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r {
            watch_error(e);
        }
        r
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text_mode = TEXT.load(Ordering::SeqCst);
        let plain = |b: &u8| !b.is_ascii_control() || *b == b'\n' || *b == b'\t';
        if !text_mode && (!ASCII.load(Ordering::SeqCst) || buf.is_ascii()) {
            return Self::watch(self.0.write(buf));
        }
        if buf.is_ascii() && buf.iter().all(plain) {
            return Self::watch(self.0.write(buf));
        }
        // The whole characters at the front, in ASCII; a character cut by a short write
        // of the caller's comes whole with the next call, and bytes that are no text go
        // out as they are.
        let whole = match std::str::from_utf8(buf) {
            Ok(text) => text.len(),
            Err(e) => e.valid_up_to(),
        };
        let Ok(text) = std::str::from_utf8(&buf[..whole]) else {
            return Self::watch(self.0.write(buf));
        };
        if whole == 0 {
            return Self::watch(self.0.write(buf));
        }
        Self::watch(self.0.write_all(for_terminal(text).as_bytes()))?;
        Ok(whole)
    }
    fn flush(&mut self) -> io::Result<()> {
        Self::watch(self.0.flush())
    }
}

/// Prints `text` to standard output; a closed pipe stops the run instead of panicking.
pub fn print(text: &str) {
    let mut out = stdout();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// `text` on stderr as it is (no name before it, no newline after it); a stderr that is
/// gone is ignored.
pub fn to_stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err
        .write_all(for_terminal(text).as_bytes())
        .and_then(|()| err.flush());
}

/// "diskscope: `line`" on stderr; a stderr that is gone is ignored (`eprintln!` panics).
pub fn say(line: &str) {
    let mut err = io::stderr().lock();
    let line = for_terminal(line);
    let _ = writeln!(err, "diskscope: {line}").and_then(|()| err.flush());
}
