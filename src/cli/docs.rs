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

/// The ENVIRONMENT section of the man page (roff): the variables diskscope reads.
const ENVIRONMENT: &str = r#".SH ENVIRONMENT
.TP
\fBSYSFS_PATH\fR
Where sysfs is read from, as libudev honours it (default \fI/sys\fR): discovery,
\-\-list, the picker, each disk's link, queue limits, temperature sensor and array
members, and during a run the target's link and limits in the results and the sensor's
temperature, read once a second. Pointing it at a copy of a machine's sysfs tree shows
that machine's disks; device nodes are still opened under /dev and mounts and the kernel's
counters read from /proc. The check that a write target is not in use always reads /sys, so
the variable cannot hide a holder.
.TP
\fBNO_COLOR\fR
When set and not empty, the TUI draws without colour.
"#;

/// The man page, as roff, with an ENVIRONMENT section before VERSION.
pub fn man_page() -> String {
    let mut out = Vec::new();
    // Rendering into a Vec cannot fail.
    let _ = clap_mangen::Man::new(Args::command()).render(&mut out);
    let page = String::from_utf8_lossy(&out).into_owned();
    match page.find(".SH VERSION") {
        Some(at) => format!("{}{ENVIRONMENT}{}", &page[..at], &page[at..]),
        None => page + ENVIRONMENT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_man_page_documents_the_environment_before_the_version() {
        let page = man_page();
        let env = page
            .find(".SH ENVIRONMENT")
            .expect("an ENVIRONMENT section");
        let version = page.find(".SH VERSION").expect("a VERSION section");
        assert!(env < version);
        assert!(page[env..version].contains("SYSFS_PATH"));
        assert!(page[env..version].contains("NO_COLOR"));
    }
}
