//! CSV of the results: one header line, then one row per reporting interval (a run), per
//! step (a sweep) or per test and direction (a suite's card). Plain numbers in base units
//! (seconds, bytes, nanoseconds) so spreadsheets need no unit parsing. `ops`, `bytes` and
//! the latencies count complete I/Os only; the columns after the latencies count what is not
//! in them (stop-spanning I/Os, and stopped time left out of the row). The last columns came
//! with the rate knob: the asked rate (0: unlimited) and the service time's p50 and p99 (from
//! submission; the `lat_` columns count from the due time when a rate is set); then
//! `temp_c`, the drive's temperature, empty where there is no sensor. A run's rows end with
//! `period`: the index of the run's period the row belongs to (the JSON's `periods`); a
//! sweep's steps have none. Last come reads and writes apart, `read_ops`, `read_iops`,
//! `read_bw_bytes_per_s`, `read_lat_p50_ns`, `read_lat_p99_ns` and the same five for
//! `write_`, empty in a row that did not both read and write. Then the hot-spot columns, and
//! last the trims' and polling's (`csv_trim`).
//!
//! Each CSV is one row struct written through the `csv` crate: the header is derived from
//! the struct's fields, quoting is the library's, and `Fixed<N>` keeps a figure at N
//! decimals, as the columns have always been written.

use serde::{Serialize, Serializer};

use super::csv_trim::TrimColumns;
use crate::model::suite::{Direction, DirectionResult, SuiteReport, TestResult};
use crate::stats::IntervalFigures;

/// A figure written with `DP` decimals ("12.5", "3.000").
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Fixed<const DP: usize>(pub f64);

impl<const DP: usize> Serialize for Fixed<DP> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{:.*}", DP, self.0))
    }
}

/// One reporting interval (or a sweep step's figures).
#[derive(Debug, Clone, Default, Serialize)]
pub struct IntervalRow {
    t_s: Fixed<3>,
    elapsed_s: Fixed<3>,
    threads: usize,
    iodepth: usize,
    bs: u64,
    read_pct: u8,
    random_pct: u8,
    ops: u64,
    bytes: u64,
    iops: Fixed<1>,
    bw_bytes_per_s: Fixed<0>,
    errors: u64,
    short_ios: u64,
    lat_min_ns: u64,
    lat_mean_ns: Fixed<0>,
    lat_p50_ns: u64,
    lat_p90_ns: u64,
    lat_p99_ns: u64,
    lat_p999_ns: u64,
    lat_max_ns: u64,
    spanning_stop: u64,
    syncs: u64,
    stopped_s: Fixed<3>,
    left_out_s: Fixed<3>,
    left_out_ops: u64,
    rate_iops: u64,
    service_p50_ns: u64,
    service_p99_ns: u64,
    /// The drive's temperature; empty without a sensor (never 0).
    temp_c: Option<Fixed<1>>,
}

impl From<&IntervalFigures> for IntervalRow {
    fn from(r: &IntervalFigures) -> Self {
        let (l, s) = (&r.latency_ns, &r.settings);
        IntervalRow {
            t_s: Fixed(r.t_s),
            elapsed_s: Fixed(r.elapsed_s),
            threads: s.threads,
            iodepth: s.iodepth,
            bs: s.bs,
            read_pct: s.read_pct,
            random_pct: s.random_pct,
            ops: r.counts.ops,
            bytes: r.counts.bytes,
            iops: Fixed(r.iops),
            bw_bytes_per_s: Fixed(r.bw_bytes_per_s),
            errors: r.counts.errors,
            short_ios: r.counts.short_ios,
            lat_min_ns: l.min,
            lat_mean_ns: Fixed(l.mean),
            lat_p50_ns: l.p50,
            lat_p90_ns: l.p90,
            lat_p99_ns: l.p99,
            lat_p999_ns: l.p999,
            lat_max_ns: l.max,
            spanning_stop: r.counts.spanning_stop,
            syncs: r.counts.syncs,
            stopped_s: Fixed(r.left_out.stopped.as_secs_f64()),
            left_out_s: Fixed(r.left_out.elapsed.as_secs_f64()),
            left_out_ops: r.left_out.counts.ops,
            rate_iops: s.rate_iops,
            service_p50_ns: r.service_latency_ns.p50,
            service_p99_ns: r.service_latency_ns.p99,
            temp_c: r.temp_c.map(Fixed),
        }
    }
}

/// The period a run's row belongs to, the column after its figures.
#[derive(Debug, Clone, Copy, Default, Serialize)]
struct PeriodColumn {
    period: Option<usize>,
}

impl PeriodColumn {
    fn of(r: &IntervalFigures) -> PeriodColumn {
        PeriodColumn { period: r.period }
    }
}

/// Reads and writes apart, after the period: each direction's ops, IOPS, bandwidth and
/// latency p50/p99; empty where the row did not both read and write.
#[derive(Debug, Clone, Copy, Default, Serialize)]
struct SideColumns {
    read_ops: Option<u64>,
    read_iops: Option<Fixed<1>>,
    read_bw_bytes_per_s: Option<Fixed<0>>,
    read_lat_p50_ns: Option<u64>,
    read_lat_p99_ns: Option<u64>,
    write_ops: Option<u64>,
    write_iops: Option<Fixed<1>>,
    write_bw_bytes_per_s: Option<Fixed<0>>,
    write_lat_p50_ns: Option<u64>,
    write_lat_p99_ns: Option<u64>,
}

impl SideColumns {
    fn of(r: &IntervalFigures) -> SideColumns {
        let Some(rw) = &r.sides else {
            return SideColumns::default();
        };
        let (rd, wr) = (&rw.read, &rw.write);
        SideColumns {
            read_ops: Some(rd.ops),
            read_iops: Some(Fixed(rd.iops)),
            read_bw_bytes_per_s: Some(Fixed(rd.bw_bytes_per_s)),
            read_lat_p50_ns: Some(rd.latency_ns.p50),
            read_lat_p99_ns: Some(rd.latency_ns.p99),
            write_ops: Some(wr.ops),
            write_iops: Some(Fixed(wr.iops)),
            write_bw_bytes_per_s: Some(Fixed(wr.bw_bytes_per_s)),
            write_lat_p50_ns: Some(wr.latency_ns.p50),
            write_lat_p99_ns: Some(wr.latency_ns.p99),
        }
    }
}

/// Where the row's random offsets landed, the last columns: the distribution in fio's
/// spelling, its random I/Os issued and how many went to the hottest 1 % and 10 % of blocks.
#[derive(Debug, Clone, Default, Serialize)]
struct HotColumns {
    random_distribution: String,
    random_ios: u64,
    top1_ios: u64,
    top10_ios: u64,
}

impl HotColumns {
    fn of(r: &IntervalFigures) -> HotColumns {
        HotColumns {
            random_distribution: r.settings.random_distribution.fio_spelling(),
            random_ios: r.counts.random_issued,
            top1_ios: r.counts.top1_issued,
            top10_ios: r.counts.top10_issued,
        }
    }
}

/// A sweep step's number, the column before its figures.
#[derive(Debug, Clone, Copy, Default, Serialize)]
struct Step {
    step: usize,
}

/// One test of a suite in one direction; a direction that did not run has empty figures
/// and the reason in `not_run`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SuiteRow {
    suite: &'static str,
    test: String,
    direction: &'static str,
    bs: u64,
    iodepth: usize,
    iodepth_run: usize,
    threads: usize,
    random: bool,
    passes: usize,
    mb_per_s: Option<Fixed<2>>,
    mb_per_s_min: Option<Fixed<2>>,
    mb_per_s_max: Option<Fixed<2>>,
    mb_per_s_best: Option<Fixed<2>>,
    iops: Option<Fixed<1>>,
    iops_min: Option<Fixed<1>>,
    iops_max: Option<Fixed<1>>,
    iops_best: Option<Fixed<1>>,
    ops: Option<u64>,
    bytes: Option<u64>,
    errors: Option<u64>,
    short_ios: Option<u64>,
    lat_mean_ns: Option<Fixed<0>>,
    lat_p50_ns: Option<u64>,
    lat_p99_ns: Option<u64>,
    lat_max_ns: Option<u64>,
    not_run: Option<String>,
    /// Whether the card's completions were polled (`--hipri`), spelt as `random` is.
    hipri: bool,
}

impl SuiteRow {
    fn of(suite: &'static str, t: &TestResult, d: Direction) -> SuiteRow {
        let head = SuiteRow {
            suite,
            test: t.name.clone(),
            direction: d.name(),
            bs: t.bs,
            iodepth: t.iodepth,
            iodepth_run: t.iodepth_run,
            threads: t.threads,
            random: t.random,
            ..SuiteRow::default()
        };
        match t.direction(d) {
            Ok(f) => SuiteRow {
                passes: f.passes.len(),
                ..SuiteRow::figures(f, head)
            },
            Err(why) => SuiteRow {
                not_run: Some(why.to_string()),
                ..head
            },
        }
    }

    fn figures(f: &DirectionResult, head: SuiteRow) -> SuiteRow {
        let (mb, iops, l) = (&f.mb_per_s, &f.iops, &f.latency_ns);
        SuiteRow {
            mb_per_s: Some(Fixed(mb.median)),
            mb_per_s_min: Some(Fixed(mb.min)),
            mb_per_s_max: Some(Fixed(mb.max)),
            mb_per_s_best: Some(Fixed(mb.best)),
            iops: Some(Fixed(iops.median)),
            iops_min: Some(Fixed(iops.min)),
            iops_max: Some(Fixed(iops.max)),
            iops_best: Some(Fixed(iops.best)),
            ops: Some(f.counts.ops),
            bytes: Some(f.counts.bytes),
            errors: Some(f.counts.errors),
            short_ios: Some(f.counts.short_ios),
            lat_mean_ns: Some(Fixed(l.mean)),
            lat_p50_ns: Some(l.p50),
            lat_p99_ns: Some(l.p99),
            lat_max_ns: Some(l.max),
            ..head
        }
    }
}

/// The CSV text of `rows` (header first when `header`), each line ending in a newline.
fn write<T: Serialize>(rows: impl IntoIterator<Item = T>, header: bool) -> String {
    let mut w = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(Vec::new());
    for row in rows {
        // Writing plain numbers and strings into memory cannot fail.
        let _ = w.serialize(row);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `text` as one CSV field, quoted by the `csv` crate where it must be (a comma, a quote, a
/// line break): the one place a text from outside (a target's name) enters a CSV.
pub fn field(text: &str) -> String {
    line([text])
}

/// The header line a row struct gives (no newline).
fn header_of<T: Serialize + Default>() -> String {
    let text = write([T::default()], true);
    text.lines().next().unwrap_or_default().to_string()
}

/// One row as a line (no newline).
fn line<T: Serialize>(row: T) -> String {
    write([row], false).trim_end_matches('\n').to_string()
}

/// The header of a run's intervals.
pub fn header() -> String {
    header_of::<(
        IntervalRow,
        PeriodColumn,
        SideColumns,
        HotColumns,
        TrimColumns,
    )>()
}

/// One CSV row for an interval (no newline).
pub fn row(r: &IntervalFigures) -> String {
    line((
        IntervalRow::from(r),
        PeriodColumn::of(r),
        SideColumns::of(r),
        HotColumns::of(r),
        TrimColumns::of(r),
    ))
}

/// A run's CSV: the header and every interval.
pub fn intervals(rows: &[IntervalFigures]) -> String {
    let rows = rows.iter().map(|r| {
        (
            IntervalRow::from(r),
            PeriodColumn::of(r),
            SideColumns::of(r),
            HotColumns::of(r),
            TrimColumns::of(r),
        )
    });
    header() + "\n" + &write(rows, false)
}

/// Sweep steps: the step number, then the same columns as an interval.
pub fn step_header() -> String {
    header_of::<(Step, IntervalRow, SideColumns, HotColumns, TrimColumns)>()
}

/// One CSV row for a sweep step (no newline).
pub fn step_row(index: usize, r: &IntervalFigures) -> String {
    line((
        Step { step: index },
        IntervalRow::from(r),
        SideColumns::of(r),
        HotColumns::of(r),
        TrimColumns::of(r),
    ))
}

/// A sweep's CSV: the header and every step.
pub fn steps(steps: &[IntervalFigures]) -> String {
    let rows = steps.iter().enumerate().map(|(i, r)| {
        (
            Step { step: i },
            IntervalRow::from(r),
            SideColumns::of(r),
            HotColumns::of(r),
            TrimColumns::of(r),
        )
    });
    step_header() + "\n" + &write(rows, false)
}

/// The header of a suite's card.
pub fn suite_header() -> String {
    header_of::<SuiteRow>()
}

/// A suite's CSV: the header and a row per test and direction.
pub fn suite(r: &SuiteReport) -> String {
    let rows = r.tests.iter().flat_map(|t| {
        [Direction::Read, Direction::Write].map(|d| SuiteRow {
            hipri: r.config.settings.hipri,
            ..SuiteRow::of(r.suite.name(), t, d)
        })
    });
    suite_header() + "\n" + &write(rows, false)
}

#[cfg(test)]
#[path = "csv_tests.rs"]
mod tests;
