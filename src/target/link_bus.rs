//! The bus readers of the link walk ([`super::link`]): PCIe functions, ATA ports, SAS phys and
//! USB devices, each reading the kernel's own attributes (Documentation/ABI/testing/
//! sysfs-bus-pci, sysfs-ata, sysfs-bus-usb; scsi_transport_sas) and turning them into a
//! [`LinkInfo`] with its ceilings. The text formats are parsed by pure functions in
//! [`super::parse`], tested on the kernel's exact strings.

use std::path::{Path, PathBuf};

use super::ceiling::{self, Bus};
use super::link::{LinkInfo, LinkKind};
use super::link_reading::{Reading, gbs, gts, short_gb};
use super::parse::{
    parse_pcie_speed, parse_sas_rate, parse_sata_speed, parse_usb_speed, parse_usb_version,
    sata_max_from_identify,
};
use super::sysfs::{driver, entries, read_attr, read_num, relative, subsystem};

/// A PCI Express function: its trained link beside its own capability, and the port above it.
pub fn pcie(sys: &Path, dir: &Path) -> LinkInfo {
    let speed_of = |d: &Path, f: &str| read_attr(&d.join(f)).and_then(|t| parse_pcie_speed(&t));
    let width_of = |d: &Path, f: &str| read_num::<u32>(&d.join(f)).filter(|&w| w > 0);
    let (speed, width) = (
        speed_of(dir, "current_link_speed"),
        width_of(dir, "current_link_width"),
    );
    let (max, max_width) = (
        speed_of(dir, "max_link_speed"),
        width_of(dir, "max_link_width"),
    );
    let port = dir.parent().filter(|p| p.join("max_link_speed").exists());
    let port_max = port.and_then(|p| speed_of(p, "max_link_speed"));
    let port_width = port.and_then(|p| width_of(p, "max_link_width"));
    let generation = |mt: u64| ceiling::pcie_generation(mt).map_or_else(|| gts(mt), String::from);
    let lanes = |w: Option<u32>| w.map(|w| format!(" x{w}")).unwrap_or_default();
    let mut label = match speed {
        Some(s) => format!("PCIe {}{}", generation(s), lanes(width)),
        None => "PCIe".to_string(),
    };
    let mut notes = Vec::new();
    if let (Some(s), Some(m)) = (speed, max)
        && (m > s || max_width.zip(width).is_some_and(|(mw, w)| mw > w))
    {
        label.push_str(&format!(" (of {}{})", generation(m), lanes(max_width)));
    }
    if speed.is_none() {
        notes.push("the kernel does not report this function's link speed".to_string());
    }
    if behind_external_port(dir) {
        notes.push(
            "behind an external-facing port (Thunderbolt, USB4): the speed is the tunnel's as \
             the kernel reports it, not a physical PCIe link"
                .to_string(),
        );
    }
    let narrower = |cap: Option<u32>, own: Option<u32>| cap.zip(own).is_some_and(|(c, o)| c < o);
    if port_max.zip(max).is_some_and(|(p, m)| p < m) || narrower(port_width, max_width) {
        notes.push(format!(
            "the port above it can do at most {}{}: the slot, not the drive, sets the maximum",
            port_max.map(gts).unwrap_or_else(|| "?".into()),
            lanes(port_width)
        ));
    }
    let mut link = Reading {
        kind: LinkKind::Pcie,
        bus: Bus::Pcie,
        label,
        speed,
        width,
        max,
        max_width,
        max_of: "device",
        unit: gts,
        notes,
        dir,
    }
    .finish(sys);
    link.port_max_speed = port_max.map(gts);
    link.port_max_width = port_width;
    link
}

/// True when the PCI function or a bridge above it sits behind an external-facing port: the
/// kernel's `removable` attribute reads "removable" there (sysfs-bus-pci), as for Thunderbolt
/// and USB4 tunnels, whose reported link speeds are not those of a physical slot.
fn behind_external_port(function: &Path) -> bool {
    function
        .ancestors()
        .take_while(|d| d.join("current_link_speed").exists())
        .any(|d| read_attr(&d.join("removable")).as_deref() == Some("removable"))
}

/// The first of `paths` that exists.
fn first_dir(paths: [PathBuf; 2]) -> Option<PathBuf> {
    paths.into_iter().find(|p| p.is_dir())
}

/// The SCSI address `H:C:T:L` of a SCSI device directory name.
fn scsi_address(dir: &Path) -> Option<[u32; 4]> {
    let name = dir.file_name()?.to_string_lossy().into_owned();
    let parts: Vec<u32> = name
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    parts.try_into().ok()
}

/// The libata objects behind a SCSI disk on port `ata`: its link (`linkN`, or `linkN.C` behind
/// a port multiplier, where the SCSI channel is the multiplier port) and its device
/// (`devN.T`, or `devN.C.0`).
struct AtaDirs {
    link_name: String,
    link_dir: Option<PathBuf>,
    dev_dir: Option<PathBuf>,
}

fn ata_dirs(sys: &Path, ata: &Path, scsi_dev: &Path) -> AtaDirs {
    let port = ata.file_name().map(|n| n.to_string_lossy().into_owned());
    let n = port
        .as_deref()
        .and_then(|p| p.strip_prefix("ata"))
        .unwrap_or("0");
    let pmp_links = first_dir([
        sys.join("class/ata_port").join(format!("ata{n}")),
        ata.join("ata_port").join(format!("ata{n}")),
    ])
    .and_then(|d| read_num::<u32>(&d.join("nr_pmp_links")))
    .unwrap_or(0);
    let [_, channel, target, _] = scsi_address(scsi_dev).unwrap_or([0; 4]);
    let (link_name, dev_name) = if pmp_links > 0 {
        (format!("link{n}.{channel}"), format!("dev{n}.{channel}.0"))
    } else {
        (format!("link{n}"), format!("dev{n}.{target}"))
    };
    let link_dir = first_dir([
        sys.join("class/ata_link").join(&link_name),
        ata.join(&link_name).join("ata_link").join(&link_name),
    ]);
    let dev_dir = first_dir([
        sys.join("class/ata_device").join(&dev_name),
        ata.join(&link_name)
            .join(&dev_name)
            .join("ata_device")
            .join(&dev_name),
    ]);
    AtaDirs {
        link_name,
        link_dir,
        dev_dir,
    }
}

/// An ATA port `ataN`: the link's trained speed (`ata_link/linkN/sata_spd`), the drive's own
/// maximum (IDENTIFY word 76 in `ata_device/devN.T/id`), libata's limit and how often libata
/// slowed the link after errors (`spdn_cnt`). `scsi_dev` is the disk's SCSI device directory,
/// whose address names the link behind a port multiplier.
pub fn sata(sys: &Path, ata: &Path, scsi_dev: &Path) -> LinkInfo {
    let AtaDirs {
        link_name,
        link_dir,
        dev_dir,
    } = ata_dirs(sys, ata, scsi_dev);
    let spd = |file: &str| {
        let dir = link_dir.as_ref()?;
        parse_sata_speed(&read_attr(&dir.join(file))?)
    };
    let speed = spd("sata_spd");
    let limit = [spd("hw_sata_spd_limit"), spd("sata_spd_limit")]
        .into_iter()
        .flatten()
        .min();
    let dev_attr = |file: &str| dev_dir.as_ref().and_then(|d| read_attr(&d.join(file)));
    let max = dev_attr("id").and_then(|t| sata_max_from_identify(&t));
    let slowed: u32 = dev_attr("spdn_cnt")
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let mut label = match speed {
        Some(s) => format!("SATA {} Gb/s", short_gb(s)),
        None => "ATA".to_string(),
    };
    if let (Some(s), Some(m)) = (speed, max)
        && m > s
    {
        label.push_str(&format!(" (of {})", short_gb(m)));
    }
    let mut notes = Vec::new();
    if speed.is_none() {
        notes.push(format!(
            "{link_name}: the kernel reports no SATA link speed"
        ));
    }
    if let Some(l) = limit
        && max.is_none_or(|m| l < m)
    {
        notes.push(format!("libata limits {link_name} to {}", gbs(l)));
    }
    if slowed > 0 {
        notes.push(format!(
            "libata lowered the link speed {slowed} time(s) after errors (spdn_cnt)"
        ));
    }
    let mut link = Reading {
        kind: LinkKind::Sata,
        bus: Bus::Sata,
        label,
        speed,
        width: speed.map(|_| 1),
        max,
        max_width: max.map(|_| 1),
        max_of: "device",
        unit: gbs,
        notes,
        dir: link_dir.as_deref().unwrap_or(ata),
    }
    .finish(sys);
    link.port_max_speed = limit.map(gbs);
    link
}

/// A SAS end device: the phys of the port it hangs from (on the HBA or an expander), their
/// negotiated rate and the phys' hardware maximum.
pub fn sas(sys: &Path, end_device: &Path) -> LinkInfo {
    let port = end_device.parent().unwrap_or(end_device);
    let phys: Vec<String> = entries(port)
        .into_iter()
        .filter(|n| n.starts_with("phy-"))
        .collect();
    let mut rates = Vec::new();
    let mut maxes = Vec::new();
    let mut states = Vec::new();
    for phy in &phys {
        let Some(dir) = first_dir([
            sys.join("class/sas_phy").join(phy),
            port.join(phy).join("sas_phy").join(phy),
        ]) else {
            continue;
        };
        let negotiated = read_attr(&dir.join("negotiated_linkrate"));
        match negotiated.as_deref().and_then(parse_sas_rate) {
            Some(r) => rates.push(r),
            None => states.push(format!("{phy}: {}", negotiated.as_deref().unwrap_or("?"))),
        }
        let max = read_attr(&dir.join("maximum_linkrate_hw"))
            .or_else(|| read_attr(&dir.join("maximum_linkrate")));
        maxes.extend(max.as_deref().and_then(parse_sas_rate));
    }
    let speed = rates.iter().copied().min();
    let width = (!rates.is_empty()).then_some(rates.len() as u32);
    let max = maxes.iter().copied().max();
    let mut label = match speed {
        Some(s) => format!("SAS {} Gb/s", short_gb(s)),
        None => "SAS".to_string(),
    };
    if let Some(w) = width.filter(|&w| w > 1) {
        label.push_str(&format!(" x{w}"));
    }
    if let (Some(s), Some(m)) = (speed, max)
        && m > s
    {
        label.push_str(&format!(" (of {})", short_gb(m)));
    }
    let mut notes = states;
    if phys.is_empty() {
        notes.push(format!("no phy found in {}", relative(sys, port)));
    }
    Reading {
        kind: LinkKind::Sas,
        bus: Bus::Sas,
        label,
        speed,
        width,
        max,
        max_width: max.and(width),
        max_of: "host phy",
        unit: gbs,
        notes,
        dir: port,
    }
    .finish(sys)
}

/// A USB device: its `speed` and lanes, the version it declares, whether its port could do
/// SuperSpeed (a `peer` port), and the driver of the interface the disk sits on (`child`).
pub fn usb(sys: &Path, dev: &Path, child: Option<&Path>) -> LinkInfo {
    let speed = read_attr(&dev.join("speed")).and_then(|t| parse_usb_speed(&t));
    let lanes: u32 = read_num(&dev.join("rx_lanes"))
        .filter(|&l| l > 0)
        .unwrap_or(1);
    let version = read_attr(&dev.join("version")).and_then(|t| parse_usb_version(&t));
    let interface = child.filter(|c| subsystem(c).as_deref() == Some("usb"));
    let drv = interface.and_then(driver);
    let mut label = match speed {
        Some(12) => "USB 1.1".to_string(),
        Some(480) => "USB 2.0".to_string(),
        Some(s) if s >= 5_000 => format!("USB 3 {} Gb/s", short_gb(s)),
        _ => "USB".to_string(),
    };
    let mut notes = Vec::new();
    let slow = speed.is_some_and(|s| s <= 480);
    if let Some((major, minor)) = version.filter(|&(major, _)| major >= 3 && slow) {
        label.push_str(&format!(" (of {major}.{minor})"));
        notes.push(format!(
            "the device declares USB {major}.{minor} but runs at {} Mb/s",
            speed.unwrap_or(0)
        ));
    }
    if slow && dev.join("port").join("peer").exists() {
        notes.push(
            "its port is USB 3 capable (it has a SuperSpeed peer): a USB 2 cable or hub, or \
             the device itself, holds it at USB 2 speed"
                .to_string(),
        );
    }
    if speed == Some(480) {
        notes.push(
            "480 Mb/s carries at most 53.2 MB/s of bulk data (USB 2.0 spec, Table 5-10)"
                .to_string(),
        );
    }
    if let Some(d) = &drv {
        label.push_str(&format!(" {d}"));
        if d == "usb-storage" {
            notes.push(
                "usb-storage (Bulk-Only Transport) carries one command at a time: no queue"
                    .to_string(),
            );
        }
    }
    let mut link = Reading {
        kind: LinkKind::Usb,
        bus: Bus::Usb,
        label,
        speed: speed.map(|s| s / u64::from(lanes)),
        width: speed.map(|_| lanes),
        max: None,
        max_width: None,
        max_of: "device",
        unit: |mb| format!("{mb} Mb/s"),
        notes,
        dir: dev,
    }
    .finish(sys);
    link.driver = drv;
    link
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_behind_a_thunderbolt_port_says_its_speed_is_the_tunnels() {
        let sys = tempfile::tempdir().unwrap();
        let port = sys.path().join("devices/pci0000:00/0000:00:07.0");
        let function = port.join("0000:05:00.0");
        std::fs::create_dir_all(&function).unwrap();
        for dir in [&port, &function] {
            for (file, text) in [
                ("current_link_speed", "2.5 GT/s PCIe\n"),
                ("current_link_width", "4\n"),
                ("max_link_speed", "8.0 GT/s PCIe\n"),
                ("max_link_width", "4\n"),
            ] {
                std::fs::write(dir.join(file), text).unwrap();
            }
        }
        let plain = pcie(sys.path(), &function);
        assert!(plain.note.is_none(), "{plain:?}");
        std::fs::write(port.join("removable"), "removable\n").unwrap();
        let tunnelled = pcie(sys.path(), &function);
        assert!(tunnelled.note.unwrap().contains("tunnel"));
        assert_eq!(tunnelled.label, "PCIe 1.0 x4 (of 3.0 x4)");
    }
}
