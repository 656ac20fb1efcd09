//! The `diskscope --list` table: one line per discovered device, fitting 80 columns for typical
//! names. This module owns only the text layout of [`DeviceInfo`] rows; it must not discover
//! devices, touch the filesystem, or decide which devices are shown (see `discover::visible`).

use crate::target::discover::{Access, DeviceInfo, DeviceKind};

/// Width the table aims to fit.
const WIDTH: usize = 80;

/// Marker appended to the name of a device the current user cannot open.
const MARK: char = '*';

/// Bytes in binary units with one decimal: `512 B`, `931.5 GiB`.
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64;
    let mut unit = 0;
    // Move up while the value would print as 1024.0 or more.
    while value >= 1023.95 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// `s` cut to `width` characters, ending in `…` when cut.
fn truncate(s: &str, width: usize) -> String {
    if char_len(s) <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    out.push('…');
    out
}

fn pad(s: &str, width: usize) -> String {
    let fill = width.saturating_sub(char_len(s));
    format!("{s}{}", " ".repeat(fill))
}

fn pad_left(s: &str, width: usize) -> String {
    let fill = width.saturating_sub(char_len(s));
    format!("{}{s}", " ".repeat(fill))
}

/// The MOUNTED cell: holders win (the device is claimed by md/dm), then mount points.
fn mounted_cell(dev: &DeviceInfo) -> String {
    let more = |n: usize| {
        if n > 1 {
            format!(" +{}", n - 1)
        } else {
            String::new()
        }
    };
    if let Some(first) = dev.holders.first() {
        format!("in use by {first}{}", more(dev.holders.len()))
    } else if let Some(first) = dev.mountpoints.first() {
        format!("{first}{}", more(dev.mountpoints.len()))
    } else {
        "-".to_string()
    }
}

struct Row {
    device: String,
    size: String,
    kind: String,
    blocks: String,
    sched: String,
    link: String,
    health: String,
    /// HEALTH without the hours, for a table that has no room for them.
    health_short: String,
    model: String,
    mounted: String,
}

fn row(dev: &DeviceInfo, last_partition: bool) -> Row {
    let mut device = match dev.kind {
        DeviceKind::Disk => dev.name.clone(),
        DeviceKind::Partition if last_partition => format!("└─{}", dev.name),
        DeviceKind::Partition => format!("├─{}", dev.name),
    };
    if !dev.access.is_ok() {
        device.push(MARK);
    }
    let kind = match (dev.kind, dev.rotational) {
        (DeviceKind::Partition, _) => "part",
        // A loop device's rotational flag is the kernel's default, not a disk's.
        (DeviceKind::Disk, _) if dev.link.kind == crate::model::disk::LinkKind::Loop => "loop",
        (DeviceKind::Disk, true) => "HDD",
        (DeviceKind::Disk, false) => "SSD",
    };
    // A partition shares its disk's model and link: the tree shows whose.
    let (model, link) = match dev.kind {
        DeviceKind::Partition => (String::new(), String::new()),
        DeviceKind::Disk => (
            dev.model.clone().unwrap_or_else(|| "-".to_string()),
            dev.link.label.clone(),
        ),
    };
    Row {
        device,
        size: human_size(dev.size_bytes),
        kind: kind.to_string(),
        blocks: format!("{}/{}", dev.logical_block_size, dev.physical_block_size),
        sched: dev.scheduler.clone().unwrap_or_else(|| "-".to_string()),
        link,
        health: dev.health.as_ref().map(|h| h.cell()).unwrap_or_default(),
        health_short: (dev.health.as_ref().map(|h| h.short_cell())).unwrap_or_default(),
        model,
        mounted: mounted_cell(dev),
    }
}

/// Lines `"* <reason>: a, b, c"` wrapped to [`WIDTH`], one group per distinct reason.
fn footnotes(devs: &[DeviceInfo]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for dev in devs {
        if let Access::Denied(reason) = &dev.access {
            match groups.iter_mut().find(|(r, _)| r == reason) {
                Some((_, names)) => names.push(&dev.name),
                None => groups.push((reason.clone(), vec![&dev.name])),
            }
        }
    }
    let mut lines = Vec::new();
    for (reason, names) in groups {
        let mut line = format!("{MARK} {reason}:");
        for (i, name) in names.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            if char_len(&line) + sep.len() + char_len(name) + 1 > WIDTH {
                line.push(',');
                lines.push(line);
                line = format!("    {name}");
            } else {
                line.push_str(sep);
                line.push_str(name);
            }
        }
        lines.push(line);
    }
    lines
}

/// The `--list` table for `devs` (disks followed by their partitions, as `discover` orders
/// them): DEVICE, SIZE, TYPE, LBS/PBS, SCHED, LINK, HEALTH (where read), MODEL, MOUNTED,
/// then a footnote per access problem and per reason a drive's health could not be read.
/// Partitions are drawn as a tree under their disk. To keep lines within 80 columns, SCHED is
/// left out when the rest would not fit, then HEALTH's hours, then MODEL and MOUNTED are cut
/// with `…`.
pub fn format_table(devs: &[DeviceInfo]) -> String {
    let mut rows: Vec<Row> = devs
        .iter()
        .enumerate()
        .map(|(i, dev)| {
            let last = devs
                .get(i + 1)
                .is_none_or(|next| next.kind != DeviceKind::Partition);
            row(dev, last)
        })
        .collect();
    let header = header_row();
    let read = devs.iter().any(|d| d.health.is_some());
    if read {
        fit_health(&mut rows, &header);
    }
    let widest = |f: fn(&Row) -> &String| widest_in(&rows, &header, f);
    let w_device = widest(|r| &r.device);
    let w_size = widest(|r| &r.size);
    let w_kind = widest(|r| &r.kind);
    let w_blocks = widest(|r| &r.blocks);
    let w_link = widest(|r| &r.link);
    let w_health = if read { widest(|r| &r.health) + 1 } else { 0 };
    let model_nat = widest(|r| &r.model);
    let mounted_nat = widest(|r| &r.mounted);
    // SCHED is the first column to go when the rest would not fit (it stays in --json).
    let base = w_device + w_size + w_kind + w_blocks + w_link + w_health + 5;
    let w_sched = Some(widest(|r| &r.sched) + 1)
        .filter(|w| base + w + 1 + model_nat + mounted_nat <= WIDTH)
        .unwrap_or(0);
    // MODEL and MOUNTED keep 12 columns, or 8 where HEALTH took its place beside them.
    let floor = if read { 8 } else { 12 };
    let avail = WIDTH.saturating_sub(base + w_sched + 1).max(floor);
    let (w_model, w_mounted) = if model_nat + mounted_nat <= avail {
        (model_nat, mounted_nat)
    } else {
        // MOUNTED keeps its width up to 40% of the space; MODEL takes the rest.
        let mounted = mounted_nat.min((avail - model_nat.min(avail)).max(avail * 2 / 5));
        (avail - mounted, mounted)
    };

    let mut out = String::new();
    for r in std::iter::once(&header).chain(rows.iter()) {
        let mut cells = vec![
            pad(&r.device, w_device),
            pad_left(&r.size, w_size),
            pad(&r.kind, w_kind),
            pad_left(&r.blocks, w_blocks),
        ];
        if w_sched > 0 {
            cells.push(pad(&r.sched, w_sched - 1));
        }
        cells.push(pad(&r.link, w_link));
        if w_health > 0 {
            cells.push(pad(&r.health, w_health - 1));
        }
        cells.extend([
            pad(&truncate(&r.model, w_model), w_model),
            truncate(&r.mounted, w_mounted),
        ]);
        out.push_str(cells.join(" ").trim_end());
        out.push('\n');
    }
    for note in footnotes(devs).into_iter().chain(health_notes(devs)) {
        out.push_str(&note);
        out.push('\n');
    }
    out
}

/// The column titles.
fn header_row() -> Row {
    Row {
        device: "DEVICE".into(),
        size: "SIZE".into(),
        kind: "TYPE".into(),
        blocks: "LBS/PBS".into(),
        sched: "SCHED".into(),
        link: "LINK".into(),
        health: "HEALTH".into(),
        health_short: "HEALTH".into(),
        model: "MODEL".into(),
        mounted: "MOUNTED".into(),
    }
}

/// HEALTH, where the drives' health was read (`--list` reads it), loses its hours when MODEL
/// and MOUNTED would have less than 12 columns left.
fn fit_health(rows: &mut [Row], header: &Row) {
    let cols: [fn(&Row) -> &String; 6] = [
        |r| &r.device,
        |r| &r.size,
        |r| &r.kind,
        |r| &r.blocks,
        |r| &r.link,
        |r| &r.health,
    ];
    let fixed: usize = cols.iter().map(|f| widest_in(rows, header, *f)).sum();
    if fixed + 7 + 12 > WIDTH {
        for r in rows {
            r.health = std::mem::take(&mut r.health_short);
        }
    }
}

/// The widest of a column, its header included.
fn widest_in(rows: &[Row], header: &Row, f: fn(&Row) -> &String) -> usize {
    rows.iter()
        .chain(std::iter::once(header))
        .map(|r| char_len(f(r)))
        .max()
        .unwrap_or(0)
}

/// "HEALTH unknown (sda, sdb): <why>" once per distinct reason (smartctl absent, failing:
/// the device's own path said as "the drive", so one reason for many disks is one note),
/// wrapped to [`WIDTH`] at spaces.
fn health_notes(devs: &[DeviceInfo]) -> Vec<String> {
    let mut reasons: Vec<(String, Vec<&str>)> = Vec::new();
    for d in devs {
        let Some(why) = d.health.as_ref().and_then(|h| h.problem()) else {
            continue;
        };
        let why = why.replace(&d.path, "the drive");
        match reasons.iter_mut().find(|(r, _)| *r == why) {
            Some((_, names)) => names.push(&d.name),
            None => reasons.push((why, vec![&d.name])),
        }
    }
    let mut lines = Vec::new();
    for (why, names) in reasons {
        let mut line = format!("HEALTH unknown ({}):", names.join(", "));
        for word in why.split_whitespace() {
            if char_len(&line) + 1 + char_len(word) > WIDTH {
                lines.push(std::mem::replace(&mut line, format!("    {word}")));
            } else {
                line.push(' ');
                line.push_str(word);
            }
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(1023), "1023 B");
        assert_eq!(human_size(1024), "1.0 KiB");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(1_000_204_886_016), "931.5 GiB");
        assert_eq!(human_size(1024 * 1024 * 1024 - 1), "1.0 GiB");
        assert_eq!(human_size(u64::MAX), "16.0 EiB");
    }

    #[test]
    fn truncation_uses_ellipsis() {
        assert_eq!(truncate("Samsung SSD 980", 8), "Samsung…");
        assert_eq!(truncate("short", 8), "short");
        assert_eq!(truncate("x", 0), "");
    }
}
