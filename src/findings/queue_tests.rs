use super::*;

fn settings() -> QueueSettings {
    QueueSettings {
        bs_bytes: 4096,
        threads: 1,
        iodepth: 1,
        write_pct: 0,
        random_pct: 100,
        fsync_every: 0,
    }
}

fn kinds(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.kind.as_str()).collect()
}

#[test]
fn blocks_above_max_sectors_kb_are_split_and_below_are_not() {
    let limits = QueueLimits {
        max_sectors_kb: Some(1024),
        ..QueueLimits::default()
    };
    let big = QueueSettings {
        bs_bytes: 4 << 20,
        ..settings()
    };
    let f = split(&limits, &big).unwrap();
    assert_eq!(f.kind, "queue_split");
    assert_eq!(
        f.text,
        "4 MiB blocks are split into 4 requests of 1 MiB (max_sectors_kb 1024): the disk sees 1 MiB I/Os"
    );
    for bs in [4096, 1 << 20] {
        assert!(
            split(
                &limits,
                &QueueSettings {
                    bs_bytes: bs,
                    ..settings()
                }
            )
            .is_none(),
            "{bs}"
        );
    }
    let odd = QueueSettings {
        bs_bytes: 3 << 20,
        ..settings()
    };
    let nvme = QueueLimits {
        max_sectors_kb: Some(1280),
        ..QueueLimits::default()
    };
    assert_eq!(
        split(&nvme, &odd).unwrap().text,
        "3 MiB blocks are split into 3 requests (2 of 1280 KiB and one of 512 KiB) \
         (max_sectors_kb 1280): the disk sees I/Os of at most 1280 KiB"
    );
    assert!(
        split(&QueueLimits::default(), &big).is_none(),
        "unknown limit"
    );
    let zero = QueueLimits {
        max_sectors_kb: Some(0),
        ..QueueLimits::default()
    };
    assert!(split(&zero, &big).is_none(), "a zero limit is not a limit");
}

#[test]
fn a_split_says_how_far_the_limit_can_be_raised() {
    let limits = QueueLimits {
        max_sectors_kb: Some(1024),
        max_hw_sectors_kb: Some(2048),
        ..QueueLimits::default()
    };
    let f = split(
        &limits,
        &QueueSettings {
            bs_bytes: 2 << 20,
            ..settings()
        },
    )
    .unwrap();
    assert!(
        f.text.ends_with(
            "; the hardware takes up to 2 MiB (max_hw_sectors_kb 2048), so writing 2048 to \
             queue/max_sectors_kb sends 2 MiB requests"
        ),
        "{}",
        f.text
    );
}

#[test]
fn more_in_flight_than_the_device_holds_waits_in_the_kernel() {
    let limits = QueueLimits {
        nr_requests: Some(64),
        nr_hw_queues: Some(1),
        ..QueueLimits::default()
    };
    let deep = QueueSettings {
        threads: 4,
        iodepth: 64,
        ..settings()
    };
    assert_eq!(
        kernel_queue(&limits, &deep).unwrap().text,
        "256 in flight asked, the device queue holds 64 (nr_requests): latency above that is \
         the kernel's queue"
    );
    let fits = QueueSettings {
        threads: 2,
        iodepth: 32,
        ..settings()
    };
    assert!(kernel_queue(&limits, &fits).is_none(), "64 fit in 64");
    // SATA: NCQ holds 32 although the kernel allocates 64 requests.
    let sata = QueueLimits {
        nr_tags: Some(32),
        ..limits.clone()
    };
    assert!(
        kernel_queue(&sata, &fits)
            .unwrap()
            .text
            .starts_with("64 in flight asked, the device queue holds 32 (nr_tags)")
    );
}

#[test]
fn many_hardware_queues_are_counted_and_unknown_ones_are_not_guessed() {
    let nvme = QueueLimits {
        nr_requests: Some(1023),
        nr_hw_queues: Some(8),
        ..QueueLimits::default()
    };
    let wide = QueueSettings {
        threads: 16,
        iodepth: 256,
        ..settings()
    };
    assert!(kernel_queue(&nvme, &wide).is_none(), "4096 fit in 8 × 1023");
    let wider = QueueSettings {
        threads: 64,
        iodepth: 256,
        ..settings()
    };
    assert_eq!(
        kernel_queue(&nvme, &wider).unwrap().text,
        "16384 in flight asked, the device's 8 queues hold 1023 each (nr_requests): latency \
         above that is the kernel's queue"
    );
    // Queues unknown: only one thread alone over a queue's depth surely crosses.
    let unknown = QueueLimits {
        nr_hw_queues: None,
        nr_requests: Some(64),
        ..QueueLimits::default()
    };
    assert!(
        kernel_queue(
            &unknown,
            &QueueSettings {
                threads: 8,
                iodepth: 32,
                ..settings()
            }
        )
        .is_none()
    );
    assert_eq!(
        kernel_queue(
            &unknown,
            &QueueSettings {
                threads: 8,
                iodepth: 128,
                ..settings()
            }
        )
        .unwrap()
        .text,
        "128 in flight per thread asked, the device queue holds 64 (nr_requests): latency above \
         that is the kernel's queue"
    );
}

#[test]
fn a_volatile_write_cache_is_named_beside_writes_and_syncs() {
    let back = QueueLimits {
        write_cache: Some("write back\n".into()),
        ..QueueLimits::default()
    };
    let writes = QueueSettings {
        write_pct: 30,
        ..settings()
    };
    let f = volatile_write_cache(&back, &writes).unwrap();
    assert_eq!(f.kind, "volatile_write_cache");
    assert!(
        f.text.contains("acknowledged from the drive's RAM"),
        "{}",
        f.text
    );
    let synced = QueueSettings {
        fsync_every: 1,
        ..writes
    };
    assert!(
        volatile_write_cache(&back, &synced)
            .unwrap()
            .text
            .contains("each --fsync flushes that cache")
    );
    assert!(
        volatile_write_cache(&back, &settings()).is_none(),
        "reads only"
    );
    let through = QueueLimits {
        write_cache: Some("write through".into()),
        ..QueueLimits::default()
    };
    assert!(volatile_write_cache(&through, &writes).is_none());
    assert!(volatile_write_cache(&QueueLimits::default(), &writes).is_none());
}

#[test]
fn a_rotational_flag_the_timing_contradicts() {
    let flagged = QueueLimits {
        rotational: Some(true),
        ..QueueLimits::default()
    };
    let fast = Observed {
        read_latency_p50_ns: Some(90_000.0),
        span_bytes: Some(100 << 30),
    };
    let f = rotational_flag(&flagged, &settings(), &fast).unwrap();
    assert_eq!(f.kind, "rotational_flag");
    assert!(
        f.text.starts_with(
            "the kernel treats it as a spinning disk (rotational=1), but random reads at \
             90.0 µs say otherwise: even at 15,000 rpm a disk needs 2.00 ms on average for \
             half a turn."
        ),
        "{}",
        f.text
    );
    let slow = Observed {
        read_latency_p50_ns: Some(4_200_000.0),
        ..fast
    };
    assert!(
        rotational_flag(&flagged, &settings(), &slow).is_none(),
        "a real disk"
    );
    let cached = Observed {
        span_bytes: Some(256 << 20),
        ..fast
    };
    assert!(
        rotational_flag(&flagged, &settings(), &cached).is_none(),
        "its cache could answer"
    );
    let seq = QueueSettings {
        random_pct: 0,
        ..settings()
    };
    assert!(
        rotational_flag(&flagged, &seq, &fast).is_none(),
        "read-ahead could answer"
    );
    let unflagged = QueueLimits {
        rotational: Some(false),
        ..QueueLimits::default()
    };
    assert!(rotational_flag(&unflagged, &settings(), &fast).is_none());
    assert!(rotational_flag(&flagged, &settings(), &Observed::default()).is_none());
}

#[test]
fn nothing_crossed_nothing_said() {
    let limits = QueueLimits {
        max_sectors_kb: Some(1280),
        max_hw_sectors_kb: Some(2048),
        nr_requests: Some(1023),
        nr_hw_queues: Some(4),
        write_cache: Some("write through".into()),
        fua: Some(true),
        rotational: Some(false),
        ..QueueLimits::default()
    };
    let observed = Observed {
        read_latency_p50_ns: Some(80_000.0),
        span_bytes: Some(1 << 40),
    };
    assert!(queue_findings(&limits, &settings(), &observed, &Default::default()).is_empty());
    let crossing = QueueLimits {
        max_sectors_kb: Some(128),
        nr_requests: Some(32),
        write_cache: Some("write back".into()),
        rotational: Some(true),
        ..limits
    };
    let all = QueueSettings {
        bs_bytes: 1 << 20,
        iodepth: 64,
        write_pct: 50,
        ..settings()
    };
    assert_eq!(
        kinds(&queue_findings(
            &crossing,
            &all,
            &observed,
            &crate::findings::conditions::Conditions::default().with_rows(1)
        )),
        [
            "queue_split",
            "kernel_queue",
            "volatile_write_cache",
            "rotational_flag"
        ]
    );
}
