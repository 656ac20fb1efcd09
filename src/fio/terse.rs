//! fio's terse (`--output-format=terse`, version 3) lines read as `FioEntry`s. The fleet
//! needs them: a fio client streams its ETA lines only without JSON output (`fio`'s
//! quirks), so each host's client runs terse.
//!
//! Terse carries less than JSON (kilobytes, whole microseconds). The I/O count is the kilobytes over the block size, exact when the block
//! size is a multiple of 1 KiB (the 512-byte case can be one I/O short). Latency percentiles
//! are total latency when the job sets `lat_percentiles=1`, as the fleet's job does.

use super::json::{DirStats, FioEntry, PercentileBasis};

/// Fields of one direction in a version-3 line.
const DIR_FIELDS: usize = 41;
/// Where the read and write blocks start.
const READ_AT: usize = 5;
const WRITE_AT: usize = READ_AT + DIR_FIELDS;

/// Whether `line` is a terse result line (not an ETA or disk-utilisation line).
pub fn is_terse(line: &str) -> bool {
    line.starts_with("3;")
}

/// One terse line of a job doing `bs`-byte I/Os; `None` if it is not a whole v3 line.
/// `lat_percentiles` says whether the job asked fio for total-latency percentiles.
pub fn parse_line(line: &str, bs: u64, lat_percentiles: bool) -> Option<FioEntry> {
    let f: Vec<&str> = line.trim().split(';').collect();
    if f.first() != Some(&"3") || f.len() < WRITE_AT + DIR_FIELDS {
        return None;
    }
    let read = dir(&f[READ_AT..READ_AT + DIR_FIELDS], bs)?;
    let write = dir(&f[WRITE_AT..WRITE_AT + DIR_FIELDS], bs)?;
    Some(FioEntry {
        host: None,
        port: None,
        jobname: f[2].to_string(),
        error: f[4].parse().ok()?,
        read,
        write,
        // Not read from terse lines (fleet's live progress): a fleet does not trim.
        trim: DirStats::default(),
        runtime_ms: read.runtime_ms.max(write.runtime_ms),
        basis: if lat_percentiles {
            PercentileBasis::Lat
        } else {
            PercentileBasis::Clat
        },
        group: 0,
        job_count: 1,
    })
}

fn dir(f: &[&str], bs: u64) -> Option<DirStats> {
    let kb: u64 = f[0].parse().ok()?;
    let runtime_ms: u64 = f[3].parse().ok()?;
    let io_bytes = kb * 1024;
    let ios = (io_bytes + bs / 2) / bs.max(1);
    let per_s = |n: u64| {
        if runtime_ms > 0 {
            n as f64 * 1000.0 / runtime_ms as f64
        } else {
            0.0
        }
    };
    let pct = |p: &str| {
        f[12..32]
            .iter()
            .find_map(|x| x.strip_prefix(p))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|_| ios > 0)
            .map(|us| us * 1e3)
    };
    Some(DirStats {
        io_bytes,
        ios,
        short_ios: 0,
        runtime_ms,
        iops: per_s(ios),
        bw_bytes_per_s: per_s(io_bytes),
        lat_mean_ns: f[34].parse::<f64>().ok()? * 1e3,
        lat_p50_ns: pct("50.000000%="),
        lat_p99_ns: pct("99.000000%="),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line fio 3.33 printed (client mode, 4k random reads, lat_percentiles=1).
    const LINE: &str = "3;fio-3.33;d;0;0;91656;102523;25636;894;0;0;0.000000;0.000000;29;1526;38.059039;12.169420;1.000000%=31;5.000000%=32;10.000000%=32;20.000000%=33;30.000000%=34;40.000000%=35;50.000000%=36;60.000000%=37;70.000000%=39;80.000000%=40;90.000000%=43;95.000000%=49;99.000000%=64;99.500000%=74;99.900000%=93;99.950000%=134;99.990000%=183;0%=0;0%=0;0%=0;29;1526;38.172849;12.203106;101872;101872;99.365021%;101872.000000;0.000000;0;0;0;0;0;0;0.000000;0.000000;0;0;0.000000;0.000000;1.000000%=0;5.000000%=0;10.000000%=0;20.000000%=0;30.000000%=0;40.000000%=0;50.000000%=0;60.000000%=0;70.000000%=0;80.000000%=0;90.000000%=0;95.000000%=0;99.000000%=0;99.500000%=0;99.900000%=0;99.950000%=0;99.990000%=0;0%=0;0%=0;0%=0;0;0;0.000000;0.000000;0;0;0.000000%;0.000000;0.000000;6.599553%;29.753915%;22907;0;5;100.0%;0.0%;0.0%;0.0%;0.0%;0.0%;0.0%;0.00%;0.00%;0.00%;0.00%;95.06%;4.86%;0.07%;0.01%;0.00%;0.00%;0.01%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%;0.00%";

    #[test]
    fn a_real_line_reads_back() {
        let e = parse_line(LINE, 4096, true).unwrap();
        assert_eq!(e.jobname, "d");
        assert_eq!(e.error, 0);
        // 91656 KiB of 4 KiB reads.
        assert_eq!(e.read.ios, 91656 / 4);
        assert_eq!(e.runtime_ms, 894);
        // fio's own IOPS (over its runtime in µs) agrees with the count over the ms runtime.
        assert!(
            (e.read.iops / 25636.0 - 1.0).abs() < 1e-3,
            "{}",
            e.read.iops
        );
        assert_eq!(e.read.lat_p99_ns, Some(64_000.0));
        assert!((e.read.lat_mean_ns - 38_172.849).abs() < 0.01);
        assert_eq!(e.write.ios, 0);
        assert_eq!(e.write.lat_p99_ns, None);
        assert_eq!(e.basis, PercentileBasis::Lat);
    }

    #[test]
    fn other_lines_are_not_results() {
        assert!(parse_line(";vda;22914;0;0;0;750;0;749;73.64%", 4096, true).is_none());
        assert!(parse_line("3;fio-3.33;d;0", 4096, true).is_none());
        assert!(!is_terse("Jobs: 1 (f=1)"));
    }
}
