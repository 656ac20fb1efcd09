//! The storage stack above a write target, over the fake sysfs/procfs tree in
//! `tests/fixtures/stack`: loop devices on files and on other loop devices, a partition held
//! by device-mapper, a whole disk behind a loop device, swap on a partition and on a file, and
//! a loop cycle. Paths named in sysfs are resolved by a fake `identify`, so no real file or
//! device is touched.

use std::path::{Path, PathBuf};

use diskscope::target::discover::Roots;
use diskscope::target::stack::{Node, Stack, parse_swaps};

fn base() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stack")
}

const IMG: Node = Node::File { dev: 1, ino: 10 };
const SWAP_FILE: Node = Node::File { dev: 1, ino: 20 };
const FREE_IMG: Node = Node::File { dev: 1, ino: 30 };
const GONE_IMG: Node = Node::File { dev: 1, ino: 40 };

fn block(major: u32, minor: u32) -> Node {
    Node::Block { major, minor }
}

/// What the fixture's paths resolve to.
fn identify(path: &Path) -> Option<Node> {
    Some(match path.to_str()? {
        "/data/img" => IMG,
        "/swap file" => SWAP_FILE,
        "/data/free.img" => FREE_IMG,
        "/data/gone.img" => GONE_IMG,
        "/dev/loop0" => block(7, 0),
        "/dev/loop4" => block(7, 4),
        "/dev/loop5" => block(7, 5),
        "/dev/sdb" => block(8, 16),
        "/dev/sda2" => block(8, 2),
        _ => return None,
    })
}

/// The stack and the fixture's (absent) device root, which prefixes every device path.
fn stack() -> (Stack, String) {
    let roots = Roots::under(&base());
    let dev = roots.dev.display().to_string();
    (Stack::read(&roots, &identify).expect("fixture stack"), dev)
}

#[test]
fn a_file_behind_a_loop_device_behind_a_mounted_loop_device_names_the_chain() {
    let (s, d) = stack();
    assert_eq!(
        s.refusal(IMG, "/data/img").as_deref(),
        Some(
            format!("/data/img backs {d}/loop0, which backs {d}/loop1, mounted on /mnt/inner")
                .as_str()
        )
    );
    assert_eq!(
        s.refusal(block(7, 0), "/dev/loop0").as_deref(),
        Some(format!("/dev/loop0 backs {d}/loop1, mounted on /mnt/inner").as_str())
    );
    assert_eq!(
        s.refusal(block(7, 1), "/dev/loop1").as_deref(),
        Some("/dev/loop1 is mounted on /mnt/inner")
    );
}

#[test]
fn partitions_holders_and_swap_devices_are_followed() {
    let (s, d) = stack();
    // The whole disk: its first partition is under a mounted device-mapper volume (found
    // before its swap partition, which is as bad).
    assert_eq!(
        s.refusal(block(8, 0), "/dev/sda").as_deref(),
        Some(
            format!("/dev/sda has partition {d}/sda1, which is part of {d}/dm-0, mounted on /srv")
                .as_str()
        )
    );
    assert_eq!(
        s.refusal(block(8, 2), "/dev/sda2").as_deref(),
        Some("/dev/sda2 is in use as swap")
    );
    assert_eq!(
        s.refusal(SWAP_FILE, "/swap file").as_deref(),
        Some("/swap file is in use as swap")
    );
}

#[test]
fn a_partition_is_inside_its_disk_and_the_disk_may_back_a_loop_device() {
    let (s, d) = stack();
    assert_eq!(
        s.refusal(block(8, 17), "/dev/sdb1").as_deref(),
        Some(
            format!(
                "/dev/sdb1 lies inside {d}/sdb, which backs {d}/loop2, mounted on /mnt/whole disk"
            )
            .as_str()
        )
    );
}

#[test]
fn an_attached_but_unmounted_loop_device_still_counts_as_in_use() {
    let (s, d) = stack();
    assert_eq!(
        s.refusal(FREE_IMG, "/data/free.img").as_deref(),
        Some(
            format!("/data/free.img backs {d}/loop3 (in use, though nothing above it is mounted)")
                .as_str()
        )
    );
}

#[test]
fn free_devices_and_files_pass_and_a_deleted_backing_path_matches_nothing() {
    let (s, _) = stack();
    for free in [block(8, 32), block(8, 33), Node::File { dev: 1, ino: 99 }] {
        assert_eq!(s.refusal(free, "x"), None, "{free:?}");
    }
    // loop6's backing file was deleted; a new file at that path is another file.
    assert_eq!(s.refusal(GONE_IMG, "/data/gone.img"), None);
}

#[test]
fn a_loop_cycle_terminates() {
    let (s, d) = stack();
    let r = s
        .refusal(block(7, 4), "/dev/loop4")
        .expect("loop5 sits above loop4");
    assert!(r.starts_with(&format!("/dev/loop4 backs {d}/loop5")), "{r}");
}

#[test]
fn swaps_parse_escapes_and_skip_deleted_files() {
    let text = "Filename\tType\tSize\tUsed\tPriority\n\
                /dev/dm-1                               partition\t8388604\t0\t-2\n\
                /var/my\\040swap                         file\t1024\t0\t-3\n\
                /old\\040(deleted)                       file\t1024\t0\t-4\n";
    assert_eq!(parse_swaps(text), ["/dev/dm-1", "/var/my swap"]);
    assert!(parse_swaps("Filename\tType\tSize\tUsed\tPriority\n").is_empty());
}
