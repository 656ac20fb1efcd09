//! The misbehaving FUSE disk (tests/fixtures/fusedisk.py) does what its flags say, through a
//! loop device with direct I/O: offsets past the real size wrap onto it, a slow range is slow,
//! a failing range fails with EIO. The surface and verify tests trust it for their offsets.

mod common;
mod fusedisk;

use std::fs::OpenOptions;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::time::Instant;

use fusedisk::{Behaviour, FuseDisk};

const MIB: u64 = 1 << 20;

/// A page-aligned buffer for O_DIRECT.
fn aligned(len: usize) -> (Vec<u8>, usize) {
    let v = vec![0u8; len + 4096];
    let skip = (4096 - (v.as_ptr() as usize % 4096)) % 4096;
    (v, skip)
}

#[test]
#[ignore = "needs root: FUSE mount and loop device"]
fn the_fixture_wraps_slows_and_fails_where_told() {
    let dir = common::workdir();
    let behaviour = Behaviour {
        claim: 16 * MIB,
        real: Some(4 * MIB),
        slow: vec![(8 * MIB, 9 * MIB, 200)],
        eio: vec![(12 * MIB, 12 * MIB + 4096)],
        log: None,
    };
    let disk = match FuseDisk::start(dir.path(), &behaviour) {
        Ok(d) => d,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let dio = std::fs::read_to_string(format!("/sys/block/{}/loop/dio", disk.dev.name())).unwrap();
    assert_eq!(
        dio.trim(),
        "1",
        "the loop device runs with direct I/O on the FUSE file"
    );
    let dev = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc_o_direct())
        .open(disk.path())
        .unwrap();
    let (mut buf, s) = aligned(4096);
    buf[s..s + 4096].fill(0xA5);
    dev.write_all_at(&buf[s..s + 4096], 4 * MIB + 8192).unwrap();
    let (mut back, t) = aligned(4096);
    dev.read_exact_at(&mut back[t..t + 4096], 8192).unwrap();
    assert!(
        back[t..t + 4096].iter().all(|&b| b == 0xA5),
        "4 MiB + 8 KiB wraps onto 8 KiB"
    );

    let started = Instant::now();
    dev.read_exact_at(&mut back[t..t + 4096], 8 * MIB).unwrap();
    let slow = started.elapsed();
    assert!(slow.as_millis() >= 200, "the slow range took {slow:?}");

    let err = dev
        .read_exact_at(&mut back[t..t + 4096], 12 * MIB)
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(5), "EIO at 12 MiB, got {err}");
    dev.read_exact_at(&mut back[t..t + 4096], 12 * MIB + 4096)
        .unwrap();
}

fn libc_o_direct() -> i32 {
    nix::fcntl::OFlag::O_DIRECT.bits()
}
