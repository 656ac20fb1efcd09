//! Thin wrappers over libc calls that nix does not cover, so their `unsafe` blocks live in one
//! place with their safety arguments.

/// Caps glibc's malloc arenas at `n`. Each thread that allocates gets an arena of its own
/// by default, and each arena reserves 64 MiB of address space: under `ulimit -v` sixteen
/// workers reserved a gigabyte and the next buffer allocation aborted the process. Call it
/// before any thread starts. musl's malloc has no arenas to cap.
pub fn limit_malloc_arenas(n: i32) {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only changes the allocator's tuning; an unknown option is ignored.
    unsafe {
        nix::libc::mallopt(nix::libc::M_ARENA_MAX, n);
    }
    #[cfg(not(target_env = "gnu"))]
    let _ = n;
}

/// Sets this thread's niceness (-20..=19) when allowed, and does nothing otherwise: raising
/// priority needs root or CAP_SYS_NICE; lowering it is open to anyone.
pub fn set_thread_niceness(nice: i32) {
    let tid = gettid();
    // SAFETY: setpriority on this thread's own tid has no memory effects; a refusal is fine.
    unsafe {
        let _ = nix::libc::setpriority(nix::libc::PRIO_PROCESS, tid as nix::libc::id_t, nice);
    }
}

/// This thread's niceness (0 where it cannot be read).
pub fn thread_niceness() -> i32 {
    let tid = gettid();
    // SAFETY: getpriority reads the scheduler's value for this thread's own tid and touches no
    // memory. -1 is both a niceness and the error value: errno is cleared first to tell.
    unsafe {
        nix::errno::Errno::clear();
        let n = nix::libc::getpriority(nix::libc::PRIO_PROCESS, tid as nix::libc::id_t);
        if n == -1 && nix::errno::Errno::last_raw() != 0 {
            0
        } else {
            n
        }
    }
}

/// This thread's id, by the system call itself: glibc's `gettid()` wrapper only exists from
/// 2.30, and the binary `scripts/dist --glibc` builds must run on glibc 2.28.
pub fn gettid() -> nix::libc::pid_t {
    // SAFETY: gettid takes no arguments, touches no memory and cannot fail.
    unsafe { nix::libc::syscall(nix::libc::SYS_gettid) as nix::libc::pid_t }
}

/// Renames `from` to `to` unless `to` exists (`renameat2` with `RENAME_NOREPLACE`), by the
/// system call itself: a build against glibc 2.28 (scripts/dist --glibc) failed to link
/// glibc's wrapper. EEXIST
/// when `to` exists; EINVAL where the filesystem cannot do it, ENOSYS before Linux 3.15.
pub fn rename_noreplace(from: &std::path::Path, to: &std::path::Path) -> nix::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &std::path::Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(|_| nix::errno::Errno::EINVAL)
    };
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: both paths are NUL-terminated strings that live across the call; the kernel
    // only reads them, and the flags are a plain integer.
    let r = unsafe {
        nix::libc::syscall(
            nix::libc::SYS_renameat2,
            nix::libc::AT_FDCWD,
            from.as_ptr(),
            nix::libc::AT_FDCWD,
            to.as_ptr(),
            nix::libc::RENAME_NOREPLACE,
        )
    };
    nix::errno::Errno::result(r).map(drop)
}

/// Sets this thread's timer slack (how late the kernel may wake its sleeps, to batch wakeups)
/// in nanoseconds; a refusal leaves the default (50 µs).
pub fn set_timer_slack_ns(ns: u64) {
    // SAFETY: PR_SET_TIMERSLACK takes an integer and changes only this thread's timer slack.
    unsafe {
        let _ = nix::libc::prctl(nix::libc::PR_SET_TIMERSLACK, ns as nix::libc::c_ulong);
    }
}

/// The local time zone's offset from UTC, in seconds east, at `unix_secs` (glibc's
/// `localtime_r`, which honours `TZ` and /etc/localtime); `None` when the C library cannot
/// say.
// musl's libc crate marks time_t deprecated (it became 64-bit in musl 1.2.0); it is the type
// localtime_r takes in either C library.
#[allow(deprecated)]
pub fn utc_offset_s(unix_secs: i64) -> Option<i64> {
    let t = unix_secs as nix::libc::time_t;
    // SAFETY: an all-zero tm is valid (integers and a null zone-name pointer).
    let mut tm: nix::libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: localtime_r reads the time_t and writes one tm through pointers to live values
    // of those types; it returns null on failure and keeps no reference to either.
    let done = unsafe { nix::libc::localtime_r(&t, &mut tm) };
    (!done.is_null()).then_some(tm.tm_gmtoff)
}

/// `struct loop_info64` of linux/loop.h (232 bytes): what the kernel says backs a loop device.
#[repr(C)]
pub struct LoopInfo64 {
    /// `st_dev` of the backing file (its filesystem's device), encoded as `stat` encodes it.
    pub lo_device: u64,
    /// `st_ino` of the backing file: valid even when the file was renamed or deleted.
    pub lo_inode: u64,
    /// `st_rdev` of the backing file: the device number when a block device backs the loop.
    pub lo_rdevice: u64,
    /// Where the loop device's byte 0 lies in the backing file.
    pub lo_offset: u64,
    /// How many bytes of the backing file the loop device exposes; 0 is "to the end".
    pub lo_sizelimit: u64,
    pub lo_number: u32,
    pub lo_encrypt_type: u32,
    pub lo_encrypt_key_size: u32,
    pub lo_flags: u32,
    pub lo_file_name: [u8; 64],
    pub lo_crypt_name: [u8; 64],
    pub lo_encrypt_key: [u8; 32],
    pub lo_init: [u64; 2],
}

const LOOP_GET_STATUS64: nix::libc::Ioctl = 0x4C05;

/// Asks the kernel what backs the loop device open as `file` (LOOP_GET_STATUS64); ENXIO when
/// the loop device is free, ENOTTY when `file` is not a loop device.
pub fn loop_status64(file: &std::fs::File) -> std::io::Result<LoopInfo64> {
    use std::os::fd::AsRawFd;
    // SAFETY: an all-zero loop_info64 is valid (integers and byte arrays only).
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: LOOP_GET_STATUS64 writes one loop_info64 through the pointer, which points at a
    // live value of that type; a descriptor that is not a loop device gets ENOTTY.
    let rc = unsafe { nix::libc::ioctl(file.as_raw_fd(), LOOP_GET_STATUS64, &mut info) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(info)
}

/// `FS_IMMUTABLE_FL` of linux/fs.h (`chattr +i`): no write, rename, link or removal.
pub const FS_IMMUTABLE_FL: u32 = 0x0000_0010;
/// `FS_APPEND_FL` of linux/fs.h (`chattr +a`): writes only at the end; for a directory,
/// entries may be added but never removed or renamed.
pub const FS_APPEND_FL: u32 = 0x0000_0020;

/// The inode attribute flags (`lsattr`) of the regular file or directory open as `file`
/// (FS_IOC_GETFLAGS); ENOTTY where the filesystem keeps none. Never call it on a device node:
/// there the ioctl goes to the driver.
pub fn inode_flags(file: &std::fs::File) -> std::io::Result<u32> {
    use std::os::fd::AsRawFd;
    // The request number encodes sizeof(long), though the kernel reads and writes an int.
    let request = nix::request_code_read!(b'f', 1, std::mem::size_of::<nix::libc::c_long>())
        as nix::libc::Ioctl;
    let mut flags: nix::libc::c_int = 0;
    // SAFETY: FS_IOC_GETFLAGS writes one int through the pointer, which points at a live
    // c_int; the caller passes a regular file or directory, whose filesystem handles it.
    let rc = unsafe { nix::libc::ioctl(file.as_raw_fd(), request, &mut flags) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(flags as u32)
}

/// Where sysfs is read from: `$SYSFS_PATH` when set and not empty (as libudev honours it, so a
/// fixture tree can stand in for the machine's), else `/sys`. Trailing slashes are dropped.
/// Every sysfs read of the program goes through this root.
pub fn sysfs_root() -> std::path::PathBuf {
    sysfs_root_from(std::env::var_os("SYSFS_PATH"))
}

/// [`sysfs_root`] for a given value of the variable (the testable half).
pub fn sysfs_root_from(value: Option<std::ffi::OsString>) -> std::path::PathBuf {
    match value {
        Some(v) if !v.is_empty() => {
            let text = v.to_string_lossy();
            let trimmed = text.trim_end_matches('/');
            if trimmed.is_empty() {
                std::path::PathBuf::from("/")
            } else {
                std::path::PathBuf::from(trimmed)
            }
        }
        _ => std::path::PathBuf::from("/sys"),
    }
}

/// The NVMe admin passthrough command (`struct nvme_passthru_cmd` of linux/nvme_ioctl.h),
/// 72 bytes, as `NVME_IOCTL_ADMIN_CMD` takes it.
#[repr(C)]
#[derive(Debug, Default)]
struct NvmePassthruCmd {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    result: u32,
}

const _: () = assert!(std::mem::size_of::<NvmePassthruCmd>() == 72);

// NVME_IOCTL_ADMIN_CMD = _IOWR('N', 0x41, struct nvme_admin_cmd) (linux/nvme_ioctl.h).
nix::ioctl_readwrite!(nvme_ioctl_admin_cmd, b'N', 0x41, NvmePassthruCmd);

/// NVMe Get Log Page (admin opcode 02h) of log `lid` for namespace `nsid` into `buf` (whole
/// dwords, at most 4 KiB), through the controller's character device `fd` (`/dev/nvme0`).
/// `None` when the ioctl is refused (no root: EACCES/EPERM; not an NVMe device: ENOTTY) or
/// the drive answers with an NVMe status.
pub fn nvme_get_log_page(fd: &std::fs::File, lid: u8, nsid: u32, buf: &mut [u8]) -> Option<()> {
    use std::os::fd::AsRawFd;
    if buf.is_empty() || !buf.len().is_multiple_of(4) || buf.len() > 4096 {
        return None;
    }
    let dwords = (buf.len() / 4) as u32;
    let mut cmd = NvmePassthruCmd {
        opcode: 0x02,
        nsid,
        addr: buf.as_mut_ptr() as u64,
        data_len: buf.len() as u32,
        // CDW10: the log page identifier in bits 7:0, the number of dwords minus one (lower
        // half) in bits 31:16 (NVMe base specification, Get Log Page command).
        cdw10: u32::from(lid) | ((dwords - 1) << 16),
        ..NvmePassthruCmd::default()
    };
    // SAFETY: `cmd` is a live, correctly laid out nvme_passthru_cmd (size checked above); its
    // `addr`/`data_len` describe `buf`, which is mutably borrowed for the whole call, so the
    // kernel writes at most `buf.len()` bytes into memory we own. A descriptor that is not an
    // NVMe controller makes the ioctl fail with ENOTTY, touching nothing.
    let status = unsafe { nvme_ioctl_admin_cmd(fd.as_raw_fd(), &mut cmd) };
    match status {
        Ok(0) => Some(()),
        _ => None,
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
        tv_sec: timeout.as_secs().min(i64::MAX as u64) as _,
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::path::PathBuf;

    #[test]
    fn sysfs_root_follows_the_variable_like_libudev() {
        assert_eq!(sysfs_root_from(None), PathBuf::from("/sys"));
        assert_eq!(
            sysfs_root_from(Some(OsString::new())),
            PathBuf::from("/sys")
        );
        assert_eq!(
            sysfs_root_from(Some("tests/fixtures/sysfs/x/".into())),
            PathBuf::from("tests/fixtures/sysfs/x")
        );
        assert_eq!(sysfs_root_from(Some("/".into())), PathBuf::from("/"));
    }

    #[test]
    fn log_page_refuses_a_buffer_it_cannot_describe_and_a_non_nvme_descriptor() {
        let file = tempfile::tempfile().unwrap();
        let mut odd = [0u8; 6];
        assert_eq!(nvme_get_log_page(&file, 2, u32::MAX, &mut odd), None);
        let mut buf = [0u8; 512];
        // A regular file is not an NVMe controller: the ioctl fails (ENOTTY), quietly.
        assert_eq!(nvme_get_log_page(&file, 2, u32::MAX, &mut buf), None);
        assert!(buf.iter().all(|&b| b == 0));
    }

    #[test]
    fn gettid_is_this_threads_id_as_the_kernel_names_it() {
        let on_thread = || {
            let link = std::fs::read_link("/proc/thread-self").unwrap();
            // "<pid>/task/<tid>"
            let tid: i32 = link.file_name().unwrap().to_str().unwrap().parse().unwrap();
            assert_eq!(gettid(), tid, "{link:?}");
            tid
        };
        let here = on_thread();
        let there = std::thread::spawn(on_thread).join().unwrap();
        assert_ne!(here, there);
    }

    #[test]
    fn rename_noreplace_renames_but_never_over_a_name() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        assert_eq!(rename_noreplace(&a, &b), Err(nix::errno::Errno::EEXIST));
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "b");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a");
        assert_eq!(rename_noreplace(&a, &c), Ok(()));
        assert!(!a.exists());
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "a");
        assert_eq!(rename_noreplace(&a, &c), Err(nix::errno::Errno::ENOENT));
    }
}
