use super::*;
use crate::findings::health_changes::changes;

fn texts(f: &[Finding]) -> Vec<&str> {
    f.iter().map(|f| f.text.as_str()).collect()
}

fn used_hdd() -> HealthRecord {
    HealthRecord {
        power_on_hours: Some(23_456),
        power_cycles: Some(1204),
        written_bytes: Some(412_160_000_000_000),
        passed: Some(true),
        ..HealthRecord::default()
    }
}

#[test]
fn a_used_drive_says_its_hours_cycles_and_writes() {
    let f = record_findings(&used_hdd());
    assert_eq!(
        texts(&f),
        ["has run 23,456 hours (2.7 years) over 1,204 power cycles and written 412 TB"]
    );
    assert_eq!(f[0].kind, kind::HEALTH_NOT_NEW);
    assert_eq!(verdict(&used_hdd()), Verdict::Ok);
    let fresh = HealthRecord {
        power_on_hours: Some(3),
        power_cycles: Some(2),
        written_bytes: Some(1_000_000),
        passed: Some(true),
        ..HealthRecord::default()
    };
    assert!(
        record_findings(&fresh).is_empty(),
        "a new drive is not judged used"
    );
}

#[test]
fn farm_hours_above_smart_hours_say_they_were_reset() {
    let r = HealthRecord {
        power_on_hours: Some(12),
        farm_power_on_hours: Some(23_456),
        ..HealthRecord::default()
    };
    let f = record_findings(&r);
    assert_eq!(
        texts(&f),
        ["SMART says 12 hours, the drive's FARM log says 23,456: the SMART hours were reset"]
    );
    assert_eq!(verdict(&r), Verdict::Worn);
    // Within a day of each other is the two clocks, not a reset.
    let close = HealthRecord {
        power_on_hours: Some(5000),
        farm_power_on_hours: Some(5010),
        ..HealthRecord::default()
    };
    assert!(hours_reset(&close).is_none());
    // FARM far below SMART: the two records disagree, said as such, not as a reset.
    let lower = HealthRecord {
        power_on_hours: Some(30_000),
        farm_power_on_hours: Some(5),
        ..HealthRecord::default()
    };
    let f = record_findings(&lower);
    assert!(
        f.iter().any(|f| f.kind == kind::HEALTH_HOURS_RESET
            && f.text.starts_with(
                "SMART says 30,000 hours, the drive's FARM log says 5: its two records"
            )),
        "{f:?}"
    );
}

/// Whatever the warning bits, spare, wear and verdict, a record judged anything but ok or
/// unknown says why in a finding (bit 0x01 alone once read "failing" with no reason).
#[test]
fn every_verdict_but_ok_comes_with_its_reason() {
    for warn in 0..=255u8 {
        for used in [None, Some(5), Some(95), Some(120)] {
            for passed in [None, Some(true), Some(false)] {
                let r = HealthRecord {
                    critical_warning: Some(warn),
                    percentage_used: used,
                    passed,
                    ..HealthRecord::default()
                };
                let v = verdict(&r);
                if matches!(v, Verdict::Failing | Verdict::Worn) {
                    let f = record_findings(&r);
                    let serious = f.iter().any(|f| {
                        [
                            kind::HEALTH_FAILING,
                            kind::HEALTH_WARNING,
                            kind::HEALTH_WORN,
                        ]
                        .contains(&f.kind.as_str())
                    });
                    assert!(
                        serious,
                        "{warn:#04x} used {used:?} passed {passed:?}: {v:?} with {f:?}"
                    );
                }
            }
        }
        if warn != 0 {
            let f = record_findings(&HealthRecord {
                critical_warning: Some(warn),
                ..HealthRecord::default()
            });
            for bit in (0..8)
                .map(|b| 1u8 << b)
                .filter(|b| warn & b != 0 && *b <= 0x20)
            {
                assert!(
                    f.iter().any(|f| f.text.contains(&format!("0x{bit:02x}"))),
                    "{warn:#04x}: bit {bit:#04x} unsaid in {f:?}"
                );
            }
        }
    }
}

#[test]
fn bad_sectors_read_as_failing_and_remapped_ones_as_worn() {
    let mut r = HealthRecord::default();
    r.set_counter(counter::REALLOCATED, "Reallocated_Sector_Ct", Some(5), 8);
    assert_eq!(verdict(&r), Verdict::Worn);
    r.set_counter(counter::PENDING, "Current_Pending_Sector", Some(197), 1);
    assert_eq!(verdict(&r), Verdict::Failing);
    let f = record_findings(&r);
    assert_eq!(f[0].kind, kind::HEALTH_FAILING, "failing first: {f:?}");
    assert!(
        f[0].text.starts_with("1 sector pending reallocation: "),
        "{f:?}"
    );
    assert!(f[1].text.starts_with("8 reallocated sectors: "), "{f:?}");
}

#[test]
fn crc_errors_blame_the_cable_and_leave_the_drive_ok() {
    let mut r = HealthRecord::default();
    r.set_counter(counter::UDMA_CRC, "UDMA_CRC_Error_Count", Some(199), 3);
    assert_eq!(verdict(&r), Verdict::Ok);
    assert_eq!(
        texts(&record_findings(&r)),
        ["3 UDMA CRC errors over its life: the cable or backplane, not the drive"]
    );
}

#[test]
fn endurance_at_100_is_worn_not_failing_and_explains_bit_0x04() {
    let r = HealthRecord {
        percentage_used: Some(100),
        critical_warning: Some(cw::RELIABILITY_DEGRADED),
        available_spare_pct: Some(100),
        available_spare_threshold_pct: Some(10),
        ..HealthRecord::default()
    };
    assert_eq!(verdict(&r), Verdict::Worn);
    let f = record_findings(&r);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].text.contains("has used 100% of its rated endurance"));
    assert!(f[0].text.contains("smartmontools#537"));
    // The same bit below 100% is the drive saying it degraded.
    let degraded = HealthRecord {
        percentage_used: Some(12),
        ..r.clone()
    };
    assert_eq!(verdict(&degraded), Verdict::Failing);
    let near = HealthRecord {
        percentage_used: Some(93),
        critical_warning: Some(0),
        ..r
    };
    assert_eq!(verdict(&near), Verdict::Worn);
    assert_eq!(
        texts(&record_findings(&near)),
        ["has used 93% of its rated endurance: near its rated writes"]
    );
}

#[test]
fn every_critical_warning_bit_is_said_and_spare_below_threshold_fails() {
    for (bit, words, v) in [
        (cw::TEMPERATURE, "a temperature is outside", Verdict::Ok),
        (
            cw::RELIABILITY_DEGRADED,
            "reliability degraded",
            Verdict::Failing,
        ),
        (cw::READ_ONLY, "read-only", Verdict::Failing),
        (
            cw::VOLATILE_BACKUP_FAILED,
            "backup failed",
            Verdict::Failing,
        ),
        (cw::PMR_READ_ONLY, "persistent memory region", Verdict::Ok),
    ] {
        let r = HealthRecord {
            critical_warning: Some(bit),
            ..HealthRecord::default()
        };
        let f = record_findings(&r);
        assert!(
            f.iter()
                .any(|f| f.text.contains(words) && f.text.contains(&format!("0x{bit:02x}"))),
            "{bit:#x}: {f:?}"
        );
        assert_eq!(verdict(&r), v, "{bit:#x}");
    }
    let low = HealthRecord {
        available_spare_pct: Some(5),
        available_spare_threshold_pct: Some(10),
        critical_warning: Some(cw::SPARE_BELOW_THRESHOLD),
        ..HealthRecord::default()
    };
    assert_eq!(verdict(&low), Verdict::Failing);
    assert!(
        texts(&record_findings(&low))[0]
            .starts_with("available spare 5% is below its threshold of 10%")
    );
}

#[test]
fn a_failed_self_assessment_is_failing() {
    let r = HealthRecord {
        passed: Some(false),
        ..HealthRecord::default()
    };
    assert_eq!(verdict(&r), Verdict::Failing);
    assert!(record_findings(&r)[0].text.contains("FAILING"));
}

#[test]
fn counters_that_moved_are_findings_with_their_time() {
    let mut a = HealthRecord::default();
    a.set_counter(counter::UDMA_CRC, "UDMA_CRC_Error_Count", Some(199), 4);
    a.set_counter(counter::MEDIA_ERRORS, "media errors", None, 0);
    a.set_counter(counter::REALLOCATED, "Reallocated_Sector_Ct", Some(5), 0);
    let mut b = a.clone();
    b.set_counter(counter::UDMA_CRC, "UDMA_CRC_Error_Count", Some(199), 7);
    b.set_counter(counter::MEDIA_ERRORS, "media errors", None, 2);
    let whole = changes(&a, &b, 61.0, true);
    assert_eq!(
        texts(&whole),
        [
            "2 new media errors during the run: data the drive could not recover",
            "3 new UDMA CRC errors during the run: the cable or backplane, not the drive",
        ]
    );
    assert!(
        whole
            .iter()
            .all(|f| f.at_s == Some(61.0) && f.kind == kind::HEALTH_CHANGED)
    );
    let mid = changes(&a, &b, 42.0, false);
    assert!(
        mid[0].text.starts_with("2 new media errors at 0:42"),
        "{mid:?}"
    );
    assert!(changes(&a, &a, 42.0, false).is_empty());
}

#[test]
fn counters_or_hours_that_go_down_are_said_not_taken_as_no_news() {
    let mut a = HealthRecord {
        power_on_hours: Some(31_002),
        ..HealthRecord::default()
    };
    a.set_counter(counter::UDMA_CRC, "UDMA_CRC_Error_Count", Some(199), 7);
    let mut b = a.clone();
    b.power_on_hours = Some(12);
    b.set_counter(counter::UDMA_CRC, "UDMA_CRC_Error_Count", Some(199), 0);
    assert_eq!(
        texts(&changes(&a, &b, 42.0, false)),
        [
            "power-on hours went down from 31,002 to 12 at 0:42: a drive's own counts only \
             rise, so its record was reset or it does not tell the truth",
            "UDMA_CRC_Error_Count went down from 7 to 0 at 0:42: a drive's own counts only \
             rise, so its record was reset or it does not tell the truth",
        ]
    );
}

#[test]
fn another_drive_answering_is_said_and_its_figures_not_compared() {
    let mut a = HealthRecord {
        serial: Some("S3Z1NB0K000001X".into()),
        ..HealthRecord::default()
    };
    a.set_counter(counter::MEDIA_ERRORS, "media errors", None, 0);
    let mut b = a.clone();
    b.serial = Some("WKD0XXXX".into());
    b.set_counter(counter::MEDIA_ERRORS, "media errors", None, 40);
    assert_eq!(
        texts(&changes(&a, &b, 61.0, true)),
        [
            "another drive answered during the run: its serial number is not the one read at \
          the start, so its figures are not compared with those"
        ]
    );
}

#[test]
fn a_warning_bit_or_verdict_that_appears_during_the_run_is_said() {
    let nvme = |bits| HealthRecord {
        critical_warning: Some(bits),
        passed: Some(bits == 0),
        ..HealthRecord::default()
    };
    assert_eq!(
        texts(&changes(&nvme(0), &nvme(cw::READ_ONLY), 90.0, false)),
        ["critical warning 0x08 set at 1:30"],
        "smartctl's verdict on NVMe follows the bits: said once"
    );
    let ata = |passed| HealthRecord {
        passed: Some(passed),
        ..HealthRecord::default()
    };
    assert_eq!(
        texts(&changes(&ata(true), &ata(false), 90.0, false)),
        ["the drive's SMART self-assessment turned to FAILING at 1:30"]
    );
}

#[test]
fn smartctls_failed_verdict_on_nvme_is_read_from_the_bits() {
    // smartctl says "passed: false" for any critical warning, 0x04 at 100% used included.
    let r = HealthRecord {
        passed: Some(false),
        percentage_used: Some(100),
        critical_warning: Some(cw::RELIABILITY_DEGRADED),
        ..HealthRecord::default()
    };
    assert_eq!(verdict(&r), Verdict::Worn);
    assert!(
        record_findings(&r)
            .iter()
            .all(|f| !f.text.contains("FAILING"))
    );
}

#[test]
fn a_record_without_verdict_counters_or_wear_is_unknown_whatever_its_hours() {
    let silent = HealthRecord {
        power_on_hours: Some(9120),
        model: Some("Generic USB3.0 Bridge".into()),
        ..HealthRecord::default()
    };
    assert_eq!(verdict(&silent), Verdict::Unknown);
    let said = record_findings(&silent);
    assert_eq!(said[0].kind, kind::HEALTH_UNKNOWN, "{said:?}");
    assert!(
        said.iter().any(|f| f.kind == kind::HEALTH_NOT_NEW),
        "{said:?}"
    );
    let passed = HealthRecord {
        passed: Some(true),
        ..silent
    };
    assert_eq!(verdict(&passed), Verdict::Ok);
    assert!(
        record_findings(&passed)
            .iter()
            .all(|f| f.kind != kind::HEALTH_UNKNOWN)
    );
}
