//! `--burn-in[=write|verify]` and `--capacity-probe`: the target prepared with every write
//! check a run makes (`target::prepare`: --allow-write naming a device, nothing mounted or
//! held; =verify opens it read-only), the plan made from -b, -t and the span (or, for =verify,
//! from the state file or the stamps), a progress line on stderr, then the result as text or
//! JSON (`{"verify": …}`, also to `--json FILE`). Exits 3 when a block did not come back as
//! written.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};

use super::local::layout_progress;
use crate::cli::{Config, Output};
use crate::exit::ExitStatus;
use crate::model::verify::VerifyReport;
use crate::results::file::{Kind, write_result};
use crate::target::prepare::prepare;
use crate::target::shell::quote_path;
use crate::verify::burnin::{self, Half, Job};
use crate::verify::live::Live;
use crate::verify::probe;
use crate::{output, render, signals};

/// Runs the burn-in or the probe the config asks for.
pub fn run(config: &Config) -> Result<ExitStatus> {
    signals::install();
    let v = &config.verify;
    let mut request = config.target_request();
    if v.burn_in == Some(Half::Verify) {
        request.allow_write = None; // a verify only reads
    }
    let prepared = prepare(&request, &mut layout_progress())?;
    let target = &prepared.target;
    let shown = quote_path(&target.path);
    let align = (target.logical_block_size as usize).max(4096);
    let deadline = config.duration.map(|d| Instant::now() + d);
    let stop =
        move || signals::received().is_some() || deadline.is_some_and(|d| Instant::now() >= d);
    let seed = rand::random::<u64>() | 1;
    let mut report = if v.capacity_probe {
        let live = Live::new(
            target.span_bytes,
            probe::Layout::new(target.span_bytes, 4096).step,
        );
        let (mut r, _) = probe::run(&**target, target.span_bytes, align, seed, &live, &stop)
            .map_err(|e| anyhow!("{shown}: {e}"))?;
        // What the disk claims is all of it, whatever --size probed.
        r.claimed_bytes = r.claimed_bytes.max(target.size_bytes);
        r.findings = crate::findings::verify::findings(&r);
        r
    } else {
        let half = v.burn_in.unwrap_or(Half::Both);
        let (job, state_path) = job(config, half, target, seed)?;
        let live = Live::new(job.plan.span, job.plan.bs);
        let report = with_progress(&live, &job, config.output, || {
            burnin::run(&**target, &job, &live, &stop)
        })
        .map_err(|e| anyhow!("{shown}: {e}"))?;
        finish_state(report, &job, state_path)?
    };
    report.target = shown;
    let text = serde_json::to_string_pretty(&serde_json::json!({ "verify": &report }))? + "\n";
    match config.output {
        Output::Json => output::print(&text),
        _ => output::print(&render::verify::summary(&report)),
    }
    if let Some(path) = &config.files.json {
        write_result(Kind::Json, path, &text).map_err(anyhow::Error::msg)?;
    }
    Ok(ExitStatus::after_run(report.any_bad()))
}

/// The burn-in as asked (`verify::burnin::plan`), what it noted said on stderr.
fn job(
    config: &Config,
    half: Half,
    target: &crate::target::open::Target,
    seed: u64,
) -> Result<(Job, Option<std::path::PathBuf>)> {
    let ask = burnin::Ask {
        half,
        bs: burnin::block_size(config.scan_shape().0),
        threads: config.settings.threads,
        passes: config.verify.passes,
        state: config.verify.state.clone(),
        seed,
    };
    let (job, state, notes) = burnin::plan(&ask, target).map_err(anyhow::Error::msg)?;
    for n in notes {
        output::say(&n);
    }
    Ok((job, state))
}

/// After a write: the state file kept, and where it is said. After a verify: which it read.
fn finish_state(
    mut report: VerifyReport,
    job: &Job,
    path: Option<std::path::PathBuf>,
) -> Result<VerifyReport> {
    if let Some(note) =
        burnin::keep_state(&mut report, job, path.as_deref()).map_err(anyhow::Error::msg)?
    {
        output::say(&note);
    }
    Ok(report)
}

/// Runs `work` while a line on stderr says how far it got (in place on a terminal, every
/// 10 s otherwise; none with JSON on stdout and stderr not a terminal).
fn with_progress<T>(live: &Live, job: &Job, out: Output, work: impl FnOnce() -> T) -> T {
    let tty = std::io::stderr().is_terminal();
    if !tty && out == Output::Json {
        return work();
    }
    let done = std::sync::atomic::AtomicBool::new(false);
    let passes = if job.half == Half::Verify {
        1
    } else {
        job.passes.max(1)
    };
    let total = job.bytes_per_pass() * u64::from(passes);
    let every = if tty {
        Duration::from_secs(1)
    } else {
        Duration::from_secs(10)
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            let mut next = start + every;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if Instant::now() < next {
                    continue;
                }
                next += every;
                output::to_stderr(&progress_line(live, total, start.elapsed(), tty));
            }
        });
        let r = work();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        if tty {
            output::to_stderr("\r\x1b[K");
        }
        r
    })
}

fn progress_line(live: &Live, total: u64, elapsed: Duration, tty: bool) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    let (w, v, bad) = (
        live.written.load(Relaxed),
        live.verified.load(Relaxed),
        live.bad_units.load(Relaxed),
    );
    let fmt = crate::units::format_bytes;
    let line = format!(
        "written {} and verified {} of {} each, {} bad stamps, {:.0} s",
        fmt(w),
        fmt(v),
        fmt(total),
        bad,
        elapsed.as_secs_f64()
    );
    if tty {
        format!("\r\x1b[K{line}")
    } else {
        line + "\n"
    }
}
