//! A surface scan in text: the header (what was read, how fast, how far), the map as a grid
//! of characters (one per region, the worst of the regions it covers where the map is wider
//! than the grid), its legend with counts, the slowest regions, every read error by offset,
//! and the findings. The characters are shared with the TUI's map (`glyph`), so a capture of
//! either reads the same. The target's path is escaped here, at the terminal boundary.

use crate::model::finding::Finding;
use crate::model::surface::{Cell, LatencyClass, ScanKind, SurfaceReport, VerifyState};
use crate::render::card::mb;
use crate::units::{
    format_block_size, format_byte_range, format_bytes, format_latency_ns, visible,
};

/// Columns of the text map.
pub const TEXT_MAP_COLUMNS: usize = 64;
/// Slowest regions listed.
pub const SLOWEST_LISTED: usize = 5;
/// Read errors listed in text (JSON holds every one).
pub const ERRORS_LISTED: usize = 20;

/// The character of a cell, in ASCII so a log or a plain console reads it: darker is slower,
/// as Victoria's greys; `X` a read error; verify states by their initial.
pub fn glyph(cell: Cell) -> char {
    match cell {
        Cell::NotYet => ' ',
        Cell::Latency(LatencyClass::Under5Ms) => '.',
        Cell::Latency(LatencyClass::Under20Ms) => ':',
        Cell::Latency(LatencyClass::Under50Ms) => '-',
        Cell::Latency(LatencyClass::Under200Ms) => '+',
        Cell::Latency(LatencyClass::Under600Ms) => '*',
        Cell::Latency(LatencyClass::Over600Ms) => '#',
        Cell::ReadError => 'X',
        Cell::Verify(VerifyState::Verified) => 'v',
        Cell::Verify(VerifyState::Zeroes) => 'z',
        Cell::Verify(VerifyState::Stale) => 's',
        Cell::Verify(VerifyState::Corrupt) => 'C',
        Cell::Verify(VerifyState::Aliased) => 'A',
    }
}

/// The header line: "full scan of /dev/sdb: 931.5 GiB of 931.5 GiB in 1M reads at depth 8,
/// 1h32m, 168.2 MB/s".
pub fn header(r: &SurfaceReport) -> String {
    let kind = match r.kind {
        ScanKind::Full => "full scan",
        ScanKind::Quick => "quick scan (an even sample)",
    };
    let resumed = r
        .resumed_from
        .map(|at| format!(", resumed at {}", format_bytes(at)))
        .unwrap_or_default();
    format!(
        "{kind} of {}: {} read of {} in {} reads at depth {}, {}, {} MB/s{resumed}",
        visible(&r.target),
        format_bytes(r.bytes_read),
        format_bytes(r.map.span_bytes),
        format_block_size(r.block_bytes),
        r.depth,
        crate::units::format_duration(std::time::Duration::from_secs_f64(r.elapsed_s.max(0.0))),
        mb(r.bw_bytes_per_s() / 1e6),
    )
}

/// The legend with each cell's count: ". <5 ms 2040  : <20 ms 6  X read error 2".
pub fn legend(r: &SurfaceReport) -> String {
    let counts: Vec<String> = r
        .map
        .counts()
        .into_iter()
        .map(|(cell, n)| format!("'{}' {} {n}", glyph(cell), cell.label()))
        .collect();
    counts.join("  ")
}

/// The map as rows of `columns` characters, each row led by its first offset.
pub fn grid(r: &SurfaceReport, columns: usize) -> Vec<String> {
    let cells = r.map.squeezed(r.map.len().min(columns * 16));
    let (n, regions) = (cells.len().max(1), r.map.len());
    cells
        .chunks(columns.max(1))
        .enumerate()
        .map(|(row, chunk)| {
            // The row's first cell covers regions from k·len/n on (`RegionMap::squeezed`).
            let (at, _) = r.map.region_range(row * columns * regions / n);
            let line: String = chunk.iter().map(|&c| glyph(c)).collect();
            format!("{:>10} |{line}|", format_bytes(at))
        })
        .collect()
}

/// The whole report with its findings.
pub fn report(r: &SurfaceReport, findings: &[Finding]) -> String {
    let mut out = vec![header(r)];
    let regions = if r.map.len() == 1 {
        "region"
    } else {
        "regions"
    };
    out.push(format!(
        "map: {} {regions} of {}, latency classes in Victoria's bands (the slowest read's service time)",
        r.map.len(),
        format_bytes(r.map.region_bytes)
    ));
    out.push(format!("  {}", legend(r)));
    out.extend(grid(r, TEXT_MAP_COLUMNS));
    let slowest = r.slowest(SLOWEST_LISTED);
    if !slowest.is_empty() {
        out.push("slowest regions:".into());
        for (i, bw) in slowest {
            let (start, len) = r.map.region_range(i);
            let stat = &r.regions[i];
            out.push(format!(
                "  {}: {} MB/s, slowest read {}",
                format_byte_range(start, start + len),
                mb(bw / 1e6),
                format_latency_ns(stat.max_service_ns as f64)
            ));
        }
    }
    if !r.errors.is_empty() {
        out.push(format!("read errors ({}):", r.errors.len()));
        for e in r.errors.iter().take(ERRORS_LISTED) {
            out.push(format!(
                "  at {} (byte {}), {}: {}",
                format_bytes(e.offset),
                e.offset,
                format_bytes(e.len),
                e.error
            ));
        }
        if r.errors.len() > ERRORS_LISTED {
            out.push(format!(
                "  … and {} more (--json lists them all)",
                r.errors.len() - ERRORS_LISTED
            ));
        }
    }
    for f in findings {
        out.push(format!("finding: {}", f.text));
    }
    if !r.complete {
        out.push("stopped before the end".into());
    }
    out.join("\n") + "\n"
}

/// The regions as CSV, one row each: where, what was read, how fast, its cell.
pub fn csv(r: &SurfaceReport) -> String {
    let mut out = String::from(
        "region,offset_bytes,len_bytes,bytes_read,ios,errors,bw_mb_s,max_latency_ms,max_service_ms,cell\n",
    );
    for (i, (stat, cell)) in r.regions.iter().zip(&r.map.cells).enumerate() {
        let (start, len) = r.map.region_range(i);
        let bw = stat
            .bw_bytes_per_s()
            .map_or(String::new(), |b| format!("{:.3}", b / 1e6));
        out.push_str(&format!(
            "{i},{start},{len},{},{},{},{bw},{:.3},{:.3},{}\n",
            stat.bytes_read,
            stat.ios,
            stat.errors,
            stat.max_latency_ns as f64 / 1e6,
            stat.max_service_ns as f64 / 1e6,
            cell.label()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::fold::{Completion, Fold};
    use crate::surface::plan::ScanPlan;

    #[test]
    fn the_text_names_the_slow_region_and_the_error_by_offset() {
        let plan = ScanPlan::full(4 << 20, 1 << 20, 4);
        let mut fold = Fold::new(&plan, "/dev/x", 8);
        for (i, ms) in [2u64, 300, 2, 2].iter().enumerate() {
            fold.add(&Completion {
                offset: (i as u64) << 20,
                len: 1 << 20,
                latency_ns: ms * 1_000_000,
                service_ns: ms * 1_000_000,
                busy_ns: ms * 1_000_000,
                result: if i == 3 {
                    Err("Input/output error".into())
                } else {
                    Ok(())
                },
            });
        }
        let text = report(&fold.finish(1.0, true), &[]);
        assert!(text.contains("|.*.X|"), "{text}");
        assert!(
            text.contains("at 3 MiB (byte 3145728), 1 MiB: Input/output error"),
            "{text}"
        );
        assert!(
            text.contains("1 MiB–2 MiB: 3.50 MB/s, slowest read 300 ms"),
            "{text}"
        );
    }

    #[test]
    fn map_rows_are_labelled_where_their_regions_start() {
        // 100 MiB + 4 KiB in 1 MiB regions: 101 regions, the second row starts at region 64.
        let plan = ScanPlan::full((100 << 20) + 4096, 1 << 20, 2048);
        let rows = grid(&Fold::new(&plan, "/dev/x", 8).finish(0.0, false), 64);
        assert!(rows[1].trim_start().starts_with("64 MiB |"), "{rows:?}");
        // 4096 regions squeezed into 1024 cells: a row of 64 cells is 256 regions.
        let plan = ScanPlan::full(4096 << 20, 1 << 20, 4096);
        let rows = grid(&Fold::new(&plan, "/dev/x", 8).finish(0.0, false), 64);
        assert!(rows[1].trim_start().starts_with("256 MiB |"), "{rows:?}");
    }

    #[test]
    fn a_span_smaller_than_a_block_is_one_region_of_the_span() {
        let plan = ScanPlan::full(1 << 20, 4 << 20, 2048);
        let text = report(&Fold::new(&plan, "/dev/x", 8).finish(0.0, false), &[]);
        assert!(text.contains("map: 1 region of 1 MiB,"), "{text}");
    }
}
