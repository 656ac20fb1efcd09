//! Which line of /proc/diskstats is the target's: a block device is its own entry (by its
//! st_rdev), a file is counted under the device holding its filesystem (by st_dev). Both are
//! looked up by major:minor, which also finds loop, dm and md devices. Filesystems with no
//! block device (tmpfs, overlay's anonymous numbers, network filesystems) have no entry.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// The diskstats name of `major:minor` in `text` (the contents of /proc/diskstats).
pub fn name_by_numbers(text: &str, major: u64, minor: u64) -> Option<String> {
    text.lines().find_map(|line| {
        let mut f = line.split_whitespace();
        let ma: u64 = f.next()?.parse().ok()?;
        let mi: u64 = f.next()?.parse().ok()?;
        let name = f.next()?;
        (ma == major && mi == minor).then(|| name.to_string())
    })
}

/// The diskstats name of the device behind `path`, reading `proc_root/diskstats`.
pub fn device_of(path: &Path, proc_root: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    let text = std::fs::read_to_string(proc_root.join("diskstats")).ok()?;
    name_by_numbers(
        &text,
        nix::sys::stat::major(dev),
        nix::sys::stat::minor(dev),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_devices_by_numbers() {
        let text = "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n   8       1 sda1 1 2 3 4 5 6 7 8 9 10 11\n   7       3 loop3 1 2 3 4 5 6 7 8 9 10 11\n";
        assert_eq!(name_by_numbers(text, 8, 1).as_deref(), Some("sda1"));
        assert_eq!(name_by_numbers(text, 7, 3).as_deref(), Some("loop3"));
        assert_eq!(name_by_numbers(text, 0, 35), None);
    }
}
