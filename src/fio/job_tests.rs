//! Unit tests of the fio export: each knob's option, stripes, names fio would misread.

use super::*;
use crate::engine::pattern::OffsetGen;
use crate::model::Durability;
use crate::settings::{IoEngine, Settings};

fn config(threads: usize, read_pct: u8, random_pct: u8) -> ConfigReport {
    let mut c = ConfigReport {
        duration_s: Some(30.0),
        ..ConfigReport::example()
    };
    c.target.write_allowed = read_pct < 100;
    c.with_settings(Settings {
        threads,
        bs: 4096,
        read_pct,
        random_pct,
        ..Settings::default()
    })
}

/// `c` on the target `path`.
fn at(path: &str, mut c: ConfigReport) -> ConfigReport {
    c.target.path = path.into();
    c
}

#[test]
fn io_uring_carries_the_depth_and_the_registrations() {
    let c = ConfigReport {
        ioengine: IoEngine::IoUring,
        ..config(4, 100, 100)
    }
    .with_settings(Settings {
        threads: 4,
        iodepth: 32,
        ..Settings::default()
    });
    let job = job_file(&c);
    for l in [
        "ioengine=io_uring",
        "iodepth=32",
        "fixedbufs",
        "registerfiles",
    ] {
        assert!(has(&job, l), "{l} missing from\n{job}");
    }
    let psync = job_file(&config(4, 100, 100));
    assert!(
        has(&psync, "ioengine=psync") && !psync.contains("iodepth"),
        "{psync}"
    );
}

/// Polling is a setting like the depth: `hipri` in every section of a polled step, none in
/// the others, and never with psync (no ring to poll).
#[test]
fn hipri_goes_with_each_polled_sections_settings() {
    let c = ConfigReport {
        ioengine: IoEngine::IoUring,
        ..config(2, 100, 100)
    };
    let polled = Settings {
        hipri: true,
        ..c.settings
    };
    let job = job_file(&c.clone().with_settings(polled));
    // One section (numjobs=2), one hipri.
    assert_eq!(job.lines().filter(|l| *l == "hipri").count(), 1, "{job}");
    assert!(!has(&job_file(&c), "hipri"));
    let spec = crate::sweep::SweepSpec::parse("threads=1,2").unwrap();
    let sweep = FioJob::sweep(
        &c.with_settings(polled),
        &spec,
        std::time::Duration::from_secs(5),
    );
    let text = sweep.job_file();
    assert_eq!(text.lines().filter(|l| *l == "hipri").count(), 2, "{text}");
}

fn has(job: &str, line: &str) -> bool {
    job.lines().any(|x| x == line)
}

#[test]
fn settings_map_to_fio_options() {
    let job = job_file(&config(16, 100, 100));
    for l in [
        "ioengine=psync",
        "direct=1",
        "numjobs=16",
        "rw=randread",
        "bs=4096",
        "offset=0",
        "size=1073741824",
        "runtime=30s",
        "time_based",
        "invalidate=0",
        "fadvise_hint=0",
        "norandommap",
        "filename=/dev/sdb",
    ] {
        assert!(has(&job, l), "{l} missing in\n{job}");
    }
    // Random I/O covers the whole span for every job: no stripes.
    assert!(!job.contains("offset_increment"), "{job}");
    let mixed = job_file(&config(1, 70, 30));
    for l in ["rw=randrw", "rwmixread=70", "percentage_random=30"] {
        assert!(has(&mixed, l), "{l} missing in\n{mixed}");
    }
    assert!(
        mixed.contains("# fio continues a sequential run"),
        "{mixed}"
    );
    assert!(has(&job_file(&config(1, 100, 0)), "rw=read"));
    let mut buffered = ConfigReport {
        duration_s: Some(1.5),
        ..config(1, 100, 100)
    };
    buffered.target.direct = false;
    let job = job_file(&buffered);
    assert!(
        has(&job, "direct=0") && has(&job, "runtime=1500ms"),
        "{job}"
    );
    let dropped = FioJob::run(&buffered).drop_cache(true).job_file();
    assert!(has(&dropped, "invalidate=1"), "{dropped}");
    let cmd = command_line(&config(16, 100, 100));
    assert!(
        cmd.starts_with("fio --ioengine=psync --direct=1 --thread"),
        "{cmd}"
    );
    assert!(
        cmd.contains(" --name=diskscope --rw=randread --bs=4096 --numjobs=16"),
        "{cmd}"
    );
}

#[test]
fn sequential_threads_get_the_engines_stripes() {
    // 1 GiB / 4k = 262144 blocks: 4 equal stripes, back to back.
    let job = job_file(&config(4, 100, 0));
    for l in [
        "numjobs=4",
        "offset=0",
        "size=268435456",
        "offset_increment=268435456",
    ] {
        assert!(has(&job, l), "{l} missing in\n{job}");
    }
    // 3 threads: the stripes differ by a block, so one job per thread with OffsetGen's own.
    let job = job_file(&config(3, 100, 0));
    assert!(!job.contains("offset_increment"), "{job}");
    for i in 0..3 {
        let (start, len) = OffsetGen::new(1 << 30, 4096, 0, Default::default(), i, 3).stripe();
        let section = format!(
            "[diskscope-t{i}]\nrw=read\nbs=4096\nnumjobs=1\noffset={}\nsize={}\n",
            start * 4096,
            len * 4096
        );
        assert!(job.contains(&section), "{section} missing in\n{job}");
    }
    // A mix with stripes says what fio cannot copy.
    let mixed = job_file(&config(4, 100, 50));
    assert!(mixed.contains("offset_increment=268435456"), "{mixed}");
    assert!(
        mixed.contains("# fio keeps each job's random I/Os inside its stripe"),
        "{mixed}"
    );
}

#[test]
fn file_names_are_escaped_for_fio_and_quoted_for_the_shell() {
    let c = at(
        "/dev/disk/by-path/pci-0000:00:1f.2-ata-1",
        config(1, 100, 100),
    );
    let job = job_file(&c);
    assert!(
        has(&job, r"filename=/dev/disk/by-path/pci-0000\:00\:1f.2-ata-1"),
        "{job}"
    );
    let cmd = command_line(&c);
    assert!(
        cmd.contains(r"'--filename=/dev/disk/by-path/pci-0000\:00\:1f.2-ata-1'"),
        "{cmd}"
    );
    let spaced = at("/data/it's here", config(1, 100, 100));
    assert!(command_line(&spaced).contains(r"'--filename=/data/it'\''s here'"));
    assert!(has(&job_file(&spaced), "filename=/data/it's here"));
    // Names fio cannot take at all are linked under a plain name first.
    for bad in ["/data/run#2.img", "/data/a;b", "/data/${HOME}x", "/data/x "] {
        let c = at(bad, config(1, 100, 100));
        let job = job_file(&c);
        assert!(has(&job, &format!("filename={LINK}")), "{bad}: {job}");
        assert!(job.starts_with("# fio cannot name"), "{bad}: {job}");
        let cmd = command_line(&c);
        assert!(
            cmd.starts_with(&format!("ln -sfn {} {LINK} && fio ", shell_quote(bad))),
            "{cmd}"
        );
    }
    assert_eq!(fio_cannot_name("/data/$x{y}"), None);
    assert_eq!(shell_quote("--bs=4096"), "--bs=4096");
}

/// A control character in a name would end the job file's comment and the command line it
/// stands in: the shell quoting names it on one line ($'…'), and the note shows it escaped.
#[test]
fn control_characters_stay_on_one_line() {
    assert_eq!(shell_quote("/a\nb"), r"$'/a\nb'");
    assert_eq!(shell_quote("/a\tb's"), r"$'/a\tb\'s'");
    assert_eq!(shell_quote("/a\u{1b}\\b"), r"$'/a\x1b\\b'");
    assert_eq!(shell_quote("/a\u{85}b"), r"$'/a\xc2\x85b'");
    for bad in ["/data/a\nb", "/data/a\rb", "/data/\u{1b}[2J"] {
        let c = at(bad, config(1, 100, 100));
        let (job, cmd) = (job_file(&c), command_line(&c));
        assert_eq!(job.lines().next().unwrap().chars().next(), Some('#'));
        for text in [&job, &cmd] {
            assert!(
                !text.chars().any(|ch| ch.is_control() && ch != '\n'),
                "{bad:?}: {text:?}"
            );
        }
        assert_eq!(cmd.lines().count(), 1, "{cmd}");
        assert!(has(&job, &format!("filename={LINK}")), "{job}");
    }
    let refused = FioJob::fleet(&at("/data/a\nb", config(1, 100, 100))).unwrap_err();
    assert!(
        refused.starts_with(r#""/data/a\nb": fio cannot take this path"#),
        "{refused}"
    );
}

#[test]
fn a_sweep_is_one_stonewalled_group_per_step_with_the_ramp() {
    let spec = SweepSpec::parse("threads=1,2,4").unwrap();
    let job = FioJob::sweep(&config(1, 100, 0), &spec, Duration::from_secs(3)).job_file();
    for l in [
        "ramp_time=500ms",
        "runtime=3s",
        "[step1-threads-1]",
        "[step3-threads-4]",
        "offset_increment=268435456",
    ] {
        assert!(has(&job, l), "{l} missing in\n{job}");
    }
    assert_eq!(job.matches("stonewall\nnew_group\n").count(), 3, "{job}");
    let bs = SweepSpec::parse("bs=4k,64k").unwrap();
    let job = FioJob::sweep(&config(2, 100, 100), &bs, Duration::from_secs(2)).job_file();
    assert!(
        has(&job, "bs=65536") && has(&job, "[step2-bs-65536]"),
        "{job}"
    );
}

#[test]
fn durability_maps_to_fdatasync_and_end_fsync() {
    let plain = job_file(&config(1, 0, 100));
    assert!(
        !plain.contains("fdatasync") && !plain.contains("end_fsync"),
        "{plain}"
    );
    let c = ConfigReport {
        durability: Durability {
            fsync_every: 8,
            end_fsync: true,
        },
        ..config(1, 0, 100)
    };
    let job = job_file(&c);
    assert!(
        has(&job, "fdatasync=8") && has(&job, "end_fsync=1"),
        "{job}"
    );
    // io_uring: registered buffers beside a sync are fio's trap (fewer syncs sent before
    // 3.38); left out, and the job says why. Without a sync they stay.
    let uring = ConfigReport {
        ioengine: IoEngine::IoUring,
        ..c
    };
    let job = job_file(&uring);
    assert!(
        !has(&job, "fixedbufs") && has(&job, "registerfiles"),
        "{job}"
    );
    assert!(job.contains("# no fixedbufs: beside fdatasync"), "{job}");
    let plain = job_file(&ConfigReport {
        ioengine: IoEngine::IoUring,
        ..config(1, 0, 100)
    });
    assert!(
        has(&plain, "fixedbufs") && !plain.contains("no fixedbufs"),
        "{plain}"
    );
}

#[test]
fn the_fleet_job_is_the_export_over_the_whole_target_without_creating_it() {
    let c = ConfigReport {
        ioengine: IoEngine::IoUring,
        ..at("data/disk.img", config(4, 100, 100))
    }
    .with_settings(Settings {
        threads: 4,
        iodepth: 32,
        ..Settings::default()
    });
    let job = FioJob::fleet(&c).unwrap().job_file();
    for l in [
        "ioengine=io_uring",
        "iodepth=32",
        "numjobs=4",
        "size=100%",
        "allow_file_create=0",
        "lat_percentiles=1",
        // The path on each host, as given: not made absolute here.
        "filename=data/disk.img",
    ] {
        assert!(has(&job, l), "{l} missing from\n{job}");
    }
    assert_eq!(job.matches("filename=").count(), 1, "{job}");
    // The same writer as --fio: the knobs' lines are the export's.
    let export = job_file(&c);
    for l in [
        "rw=randread",
        "bs=4096",
        "direct=1",
        "fixedbufs",
        "runtime=30s",
    ] {
        assert!(has(&export, l) && has(&job, l), "{l}");
    }
    // Sequential threads get whole-percent stripes, and the unused rest is said.
    let seq = FioJob::fleet(&config(3, 100, 0)).unwrap().job_file();
    assert!(
        has(&seq, "size=33%") && has(&seq, "offset_increment=33%"),
        "{seq}"
    );
    assert!(seq.contains("the last 1% is not used"), "{seq}");
    // A name fio would misread is refused, not linked on a machine that is not the host.
    let bad = at("/srv/a;b", config(1, 100, 100));
    assert!(FioJob::fleet(&bad).unwrap_err().contains("comment"));
}

#[test]
fn the_rate_is_split_over_jobs_and_directions() {
    let rated = |threads, read_pct, rate_iops| {
        let c = config(threads, read_pct, 100);
        let s = Settings {
            rate_iops,
            ..c.settings
        };
        job_file(&c.with_settings(s))
    };
    let job = rated(4, 100, 20_000);
    assert!(has(&job, "rate_iops=5000"), "{job}");
    assert!(job.contains("service_latency_ns"), "{job}");
    // A 70/30 mix: fio caps reads and writes apart, so the pair adds up to the job's share.
    let job = rated(2, 70, 10_000);
    assert!(has(&job, "rate_iops=3500,1500"), "{job}");
    // Not divisible: fio's total is said to differ.
    let job = rated(3, 100, 10_000);
    assert!(has(&job, "rate_iops=3333"), "{job}");
    assert!(
        job.contains("make 9999 IOPS where diskscope asks 10000"),
        "{job}"
    );
    assert!(!rated(2, 100, 0).contains("rate_iops"));
}

#[test]
fn a_rate_curve_exports_its_unlimited_step_and_says_what_follows() {
    let spec = crate::sweep::SweepSpec::parse("rate=curve").unwrap();
    let job = FioJob::sweep(&config(1, 100, 100), &spec, Duration::from_secs(3)).job_file();
    assert_eq!(job.matches("stonewall").count(), 1, "{job}");
    assert!(!job.contains("rate_iops="), "{job}");
    assert!(
        job.contains("10%, 30%, 50%, 70%, 80%, 90%, 95%, 100%"),
        "{job}"
    );
}

#[test]
fn trims_are_fios_randtrim_alone_or_a_flow_controlled_job_beside_the_mix() {
    let with = |trim_pct, read_pct| {
        let c = ConfigReport {
            ioengine: IoEngine::IoUring,
            ..config(2, read_pct, 100)
        };
        let s = Settings {
            trim_pct,
            ..c.settings
        };
        c.with_settings(s)
    };
    let only = job_file(&with(100, 100));
    assert!(
        has(&only, "rw=randtrim") && has(&only, "fixedbufs=0"),
        "{only}"
    );
    assert!(
        !only.contains("rwmixread") && !only.contains("flow"),
        "{only}"
    );
    let paired = job_file(&with(50, 0));
    assert!(has(&paired, "rw=randtrimwrite"), "{paired}");
    assert!(
        paired.contains("# fio's trimwrite writes each block right after"),
        "{paired}"
    );
    let mixed = job_file(&with(30, 50));
    let sections: Vec<&str> = mixed.split("\n[").skip(1).collect();
    assert_eq!(sections.len(), 3, "global, the mix, the trims: {mixed}");
    assert!(sections[1].starts_with("diskscope]") && sections[1].contains("\nrw=randrw\n"));
    assert!(sections[1].contains("\nrwmixread=50\n") && sections[1].contains("\nflow=70\n"));
    assert!(!sections[1].contains("fixedbufs=0"), "{mixed}");
    assert!(sections[2].starts_with("diskscope-trim]") && sections[2].contains("\nrw=randtrim\n"));
    assert!(sections[2].contains("\nflow=30\n") && sections[2].contains("\nfixedbufs=0\n"));
    assert!(
        mixed.contains("# fio has no share of trims inside a read/write mix"),
        "{mixed}"
    );
    // No trims: the job as it always was.
    assert!(!job_file(&with(0, 50)).contains("flow"));
}
