//! The storage stack around a write target, over the fake sysfs/procfs tree in
//! `tests/fixtures/stack`: above it (loop devices on files and on other loop devices, a
//! partition held by device-mapper, a whole disk behind a loop device, swap on a partition
//! and on a file, a loop cycle) and beside it — other names of the bytes it reaches: twin
//! loop devices on one file, windows (`losetup -o --sizelimit`) that overlap and windows that
//! do not, a file inside a filesystem on a loop device, a loop device in between, windows of a
//! partitioned disk, two LVs on one PV, an md/dm device over a loop device with a twin, two
//! paths to one disk (the same WWID), and a device held exclusively where the mount table
//! does not show it. Paths named in sysfs are
//! resolved by a fake `identify`, so no real file or device is touched.

use std::path::{Path, PathBuf};

use diskscope::target::discover::Roots;
use diskscope::target::overlap::ByteRange;
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

/// Files of the beside cases, on the filesystem with device number 1.
const TWIN_IMG: Node = Node::File { dev: 1, ino: 100 };
const PART_IMG: Node = Node::File { dev: 1, ino: 101 };
/// A file inside the filesystem mounted from loop16 (device 7:16).
const INNER_IMG: Node = Node::File {
    dev: 7 << 8 | 16,
    ino: 50,
};

const MIB: u64 = 1 << 20;

/// What the fixture's paths resolve to.
fn identify(path: &Path) -> Option<Node> {
    let p = path.to_str()?;
    if let Some(n) = p.strip_prefix("/dev/loop") {
        return Some(block(7, n.parse().ok()?));
    }
    let srv = ["twin", "part", "whole", "outer", "deep", "y", "pv", "held"];
    if let Some(i) = srv.iter().position(|n| p == format!("/srv/{n}.img")) {
        return Some(Node::File {
            dev: 1,
            ino: 100 + i as u64,
        });
    }
    Some(match p {
        "/data/img" => IMG,
        "/swap file" => SWAP_FILE,
        "/data/free.img" => FREE_IMG,
        "/data/gone.img" => GONE_IMG,
        "/mnt/outer/inner.img" => INNER_IMG,
        "/dev/sdb" => block(8, 16),
        "/dev/sdd" => block(8, 48),
        "/dev/sdj" => block(8, 144),
        "/dev/sda2" => block(8, 2),
        _ => return None,
    })
}

/// The refusal of writing `range` of `target`, with `held` the device paths (under the
/// fixture's device root) that some other program holds exclusively.
fn refusal(s: &Stack, target: Node, range: ByteRange, held: &[String]) -> Option<String> {
    s.refusal_in(target, range, "T", &|p: &Path| {
        held.iter().any(|h| Path::new(h) == p)
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
fn a_partition_shares_its_sectors_with_a_loop_device_over_its_whole_disk() {
    let (s, d) = stack();
    assert_eq!(
        s.refusal(block(8, 17), "/dev/sdb1").as_deref(),
        Some(
            format!(
                "/dev/sdb1 shares bytes 1 MiB–33 MiB of {d}/sdb with {d}/loop2, mounted on /mnt/whole disk"
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
fn a_loop_cycle_terminates_and_is_refused() {
    let (s, _) = stack();
    assert_eq!(
        s.refusal(block(7, 4), "/dev/loop4").as_deref(),
        Some(
            "/dev/loop4 is backed by /dev/loop5, which is backed by /dev/loop4 (a loop of loop devices)"
        )
    );
}

#[test]
fn a_twin_loop_device_on_the_same_file_as_a_mounted_one_is_refused() {
    let (s, d) = stack();
    assert_eq!(
        refusal(&s, block(7, 11), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 0 B to the end of /srv/twin.img with {d}/loop10, mounted on /mnt/twin")
                .as_str()
        )
    );
    // A part of it (--size) is still the same bytes.
    assert!(refusal(&s, block(7, 11), ByteRange::upto(4096), &[]).is_some());
    // The file itself, by any name: the existing walk up from it.
    assert_eq!(
        refusal(&s, TWIN_IMG, ByteRange::ALL, &[]).as_deref(),
        Some(format!("T backs {d}/loop10, mounted on /mnt/twin").as_str())
    );
}

#[test]
fn windows_of_one_file_conflict_only_where_they_overlap() {
    let (s, d) = stack();
    // loop12 is -o 1M --sizelimit 100M of part.img, mounted; loop13 is -o 101M --sizelimit
    // 100M, free: separate bytes, so writing loop13 is allowed.
    assert_eq!(refusal(&s, block(7, 13), ByteRange::ALL, &[]), None);
    // The file under both: its first MiB is outside every window; one byte more is not.
    assert_eq!(refusal(&s, PART_IMG, ByteRange::upto(MIB), &[]), None);
    assert_eq!(
        refusal(&s, PART_IMG, ByteRange::upto(MIB + 512), &[]).as_deref(),
        Some(format!("T backs {d}/loop12, mounted on /mnt/part").as_str())
    );
    // loop14 covers all of whole.img and is mounted: the window loop15 is inside it.
    assert_eq!(
        refusal(&s, block(7, 15), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 4 MiB–12 MiB of /srv/whole.img with {d}/loop14, mounted on /mnt/whole img")
                .as_str()
        )
    );
    // loop15's first MiB is bytes 4–5 MiB of the file.
    let r = refusal(&s, block(7, 15), ByteRange::upto(MIB), &[]).unwrap();
    assert!(r.contains("bytes 4 MiB–5 MiB of /srv/whole.img"), "{r}");
}

#[test]
fn nested_stacks_are_followed_to_the_file_they_share() {
    let (s, d) = stack();
    // inner.img lives in the filesystem on loop16; loop17 on it is mounted; loop18 is a twin.
    assert_eq!(
        refusal(&s, block(7, 18), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 0 B to the end of /mnt/outer/inner.img with {d}/loop17, mounted on /mnt/inner2")
                .as_str()
        )
    );
    assert!(refusal(&s, INNER_IMG, ByteRange::ALL, &[]).is_some());
    // loop19 sits on loop20, which sits on deep.img; loop21 on deep.img is mounted.
    assert_eq!(
        refusal(&s, block(7, 19), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 0 B to the end of /srv/deep.img (through /dev/loop20) with {d}/loop21, mounted on /mnt/deep")
                .as_str()
        )
    );
    // loop22 sits on loop23, which is mounted itself.
    assert_eq!(
        refusal(&s, block(7, 22), ByteRange::ALL, &[]).as_deref(),
        Some("T is backed by /dev/loop23, mounted on /mnt/y")
    );
    // A loop device over an active swap file.
    assert_eq!(
        refusal(&s, block(7, 30), ByteRange::ALL, &[]).as_deref(),
        Some("T is backed by /swap file, in use as swap")
    );
}

#[test]
fn windows_of_a_partitioned_disk_meet_only_the_partitions_they_overlap() {
    let (s, d) = stack();
    // sdd1 [1M, 33M) is mounted, sdd2 [33M, 65M) is free; loop24 and loop25 are windows of
    // sdd over exactly those bytes.
    assert_eq!(
        refusal(&s, block(7, 24), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 1 MiB–33 MiB of /dev/sdd with {d}/sdd1, mounted on /mnt/sdd1")
                .as_str()
        )
    );
    assert_eq!(refusal(&s, block(7, 25), ByteRange::ALL, &[]), None);
    // sdd2 itself is under loop25's window, attached: the walk from a partition goes down to
    // its disk and back up.
    assert_eq!(
        refusal(&s, block(8, 50), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 33 MiB–65 MiB of {d}/sdd with {d}/loop25 (in use, though nothing above it is mounted)")
                .as_str()
        )
    );
    // The whole disk holds the partition table of both.
    assert_eq!(
        refusal(&s, block(8, 48), ByteRange::upto(4096), &[]).as_deref(),
        Some(format!("T has partition {d}/sdd1, mounted on /mnt/sdd1").as_str())
    );
    // sdd2 held by someone the mount table does not show (another mount namespace).
    let held = [format!("{d}/sdd2")];
    let r = refusal(&s, block(7, 25), ByteRange::ALL, &held).unwrap();
    assert!(
        r.starts_with(&format!(
            "T shares bytes 33 MiB–65 MiB of /dev/sdd with {d}/sdd2, held open exclusively"
        )),
        "{r}"
    );
}

#[test]
fn holders_are_followed_down_but_fellow_lvs_on_one_pv_stay_separate() {
    let (s, d) = stack();
    // dm-1 and dm-2 are two LVs on sde1; dm-1 is mounted. Writing dm-2 is allowed (LVs on one
    // PV use separate extents); writing the PV is not.
    assert_eq!(refusal(&s, block(253, 2), ByteRange::ALL, &[]), None);
    assert_eq!(
        refusal(&s, block(8, 65), ByteRange::ALL, &[]).as_deref(),
        Some(format!("T is part of {d}/dm-1, mounted on /mnt/lv1").as_str())
    );
    // dm-3 is built on loop26, whose file has a mounted twin loop27.
    assert_eq!(
        refusal(&s, block(253, 3), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 0 B to the end of /srv/pv.img (through {d}/loop26) with {d}/loop27, mounted on /mnt/pv")
                .as_str()
        )
    );
}

#[test]
fn an_exclusive_holder_the_mount_table_misses_is_named() {
    let (s, d) = stack();
    let twin = refusal(&s, block(7, 29), ByteRange::ALL, &[]).unwrap();
    assert_eq!(
        twin,
        format!(
            "T shares bytes 0 B to the end of /srv/held.img with {d}/loop28 (in use, though nothing above it is mounted)"
        )
    );
    let held = [format!("{d}/loop28")];
    assert_eq!(
        refusal(&s, block(7, 29), ByteRange::ALL, &held).as_deref(),
        Some(
            format!(
                "T shares bytes 0 B to the end of /srv/held.img with {d}/loop28, held open exclusively by another program (a mount in another mount namespace, a multi-device filesystem or a virtual machine)"
            )
            .as_str()
        )
    );
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

#[test]
fn another_path_to_the_same_disk_is_the_same_disk() {
    let (s, d) = stack();
    // sdf and sdg share a WWID (two SCSI paths, no dm-multipath); sdf1 is mounted.
    assert_eq!(
        refusal(&s, block(8, 96), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 1 MiB–33 MiB of {d}/sdf (the same WWID) with {d}/sdf1, mounted on /mnt/lun")
                .as_str()
        )
    );
    // sdh has a WWID of its own; sdi has sdf's but another size (a firmware that gives every
    // disk one WWID), so it is not taken for a path to it.
    assert_eq!(refusal(&s, block(8, 112), ByteRange::ALL, &[]), None);
    assert_eq!(refusal(&s, block(8, 128), ByteRange::ALL, &[]), None);
    // One NVMe namespace through two controllers, mounted through the first.
    assert_eq!(
        refusal(&s, block(259, 1), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T is the same disk as {d}/nvme0n1 (the same WWID), mounted on /mnt/ns")
                .as_str()
        )
    );
    // Held exclusively where this mount table does not show it.
    let held = [format!("{d}/sdh")];
    assert_eq!(
        refusal(&s, block(8, 112), ByteRange::ALL, &held),
        None,
        "sdh is not sdg"
    );
}

#[test]
fn a_disk_reached_twice_is_checked_over_both_ranges() {
    let (s, d) = stack();
    // md0 is built on sdj1 [1M, 17M) and sdj2 [17M, 33M) of one disk; a loop device over
    // sdj's bytes 1M–17M is mounted. Both partitions' ranges of sdj must be looked at.
    assert_eq!(
        refusal(&s, block(9, 0), ByteRange::ALL, &[]).as_deref(),
        Some(
            format!("T shares bytes 1 MiB–17 MiB of {d}/sdj (through {d}/sdj1) with {d}/loop31, mounted on /mnt/sdj-window")
                .as_str()
        )
    );
}
