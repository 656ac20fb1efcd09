//! What reading back the stamps says, in words: a disk that holds less than it claims (another
//! offset's stamp, or nothing past some offset), blocks that came back corrupt, stale (a write
//! the disk acknowledged and lost), never written, or failed to read or write — each with the
//! first offset and how much — or, when all is well, that every block came back as written.
//! Pure: it reads a `VerifyReport` and returns `Finding`s.

use crate::model::finding::Finding;
use crate::model::verify::{BadKind, VerifyReport};
use crate::units::format_bytes;

/// `fake_capacity`: the stamps show the disk holds less than it claims.
pub const FAKE_CAPACITY: &str = "fake_capacity";
/// `verify_bad`: blocks that did not come back as written.
pub const VERIFY_BAD: &str = "verify_bad";
/// `verified`: every block checked came back as written.
pub const VERIFIED: &str = "verified";

/// An offset as people read it: "0", "128 MiB".
pub fn offset(o: u64) -> String {
    if o == 0 { "0".into() } else { format_bytes(o) }
}

/// The findings of a verify, most serious first.
pub fn findings(r: &VerifyReport) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(c) = &r.capacity {
        let claims = format_bytes(r.claimed_bytes);
        let holds = format_bytes(c.real_bytes);
        let within = c
            .step_bytes
            .map(|s| format!(" (to within the probe's step of {})", format_bytes(s)))
            .unwrap_or_default();
        let text = match c.read_at {
            Some(read_at) => format!(
                "the disk claims {claims}, but what is written at {} comes back at {}: it \
                 holds at most {holds}{within}; do not trust data past it",
                offset(c.written_at),
                offset(read_at)
            ),
            None => format!(
                "the disk claims {claims}, but nothing written from {} on comes back: it \
                 holds at most {holds}{within}; do not trust data past it",
                offset(c.written_at)
            ),
        };
        out.push(Finding::new(FAKE_CAPACITY, text));
    }
    for kind in [
        BadKind::Corrupt,
        BadKind::Stale,
        BadKind::Aliased,
        BadKind::Zeroes,
        BadKind::OtherData,
        BadKind::ReadError,
        BadKind::WriteError,
    ] {
        if r.capacity.is_some() && matches!(kind, BadKind::Aliased | BadKind::Zeroes) {
            continue; // said above, in the words that matter
        }
        if let Some(f) = bad_finding(r, kind) {
            out.push(f);
        }
    }
    if r.counts.bad() == 0 && r.verified_bytes > 0 {
        out.push(Finding::new(VERIFIED, verified_text(r)));
    }
    out
}

/// "every block came back as written", saying how much of the disk that covers: the probe
/// checks positions, a span short of the disk (`--size`, or a tail shorter than a stamp)
/// leaves the rest unchecked.
fn verified_text(r: &VerifyReport) -> String {
    let checked = format!(
        "{} checked in {} stamps",
        format_bytes(r.verified_bytes),
        r.counts.intact
    );
    if r.mode == "capacity-probe" {
        return format!(
            "every probe came back as written: {checked} spread over {} (the probe checks \
             positions, not every block: the full --burn-in does)",
            format_bytes(r.span_bytes)
        );
    }
    let whole = if r.complete {
        "every block"
    } else {
        "every block read so far"
    };
    let part = if r.span_bytes < r.claimed_bytes && r.mode != "verify" {
        format!(
            " (of {} of the disk's {}: the rest was not checked)",
            format_bytes(r.span_bytes),
            format_bytes(r.claimed_bytes)
        )
    } else {
        String::new()
    };
    format!(
        "{whole} came back as written: {checked}, pass {}{part}",
        r.pass
    )
}

/// The bytes of every unit of `kind`, listed or not, where the counts say it: a pass reads
/// each unit once, so its count of units times the unit is the bytes (more than the listed
/// stretches hold once some were left out). `None` for I/O errors (a count of I/Os, not of
/// units) and for `--verify`, which reads a unit back as often as it writes it.
fn whole_bytes(r: &VerifyReport, kind: BadKind) -> Option<u64> {
    let c = &r.counts;
    let units = match kind {
        BadKind::Zeroes => c.zeroes,
        BadKind::OtherData => c.other_data,
        BadKind::Corrupt => c.corrupt,
        BadKind::Stale => c.stale,
        BadKind::Aliased => c.aliased,
        BadKind::ReadError | BadKind::WriteError => return None,
    };
    (r.mode != "verify").then_some(units * r.unit_bytes)
}

/// One line for the stretches of `kind`: how much, where the first is, what it means.
fn bad_finding(r: &VerifyReport, kind: BadKind) -> Option<Finding> {
    let mut stretches = r.bad.iter().filter(|e| e.kind == kind);
    let first = stretches.next()?;
    let listed: u64 = first.bytes + stretches.map(|e| e.bytes).sum::<u64>();
    let bytes = whole_bytes(r, kind).unwrap_or(listed).max(listed);
    let meaning = match kind {
        BadKind::Corrupt => "their checksum fails: the data changed after it was written",
        BadKind::Stale => "they hold an older write: the disk acknowledged a write and lost it",
        BadKind::Aliased => "they hold another offset's stamp: two addresses share one place",
        BadKind::Zeroes => "they read as zeroes: the write never landed (or was trimmed)",
        BadKind::OtherData => "they hold data this run never wrote",
        BadKind::ReadError => "the disk failed to read them",
        BadKind::WriteError => "the disk failed to write them",
    };
    let detail = first
        .detail
        .as_deref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    let n = r.bad.iter().filter(|e| e.kind == kind).count();
    let more = if r.extents_left_out > 0 {
        " (and more not listed)"
    } else {
        ""
    };
    Some(Finding::new(
        VERIFY_BAD,
        format!(
            "{} {} in {n} stretch(es){more}, the first at offset {} ({}){detail}: {meaning}",
            format_bytes(bytes),
            kind.label(),
            first.offset,
            offset(first.offset)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::verify::{BadExtent, Capacity, VerifyCounts};

    fn report() -> VerifyReport {
        VerifyReport {
            mode: "burn-in".into(),
            target: "/dev/loop9".into(),
            claimed_bytes: 1 << 30,
            span_bytes: 1 << 30,
            block_bytes: 1 << 20,
            unit_bytes: 4096,
            seed: 1,
            pass: 1,
            passes: 1,
            written_bytes: 1 << 30,
            verified_bytes: 1 << 30,
            counts: VerifyCounts::default(),
            bad: vec![],
            extents_left_out: 0,
            capacity: None,
            write_s: 1.0,
            verify_s: 1.0,
            verify_cpu_s: 0.5,
            state_file: None,
            complete: true,
            written_ranges: Vec::new(),
            seed_from: None,
            map: None,
            findings: vec![],
        }
    }

    #[test]
    fn a_fake_is_named_with_its_real_size_in_plain_words() {
        let mut r = report();
        r.capacity = Some(Capacity {
            real_bytes: 128 << 20,
            written_at: 128 << 20,
            read_at: Some(0),
            step_bytes: None,
        });
        r.counts.aliased = 1000;
        let f = findings(&r);
        assert_eq!(f[0].kind, FAKE_CAPACITY);
        assert_eq!(
            f[0].text,
            "the disk claims 1 GiB, but what is written at 128 MiB comes back at 0: it holds \
             at most 128 MiB; do not trust data past it"
        );
    }

    #[test]
    fn a_flipped_bit_is_reported_at_its_offset_and_a_clean_run_says_so() {
        let mut r = report();
        r.counts.corrupt = 1;
        r.bad.push(BadExtent {
            offset: 5 << 20,
            bytes: 4096,
            kind: BadKind::Corrupt,
            found_offset: None,
            detail: None,
        });
        let f = findings(&r);
        assert_eq!(f.len(), 1);
        assert!(f[0].text.contains("corrupt"), "{}", f[0].text);
        assert!(
            f[0].text.contains(&format!("offset {}", 5 << 20)),
            "{}",
            f[0].text
        );
        // 1,024 stamps of 4 KiB, 256 stretches listed and the rest left out: 4 MiB, not the
        // listed stretches' 1 MiB.
        let mut r = report();
        r.counts.other_data = 1024;
        r.extents_left_out = 768;
        r.bad = (0..256)
            .map(|i| BadExtent {
                offset: i << 20,
                bytes: 4096,
                kind: BadKind::OtherData,
                found_offset: None,
                detail: None,
            })
            .collect();
        let f = findings(&r);
        assert!(
            f[0].text
                .starts_with("4 MiB not this run's data in 256 stretch(es) (and more"),
            "{}",
            f[0].text
        );
        let mut r = report();
        r.counts.intact = 262_144;
        let f = findings(&r);
        assert_eq!(f[0].kind, VERIFIED);
        assert!(f[0].text.starts_with("every block came back as written"));
        // A 6 KiB disk checked in 4 KiB stamps: the text says what was left.
        r.claimed_bytes = 6144;
        r.span_bytes = 4096;
        let f = findings(&r);
        assert!(
            f[0].text
                .ends_with("(of 4 KiB of the disk's 6 KiB: the rest was not checked)"),
            "{}",
            f[0].text
        );
        r.mode = "capacity-probe".into();
        assert!(findings(&r)[0].text.starts_with("every probe came back"));
    }
}
