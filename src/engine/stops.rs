//! Noticing that the whole process was stopped (SIGSTOP, Ctrl-Z's SIGTSTP, SIGTTIN/SIGTTOU)
//! and continued. While stopped, no thread runs: the monotonic clock keeps going, so the
//! interval around the stop looks like seconds of run time with no I/O, and every I/O in
//! flight at the stop comes back with the stop in its latency.
//!
//! Why SIGCONT: a stop cannot be seen from inside while it lasts, and a late wake-up alone does
//! not prove one (a starved sampler wakes late too, while the workers keep doing I/O). But
//! every job-control stop ends with SIGCONT (or with SIGKILL, after which nothing matters), and
//! SIGCONT is delivered to a handler even though its default action is only "continue". So a
//! SIGCONT counter is exact evidence that a stop may have happened; how far the sampler's
//! interval ran past its tick says, to within a tick, how long it was. The process CPU clock does not help (I/O-bound threads use none), and
//! `/proc/self/stat` cannot be read by a process while it is stopped.
//!
//! A SIGCONT that follows a termination signal is not counted: coreutils `timeout`, systemd
//! and many scripts send SIGTERM and then SIGCONT (so that a stopped process can act on the
//! SIGTERM), to a process that was never stopped; counted, the summary said "stopped 1×" and
//! the I/Os in flight then were set apart as spanning a stop. The handler sees the termination
//! signal either as received (its handler ran) or as still pending (`sigpending`); a real stop
//! in the last moments of a run being ended by a signal is the only one this can miss.
//!
//! The counter is process-wide and readable by anyone (a UI that wants to pause on Ctrl-Z can
//! watch it too). The handler only increments an atomic, which is async-signal-safe, and is
//! installed with SA_RESTART so no system call fails with EINTR because of it.

use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use nix::libc;
use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};

static CONTINUED: AtomicU64 = AtomicU64::new(0);
static INSTALL: Once = Once::new();

extern "C" fn on_sigcont(_: libc::c_int) {
    if crate::signals::received().is_none() && !termination_pending() {
        CONTINUED.fetch_add(1, Relaxed);
    }
}

/// Whether SIGINT, SIGTERM or SIGHUP is pending for this thread or the process.
/// Async-signal-safe: sigemptyset, sigpending and sigismember only touch the local set.
fn termination_pending() -> bool {
    // SAFETY: the calls only write the local set they are given.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigpending(&mut set) == 0
            && [libc::SIGINT, libc::SIGTERM, libc::SIGHUP]
                .iter()
                .any(|&s| libc::sigismember(&set, s) == 1)
    }
}

/// Installs the SIGCONT handler (once per process; later calls do nothing).
pub fn install() {
    INSTALL.call_once(|| {
        let action = SigAction::new(
            SigHandler::Handler(on_sigcont),
            SaFlags::SA_RESTART,
            SigSet::empty(),
        );
        // SAFETY: the handler only increments an atomic, which is async-signal-safe.
        let _ = unsafe { sigaction(Signal::SIGCONT, &action) };
    });
}

/// How many times the process has been continued (SIGCONT received) since it started.
#[inline]
pub fn continued() -> u64 {
    CONTINUED.load(Relaxed)
}

/// True when a SIGCONT has been sent but its handler has not run yet. Right after a stop ends,
/// every thread runs again at once, and the one that takes the signal may not have been
/// scheduled yet; the count would then miss a stop that certainly happened.
pub fn sigcont_pending() -> bool {
    // SAFETY: sigemptyset and sigpending only write the local set they are given.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigpending(&mut set) == 0 && libc::sigismember(&set, libc::SIGCONT) == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sigcont_is_counted() {
        install();
        let before = continued();
        // A SIGCONT to a running process is harmless: it only runs the handler.
        nix::sys::signal::raise(Signal::SIGCONT).unwrap();
        assert_eq!(continued(), before + 1);
        assert!(!sigcont_pending());
    }
}
