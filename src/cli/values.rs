//! clap's typed `value_parser`s for diskscope's flags: each turns what was typed into a value
//! (a count, a size, a duration, a percentage, a sweep) or one reason that quotes it. The
//! parsing itself is the domain's — sizes and durations in `units`, a rate and an engine in
//! `settings`, a sweep in `sweep::SweepSpec`, a suite in `model::suite`, hosts in
//! `fleet::hosts` — and these only wire it to a flag, adding the flag's own limits.
//! `describe` renders a refused value as "--flag 'value': reason", the line tests and users
//! rely on.

use std::path::Path;
use std::time::Duration;

use clap::builder::{OsStringValueParser, TypedValueParser};

use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::fleet::hosts::{self, HostList};
use crate::settings::{Distribution, IoEngine, MAX_BS, MAX_IODEPTH, MAX_THREADS};
use crate::suite::{MAX_PASSES, SuiteName};
use crate::sweep::SweepSpec;
use crate::units::{parse_duration, parse_size};

/// `--threads`: a whole number from 1 to `MAX_THREADS`.
pub fn threads(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{text}': give a whole number from 1 to {MAX_THREADS}"
        )),
    }
}

/// `--iodepth`: a whole number from 1 to `MAX_IODEPTH`.
pub fn iodepth(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_IODEPTH).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{text}': give a whole number from 1 to {MAX_IODEPTH}"
        )),
    }
}

/// `--rate`: `settings::parse_rate_iops`.
pub fn rate_iops(text: &str) -> Result<u64, String> {
    crate::settings::parse_rate_iops(text)
}

/// `--surface`: quick, full or restart.
pub fn surface(text: &str) -> Result<crate::surface::session::SurfaceAsk, String> {
    crate::surface::session::SurfaceAsk::parse(text)
}

/// `--ioengine`: fio's names, io_uring or psync.
pub fn ioengine(text: &str) -> Result<IoEngine, String> {
    IoEngine::parse(text)
}

/// `--bs`: a size from 1 byte to `MAX_BS` (the engine checks alignment against the target).
pub fn block_size(text: &str) -> Result<u64, String> {
    match parse_size(text)? {
        0 => Err("0: a block size must be at least 512 bytes (e.g. 4k)".into()),
        v if v > MAX_BS => Err(format!("'{text}': at most 16M")),
        v => Ok(v),
    }
}

/// `--size`: a size larger than 0.
pub fn size(text: &str) -> Result<u64, String> {
    match parse_size(text)? {
        0 => Err(format!("'{text}': must be larger than 0")),
        v => Ok(v),
    }
}

/// The shortest time diskscope can measure: one tick of the sampler. A run, a sweep's step
/// or a suite's pass ends at a snapshot, so anything shorter would silently run a whole tick
/// (`-T 1ms` ran 100 ms).
pub const SHORTEST: Duration = crate::engine::DEFAULT_TICK;

/// `--time`: a duration of at least one tick (`SHORTEST`).
pub fn duration(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d < SHORTEST {
        return Err(format!(
            "'{text}': shorter than one tick of the sampler, which times every run, step \
             and pass; give at least {}ms",
            SHORTEST.as_millis()
        ));
    }
    Ok(d)
}

/// `--read`, `--random`: a percentage from 0 to 100 (a trailing % is allowed).
pub fn percentage(text: &str) -> Result<u8, String> {
    match text.trim().trim_end_matches('%').parse::<u32>() {
        Ok(v) if v <= 100 => Ok(v as u8),
        _ => Err(format!("'{text}': give a percentage from 0 to 100")),
    }
}

/// `--random-distribution`: fio's spelling (`settings::Distribution::parse`).
pub fn distribution(text: &str) -> Result<Distribution, String> {
    Distribution::parse(text)
}

/// `--fleet`: a file of hosts or a comma list (`fleet::hosts::parse`). Taken as bytes: a
/// file of hosts may have a name that is not UTF-8 (a comma list of host names is text).
pub fn fleet_hosts() -> impl TypedValueParser<Value = HostList> {
    OsStringValueParser::new().try_map(|arg| {
        let Some(text) = arg.to_str() else {
            let path = Path::new(&arg);
            let shown = crate::target::shell::quote_path(path);
            let text = crate::results::file::read_bounded("--fleet", path)
                .map_err(|e| e.strip_prefix("--fleet ").map_or(e.clone(), str::to_string))?;
            return hosts::parse_file(&text)
                .and_then(hosts::check)
                .map(HostList)
                .map_err(|e| format!("{shown}: {e}"));
        };
        hosts::parse(text)
            .map(HostList)
            .map_err(|e| e.strip_prefix("--fleet ").map_or(e.clone(), str::to_string))
    })
}

/// `--outlier-pct`: a share from 0 (exclusive) to 100 (exclusive).
pub fn outlier_pct(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(v) if v > 0.0 && v < 100.0 => Ok(v),
        _ => Err(format!(
            "'{text}': give a percentage above 0 and below 100 (e.g. 20)"
        )),
    }
}

/// `--sweep`: `SweepSpec::parse`, whose messages already name the flag.
pub fn sweep(text: &str) -> Result<SweepSpec, String> {
    SweepSpec::parse(text)
        .map(Ok)
        .unwrap_or_else(|e| Err(e.strip_prefix("--sweep ").map_or(e.clone(), str::to_string)))
}

/// `--suite`: standard, nvme, peak or real. A path here is most likely the target typed
/// after a bare `--suite`, so the message says how to write that.
pub fn suite(text: &str) -> Result<SuiteName, String> {
    SuiteName::parse(text).map_err(|e| {
        if text.contains('/') || text.contains('.') {
            format!("{e} (to name the target too, put it first or write --suite=NAME)")
        } else {
            e
        }
    })
}

/// `--passes`: a whole number from 1 to `MAX_PASSES`.
pub fn passes(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_PASSES).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{text}': give a whole number from 1 to {MAX_PASSES}"
        )),
    }
}

/// `--pause`: 0 (no rest between passes), or from one tick (`SHORTEST`: a rest is counted in
/// the sampler's ticks) to an hour.
pub fn pause(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d > Duration::from_secs(3600) {
        return Err(format!("'{text}': at most 1h"));
    }
    if !d.is_zero() && d < SHORTEST {
        return Err(format!(
            "'{text}': a rest is counted in ticks of the sampler; give 0 for none or at \
             least {}ms",
            SHORTEST.as_millis()
        ));
    }
    Ok(d)
}

/// `--steady-round`: whole seconds, one (a round holds one-second rows) to an hour. A round
/// of 1.5 s would be one row or two as the rows' lengths jitter, so "5 × 1.5 s" could be 8 s:
/// a round is a whole number of rows, as it says.
pub fn steady_round(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d < Duration::from_secs(1) || d > Duration::from_secs(3600) || d.subsec_nanos() != 0 {
        return Err(format!(
            "'{text}': a round is a whole number of one-second rows; give whole seconds from \
             1s to 1h (e.g. 5s)"
        ));
    }
    Ok(d)
}

/// `--steady-excursion`, `--steady-slope`: a share of the window's mean above 0, at most 100.
pub fn steady_pct(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 100.0 => Ok(v),
        _ => Err(format!(
            "'{text}': give a percentage of the window's mean above 0, at most 100 (e.g. 20)"
        )),
    }
}

/// One line for a refused command line: "--flag 'value': reason" for a value a parser above
/// refused, else clap's own first line with a pointer to --help.
pub fn describe(e: &clap::Error) -> String {
    if e.kind() == ErrorKind::ValueValidation
        && let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg)
        && let Some(reason) = std::error::Error::source(e)
    {
        let flag = arg.split_whitespace().next().unwrap_or(arg);
        return format!("{flag} {reason}");
    }
    let text = e.to_string();
    let first = text
        .lines()
        .next()
        .unwrap_or("bad arguments")
        .trim_start_matches("error: ");
    format!("{first} (diskscope --help lists the options)")
}
