//! fio's json+ latency bins as a distribution: every job's bins of the last document merged
//! (total latency `lat_ns` where fio kept it, else completion latency `clat_ns`), gathered
//! into log2 buckets for the bars, with p50, p99 and p99.9 computed from the bins the way
//! fio computes its own percentiles, so the marks agree with fio's table.

use serde_json::Value;

use super::from_fio::facts;
use super::from_results::histogram_chart;
use super::spec::thousands;
use super::spec::{Heading, HistogramChart, Provenance};
use crate::fio::json as fio_json;
use crate::stats::{LatencySummary, Log2Histogram};

/// The latency bins of json+ output, every job of the last document merged (total latency
/// `lat_ns` where fio kept it, else completion latency `clat_ns`), as fio's bucket values
/// (ns) and counts, ascending; and which latency they are.
pub fn fio_bins(text: &str) -> Option<(Vec<(u64, u64)>, &'static str)> {
    let docs: Vec<Value> = fio_json::documents(text)
        .into_iter()
        .filter(fio_json::is_fio)
        .collect();
    let last = docs.last()?;
    let jobs = last["jobs"]
        .as_array()
        .or(last["client_stats"].as_array())?;
    let jobs: Vec<&Value> = jobs
        .iter()
        .filter(|j| j["jobname"] != fio_json::ALL_CLIENTS)
        .collect();
    let has = |key: &str| {
        jobs.iter()
            .any(|j| j["read"][key]["bins"].is_object() || j["write"][key]["bins"].is_object())
    };
    let key = if has("lat_ns") {
        "lat_ns"
    } else if has("clat_ns") {
        "clat_ns"
    } else {
        return None;
    };
    let mut bins: std::collections::BTreeMap<u64, u64> = Default::default();
    for j in &jobs {
        for dir in ["read", "write"] {
            for (v, n) in j[dir][key]["bins"].as_object().into_iter().flatten() {
                if let (Ok(v), Some(n)) = (v.parse::<u64>(), n.as_u64()) {
                    *bins.entry(v).or_default() += n;
                }
            }
        }
    }
    let basis = if key == "lat_ns" {
        "total latency (fio's lat)"
    } else {
        "completion latency (fio's clat)"
    };
    (!bins.is_empty()).then(|| (bins.into_iter().collect(), basis))
}

/// The value below which `q` of the I/Os in `bins` fall, fio's way: the first bucket whose
/// cumulative count reaches q × N.
pub fn bins_percentile(bins: &[(u64, u64)], q: f64) -> u64 {
    let n: u64 = bins.iter().map(|b| b.1).sum();
    let want = q * n as f64;
    let mut seen = 0u64;
    for (v, c) in bins {
        seen += c;
        if seen as f64 >= want {
            return *v;
        }
    }
    bins.last().map_or(0, |b| b.0)
}

/// json+ output's latency distribution, with p50, p99 and p99.9 computed from the merged
/// bins; `None` for output without bins (plain json).
pub fn fio_latency_chart(text: &str, p: &Provenance) -> Result<Option<HistogramChart>, String> {
    let out = fio_json::parse(text)?;
    let Some((bins, basis)) = fio_bins(text) else {
        return Ok(None);
    };
    let mut hist = Log2Histogram::default();
    for (v, n) in &bins {
        let i = (63 - v.max(&1).leading_zeros()) as usize;
        hist.counts[i] += n;
    }
    let count = hist.total();
    let summary = LatencySummary {
        count,
        min: bins[0].0,
        mean: 0.0,
        p50: bins_percentile(&bins, 0.50),
        p90: bins_percentile(&bins, 0.90),
        p99: bins_percentile(&bins, 0.99),
        p999: bins_percentile(&bins, 0.999),
        max: bins[bins.len() - 1].0,
    };
    let docs: Vec<Value> = fio_json::documents(text)
        .into_iter()
        .filter(fio_json::is_fio)
        .collect();
    let f = facts(&out, &docs);
    let heading = Heading {
        title: format!(
            "fio, {}: {basis} of all {} I/Os",
            super::from_fio::jobs(out.final_jobs().len()),
            thousands(count)
        ),
        subtitle: f.subtitle(p),
        finding: None,
        footnotes: vec![
            "bars: fio's latency bins (json+) gathered into log2 buckets; the percentiles come from fio's bins themselves, fio's way".into(),
        ],
    };
    Ok(Some(histogram_chart(&hist, &summary, heading)))
}
