//! Every output form of a result, each taking the model (`model`): a run as text lines and a
//! summary (`text`), a sweep's table (`sweep`), CSV (`csv`), the suite's card (`card`), a
//! baseline and the comparisons with it (`baseline`, `compare`), the fleet's lines and host
//! table (`fleet`, `hosts`, over the shared row table `table` the TUI draws too), a run on
//! several targets (`disks`, its baseline comparison `disks_compare`, a saved one
//! `disks_saved`), fio's own results (`fio`), a run's periods (`periods`), reads and writes
//! apart (`sides`) and written data (`writeback`), a saved result as `--show` prints it
//! (`saved`), what is printed after the TUI (`final_text`), why the figures look as they do (`why`: the disk, the findings, the
//! steady state), and the CSV and chart a saved result is written in (`files`, handed to
//! `results`, which does the writing and reading back). Nothing here runs I/O on the target,
//! reads a clock or writes a file.

pub mod baseline;
pub mod card;
pub mod chart;
pub mod compare;
pub mod conditions;
pub mod csv;
mod csv_trim;
mod details;
pub mod disks;
pub mod disks_compare;
pub mod disks_saved;
pub mod files;
pub mod final_text;
pub mod findings_text;
pub mod fio;
pub mod fleet;
pub mod health;
pub mod hosts;
pub mod periods;
pub mod rate;
pub mod saved;
pub mod sides;
pub mod surface;
pub mod sweep;
pub mod table;
pub mod text;
pub mod verify;
pub mod why;
pub mod writeback;
