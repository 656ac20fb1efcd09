//! The write confirmation's state: a bare `--allow-write` met a block device, and the user
//! must type the device's path (or Esc for a read-only run) before anything is opened.

use std::path::PathBuf;

/// The write confirmation for a block device: the user types its path, or Esc for read-only.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    /// The device writes would go to.
    pub device: PathBuf,
    /// What has been typed.
    pub input: String,
    /// Why the last answer was not accepted, or why the device was refused.
    pub message: Option<String>,
}
