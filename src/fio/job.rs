//! The fio equivalent of a diskscope run or sweep, so a result found interactively can be
//! repeated with fio — on this host, or across many with fio's client/server mode
//! (`fio --client=HOST job`). It must describe the same run, knob by knob:
//!
//! - threads → `numjobs` with `thread`; pread/pwrite → `ioengine=psync`; io_uring →
//!   `ioengine=io_uring` with `iodepth` and the registrations diskscope makes (`fixedbufs`,
//!   `registerfiles`); O_DIRECT → `direct`. The job must be the same work on every fio still
//!   shipped, not only the newest (`FIXEDBUFS_SYNC_TRAP`): Debian 12 has 3.33, Ubuntu 22.04
//!   3.28 and 24.04 3.36, RHEL 8 3.19 and RHEL 9 3.35 (their release repositories); every
//!   option written here is older than 3.19 but `fixedbufs`' behaviour beside `fdatasync`;
//!   read % → `rw` + `rwmixread`; random % → `rw` + `percentage_random`; `-T` → `runtime` with
//!   `time_based`; a sweep's uncounted ramp → `ramp_time`, one `stonewall`ed group per step;
//!   a suite → one `stonewall`ed group per pass of each test, in the card's order.
//! - `--rate` (total over threads) → `rate_iops` per job, the total divided by the jobs, and
//!   for a mix split into reads and writes (fio caps each direction apart); fio times latency
//!   from submission, which is diskscope's `service_latency_ns`, not its corrected figure.
//! - The span: random offsets cover the whole span, with replacement (`norandommap`, a 64-bit
//!   generator): every job gets `offset=0`, `size=` the span; `random_distribution` as asked.
//! - Sequential stripes: each thread walks its own stripe and wraps at its end
//!   (`engine::pattern`). The stripes come from `OffsetGen` itself; when they are equal and
//!   back to back, one job with `offset_increment` = `size` = the stripe; otherwise one job
//!   per thread with its exact `offset` and `size` (never `filesize`: see the quirks in
//!   `fio`).
//! - The page cache: fio's `invalidate=1` and `fadvise_hint`, off unless `--drop-cache`;
//!   `--hipri` → `hipri`.
//! - Trims (`--trim`) → `rw=randtrim`/`randtrimwrite`, or a second set of jobs under flow
//!   control where fio cannot mix them in (`trim`).
//! - The file name: escaped or, where fio cannot name it (`fio`'s quirks), a symlink.
//!
//! A fleet (`FioJob::fleet`) runs the same job on every host through `fio --client`: this is
//! the one writer of job files, for `--fio` and `--fleet` alike. What fio cannot express is
//! said in `#` comments of the job file, never hidden.

use std::time::Duration;

use crate::model::ConfigReport;
use crate::settings::{IoEngine, Settings};
use crate::suite::Plan;
use crate::sweep::{RAMP, SweepSpec};

pub use super::names::check_fleet_path;
use super::names::{LINK, escape_colons, fio_cannot_name, fio_time, shell_quote};
use super::placement::{Options, RATE_BASIS, distribution, mix_differences, placements};
use super::placement::{rate_per_job, whole_placements};

/// Why a job with `fdatasync` registers no buffers. Measured here with fio 3.33 (Debian 12),
/// `--ioengine=io_uring --iodepth=4 --fixedbufs --fdatasync=1`, counting the kernel's
/// `io_uring:io_uring_submit_req` events: 4,865 FSYNC for 37,665 WRITE_FIXED in 2 s, while
/// fio's own JSON claimed 37,665 syncs; without `fixedbufs`, 6,118 FSYNC for 6,118 WRITE.
/// The export would be fio "six times as fast" doing a seventh of the syncs.
pub const FIXEDBUFS_SYNC_TRAP: &str = "no fixedbufs: beside fdatasync, fio before 3.38 (Debian 12's 3.33, Ubuntu's 3.28 and \
     3.36, RHEL's 3.19 and 3.35) sends far fewer syncs than asked with registered buffers \
     (3.33: 4,865 FSYNC for 37,665 writes at fdatasync=1, by the kernel's count, while its \
     report claims one per write); unregistered buffers cost fio a little CPU, not syncs";

/// One `[name]` job section.
#[derive(Debug, Clone)]
struct Section {
    name: String,
    options: Options,
}

/// How much of the target the jobs cover: diskscope's span in bytes (known here), or the
/// whole target on each host of a fleet (its size is known only there): `size=100%`, so fio
/// never lays out or re-lays a file smaller than a byte count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Span {
    Bytes(u64),
    Whole,
}

/// A fio job equivalent to a diskscope run or sweep.
#[derive(Debug, Clone)]
pub struct FioJob {
    span: Span,
    pub(super) global: Options,
    sections: Vec<Section>,
    /// What differs from diskscope, or what to do first; `#` lines of the job file.
    notes: Vec<String>,
    /// The target path, when fio needs it linked under `LINK` first.
    link_from: Option<String>,
}

impl FioJob {
    /// The run `c` describes, for `c.duration_s` (60 s when unbounded).
    pub fn run(c: &ConfigReport) -> FioJob {
        let runtime = Duration::from_secs_f64(c.duration_s.unwrap_or(60.0).max(0.001));
        let mut job = FioJob::new(c, runtime);
        job.add_step(c, c.settings, "diskscope".into(), false);
        job
    }

    /// The run `c` describes on every host of a fleet (`fio --client`): the target path as
    /// given (the path on each host, never made absolute or linked here), the whole target
    /// (`size=100%`), and `allow_file_create=0`, so fio never creates, lays out or re-lays a
    /// file — a missing target fails on its host instead. Percentiles are total latency
    /// (`lat_percentiles=1`), diskscope's basis. A path fio cannot name is refused.
    pub fn fleet(c: &ConfigReport) -> Result<FioJob, String> {
        check_fleet_path(std::path::Path::new(&c.target.path))?;
        let runtime = Duration::from_secs_f64(c.duration_s.unwrap_or(60.0).max(0.001));
        let mut job = FioJob::new(c, runtime);
        job.span = Span::Whole;
        job.notes.clear();
        job.global
            .retain(|(k, _)| *k != "filename" && *k != "invalidate");
        job.global.push(("invalidate", "0".into()));
        job.global.push(("filename", escape_colons(&c.target.path)));
        job.global.push(("allow_file_create", "0".into()));
        job.global.push(("lat_percentiles", "1".into()));
        if c.settings.read_pct < 100 {
            // The controller sees only the path's name, and a link or a device node outside
            // /dev names a block device as well: fio on each host checks, before any I/O,
            // that the path is a regular file (`test -f` follows links); the job does no
            // I/O otherwise. fio appends "> NAME.prerun.txt 2>&1" to the command, which
            // the final "|| true" takes, never reached: no file is left on the host.
            job.global.push((
                "exec_prerun",
                format!(
                    "test -f {} || exit 1 && exit 0 || true",
                    shell_quote(&c.target.path)
                ),
            ));
        }
        job.link_from = None;
        job.add_step(c, c.settings, "diskscope".into(), false);
        Ok(job)
    }

    /// A sweep of `spec` from `c`'s settings: one stonewalled group per step, each with
    /// diskscope's ramp before `step_time` of measurement.
    pub fn sweep(c: &ConfigReport, spec: &SweepSpec, step_time: Duration) -> FioJob {
        let mut job = FioJob::new(c, step_time);
        job.global.push(("ramp_time", fio_time(RAMP)));
        for (i, s) in spec.steps(c.settings).into_iter().enumerate() {
            let v = spec.dimension.value(&s);
            let name = format!("step{}-{}-{}", i + 1, spec.dimension.name(), v);
            job.add_step(c, s, name, true);
        }
        if spec.curve {
            job.notes.push(format!(
                "rate=curve: this is its unlimited step only; the paced steps are {} of the IOPS it reaches, known only after it ran: add groups with rate_iops set to those shares",
                crate::sweep::CURVE_PCTS.map(|p| format!("{p}%")).join(", ")
            ));
        }
        job
    }

    /// A suite's whole plan: one stonewalled section per pass, in diskscope's order, each
    /// with diskscope's ramp before `-T` of measurement. What fio cannot do the same way (the
    /// rest between passes, the median) is said in the notes.
    pub fn suite(c: &ConfigReport, plan: &Plan) -> FioJob {
        let mut job = FioJob::new(c, plan.timing.pass_time);
        job.global.push(("ramp_time", fio_time(RAMP)));
        for p in &plan.passes {
            let t = &plan.tests()[p.test];
            let name = format!(
                "{}-{}-pass{}",
                t.name().replace(' ', "-"),
                p.direction.name(),
                p.pass + 1
            );
            job.add_step(c, plan.settings(p.test, p.direction), name, true);
        }
        job.notes.push(format!(
            "diskscope suite {}: one section per pass ({} per test and direction); the card \
             shows the median of a test's passes, so compare it with the median of fio's",
            plan.suite.name(),
            plan.timing.passes
        ));
        if !plan.timing.pause.is_zero() {
            job.notes.push(format!(
                "diskscope rests {} between passes (the engine paused); fio runs its sections \
                 back to back",
                fio_time(plan.timing.pause)
            ));
        }
        if let Some(why) = &plan.write_refusal {
            job.notes
                .push(format!("no write sections: the card's writes were {why}"));
        }
        if plan.ioengine == IoEngine::Psync {
            job.notes
                .push("psync: the Q>1 tests run at depth 1 here, as they did in diskscope".into());
        }
        job
    }

    /// With `--drop-cache` the target's cached pages are evicted before the run, as fio's
    /// `invalidate=1` does; without it neither tool drops them.
    pub fn drop_cache(mut self, drop: bool) -> FioJob {
        for (k, v) in &mut self.global {
            if *k == "invalidate" {
                *v = u8::from(drop).to_string();
            }
        }
        self
    }

    fn new(c: &ConfigReport, runtime: Duration) -> FioJob {
        let path = std::path::absolute(&c.target.path)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| c.target.path.clone());
        let mut notes = Vec::new();
        let (filename, link_from) = match fio_cannot_name(&path) {
            None => (escape_colons(&path), None),
            Some(why) => {
                notes.push(format!(
                    "fio cannot name {} ({why}); link it first: ln -sfn {} {LINK}",
                    crate::units::visible(&path),
                    shell_quote(&path)
                ));
                (LINK.to_string(), Some(path.clone()))
            }
        };
        if c.target.kind == crate::model::TargetKind::ScratchFile {
            notes.push(
                "the scratch file is diskscope's (random data; keep it with --keep); \
                 if it is missing, fio lays out its own"
                    .into(),
            );
        }
        let mut global = vec![
            ("ioengine", c.ioengine.name().to_string()),
            ("direct", u8::from(c.target.direct).to_string()),
            ("thread", String::new()),
            ("group_reporting", String::new()),
            ("time_based", String::new()),
            ("runtime", fio_time(runtime)),
            ("invalidate", "0".into()),
            ("fadvise_hint", "0".into()),
            ("norandommap", String::new()),
            ("random_generator", "tausworthe64".into()),
            ("filename", filename),
        ];
        if c.ioengine == IoEngine::IoUring {
            // The ring registers its buffers and its file, as diskscope's does (engine::uring),
            // but not its buffers beside a sync: see FIXEDBUFS_SYNC_TRAP.
            if c.durability.fsync_every == 0 {
                global.push(("fixedbufs", String::new()));
            } else {
                notes.push(FIXEDBUFS_SYNC_TRAP.into());
            }
            global.push(("registerfiles", String::new()));
        }
        // diskscope syncs with fdatasync, like fio's fdatasync=N (fsync=N would be fsync).
        if c.durability.fsync_every > 0 {
            global.push(("fdatasync", c.durability.fsync_every.to_string()));
        }
        if c.durability.end_fsync {
            global.push(("end_fsync", "1".into()));
        }
        FioJob {
            span: Span::Bytes(c.target.span_bytes),
            global,
            sections: Vec::new(),
            notes,
            link_from,
        }
    }

    /// The sections running `s` over `c`'s span, named `name`: one set of jobs, or with a
    /// share of trims fio cannot mix in, two side by side under flow control (`trim`).
    fn add_step(&mut self, c: &ConfigReport, s: Settings, name: String, stonewall: bool) {
        let (parts, notes) = super::trim::parts(s);
        notes.into_iter().for_each(|n| self.note(n));
        for (i, part) in parts.into_iter().enumerate() {
            let first = self.sections.len();
            let named = format!("{name}{}", part.suffix);
            self.add_part(c, part.settings, named, stonewall && i == 0);
            let extra = part.extras(self.global.iter().any(|(k, _)| *k == "fixedbufs"));
            for section in &mut self.sections[first..] {
                section.options.extend(extra.iter().cloned());
            }
        }
    }

    /// The sections running `s` (no trims, or trims fio runs alone: `trim::rw`) over `c`'s
    /// span, named `name` (`-tN` per thread if needed).
    fn add_part(&mut self, c: &ConfigReport, s: Settings, name: String, stonewall: bool) {
        let mut common: Options =
            vec![("rw", super::trim::rw(&s).into()), ("bs", s.bs.to_string())];
        if c.ioengine == IoEngine::IoUring {
            common.push(("iodepth", s.iodepth.to_string()));
            common.extend(s.hipri.then(|| ("hipri", String::new())));
        }
        if s.read_pct > 0 && s.read_pct < 100 && s.trim_pct == 0 {
            common.push(("rwmixread", s.read_pct.to_string()));
        }
        if s.rate_iops > 0 {
            let (rate, shortfall) = rate_per_job(s);
            common.push(("rate_iops", rate));
            if let Some(n) = shortfall {
                self.note(n);
            }
            self.note(RATE_BASIS);
        }
        if s.random_pct > 0 && s.random_pct < 100 {
            common.push(("percentage_random", s.random_pct.to_string()));
        }
        common.extend(distribution(s));
        for n in mix_differences(s) {
            self.note(n);
        }
        let first = self.sections.len();
        let placed = match self.span {
            Span::Bytes(span) => placements(span, s),
            Span::Whole => {
                let (placed, note) = whole_placements(s);
                if let Some(n) = note {
                    self.note(n);
                }
                placed
            }
        };
        for (suffix, extra) in placed {
            let mut options = common.clone();
            options.extend(extra);
            self.sections.push(Section {
                name: format!("{name}{suffix}"),
                options,
            });
        }
        if stonewall {
            let opts = &mut self.sections[first].options;
            opts.insert(0, ("new_group", String::new()));
            opts.insert(0, ("stonewall", String::new()));
        }
    }

    /// Adds `note` to the job file's comments, once.
    pub(super) fn note(&mut self, note: impl Into<String>) {
        let note = note.into();
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The job file: notes as comments, `[global]`, then the job sections.
    pub fn job_file(&self) -> String {
        let mut out = String::new();
        for n in &self.notes {
            out.push_str(&format!("# {n}\n"));
        }
        let line = |(k, v): &(&str, String)| {
            if v.is_empty() {
                format!("{k}\n")
            } else {
                format!("{k}={v}\n")
            }
        };
        out.push_str("[global]\n");
        self.global.iter().for_each(|o| out.push_str(&line(o)));
        for s in &self.sections {
            out.push_str(&format!("\n[{}]\n", s.name));
            s.options.iter().for_each(|o| out.push_str(&line(o)));
        }
        out
    }

    /// The same job as one shell command line: global options first (fio reads options
    /// before the first `--name` as the global section), then each job; quoted for sh.
    pub fn command_line(&self) -> String {
        let arg = |(k, v): &(&str, String)| {
            shell_quote(&if v.is_empty() {
                format!("--{k}")
            } else {
                format!("--{k}={v}")
            })
        };
        let mut args: Vec<String> = vec!["fio".into()];
        args.extend(self.global.iter().map(arg));
        for s in &self.sections {
            args.push(shell_quote(&format!("--name={}", s.name)));
            args.extend(s.options.iter().map(arg));
        }
        let fio = args.join(" ");
        match &self.link_from {
            Some(p) => format!("ln -sfn {} {LINK} && {fio}", shell_quote(p)),
            None => fio,
        }
    }
}

/// The job file of the run `c` describes.
#[cfg(test)]
pub fn job_file(c: &ConfigReport) -> String {
    FioJob::run(c).job_file()
}

/// The command line of the run `c` describes.
#[cfg(test)]
pub fn command_line(c: &ConfigReport) -> String {
    FioJob::run(c).command_line()
}

#[cfg(test)]
#[path = "job_tests.rs"]
mod tests;
