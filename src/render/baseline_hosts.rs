//! A baseline of several hosts or of fio's jobs: fio's JSON output (a client/server run read
//! as a fleet of its hosts, a local one as a run, every job summed: a job is an entry) and a
//! saved fleet. Part of `baseline`, apart so that file keeps to the kinds diskscope saves.

use super::{Baseline, Figures};
use crate::fio::json::{FioEntry, FioOutput};
use crate::fleet::hosts::{DEFAULT_PORT, Host};
use crate::model::fleet::FleetReport;
use crate::render::conditions::Conditions;

impl Baseline {
    /// fio's output: a client/server run as a fleet of its hosts (each host's jobs summed),
    /// a local one as a run (every job summed), or, with several groups, refused later.
    pub fn from_fio(label: String, out: &FioOutput) -> Baseline {
        let conditions = Conditions::of_fio(out);
        let finals = out.finals();
        if out.client_server {
            let hosts: Vec<(Host, Figures)> = finals
                .iter()
                .filter_map(|s| {
                    let host = Host {
                        name: s.host.clone()?,
                        port: s.port.unwrap_or(DEFAULT_PORT),
                    };
                    Some((host, fio_figures(&s.sum())))
                })
                .collect();
            let aggregate = sum_figures(hosts.iter().map(|(_, f)| *f));
            return Baseline::Fleet {
                label,
                hosts,
                aggregate,
                conditions,
            };
        }
        let groups = finals.last().map_or(0, |s| s.groups().len());
        if groups > 1 {
            return Baseline::FioGroups { label, groups };
        }
        let sum = finals.last().map(|s| s.sum());
        let total = sum.as_ref().map(fio_figures);
        Baseline::Run {
            sides: sum.as_ref().and_then(fio_sides),
            label,
            total: total.unwrap_or(Figures {
                iops: 0.0,
                bw_bytes_per_s: 0.0,
                p50_ns: 0.0,
                p99_ns: 0.0,
            }),
            conditions,
            holds: "fio's output of one run".into(),
        }
    }

    pub(super) fn from_fleet(label: String, r: &FleetReport) -> Baseline {
        let fig = |iops: f64, bw: f64, p50: Option<f64>, p99: Option<f64>| Figures {
            iops,
            bw_bytes_per_s: bw,
            p50_ns: p50.unwrap_or(0.0),
            p99_ns: p99.unwrap_or(0.0),
        };
        let hosts = r
            .hosts
            .iter()
            .filter(|h| h.state == crate::model::fleet::HostState::Done)
            .filter_map(|h| {
                let t = h.total?;
                let host = Host {
                    name: h.host.clone(),
                    port: h.port,
                };
                Some((
                    host,
                    fig(t.iops, t.bw_bytes_per_s, t.lat_p50_ns, t.lat_p99_ns),
                ))
            })
            .collect();
        let a = &r.aggregate;
        let f = &r.fleet;
        let mut conditions =
            Conditions::of_settings(&f.settings, Some(f.ioengine.name()), &f.target, f.direct);
        if f.target.is_empty() {
            conditions.target = None;
        }
        Baseline::Fleet {
            label,
            hosts,
            aggregate: fig(a.iops, a.bw_bytes_per_s, None, a.worst_p99_ns),
            conditions,
        }
    }
}

/// One run's figures from fio's jobs summed: rates over the sum's runtime, the worst job's
/// percentile (fio keeps them per job; with `group_reporting` there is one).
fn fio_figures(e: &FioEntry) -> Figures {
    Figures {
        iops: e.iops(),
        bw_bytes_per_s: e.bw_bytes_per_s(),
        p50_ns: e.lat_p50_ns().unwrap_or(0.0),
        p99_ns: e.lat_p99_ns().unwrap_or(0.0),
    }
}

/// fio's read and write apart, each with fio's own percentiles, where the job did both.
fn fio_sides(e: &FioEntry) -> Option<[Figures; 2]> {
    let side = |d: &crate::fio::json::DirStats| Figures {
        iops: d.iops,
        bw_bytes_per_s: d.bw_bytes_per_s,
        p50_ns: d.lat_p50_ns.unwrap_or(0.0),
        p99_ns: d.lat_p99_ns.unwrap_or(0.0),
    };
    (e.read.ios > 0 && e.write.ios > 0).then(|| [side(&e.read), side(&e.write)])
}

/// A fleet's sum: rates added, the worst host's percentiles.
fn sum_figures(f: impl Iterator<Item = Figures>) -> Figures {
    f.fold(
        Figures {
            iops: 0.0,
            bw_bytes_per_s: 0.0,
            p50_ns: 0.0,
            p99_ns: 0.0,
        },
        |a, b| Figures {
            iops: a.iops + b.iops,
            bw_bytes_per_s: a.bw_bytes_per_s + b.bw_bytes_per_s,
            p50_ns: a.p50_ns.max(b.p50_ns),
            p99_ns: a.p99_ns.max(b.p99_ns),
        },
    )
}
