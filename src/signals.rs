//! Termination signals (SIGINT, SIGTERM, SIGHUP) become a flag that run loops poll, so every
//! way of ending a run goes through the same orderly path: stop the workers, print or restore,
//! remove the scratch file. The handler only stores the signal number (async-signal-safe).

use std::sync::atomic::{AtomicI32, Ordering};

use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};

static RECEIVED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: nix::libc::c_int) {
    RECEIVED.store(sig, Ordering::SeqCst);
}

/// Installs the handlers. Safe to call more than once. A SIGHUP ignored when diskscope
/// started (`nohup diskscope …`, a shell's `trap '' HUP`) stays ignored: whoever started it
/// asked for the run to outlive the terminal.
pub fn install() {
    // SIGCONT is held back while the handler runs: `timeout` sends SIGTERM then SIGCONT, and
    // with both pending the kernel would run SIGCONT's handler first (the frame set up last
    // runs first), before this one records the SIGTERM that makes it not a stop (`stops`).
    let mut held = SigSet::empty();
    held.add(Signal::SIGCONT);
    let action = SigAction::new(SigHandler::Handler(on_signal), SaFlags::SA_RESTART, held);
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        // SAFETY: the handler only performs an atomic store, which is async-signal-safe.
        let old = unsafe { sigaction(sig, &action) };
        if sig == Signal::SIGHUP
            && let Ok(old) = old
            && matches!(old.handler(), SigHandler::SigIgn)
        {
            // SAFETY: puts back the disposition found (ignore), which runs no code.
            let _ = unsafe { sigaction(sig, &old) };
        }
    }
}

/// Leaves the termination signals and SIGCONT to the main thread: blocked in the calling
/// thread and in every thread it spawns from now on (they inherit the mask). Every thread
/// diskscope spawns calls it first (the engine's sampler for its workers), so the kernel
/// delivers these signals to the main thread alone, one handler after the other. Delivered to
/// two threads at once, `timeout`'s SIGTERM and the SIGCONT right behind it raced: the
/// SIGCONT's handler could run on a worker after the SIGTERM was taken off the pending set
/// and before its handler recorded it, and counted a stop that never was (`stops`; seen once
/// in three runs under load).
pub fn leave_to_main() {
    let mut set = SigSet::empty();
    for sig in [
        Signal::SIGINT,
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGCONT,
    ] {
        set.add(sig);
    }
    let _ = set.thread_block();
}

/// Records `sig` as if it had been received (a closed stdout is reported as SIGPIPE), unless
/// another signal came first.
pub fn note(sig: Signal) {
    let _ = RECEIVED.compare_exchange(0, sig as i32, Ordering::SeqCst, Ordering::SeqCst);
}

/// The last termination signal received, if any.
pub fn received() -> Option<Signal> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        n => Signal::try_from(n).ok(),
    }
}
