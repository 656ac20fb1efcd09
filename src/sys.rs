//! Thin wrappers over libc calls that nix does not cover, so their `unsafe` blocks live in one
//! place with their safety arguments.

/// Caps glibc's malloc arenas at `n`. Each thread that allocates gets an arena of its own
/// by default, and each arena reserves 64 MiB of address space: under `ulimit -v` sixteen
/// workers reserved a gigabyte and the next buffer allocation aborted the process. Call it
/// before any thread starts.
pub fn limit_malloc_arenas(n: i32) {
    // SAFETY: mallopt only changes the allocator's tuning; an unknown option is ignored.
    unsafe {
        nix::libc::mallopt(nix::libc::M_ARENA_MAX, n);
    }
}

/// Sets this thread's niceness (-20..=19) when allowed, and does nothing otherwise: raising
/// priority needs root or CAP_SYS_NICE; lowering it is open to anyone.
pub fn set_thread_niceness(nice: i32) {
    // SAFETY: setpriority on this thread's own tid has no memory effects; a refusal is fine.
    unsafe {
        let tid = nix::libc::gettid();
        let _ = nix::libc::setpriority(nix::libc::PRIO_PROCESS, tid as nix::libc::id_t, nice);
    }
}

/// Sets this thread's timer slack (how late the kernel may wake its sleeps, to batch wakeups)
/// in nanoseconds; a refusal leaves the default (50 µs).
pub fn set_timer_slack_ns(ns: u64) {
    // SAFETY: PR_SET_TIMERSLACK takes an integer and changes only this thread's timer slack.
    unsafe {
        let _ = nix::libc::prctl(nix::libc::PR_SET_TIMERSLACK, ns as nix::libc::c_ulong);
    }
}
