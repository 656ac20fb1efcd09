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

const LOOP_GET_STATUS64: nix::libc::c_ulong = 0x4C05;

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
        as nix::libc::c_ulong;
    let mut flags: nix::libc::c_int = 0;
    // SAFETY: FS_IOC_GETFLAGS writes one int through the pointer, which points at a live
    // c_int; the caller passes a regular file or directory, whose filesystem handles it.
    let rc = unsafe { nix::libc::ioctl(file.as_raw_fd(), request, &mut flags) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(flags as u32)
}
