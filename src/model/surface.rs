//! The surface of a disk as one scan (or one burn-in) found it: the span cut into a fixed
//! number of regions, each a cell of the map — a latency class from the read scan, or what
//! reading back a stamp found — with the bandwidth curve against position, the slowest regions
//! and every read error by offset (`SurfaceReport`, `surface` in the JSON).
//!
//! The latency bands are Victoria's (the Windows HDD diagnostic by Sergei Kazansky: its scan
//! legend colours blocks < 5, < 20, < 50, < 200, < 600 and ≥ 600 ms); MHDD, its DOS ancestor,
//! drew 3 / 10 / 50 / 150 / 500 ms. A region's class is the band of its slowest I/O's service
//! time (see `surface::fold`), so one stalled block colours its region as Victoria's single
//! block would.
//!
//! The map has the same number of cells whatever the disk's size: memory stays bounded, and a
//! 20 TB drive's cell is simply larger than a 1 GiB file's. Plain data: `surface` fills it,
//! `verify` paints its states on the same map, `findings::surface` judges it, `render` draws it.

use serde::{Deserialize, Serialize};

/// Victoria's latency bands, upper bounds in milliseconds (the last band is everything above).
pub const BAND_UPPER_MS: [u64; 5] = [5, 20, 50, 200, 600];

/// A read's latency band, Victoria's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyClass {
    Under5Ms,
    Under20Ms,
    Under50Ms,
    Under200Ms,
    Under600Ms,
    Over600Ms,
}

impl LatencyClass {
    /// Every class, fastest first.
    pub const ALL: [LatencyClass; 6] = [
        LatencyClass::Under5Ms,
        LatencyClass::Under20Ms,
        LatencyClass::Under50Ms,
        LatencyClass::Under200Ms,
        LatencyClass::Under600Ms,
        LatencyClass::Over600Ms,
    ];

    /// The band a time of `ns` nanoseconds falls in.
    pub fn of_ns(ns: u64) -> LatencyClass {
        let ms_bound = |i: usize| BAND_UPPER_MS[i] * 1_000_000;
        (0..BAND_UPPER_MS.len())
            .find(|&i| ns < ms_bound(i))
            .map_or(LatencyClass::Over600Ms, |i| LatencyClass::ALL[i])
    }

    /// The band's label as the legend shows it: "<5 ms", "≥600 ms".
    pub fn label(self) -> &'static str {
        match self {
            LatencyClass::Under5Ms => "<5 ms",
            LatencyClass::Under20Ms => "<20 ms",
            LatencyClass::Under50Ms => "<50 ms",
            LatencyClass::Under200Ms => "<200 ms",
            LatencyClass::Under600Ms => "<600 ms",
            LatencyClass::Over600Ms => "≥600 ms",
        }
    }
}

/// What reading back a stamped block found (the verify side's states).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyState {
    /// The stamp is this block's, this pass's, and its checksum holds.
    Verified,
    /// Zeroes or never written: no stamp at all.
    Zeroes,
    /// An older pass or sequence: a write that was lost.
    Stale,
    /// The checksum fails: the data changed.
    Corrupt,
    /// Another offset's stamp: the device maps two addresses to one place.
    Aliased,
}

impl VerifyState {
    /// The state's label as the legend shows it.
    pub fn label(self) -> &'static str {
        match self {
            VerifyState::Verified => "verified",
            VerifyState::Zeroes => "zeroes",
            VerifyState::Stale => "stale",
            VerifyState::Corrupt => "corrupt",
            VerifyState::Aliased => "aliased",
        }
    }
}

/// One cell of the map; in JSON a plain string (`Cell::key`): "under5_ms", "read_error",
/// "verified", "not_yet".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Cell {
    /// Not read (or not verified) yet.
    #[default]
    NotYet,
    /// Read; the band of its slowest I/O.
    Latency(LatencyClass),
    /// Read back and checked.
    Verify(VerifyState),
    /// At least one read in the region failed.
    ReadError,
}

impl Cell {
    /// Every cell value, for the JSON names and the legends.
    pub const ALL: [Cell; 13] = [
        Cell::NotYet,
        Cell::Latency(LatencyClass::Under5Ms),
        Cell::Latency(LatencyClass::Under20Ms),
        Cell::Latency(LatencyClass::Under50Ms),
        Cell::Latency(LatencyClass::Under200Ms),
        Cell::Latency(LatencyClass::Under600Ms),
        Cell::Latency(LatencyClass::Over600Ms),
        Cell::ReadError,
        Cell::Verify(VerifyState::Verified),
        Cell::Verify(VerifyState::Zeroes),
        Cell::Verify(VerifyState::Stale),
        Cell::Verify(VerifyState::Corrupt),
        Cell::Verify(VerifyState::Aliased),
    ];

    /// The cell's stable JSON name.
    pub fn key(self) -> &'static str {
        match self {
            Cell::NotYet => "not_yet",
            Cell::Latency(LatencyClass::Under5Ms) => "under5_ms",
            Cell::Latency(LatencyClass::Under20Ms) => "under20_ms",
            Cell::Latency(LatencyClass::Under50Ms) => "under50_ms",
            Cell::Latency(LatencyClass::Under200Ms) => "under200_ms",
            Cell::Latency(LatencyClass::Under600Ms) => "under600_ms",
            Cell::Latency(LatencyClass::Over600Ms) => "over600_ms",
            Cell::ReadError => "read_error",
            Cell::Verify(VerifyState::Verified) => "verified",
            Cell::Verify(VerifyState::Zeroes) => "zeroes",
            Cell::Verify(VerifyState::Stale) => "stale",
            Cell::Verify(VerifyState::Corrupt) => "corrupt",
            Cell::Verify(VerifyState::Aliased) => "aliased",
        }
    }

    /// How bad the cell is, for `RegionMap::mark`: a region shows the worst of what was found
    /// in it. Not yet < any latency class (fastest first) < verified < zeroes < stale <
    /// corrupt < aliased < read error.
    pub fn severity(self) -> u8 {
        match self {
            Cell::NotYet => 0,
            Cell::Latency(c) => 1 + c as u8,
            Cell::Verify(VerifyState::Verified) => 1,
            Cell::Verify(v) => 10 + v as u8,
            Cell::ReadError => 20,
        }
    }

    /// The cell's label as the legend shows it.
    pub fn label(self) -> &'static str {
        match self {
            Cell::NotYet => "not yet",
            Cell::Latency(c) => c.label(),
            Cell::Verify(v) => v.label(),
            Cell::ReadError => "read error",
        }
    }
}

impl From<Cell> for String {
    fn from(c: Cell) -> String {
        c.key().to_string()
    }
}

impl TryFrom<String> for Cell {
    type Error = String;
    fn try_from(s: String) -> Result<Cell, String> {
        (Cell::ALL.iter().copied())
            .find(|c| c.key() == s)
            .ok_or_else(|| format!("'{s}' is no surface map cell"))
    }
}

/// The span cut into `cells.len()` regions of `region_bytes` each (the last may be shorter).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionMap {
    /// Bytes the map covers, from offset 0 of the span.
    pub span_bytes: u64,
    /// Bytes of one region (the last may be shorter).
    pub region_bytes: u64,
    pub cells: Vec<Cell>,
}

impl RegionMap {
    /// A map of `span_bytes` cut into at most `regions` regions, each a multiple of `align`
    /// bytes (the scan's block; a span smaller than that is one region of the span), all not
    /// yet read.
    pub fn new(span_bytes: u64, regions: usize, align: u64) -> RegionMap {
        let align = align.max(1);
        let per = span_bytes.div_ceil(regions.max(1) as u64).max(1);
        // A span smaller than one block is one region of the span, not of the block.
        let region_bytes = (per.div_ceil(align) * align).min(span_bytes.max(1));
        let count = span_bytes.div_ceil(region_bytes).max(1) as usize;
        RegionMap {
            span_bytes,
            region_bytes,
            cells: vec![Cell::NotYet; count],
        }
    }

    /// The number of regions.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// True when the map has no regions (never, once built by `new`).
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The region holding byte `offset` (the last one for an offset past the span).
    pub fn region_of(&self, offset: u64) -> usize {
        ((offset / self.region_bytes) as usize).min(self.cells.len().saturating_sub(1))
    }

    /// Region `index`'s bytes: (start offset, length).
    pub fn region_range(&self, index: usize) -> (u64, u64) {
        let start = index as u64 * self.region_bytes;
        let end = (start + self.region_bytes).min(self.span_bytes);
        (start, end.saturating_sub(start))
    }

    /// Marks what was found at byte `offset`: its region keeps the worse of what it showed
    /// and `cell` (see `Cell::severity`).
    pub fn mark(&mut self, offset: u64, cell: Cell) {
        let index = self.region_of(offset);
        self.mark_region(index, cell);
    }

    /// Marks region `index` with `cell`, keeping the worse of the two.
    pub fn mark_region(&mut self, index: usize, cell: Cell) {
        if let Some(slot) = self.cells.get_mut(index)
            && cell.severity() >= slot.severity()
        {
            *slot = cell;
        }
    }

    /// Sets region `index` to `cell` whatever it showed (a new pass starts over).
    pub fn set_region(&mut self, index: usize, cell: Cell) {
        if let Some(slot) = self.cells.get_mut(index) {
            *slot = cell;
        }
    }

    /// How many regions show each cell value, in order of first appearance by severity.
    pub fn counts(&self) -> Vec<(Cell, usize)> {
        let mut out: Vec<(Cell, usize)> = Vec::new();
        for &cell in &self.cells {
            match out.iter_mut().find(|(c, _)| *c == cell) {
                Some((_, n)) => *n += 1,
                None => out.push((cell, 1)),
            }
        }
        out.sort_by_key(|(c, _)| c.severity());
        out
    }

    /// The map in at most `n` cells, each the worst of the regions it covers: what a screen
    /// narrower than the map draws.
    pub fn squeezed(&self, n: usize) -> Vec<Cell> {
        let n = n.clamp(1, self.cells.len().max(1));
        let len = self.cells.len();
        (0..n)
            .map(|k| {
                let (from, to) = (k * len / n, ((k + 1) * len / n).max(k * len / n + 1));
                let group = &self.cells[from.min(len)..to.min(len)];
                group
                    .iter()
                    .copied()
                    .max_by_key(|c| c.severity())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Regions marked so far (anything but not yet).
    pub fn done(&self) -> usize {
        self.cells.iter().filter(|c| **c != Cell::NotYet).count()
    }
}

/// What one region's reads measured.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct RegionStat {
    /// Bytes read in the region (less than its length for a quick scan).
    pub bytes_read: u64,
    /// Reads completed (failed ones included).
    pub ios: u64,
    /// Reads that failed.
    pub errors: u64,
    /// Seconds the device spent on the region's reads (the sum of service times).
    pub busy_s: f64,
    /// The slowest read's latency, submission to completion.
    pub max_latency_ns: u64,
    /// The slowest read's service time (what its class is judged on).
    pub max_service_ns: u64,
}

impl RegionStat {
    /// Bytes per second over the region's busy time; `None` before any read.
    pub fn bw_bytes_per_s(&self) -> Option<f64> {
        (self.busy_s > 0.0 && self.bytes_read > 0).then(|| self.bytes_read as f64 / self.busy_s)
    }
}

/// One read error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadError {
    /// Byte offset of the failed read.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// What the kernel said ("Input/output error (os error 5)").
    pub error: String,
}

/// A full scan reads every byte; a quick one an even sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanKind {
    Full,
    Quick,
}

/// One surface scan's result: what `--surface --json` writes under `surface`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SurfaceReport {
    pub kind: ScanKind,
    /// The target's path.
    pub target: String,
    /// Bytes of one read.
    pub block_bytes: u64,
    /// Reads in flight.
    pub depth: usize,
    /// The map: one cell per region.
    pub map: RegionMap,
    /// Per region, what its reads measured (same index as `map.cells`); the curve is their
    /// bandwidth against position.
    pub regions: Vec<RegionStat>,
    /// Every read error by offset, in offset order.
    pub errors: Vec<ReadError>,
    /// Bytes read in all.
    pub bytes_read: u64,
    /// Seconds the scan ran, the sessions before a resume included.
    pub elapsed_s: f64,
    /// Where the last session started, for a resumed scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<u64>,
    /// True when the scan reached the end of its plan; false when stopped early.
    pub complete: bool,
}

impl SurfaceReport {
    /// Bytes per second over the whole scan's wall time.
    pub fn bw_bytes_per_s(&self) -> f64 {
        if self.elapsed_s > 0.0 {
            self.bytes_read as f64 / self.elapsed_s
        } else {
            0.0
        }
    }

    /// The `n` slowest regions that were read, slowest first: (index, bandwidth).
    pub fn slowest(&self, n: usize) -> Vec<(usize, f64)> {
        let mut read: Vec<(usize, f64)> = self
            .regions
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.bw_bytes_per_s().map(|bw| (i, bw)))
            .collect();
        read.sort_by(|a, b| a.1.total_cmp(&b.1));
        read.truncate(n);
        read
    }
}

/// What `--surface --json` writes: who made it, the scan, and what it says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SurfaceDoc {
    pub meta: super::Meta,
    pub surface: SurfaceReport,
    pub findings: Vec<super::finding::Finding>,
    /// Where a stopped full scan was kept to resume from (the state directory's `surface/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_file: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_follow_victoria() {
        assert_eq!(LatencyClass::of_ns(4_999_999), LatencyClass::Under5Ms);
        assert_eq!(LatencyClass::of_ns(5_000_000), LatencyClass::Under20Ms);
        assert_eq!(LatencyClass::of_ns(199_000_000), LatencyClass::Under200Ms);
        assert_eq!(LatencyClass::of_ns(600_000_000), LatencyClass::Over600Ms);
    }

    #[test]
    fn regions_cover_the_span_in_whole_blocks() {
        let map = RegionMap::new(10 * 1024 * 1024 + 4096, 4, 1024 * 1024);
        assert_eq!(map.region_bytes, 3 * 1024 * 1024);
        assert_eq!(map.len(), 4);
        assert_eq!(map.region_range(3), (9 * 1024 * 1024, 1024 * 1024 + 4096));
        assert_eq!(map.region_of(u64::MAX), 3);
    }

    #[test]
    fn a_region_keeps_the_worst_mark() {
        let mut map = RegionMap::new(1 << 20, 2, 4096);
        map.mark(0, Cell::Latency(LatencyClass::Under50Ms));
        map.mark(10, Cell::Latency(LatencyClass::Under5Ms));
        assert_eq!(map.cells[0], Cell::Latency(LatencyClass::Under50Ms));
        map.mark(10, Cell::ReadError);
        map.mark(10, Cell::Latency(LatencyClass::Over600Ms));
        assert_eq!(map.cells[0], Cell::ReadError);
        map.mark_region(1, Cell::Verify(VerifyState::Verified));
        map.mark_region(1, Cell::Verify(VerifyState::Aliased));
        map.mark_region(1, Cell::Verify(VerifyState::Stale));
        assert_eq!(map.cells[1], Cell::Verify(VerifyState::Aliased));
        map.set_region(1, Cell::NotYet);
        assert_eq!(map.done(), 1);
    }

    #[test]
    fn a_squeezed_map_keeps_the_worst_of_each_group() {
        let mut map = RegionMap::new(8 << 20, 8, 1 << 20);
        map.mark_region(3, Cell::ReadError);
        map.mark_region(0, Cell::Latency(LatencyClass::Under5Ms));
        let cells = map.squeezed(3);
        assert_eq!(cells.len(), 3);
        assert_eq!(cells[0], Cell::Latency(LatencyClass::Under5Ms));
        assert_eq!(cells[1], Cell::ReadError);
        assert_eq!(cells[2], Cell::NotYet);
        assert_eq!(map.squeezed(100).len(), 8);
    }

    #[test]
    fn cells_are_plain_names_in_json_and_read_back() {
        let mut map = RegionMap::new(3 << 20, 3, 1 << 20);
        map.mark_region(0, Cell::Latency(LatencyClass::Under20Ms));
        map.mark_region(1, Cell::Verify(VerifyState::Aliased));
        let json = serde_json::to_string(&map).unwrap();
        assert!(
            json.contains(r#""cells":["under20_ms","aliased","not_yet"]"#),
            "{json}"
        );
        let back: RegionMap = serde_json::from_str(&json).unwrap();
        assert_eq!(back, map);
        for c in Cell::ALL {
            assert_eq!(Cell::try_from(c.key().to_string()), Ok(c));
        }
    }
}
