//! The fio jobs of diskscope's data checks, so a verify can be repeated with fio: `--verify`
//! on a run adds fio's `verify=crc32c` with `verify_backlog=32` (each diskscope thread reads
//! back its own last 32 writes while the load goes on; fio verifies each job's last 32 written
//! blocks), and `--burn-in` is a sequential write of the span in stripes, one per thread,
//! then its read-back (`do_verify=1`), `loops` for `--passes`; `=write` writes only
//! (`do_verify=0`) and `=verify` reads only (`verify_only=1`, the same job run again). fio's
//! blocks carry fio's own header (its checksum over the block), not diskscope's stamp, so
//! each tool verifies only what it wrote. The quick capacity probe has no fio equivalent.

use crate::model::ConfigReport;

use super::job::FioJob;

/// What fio's verify reads back while writing: diskscope's backlog per thread.
pub const BACKLOG: usize = crate::engine::check::BACKLOG;

/// Which halves of a burn-in the job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halves {
    /// Write, then read back and check.
    Both,
    /// Write only (`do_verify=0`).
    Write,
    /// Read back and check only (`verify_only=1`).
    Verify,
}

impl FioJob {
    /// `--verify`: the run's job with fio's in-flight verify.
    pub fn verify_live(self) -> FioJob {
        let mut job = self;
        job.global.push(("verify", "crc32c".into()));
        job.global.push(("verify_backlog", BACKLOG.to_string()));
        job.note(
            "--verify: fio checks its own header (crc32c) on each job's last 32 writes \
             (verify_backlog); diskscope stamps every 4 KiB and each thread reads back its \
             last 32 writes; a mix's reads are fio's own as well",
        );
        job
    }

    /// `--burn-in[=write|=verify]` on `c` (its settings: the block size and threads the
    /// burn-in runs with): the span written once per pass in order, each thread its stripe.
    pub fn burn_in(c: &ConfigReport, half: Halves, passes: u32) -> FioJob {
        let mut c = c.clone();
        c.settings.read_pct = 0;
        c.settings.random_pct = 0;
        c.settings.rate_iops = 0;
        c.duration_s = None;
        let mut job = FioJob::run(&c);
        job.global
            .retain(|(k, _)| !matches!(*k, "time_based" | "runtime"));
        job.global.push(("verify", "crc32c".into()));
        match half {
            Halves::Both => job.global.push(("do_verify", "1".into())),
            Halves::Write => job.global.push(("do_verify", "0".into())),
            Halves::Verify => job.global.push(("verify_only", "1".into())),
        }
        if passes > 1 && half != Halves::Verify {
            job.global.push(("loops", passes.to_string()));
        }
        job.note(
            "--burn-in: each job writes its stripe once in order and fio reads it back \
             (do_verify); fio's header (crc32c) is its own, not diskscope's stamp; run the \
             verify half (verify_only=1) with the same job file as the write",
        );
        job
    }
}
