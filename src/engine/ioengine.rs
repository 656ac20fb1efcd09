//! Choosing how the workers drive the disk: io_uring when the kernel allows it, psync
//! (pread/pwrite, one I/O in flight per thread) otherwise. The kernel is asked the only way
//! that cannot be wrong: by building a small ring and checking that it knows the operations
//! the engine submits. io_uring is refused by old kernels (ENOSYS), by the sysctl
//! `kernel.io_uring_disabled` (EPERM; Linux 6.6), and by container seccomp filters (EPERM);
//! each refusal is put in words naming the errno and what would allow it.
//!
//! Test seam: the environment variable `DISKSCOPE_REFUSE_IO_URING=1` makes the probe fail as
//! if the kernel had refused, so the fallback can be tested without root or an old kernel.

use io_uring::{IoUring, Probe, opcode};
use nix::errno::Errno;

use crate::settings::IoEngine;

/// The environment variable of the test seam.
pub const REFUSE_ENV: &str = "DISKSCOPE_REFUSE_IO_URING";
/// Where Linux 6.6 and later say whether io_uring is allowed.
const DISABLED_SYSCTL: &str = "/proc/sys/kernel/io_uring_disabled";

/// The engine a run uses, and why it is not io_uring when io_uring was wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub engine: IoEngine,
    /// Said once in the header and summary: "io_uring refused (…); psync at depth 1".
    pub fallback: Option<String>,
}

/// Picks the engine: `asked` None means io_uring if the kernel allows it, else psync with
/// the reason. Asking for io_uring when it is refused is an error that says why.
pub fn resolve(asked: Option<IoEngine>) -> Result<Resolved, String> {
    match (asked, probe()) {
        (Some(IoEngine::Psync), _) => Ok(Resolved {
            engine: IoEngine::Psync,
            fallback: None,
        }),
        (_, Ok(())) => Ok(Resolved {
            engine: IoEngine::IoUring,
            fallback: None,
        }),
        (Some(IoEngine::IoUring), Err(why)) => Err(format!(
            "--ioengine io_uring: {why}; use --ioengine psync (one I/O in flight per thread)"
        )),
        (None, Err(why)) => Ok(Resolved {
            engine: IoEngine::Psync,
            fallback: Some(format!(
                "io_uring unavailable ({why}): psync, queue depth 1"
            )),
        }),
    }
}

/// Whether this process may use io_uring with the operations the engine needs; the error
/// says why not.
pub fn probe() -> Result<(), String> {
    if std::env::var(REFUSE_ENV).is_ok_and(|v| v == "1") {
        return Err(format!("refused by {REFUSE_ENV}=1, a test seam"));
    }
    let ring = IoUring::new(2).map_err(|e| refusal(e.raw_os_error()))?;
    let mut probe = Probe::new();
    let needed = [
        opcode::Read::CODE,
        opcode::Write::CODE,
        opcode::ReadFixed::CODE,
    ];
    match ring.submitter().register_probe(&mut probe) {
        Ok(()) if needed.iter().all(|&op| probe.is_supported(op)) => Ok(()),
        _ => Err(
            "the kernel's io_uring lacks reads and writes by offset (Linux 5.6 or later \
                  has them)"
                .into(),
        ),
    }
}

/// Puts io_uring_setup's errno in words, with what would allow it.
fn refusal(errno: Option<i32>) -> String {
    let sysctl = std::fs::read_to_string(DISABLED_SYSCTL)
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok());
    match (errno.map(Errno::from_raw), sysctl) {
        (Some(Errno::ENOSYS), _) => "the kernel has no io_uring (ENOSYS; Linux 5.6 or later \
                                     has it)"
            .into(),
        (Some(Errno::EPERM), Some(2)) => "kernel.io_uring_disabled=2 forbids it (EPERM); \
                                          `sysctl kernel.io_uring_disabled=0` allows it"
            .into(),
        (Some(Errno::EPERM), Some(1)) => "kernel.io_uring_disabled=1 allows it only to \
                                          root and kernel.io_uring_group (EPERM)"
            .into(),
        (Some(Errno::EPERM), _) => "forbidden (EPERM), likely by the container's seccomp \
                                    filter"
            .into(),
        (Some(e), _) => format!("io_uring_setup failed: {} ({e:?})", e.desc()),
        (None, _) => "io_uring_setup failed".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_errno_and_the_way_out() {
        assert!(refusal(Some(nix::libc::ENOSYS)).contains("ENOSYS"));
        let e = refusal(Some(nix::libc::EPERM));
        assert!(e.contains("EPERM"), "{e}");
        let e = refusal(Some(nix::libc::ENOMEM));
        assert!(e.contains("ENOMEM"), "{e}");
    }

    #[test]
    fn psync_asked_is_psync_without_a_reason() {
        let r = resolve(Some(IoEngine::Psync)).unwrap();
        assert_eq!(r.engine, IoEngine::Psync);
        assert_eq!(r.fallback, None);
    }
}
