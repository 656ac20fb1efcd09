//! Thin wrappers over libc calls that nix does not cover, so their `unsafe` blocks live in one
//! place with their safety arguments.

/// Sets this thread's niceness (-20..=19) when allowed, and does nothing otherwise: raising
/// priority needs root or CAP_SYS_NICE; lowering it is open to anyone.
pub fn set_thread_niceness(nice: i32) {
    // SAFETY: setpriority on this thread's own tid has no memory effects; a refusal is fine.
    unsafe {
        let tid = nix::libc::gettid();
        let _ = nix::libc::setpriority(nix::libc::PRIO_PROCESS, tid as nix::libc::id_t, nice);
    }
}
