//! A burn-in's or a probe's result as text: what was done (span, blocks, stamps, seed, pass),
//! how fast it wrote and verified (and the verify's CPU: GB per CPU second), the counts, every
//! listed bad stretch by offset, the map's counts and the findings. A pure function of the
//! report.

use crate::findings::verify::offset;
use crate::model::verify::VerifyReport;
use crate::units::format_bytes;

/// MB/s with the digits a slow rate needs (3.8 MiB in 20 s is 0.20 MB/s, not 0).
fn rate(bytes: u64, s: f64) -> String {
    if s <= 0.0 {
        return "-".into();
    }
    let mb = bytes as f64 / s / 1e6;
    match mb {
        m if m >= 100.0 => format!("{m:.0} MB/s"),
        m if m >= 1.0 => format!("{m:.1} MB/s"),
        m => format!("{m:.2} MB/s"),
    }
}

/// The result as lines of text.
pub fn summary(r: &VerifyReport) -> String {
    let mut out = format!(
        "{} of {}: {} of {} in {} blocks, {} stamps, seed {:#018x}, pass {} of {}{}\n",
        r.mode,
        r.target,
        format_bytes(r.span_bytes),
        format_bytes(r.claimed_bytes),
        format_bytes(r.block_bytes),
        format_bytes(r.unit_bytes),
        r.seed,
        r.pass,
        r.passes,
        if r.complete { "" } else { " (stopped early)" }
    );
    if r.written_bytes > 0 {
        out += &format!(
            "  wrote    {} in {:.1} s ({})\n",
            format_bytes(r.written_bytes),
            r.write_s,
            rate(r.written_bytes, r.write_s)
        );
    }
    if r.verified_bytes > 0 {
        // The probe reads a few MiB: a per-CPU figure of that says nothing.
        let per_cpu = if r.verify_cpu_s > 0.0 && r.verified_bytes >= 64 << 20 {
            format!(
                ", {:.2} CPU s: {:.1} GB per CPU second",
                r.verify_cpu_s,
                r.verified_bytes as f64 / r.verify_cpu_s / 1e9
            )
        } else {
            String::new()
        };
        out += &format!(
            "  verified {} in {:.1} s ({}{per_cpu})\n",
            format_bytes(r.verified_bytes),
            r.verify_s,
            rate(r.verified_bytes, r.verify_s)
        );
        let c = &r.counts;
        out += &format!(
            "  stamps   {} intact, {} corrupt, {} stale, {} zeroes, {} not this run's, {} another \
             offset's; I/O errors: {} read, {} write\n",
            c.intact,
            c.corrupt,
            c.stale,
            c.zeroes,
            c.other_data,
            c.aliased,
            c.read_errors,
            c.write_errors
        );
    }
    if let Some(from) = &r.seed_from {
        out += &format!("  stamps   {from}\n");
    }
    if !r.written_ranges.is_empty() {
        let wrote: u64 = r.written_ranges.iter().map(|x| x[1] - x[0]).sum();
        let checked = if r.mode == "burn-in=verify" {
            ": only that was checked"
        } else {
            ""
        };
        out += &format!(
            "  stopped  the write stopped early: it wrote {} of {} in {} stretch(es){checked}\n",
            format_bytes(wrote),
            format_bytes(r.span_bytes),
            r.written_ranges.len()
        );
    }
    out += &bad_lines(r);
    if let Some(state) = &r.state_file {
        out += &format!("  state    {state}\n");
    }
    for f in &r.findings {
        out += &format!("{}\n", f.text);
    }
    out
}

/// The listed bad stretches, the first 20 (all of them are in the JSON).
fn bad_lines(r: &VerifyReport) -> String {
    let mut out = String::new();
    if !r.bad.is_empty() {
        out += "  bad by offset:\n";
        for e in r.bad.iter().take(20) {
            let found = e
                .found_offset
                .map(|f| format!(", holds the stamp of {f} ({})", offset(f)))
                .unwrap_or_default();
            let detail = e
                .detail
                .as_deref()
                .map(|d| format!(", {d}"))
                .unwrap_or_default();
            out += &format!(
                "    {} ({}) +{}: {}{found}{detail}\n",
                e.offset,
                offset(e.offset),
                format_bytes(e.bytes),
                e.kind.label()
            );
        }
        let more = r.bad.len().saturating_sub(20) as u64 + r.extents_left_out;
        if more > 0 {
            out += &format!("    … and {more} more stretches (all listed in --json)\n");
        }
    }
    out
}

/// The lines a run with `--verify` adds to its summary: what was written and read back, and
/// what failed (the findings are the run's, listed with its others).
pub fn run_lines(r: &VerifyReport) -> String {
    let c = &r.counts;
    let mut out = format!(
        "verify: {} written, {} read back in {} stamps: {} intact, {} corrupt, {} stale, {} zeroes, {} not \
         this run's, {} another offset's\n",
        format_bytes(r.written_bytes),
        format_bytes(r.verified_bytes),
        c.intact + c.bad(),
        c.intact,
        c.corrupt,
        c.stale,
        c.zeroes,
        c.other_data,
        c.aliased
    );
    for e in r.bad.iter().take(10) {
        out += &format!(
            "  {} ({}) +{}: {}\n",
            e.offset,
            offset(e.offset),
            format_bytes(e.bytes),
            e.kind.label()
        );
    }
    if r.bad.len() > 10 || r.extents_left_out > 0 {
        let more = r.bad.len().saturating_sub(10) as u64 + r.extents_left_out;
        out += &format!("  … and {more} more stretches (all listed in --json)\n");
    }
    out
}

/// `--verify` on the run screen: where the first write read back bad lies ("verify: bad at
/// 8 KiB "; every one is in the summary), from the run's kept errors.
pub fn first_bad(errors: &[crate::stats::IoErrorRecord]) -> Option<String> {
    let e = errors.iter().find(|e| e.op == "verify")?;
    Some(format!("verify: bad at {} ", offset(e.offset)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_rate_keeps_its_digits() {
        assert_eq!(rate(3_984_588, 20.4), "0.20 MB/s");
        assert_eq!(rate(50_000_000, 10.0), "5.0 MB/s");
        assert_eq!(rate(1_000_000_000, 2.0), "500 MB/s");
        assert_eq!(rate(1, 0.0), "-");
    }
}
