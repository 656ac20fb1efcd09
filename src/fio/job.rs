//! The fio equivalent of a diskscope run or sweep, so a result found interactively can be
//! repeated with fio — on this host, or across many with fio's client/server mode
//! (`fio --client=HOST job`). It must describe the same run, knob by knob:
//!
//! - threads → `numjobs` with `thread`; pread/pwrite → `ioengine=psync`; io_uring →
//!   `ioengine=io_uring` with `iodepth` and the registrations diskscope makes (`fixedbufs`,
//!   `registerfiles`); O_DIRECT → `direct`;
//!   read % → `rw` + `rwmixread`; random % → `rw` + `percentage_random`; `-T` → `runtime` with
//!   `time_based`; a sweep's uncounted ramp → `ramp_time`, one `stonewall`ed group per step;
//!   a suite → one `stonewall`ed group per pass of each test, in the card's order.
//! - `--rate` (total over threads) → `rate_iops` per job, the total divided by the jobs, and
//!   for a mix split into reads and writes (fio caps each direction apart); fio times latency
//!   from submission, which is diskscope's `service_latency_ns`, not its corrected figure.
//! - The span: random offsets are uniform over the whole blocks of the span, with replacement
//!   (`norandommap`, a 64-bit generator), so every job gets `offset=0`, `size=` the span.
//! - Sequential stripes: each thread walks its own stripe and wraps at its end
//!   (`engine::pattern`). The stripes come from `OffsetGen` itself; when they are equal and
//!   back to back, one job with `offset_increment` = `size` = the stripe; otherwise one job
//!   per thread with its exact `offset` and `size`. (`filesize` is not set: with it fio 3.33
//!   lets each job run to the end of the file instead of its stripe.)
//! - The page cache: fio drops the file's cache before a job (`invalidate=1`) and advises the
//!   kernel of the pattern (`fadvise_hint`); diskscope does neither unless `--drop-cache`.
//! - The file name: fio splits `filename` at `:` unless escaped as `\:` (HOWTO, "filename"),
//!   cuts a value at `;` or `#` and trims blanks at its ends (parse.c, `strip_blank_end`),
//!   and in job files replaces `${VAR}`, `$pagesize`, `$mb_memory` and `$ncpus`
//!   (options.c). A path fio cannot name is reached through a symlink the export creates.
//!
//! A fleet (`FioJob::fleet`) runs the same job on every host through `fio --client`: this is
//! the one writer of job files, for `--fio` and `--fleet` alike.
//!
//! What fio cannot express is said in `#` comments of the job file, never hidden.

use std::time::Duration;

use crate::engine::pattern::OffsetGen;
use crate::model::ConfigReport;
use crate::settings::{IoEngine, Settings};
use crate::suite::Plan;
use crate::sweep::{RAMP, SweepSpec};

/// Where a path fio cannot name is linked from.
const LINK: &str = "/tmp/diskscope-fio-target";

type Options = Vec<(&'static str, String)>;

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
    global: Options,
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
        if let Some(why) = fio_cannot_name(&c.target.path) {
            return Err(format!(
                "{}: fio cannot take this path ({why}); link it on the hosts to a plain name",
                c.target.path
            ));
        }
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
                    "fio cannot name {path:?} ({why}); link it first: ln -sfn {} {LINK}",
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
            // The ring registers its buffers and its file, as diskscope's does (engine::uring).
            global.push(("fixedbufs", String::new()));
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

    /// The sections running `s` over `c`'s span, named `name` (`-tN` per thread if needed).
    fn add_step(&mut self, c: &ConfigReport, s: Settings, name: String, stonewall: bool) {
        let mut common: Options = vec![
            ("rw", rw_mode(s.read_pct, s.random_pct).into()),
            ("bs", s.bs.to_string()),
        ];
        if c.ioengine == IoEngine::IoUring {
            common.push(("iodepth", s.iodepth.to_string()));
        }
        if s.read_pct > 0 && s.read_pct < 100 {
            common.push(("rwmixread", s.read_pct.to_string()));
        }
        if s.rate_iops > 0 {
            common.push(("rate_iops", self.rate_per_job(s)));
        }
        if s.random_pct > 0 && s.random_pct < 100 {
            common.push(("percentage_random", s.random_pct.to_string()));
        }
        self.note_mix_differences(s);
        let first = self.sections.len();
        let placed = match self.span {
            Span::Bytes(span) => placements(span, s),
            Span::Whole => {
                let (placed, note) = whole_placements(s);
                if let Some(n) = note
                    && !self.notes.contains(&n)
                {
                    self.notes.push(n);
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

    /// fio's `rate_iops` for one of `s.threads` jobs: the total split evenly, and for a mix
    /// into a reads,writes pair (one value would cap each direction at it). fio takes whole
    /// numbers; when the split is not whole, a note says by how much fio's total differs.
    fn rate_per_job(&mut self, s: Settings) -> String {
        let jobs = s.threads.max(1) as f64;
        let per_job = s.rate_iops as f64 / jobs;
        let (text, total) = if s.read_pct > 0 && s.read_pct < 100 {
            let r = (per_job * f64::from(s.read_pct) / 100.0).round().max(1.0);
            let w = (per_job * f64::from(100 - s.read_pct) / 100.0)
                .round()
                .max(1.0);
            (format!("{r},{w}"), (r + w) * jobs)
        } else {
            let r = per_job.round().max(1.0);
            (format!("{r}"), r * jobs)
        };
        if total as u64 != s.rate_iops {
            let note = format!(
                "fio's rate_iops is per job and whole: {} jobs at {text} make {} IOPS where diskscope asks {}",
                s.threads, total as u64, s.rate_iops
            );
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
        let note = "fio times a rate-limited I/O from its submission (diskscope's service_latency_ns); diskscope's latency_ns counts from when it was due";
        if !self.notes.iter().any(|n| n == note) {
            self.notes.push(note.to_string());
        }
        text
    }

    /// Says where fio's mixed patterns walk differently (fio's io_u.c keeps one sequential
    /// position per direction and moves it after every I/O, random ones included).
    fn note_mix_differences(&mut self, s: Settings) {
        let mut add = |n: &str| {
            if !self.notes.iter().any(|x| x == n) {
                self.notes.push(n.to_string());
            }
        };
        if s.random_pct > 0 && s.random_pct < 100 {
            add(
                "fio continues a sequential run from the previous I/O, random ones included; diskscope continues each thread's own stream",
            );
            if s.threads > 1 {
                add(
                    "fio keeps each job's random I/Os inside its stripe; diskscope's cover the whole span",
                );
            }
        }
        if s.random_pct < 100 && s.read_pct > 0 && s.read_pct < 100 {
            add(
                "fio keeps separate sequential positions for reads and writes; diskscope's share one stream per thread",
            );
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

/// The fio `rw=` mode for a read % and random %.
fn rw_mode(read_pct: u8, random_pct: u8) -> &'static str {
    match (read_pct, random_pct) {
        (100, 0) => "read",
        (100, _) => "randread",
        (0, 0) => "write",
        (0, _) => "randwrite",
        (_, 0) => "rw",
        _ => "randrw",
    }
}

/// Where each job runs: (section name suffix, numjobs/offset/size options). Random-only or
/// single-thread runs use the whole span; sequential stripes mirror `OffsetGen`'s.
fn placements(span: u64, s: Settings) -> Vec<(String, Options)> {
    let bs = s.bs;
    let blocks = span / bs.max(1);
    let whole = |n: usize, size: u64| -> Options {
        vec![
            ("numjobs", n.to_string()),
            ("offset", "0".into()),
            ("size", size.to_string()),
        ]
    };
    if s.random_pct == 100 || s.threads == 1 || blocks == 0 {
        return vec![(String::new(), whole(s.threads, (blocks * bs).max(bs)))];
    }
    let stripes: Vec<(u64, u64)> = (0..s.threads)
        .map(|i| OffsetGen::new(span, bs, s.random_pct, i, s.threads).stripe())
        .collect();
    let len = stripes[0].1;
    if stripes
        .iter()
        .enumerate()
        .all(|(i, &st)| st == (i as u64 * len, len))
    {
        let mut o = whole(s.threads, len * bs);
        o.push(("offset_increment", (len * bs).to_string()));
        return vec![(String::new(), o)];
    }
    stripes
        .iter()
        .enumerate()
        .map(|(i, &(start, len))| {
            let o = vec![
                ("numjobs", "1".to_string()),
                ("offset", (start * bs).to_string()),
                ("size", (len * bs).to_string()),
            ];
            (format!("-t{i}"), o)
        })
        .collect()
}

/// Placements over a whole target of unknown size, in fio's percentages: random or
/// single-thread jobs all cover it; sequential threads get stripes of a whole percent each
/// (fio takes no fractions), with what that leaves unused said in a note.
fn whole_placements(s: Settings) -> (Vec<(String, Options)>, Option<String>) {
    let whole = |size: String| -> Options {
        vec![
            ("numjobs", s.threads.to_string()),
            ("offset", "0".into()),
            ("size", size),
        ]
    };
    if s.random_pct == 100 || s.threads == 1 {
        return (vec![(String::new(), whole("100%".into()))], None);
    }
    let pct = 100 / s.threads;
    if pct == 0 {
        let note = format!(
            "{} sequential threads: fio's stripes are whole percents, so each job walks the whole target",
            s.threads
        );
        return (vec![(String::new(), whole("100%".into()))], Some(note));
    }
    let mut o = whole(format!("{pct}%"));
    o.push(("offset_increment", format!("{pct}%")));
    let unused = 100 - pct * s.threads;
    let note = (unused > 0).then(|| {
        format!("each thread's stripe is {pct}% of the target (whole percents): the last {unused}% is not used")
    });
    (vec![(String::new(), o)], note)
}

/// "3s", or "1500ms" when not whole seconds.
fn fio_time(d: Duration) -> String {
    let ms = d.as_millis().max(1);
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// Why fio cannot take `path` as a file name in a job file or on its command line, if so.
fn fio_cannot_name(path: &str) -> Option<&'static str> {
    let trimmed = path.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    if path.contains(';') || path.contains('#') {
        Some("fio reads ';' and '#' as the start of a comment")
    } else if trimmed != path || path.chars().any(|c| c.is_control()) {
        Some("fio trims blanks at its ends, and a job file line cannot hold control characters")
    } else if ["$pagesize", "$mb_memory", "$ncpus"]
        .iter()
        .any(|k| path.contains(k))
        || path
            .find("${")
            .is_some_and(|i| path[i + 2..].find('}').is_some_and(|j| j > 0))
    {
        Some("fio replaces ${VAR} and $pagesize, $mb_memory, $ncpus in job files")
    } else {
        None
    }
}

/// fio's escape for a `:` inside one file name (HOWTO, "filename").
fn escape_colons(path: &str) -> String {
    path.replace(':', "\\:")
}

/// `s` as one sh word: unchanged when it holds only safe characters, else single-quoted.
pub fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
#[path = "job_tests.rs"]
mod tests;
