//! Where each fio job of a step runs and what it does: the `rw=` mode, and the `numjobs`,
//! `offset` and `size` that put each of diskscope's threads on the same span or stripe —
//! byte counts when the span is known here, whole percents of each host's target on a fleet.

use crate::engine::pattern::OffsetGen;
use crate::settings::{Distribution, Settings};

/// A section's options, in the order they are written.
pub type Options = Vec<(&'static str, String)>;

/// The fio `rw=` mode for a read % and random %.
pub fn rw_mode(read_pct: u8, random_pct: u8) -> &'static str {
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
pub fn placements(span: u64, s: Settings) -> Vec<(String, Options)> {
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
        .map(|i| {
            OffsetGen::new(span, bs, s.random_pct, s.random_distribution, i, s.threads).stripe()
        })
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
pub fn whole_placements(s: Settings) -> (Vec<(String, Options)>, Option<String>) {
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

/// What a rate-limited job file says about latency.
pub const RATE_BASIS: &str = "fio times a rate-limited I/O from its submission (diskscope's service_latency_ns); diskscope's latency_ns counts from when it was due";

/// fio's `rate_iops` for one of `s.threads` jobs: the total split evenly, and for a mix into
/// a reads,writes pair (one value would cap each direction at it). fio takes whole numbers;
/// when the split is not whole, the note says by how much fio's total differs.
pub fn rate_per_job(s: Settings) -> (String, Option<String>) {
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
    let note = (total as u64 != s.rate_iops).then(|| {
        format!(
            "fio's rate_iops is per job and whole: {} jobs at {text} make {} IOPS where diskscope asks {}",
            s.threads, total as u64, s.rate_iops
        )
    });
    (text, note)
}

/// Where fio's mixed patterns walk differently (fio's io_u.c keeps one sequential position
/// per direction and moves it after every I/O, random ones included).
pub fn mix_differences(s: Settings) -> Vec<&'static str> {
    let mut notes = Vec::new();
    if s.random_pct > 0 && s.random_pct < 100 {
        notes.push(
            "fio continues a sequential run from the previous I/O, random ones included; diskscope continues each thread's own stream",
        );
        if s.threads > 1 {
            notes.push(
                "fio keeps each job's random I/Os inside its stripe; diskscope's cover the whole span",
            );
        }
    }
    if s.random_pct < 100 && s.read_pct > 0 && s.read_pct < 100 {
        notes.push(
            "fio keeps separate sequential positions for reads and writes; diskscope's share one stream per thread",
        );
    }
    if s.random_pct > 0 {
        match s.random_distribution {
            Distribution::Uniform => {}
            Distribution::Zipf { theta_milli: 1000 } => notes.push(ZIPF_ONE),
            Distribution::HotBand { .. } => notes.push(ZONES_CONTIGUOUS),
            _ => notes.push(RANKS_HASHED),
        }
    }
    notes
}

/// fio 3.33 refuses `zipf:1` ("zipf theta must different than 1.0").
const ZIPF_ONE: &str = "fio refuses zipf:1, so this file asks zipf:1.001, the nearest it takes; diskscope drew θ = 1 exactly";
/// fio's Zipf and Pareto hash a rank to a block, offset by its seed.
const RANKS_HASHED: &str = "fio hashes each rank to a block, offset by its seed (several ranks can share one block, and the hottest block moves with the seed); diskscope scatters ranks with a bijection that is the same in every run: the shares match, the hot blocks differ";
/// fio's zones are contiguous.
const ZONES_CONTIGUOUS: &str = "fio's zoned puts its hot zone at the start of the span; diskscope scatters the hot band over it: the shares match, the hot blocks differ";

/// fio's `random_distribution=` for a skewed distribution; none for uniform or no random I/O.
pub fn distribution(s: Settings) -> Option<(&'static str, String)> {
    let d = s.random_distribution;
    if s.random_pct == 0 || !d.is_skewed() {
        return None;
    }
    let spelling = match d {
        Distribution::Zipf { theta_milli: 1000 } => "zipf:1.001".to_string(),
        _ => d.fio_spelling(),
    };
    Some(("random_distribution", spelling))
}
