//! What a verify without its state file learns from the disk: which run (seed and pass) to
//! check. Not the first intact stamp read — one block of an older burn-in put back at offset
//! 0 would make the whole disk "stale" — but the run most of the intact stamps hold at
//! `LEARN_SAMPLES` places spread evenly over the span.

use super::stamp;
use crate::engine::buffer::AlignedBuf;
use crate::engine::io::IoOpener;

/// Positions `learn` samples, spread evenly over the span.
pub const LEARN_SAMPLES: u64 = 128;

/// What the stamps on the disk say about the run that wrote them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Learned {
    pub seed: u64,
    pub pass: u32,
    /// Sampled positions holding this run's stamp of this pass.
    pub agree: u64,
    /// Sampled positions holding any intact stamp.
    pub intact: u64,
}

/// The run a verify without a state file checks against: the intact stamps at
/// `LEARN_SAMPLES` positions spread evenly over the span, and the (seed, pass) most of them
/// hold — the higher pass on a tie. One stale block (an older burn-in's, put back) cannot pick
/// the run, as the first stamp read did. `None` when no sampled position holds one.
pub fn learn(opener: &dyn IoOpener, span: u64, align: usize) -> Option<Learned> {
    let mut io = opener.open_io().ok()?;
    let mut buf = AlignedBuf::new(align, align);
    let mut seen: Vec<((u64, u32), u64)> = Vec::new();
    let last = span.saturating_sub(align as u64);
    for i in 0..LEARN_SAMPLES {
        let at = last * i / (LEARN_SAMPLES - 1);
        let at = at - at % align as u64;
        if !matches!(io.read_at(&mut buf, at), Ok(n) if n == align) {
            continue;
        }
        let Some(key) = (0..align)
            .step_by(512)
            .find_map(|s| stamp::read_mark(&buf[s..]).map(|(seed, pass, _)| (seed, pass)))
        else {
            continue;
        };
        match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => seen.push((key, 1)),
        }
    }
    let intact = seen.iter().map(|(_, n)| n).sum();
    let ((seed, pass), agree) = *seen.iter().max_by_key(|((_, pass), n)| (*n, *pass))?;
    Some(Learned {
        seed,
        pass,
        agree,
        intact,
    })
}
