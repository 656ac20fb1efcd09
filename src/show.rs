//! `--show FILE`: any saved result printed in diskscope's summary form — a run, sweep or
//! suite's card (`--json FILE`), a fleet, a run on several targets, or fio's own JSON
//! output, local or client/server (per host, with the hosts' seconds differenced from fio's
//! snapshots when it has them). Reading only: nothing runs. `render::saved_doc` reads the
//! file and says what kind of result it holds, typed; this hands it to its rendering: a
//! fleet as the model it was saved from (`render::fleet`), fio's output through `fio::json`
//! (`render::fio`, or as a fleet), a run on several targets field by field
//! (`render::disks_saved`), a run, sweep or card from its lenient reading (`render::saved`).

use std::path::Path;

use crate::fleet::{DEFAULT_OUTLIER_PCT, results};
use crate::render::saved_doc::{self, Saved};
use crate::render::{disks_saved, fio, fleet, saved};

/// The text `--show` prints for `path`.
pub fn show(path: &Path) -> Result<String, String> {
    Ok(match saved_doc::read("--show", path)? {
        Saved::Fio(out) if out.client_server => {
            let report = results::from_fio(&out, DEFAULT_OUTLIER_PCT);
            format!(
                "{}\n{}",
                fio::client_server_header(&out),
                fleet::summary(&report)
            )
        }
        Saved::Fio(out) => fio::jobs(&out),
        Saved::Disks(v) => disks_saved::saved(&v),
        Saved::Fleet(r) => format!("{}\n{}", fleet::header(&r.fleet), fleet::summary(&r)),
        Saved::Suite(s) => saved::suite(&s),
        Saved::Sweep(s) => saved::sweep(&s),
        Saved::Run(r) => saved::run(&r),
    })
}
