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
