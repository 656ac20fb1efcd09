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

/// Sleeps until `word` no longer holds `expected`, a `futex_wake_all` on it, or `timeout`
/// passed, whichever comes first (FUTEX_WAIT_PRIVATE; spurious wake-ups are possible, so the
/// caller re-checks what it waits for). A worker waiting for its next slot on a rate's
/// timetable sleeps here, so it wakes at the slot or at once when the settings change,
/// without waking every few milliseconds to look.
pub fn futex_wait(
    word: &std::sync::atomic::AtomicU32,
    expected: u32,
    timeout: std::time::Duration,
) {
    let ts = nix::libc::timespec {
        tv_sec: timeout.as_secs().min(i64::MAX as u64) as nix::libc::time_t,
        tv_nsec: timeout.subsec_nanos() as nix::libc::c_long,
    };
    // SAFETY: the futex word is a live, aligned u32 for the call's duration and the timespec a
    // live local; FUTEX_WAIT only reads them. EAGAIN, EINTR and ETIMEDOUT all mean "look again".
    unsafe {
        nix::libc::syscall(
            nix::libc::SYS_futex,
            word.as_ptr(),
            nix::libc::FUTEX_WAIT | nix::libc::FUTEX_PRIVATE_FLAG,
            expected,
            &ts as *const nix::libc::timespec,
        );
    }
}

/// Wakes every thread sleeping in `futex_wait` on `word` (change the word first).
pub fn futex_wake_all(word: &std::sync::atomic::AtomicU32) {
    // SAFETY: FUTEX_WAKE only uses the word's address as a key; nothing is read or written.
    unsafe {
        nix::libc::syscall(
            nix::libc::SYS_futex,
            word.as_ptr(),
            nix::libc::FUTEX_WAKE | nix::libc::FUTEX_PRIVATE_FLAG,
            i32::MAX,
        );
    }
}

/// This thread's scheduler statistics, `/proc/thread-self/schedstat`, kept open so a reading
/// costs one pread and no allocation. Its first two fields are the thread's time on a CPU and
/// its time runnable but waiting for one, in nanoseconds (the kernel's
/// Documentation/scheduler/sched-stats.rst).
pub struct ThreadSchedstat(std::fs::File);

impl ThreadSchedstat {
    /// Opens the calling thread's file; `None` where the kernel has no schedstat. Only the
    /// thread that opened it should read it (it names that thread).
    pub fn open() -> Option<ThreadSchedstat> {
        std::fs::File::open("/proc/thread-self/schedstat")
            .ok()
            .map(ThreadSchedstat)
    }

    /// (on-CPU ns, run-queue wait ns) as of now.
    pub fn read(&self) -> Option<(u64, u64)> {
        use std::os::unix::fs::FileExt;
        let mut buf = [0u8; 96];
        let n = self.0.read_at(&mut buf, 0).ok()?;
        parse_schedstat(std::str::from_utf8(&buf[..n]).ok()?)
    }
}

/// The first two numbers of a schedstat line: on-CPU and run-queue wait nanoseconds.
pub fn parse_schedstat(text: &str) -> Option<(u64, u64)> {
    let mut fields = text.split_ascii_whitespace().map(|f| f.parse::<u64>().ok());
    Some((fields.next()??, fields.next()??))
}
