//! Whether `--trim` (discards, fio's `trim`) can run on a target, and why not. A trim is a
//! write — it destroys the block's data — so it needs `--allow-write` and then goes through
//! every check a write does (named, not mounted, not held: `safety`, at open). Beyond that it
//! needs a block device whose queue discards (`queue/discard_max_bytes` above 0), a block
//! size the device discards in one piece (at most `discard_max_bytes`, a multiple of
//! `discard_granularity`, so the kernel's count of discards is the run's), and no
//! `--verify` (a trimmed block reads back as zeros or stale data, which a read-back would
//! call corrupt). Beside polling (`--hipri`) trims go on as `BLKDISCARD`s from the worker's
//! thread: the kernel takes no block discard on a polled ring. A
//! regular file is refused rather than hole-punched: punching holes measures the
//! filesystem, not a discard. Decided from sysfs, read through `SYSFS_PATH`, before anything
//! is opened for I/O.

use std::path::Path;

use super::sysfs::{BlockDir, read_num};

/// What `--trim` depends on.
#[derive(Debug, Clone, Copy)]
pub struct TrimAsk<'a> {
    /// The target as typed (`None`: a scratch file, laid out in the working directory).
    pub path: Option<&'a Path>,
    pub allow_write: bool,
    pub bs: u64,
    pub verify: bool,
}

/// Why `--trim` cannot run on the target, in one line with what to change; `None` when it
/// can. `sys` is the sysfs root.
pub fn refusal(sys: &Path, ask: TrimAsk) -> Option<String> {
    if !ask.allow_write {
        return Some(
            "--trim discards blocks, which destroys their data; add --allow-write=/dev/NAME if that is intended"
                .into(),
        );
    }
    if ask.verify {
        return Some("--trim with --verify (or --burn-in, --capacity-probe): a trimmed block reads back as zeros or stale data, which the read-back would call corrupt; drop one of them".into());
    }
    let Some(path) = ask.path.filter(|p| is_block_device(p)) else {
        let what = match ask.path {
            Some(p) => format!("{} is not a block device", p.display()),
            None => "the scratch file is a regular file".into(),
        };
        return Some(format!(
            "--trim discards blocks of a block device: {what} (punching holes in a file is not done here: it measures the filesystem); name a device, e.g. a loop device over the file (losetup -f --show FILE)"
        ));
    };
    let block = match super::facts::block_of_path(sys, path) {
        Ok(b) => b,
        Err(why) => return Some(format!("--trim: {why}")),
    };
    limits_refusal(&block, ask.bs)
}

/// Whether the device's queue takes a discard of `bs` bytes whole.
fn limits_refusal(block: &BlockDir, bs: u64) -> Option<String> {
    let disk = &block.disk;
    let q = block.disk_dir.join("queue");
    let max: Option<u64> = read_num(&q.join("discard_max_bytes"));
    let granularity: u64 = read_num(&q.join("discard_granularity")).unwrap_or(0);
    match max {
        None => Some(format!(
            "--trim: {disk} has no queue/discard_max_bytes in sysfs: its driver cannot discard"
        )),
        Some(0) => Some(format!(
            "--trim: {disk} does not discard (/sys/block/{disk}/queue/discard_max_bytes is 0)"
        )),
        Some(max) if bs > max => Some(format!(
            "--trim: -b {bs} is more than {disk} discards at once (queue/discard_max_bytes {max}): the kernel would split each trim; use -b {max} or less"
        )),
        Some(_) if granularity > 0 && !bs.is_multiple_of(granularity) => Some(format!(
            "--trim: -b {bs} is not a multiple of {disk}'s discard granularity ({granularity} bytes, queue/discard_granularity); use a multiple of it"
        )),
        Some(_) => None,
    }
}

fn is_block_device(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn disk(max: &str, granularity: &str) -> (tempfile::TempDir, BlockDir) {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("queue");
        fs::create_dir_all(&q).unwrap();
        if !max.is_empty() {
            fs::write(q.join("discard_max_bytes"), max).unwrap();
        }
        fs::write(q.join("discard_granularity"), granularity).unwrap();
        let block = BlockDir {
            name: "loop7".into(),
            disk: "loop7".into(),
            disk_dir: dir.path().to_path_buf(),
        };
        (dir, block)
    }

    #[test]
    fn a_queue_that_discards_takes_whole_blocks_and_every_other_case_says_what_to_change() {
        let (_d, b) = disk("4294966784\n", "4096\n");
        assert_eq!(limits_refusal(&b, 4096), None);
        assert_eq!(limits_refusal(&b, 1 << 20), None);
        let e = limits_refusal(&b, 512).expect("below the granularity");
        assert!(e.contains("multiple") && e.contains("4096"), "{e}");
        let (_d, b) = disk("0\n", "0\n");
        let e = limits_refusal(&b, 4096).expect("no discard");
        assert!(
            e.contains("does not discard") && e.contains("discard_max_bytes is 0"),
            "{e}"
        );
        let (_d, b) = disk("65536\n", "512\n");
        let e = limits_refusal(&b, 1 << 20).expect("too big");
        assert!(e.contains("use -b 65536 or less"), "{e}");
        let (_d, b) = disk("", "512\n");
        assert!(limits_refusal(&b, 4096).unwrap().contains("cannot discard"));
    }

    #[test]
    fn writes_verify_and_files_are_refused_before_the_device_is_looked_at() {
        let sys = Path::new("/nonexistent");
        let file = tempfile::NamedTempFile::new().unwrap();
        let ask = TrimAsk {
            path: Some(file.path()),
            allow_write: true,
            bs: 4096,
            verify: false,
        };
        let e = refusal(sys, ask).unwrap();
        assert!(
            e.contains("not a block device") && e.contains("losetup"),
            "{e}"
        );
        let e = refusal(sys, TrimAsk { path: None, ..ask }).unwrap();
        assert!(e.contains("scratch file"), "{e}");
        let e = refusal(
            sys,
            TrimAsk {
                allow_write: false,
                ..ask
            },
        )
        .unwrap();
        assert!(e.contains("--allow-write"), "{e}");
        let e = refusal(
            sys,
            TrimAsk {
                verify: true,
                ..ask
            },
        )
        .unwrap();
        assert!(e.contains("--verify"), "{e}");
    }
}
