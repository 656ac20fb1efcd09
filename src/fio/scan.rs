//! Finding the JSON objects in a result file, in time and memory linear in its size. fio's
//! output is not always one clean document (`fio`'s quirks): error lines come before it, a
//! status-interval run prints one whole document per interval. diskscope's own `--json` files
//! are one document. This finds each top-level object's byte range without building it
//! (serde's `IgnoredAny` walks a value and keeps nothing), so the readers (`json` here,
//! `results::saved_doc`) parse only the ranges they want into typed structs that skip every
//! field they do not read.
//!
//! Linear on any input: after a syntax error the scan goes on from where the error was found,
//! never from one byte after the brace it started at (text that opens objects without end,
//! nested deeper than serde_json's recursion limit, took minutes that way: each of a
//! million braces was parsed again to the limit). An object that never closes ends the scan:
//! everything after its brace is inside it.

use std::ops::Range;

use serde::Deserialize;
use serde::de::IgnoredAny;

/// Which of the keys that tell a result's kind a top-level object has. Values are skipped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Keys {
    #[serde(rename = "fio version", deserialize_with = "present")]
    pub fio_version: bool,
    #[serde(deserialize_with = "present")]
    pub jobs: bool,
    #[serde(deserialize_with = "present")]
    pub client_stats: bool,
    #[serde(deserialize_with = "present")]
    pub config: bool,
    #[serde(deserialize_with = "present")]
    pub total: bool,
    #[serde(deserialize_with = "present")]
    pub steps: bool,
    #[serde(deserialize_with = "present")]
    pub dimension: bool,
    #[serde(deserialize_with = "present")]
    pub suite: bool,
    #[serde(deserialize_with = "present")]
    pub tests: bool,
    #[serde(deserialize_with = "present")]
    pub fleet: bool,
    #[serde(deserialize_with = "present")]
    pub hosts: bool,
    #[serde(deserialize_with = "present")]
    pub disks: bool,
    #[serde(deserialize_with = "present")]
    pub targets: bool,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

impl Keys {
    /// fio's own output: its version and its jobs (local) or client_stats (client/server).
    pub fn is_fio(&self) -> bool {
        self.fio_version && (self.jobs || self.client_stats)
    }
}

/// One top-level object of the text: where it is and the keys it has (`None`: a valid JSON
/// object whose keys could not be read, such as one key given twice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    pub span: Range<usize>,
    pub keys: Option<Keys>,
}

/// What a scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    pub objects: Vec<Object>,
    /// The text ends inside an object that never closes (a file cut short, or still being
    /// written).
    pub cut: bool,
    /// Bytes parsed to find them, every attempt counted: the scan's work, at most a small
    /// multiple of the text's length.
    pub parsed_bytes: usize,
    /// Why the first object whose keys could not be read could not (serde's words: "duplicate
    /// field `total` at line 1 column 5000").
    pub unreadable_keys: Option<String>,
    /// The first place where what followed a `{` was not JSON (serde's words, with the line
    /// and column in the text), for a file in which no result is found.
    pub syntax_error: Option<String>,
}

/// Every top-level JSON object in `text`, skipping whatever is around and between them.
pub fn scan(text: &str) -> Scan {
    let mut out = Scan::default();
    let mut at = 0;
    while let Some(rel) = text[at..].find('{') {
        let start = at + rel;
        let rest = &text[start..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Keys>();
        match stream.next() {
            Some(Ok(keys)) => {
                let end = start + stream.byte_offset();
                out.parsed_bytes += end - start;
                out.objects.push(Object {
                    span: start..end,
                    keys: Some(keys),
                });
                at = end;
            }
            Some(Err(e)) if e.is_eof() => {
                out.parsed_bytes += rest.len();
                out.cut = true;
                return out;
            }
            Some(Err(e)) if e.is_data() => {
                out.unreadable_keys
                    .get_or_insert_with(|| at_in(text, start, &e));
                // Valid JSON that is not a map of distinct keys: find its end all the same.
                let mut skip = serde_json::Deserializer::from_str(rest).into_iter::<IgnoredAny>();
                match skip.next() {
                    Some(Ok(_)) => {
                        let end = start + skip.byte_offset();
                        out.parsed_bytes += 2 * (end - start);
                        out.objects.push(Object {
                            span: start..end,
                            keys: None,
                        });
                        at = end;
                    }
                    _ => at = start + 1,
                }
            }
            Some(Err(e)) => {
                out.syntax_error
                    .get_or_insert_with(|| at_in(text, start, &e));
                let failed_at = error_offset(rest, &e).max(1);
                out.parsed_bytes += failed_at;
                at = start + failed_at;
            }
            None => at = start + 1,
        }
    }
    out
}

/// serde's message for an error found parsing from `start`, its line and column counted in
/// the whole text (serde counts them from where it began).
fn at_in(text: &str, start: usize, e: &serde_json::Error) -> String {
    let before = &text[..start];
    let line = before.matches('\n').count() + e.line();
    let column = match e.line() {
        1 => start - before.rfind('\n').map_or(0, |i| i + 1) + e.column(),
        _ => e.column(),
    };
    let what = e.to_string();
    let what = what.split(" at line ").next().unwrap_or(&what);
    format!("{what} at line {line} column {column}")
}

/// The byte offset in `text` of the place serde_json reported `e` at (its line and column,
/// both counted from 1; a column counts bytes).
fn error_offset(text: &str, e: &serde_json::Error) -> usize {
    let mut line_start = 0;
    for _ in 1..e.line() {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    (line_start + e.column().saturating_sub(1)).min(text.len())
}

/// The object at `span` of `text` read as `T`; an error says where and what was wrong.
pub fn parse<'a, T: Deserialize<'a>>(text: &'a str, span: &Range<usize>) -> Result<T, String> {
    serde_json::from_str(&text[span.clone()]).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_between_junk_are_found_with_their_keys() {
        let doc = r#"{"fio version":"fio-3.33","jobs":[{"jobname":"a"}]}"#;
        let text = format!("fio: some error {{oops\n{doc}\nJobs: 1\n{doc}\ntrailing");
        let s = scan(&text);
        assert!(!s.cut);
        assert_eq!(s.objects.len(), 2);
        for o in &s.objects {
            assert_eq!(&text[o.span.clone()], doc);
            assert!(o.keys.unwrap().is_fio());
        }
        let k = scan(r#"{"config":{"target":"x"},"total":{}}"#).objects[0].keys;
        assert!(k.is_some_and(|k| k.config && k.total && !k.is_fio()));
    }

    #[test]
    fn an_object_cut_short_ends_the_scan() {
        let doc = r#"{"fio version":"fio-3.33","jobs":[]}"#;
        let s = scan(&format!("{doc}\n{}", &doc[..20]));
        assert_eq!((s.objects.len(), s.cut), (1, true));
        assert!(scan(&doc[..10]).cut);
    }

    /// One key twice is valid JSON: the object is found, its keys unread.
    #[test]
    fn an_object_with_a_key_twice_is_found_but_not_read() {
        let s = scan(r#"x {"jobs":1,"jobs":2} {"total":{}}"#);
        assert_eq!(s.objects.len(), 2);
        assert_eq!(s.objects[0].keys, None);
        assert!(s.objects[1].keys.unwrap().total);
    }

    /// Objects opened without end and then broken, or nested without end: each byte is
    /// parsed a bounded number of times. Before, the scan restarted one byte after every
    /// failed brace and parsed to the same error again (or to serde_json's recursion limit,
    /// 128 levels, each time): minutes for a few megabytes.
    #[test]
    fn braces_without_end_take_linear_work() {
        for text in [
            format!("{}x", r#"{"a":"#.repeat(20_000)),
            format!("{}x", r#"[{"a":[{"a":"#.repeat(10_000)),
            r#"{"a":"#.repeat(20_000),
            "{{{{".repeat(20_000),
            "{\n".repeat(20_000),
        ] {
            let s = scan(&text);
            assert!(s.objects.is_empty(), "{}", &text[..12]);
            assert!(
                s.parsed_bytes <= 2 * text.len(),
                "{}: parsed {} bytes of {}",
                &text[..12],
                s.parsed_bytes,
                text.len()
            );
        }
    }

    #[test]
    fn error_offsets_count_lines_and_bytes() {
        let text = "{\n  \"a\": x\n}";
        let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        assert_eq!(&text[error_offset(text, &e)..][..1], "x");
    }
}
