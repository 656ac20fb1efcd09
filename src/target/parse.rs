//! Pure parsers for the small text files of sysfs and procfs that discovery and the link walk
//! read: `queue/scheduler`, `dev`, 0/1 flags, `proc/self/mountinfo` (with its octal escapes),
//! the natural order of kernel device names, and the link rates of PCIe, SATA, SAS and USB in
//! the kernel's own wording. Text in, values out: no filesystem access here,
//! so every format quirk is unit-tested.

use std::cmp::Ordering;

/// One line of `proc/self/mountinfo`, reduced to what discovery needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub major: u32,
    pub minor: u32,
    /// Mount point with octal escapes (`\040` etc.) decoded.
    pub mount_point: String,
}

/// The active scheduler of a `queue/scheduler` line: `"mq-deadline [none]"` gives `"none"`; a
/// lone unbracketed name is taken as is; anything else gives `None`.
pub fn parse_scheduler(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    for word in &words {
        if let Some(inner) = word.strip_prefix('[').and_then(|w| w.strip_suffix(']'))
            && !inner.is_empty()
        {
            return Some(inner.to_string());
        }
    }
    match words.as_slice() {
        [only] if !only.contains('[') && !only.contains(']') => Some((*only).to_string()),
        _ => None,
    }
}

/// `"8:1\n"` gives `(8, 1)`.
pub fn parse_dev_numbers(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.trim().split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// `"1\n"` gives `true`, `"0"` gives `false`, anything else `None`.
pub fn parse_flag(text: &str) -> Option<bool> {
    match text.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// Decodes the `\NNN` octal escapes the kernel uses in mountinfo for space, tab, newline and
/// backslash. Invalid escapes are kept literally.
pub fn unescape_octal(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() {
            let digits = &bytes[i + 1..i + 4];
            if digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                let value = digits
                    .iter()
                    .fold(0u32, |acc, d| acc * 8 + u32::from(d - b'0'));
                if let Ok(byte) = u8::try_from(value) {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses `proc/self/mountinfo`: field 3 is `major:minor`, field 5 the mount point. Malformed
/// lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (major, minor) = parse_dev_numbers(fields.get(2)?)?;
            let mount_point = unescape_octal(fields.get(4)?);
            Some(Mount {
                major,
                minor,
                mount_point,
            })
        })
        .collect()
}

/// Orders names with digit runs compared as numbers, so that `loop2` < `loop10`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(cb.iter()) {
        let ord = match (x, y) {
            ((true, dx), (true, dy)) => {
                let (tx, ty) = (dx.trim_start_matches('0'), dy.trim_start_matches('0'));
                tx.len().cmp(&ty.len()).then(tx.cmp(ty))
            }
            ((_, sx), (_, sy)) => sx.cmp(sy),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    ca.len().cmp(&cb.len()).then(a.cmp(b))
}

/// `"8.0 GT/s PCIe"` (kernel 5.3+), `"8 GT/s"` (4.13–5.2) → 8,000 MT/s; `"Unknown"` → `None`.
pub fn parse_pcie_speed(text: &str) -> Option<u64> {
    let (num, unit) = text.trim().split_once(' ')?;
    unit.starts_with("GT/s").then(|| mega(num))?
}

/// libata's `sata_spd`: `"3.0 Gbps"` → 3,000 Mb/s; `"<unknown>"` (no link, or no limit) → `None`.
pub fn parse_sata_speed(text: &str) -> Option<u64> {
    let (num, unit) = text.trim().split_once(' ')?;
    (unit == "Gbps").then(|| mega(num))?
}

/// scsi_transport_sas's link rates: `"12.0 Gbit"` → 12,000; `"Phy disabled"`, `"Unknown"`,
/// `"Spin-up hold"` → `None`.
pub fn parse_sas_rate(text: &str) -> Option<u64> {
    let (num, unit) = text.trim().split_once(' ')?;
    (unit == "Gbit").then(|| mega(num))?
}

/// A USB device's `speed` in Mb/s: `"480"`, `"5000"`; low speed `"1.5"` (no bulk transfers,
/// so no storage) and `"unknown"` → `None`.
pub fn parse_usb_speed(text: &str) -> Option<u64> {
    text.trim().parse().ok().filter(|&s| s > 0)
}

/// bcdUSB as the kernel prints it, `" 3.20"`, → `(3, 2)`.
pub fn parse_usb_version(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.get(..1)?.parse().ok()?))
}

/// The highest SATA generation a drive supports, from its cached IDENTIFY data (`id`: 256
/// words in hex): word 76, "Serial ATA Capabilities", bits 1–3 for 1.5, 3.0 and 6.0 Gb/s
/// (ACS-3, IDENTIFY DEVICE data). 0000h or FFFFh means the word is not reported.
pub fn sata_max_from_identify(text: &str) -> Option<u64> {
    let word = u16::from_str_radix(text.split_whitespace().nth(76)?, 16).ok()?;
    if word == 0 || word == 0xffff {
        return None;
    }
    [(3, 6_000), (2, 3_000), (1, 1_500)]
        .into_iter()
        .find(|(bit, _)| word & (1 << bit) != 0)
        .map(|(_, rate)| rate)
}

/// A decimal number of giga-units as mega-units: `"8.0"` → 8,000, `"22.5"` → 22,500.
/// `"8.0"` → 8,000; `None` for what is no rate: not a number, zero or below, smaller than
/// the thousandth it is kept in, or too large for it (`as u64` would saturate to a made-up
/// 18446744073709552.0 GT/s).
fn mega(num: &str) -> Option<u64> {
    let value: f64 = num.parse().ok()?;
    let milli = (value * 1000.0).round();
    (milli.is_finite() && milli >= 1.0 && milli < u64::MAX as f64).then_some(milli as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_takes_bracketed_entry() {
        assert_eq!(
            parse_scheduler("mq-deadline [none]\n").as_deref(),
            Some("none")
        );
        assert_eq!(
            parse_scheduler("none [mq-deadline] kyber bfq ").as_deref(),
            Some("mq-deadline")
        );
        assert_eq!(parse_scheduler("none").as_deref(), Some("none"));
        assert_eq!(parse_scheduler("none kyber"), None);
        assert_eq!(parse_scheduler(""), None);
        assert_eq!(parse_scheduler("[]"), None);
    }

    #[test]
    fn dev_numbers_parse_and_reject() {
        assert_eq!(parse_dev_numbers("8:1\n"), Some((8, 1)));
        assert_eq!(parse_dev_numbers("259:0"), Some((259, 0)));
        assert_eq!(parse_dev_numbers("8"), None);
        assert_eq!(parse_dev_numbers("a:1"), None);
        assert_eq!(parse_dev_numbers("8:-1"), None);
    }

    #[test]
    fn flags() {
        assert_eq!(parse_flag("1\n"), Some(true));
        assert_eq!(parse_flag("0"), Some(false));
        assert_eq!(parse_flag("yes"), None);
    }

    #[test]
    fn octal_escapes_are_decoded() {
        assert_eq!(unescape_octal(r"/mnt/my\040disk"), "/mnt/my disk");
        assert_eq!(unescape_octal(r"/a\011b\012c\134d"), "/a\tb\nc\\d");
        assert_eq!(unescape_octal(r"/trailing\04"), r"/trailing\04");
        assert_eq!(unescape_octal(r"/bad\089"), r"/bad\089");
        assert_eq!(unescape_octal(r"\"), r"\");
        assert_eq!(unescape_octal(""), "");
    }

    #[test]
    fn mountinfo_fields_3_and_5() {
        let text = "\
36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
29 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
40 29 8:17 / /mnt/my\\040disk rw - ext4 /dev/sdb1 rw
garbage line
41 29 x:y / /nope rw - tmpfs tmpfs rw
";
        let mounts = parse_mountinfo(text);
        assert_eq!(
            mounts,
            vec![
                Mount {
                    major: 98,
                    minor: 0,
                    mount_point: "/mnt2".into()
                },
                Mount {
                    major: 259,
                    minor: 2,
                    mount_point: "/".into()
                },
                Mount {
                    major: 8,
                    minor: 17,
                    mount_point: "/mnt/my disk".into()
                },
            ]
        );
    }

    #[test]
    fn natural_order() {
        let mut names = vec![
            "loop10", "sdaa", "loop2", "sdb", "sda", "nvme10n1", "nvme2n1",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            vec![
                "loop2", "loop10", "nvme2n1", "nvme10n1", "sda", "sdaa", "sdb"
            ]
        );
    }
    #[test]
    fn pcie_speeds_in_every_kernel_wording() {
        assert_eq!(parse_pcie_speed("2.5 GT/s PCIe"), Some(2_500));
        assert_eq!(parse_pcie_speed("8.0 GT/s PCIe\n"), Some(8_000));
        assert_eq!(parse_pcie_speed("8 GT/s"), Some(8_000));
        assert_eq!(parse_pcie_speed("64.0 GT/s PCIe"), Some(64_000));
        // Garbage is no rate, not a saturated or rounded-away guess.
        assert_eq!(parse_pcie_speed("99999999999999999999999 GT/s PCIe"), None);
        assert_eq!(parse_pcie_speed("0.0001 GT/s PCIe"), None);
        assert_eq!(parse_pcie_speed("inf GT/s PCIe"), None);
        assert_eq!(parse_sata_speed("1e30 Gbps"), None);
        assert_eq!(parse_pcie_speed("Unknown"), None);
        assert_eq!(parse_pcie_speed("Unknown speed"), None);
        assert_eq!(parse_pcie_speed("133 MHz PCI-X 533"), None);
    }

    #[test]
    fn sata_and_sas_rates() {
        assert_eq!(parse_sata_speed("3.0 Gbps"), Some(3_000));
        assert_eq!(parse_sata_speed("1.5 Gbps\n"), Some(1_500));
        assert_eq!(parse_sata_speed("<unknown>"), None);
        assert_eq!(parse_sas_rate("12.0 Gbit"), Some(12_000));
        assert_eq!(parse_sas_rate("22.5 Gbit"), Some(22_500));
        assert_eq!(parse_sas_rate("Phy disabled"), None);
        assert_eq!(parse_sas_rate("Spin-up hold"), None);
        assert_eq!(parse_sas_rate("-1 Gbit"), None);
    }

    #[test]
    fn usb_speed_and_version() {
        assert_eq!(parse_usb_speed("480\n"), Some(480));
        assert_eq!(parse_usb_speed("10000"), Some(10_000));
        assert_eq!(parse_usb_speed("1.5"), None);
        assert_eq!(parse_usb_speed("unknown"), None);
        assert_eq!(parse_usb_version(" 3.20\n"), Some((3, 2)));
        assert_eq!(parse_usb_version(" 2.10"), Some((2, 1)));
        assert_eq!(parse_usb_version("x"), None);
    }

    fn identify_with_word_76(word: u16) -> String {
        (0..256)
            .map(|i| {
                let w = if i == 76 { word } else { 0x1234 };
                let sep = if (i + 1) % 8 == 0 { '\n' } else { ' ' };
                format!("{w:04x}{sep}")
            })
            .collect()
    }

    #[test]
    fn identify_word_76_gives_the_drives_fastest_generation() {
        // 0x070e: Gen1, Gen2, Gen3 and NCQ bits — a 6 Gb/s SSD.
        assert_eq!(
            sata_max_from_identify(&identify_with_word_76(0x070e)),
            Some(6_000)
        );
        assert_eq!(
            sata_max_from_identify(&identify_with_word_76(0x0006)),
            Some(3_000)
        );
        assert_eq!(
            sata_max_from_identify(&identify_with_word_76(0x0002)),
            Some(1_500)
        );
        assert_eq!(sata_max_from_identify(&identify_with_word_76(0x0000)), None);
        assert_eq!(sata_max_from_identify(&identify_with_word_76(0xffff)), None);
        assert_eq!(sata_max_from_identify("0040 0000"), None);
    }
}
