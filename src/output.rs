//! Standard output for results. When the reader goes away (`diskscope --no-tui | head -3`),
//! a write fails with EPIPE (Rust ignores SIGPIPE, so the process is not killed). Rather than
//! panic in `println!` after the whole run, a closed pipe is treated like the SIGPIPE a C tool
//! would get: the run stops at once, result files asked for are still saved, the scratch file
//! is removed, and the exit status is 141 (128 + SIGPIPE) like `yes | head`'s.

use std::io::{self, StdoutLock, Write};

use crate::signals;

/// Standard output, locked, turning EPIPE into a stop request.
pub struct Stdout(StdoutLock<'static>);

/// Locks standard output for results.
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

impl Stdout {
    fn watch<T>(r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            signals::note(nix::sys::signal::Signal::SIGPIPE);
        }
        r
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Self::watch(self.0.write(buf))
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
