//! The most data a link can carry, in bytes per second, from its signalling rate, its lanes
//! and its line encoding — the one place these figures are computed. Pure arithmetic over the
//! rates the link readers found in sysfs; nothing here reads a file.
//!
//! The ceiling is the link's payload rate after line encoding, before protocol overhead
//! (PCIe TLP headers, SATA FIS framing, USB packet headers): a drive can come near it, never
//! above it. Where the protocol itself bounds the payload more tightly than the encoding
//! (USB 2.0 and 1.1 bulk transfers), that bound is used and said.

/// The bus a rate belongs to: it picks the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bus {
    Pcie,
    Sata,
    Sas,
    Usb,
}

/// A trained link: `rate_mt_per_s` is the signalling rate of one lane in mega-transfers
/// (PCIe's GT/s × 1000; for SATA, SAS and USB one transfer is one bit: Mbit/s), `lanes` how
/// many lanes carry data in each direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub bus: Bus,
    pub rate_mt_per_s: u64,
    pub lanes: u32,
}

/// A link's ceiling and how it was derived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ceiling {
    pub bytes_per_s: u64,
    /// The encoding or bound used: `"8b/10b"`, `"128b/130b"`, `"USB 2.0 bulk: 13 × 512 B
    /// per 125 µs microframe"` …
    pub encoding: &'static str,
}

/// Payload bits per line bits, or a protocol bound in bytes per second per lane.
enum Rule {
    Encoding(u64, u64, &'static str),
    Bound(u64, &'static str),
}

/// The rule for one lane of `bus` at `rate_mt_per_s`; `None` for a rate the bus does not have.
fn rule(bus: Bus, rate_mt_per_s: u64) -> Option<Rule> {
    use Rule::{Bound, Encoding};
    Some(match (bus, rate_mt_per_s) {
        // PCIe 1.x (2.5 GT/s) and 2.x (5.0 GT/s): 8b/10b (PCI Express Base Specification 2.0,
        // "Symbol Encoding").
        (Bus::Pcie, 2_500 | 5_000) => Encoding(8, 10, "8b/10b"),
        // PCIe 3.0 (8 GT/s), 4.0 (16 GT/s), 5.0 (32 GT/s): 128b/130b (PCI Express Base
        // Specification 3.0, "Encoding for 8.0 GT/s and Higher Data Rates").
        (Bus::Pcie, 8_000 | 16_000 | 32_000) => Encoding(128, 130, "128b/130b"),
        // PCIe 6.0 (64 GT/s, PAM4) and 7.0 (128 GT/s) run in Flit Mode without a line
        // encoding: a 256-byte flit carries 236 bytes of TLPs and 6 of DLLPs, the rest is CRC
        // and FEC (PCI Express Base Specification 6.0, "Flit Mode"). We count the 242
        // bytes of TLP and DLLP as payload, as the usual comparison tables do (x1: 7.56 GB/s);
        // the TLP share alone would be 236/256.
        (Bus::Pcie, 64_000 | 128_000) => Encoding(242, 256, "PAM4 flit 242B/256B"),
        // SATA 1.5, 3.0 and 6.0 Gb/s: 8b/10b (Serial ATA Revision 3.0, 8b/10b
        // transmission code): 150, 300 and 600 MB/s.
        (Bus::Sata, 1_500 | 3_000 | 6_000) => Encoding(8, 10, "8b/10b"),
        // SAS 1.5 to 12 Gb/s: 8b/10b (SPL-3, the SAS-3 protocol layer); SAS-4 "24G" runs at
        // 22.5 Gbaud with 128b/150b (SPL-4: 128b/130b blocks
        // protected by forward error correction, 150 line bits per 128 data bits),
        // 2,400 MB/s.
        (Bus::Sas, 1_500 | 3_000 | 6_000 | 12_000) => Encoding(8, 10, "8b/10b"),
        (Bus::Sas, 22_500) => Encoding(128, 150, "128b/150b"),
        // USB 1.1 full speed (12 Mb/s): at most 19 bulk packets of 64 bytes per 1 ms frame,
        // 1,216,000 B/s (USB 2.0 Specification, Table 5-9 "Full-speed Bulk Transaction
        // Limits").
        (Bus::Usb, 12) => Bound(1_216_000, "USB full-speed bulk: 19 × 64 B per 1 ms frame"),
        // USB 2.0 high speed (480 Mb/s, NRZI with bit stuffing): at most 13 bulk packets of
        // 512 bytes per 125 µs microframe, 53,248,000 B/s (USB 2.0 Specification, Table 5-10
        // "High-speed Bulk Transaction Limits"). Mass storage gets less: usb-storage's
        // Bulk-Only Transport adds a command and a status transfer to every request and keeps
        // one request in flight.
        (Bus::Usb, 480) => Bound(53_248_000, "USB 2.0 bulk: 13 × 512 B per 125 µs microframe"),
        // USB 3.2 Gen 1 (5 Gb/s per lane): 8b/10b; Gen 2 (10 Gb/s per lane): 128b/132b
        // (USB 3.2 Specification, chapter 6, "Physical Layer").
        (Bus::Usb, 5_000) => Encoding(8, 10, "8b/10b"),
        (Bus::Usb, 10_000) => Encoding(128, 132, "128b/132b"),
        _ => return None,
    })
}

/// The ceiling of `line`; `None` for an unknown rate or no lanes. The one formula:
/// rate per lane × lanes × payload bits ÷ line bits ÷ 8 (or the protocol bound × lanes).
pub fn ceiling(line: &Line) -> Option<Ceiling> {
    if line.lanes == 0 {
        return None;
    }
    let lanes = u128::from(line.lanes);
    let (bytes, encoding) = match rule(line.bus, line.rate_mt_per_s)? {
        Rule::Encoding(payload, total, name) => {
            let bits = u128::from(line.rate_mt_per_s) * 1_000_000 * lanes;
            (bits * u128::from(payload) / u128::from(total) / 8, name)
        }
        Rule::Bound(per_lane, name) => (u128::from(per_lane) * lanes, name),
    };
    Some(Ceiling {
        bytes_per_s: u64::try_from(bytes).unwrap_or(u64::MAX),
        encoding,
    })
}

/// The PCIe generation of a per-lane rate: 8,000 MT/s is `"3.0"`.
pub fn pcie_generation(rate_mt_per_s: u64) -> Option<&'static str> {
    Some(match rate_mt_per_s {
        2_500 => "1.0",
        5_000 => "2.0",
        8_000 => "3.0",
        16_000 => "4.0",
        32_000 => "5.0",
        64_000 => "6.0",
        128_000 => "7.0",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(bus: Bus, rate: u64, lanes: u32) -> u64 {
        ceiling(&Line {
            bus,
            rate_mt_per_s: rate,
            lanes,
        })
        .map(|c| c.bytes_per_s)
        .unwrap_or(0)
    }

    #[test]
    fn pcie_1_and_2_lose_a_fifth_to_8b10b() {
        assert_eq!(bytes(Bus::Pcie, 2_500, 1), 250_000_000);
        assert_eq!(bytes(Bus::Pcie, 2_500, 4), 1_000_000_000);
        assert_eq!(bytes(Bus::Pcie, 5_000, 1), 500_000_000);
        assert_eq!(bytes(Bus::Pcie, 5_000, 4), 2_000_000_000);
    }

    #[test]
    fn pcie_3_to_5_use_128b130b() {
        // 8 GT/s × 128/130 ÷ 8 = 984.6 MB/s a lane.
        assert_eq!(bytes(Bus::Pcie, 8_000, 1), 984_615_384);
        assert_eq!(bytes(Bus::Pcie, 8_000, 2), 1_969_230_769);
        assert_eq!(bytes(Bus::Pcie, 8_000, 4), 3_938_461_538);
        assert_eq!(bytes(Bus::Pcie, 16_000, 4), 7_876_923_076);
        assert_eq!(bytes(Bus::Pcie, 32_000, 4), 15_753_846_153);
        // 3.0 x2 is a quarter of 4.0 x4: the example of the issue.
        let ratio = bytes(Bus::Pcie, 8_000, 2) as f64 / bytes(Bus::Pcie, 16_000, 4) as f64;
        assert!((ratio - 0.25).abs() < 1e-9, "{ratio}");
    }

    #[test]
    fn pcie_6_and_7_count_the_flit_payload() {
        assert_eq!(bytes(Bus::Pcie, 64_000, 1), 7_562_500_000);
        assert_eq!(bytes(Bus::Pcie, 128_000, 16), 242_000_000_000);
    }

    #[test]
    fn sata_generations() {
        assert_eq!(bytes(Bus::Sata, 1_500, 1), 150_000_000);
        assert_eq!(bytes(Bus::Sata, 3_000, 1), 300_000_000);
        assert_eq!(bytes(Bus::Sata, 6_000, 1), 600_000_000);
    }

    #[test]
    fn sas_generations_and_wide_ports() {
        assert_eq!(bytes(Bus::Sas, 3_000, 1), 300_000_000);
        assert_eq!(bytes(Bus::Sas, 6_000, 1), 600_000_000);
        assert_eq!(bytes(Bus::Sas, 12_000, 1), 1_200_000_000);
        assert_eq!(bytes(Bus::Sas, 12_000, 4), 4_800_000_000);
        assert_eq!(bytes(Bus::Sas, 22_500, 1), 2_400_000_000);
    }

    #[test]
    fn usb_generations() {
        assert_eq!(bytes(Bus::Usb, 12, 1), 1_216_000);
        assert_eq!(bytes(Bus::Usb, 480, 1), 53_248_000);
        assert_eq!(bytes(Bus::Usb, 5_000, 1), 500_000_000);
        // Gen 1x2: two 5 Gb/s lanes, 8b/10b.
        assert_eq!(bytes(Bus::Usb, 5_000, 2), 1_000_000_000);
        assert_eq!(bytes(Bus::Usb, 10_000, 1), 1_212_121_212);
        // Gen 2x2: two 10 Gb/s lanes, 128b/132b.
        assert_eq!(bytes(Bus::Usb, 10_000, 2), 2_424_242_424);
    }

    #[test]
    fn unknown_rates_and_no_lanes_have_no_ceiling() {
        assert_eq!(bytes(Bus::Pcie, 7_000, 1), 0);
        assert_eq!(bytes(Bus::Sata, 12_000, 1), 0);
        assert_eq!(bytes(Bus::Usb, 1, 1), 0);
        assert_eq!(bytes(Bus::Pcie, 8_000, 0), 0);
        assert_eq!(pcie_generation(16_000), Some("4.0"));
        assert_eq!(pcie_generation(7_000), None);
    }
}
