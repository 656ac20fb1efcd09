//! Everything diskscope knows about fio, in one room: the job writer (`job`), the readers of
//! fio's JSON and terse output (`json`, `terse`) and the client/server driver (`client`).

pub mod client;
pub mod job;
pub mod json;
pub mod terse;
