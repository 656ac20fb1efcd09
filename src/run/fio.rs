//! `--fio`: the fio job equivalent to a run, a sweep or a suite, printed without running
//! anything or laying out a file (fio lays out its own).

use anyhow::Result;

use super::DEFAULT_HEADLESS_TIME;
use crate::cli::Config;
use crate::exit::ExitStatus;
use crate::fio::job::FioJob;
use crate::model::{ConfigReport, TargetFacts, TargetKind};
use crate::output;
use crate::sweep::DEFAULT_STEP_TIME;
use crate::target::open::{OpenSpec, Target};
use crate::target::prepare::{DEFAULT_SCRATCH_SIZE, SCRATCH_NAME, kind_of, scratch_dir};

/// `--fio`: the equivalent fio job, without running anything or laying out a file (fio lays
/// out its own).
pub fn print_fio(config: &Config) -> Result<ExitStatus> {
    if config.verify.capacity_probe {
        anyhow::bail!(
            "--capacity-probe has no fio job: fio has no probe for a fake capacity (f3probe \
             is that tool); drop --fio, or use --burn-in --fio for a whole write and verify"
        );
    }
    let c = fio_config(config)?;
    let job = local_job(config, &c);
    // The command line is a comment, so the whole output is a job file:
    // `diskscope --fio > diskscope.fio`, then `fio --client=hosts.list diskscope.fio`.
    output::print(&format!(
        "# fio command line:\n# {}\n\n# fio job file (all of this output is one: save it as diskscope.fio, \
         run fio diskscope.fio, or on many hosts fio --client=hosts.list diskscope.fio):\n{}",
        job.command_line(),
        job.job_file()
    ));
    Ok(ExitStatus::Success)
}

/// The job `--fio` prints for `config` on the target `c` describes: a run, a sweep or a
/// suite, with what the command line adds to the job (`--drop-cache`).
pub(super) fn local_job(config: &Config, c: &ConfigReport) -> FioJob {
    if let Some(half) = config.verify.burn_in {
        use crate::fio::verify::Halves;
        use crate::verify::burnin::Half;
        let halves = match half {
            Half::Both => Halves::Both,
            Half::Write => Halves::Write,
            Half::Verify => Halves::Verify,
        };
        return FioJob::burn_in(&burn_in_config(config, c), halves, config.verify.passes)
            .drop_cache(config.drop_cache);
    }
    let job = match (&config.sweep, config.suite) {
        (_, Some(name)) => FioJob::suite(c, &super::suite::plan(config, name, c)),
        (Some(spec), None) => FioJob::sweep(c, spec, config.duration.unwrap_or(DEFAULT_STEP_TIME)),
        (None, None) => FioJob::run(c),
    };
    let job = if config.verify.live {
        job.verify_live()
    } else {
        job
    };
    job.drop_cache(config.drop_cache)
}

/// The burn-in's settings as it runs them headless: 1 MiB blocks unless `-b` asked for
/// another size (`run::burnin`), pread/pwrite at depth 1 on each thread.
fn burn_in_config(config: &Config, c: &ConfigReport) -> ConfigReport {
    let mut c = c.clone();
    c.settings.bs = crate::verify::burnin::block_size(config.scan_shape().0);
    c.settings.iodepth = 1;
    c.ioengine = crate::settings::IoEngine::Psync;
    c
}

/// The target as fio will see it: the scratch file it lays out itself, or the device or
/// file opened read-only to learn its size and block size.
fn fio_config(config: &Config) -> Result<ConfigReport> {
    if let Some(p) = config.target.as_deref().filter(|p| p.to_str().is_none()) {
        anyhow::bail!(
            "{}: not UTF-8, and a fio job file is text that cannot name it; link it to a plain name (ln -s) and give that",
            crate::units::visible(&p.to_string_lossy())
        );
    }
    let write_allowed = config.allow_write.is_some();
    let facts = match scratch_dir(config.target.as_deref()) {
        Some(d) => {
            let size = config.size.unwrap_or(DEFAULT_SCRATCH_SIZE);
            TargetFacts {
                path: d.join(SCRATCH_NAME).display().to_string(),
                kind: TargetKind::ScratchFile,
                size_bytes: size,
                device_bytes: None,
                span_bytes: size,
                logical_block_size: 512,
                direct: config.direct,
                write_allowed,
            }
        }
        None => {
            let p = config.target.clone().unwrap_or_default();
            let spec = OpenSpec {
                direct: false,
                write: false,
                span: config.size,
            };
            let t = Target::open(&p, spec)?;
            TargetFacts {
                path: p.display().to_string(),
                kind: kind_of(&t, false),
                size_bytes: t.span_bytes,
                device_bytes: None,
                span_bytes: t.span_bytes,
                logical_block_size: t.logical_block_size,
                direct: config.direct,
                write_allowed,
            }
        }
    };
    let duration = config.duration.unwrap_or(DEFAULT_HEADLESS_TIME);
    let mut c = ConfigReport::new(facts, config.settings, Some(duration))
        .with_engine(config.ioengine, config.ioengine_fallback.clone());
    c.durability = config.durability;
    Ok(c)
}
