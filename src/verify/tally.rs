//! What one thread found, in memory that does not grow with the disk: counts per state, the
//! first `MAX_EXTENTS` bad stretches (neighbouring bad units of one kind merge into one, and an
//! aliased run merges while it keeps the same distance to the offsets it holds), and the
//! evidence for a fake capacity — the greatest common divisor of every distance between where a
//! stamp was written and where it came back, the closest such pair, the lowest bad offset and
//! how many bytes were bad. Tallies of several threads merge into one.

use crate::model::verify::{BadExtent, BadKind, Capacity, MAX_EXTENTS, VerifyCounts};

use super::stamp::Verdict;

/// One thread's findings (or several threads', merged).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub counts: VerifyCounts,
    pub extents: Vec<BadExtent>,
    pub left_out: u64,
    /// gcd of every |written − read| of an aliased unit (0: none seen).
    pub alias_gcd: u64,
    /// The aliased pair with the smallest distance: (distance, read at, written at).
    pub closest: Option<(u64, u64, u64)>,
    /// The lowest offset of a unit that was not intact.
    pub lowest_bad: Option<u64>,
    /// Bytes of units that were not intact.
    pub bad_bytes: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Tally {
    /// Counts `n` intact units.
    #[inline]
    pub fn intact(&mut self, n: u64) {
        self.counts.intact += n;
    }

    /// Records the unit of `unit` bytes at `offset` found `v`; returns its kind when bad.
    #[cold]
    pub fn bad(&mut self, offset: u64, unit: u64, v: Verdict) -> Option<BadKind> {
        let (kind, found, detail) = match v {
            Verdict::Intact => {
                self.intact(1);
                return None;
            }
            Verdict::Zeroes => (BadKind::Zeroes, None, None),
            Verdict::OtherData => (BadKind::OtherData, None, None),
            Verdict::Corrupt => (BadKind::Corrupt, None, None),
            Verdict::Stale { pass, seq, .. } => (
                BadKind::Stale,
                None,
                Some(format!(
                    "pass {pass}, written {:.3} s into it",
                    seq as f64 / 1e9
                )),
            ),
            Verdict::Aliased { found } => {
                self.alias(offset, found);
                (BadKind::Aliased, Some(found), None)
            }
        };
        self.add(offset, unit, kind, found, detail, 1);
        Some(kind)
    }

    /// Records an I/O that failed: `bytes` at `offset` (counted as one).
    pub fn io_error(&mut self, offset: u64, bytes: u64, kind: BadKind, error: String) {
        self.add(offset, bytes, kind, None, Some(error), 1);
    }

    fn alias(&mut self, read_at: u64, written_at: u64) {
        let d = read_at.abs_diff(written_at);
        self.alias_gcd = gcd(self.alias_gcd, d);
        if self
            .closest
            .is_none_or(|(c, r, _)| d < c || (d == c && read_at < r))
        {
            self.closest = Some((d, read_at, written_at));
        }
    }

    fn add(
        &mut self,
        offset: u64,
        bytes: u64,
        kind: BadKind,
        found: Option<u64>,
        detail: Option<String>,
        units: u64,
    ) {
        self.counts.count(kind, units);
        self.bad_bytes += bytes;
        self.lowest_bad = Some(self.lowest_bad.map_or(offset, |l| l.min(offset)));
        let e = BadExtent {
            offset,
            bytes,
            kind,
            found_offset: found,
            detail,
        };
        if !self.extents.last_mut().is_some_and(|last| absorb(last, &e)) {
            if self.extents.len() < MAX_EXTENTS {
                self.extents.push(e);
            } else {
                self.left_out += 1;
            }
        }
    }

    /// Adds another thread's tally; the stretches stay sorted by offset, neighbours merged.
    pub fn merge(&mut self, o: Tally) {
        self.counts.add(&o.counts);
        self.left_out += o.left_out;
        self.alias_gcd = gcd(self.alias_gcd, o.alias_gcd);
        if let Some((d, r, w)) = o.closest
            && self
                .closest
                .is_none_or(|(c, cr, _)| d < c || (d == c && r < cr))
        {
            self.closest = Some((d, r, w));
        }
        self.lowest_bad = match (self.lowest_bad, o.lowest_bad) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.bad_bytes += o.bad_bytes;
        let mut all = std::mem::take(&mut self.extents);
        all.extend(o.extents);
        all.sort_by_key(|e| e.offset);
        for e in all {
            if self.extents.last_mut().is_some_and(|last| absorb(last, &e)) {
                continue;
            }
            if self.extents.len() < MAX_EXTENTS {
                self.extents.push(e);
            } else {
                self.left_out += 1;
            }
        }
    }

    /// What the stamps say the disk really holds, for a span of `span` bytes: the distance
    /// every aliased pair is a multiple of (a disk that wraps at R returns the data written at
    /// X + k·R at X), else — when everything from the lowest bad offset to the end is bad
    /// and nothing below it — that offset. `None` when neither holds.
    pub fn capacity(&self, span: u64) -> Option<Capacity> {
        if self.alias_gcd > 0 {
            let (_, read_at, written_at) = self.closest?;
            return Some(Capacity {
                real_bytes: self.alias_gcd.min(span),
                written_at,
                read_at: Some(read_at),
                step_bytes: None,
            });
        }
        let low = self.lowest_bad?;
        let tail = span.checked_sub(low)?;
        let only_io_errors = self.counts.read_errors + self.counts.write_errors > 0
            && self.counts.bad() == self.counts.read_errors + self.counts.write_errors;
        (low > 0 && self.bad_bytes >= tail && !only_io_errors).then_some(Capacity {
            real_bytes: low,
            written_at: low,
            read_at: None,
            step_bytes: None,
        })
    }
}

/// Takes `e` into `last` when it continues it (the next bytes, of one kind and detail, an
/// aliased run at the same distance) or repeats what it already covers (a block read back
/// again and found the same: `--verify` reads a block as often as it writes it).
fn absorb(last: &mut BadExtent, e: &BadExtent) -> bool {
    if last.kind != e.kind {
        return false;
    }
    let end = last.offset + last.bytes;
    if e.offset >= last.offset && e.offset + e.bytes <= end {
        return e.found_offset.is_none() || follows_at(last, e);
    }
    if e.offset == end && last.detail == e.detail && follows(last, e.found_offset) {
        last.bytes += e.bytes;
        return true;
    }
    false
}

/// Whether `e`, inside `last`, holds what `last`'s aliased run says it holds there.
fn follows_at(last: &BadExtent, e: &BadExtent) -> bool {
    match (last.found_offset, e.found_offset) {
        (Some(lf), Some(f)) => f.wrapping_sub(lf) == e.offset - last.offset,
        _ => true,
    }
}

/// Whether an aliased unit whose stamp names `found` continues `last`'s run (the same
/// distance between where it was read and where it was written); other kinds always do.
fn follows(last: &BadExtent, found: Option<u64>) -> bool {
    match (last.found_offset, found) {
        (Some(lf), Some(f)) => f.wrapping_sub(lf) == last.bytes,
        (None, None) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: u64 = 4096;

    #[test]
    fn neighbouring_bad_units_merge_and_intact_ones_only_count() {
        let mut t = Tally::default();
        t.intact(10);
        for i in 0..4 {
            t.bad(8 * U + i * U, U, Verdict::Corrupt);
        }
        t.bad(20 * U, U, Verdict::Zeroes);
        assert_eq!(t.counts.intact, 10);
        assert_eq!(t.counts.corrupt, 4);
        assert_eq!(t.extents.len(), 2);
        assert_eq!((t.extents[0].offset, t.extents[0].bytes), (8 * U, 4 * U));
        assert_eq!(t.lowest_bad, Some(8 * U));
        assert_eq!(t.capacity(100 * U), None);
    }

    #[test]
    fn a_block_found_bad_again_is_one_stretch() {
        let mut t = Tally::default();
        for _ in 0..1000 {
            t.bad(5 * U, U, Verdict::Corrupt);
        }
        let mut other = Tally::default();
        other.bad(5 * U, U, Verdict::Corrupt);
        t.merge(other);
        assert_eq!(t.extents.len(), 1);
        assert_eq!(t.counts.corrupt, 1001, "every unit read is still counted");
    }

    #[test]
    fn the_list_is_bounded_and_says_how_much_it_left_out() {
        let mut t = Tally::default();
        for i in 0..(MAX_EXTENTS as u64 + 50) {
            t.bad(i * 2 * U, U, Verdict::Corrupt);
        }
        assert_eq!(t.extents.len(), MAX_EXTENTS);
        assert_eq!(t.left_out, 50);
        assert_eq!(t.counts.corrupt, MAX_EXTENTS as u64 + 50);
    }

    /// A disk that keeps 96 MiB (not a power of two) and wraps: every read at X holds the stamp
    /// written at X + k·96 MiB. The real size is the gcd of the distances, however the
    /// threads' findings are split.
    #[test]
    fn a_wrapping_disk_is_found_by_the_gcd_of_the_distances() {
        let real = 96u64 << 20;
        let claimed = 1u64 << 30;
        let (mut a, mut b) = (Tally::default(), Tally::default());
        let mut x = 0;
        while x < claimed {
            let place = x % real;
            let written = place + (claimed - 1 - place) / real * real;
            let t = if x < claimed / 2 { &mut a } else { &mut b };
            if written == x {
                t.intact(1);
            } else {
                t.bad(x, U, Verdict::Aliased { found: written });
            }
            x += U * 97;
        }
        a.merge(b);
        let c = a.capacity(claimed).unwrap();
        assert_eq!(c.real_bytes, real);
        assert_eq!(c.written_at.abs_diff(c.read_at.unwrap()), real);
    }

    #[test]
    fn a_disk_that_drops_everything_past_its_size_is_found_by_the_bad_tail() {
        let mut t = Tally::default();
        t.intact(32);
        for i in 32..64 {
            t.bad(i * U, U, Verdict::Zeroes);
        }
        let c = t.capacity(64 * U).unwrap();
        assert_eq!(c.real_bytes, 32 * U);
        assert_eq!(c.read_at, None);
        // A bad stretch in the middle is not a size.
        let mut t = Tally::default();
        t.bad(10 * U, U, Verdict::Zeroes);
        assert_eq!(t.capacity(64 * U), None);
    }

    #[test]
    fn merged_tallies_keep_offsets_sorted_and_join_across_threads() {
        let mut a = Tally::default();
        let mut b = Tally::default();
        b.bad(0, U, Verdict::Corrupt);
        a.bad(U, U, Verdict::Corrupt);
        a.bad(5 * U, U, Verdict::Zeroes);
        b.merge(a);
        assert_eq!(b.extents.len(), 2);
        assert_eq!((b.extents[0].offset, b.extents[0].bytes), (0, 2 * U));
        assert_eq!(b.counts.bad(), 3);
    }
}
