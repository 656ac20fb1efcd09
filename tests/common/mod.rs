//! Helpers shared by the binary-level tests: running diskscope, and loop devices for the
//! root-only tests (always detached, even when a test fails).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the diskscope binary in `dir` with `args`; stdin is closed and stdout is a pipe, so
/// it never opens the TUI.
pub fn diskscope(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the diskscope binary runs")
}

/// The JSON document a successful run printed; fails showing its stderr otherwise.
pub fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "diskscope failed: {}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(out)))
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A temporary directory on a real filesystem (the working directory's), not tmpfs.
pub fn workdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("diskscope-test")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

/// Writes `len` bytes of a non-repeating pattern to `path`.
pub fn make_file(path: &Path, len: usize) {
    let data: Vec<u8> = (0..len)
        .map(|i| (i as u32).wrapping_mul(2654435761).to_le_bytes()[2])
        .collect();
    std::fs::write(path, data).unwrap();
}

/// A loop device attached with direct I/O on; detached on drop.
pub struct LoopDev {
    pub path: String,
}

impl LoopDev {
    pub fn attach(file: &Path, extra: &[&str]) -> LoopDev {
        let out = Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on"])
            .args(extra)
            .arg(file)
            .output()
            .expect("losetup runs");
        assert!(
            out.status.success(),
            "losetup failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = String::from_utf8(out.stdout).unwrap().trim().to_string();
        // Let udev finish probing the new device so its reads don't land in our counts.
        let _ = Command::new("udevadm").arg("settle").status();
        LoopDev { path }
    }

    pub fn name(&self) -> &str {
        self.path.trim_start_matches("/dev/")
    }

    /// SHA-256-free checksum: a 64-bit FNV-1a over the whole device, read with O_DIRECT off.
    pub fn checksum(&self) -> u64 {
        let data = std::fs::read(&self.path).unwrap();
        data.iter().fold(0xcbf29ce484222325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
        })
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.path]).status();
    }
}

pub fn tmp_path(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}
