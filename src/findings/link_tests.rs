use super::*;

/// PCIe usable bytes/s: GT/s × lanes × encoding / 8 (8b/10b to 2.0, 128b/130b from 3.0).
fn pcie(gt_s: f64, lanes: u32) -> f64 {
    let encoding = if gt_s <= 5.0 {
        8.0 / 10.0
    } else {
        128.0 / 130.0
    };
    gt_s * 1e9 * f64::from(lanes) * encoding / 8.0
}

fn pcie_link(now: (&str, u32), max: (&str, u32)) -> LinkInput {
    let gt = |s: &str| speed_value(s).unwrap();
    LinkInput {
        kind: LinkKind::Pcie,
        speed: Some(now.0.into()),
        max_speed: Some(max.0.into()),
        width: Some(now.1),
        max_width: Some(max.1),
        ceiling_bytes_per_s: Some(pcie(gt(now.0), now.1)),
        max_ceiling_bytes_per_s: Some(pcie(gt(max.0), max.1)),
    }
}

fn below(link: &LinkInput) -> String {
    link_below_max(link).map(|f| f.text).unwrap_or_default()
}

#[test]
fn a_pcie_link_below_its_maximum_says_how_far_in_words() {
    let f = link_below_max(&pcie_link(("8.0 GT/s PCIe", 2), ("16.0 GT/s PCIe", 4))).unwrap();
    assert_eq!(f.kind, "link_below_max");
    assert_eq!(
        f.text,
        "PCIe link trained at 8.0 GT/s x2, the drive can do 16.0 GT/s x4: the slot, riser or \
         BIOS setting leaves it a quarter of its bandwidth"
    );
    // Each generation against the next ones, older kernels' "8 GT/s" text included.
    let cases = [
        (("2.5 GT/s", 4), ("5 GT/s", 4), "half"),
        (("5 GT/s", 4), ("8 GT/s", 4), "half"),
        (("8 GT/s", 4), ("16 GT/s", 4), "half"),
        (("16.0 GT/s PCIe", 4), ("32.0 GT/s PCIe", 4), "half"),
        (("32.0 GT/s PCIe", 2), ("64.0 GT/s PCIe", 4), "a quarter"),
        (("8.0 GT/s PCIe", 1), ("16.0 GT/s PCIe", 4), "an eighth"),
        (("2.5 GT/s PCIe", 1), ("8.0 GT/s PCIe", 4), "a sixteenth"),
        (("8.0 GT/s PCIe", 12), ("8.0 GT/s PCIe", 16), "75%"),
    ];
    for (now, max, words) in cases {
        let text = below(&pcie_link(now, max));
        assert!(
            text.ends_with(&format!("leaves it {words} of its bandwidth")),
            "{now:?} {max:?}: {text}"
        );
    }
    assert!(below(&pcie_link(("5 GT/s", 4), ("8 GT/s", 4))).contains("trained at 5.0 GT/s x4"));
}

#[test]
fn a_pcie_link_at_its_maximum_or_unknown_says_nothing() {
    assert!(link_below_max(&pcie_link(("16.0 GT/s PCIe", 4), ("16.0 GT/s PCIe", 4))).is_none());
    let mut unknown = pcie_link(("8.0 GT/s PCIe", 2), ("16.0 GT/s PCIe", 4));
    unknown.speed = Some("Unknown".into());
    assert!(
        link_below_max(&unknown).is_none(),
        "no words for an unknown speed"
    );
    unknown.max_ceiling_bytes_per_s = None;
    unknown.max_speed = None;
    assert!(link_below_max(&unknown).is_none());
    // Without ceilings, widths at the same speed still tell.
    let mut widths = pcie_link(("8.0 GT/s PCIe", 2), ("8.0 GT/s PCIe", 4));
    widths.ceiling_bytes_per_s = None;
    widths.max_ceiling_bytes_per_s = None;
    assert!(below(&widths).ends_with("leaves it half of its bandwidth"));
}

#[test]
fn sata_sas_and_usb_3_links_below_their_maximum() {
    let sata = LinkInput {
        kind: LinkKind::Sata,
        speed: Some("3.0 Gbps".into()),
        max_speed: Some("6.0 Gbps".into()),
        ceiling_bytes_per_s: Some(300e6),
        max_ceiling_bytes_per_s: Some(600e6),
        ..LinkInput::default()
    };
    assert_eq!(
        below(&sata),
        "SATA link at 3 Gb/s, the port and drive can do 6 Gb/s: a cable or backplane, or a \
         limit the kernel set after link errors, leaves it half of its bandwidth"
    );
    let sas = LinkInput {
        kind: LinkKind::Sas,
        speed: Some("6.0 Gbit".into()),
        max_speed: Some("12.0 Gbit".into()),
        ceiling_bytes_per_s: Some(600e6),
        max_ceiling_bytes_per_s: Some(1200e6),
        ..LinkInput::default()
    };
    assert!(below(&sas).starts_with("SAS link at 6 Gb/s, the phy can do 12 Gb/s: "));
    let usb3 = LinkInput {
        kind: LinkKind::Usb,
        speed: Some("5000".into()),
        max_speed: Some("10000".into()),
        ceiling_bytes_per_s: Some(500e6),
        max_ceiling_bytes_per_s: Some(1212e6),
        ..LinkInput::default()
    };
    assert!(below(&usb3).starts_with("USB link at 5 Gb/s, the port and drive can do 10 Gb/s: "));
    assert!(below(&usb3).ends_with("leaves it 41% of its bandwidth"));
}

#[test]
fn a_usb_2_or_1_link_is_slow_whatever_the_drive() {
    let usb = |speed: &str| LinkInput {
        kind: LinkKind::Usb,
        speed: Some(speed.into()),
        ceiling_bytes_per_s: Some(60e6),
        ..LinkInput::default()
    };
    let f = link_below_max(&usb("480")).unwrap();
    assert_eq!(f.kind, "link_usb2");
    assert_eq!(
        f.text,
        "USB 2.0 link (480 Mbit/s): about 40 MB/s whatever the drive; a USB 3 port and cable \
         lift that limit for a drive that supports USB 3"
    );
    assert!(below(&usb("12")).starts_with("USB 1.1 link (12 Mbit/s): about 1 MB/s"));
    assert!(link_below_max(&usb("5000")).is_none());
}

#[test]
fn virtual_and_unknown_links_are_never_judged() {
    for kind in [LinkKind::Virtual, LinkKind::Unknown] {
        let link = LinkInput {
            kind,
            ceiling_bytes_per_s: Some(1e9),
            max_ceiling_bytes_per_s: Some(4e9),
            ..LinkInput::default()
        };
        assert!(link_below_max(&link).is_none());
        assert!(
            link_bound(
                &LinkInput {
                    kind,
                    ..LinkInput::default()
                },
                1e12,
                0.0
            )
            .is_none()
        );
    }
}

#[test]
fn bandwidth_at_the_ceiling_is_the_link_below_it_is_not() {
    let link = pcie_link(("8.0 GT/s PCIe", 2), ("16.0 GT/s PCIe", 4));
    let f = link_bound(&link, 1.91e9, 0.0).unwrap();
    assert_eq!(f.kind, "link_bound");
    assert_eq!(
        f.text,
        "1.91 GB/s is 97% of the link's 1.97 GB/s: the link, not the disk, is the limit"
    );
    assert!(link_bound(&link, 1.7e9, 0.0).is_none(), "86%");
    assert_eq!(
        link_bound(&link, 0.0, 1.8e9).unwrap().kind,
        "link_bound",
        "writes too"
    );
    let over = link_bound(&link, 2.5e9, 0.0).unwrap();
    assert_eq!(over.kind, "above_link");
    assert!(
        over.text
            .starts_with("2.50 GB/s is more than the link's 1.97 GB/s can carry")
    );
}

#[test]
fn full_duplex_links_are_judged_per_direction_half_duplex_on_the_sum() {
    let pcie = pcie_link(("8.0 GT/s PCIe", 2), ("8.0 GT/s PCIe", 2));
    assert!(link_bound(&pcie, 1.2e9, 1.2e9).is_none(), "each way is 61%");
    assert_eq!(
        link_bound(&pcie, 1.9e9, 1.0e9).unwrap().text,
        "1.90 GB/s of reads is 96% of the link's 1.97 GB/s each way: the link, not the disk, \
         is the limit"
    );
    let sata = LinkInput {
        kind: LinkKind::Sata,
        ceiling_bytes_per_s: Some(600e6),
        ..LinkInput::default()
    };
    assert_eq!(
        link_bound(&sata, 300e6, 260e6).unwrap().text,
        "560 MB/s of reads and writes together (the link carries one direction at a time) is \
         93% of the link's 600 MB/s: the link, not the disk, is the limit"
    );
    // USB 2 is judged against its practical bound, not the raw 60 MB/s.
    let usb2 = LinkInput {
        kind: LinkKind::Usb,
        speed: Some("480".into()),
        ceiling_bytes_per_s: Some(60e6),
        ..LinkInput::default()
    };
    assert_eq!(
        link_bound(&usb2, 38e6, 0.0).unwrap().text,
        "38.0 MB/s is 95% of the link's practical 40.0 MB/s: the link, not the disk, is the limit"
    );
}

/// One-second intervals of reads at `(seconds, bytes/s)`, key 1.
fn reads(runs: &[(usize, f64)]) -> Vec<Interval> {
    let mut out = Vec::new();
    for &(secs, bw) in runs {
        for _ in 0..secs {
            out.push(Interval {
                t_s: out.len() as f64 + 1.0,
                elapsed_s: 1.0,
                key: 1,
                bytes: bw as u64,
                ..Interval::default()
            });
        }
    }
    out
}

#[test]
fn over_a_series_only_a_sustained_figure_counts() {
    let link = pcie_link(("8.0 GT/s PCIe", 2), ("8.0 GT/s PCIe", 2));
    let lucky = reads(&[(20, 1.5e9), (1, 1.96e9), (20, 1.5e9)]);
    assert!(
        link_bound_in(&link, &lucky).is_none(),
        "one second is not the limit"
    );
    let held = reads(&[(5, 1.5e9), (15, 1.91e9)]);
    let f = link_bound_in(&link, &held).unwrap();
    assert!(
        f.text
            .starts_with("1.91 GB/s is 97% of the link's 1.97 GB/s"),
        "{}",
        f.text
    );
    assert!(
        link_bound_in(&link, &reads(&[(5, 1.91e9)])).is_none(),
        "5 s is no window"
    );
}
