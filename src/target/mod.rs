//! What we benchmark: finding the machine's block devices (discover, list), opening a device or
//! file safely (open, with the stack above it checked by safety and stack), what of a file is
//! really on disk (extents), and the scratch file used when no target is given (scratch, its
//! lock and layout mark in scratch_mark). Nothing here generates load; the engine does, through
//! the descriptors `open` hands out.

pub(crate) mod attrs;
pub(crate) mod cache;
pub mod discover;
pub(crate) mod extents;
pub mod list;
pub(crate) mod loopdev;
pub mod open;
pub mod overlap;
pub(crate) mod prepare;
pub(crate) mod safety;
pub(crate) mod scratch;
pub(crate) mod scratch_mark;
pub(crate) mod shell;
pub mod stack;
pub(crate) mod walk;
