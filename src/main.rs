//! The `diskscope` binary: parse the command line, run, turn any error into one line on
//! stderr and an exit status. All the work is in the library.

use std::process::ExitCode;

use clap::Parser;
use diskscope::cli::Args;

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) if e.exit_code() == 0 => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let text = e.to_string();
            let first = text
                .lines()
                .next()
                .unwrap_or("bad arguments")
                .trim_start_matches("error: ");
            eprintln!("diskscope: {first} (diskscope --help lists the options)");
            return ExitCode::from(2);
        }
    };
    let config = match args.validate() {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("diskscope: {msg}");
            return ExitCode::from(2);
        }
    };
    match diskscope::app::run(config) {
        // A closed stdout ends --list and --fio like a run: 128 + SIGPIPE.
        Ok(code) => ExitCode::from(match diskscope::signals::received() {
            Some(nix::sys::signal::Signal::SIGPIPE) => 141,
            _ => code,
        }),
        Err(e) => {
            eprintln!("diskscope: {e:#}");
            ExitCode::from(1)
        }
    }
}
