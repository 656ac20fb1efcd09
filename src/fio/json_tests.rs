use super::*;

const JOB: &str = r#"{"jobname":"d","groupid":0,"error":0,"job_runtime":1000,
    "read":{"io_bytes":8192,"total_ios":2,"runtime":1000,"iops":2.0,"bw_bytes":8192,
            "lat_ns":{"mean":500.0},"clat_ns":{"mean":400.0,"percentile":{"50.000000":300,"99.000000":900}}},
    "write":{"io_bytes":0,"total_ios":0,"runtime":0,"iops":0,"bw_bytes":0,"lat_ns":{"mean":0}}}"#;

/// `JOB` with `ios` 4 KiB reads over `ms`, on `host` (none: local), in `group`, its job
/// options listed `marker` times.
fn job(host: Option<&str>, ios: u64, ms: u64, group: u64, marker: usize) -> String {
    let mut j = JOB
        .replace("\"total_ios\":2", &format!("\"total_ios\":{ios}"))
        .replace("\"io_bytes\":8192", &format!("\"io_bytes\":{}", ios * 4096))
        .replace("\"runtime\":1000", &format!("\"runtime\":{ms}"))
        .replace("\"groupid\":0", &format!("\"groupid\":{group}"));
    if let Some(h) = host {
        j = j.replace(
            "\"jobname\":\"d\"",
            &format!("\"jobname\":\"d\",\"hostname\":\"{h}\",\"port\":8765"),
        );
    }
    if marker > 0 {
        let opts = vec![r#""rw":"randread","bs":"4096""#; marker].join(",");
        j = j.replace(
            "\"error\":0",
            &format!("\"error\":0,\"job options\":{{{opts}}}"),
        );
    }
    j
}

fn local(jobs: &[String]) -> String {
    format!(
        r#"{{"fio version":"fio-3.33","jobs":[{}]}}"#,
        jobs.join(",")
    )
}

fn client_server(jobs: &[String]) -> String {
    format!(
        r#"{{"fio version":"fio-3.33","client_stats":[{}]}}"#,
        jobs.join(",")
    )
}

#[test]
fn junk_around_and_between_documents_is_skipped() {
    let doc = local(&[JOB.to_string()]);
    let text = format!("fio: some error {{oops\n{doc}\nJobs: 1\n{doc}\ntrailing");
    assert_eq!(documents(&text).len(), 2);
    let out = parse(&text).unwrap();
    assert!(!out.client_server);
    assert_eq!(out.snapshots.len(), 2);
    assert_eq!(out.finals().len(), 1);
    let e = &out.finals()[0].jobs[0];
    assert_eq!((e.ios(), e.io_bytes(), e.runtime_ms), (2, 8192, 1000));
    assert_eq!(e.basis, PercentileBasis::Clat);
    assert_eq!(e.lat_p99_ns(), Some(900.0));
    assert_eq!(e.lat_mean_ns(), 500.0);
}

/// `numjobs=3` without `group_reporting`: three entries named alike, all three counted.
#[test]
fn jobs_of_one_name_are_every_entry() {
    let text = local(&[
        job(None, 100, 1000, 0, 0),
        job(None, 120, 1001, 0, 0),
        job(None, 130, 999, 0, 0),
    ]);
    let out = parse(&text).unwrap();
    let finals = out.finals();
    assert_eq!(finals.len(), 1);
    assert_eq!(finals[0].jobs.len(), 3);
    let sum = finals[0].sum();
    assert_eq!((sum.ios(), sum.job_count), (350, 3));
    // fio's group way: the longest runtime, the rate over it.
    assert_eq!(sum.runtime_ms, 1001);
    assert!((sum.iops() - 350.0 * 1000.0 / 1001.0).abs() < 1e-9);
    assert_eq!(sum.jobname, "d");
}

/// Stonewalled groups run one after the other: their runtimes add.
#[test]
fn groups_add_their_runtimes() {
    let text = local(&[
        job(None, 100, 1000, 0, 0),
        job(None, 100, 1000, 0, 0),
        job(None, 50, 500, 1, 0),
    ]);
    let out = parse(&text).unwrap();
    let s = out.finals()[0];
    assert_eq!(s.groups(), vec![0, 1]);
    assert_eq!(s.group(1).jobs.len(), 1);
    let sum = s.sum();
    assert_eq!((sum.ios(), sum.runtime_ms), (250, 1500));
    assert!((sum.iops() - 250.0 / 1.5).abs() < 1e-9);
}

#[test]
fn client_stats_keep_hosts_and_leave_all_clients_out_of_finals() {
    let all = JOB.replace("\"jobname\":\"d\"", "\"jobname\":\"All clients\"");
    let text = format!(
        "<vm> noise\n{}",
        client_server(&[
            job(Some("a"), 1, 1000, 0, 0),
            job(Some("b"), 5, 1000, 0, 0),
            all,
            job(Some("a"), 7, 2000, 0, 0),
        ])
    );
    let out = parse(&text).unwrap();
    assert!(out.client_server);
    assert!(out.all_clients.is_some());
    let finals = out.finals();
    assert_eq!(finals.len(), 2);
    assert_eq!(finals[0].host.as_deref(), Some("a"));
    assert_eq!(finals[0].sum().ios(), 7);
    assert_eq!(out.hosts().len(), 2);
    assert_eq!(out.snapshots_of(Some("a"), Some(8765)).len(), 2);
}

/// Three jobs a host, two snapshots each, as fio 3.33's client prints them: the job options
/// listed once in the first snapshot and twice in the second tell the snapshots apart even
/// when the runtimes cannot (a job that started late, or one that finished).
#[test]
fn client_snapshots_are_told_apart_by_the_repeated_options() {
    let mut entries = Vec::new();
    for (round, ms) in [(1, 1000), (2, 1100)] {
        for host in ["a", "b"] {
            for ios in [10, 11, 12] {
                entries.push(job(Some(host), ios * round as u64, ms, 0, round));
            }
        }
    }
    let out = parse(&client_server(&entries)).unwrap();
    assert_eq!(out.snapshots.len(), 4);
    assert!(out.snapshots.iter().all(|s| s.jobs.len() == 3));
    let finals = out.finals();
    assert_eq!(finals.len(), 2);
    assert_eq!(finals[1].sum().ios(), 66);
    assert_eq!(out.option("bs"), Some("4096"));
}

/// Jobs with more options than others (or a key given twice) list more per snapshot: each
/// job's count is against its own first.
#[test]
fn client_snapshots_count_each_jobs_options_against_its_own() {
    let with = |j: String, opts: &str, round: usize| {
        let listed = vec![opts; round].join(",");
        j.replace(
            "\"error\":0",
            &format!("\"error\":0,\"job options\":{{{listed}}}"),
        )
    };
    let (a, b) = (r#""rw":"read""#, r#""bs":"4k","bs":"8k","rw":"write""#);
    let mut entries = Vec::new();
    for (round, ms) in [(1, 1000), (2, 1100)] {
        entries.push(with(job(Some("h"), 10, ms, 0, 0), a, round));
        entries.push(with(
            job(Some("h"), 10, ms, 0, 0).replace("\"d\"", "\"e\""),
            b,
            round,
        ));
    }
    let out = parse(&client_server(&entries)).unwrap();
    let sizes: Vec<usize> = out.snapshots.iter().map(|s| s.jobs.len()).collect();
    assert_eq!(sizes, vec![2, 2]);
}

/// Without options: a second of runtime starts the next snapshot; a lower group does too.
#[test]
fn client_snapshots_without_options_follow_runtime_and_groups() {
    let entries = [
        job(Some("a"), 10, 1000, 0, 0),
        job(Some("a"), 11, 1002, 0, 0),
        job(Some("a"), 0, 0, 1, 0),
        job(Some("a"), 20, 2000, 0, 0),
        job(Some("a"), 21, 2001, 0, 0),
        job(Some("a"), 0, 0, 1, 0),
        // The first group finished: the same figures again, then the second group runs.
        job(Some("a"), 20, 2000, 0, 0),
        job(Some("a"), 21, 2001, 0, 0),
        job(Some("a"), 9, 900, 1, 0),
    ];
    let out = parse(&client_server(&entries)).unwrap();
    let sizes: Vec<usize> = out.snapshots.iter().map(|s| s.jobs.len()).collect();
    assert_eq!(sizes, vec![3, 3, 3]);
    assert_eq!(out.finals()[0].sum().ios(), 50);
    let one_group = [
        job(Some("a"), 10, 1000, 0, 0),
        job(Some("a"), 11, 1002, 0, 0),
        job(Some("a"), 20, 2000, 0, 0),
        job(Some("a"), 21, 2001, 0, 0),
    ];
    let out = parse(&client_server(&one_group)).unwrap();
    let sizes: Vec<usize> = out.snapshots.iter().map(|s| s.jobs.len()).collect();
    assert_eq!(sizes, vec![2, 2]);
}

/// fio 3.33 wrote job_runtime 1000 and a read runtime of 1001 ms for 9104 reads, and
/// iops 9094.9: the rate from the entry is fio's.
#[test]
fn rates_are_over_the_runtime_fio_used() {
    let job = JOB.replace(
        "\"total_ios\":2,\"runtime\":1000,\"iops\":2.0",
        "\"total_ios\":9104,\"runtime\":1001,\"iops\":9094.905095",
    );
    let out = parse(&local(&[job])).unwrap();
    let e = out.finals()[0].sum();
    assert_eq!(e.runtime_ms, 1001);
    let rate = e.ios() as f64 * 1e3 / e.runtime_ms as f64;
    assert!(
        (rate / e.iops() - 1.0).abs() < 1e-9,
        "{rate} vs fio's {}",
        e.iops()
    );
}

#[test]
fn text_without_fio_json_is_refused() {
    assert!(parse("hello").is_err());
    assert!(parse(r#"{"name":"pkg"}"#).is_err());
    // fio's keys with values of another shape: said, not a panic.
    let e = parse(r#"{"fio version":"fio-3.33","jobs":7}"#).unwrap_err();
    assert!(e.starts_with("fio's JSON, but"), "{e}");
}

#[test]
fn a_jobs_trims_are_counted_with_its_reads_and_writes() {
    let trims = JOB.replace(
        "\"write\":",
        r#""trim":{"io_bytes":12288,"total_ios":3,"runtime":1000,"iops":3.0,"bw_bytes":12288,
            "lat_ns":{"mean":2000.0},"clat_ns":{"mean":1900.0,"percentile":{"50.000000":1500,"99.000000":5000}}},
        "write":"#,
    );
    let out = parse(&local(&[trims.clone(), trims])).expect("parses");
    let one = &out.finals()[0].jobs[0];
    assert_eq!((one.trim.ios, one.ios(), one.iops()), (3, 5, 5.0));
    // Weighted by I/Os: (2 × 500 + 3 × 2000) / 5.
    assert_eq!(one.lat_mean_ns(), 1400.0);
    assert_eq!(one.lat_p99_ns(), Some(5000.0), "the trims' is the worst");
    let both = out.finals()[0].sum();
    assert_eq!((both.trim.ios, both.ios()), (6, 10));
}
