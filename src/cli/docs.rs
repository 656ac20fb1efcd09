//! Shell completions and the man page, generated from the same clap definition as the parser
//! (clap_complete, clap_mangen), so they can never list a flag the program does not take.

use clap::CommandFactory;
use clap_complete::Shell;

use super::Args;

/// The completion script for `shell`.
pub fn completions(shell: Shell) -> String {
    let mut cmd = Args::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "diskscope", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// The man page, as roff.
pub fn man_page() -> String {
    let mut out = Vec::new();
    // Rendering into a Vec cannot fail.
    let _ = clap_mangen::Man::new(Args::command()).render(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}
