//! What we benchmark: finding the machine's block devices (discover, list; the sysfs roots and
//! readers in sysfs, the text parsers in parse, the access probe in access), opening a device
//! or file safely (open, with the stack above it checked by safety and stack), what of a file
//! is really on disk (extents), the scratch file used when no target is given (scratch, its
//! lock and layout mark in scratch_mark), and the physical facts of a disk read at open: what
//! carries it and its ceiling (link, link_bus, link_reading, ceiling), the block layer's limits
//! (queue_limits), its temperature sensor (hwmon) and NVMe thermal log (nvme_log), gathered for
//! a target by facts, and what several targets share on the way to the CPU (parent). Nothing here generates load or runs on the I/O path; the engine does,
//! through the descriptors `open` hands out.

pub mod access;
pub(crate) mod attrs;
pub(crate) mod cache;
pub mod ceiling;
pub mod discover;
pub(crate) mod extents;
pub mod facts;
pub mod hwmon;
pub mod link;
pub mod link_bus;
pub(crate) mod link_reading;
pub mod list;
pub(crate) mod loopdev;
pub mod nvme_log;
pub mod open;
pub mod overlap;
pub mod overlay;
pub mod parent;
pub mod parse;
pub mod poll;
pub(crate) mod prepare;
pub mod queue_limits;
pub(crate) mod safety;
pub(crate) mod scratch;
pub(crate) mod scratch_mark;
pub(crate) mod shell;
pub mod stack;
pub mod sysfs;
pub mod trim;
pub(crate) mod walk;
