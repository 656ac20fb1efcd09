//! Helpers shared by the binary-level tests: running diskscope, and for the root-only tests
//! loop devices, mounts and swap (always detached, unmounted and switched off, even when a
//! test fails, by RAII guards).
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

/// Runs `cmd` with `args`, failing the test with its stderr if it fails.
pub fn run(cmd: &str, args: &[&str]) {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl LoopDev {
    /// Writes a `len`-byte file named `backing` in `dir` and attaches it; the file's path is
    /// `dir/backing`.
    pub fn on_new_file(dir: &Path, len: usize, extra: &[&str]) -> LoopDev {
        let file = dir.join("backing");
        make_file(&file, len);
        LoopDev::attach(&file, extra)
    }

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
        checksum(Path::new(&self.path))
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.path]).status();
    }
}

/// A filesystem mounted on a new directory; unmounted on drop.
pub struct Mounted {
    pub dir: PathBuf,
}

impl Mounted {
    /// Makes an ext4 filesystem on `dev` and mounts it read-only (so the filesystem itself
    /// writes nothing and any change to the device is someone else's) on `dir`.
    pub fn ext4(dev: &str, dir: PathBuf) -> Mounted {
        // nodiscard: the loop driver would punch holes in the backing file for a discard.
        run("mkfs.ext4", &["-q", "-F", "-E", "nodiscard", dev]);
        Mounted::new(&["-o", "ro", dev], dir)
    }

    /// `mount ARGS DIR`, creating DIR.
    pub fn new(args: &[&str], dir: PathBuf) -> Mounted {
        std::fs::create_dir_all(&dir).unwrap();
        let mut all: Vec<&str> = args.to_vec();
        all.push(dir.to_str().unwrap());
        run("mount", &all);
        Mounted { dir }
    }
}

impl Drop for Mounted {
    /// Unmounts, waiting up to five seconds for what still holds it to let go: io_uring frees
    /// a ring's registered files a moment after its process exits, and udev probes a loop
    /// device on a file inside it a moment after it is written. A single try left ramfs and
    /// ext4 mounts behind.
    fn drop(&mut self) {
        for _ in 0..50 {
            let done = Command::new("umount")
                .arg(&self.dir)
                .stderr(std::process::Stdio::null())
                .status();
            if done.is_ok_and(|s| s.success()) {
                return;
            }
            let _ = Command::new("udevadm").arg("settle").status();
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = Command::new("umount").arg(&self.dir).status();
    }
}

/// A file in active use as swap; switched off on drop.
pub struct Swap {
    pub file: PathBuf,
}

impl Swap {
    /// Makes `len` bytes of swap at `file` and switches it on; `None` (with the reason
    /// printed) when the kernel refuses (no swap support, or a filesystem it cannot use).
    pub fn on(file: PathBuf, len: usize) -> Option<Swap> {
        std::fs::write(&file, vec![0u8; len]).unwrap();
        run("chmod", &["600", file.to_str().unwrap()]);
        run("mkswap", &[file.to_str().unwrap()]);
        let out = Command::new("swapon").arg(&file).output().unwrap();
        if !out.status.success() {
            eprintln!("swapon refused: {}", String::from_utf8_lossy(&out.stderr));
            return None;
        }
        Some(Swap { file })
    }
}

impl Drop for Swap {
    fn drop(&mut self) {
        let _ = Command::new("swapoff").arg(&self.file).status();
    }
}

/// 64-bit FNV-1a over a whole file or device.
pub fn checksum(path: &Path) -> u64 {
    let data = std::fs::read(path).unwrap();
    data.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

pub fn tmp_path(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}
