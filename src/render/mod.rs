//! Every output form of a result: text lines and summaries, CSV, the suite's card, the
//! comparison with a baseline, the fleet's table, what is printed after the TUI, and the
//! files results are saved in.

pub mod baseline;
pub mod card;
pub mod compare;
pub mod csv;
pub mod export;
pub mod final_text;
pub mod fio;
pub mod fleet;
pub mod hosts;
pub mod rate;
pub mod save;
pub mod saved;
pub mod sweep;
pub mod table;

pub use save::ResultFiles;
pub mod text;
