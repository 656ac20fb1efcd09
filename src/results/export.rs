//! What the TUI's `e` saves: the run, or the sweep or suite when one ran last, or the run on
//! several targets, as pretty JSON in a new file named for the time (UTC, computed here: no
//! time zone database is read), never overwriting an earlier one, and its chart beside it
//! under the same name with `.svg` (drawn by the caller's `Renderings`: `render::files`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Result, anyhow};
use serde::Serialize;

use super::Renderings;
use crate::model::{RunReport, SweepReport};

/// What `e` saves: the run, or the sweep or suite when one ran last, or a run on several
/// targets. Serialized exactly as `--json`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Export {
    Run(Box<RunReport>),
    Sweep(Box<SweepReport>),
    Suite(Box<crate::model::suite::SuiteReport>),
    Disks(Box<crate::model::disks::DisksReport>),
}

/// Writes `export`'s chart (drawn by `draw`) beside the JSON saved at `json`: the same name
/// with `.svg`, a new file (never one already there). Returns its path.
pub fn write_export_chart(
    json: &Path,
    export: &Export,
    draw: &Renderings<Export>,
) -> Result<PathBuf> {
    let path = json.with_extension("svg");
    let svg = (draw.svg)(export).map_err(|e| anyhow!("{}: cannot draw it: {e}", path.display()))?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| anyhow!("{}: cannot create it: {e}", path.display()))?;
    f.write_all(svg.as_bytes())
        .map_err(|e| anyhow!("{}: cannot write it: {e}", path.display()))?;
    Ok(path)
}

/// `diskscope-YYYYmmdd-HHMMSS.json` for a time (UTC: no time zone database is read).
pub fn export_file_name(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = crate::units::civil_from_days(days as i64);
    format!(
        "diskscope-{y:04}{m:02}{d:02}-{:02}{:02}{:02}.json",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Writes `export` as pretty JSON to a new file named for `now` in `dir`; returns its path.
pub fn write_export(dir: &Path, export: &Export, now: SystemTime) -> Result<PathBuf> {
    let name = export_file_name(now);
    let text = serde_json::to_string_pretty(export)? + "\n";
    // Two presses in one second get a suffix rather than overwrite the first file.
    let stem = name.trim_end_matches(".json").to_string();
    for n in 1.. {
        let path = if n == 1 {
            dir.join(&name)
        } else {
            dir.join(format!("{stem}-{n}.json"))
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(text.as_bytes())
                    .map_err(|e| anyhow!("{}: cannot write it: {e}", path.display()))?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => continue,
            Err(e) => return Err(anyhow!("{}: cannot create it: {e}", path.display())),
        }
    }
    unreachable!("the loop returns")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ConfigReport;
    use std::time::Duration;

    #[test]
    fn export_names_carry_the_utc_date_and_time() {
        let at = |secs: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        assert_eq!(export_file_name(at(0)), "diskscope-19700101-000000.json");
        // 2000-02-29 (a leap day of a century year) 23:59:59.
        assert_eq!(
            export_file_name(at(951_868_799)),
            "diskscope-20000229-235959.json"
        );
        assert_eq!(
            export_file_name(at(1_700_000_000)),
            "diskscope-20231114-221320.json"
        );
        assert_eq!(
            export_file_name(at(4_102_444_800)),
            "diskscope-21000101-000000.json"
        );
    }

    #[test]
    fn exports_never_overwrite_an_earlier_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let export = Export::Sweep(Box::new(SweepReport {
            meta: crate::model::Meta::default(),
            config: ConfigReport {
                duration_s: Some(3.0),
                ..ConfigReport::example()
            },
            dimension: crate::sweep::Dimension::Threads,
            step_time_s: 3.0,
            steps: vec![],
            saturation: None,
            latency_curve: None,
            partial_step: None,
            errors: vec![],
            interrupted_by: None,
            findings: vec![],
            until_steady: vec![],
            health: None,
        }));
        let a = write_export(dir.path(), &export, now).expect("first");
        let b = write_export(dir.path(), &export, now).expect("second");
        assert_eq!(a.file_name().unwrap(), "diskscope-20231114-221320.json");
        assert_eq!(b.file_name().unwrap(), "diskscope-20231114-221320-2.json");
        // The chart goes beside each, and never over a file already there.
        let draw = Renderings {
            csv: |_| String::new(),
            svg: |_| Ok("<svg>a chart</svg>".into()),
        };
        let svg = write_export_chart(&b, &export, &draw).expect("chart");
        assert_eq!(svg.file_name().unwrap(), "diskscope-20231114-221320-2.svg");
        assert_eq!(std::fs::read_to_string(&svg).unwrap(), "<svg>a chart</svg>");
        assert!(write_export_chart(&b, &export, &draw).is_err());
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
        assert!(v["steps"].is_array());
    }
}
