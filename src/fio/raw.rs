//! fio's JSON as serde reads it: only the fields the readers use, typed, everything else
//! skipped without being built (serde ignores a field its struct does not name). The types
//! are lenient where fio's output or a hand-edited file may differ: a number may come as an
//! integer, a float or a string, an option's value as anything; a value of another shape is
//! skipped, never kept. Also `Lenient`, used the same way for diskscope's own saved results
//! (`results::saved_doc`).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A number as fio or an older diskscope wrote it: integer, float or numeric string. Any
/// other value reads as no number (and is skipped, not kept).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Lenient {
    #[default]
    None,
    U(u64),
    I(i64),
    F(f64),
}

impl Lenient {
    pub fn f64(self) -> Option<f64> {
        match self {
            Lenient::U(v) => Some(v as f64),
            Lenient::I(v) => Some(v as f64),
            Lenient::F(v) => Some(v),
            Lenient::None => None,
        }
    }
    pub fn u64(self) -> Option<u64> {
        match self {
            Lenient::U(v) => Some(v),
            Lenient::I(v) => u64::try_from(v).ok(),
            Lenient::F(v) if v >= 0.0 && v.fract() == 0.0 && v < u64::MAX as f64 => Some(v as u64),
            _ => None,
        }
    }
    pub fn i64(self) -> Option<i64> {
        match self {
            Lenient::U(v) => i64::try_from(v).ok(),
            Lenient::I(v) => Some(v),
            Lenient::F(v) if v.fract() == 0.0 && v.abs() < i64::MAX as f64 => Some(v as i64),
            _ => None,
        }
    }
}

/// Drains a sequence or map of any values, keeping nothing.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lenient;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Lenient, E> {
                Ok(Lenient::U(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Lenient, E> {
                Ok(Lenient::I(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Lenient, E> {
                Ok(Lenient::F(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Lenient, E> {
                let v = v.trim();
                Ok(v.parse()
                    .map(Lenient::U)
                    .or_else(|_| v.parse().map(Lenient::I))
                    .or_else(|_| v.parse().map(Lenient::F))
                    .unwrap_or(Lenient::None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Lenient, E> {
                Ok(Lenient::None)
            }
            fn visit_unit<E>(self) -> Result<Lenient, E> {
                Ok(Lenient::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Lenient, A::Error> {
                drain_seq(seq).map(|()| Lenient::None)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Lenient, A::Error> {
                drain_map(map).map(|()| Lenient::None)
            }
        }
        d.deserialize_any(V)
    }
}

/// Text where a string is expected; a number or a flag written as text; anything else none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Text(pub Option<String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("text")
            }
            fn visit_str<E>(self, v: &str) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_unit<E>(self) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Text, A::Error> {
                drain_seq(seq).map(|()| Text(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text, A::Error> {
                drain_map(map).map(|()| Text(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// fio's options in the order printed, every occurrence kept: fio's client appends a job's
/// options again at each status-interval snapshot (client.c `handle_job_opt`), so the k-th
/// snapshot of a job lists them k times; a multi-host client prints its global options as
/// one object per host. A map, a list of maps, or anything else (none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OptionList(pub Vec<(String, String)>);

impl OptionList {
    /// The last value given for `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// How many options are listed, every repeat counted: the k-th client/server snapshot
    /// of a job lists k times as many as its first (see above); `None` for none.
    pub fn listed(&self) -> Option<usize> {
        (!self.0.is_empty()).then_some(self.0.len())
    }
}

impl<'de> Deserialize<'de> for OptionList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OptionList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("fio's options")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OptionList, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    if let Text(Some(v)) = map.next_value::<Text>()? {
                        out.push((k, v));
                    }
                }
                Ok(OptionList(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OptionList, A::Error> {
                let mut out = Vec::new();
                while let Some(OptionList(more)) = seq.next_element::<OptionList>()? {
                    out.extend(more);
                }
                Ok(OptionList(out))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<OptionList, E> {
                Ok(OptionList::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<OptionList, E> {
                Ok(OptionList::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<OptionList, E> {
                Ok(OptionList::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<OptionList, E> {
                Ok(OptionList::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<OptionList, E> {
                Ok(OptionList::default())
            }
            fn visit_unit<E>(self) -> Result<OptionList, E> {
                Ok(OptionList::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// One fio document: its version, options and jobs.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Doc {
    #[serde(rename = "fio version")]
    pub version: Text,
    #[serde(rename = "global options")]
    pub global: OptionList,
    pub jobs: Option<Vec<Job>>,
    pub client_stats: Option<Vec<Job>>,
}

/// One `jobs` or `client_stats` element.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Job {
    pub jobname: Text,
    pub groupid: Lenient,
    pub error: Lenient,
    pub job_runtime: Lenient,
    pub hostname: Text,
    pub port: Lenient,
    #[serde(rename = "job options")]
    pub options: Option<OptionList>,
    pub read: Dir,
    pub write: Dir,
    pub trim: Dir,
}

/// One direction of a job.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Dir {
    pub io_bytes: Lenient,
    pub total_ios: Lenient,
    pub short_ios: Lenient,
    pub runtime: Lenient,
    pub iops: Lenient,
    pub bw_bytes: Lenient,
    /// KiB/s, in files from before fio wrote `bw_bytes`.
    pub bw: Lenient,
    pub lat_ns: Latency,
    /// µs, in files from before fio wrote `lat_ns`.
    pub lat_us: Latency,
    pub clat_ns: Latency,
}

/// A latency's mean and the percentiles read (fio's keys are "50.000000" and so on).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Latency {
    pub mean: Lenient,
    pub percentile: Option<Percentiles>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Percentiles {
    #[serde(rename = "50.000000")]
    pub p50: Lenient,
    #[serde(rename = "99.000000")]
    pub p99: Lenient,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text_are_read_leniently_and_other_shapes_skipped() {
        let j: Job = serde_json::from_str(
            r#"{"jobname":"a","groupid":"2","error":0.0,"port":[1,2],"hostname":7,
                "read":{"total_ios":12,"iops":1.5,"lat_ns":{"mean":3,"percentile":{"99.000000":9}}},
                "unused":{"deep":[[[1]]]}}"#,
        )
        .unwrap();
        assert_eq!(j.jobname.0.as_deref(), Some("a"));
        assert_eq!(j.groupid.u64(), Some(2));
        assert_eq!(j.error.i64(), Some(0));
        assert_eq!(j.port.u64(), None);
        assert_eq!(j.hostname.0.as_deref(), Some("7"));
        assert_eq!(j.read.total_ios.u64(), Some(12));
        assert_eq!(j.read.iops.f64(), Some(1.5));
        assert_eq!(j.read.lat_ns.percentile.unwrap().p99.f64(), Some(9.0));
        assert_eq!(j.write.total_ios, Lenient::None);
    }

    /// fio 3.33's client/server output lists a job's options once per snapshot, and a key
    /// twice is valid there.
    #[test]
    fn options_keep_every_occurrence() {
        let o: OptionList =
            serde_json::from_str(r#"{"rw":"read","bs":"4k","rw":"read","bs":"8k","x":[1]}"#)
                .unwrap();
        assert_eq!(o.listed(), Some(4));
        assert_eq!(o.get("bs"), Some("8k"));
        assert_eq!(o.get("x"), None);
        let list: OptionList =
            serde_json::from_str(r#"[{"direct":"1"},{"direct":"0","hostname":"b"}]"#).unwrap();
        assert_eq!(list.get("direct"), Some("0"));
        assert_eq!(OptionList::default().listed(), None);
    }
}
