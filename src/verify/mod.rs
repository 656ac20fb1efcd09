//! Data verified: every block written under `--allow-write` by a burn-in or a probe carries a
//! stamp (its offset, the run's seed, the pass, a sequence number, a CRC-32C over the block),
//! written into the I/O buffer and checked in place when it is read back (`stamp`). What one
//! thread finds is kept in bounded memory (`tally`); the threads share progress and the region
//! map through atomics (`live`). `pass` writes or verifies the span once; `burnin` runs the
//! passes (`--burn-in`, `--burn-in=write`, `--burn-in=verify`) with the small state file of
//! write-now-verify-later (`state`), or from the stamps without it (`learn`); `probe` is
//! the quick capacity probe (`--capacity-probe`).
//! Nothing here opens a target or prints: the front door (`run::burnin`) hands in an
//! `IoOpener` made by `target::prepare`, with every write check it makes.

pub mod burnin;
pub mod during;
pub mod learn;
pub mod live;
pub mod pass;
pub mod probe;
pub mod stamp;
pub mod state;
pub mod tally;
