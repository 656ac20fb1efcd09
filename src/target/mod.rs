//! What we benchmark: finding the machine's block devices (discover, list), opening a device or
//! file safely (open), and the scratch file used when no target is given (scratch). Nothing
//! here generates load; the engine does, through the descriptors `open` hands out.

pub mod cache;
pub mod discover;
pub mod list;
pub mod open;
pub mod safety;
pub mod scratch;
