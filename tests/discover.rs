//! Discovery and the `--list` table against the fake sysfs/procfs trees in `tests/fixtures/`,
//! plus synthetic trees built in temp dirs (symlinked sysfs, holder chains and cycles).

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use diskscope::target::discover::{
    Access, DeviceInfo, DeviceKind, Roots, discover, find_by_path, mounted_anywhere, visible,
};
use diskscope::target::hwmon::SensorInfo;
use diskscope::target::link::LinkInfo;
use diskscope::target::list::format_table;
use diskscope::target::queue_limits::QueueLimits;
use tempfile::TempDir;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(name)
}

/// Roots of a fixture with a temp dev root holding a plain file for each name in `nodes`.
fn roots_with_nodes(base: &Path, nodes: &[&str]) -> (Roots, TempDir) {
    let dev = tempfile::tempdir().expect("temp dev root");
    for node in nodes {
        fs::write(dev.path().join(node), b"").expect("create fake node");
    }
    let roots = Roots {
        sys: base.join("sys"),
        proc: base.join("proc"),
        dev: dev.path().to_path_buf(),
    };
    (roots, dev)
}

fn discover_fixture(name: &str, nodes: &[&str]) -> (Vec<DeviceInfo>, TempDir) {
    let (roots, dev) = roots_with_nodes(&fixture(name), nodes);
    let devs = discover(&roots).expect("discover fixture");
    (devs, dev)
}

fn names(devs: &[DeviceInfo]) -> Vec<&str> {
    devs.iter().map(|d| d.name.as_str()).collect()
}

fn get<'a>(devs: &'a [DeviceInfo], name: &str) -> &'a DeviceInfo {
    devs.iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("{name} not discovered"))
}

fn node(dev: &TempDir, name: &str) -> String {
    dev.path().join(name).to_string_lossy().into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read fixture dir") {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}

#[test]
fn nvme_disk_every_field() {
    let (devs, dev) = discover_fixture("nvme", &["nvme0n1", "nvme0n1p1", "nvme0n1p2"]);
    assert_eq!(names(&devs), ["nvme0n1", "nvme0n1p1", "nvme0n1p2"]);
    let expected = DeviceInfo {
        name: "nvme0n1".into(),
        path: node(&dev, "nvme0n1"),
        kind: DeviceKind::Disk,
        parent: None,
        model: Some("Samsung SSD 980 PRO 1TB".into()),
        vendor: None,
        size_bytes: 1_953_525_168 * 512,
        logical_block_size: 512,
        physical_block_size: 512,
        rotational: false,
        scheduler: Some("none".into()),
        nr_requests: Some(1023),
        removable: false,
        read_only: false,
        major_minor: (259, 0),
        mountpoints: vec!["/boot/efi".into(), "/".into()],
        holders: vec![],
        access: Access::Ok,
        // This old fixture has no device tree above the disk: nothing to walk.
        link: LinkInfo::unknown("no bus sysfs describes was found above the device"),
        queue_limits: QueueLimits {
            nr_requests: Some(1023),
            rotational: Some(false),
            ..QueueLimits::default()
        },
        temperature_sensor: SensorInfo {
            reason: Some(
                "no temperature sensor (the kernel's NVMe hwmon needs 5.5+ with NVME_HWMON)".into(),
            ),
            ..SensorInfo::default()
        },
        health: None,
    };
    assert_eq!(devs[0], expected);
}

#[test]
fn nvme_partitions_inherit_queue_and_carry_own_mounts() {
    let (devs, dev) = discover_fixture("nvme", &["nvme0n1", "nvme0n1p1", "nvme0n1p2"]);
    let p2 = get(&devs, "nvme0n1p2");
    assert_eq!(p2.kind, DeviceKind::Partition);
    assert_eq!(p2.parent.as_deref(), Some("nvme0n1"));
    assert_eq!(p2.path, node(&dev, "nvme0n1p2"));
    assert_eq!(p2.size_bytes, 1_952_474_112 * 512);
    assert_eq!(p2.major_minor, (259, 2));
    assert_eq!(p2.mountpoints, ["/"]);
    assert_eq!(p2.scheduler.as_deref(), Some("none"));
    assert_eq!((p2.logical_block_size, p2.physical_block_size), (512, 512));
    assert_eq!(p2.model.as_deref(), Some("Samsung SSD 980 PRO 1TB"));
    let p1 = get(&devs, "nvme0n1p1");
    assert_eq!(p1.size_bytes, 512 * 1024 * 1024);
    assert_eq!(p1.mountpoints, ["/boot/efi"]);
    assert!(devs.iter().all(mounted_anywhere));
}

#[test]
fn sata_hdd_fields_and_escaped_mountpoint() {
    let (devs, _dev) = discover_fixture("sata-hdd", &["sda", "sda1"]);
    assert_eq!(names(&devs), ["sda", "sda1"]);
    let sda = &devs[0];
    assert!(sda.rotational);
    assert_eq!(sda.vendor.as_deref(), Some("ATA"));
    assert_eq!(sda.model.as_deref(), Some("WDC WD40EFRX-68N"));
    assert_eq!(
        (sda.logical_block_size, sda.physical_block_size),
        (512, 4096)
    );
    assert_eq!(sda.scheduler.as_deref(), Some("bfq"));
    assert_eq!(sda.nr_requests, Some(64));
    assert_eq!(sda.major_minor, (8, 0));
    assert_eq!(sda.mountpoints, ["/mnt/my disk", "/home/backup"]);
    let sda1 = &devs[1];
    assert_eq!(
        (sda1.logical_block_size, sda1.physical_block_size),
        (512, 4096)
    );
    assert!(sda1.rotational);
    assert_eq!(sda1.mountpoints, ["/mnt/my disk", "/home/backup"]);
}

#[test]
fn md_raid_members_are_mounted_through_their_holder() {
    let (devs, _dev) = discover_fixture("md-raid", &["md0", "sdb", "sdb1", "sdc", "sdc1"]);
    assert_eq!(names(&devs), ["md0", "sdb", "sdb1", "sdc", "sdc1"]);
    for member in ["sdb1", "sdc1"] {
        let part = get(&devs, member);
        assert_eq!(part.holders, ["md0"], "{member}");
        assert_eq!(part.mountpoints, ["/srv/data"], "{member}");
    }
    for disk in ["sdb", "sdc"] {
        let d = get(&devs, disk);
        assert!(d.holders.is_empty(), "{disk}");
        assert_eq!(d.mountpoints, ["/srv/data"], "{disk}");
        assert!(mounted_anywhere(d));
    }
    let md0 = get(&devs, "md0");
    assert_eq!(md0.kind, DeviceKind::Disk);
    assert_eq!(md0.model, None);
    assert_eq!(md0.scheduler.as_deref(), Some("none"));
    assert_eq!(md0.major_minor, (9, 0));
    assert_eq!(md0.mountpoints, ["/srv/data"]);
}

#[test]
fn loop_and_zram_of_size_zero_are_hidden_unless_all() {
    let (devs, _dev) = discover_fixture("loop", &["loop0", "loop1", "zram0"]);
    assert_eq!(names(&devs), ["loop0", "loop1", "zram0"]);
    let loop0 = &devs[0];
    assert_eq!(loop0.size_bytes, 1 << 30);
    assert_eq!((loop0.model.clone(), loop0.vendor.clone()), (None, None));
    assert!(!mounted_anywhere(loop0));
    assert_eq!(get(&devs, "zram0").nr_requests, None);
    assert_eq!(
        names(&visible(devs.clone(), true)),
        ["loop0", "loop1", "zram0"]
    );
    assert_eq!(names(&visible(devs, false)), ["loop0"]);
}

#[test]
fn access_follows_the_dev_root() {
    let (devs, _dev) = discover_fixture("nvme", &["nvme0n1", "nvme0n1p2"]);
    assert_eq!(get(&devs, "nvme0n1").access, Access::Ok);
    assert_eq!(get(&devs, "nvme0n1p2").access, Access::Ok);
    assert_eq!(
        get(&devs, "nvme0n1p1").access,
        Access::Denied("no device node".into())
    );
}

#[test]
fn unreadable_node_is_denied_for_non_root() {
    let (roots, dev) = roots_with_nodes(&fixture("sata-hdd"), &["sda", "sda1"]);
    fs::set_permissions(dev.path().join("sda"), fs::Permissions::from_mode(0o000)).expect("chmod");
    let devs = discover(&roots).expect("discover");
    let expected = if nix::unistd::geteuid().is_root() {
        // root bypasses file permissions, so the probe succeeds.
        Access::Ok
    } else {
        Access::Denied("permission denied".into())
    };
    assert_eq!(devs[0].access, expected);
    assert_eq!(devs[1].access, Access::Ok);
}

#[test]
fn missing_sys_root_is_an_error_naming_the_path() {
    let base = tempfile::tempdir().expect("tempdir");
    let roots = Roots::under(&base.path().join("nowhere"));
    let err = discover(&roots).expect_err("must fail");
    let block = roots.sys.join("block");
    assert!(
        format!("{err:#}").contains(&*block.to_string_lossy()),
        "{err:#}"
    );
}

#[test]
fn missing_mountinfo_is_an_error() {
    let base = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture("loop").join("sys"), &base.path().join("sys"));
    let err = discover(&Roots::under(base.path())).expect_err("must fail");
    assert!(format!("{err:#}").contains("mountinfo"), "{err:#}");
}

#[test]
fn symlinked_sys_block_entries_are_followed() {
    let base = tempfile::tempdir().expect("tempdir");
    let real = base.path().join("sys/devices/pci0000:00/ata1/block/sda");
    copy_dir(&fixture("sata-hdd").join("sys/block/sda"), &real);
    fs::create_dir_all(base.path().join("sys/block")).expect("mkdir");
    symlink(
        "../devices/pci0000:00/ata1/block/sda",
        base.path().join("sys/block/sda"),
    )
    .expect("symlink");
    copy_dir(&fixture("sata-hdd").join("proc"), &base.path().join("proc"));
    let devs = discover(&Roots::under(base.path())).expect("discover");
    assert_eq!(names(&devs), ["sda", "sda1"]);
    assert_eq!(devs[0].scheduler.as_deref(), Some("bfq"));
    assert_eq!(devs[1].mountpoints, ["/mnt/my disk", "/home/backup"]);
    assert_eq!(devs[0].access, Access::Denied("no device node".into()));
}

#[test]
fn holder_chains_are_followed_and_cycles_terminate() {
    let base = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture("md-raid"), base.path());
    let sys = base.path().join("sys/block");
    // md0 is itself held by dm-0 (LVM on RAID); dm-0 is mounted.
    fs::create_dir_all(sys.join("md0/holders")).expect("mkdir");
    fs::write(sys.join("md0/holders/dm-0"), b"").expect("holder");
    fs::create_dir_all(sys.join("dm-0/holders")).expect("mkdir");
    fs::write(sys.join("dm-0/dev"), "253:7\n").expect("dev");
    fs::write(sys.join("dm-0/size"), "2048\n").expect("size");
    // A bogus cycle back to a member must not loop forever.
    fs::write(sys.join("dm-0/holders/sdb1"), b"").expect("holder");
    let mountinfo = base.path().join("proc/self/mountinfo");
    let mut text = fs::read_to_string(&mountinfo).expect("mountinfo");
    text.push_str("60 29 253:7 / /var/lib/vm rw - ext4 /dev/mapper/vg-vm rw\n");
    fs::write(&mountinfo, text).expect("mountinfo");

    let devs = discover(&Roots::under(base.path())).expect("discover");
    assert_eq!(names(&devs), ["dm-0", "md0", "sdb", "sdb1", "sdc", "sdc1"]);
    assert_eq!(get(&devs, "md0").holders, ["dm-0"]);
    assert_eq!(get(&devs, "md0").mountpoints, ["/srv/data", "/var/lib/vm"]);
    assert_eq!(get(&devs, "sdc").mountpoints, ["/srv/data", "/var/lib/vm"]);
    assert_eq!(get(&devs, "dm-0").mountpoints, ["/var/lib/vm", "/srv/data"]);
    // dm-0 has no queue/: defaults, not failure.
    assert_eq!(get(&devs, "dm-0").logical_block_size, 512);
    assert_eq!(get(&devs, "dm-0").scheduler, None);
}

#[test]
fn find_by_path_matches_path_or_bare_name() {
    let (devs, dev) = discover_fixture("md-raid", &[]);
    assert_eq!(
        find_by_path(&devs, &node(&dev, "sdb1")).map(|d| d.name.as_str()),
        Some("sdb1")
    );
    assert_eq!(
        find_by_path(&devs, "md0").map(|d| d.major_minor),
        Some((9, 0))
    );
    assert!(find_by_path(&devs, "/elsewhere/sdb1").is_none());
    assert!(find_by_path(&devs, "sdz").is_none());
}

#[test]
fn device_info_serializes_with_lowercase_tags() {
    let (devs, _dev) = discover_fixture("nvme", &["nvme0n1p1"]);
    let json = serde_json::to_value(&devs).expect("serialize");
    assert_eq!(json[0]["kind"], "disk");
    assert_eq!(json[0]["access"]["denied"], "no device node");
    assert_eq!(json[1]["kind"], "partition");
    assert_eq!(json[1]["access"], "ok");
    assert_eq!(json[1]["parent"], "nvme0n1");
    assert_eq!(json[2]["major_minor"], serde_json::json!([259, 2]));
}

fn assert_fits(table: &str) {
    for line in table.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line:?}",
            line.chars().count()
        );
    }
}

fn line_of<'a>(table: &'a str, name: &str) -> &'a str {
    table
        .lines()
        .find(|l| {
            l.split_whitespace().next().is_some_and(|w| {
                w.trim_start_matches(['├', '└', '─']).trim_end_matches('*') == name
            })
        })
        .unwrap_or_else(|| panic!("no row for {name} in\n{table}"))
}

#[test]
fn table_for_nvme() {
    let (devs, _dev) = discover_fixture("nvme", &["nvme0n1", "nvme0n1p2"]);
    let table = format_table(&devs);
    assert_fits(&table);
    let header = table.lines().next().expect("header");
    for col in [
        "DEVICE", "SIZE", "TYPE", "LBS/PBS", "LINK", "MODEL", "MOUNTED",
    ] {
        assert!(header.contains(col), "{header}");
    }
    // With LINK, the whole model and mount would not fit beside SCHED: SCHED goes first.
    assert!(!header.contains("SCHED"), "{header}");
    let disk = line_of(&table, "nvme0n1");
    for cell in [
        "931.5 GiB",
        "SSD",
        "512/512",
        " ? ",
        "Samsung SSD 980 PRO 1TB",
        "/boot/efi +1",
    ] {
        assert!(disk.contains(cell), "{cell:?} missing in {disk:?}");
    }
    assert!(line_of(&table, "nvme0n1p1").starts_with("├─nvme0n1p1*"));
    let p2 = line_of(&table, "nvme0n1p2");
    assert!(p2.starts_with("└─nvme0n1p2 "), "{p2}");
    assert!(p2.contains("part") && p2.ends_with(" /"), "{p2}");
    assert!(table.contains("\n* no device node: nvme0n1p1\n"), "{table}");
    assert_eq!(table.lines().count(), 5);
}

#[test]
fn table_for_hdd_and_raid() {
    let (devs, _dev) = discover_fixture("sata-hdd", &["sda", "sda1"]);
    let table = format_table(&devs);
    assert_fits(&table);
    let sda = line_of(&table, "sda");
    for cell in [
        "3.6 TiB",
        "HDD",
        "512/4096",
        "bfq",
        "?",
        "WDC WD40EFRX-68N",
        "/mnt/my disk +1",
    ] {
        assert!(sda.contains(cell), "{cell:?} missing in {sda:?}");
    }
    assert!(!table.contains('*'), "{table}");
    assert!(table.starts_with("DEVICE"), "{table}");
    assert!(table.lines().next().unwrap().contains(" SCHED "), "{table}");

    let (devs, _dev) = discover_fixture("md-raid", &["md0", "sdb", "sdb1", "sdc", "sdc1"]);
    let table = format_table(&devs);
    assert_fits(&table);
    assert!(
        line_of(&table, "sdb1").ends_with("in use by md0"),
        "{table}"
    );
    assert!(line_of(&table, "sdb").ends_with("/srv/data"), "{table}");
    assert!(line_of(&table, "md0").contains("1.8 TiB"), "{table}");
}

#[test]
fn table_truncates_long_model_and_mountpoint() {
    let (mut devs, _dev) = discover_fixture("sata-hdd", &["sda", "sda1"]);
    devs[0].model = Some("An Extraordinarily Long Model Name That Goes On And On".into());
    devs[0].mountpoints = vec!["/srv/some/deeply/nested/mount/point/for/backups".into()];
    let table = format_table(&devs);
    assert_fits(&table);
    let sda = line_of(&table, "sda");
    assert!(sda.contains("An Extraordinarily"), "{sda}");
    assert_eq!(sda.matches('…').count(), 2, "{sda}");
}

#[test]
fn table_wraps_long_footnotes() {
    let (devs, _dev) = discover_fixture("loop", &[]);
    let many: Vec<DeviceInfo> = (0..30)
        .map(|i| DeviceInfo {
            name: format!("loop{i}"),
            ..devs[0].clone()
        })
        .collect();
    let table = format_table(&many);
    assert_fits(&table);
    let notes: Vec<&str> = table.lines().skip(31).collect();
    assert!(notes.len() >= 2, "{table}");
    assert!(
        notes[0].starts_with("* no device node: loop0, loop1"),
        "{table}"
    );
    assert!(notes.concat().contains("loop29"), "{table}");
}

#[test]
fn real_system_discovery_does_not_fail() {
    let devs = discover(&Roots::system()).expect("discover on this machine");
    for d in &devs {
        assert_eq!(d.size_bytes % 512, 0, "{}", d.name);
        assert!(d.path.starts_with("/dev/"), "{}", d.path);
    }
    assert_fits(&format_table(&visible(devs, false)));
}
