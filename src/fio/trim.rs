//! A mix with trims (`--trim`) as fio 3.33 can run it. fio has trims alone (`rw=trim`,
//! `randtrim`) and trims paired with writes (`trimwrite`, `randtrimwrite`: each block trimmed,
//! then written), but no share of trims inside a read/write mix: `rwmixread` splits reads
//! from writes only. So:
//!
//! - trims only → one job, `rw=randtrim` (or `trim`, sequential);
//! - half trims, half writes → one job, `rw=randtrimwrite` (or `trimwrite`), said to differ:
//!   fio writes each block right after trimming it, diskscope's trims and writes are drawn
//!   independently;
//! - any other share → two sets of jobs side by side, the reads and writes as before and the
//!   trims (`randtrim`) in jobs of their own, their shares held by fio's token flow control
//!   (`flow_id`, `flow` = each part's share of the I/Os) and a rate split the same way. The
//!   job file says so: fio then runs twice the threads, each doing one kind of I/O, where
//!   each diskscope thread mixes them.

use super::placement::{Options, rw_mode};
use crate::settings::Settings;

/// One set of jobs of a step: its settings (trims 0 or 100), its section name's suffix and
/// the flow options that keep its share.
pub struct Part {
    pub settings: Settings,
    pub suffix: &'static str,
    pub flow: Options,
}

impl Part {
    /// The options each of this part's sections adds: its flow, and where the global
    /// section registers buffers (`fixed`) and the part only trims, `fixedbufs=0` — fio 3.33
    /// gives a trims-only job no buffers, and registering none fails (io_queue_init: Bad
    /// address).
    pub fn extras(&self, fixed: bool) -> Options {
        let unfixed = fixed && self.settings.trim_pct == 100;
        let mut extra = self.flow.clone();
        extra.extend(unfixed.then(|| ("fixedbufs", "0".into())));
        extra
    }
}

/// The flow group of a step's parts (any number: the group is only between them).
const FLOW_ID: &str = "1";

/// How `s` is run by fio: its parts, and what differs from diskscope (`#` lines).
pub fn parts(s: Settings) -> (Vec<Part>, Vec<String>) {
    let t = s.trim_pct.min(100);
    let whole = |settings| Part {
        settings,
        suffix: "",
        flow: Vec::new(),
    };
    if t == 0 || t == 100 {
        return (vec![whole(s)], Vec::new());
    }
    if t == 50 && s.read_pct == 0 {
        let note = "fio's trimwrite writes each block right after trimming it; diskscope draws its trims and writes (half each) independently, at offsets of their own";
        return (vec![whole(s)], vec![note.into()]);
    }
    let share = |pct: u8| s.rate_iops * u64::from(pct) / 100;
    let rest = Settings {
        trim_pct: 0,
        rate_iops: share(100 - t),
        ..s
    };
    let trims = Settings {
        trim_pct: 100,
        read_pct: 100,
        rate_iops: share(t),
        ..s
    };
    let flow = |weight: u8| vec![("flow_id", FLOW_ID.into()), ("flow", weight.to_string())];
    let note = format!(
        "fio has no share of trims inside a read/write mix (rwmixread splits reads from writes only): the trims ({t} % of the I/Os) run in jobs of their own beside the reads and writes, held to their share by flow control (flow_id={FLOW_ID}, flow={t} against {}), so fio runs {} threads where diskscope's {} each mix all three",
        100 - t,
        2 * s.threads,
        s.threads
    );
    let parts = vec![
        Part {
            settings: rest,
            suffix: "",
            flow: flow(100 - t),
        },
        Part {
            settings: trims,
            suffix: "-trim",
            flow: flow(t),
        },
    ];
    (parts, vec![note])
}

/// fio's `rw` for the settings of one part: trims alone, trims paired with writes, else the
/// reads and writes as before.
pub fn rw(s: &Settings) -> &'static str {
    let random = s.random_pct > 0;
    match (s.trim_pct, s.read_pct, random) {
        (100, _, true) => "randtrim",
        (100, _, false) => "trim",
        (50, 0, true) => "randtrimwrite",
        (50, 0, false) => "trimwrite",
        _ => rw_mode(s.read_pct, s.random_pct),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_alone_or_with_half_writes_are_one_job_and_other_shares_two_flows() {
        let s = |trim_pct, read_pct, random_pct| Settings {
            trim_pct,
            read_pct,
            random_pct,
            threads: 2,
            rate_iops: 1000,
            ..Settings::default()
        };
        assert_eq!(rw(&s(100, 70, 100)), "randtrim");
        assert_eq!(rw(&s(100, 70, 0)), "trim");
        assert_eq!(rw(&s(50, 0, 100)), "randtrimwrite");
        assert_eq!(rw(&s(50, 0, 0)), "trimwrite");
        assert_eq!(rw(&s(0, 70, 100)), "randrw");
        let (one, notes) = parts(s(100, 100, 100));
        assert_eq!((one.len(), notes.len()), (1, 0));
        let (one, notes) = parts(s(50, 0, 100));
        assert_eq!(one.len(), 1);
        assert!(notes[0].contains("right after trimming"), "{notes:?}");
        let (two, notes) = parts(s(30, 50, 100));
        assert_eq!(two.len(), 2);
        let (rest, trims) = (&two[0], &two[1]);
        assert_eq!((rest.settings.trim_pct, rest.settings.read_pct), (0, 50));
        assert_eq!(rw(&rest.settings), "randrw");
        assert_eq!(rw(&trims.settings), "randtrim");
        assert_eq!(
            (rest.settings.rate_iops, trims.settings.rate_iops),
            (700, 300)
        );
        assert_eq!(rest.flow, [("flow_id", "1".into()), ("flow", "70".into())]);
        assert_eq!(trims.flow, [("flow_id", "1".into()), ("flow", "30".into())]);
        assert_eq!(trims.suffix, "-trim");
        assert!(
            notes[0].contains("flow control") && notes[0].contains("4 threads"),
            "{notes:?}"
        );
    }
}
