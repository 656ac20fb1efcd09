//! The stamp: what every written block carries so that reading it back says what happened to
//! it. A block is cut into units (4 KiB, or 512 bytes for blocks that are not a multiple of
//! 4 KiB); each unit starts with a 40-byte header and ends with the random payload the worker's
//! buffer already holds:
//!
//! ```text
//!  0..4   magic "DSv1"        8..16  the unit's own byte offset   24..28  pass
//!  4..8   crc32c of 8..unit  16..24  the run's seed               28..30  unit / 512
//! 32..40  sequence (ns since the run's start when it was written)   30..32  the writer thread
//! ```
//!
//! Stamping writes the header into the buffer in place and takes one CRC-32C (the SSE 4.2 /
//! ARMv8 instruction, through the `crc32c` crate) over the rest; checking reads the header and
//! takes the same CRC, in place, on the buffer the read filled: no allocation, no lock, no copy.
//! A unit that fails is sorted into what it tells: zeroes, data that is no stamp, a broken
//! checksum, an older pass or sequence (a lost write), or another offset's stamp (the device
//! maps two addresses to one place: a fake capacity).

/// The magic at the start of every stamped unit.
pub const MAGIC: [u8; 4] = *b"DSv1";
/// Bytes of the header at the start of each unit.
pub const HEADER: usize = 40;
/// The unit for blocks that are a multiple of it.
pub const UNIT: usize = 4096;

/// The unit a block of `bs` bytes is stamped in: 4 KiB when `bs` is a multiple of it, else
/// 512 bytes (the smallest logical block); `bs` is a multiple of 512.
pub fn unit_for(bs: u64) -> usize {
    if bs.is_multiple_of(UNIT as u64) {
        UNIT
    } else {
        512
    }
}

/// What a unit is stamped with besides its offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub seed: u64,
    pub pass: u32,
    pub seq: u64,
    /// The thread that wrote it.
    pub writer: u16,
}

/// What reading a unit back is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expect {
    pub seed: u64,
    pub pass: u32,
    /// The oldest sequence that is not stale (0: any).
    pub min_seq: u64,
    /// With `--verify`, the thread whose write is read back: an older stamp of another thread
    /// is that thread's write landing after this one (two threads wrote the block), not a
    /// lost write, and passes.
    pub writer: Option<u16>,
}

/// What one unit read back holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// This offset's stamp, this run and pass, checksum good.
    Intact,
    /// All zeroes: never written, or trimmed.
    Zeroes,
    /// Data that is no stamp at all: this run's write never reached it.
    OtherData,
    /// A stamp whose checksum fails (or whose magic is a bit or two off): the data changed.
    Corrupt,
    /// This offset's stamp from an older pass, an older sequence or another run: a lost write.
    Stale {
        pass: u32,
        seq: u64,
        seed: u64,
        writer: u16,
    },
    /// This run's stamp for another offset: the device maps both addresses to one place.
    Aliased { found: u64 },
}

#[inline]
fn le64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline]
fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

#[inline]
fn le32(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

/// Stamps every `unit` of `buf` (which is written at byte `offset`) in place.
#[inline]
pub fn stamp(buf: &mut [u8], offset: u64, unit: usize, mark: Mark) {
    for (i, u) in buf.chunks_exact_mut(unit).enumerate() {
        let at = offset + (i * unit) as u64;
        u[0..4].copy_from_slice(&MAGIC);
        u[8..16].copy_from_slice(&at.to_le_bytes());
        u[16..24].copy_from_slice(&mark.seed.to_le_bytes());
        u[24..28].copy_from_slice(&mark.pass.to_le_bytes());
        u[28..30].copy_from_slice(&((unit / 512) as u16).to_le_bytes());
        u[30..32].copy_from_slice(&mark.writer.to_le_bytes());
        u[32..40].copy_from_slice(&mark.seq.to_le_bytes());
        let crc = crc32c::crc32c(&u[8..]);
        u[4..8].copy_from_slice(&crc.to_le_bytes());
    }
}

/// Checks one unit read back from byte `offset`.
#[inline]
pub fn check(u: &[u8], offset: u64, expect: &Expect) -> Verdict {
    if u[0..4] != MAGIC {
        if let Some(found) = shifted(u, expect.seed) {
            return Verdict::Aliased { found };
        }
        return not_a_stamp(u);
    }
    if crc32c::crc32c(&u[8..]) != le32(u, 4) {
        return Verdict::Corrupt;
    }
    let (found, seed, pass, seq) = (le64(u, 8), le64(u, 16), le32(u, 24), le64(u, 32));
    let writer = le16(u, 30);
    if found != offset {
        return if seed == expect.seed {
            Verdict::Aliased { found }
        } else {
            Verdict::OtherData
        };
    }
    let overwritten = expect.writer.is_some_and(|w| w != writer);
    if seed != expect.seed || pass < expect.pass || (seq < expect.min_seq && !overwritten) {
        return Verdict::Stale {
            pass,
            seq,
            seed,
            writer,
        };
    }
    if pass > expect.pass {
        // A later pass than the one checked: written after what verify was told of.
        return Verdict::OtherData;
    }
    Verdict::Intact
}

/// A unit that holds, at a 512-byte boundary inside it, the header of this run's stamp of a
/// unit of its own size: what a disk that wraps at a size that is not a whole number of units
/// returns (the stamp written at W lands at W mod R, part-way into a unit). Returns the offset
/// whose data the unit's start holds (W less the shift), for the alias distance: a multiple of
/// R. The header alone is checked (the rest of that stamp lies past the unit): the magic, the
/// run's 64-bit seed, a unit size equal to this unit's and an offset on a unit boundary.
#[cold]
fn shifted(u: &[u8], seed: u64) -> Option<u64> {
    (512..u.len().saturating_sub(HEADER - 1))
        .step_by(512)
        .find_map(|s| {
            let h = &u[s..];
            let at = le64(h, 8);
            let ok = h[0..4] == MAGIC
                && le64(h, 16) == seed
                && le16(h, 28) as usize * 512 == u.len()
                && at.is_multiple_of(u.len() as u64)
                && at >= s as u64;
            ok.then(|| at - s as u64)
        })
}

/// A unit whose magic is not ours: zeroes, a magic a bit or two off (a flip in the header:
/// corrupt), or other data.
#[cold]
fn not_a_stamp(u: &[u8]) -> Verdict {
    let flipped: u32 = u[0..4]
        .iter()
        .zip(MAGIC)
        .map(|(a, b)| (a ^ b).count_ones())
        .sum();
    if flipped <= 2 {
        Verdict::Corrupt
    } else if u.iter().all(|&b| b == 0) {
        Verdict::Zeroes
    } else {
        Verdict::OtherData
    }
}

/// The seed and pass of the stamp at the start of `u` when it is an intact stamp (any
/// offset): what `--burn-in=verify` learns from the disk when no state file says it.
pub fn read_mark(u: &[u8]) -> Option<(u64, u32, u64)> {
    if u.len() < HEADER || u[0..4] != MAGIC {
        return None;
    }
    let unit = le16(u, 28) as usize * 512;
    if unit < HEADER || unit > u.len() || crc32c::crc32c(&u[8..unit]) != le32(u, 4) {
        return None;
    }
    Some((le64(u, 16), le32(u, 24), le64(u, 8)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: u64 = 0x5eed_1234_abcd_0001;

    fn block(len: usize, offset: u64, pass: u32, seq: u64) -> Vec<u8> {
        let mut b: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
        let mark = Mark {
            seed: SEED,
            pass,
            seq,
            writer: 3,
        };
        stamp(&mut b, offset, unit_for(len as u64), mark);
        b
    }

    fn expect(pass: u32) -> Expect {
        Expect {
            seed: SEED,
            pass,
            min_seq: 0,
            writer: None,
        }
    }

    fn verdicts(b: &[u8], offset: u64, e: &Expect) -> Vec<Verdict> {
        let unit = unit_for(b.len() as u64);
        b.chunks_exact(unit)
            .enumerate()
            .map(|(i, u)| check(u, offset + (i * unit) as u64, e))
            .collect()
    }

    #[test]
    fn a_fresh_stamp_reads_back_intact_in_every_unit() {
        let b = block(1 << 20, 7 << 20, 2, 99);
        let v = verdicts(&b, 7 << 20, &expect(2));
        assert_eq!(v.len(), 256);
        assert!(v.iter().all(|&v| v == Verdict::Intact), "{v:?}");
        assert_eq!(read_mark(&b), Some((SEED, 2, 7 << 20)));
    }

    #[test]
    fn one_flipped_bit_anywhere_is_corrupt_in_its_unit_only() {
        for bit in [0usize, 33, 4 * 8, 8 * 8 + 3, 40 * 8, 4095 * 8 + 7, 5000 * 8] {
            let mut b = block(16384, 0, 1, 5);
            b[bit / 8] ^= 1 << (bit % 8);
            let v = verdicts(&b, 0, &expect(1));
            let bad = bit / 8 / 4096;
            for (i, got) in v.iter().enumerate() {
                let want = if i == bad {
                    Verdict::Corrupt
                } else {
                    Verdict::Intact
                };
                assert_eq!(*got, want, "bit {bit}, unit {i}");
            }
        }
    }

    #[test]
    fn an_older_pass_sequence_or_run_is_stale() {
        let b = block(4096, 8192, 1, 10);
        assert_eq!(
            verdicts(&b, 8192, &expect(2)),
            [Verdict::Stale {
                pass: 1,
                seq: 10,
                seed: SEED,
                writer: 3
            }]
        );
        // An older stamp of another thread: its write landed after ours, not a lost write.
        let other = Expect {
            min_seq: 11,
            writer: Some(4),
            ..expect(1)
        };
        assert_eq!(verdicts(&b, 8192, &other), [Verdict::Intact]);
        let mine = Expect {
            writer: Some(3),
            ..other
        };
        assert!(matches!(
            verdicts(&b, 8192, &mine)[0],
            Verdict::Stale { .. }
        ));
        let newer = Expect {
            min_seq: 11,
            ..expect(1)
        };
        assert!(matches!(
            verdicts(&b, 8192, &newer)[0],
            Verdict::Stale { seq: 10, .. }
        ));
        let other_run = Expect {
            seed: 1,
            ..expect(1)
        };
        assert!(matches!(
            verdicts(&b, 8192, &other_run)[0],
            Verdict::Stale { seed: SEED, .. }
        ));
        assert_eq!(verdicts(&b, 8192, &expect(0)), [Verdict::OtherData]);
    }

    #[test]
    fn another_offsets_stamp_is_aliased_and_names_that_offset() {
        let b = block(8192, 128 << 20, 1, 0);
        assert_eq!(
            verdicts(&b, 0, &expect(1)),
            [
                Verdict::Aliased { found: 128 << 20 },
                Verdict::Aliased {
                    found: (128 << 20) + 4096
                }
            ]
        );
        // Another run's stamp for another offset is only other data.
        let e = Expect {
            seed: 3,
            ..expect(1)
        };
        assert_eq!(verdicts(&b, 0, &e)[0], Verdict::OtherData);
    }

    #[test]
    fn zeroes_and_foreign_data_are_told_apart() {
        assert_eq!(verdicts(&[0u8; 4096], 0, &expect(1)), [Verdict::Zeroes]);
        let junk: Vec<u8> = (0..4096).map(|i| (i % 251) as u8 | 0x80).collect();
        assert_eq!(verdicts(&junk, 0, &expect(1)), [Verdict::OtherData]);
        assert_eq!(read_mark(&junk), None);
    }

    #[test]
    fn blocks_not_a_multiple_of_4k_are_stamped_in_512_byte_units() {
        assert_eq!(unit_for(4096 * 3), 4096);
        assert_eq!(unit_for(1536), 512);
        let b = block(1536, 512, 1, 0);
        assert_eq!(verdicts(&b, 512, &expect(1)), [Verdict::Intact; 3]);
        assert_eq!(read_mark(&b[512..]), Some((SEED, 1, 1024)));
    }
}
