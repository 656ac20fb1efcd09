//! A disk that misbehaves on cue for the root tests: `tests/fixtures/fusedisk.py` mounted on a
//! new directory (one file, `disk`, that can claim more than it keeps, be slow at chosen
//! ranges and fail reads with EIO at others) and a loop device with direct I/O on that file.
//! The loop device is detached, the FUSE file system unmounted and its process reaped when
//! the guard drops, a failing test included.
//!
//! O_DIRECT: the fixture opens its file with FUSE's `direct_io`, so `losetup --direct-io=on`
//! takes (the loop device's `dio` reads 1) and every read of the loop device reaches the
//! fixture: none is answered from the page cache, which would hide the slow and failing
//! ranges on a second read. The kernel splits a large read into FUSE requests of at most
//! `max_read` (the fixture asks 1 MiB; the kernel's default cap is 128 KiB), and a slow range
//! sleeps once per request.
//!
//! Use it with `mod common; mod fusedisk;` in the test file.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::LoopDev;

/// What the fixture does; sizes in bytes.
#[derive(Debug, Clone, Default)]
pub struct Behaviour {
    /// The size the file claims.
    pub claim: u64,
    /// The bytes it keeps (offsets wrap modulo this); `None`: all it claims.
    pub real: Option<u64>,
    /// (start, end, milliseconds): reads and writes touching [start, end) sleep first.
    pub slow: Vec<(u64, u64, u64)>,
    /// (start, end): reads touching [start, end) fail with EIO.
    pub eio: Vec<(u64, u64)>,
    /// A file that gets "read OFFSET LENGTH" as each read starts.
    pub log: Option<PathBuf>,
}

impl Behaviour {
    fn args(&self) -> Vec<String> {
        let mut out = vec!["--claim".to_string(), self.claim.to_string()];
        if let Some(real) = self.real {
            out.extend(["--real".to_string(), real.to_string()]);
        }
        for (s, e, ms) in &self.slow {
            out.extend(["--slow".to_string(), format!("{s}:{e}:{ms}")]);
        }
        for (s, e) in &self.eio {
            out.extend(["--eio".to_string(), format!("{s}:{e}")]);
        }
        if let Some(log) = &self.log {
            out.extend(["--log".to_string(), log.display().to_string()]);
        }
        out
    }
}

/// The mounted fixture and the loop device on it. Field order is drop order: the loop device
/// goes before the mount it reads from.
pub struct FuseDisk {
    pub dev: LoopDev,
    mount: FuseMount,
}

struct FuseMount {
    dir: PathBuf,
    child: Child,
}

/// The fixture script's path.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fusedisk.py")
}

impl FuseDisk {
    /// Mounts the fixture on `dir/fuse` and attaches a loop device on its file. `Err` with the
    /// reason where this machine refuses (no /dev/fuse, no fusepy, a mount denied), so the
    /// test can say it was skipped and why.
    pub fn start(dir: &Path, behaviour: &Behaviour) -> Result<FuseDisk, String> {
        if !Path::new("/dev/fuse").exists() {
            return Err("no /dev/fuse".into());
        }
        let mnt = dir.join("fuse");
        std::fs::create_dir_all(&mnt).map_err(|e| format!("{}: {e}", mnt.display()))?;
        let child = Command::new("/usr/bin/python3")
            .arg(script())
            .arg(&mnt)
            .args(behaviour.args())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("/usr/bin/python3: {e}"))?;
        let mut mount = FuseMount { dir: mnt, child };
        let file = mount.dir.join("disk");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !file.exists() {
            if let Ok(Some(status)) = mount.child.try_wait() {
                let mut err = String::new();
                if let Some(mut e) = mount.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut err);
                }
                return Err(format!("the FUSE fixture exited ({status}): {err}"));
            }
            if Instant::now() > deadline {
                return Err("the FUSE fixture did not mount within 20 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let dev = LoopDev::attach(&file, &[]);
        Ok(FuseDisk { dev, mount })
    }

    /// The loop device's path, `/dev/loopN`.
    pub fn path(&self) -> &str {
        &self.dev.path
    }

    /// The fixture's file (the loop device's backing file).
    pub fn file(&self) -> PathBuf {
        self.mount.dir.join("disk")
    }
}

impl Drop for FuseMount {
    /// Unmounts (retrying while the loop device lets go), then reaps the fixture; kills it if
    /// it is still there after the unmount.
    fn drop(&mut self) {
        for _ in 0..50 {
            let done = Command::new("umount")
                .arg(&self.dir)
                .stderr(Stdio::null())
                .status();
            if done.is_ok_and(|s| s.success()) {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}
