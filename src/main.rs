//! The `diskscope` binary: parse the command line, run, turn any error into one line on
//! stderr and an exit status. All the work is in the library.
#![deny(clippy::unwrap_used)]

use std::io::Write;
use std::process::ExitCode;

use diskscope::cli::Args;
use diskscope::exit::ExitStatus;

fn main() -> ExitCode {
    diskscope::engine::memory::prepare_allocator();
    let args = match Args::try_parse_noting(std::env::args_os()) {
        Ok(a) => a,
        Err(e) if e.exit_code() == 0 => {
            // --help and --version.
            let _ = e.print();
            return ExitStatus::Success.into();
        }
        Err(e) => {
            say(&diskscope::cli::values::describe(&e));
            return ExitStatus::BadArguments.into();
        }
    };
    let config = match args.validate() {
        Ok(c) => c,
        Err(msg) => {
            say(&diskscope::units::one_line(&msg));
            return ExitStatus::BadArguments.into();
        }
    };
    match diskscope::run::run(config) {
        Ok(status) => status.unless_stdout_closed().into(),
        Err(e) => {
            // One line, whatever a path in it holds.
            say(&diskscope::units::one_line(&format!("{e:#}")));
            ExitStatus::of_error(&e).into()
        }
    }
}

/// "diskscope: `line`" on stderr; a stderr that is gone (a hung-up terminal) is ignored, where
/// `eprintln!` would panic.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "diskscope: {line}");
}
