//! How diskscope ends, as one enum: every path out of the program (the front door, a headless
//! run, the TUI) returns an `ExitStatus`, and this is the only place that turns one into a
//! number. The numbers are the ones `--help` documents; a signal ends with 128 + its number,
//! as a shell reports a process killed by it.

use nix::sys::signal::Signal;

use crate::signals;

/// The outcome of a diskscope process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Done, nothing went wrong.
    Success,
    /// The run could not start or failed.
    Failure,
    /// The command line was refused.
    BadArguments,
    /// The run completed, but some I/Os failed or came back short.
    IoErrors,
    /// A termination signal (or a closed stdout, as SIGPIPE) ended the run.
    Signal(Signal),
}

impl ExitStatus {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::BadArguments => 2,
            ExitStatus::IoErrors => 3,
            ExitStatus::Signal(sig) => 128u8.saturating_add(sig as i32 as u8),
        }
    }

    /// The status of a finished run: a signal received wins, then I/O errors.
    pub fn after_run(had_io_errors: bool) -> Self {
        match signals::received() {
            Some(sig) => ExitStatus::Signal(sig),
            None if had_io_errors => ExitStatus::IoErrors,
            None => ExitStatus::Success,
        }
    }

    /// The signal received, if any, else `Success`: a run left before it started.
    pub fn left() -> Self {
        signals::received().map_or(ExitStatus::Success, ExitStatus::Signal)
    }

    /// A closed stdout ends `--list` and `--fio` like a run: 128 + SIGPIPE.
    pub fn unless_stdout_closed(self) -> Self {
        match signals::received() {
            Some(Signal::SIGPIPE) => ExitStatus::Signal(Signal::SIGPIPE),
            _ => self,
        }
    }
}

/// An error that is the command line's: what it asks cannot be done as asked (a write not
/// confirmed, a confirmation naming another device), found only once the target was looked
/// at. Carried inside the run's error, it ends the process as `BadArguments` (2), as clap's
/// refusals do, not as a run that failed (1).
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl ExitStatus {
    /// The status of a run that could not start: `BadArguments` when the error is the command
    /// line's (`Refused` anywhere in its chain), else `Failure`.
    pub fn of_error(e: &anyhow::Error) -> Self {
        if e.chain().any(|c| c.is::<Refused>()) {
            ExitStatus::BadArguments
        } else {
            ExitStatus::Failure
        }
    }
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(status: ExitStatus) -> Self {
        std::process::ExitCode::from(status.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_help_text_and_the_shell_convention() {
        assert_eq!(ExitStatus::Success.code(), 0);
        assert_eq!(ExitStatus::Failure.code(), 1);
        assert_eq!(ExitStatus::BadArguments.code(), 2);
        assert_eq!(ExitStatus::IoErrors.code(), 3);
        assert_eq!(ExitStatus::Signal(Signal::SIGINT).code(), 130);
        assert_eq!(ExitStatus::Signal(Signal::SIGPIPE).code(), 141);
        assert_eq!(ExitStatus::Signal(Signal::SIGTERM).code(), 143);
    }

    #[test]
    fn a_refusal_is_bad_arguments_however_deep_in_the_chain() {
        let e = anyhow::Error::new(Refused("x".into())).context("preparing /dev/loop0");
        assert_eq!(ExitStatus::of_error(&e), ExitStatus::BadArguments);
        assert_eq!(
            ExitStatus::of_error(&anyhow::anyhow!("x")),
            ExitStatus::Failure
        );
    }
}
