//! The test seam around the ring's kernel calls. A healthy kernel does not fail
//! `io_uring_enter` on demand (it does under cgroup memory pressure, when it cannot allocate a
//! request), so `DISKSCOPE_URING_FAULT` makes chosen calls fail as the kernel would: the call
//! is not made, nothing queued is consumed, and the errno comes back. Each worker's ring
//! counts its own calls, so every thread meets the same fault.
//!
//! The spec is a comma-separated list of `CALL@N=ERRNO` or `CALL@N=ERRNO*K` (`*` alone: every
//! call from the N-th on), CALL being `submit` (a request or pair handed to the kernel),
//! `wait` (waiting for completions), `cancel` (the cancellation of what is in flight) or
//! `hold` (a round of reaping a failed ring finds nothing, as when the device holds its
//! requests longer than the worker waits for them; its errno is not used):
//! `submit@50=EAGAIN*3,wait@200=EIO` fails the 50th to 52nd submissions with EAGAIN and the
//! 200th wait with EIO. Read once when a ring is built; off, it costs one branch per call.

use std::io;

/// The environment variable of the seam.
pub const FAULT_ENV: &str = "DISKSCOPE_URING_FAULT";

/// Which kernel call of the ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Submit,
    Wait,
    Cancel,
    Hold,
}

#[derive(Debug, Clone, Copy)]
struct Rule {
    call: Call,
    /// The first failing call, counting from 1.
    from: u64,
    /// How many fail; `None`: all from `from` on.
    times: Option<u64>,
    errno: i32,
}

/// The faults one ring injects, and how many calls of each kind it has made.
#[derive(Debug, Clone)]
pub struct Faults {
    rules: Vec<Rule>,
    calls: [u64; 4],
}

impl Faults {
    /// The faults the environment asks for: `Ok(None)` when the seam is off.
    pub fn from_env() -> io::Result<Option<Faults>> {
        match std::env::var(FAULT_ENV) {
            Ok(spec) if !spec.is_empty() => Faults::parse(&spec).map(Some).map_err(|e| {
                io::Error::new(io::ErrorKind::InvalidInput, format!("{FAULT_ENV}: {e}"))
            }),
            _ => Ok(None),
        }
    }

    /// Reads a spec (see the module's note).
    pub fn parse(spec: &str) -> Result<Faults, String> {
        let rules = spec
            .split(',')
            .map(|one| rule(one.trim()).ok_or_else(|| format!("cannot read {one:?}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Faults {
            rules,
            calls: [0; 4],
        })
    }

    /// Counts one call of `call`; the error it must fail with, if a rule says so.
    #[cold]
    pub fn check(&mut self, call: Call) -> Option<io::Error> {
        let n = &mut self.calls[call as usize];
        *n += 1;
        let n = *n;
        self.rules
            .iter()
            .find(|r| r.call == call && n >= r.from && r.times.is_none_or(|t| n < r.from + t))
            .map(|r| io::Error::from_raw_os_error(r.errno))
    }
}

fn rule(text: &str) -> Option<Rule> {
    let (call, rest) = text.split_once('@')?;
    let call = match call {
        "submit" => Call::Submit,
        "wait" => Call::Wait,
        "cancel" => Call::Cancel,
        "hold" => Call::Hold,
        _ => return None,
    };
    let (from, errno) = rest.split_once('=')?;
    let (errno, times) = match errno.split_once('*') {
        Some((e, "")) => (e, None),
        Some((e, k)) => (e, Some(k.parse().ok()?)),
        None => (errno, Some(1)),
    };
    Some(Rule {
        call,
        from: from.parse().ok().filter(|&n| n >= 1)?,
        times,
        errno: errno_of(errno)?,
    })
}

fn errno_of(name: &str) -> Option<i32> {
    use nix::libc::*;
    Some(match name {
        "EAGAIN" => EAGAIN,
        "EBUSY" => EBUSY,
        "ENOMEM" => ENOMEM,
        "EIO" => EIO,
        "EINVAL" => EINVAL,
        "EFAULT" => EFAULT,
        "EINTR" => EINTR,
        "ETIME" => ETIME,
        n => n.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_fails_the_calls_it_names_and_no_others() {
        let mut f = Faults::parse("submit@2=EAGAIN*2, wait@1=EIO, cancel@3=ENOMEM*").unwrap();
        let submits: Vec<_> = (0..5)
            .map(|_| f.check(Call::Submit).and_then(|e| e.raw_os_error()))
            .collect();
        let again = Some(nix::libc::EAGAIN);
        assert_eq!(submits, [None, again, again, None, None]);
        assert_eq!(
            f.check(Call::Wait).unwrap().raw_os_error(),
            Some(nix::libc::EIO)
        );
        assert!(f.check(Call::Wait).is_none());
        let cancels: Vec<_> = (0..5).map(|_| f.check(Call::Cancel).is_some()).collect();
        assert_eq!(cancels, [false, false, true, true, true]);
        for bad in [
            "submit",
            "submit@0=EIO",
            "read@1=EIO",
            "wait@1=ENOPE",
            "wait@1=EIO*x",
        ] {
            assert!(Faults::parse(bad).is_err(), "{bad}");
        }
    }
}
