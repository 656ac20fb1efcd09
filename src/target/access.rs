//! Whether the current user can open a device node: a read-only open, closed at once, and its
//! refusal in words. Discovery probes every device with it so the picker and `--list` can say
//! why a device cannot be chosen before anything fails.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Result of probing the device node with a read-only open.
///
/// Serialized as the string `"ok"` or as `{"denied": "<reason>"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    Ok,
    Denied(String),
}

impl Access {
    /// True when the device node could be opened for reading.
    pub fn is_ok(&self) -> bool {
        matches!(self, Access::Ok)
    }
}

/// Maps the errno of a failed read-only open to an [`Access`] verdict.
pub fn access_from_errno(errno: i32) -> Access {
    match nix::errno::Errno::from_raw(errno) {
        nix::errno::Errno::EACCES | nix::errno::Errno::EPERM => {
            Access::Denied("permission denied".to_string())
        }
        nix::errno::Errno::ENOENT => Access::Denied("no device node".to_string()),
        other => Access::Denied(other.desc().to_string()),
    }
}

/// Opens `path` read-only (std opens with `O_RDONLY | O_CLOEXEC`) and closes it at once.
pub fn probe_access(path: &Path) -> Access {
    match fs::File::open(path) {
        Ok(_file) => Access::Ok,
        Err(err) => match err.raw_os_error() {
            Some(errno) => access_from_errno(errno),
            None => Access::Denied(err.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errno_mapping() {
        assert_eq!(
            access_from_errno(nix::errno::Errno::EACCES as i32),
            Access::Denied("permission denied".into())
        );
        assert_eq!(
            access_from_errno(nix::errno::Errno::EPERM as i32),
            Access::Denied("permission denied".into())
        );
        assert_eq!(
            access_from_errno(nix::errno::Errno::ENOENT as i32),
            Access::Denied("no device node".into())
        );
        assert_eq!(
            access_from_errno(nix::errno::Errno::ENOMEDIUM as i32),
            Access::Denied(nix::errno::Errno::ENOMEDIUM.desc().into())
        );
    }

    #[test]
    fn access_serializes_as_documented() {
        assert_eq!(
            serde_json::to_string(&Access::Ok).ok().as_deref(),
            Some("\"ok\"")
        );
        assert_eq!(
            serde_json::to_string(&Access::Denied("permission denied".into()))
                .ok()
                .as_deref(),
            Some(r#"{"denied":"permission denied"}"#)
        );
    }
}
