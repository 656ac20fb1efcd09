//! The link, its ceiling, the queue limits and the temperature sensor, read from the fake
//! sysfs trees of `tests/fixtures/sysfs/` (built from the kernel's documented layouts by
//! `make.py` there): through the real binary with `SYSFS_PATH` (`--list --json` and the
//! table), through the library's "facts of this target" lookup, and on this machine's own
//! devices (a virtio disk, loop devices; the root-only test attaches one).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use diskscope::target::facts::{DiskFacts, block_of_path, sensor_for_path};
use diskscope::target::hwmon;
use diskscope::target::link::{LinkKind, link_of_name};
use diskscope::target::sysfs::BlockDir;
use serde_json::Value;

fn tree(name: &str) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysfs");
    static EMPTY_DIRS: std::sync::Once = std::sync::Once::new();
    // git keeps no empty directory: make.py lists the trees' empty ones, made here once.
    EMPTY_DIRS.call_once(|| {
        let list = std::fs::read_to_string(base.join("empty-dirs.txt")).expect("empty-dirs.txt");
        for dir in list.lines().filter(|l| !l.is_empty()) {
            std::fs::create_dir_all(base.join(dir)).expect("an empty fixture directory");
        }
    });
    base.join(name)
}

/// `diskscope args…` with `SYSFS_PATH` set to the fixture `name`.
fn with_sysfs(name: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(args)
        .env("SYSFS_PATH", tree(name))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the diskscope binary runs")
}

/// `--list --all --json` of the fixture, by device name.
fn listed(name: &str) -> Vec<Value> {
    let out = with_sysfs(name, &["--list", "--all", "--json"]);
    match common::json(&out) {
        Value::Array(devs) => devs,
        other => panic!("not an array: {other}"),
    }
}

fn device<'a>(devs: &'a [Value], name: &str) -> &'a Value {
    devs.iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed"))
}

fn table(name: &str) -> String {
    let out = with_sysfs(name, &["--list", "--all"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "wider than 80: {line:?}");
    }
    text
}

#[test]
fn nvme_trained_at_3_0_x2_of_4_0_x4_has_a_quarter_of_its_ceiling() {
    let devs = listed("nvme-x2");
    let disk = device(&devs, "nvme0n1");
    let link = &disk["link"];
    assert_eq!(link["kind"], "pcie");
    assert_eq!(link["label"], "PCIe 3.0 x2 (of 4.0 x4)");
    assert_eq!(link["speed"], "8.0 GT/s");
    assert_eq!(link["width"], 2);
    assert_eq!(link["max_speed"], "16.0 GT/s");
    assert_eq!(link["max_width"], 4);
    assert_eq!(link["max_of"], "device");
    // 8 GT/s × 2 lanes × 128/130 ÷ 8 and 16 GT/s × 4 × 128/130 ÷ 8.
    assert_eq!(link["ceiling_bytes_per_s"], 1_969_230_769u64);
    assert_eq!(link["max_ceiling_bytes_per_s"], 7_876_923_076u64);
    assert_eq!(link["encoding"], "128b/130b");
    // The root port can do 4.0 x4: the slot is not the limit, so no note blames it.
    assert_eq!(link["port_max_speed"], "16.0 GT/s");
    assert!(link["note"].is_null(), "{link}");
    assert_eq!(
        link["sysfs_path"],
        "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0"
    );
    // The partition reports its disk's link and queue.
    let part = device(&devs, "nvme0n1p1");
    assert_eq!(part["link"], *link);
    assert_eq!(part["queue_limits"], disk["queue_limits"]);
    let q = &disk["queue_limits"];
    assert_eq!(q["max_sectors_kb"], 1280);
    assert_eq!(q["max_hw_sectors_kb"], 2048);
    assert_eq!(q["nr_requests"], 1023);
    assert_eq!(q["write_cache"], "write back");
    assert_eq!(q["fua"], true);
    assert_eq!(q["rotational"], false);
    assert_eq!(q["nr_hw_queues"], 2);
    assert_eq!(q["nr_tags"], 1023);
    let sensor = &disk["temperature_sensor"];
    assert_eq!(sensor["present"], true);
    assert_eq!(sensor["name"], "nvme");
    assert_eq!(sensor["label"], "Composite");
    // Listing says a sensor is there but never reads it.
    assert!(sensor.get("temp_c").is_none(), "{sensor}");
    let text = table("nvme-x2");
    assert!(text.contains(" PCIe 3.0 x2 (of 4.0 x4) "), "{text}");
}

#[test]
fn sata_ssd_at_3_of_6_is_read_from_its_ata_link_not_the_cards_pcie() {
    let devs = listed("sata-3g");
    let link = &device(&devs, "sda")["link"];
    assert_eq!(link["kind"], "sata");
    assert_eq!(link["label"], "SATA 3 Gb/s (of 6)");
    assert_eq!(link["speed"], "3.0 Gb/s");
    // The drive's own maximum comes from IDENTIFY word 76.
    assert_eq!(link["max_speed"], "6.0 Gb/s");
    assert_eq!(link["ceiling_bytes_per_s"], 300_000_000u64);
    assert_eq!(link["max_ceiling_bytes_per_s"], 600_000_000u64);
    assert_eq!(link["encoding"], "8b/10b");
    let note = link["note"].as_str().unwrap();
    assert!(note.contains("lowered the link speed 1 time(s)"), "{note}");
    assert!(
        link["sysfs_path"]
            .as_str()
            .unwrap()
            .ends_with("ata3/link3/ata_link/link3"),
        "{link}"
    );
    let sensor = &device(&devs, "sda")["temperature_sensor"];
    assert_eq!(sensor["name"], "drivetemp");
    assert!(table("sata-3g").contains(" SATA 3 Gb/s (of 6) "));
}

#[test]
fn usb_bridges_at_480_say_the_usb_2_bound_and_their_driver() {
    let devs = listed("usb");
    let uas = &device(&devs, "sdb")["link"];
    assert_eq!(uas["kind"], "usb");
    assert_eq!(uas["label"], "USB 2.0 uas");
    assert_eq!(uas["speed"], "480 Mb/s");
    assert_eq!(uas["driver"], "uas");
    // 13 packets of 512 bytes every 125 µs, not 480 Mb/s ÷ 8.
    assert_eq!(uas["ceiling_bytes_per_s"], 53_248_000u64);
    assert!(uas["max_speed"].is_null());
    let bot = &device(&devs, "sdc")["link"];
    assert_eq!(bot["label"], "USB 2.0 (of 3.2) usb-storage");
    let note = bot["note"].as_str().unwrap();
    assert!(note.contains("declares USB 3.2 but runs at 480"), "{note}");
    assert!(note.contains("SuperSpeed peer"), "{note}");
    assert!(note.contains("one command at a time"), "{note}");
    // The uas bridge's port has no SuperSpeed peer: nothing is claimed about it.
    assert!(!uas["note"].as_str().unwrap().contains("peer"));
}

#[test]
fn sas_drive_reports_its_phy_not_the_hbas_pcie_link() {
    let devs = listed("sas");
    let link = &device(&devs, "sdd")["link"];
    assert_eq!(link["kind"], "sas");
    assert_eq!(link["label"], "SAS 6 Gb/s (of 12)");
    assert_eq!(link["max_of"], "host phy");
    assert_eq!(link["ceiling_bytes_per_s"], 600_000_000u64);
    assert_eq!(link["max_ceiling_bytes_per_s"], 1_200_000_000u64);
    assert_eq!(link["width"], 1);
}

#[test]
fn virtio_loop_and_zram_have_no_physical_link_and_no_ceiling() {
    let devs = listed("virtio");
    let vda = &device(&devs, "vda")["link"];
    assert_eq!(vda["kind"], "virtio");
    assert_eq!(vda["label"], "virtio");
    assert_eq!(vda["note"], "virtio: no physical link");
    for key in [
        "speed",
        "width",
        "max_speed",
        "max_width",
        "ceiling_bytes_per_s",
    ] {
        assert!(vda[key].is_null(), "{key}: {vda}");
    }
    let devs = listed("loop");
    assert_eq!(device(&devs, "loop0")["link"]["kind"], "loop");
    assert_eq!(device(&devs, "zram0")["link"]["kind"], "zram");
    assert!(device(&devs, "loop0")["link"]["ceiling_bytes_per_s"].is_null());
    assert!(table("virtio").contains(" virtio "));
}

#[test]
fn an_md_array_lists_each_members_link() {
    let devs = listed("md-sata");
    let md = &device(&devs, "md0")["link"];
    assert_eq!(md["kind"], "md");
    assert_eq!(md["label"], "md: 2 members");
    assert!(md["ceiling_bytes_per_s"].is_null());
    let members = md["members"].as_array().unwrap();
    let labels: Vec<(&str, &str)> = members
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap(),
                m["link"]["label"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        labels,
        [("sda1", "SATA 6 Gb/s"), ("sdb1", "SATA 3 Gb/s (of 6)")]
    );
}

#[test]
fn a_multipath_namespace_lists_each_controllers_link_and_finds_the_sensor() {
    let devs = listed("nvme-multipath");
    let link = &device(&devs, "nvme0n1")["link"];
    assert_eq!(link["kind"], "pcie");
    assert_eq!(link["label"], "2 paths: PCIe 4.0 x2");
    // How the paths share the load is the I/O policy's: no single ceiling.
    assert!(link["ceiling_bytes_per_s"].is_null(), "{link}");
    let members: Vec<&str> = link["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(members, ["nvme0", "nvme1"]);
    assert_eq!(
        device(&devs, "nvme0n1")["temperature_sensor"]["present"],
        true
    );
    let sys = tree("nvme-multipath");
    let facts = DiskFacts::for_block(&sys, &BlockDir::by_name(&sys, "nvme0n1").unwrap());
    assert_eq!(facts.nvme_controller.as_deref(), Some("nvme0"));
    assert_eq!(facts.thresholds.warn_c, Some(70.85));
}

#[test]
fn the_facts_of_a_partition_are_its_disks_with_a_readable_sensor() {
    let sys = tree("nvme-x2");
    let block = BlockDir::by_name(&sys, "nvme0n1p1").unwrap();
    let facts = DiskFacts::for_block(&sys, &block);
    assert_eq!(facts.device.as_deref(), Some("nvme0n1p1"));
    assert_eq!(facts.disk.as_deref(), Some("nvme0n1"));
    assert_eq!(facts.nvme_controller.as_deref(), Some("nvme0"));
    assert_eq!(facts.link.kind, LinkKind::Pcie);
    assert!(facts.link.below_max());
    assert_eq!(facts.thresholds.warn_c, Some(81.85));
    assert_eq!(facts.thresholds.crit_c, Some(84.85));
    let sensor = hwmon::find(&block).unwrap();
    assert_eq!(sensor.reader().unwrap().read_c(), Some(41.85));
    // The SATA drive's drivetemp sensor, found under its SCSI device.
    let sata = tree("sata-3g");
    let sda = BlockDir::by_name(&sata, "sda1").unwrap();
    assert_eq!(
        hwmon::find(&sda).unwrap().reader().unwrap().read_c(),
        Some(34.0)
    );
    assert_eq!(facts_json_roundtrip(&facts), facts);
    // No sensor: a reason, never a temperature.
    let usb = tree("usb");
    let err = hwmon::find(&BlockDir::by_name(&usb, "sdb").unwrap()).unwrap_err();
    assert!(err.starts_with("no temperature sensor"), "{err}");
    assert_eq!(link_of_name(&usb, "nope").kind, LinkKind::Unknown);
}

fn facts_json_roundtrip(facts: &DiskFacts) -> DiskFacts {
    serde_json::from_str(&serde_json::to_string(facts).unwrap()).unwrap()
}

#[test]
fn a_wrong_sysfs_path_is_one_line_naming_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["--list"])
        .env("SYSFS_PATH", "/nonexistent-sysfs")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent-sysfs/block"), "{err}");
    assert!(err.contains("SYSFS_PATH"), "{err}");
}

#[test]
fn this_machines_devices_say_what_carries_them() {
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args(["--list", "--all", "--json"])
        .env_remove("SYSFS_PATH")
        .output()
        .unwrap();
    let Value::Array(devs) = common::json(&out) else {
        panic!("not an array")
    };
    for d in &devs {
        let name = d["name"].as_str().unwrap();
        let link = &d["link"];
        let kind = link["kind"].as_str().unwrap();
        if name.starts_with("loop") {
            assert_eq!(kind, "loop", "{name}");
        }
        if name.starts_with("zram") {
            assert_eq!(kind, "zram", "{name}");
        }
        let virtio = std::fs::read_link(format!("/sys/block/{name}/device/subsystem"))
            .is_ok_and(|t| t.ends_with("virtio"));
        if virtio {
            assert_eq!(kind, "virtio", "{name}");
            assert!(link["ceiling_bytes_per_s"].is_null(), "{name}");
        }
    }
}

#[test]
#[ignore = "needs root: attaches a loop device and mounts it"]
fn a_loop_device_and_a_file_on_it_are_carried_by_loop() {
    let dir = common::workdir();
    let dev = common::LoopDev::on_new_file(dir.path(), 32 << 20, &[]);
    let Value::Array(devs) = common::json(&common::diskscope(
        dir.path(),
        &["--list", "--all", "--json"],
    )) else {
        panic!("not an array")
    };
    let listed = device(&devs, dev.name());
    assert_eq!(listed["link"]["kind"], "loop");
    assert!(listed["queue_limits"]["max_sectors_kb"].is_u64());
    // Mounted read-only: its lost+found stands for any file on the filesystem.
    let mnt = common::Mounted::ext4(&dev.path, dir.path().join("mnt"));
    let file = mnt.dir.join("lost+found");
    let sys = Path::new("/sys");
    let block = block_of_path(sys, &file).unwrap();
    assert_eq!(block.name, dev.name());
    let facts = DiskFacts::for_path(sys, &file);
    assert_eq!(facts.link.kind, LinkKind::Loop);
    assert_eq!(facts.device.as_deref(), Some(dev.name()));
    assert!(sensor_for_path(sys, &file).is_err());
    // The device node itself resolves to the same device.
    assert_eq!(block_of_path(sys, Path::new(&dev.path)).unwrap(), block);
}

#[test]
#[ignore = "needs root: attaches two stacked loop devices"]
fn a_fake_sysfs_root_cannot_hide_a_device_in_use_from_the_write_check() {
    // loop A backs loop B: writing to A would corrupt B. Only sysfs (B's loop/backing_file)
    // says so, and the fake tree knows nothing of either device.
    let dir = common::workdir();
    let a = common::LoopDev::on_new_file(dir.path(), 32 << 20, &[]);
    let b = common::LoopDev::attach(Path::new(&a.path), &[]);
    let before = a.checksum();
    let allow = format!("--allow-write={}", a.path);
    let out = Command::new(env!("CARGO_BIN_EXE_diskscope"))
        .args([&a.path, &allow, "--read", "0", "--no-tui", "-T", "1s"])
        .env("SYSFS_PATH", tree("loop"))
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{} backs {}", a.path, b.path)),
        "{err}"
    );
    assert_eq!(a.checksum(), before, "the backing device was written to");
}

/// A tmux server on its own socket, killed on drop.
struct Tmux(String);

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.0, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("running tmux")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

#[test]
fn the_picker_shows_each_disks_link_in_a_real_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("note: tmux is not installed; skipping");
        return;
    }
    let dir = common::workdir();
    let tmux = Tmux(format!("link-{}", std::process::id()));
    let shell = format!(
        "SYSFS_PATH='{}' '{}'",
        tree("nvme-x2").display(),
        env!("CARGO_BIN_EXE_diskscope")
    );
    let out = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "p",
        "-x",
        "80",
        "-y",
        "24",
        "-c",
        dir.path().to_str().unwrap(),
        &shell,
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let screen = loop {
        let screen = String::from_utf8_lossy(&tmux.run(&["capture-pane", "-p", "-t", "p"]).stdout)
            .into_owned();
        if screen.contains("nvme0n1p1") || std::time::Instant::now() > deadline {
            break screen;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let row = screen
        .lines()
        .find(|l| l.contains("/nvme0n1 "))
        .unwrap_or_else(|| panic!("no nvme0n1 row:\n{screen}"));
    assert!(row.contains("PCIe 3.0 x2 (of 4.0 x4)"), "{screen}");
    assert!(screen.contains(" link "), "{screen}");
    let _ = tmux.run(&["send-keys", "-t", "p", "q"]);
}
