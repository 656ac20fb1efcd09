use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

/// A disk `name` (major:minor `dev`) at `devices/<at>/block/<name>`, its `device` link to
/// `devices/<at>`, `block/<name>` and `dev/block/<dev>` pointing at it.
fn disk(sys: &Path, at: &str, name: &str, dev: &str) {
    let dir = sys.join("devices").join(at).join("block").join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("dev"), format!("{dev}\n")).unwrap();
    if !at.starts_with("virtual") {
        symlink(sys.join("devices").join(at), dir.join("device")).unwrap();
    }
    fs::create_dir_all(sys.join("block")).unwrap();
    fs::create_dir_all(sys.join("dev/block")).unwrap();
    symlink(&dir, sys.join("block").join(name)).unwrap();
    symlink(&dir, sys.join("dev/block").join(dev)).unwrap();
}

fn bind(sys: &Path, function: &str, drv: &str) {
    let d = sys.join("bus/pci/drivers").join(drv);
    fs::create_dir_all(&d).unwrap();
    symlink(&d, sys.join("devices").join(function).join("driver")).unwrap();
}

/// sdb and sdc on one HBA under root port 00:01.0, nvme0n1 under the same root port, vda on
/// virtio, loop1 and loop2 backed by files on vda, loop3 on a file nobody knows.
fn tree() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let sys = root.path();
    let hba = "pci0000:00/0000:00:01.0/0000:01:00.0";
    disk(
        sys,
        &format!("{hba}/host0/target0:0:0/0:0:0:0"),
        "sdb",
        "8:16",
    );
    disk(
        sys,
        &format!("{hba}/host0/target0:0:1/0:0:1:0"),
        "sdc",
        "8:32",
    );
    disk(
        sys,
        "pci0000:00/0000:00:01.0/0000:02:00.0/nvme/nvme0",
        "nvme0n1",
        "259:0",
    );
    disk(sys, "pci0000:00/0000:00:02.0/virtio1", "vda", "252:0");
    bind(sys, hba, "mpt3sas");
    bind(sys, "pci0000:00/0000:00:02.0", "virtio-pci");
    for (n, file) in [
        ("loop1", "/img/1"),
        ("loop2", "/img/2"),
        ("loop3", "/elsewhere"),
    ] {
        disk(sys, "virtual", n, &format!("7:{}", &n[4..]));
        let l = sys.join("devices/virtual/block").join(n).join("loop");
        fs::create_dir_all(&l).unwrap();
        fs::write(l.join("backing_file"), format!("{file}\n")).unwrap();
    }
    root
}

fn identify(p: &Path) -> Option<(u32, u32)> {
    p.starts_with("/img").then_some((252, 0))
}

fn chains(sys: &Path, names: &[&str]) -> Vec<(String, Option<Chain>)> {
    names
        .iter()
        .map(|n| (n.to_string(), chain_of(sys, n, &identify)))
        .collect()
}

#[test]
fn pci_addresses_are_recognised() {
    assert!(is_pci_address("0000:3b:00.0"));
    assert!(is_pci_address("0000:00:1f.7"));
    assert!(!is_pci_address("0000:00:1f.8"));
    assert!(!is_pci_address("pci0000:00"));
    assert!(!is_pci_address("0000:3b:00"));
    assert!(!is_pci_address("virtio1"));
}

#[test]
fn a_chain_runs_from_the_root_port_to_the_controller_and_a_loop_to_its_backing_disk() {
    let t = tree();
    let sdb = chain_of(t.path(), "sdb", &identify).unwrap();
    let addrs: Vec<&str> = sdb.pci.iter().map(|p| p.address.as_str()).collect();
    assert_eq!(addrs, ["0000:00:01.0", "0000:01:00.0"]);
    assert_eq!(sdb.pci[1].driver.as_deref(), Some("mpt3sas"));
    assert_eq!(sdb.disk, "sdb");
    let loop1 = chain_of(t.path(), "loop1", &identify).unwrap();
    assert_eq!(
        (loop1.device.as_str(), loop1.disk.as_str()),
        ("loop1", "vda")
    );
    assert_eq!(loop1.pci[0].address, "0000:00:02.0");
    // A backing file on no known device: the loop device is as far as it goes.
    let loop3 = chain_of(t.path(), "loop3", &identify).unwrap();
    assert_eq!(loop3.disk, "loop3");
    assert!(loop3.pci.is_empty());
    assert_eq!(chain_of(t.path(), "sdz", &identify), None);
}

#[test]
fn shared_names_the_disk_the_controller_and_the_bridge() {
    let t = tree();
    let said = shared(&chains(
        t.path(),
        &["loop1", "loop2", "sdb", "sdc", "nvme0n1"],
    ));
    assert_eq!(
        said,
        [
            "loop1 and loop2 are on one disk, vda, behind PCI 0000:00:02.0 (virtio-pci)",
            "sdb and sdc share PCI 0000:01:00.0 (mpt3sas)",
            "sdb, sdc and nvme0n1 share PCI bridge 0000:00:01.0",
        ]
    );
    // Disks that share nothing but the CPU's root complex: nothing to say.
    assert!(shared(&chains(t.path(), &["sdb", "vda", "loop3"])).is_empty());
    assert!(shared(&[("x".into(), None), ("y".into(), None)]).is_empty());
}
