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
.TP
\fBLC_ALL\fR, \fBLC_CTYPE\fR, \fBLANG\fR
The first one set decides, as setlocale(3) reads them: when its character set is not
UTF-8 (C, POSIX, none at all), the TUI and text printed to a terminal are drawn in ASCII.
.TP
\fBXDG_STATE_HOME\fR, \fBHOME\fR
Where a result is kept when the terminal goes away (see FILES); a relative path is
ignored, as the XDG base directory specification says.
"#;

/// The FILES section of the man page (roff): what diskscope writes besides its results.
const FILES: &str = r#".SH FILES
.TP
\fI$XDG_STATE_HOME/diskscope/\fR (else \fI~/.local/state/diskscope/\fR)
When the terminal goes away during a run, a sweep or a suite (SIGHUP, a dropped ssh
connection, a terminal that fails every write) and no \-\-json FILE saved the result, it is
kept here as diskscope\-YYYYmmdd\-HHMMSS.json (UTC), in the form \-\-json writes. The
directory is created with mode 0700 and must belong to the user; each result is a new file,
never one written over, and only the newest 10 are kept. The next start in a terminal says
so once; \fBdiskscope \-\-show last\fR prints the newest.
.TP
\fIdiskscope.scratch\fR
The scratch file laid out in the current directory (or TARGET when it is a directory), and
removed on exit unless \-\-keep.
"#;

/// The man page, as roff, with ENVIRONMENT and FILES sections before VERSION.
pub fn man_page() -> String {
    let mut out = Vec::new();
    // Rendering into a Vec cannot fail.
    let _ = clap_mangen::Man::new(Args::command()).render(&mut out);
    let page = String::from_utf8_lossy(&out).into_owned();
    match page.find(".SH VERSION") {
        Some(at) => format!("{}{ENVIRONMENT}{FILES}{}", &page[..at], &page[at..]),
        None => page + ENVIRONMENT + FILES,
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
        let files = page.find(".SH FILES").expect("a FILES section");
        assert!(env < files && files < version);
        assert!(page[files..version].contains("state/diskscope"));
        assert!(page[files..version].contains("\\-\\-show last"));
    }
}
