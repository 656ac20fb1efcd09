//! What we benchmark: opening a device or file safely, and the scratch file used when no
//! target is given.

pub mod open;
pub mod scratch;
