//! The fio equivalent of a diskscope run, so a result found interactively can be repeated with
//! fio — on this host, or across many with fio's client/server mode (`fio --client=HOST job`).
//! Mapping: threads → numjobs (with `thread`), pread/pwrite → ioengine=psync, O_DIRECT →
//! direct=1, read % → rwmixread, random % → percentage_random, span → size (from offset 0).

use super::ConfigReport;

/// The fio `rw=` mode for a read % and random %.
fn rw_mode(read_pct: u8, random_pct: u8) -> &'static str {
    match (read_pct, random_pct) {
        (100, 0) => "read",
        (100, _) => "randread",
        (0, 0) => "write",
        (0, _) => "randwrite",
        (_, 0) => "rw",
        _ => "randrw",
    }
}

/// The job file.
pub fn job_file(c: &ConfigReport) -> String {
    let mut lines = vec![
        "[global]".to_string(),
        "ioengine=psync".into(),
        format!("direct={}", u8::from(c.direct)),
        "thread".into(),
        "group_reporting".into(),
        "time_based".into(),
        format!(
            "runtime={}s",
            c.duration_s.map_or(60, |s| s.round().max(1.0) as u64)
        ),
        String::new(),
        "[diskscope]".into(),
        format!("filename={}", c.target),
        format!("rw={}", rw_mode(c.read_pct, c.random_pct)),
        format!("bs={}", c.bs),
        format!("numjobs={}", c.threads),
        "offset=0".into(),
        format!("size={}", c.span_bytes),
    ];
    if c.read_pct > 0 && c.read_pct < 100 {
        lines.push(format!("rwmixread={}", c.read_pct));
    }
    if c.random_pct > 0 && c.random_pct < 100 {
        lines.push(format!("percentage_random={}", c.random_pct));
    }
    lines.join("\n") + "\n"
}

/// The same job as one command line.
pub fn command_line(c: &ConfigReport) -> String {
    let mut args = vec!["fio".to_string(), "--name=diskscope".into()];
    for line in job_file(c).lines() {
        if line.is_empty() || line.starts_with('[') {
            continue;
        }
        let arg = format!("--{line}");
        args.push(if arg.contains(' ') {
            format!("'{arg}'")
        } else {
            arg
        });
    }
    args.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    fn config(read_pct: u8, random_pct: u8) -> ConfigReport {
        ConfigReport {
            write_allowed: read_pct < 100,
            duration_s: Some(30.0),
            ..ConfigReport::example()
        }
        .with_settings(Settings {
            threads: 16,
            bs: 4096,
            read_pct,
            random_pct,
        })
    }

    #[test]
    fn settings_map_to_fio_options() {
        let job = job_file(&config(100, 100));
        for l in [
            "ioengine=psync",
            "direct=1",
            "numjobs=16",
            "rw=randread",
            "bs=4096",
            "size=1073741824",
            "runtime=30s",
            "filename=/dev/sdb",
        ] {
            assert!(job.lines().any(|x| x == l), "{l} missing in\n{job}");
        }
        let mixed = job_file(&config(70, 30));
        assert!(
            mixed.contains("rw=randrw")
                && mixed.contains("rwmixread=70")
                && mixed.contains("percentage_random=30")
        );
        assert!(job_file(&config(100, 0)).contains("rw=read\n"));
        let cmd = command_line(&config(100, 100));
        assert!(
            cmd.starts_with("fio --name=diskscope --ioengine=psync --direct=1"),
            "{cmd}"
        );
        assert!(cmd.contains("--numjobs=16") && !cmd.contains("--[") && !cmd.contains("-- "));
    }
}
