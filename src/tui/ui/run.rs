//! The run screen: the status line, the sliders beside the kernel's view, the graphs beside
//! the histogram and the thread table (drawn in `panes`), and the message line; smaller
//! terminals drop panes.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Widget};

use super::hints::fit_message;
use super::panes::{draw_bw, draw_histogram, draw_iops, draw_kernel, draw_latency, draw_threads};
use super::{framed, why};
use crate::model::hot_spots::HotSpots;
use crate::render::baseline::{Baseline, Figures};
use crate::render::text::describe_settings;
use crate::settings::Knob;
use crate::tui::hits::{self, Hit};
use crate::tui::state::{Run, Series};
use crate::tui::widgets::Theme;
use crate::tui::widgets::sides::SideLines;
use crate::tui::widgets::slider::Slider;
use crate::units::{format_block_size, format_bytes, format_count_rate, format_duration};

/// The status line: target, span, mode, elapsed, errors, paused — fitted to `width`. The
/// state (elapsed, errors, warnings, PAUSED/STOPPING) always shows; what does not fit goes
/// first ("? help", the name, the span, the mode), then the path loses its middle. `extra`
/// (the sweep's description) comes before the path.
pub(super) fn status_line(
    run: &Run,
    theme: Theme,
    width: u16,
    extra: Option<Span<'static>>,
) -> Line<'static> {
    let i = &run.info;
    let sep = || Span::styled("│ ", theme.dim());
    let (elapsed, errors) = run
        .last
        .as_ref()
        .map_or((std::time::Duration::ZERO, 0), |s| {
            (s.at, s.total.errors + s.total.short_ios)
        });
    let err_style = if errors > 0 {
        theme.error()
    } else {
        Style::new()
    };
    // (drop order: 1 goes first, then 2 …; 0 and PATH stay; spans)
    let mut parts: Parts = vec![
        (2, vec![Span::styled("diskscope ", theme.accent())]),
        (0, extra.into_iter().collect()),
        (PATH, vec![]), // fitted last, into the room left
        (
            3,
            vec![
                sep(),
                Span::raw(format!("span {} ", format_bytes(i.target.span_bytes))),
            ],
        ),
        (
            4,
            vec![
                sep(),
                Span::raw(match (i.target.direct, run.settings.hipri) {
                    (true, true) => "direct, polled ",
                    (true, false) => "direct ",
                    (false, _) => "buffered ",
                }),
            ],
        ),
        (
            0,
            vec![sep(), Span::raw(format!("{} ", format_duration(elapsed)))],
        ),
        (
            0,
            vec![sep(), Span::styled(format!("errors {errors} "), err_style)],
        ),
    ];
    let verify =
        (run.last.as_ref()).and_then(|s| crate::render::verify::first_bad(&s.first_errors));
    parts.extend(verify.map(|t| (0, vec![sep(), Span::styled(t, theme.error())])));
    if let Some(link) = why::link_part(run) {
        parts.push((3, vec![Span::raw(link)]));
    }
    let (level, mark) = why::steady_mark(run, theme);
    parts.push((level, vec![mark]));
    parts.extend(fallback_part(run, theme).map(|s| (0, vec![s])));
    if !i.warnings.is_empty() {
        let text = format!("│ warnings {} ", i.warnings.len());
        parts.push((0, vec![Span::styled(text, theme.warn())]));
    }
    if run.stopping {
        parts.push((0, vec![Span::styled("│ STOPPING ", theme.warn())]));
    } else if run.paused {
        let style = theme
            .warn()
            .add_modifier(ratatui::style::Modifier::REVERSED);
        parts.push((0, vec![Span::styled("│ PAUSED ", style)]));
    }
    parts.push((1, vec![Span::styled("│ ? help", theme.dim())]));
    fit(
        parts,
        &format!("{} ", crate::units::visible(&i.target.path)),
        width,
    )
}

/// A status line's parts: `(drop order, spans)`, the path's slot marked `PATH`.
type Parts = Vec<(u8, Vec<Span<'static>>)>;
/// The slot the path is fitted into, last.
const PATH: u8 = u8::MAX;

/// The parts fitted to `width`: what does not fit goes first (drop order 1, then 2 … 4;
/// 0 stays), then `path` loses its middle to fit the room left.
fn fit(mut parts: Parts, path: &str, width: u16) -> Line<'static> {
    let used =
        |parts: &Parts| -> usize { parts.iter().flat_map(|(_, s)| s).map(Span::width).sum() };
    let room = |parts: &Parts| (width as usize).saturating_sub(used(parts));
    for level in 1..=4 {
        if room(&parts) >= path.chars().count().min(16) {
            break;
        }
        parts.retain(|(p, _)| *p != level);
    }
    let fitted = shorten_middle(path, room(&parts));
    if let Some(slot) = parts.iter_mut().find(|(p, _)| *p == PATH) {
        slot.1 = vec![Span::raw(fitted)];
    }
    Line::from(parts.into_iter().flat_map(|(_, s)| s).collect::<Vec<_>>())
}

pub(super) use crate::tui::widgets::shorten_middle;

/// "sweep threads: step 3/7 (4 threads), measuring · Esc cancels" while a sweep runs.
pub(super) fn sweep_progress(run: &Run) -> Option<String> {
    let sweep = run.sweep.as_ref().filter(|w| w.running())?;
    let (i, n, measuring) = sweep.runner.progress();
    let d = sweep.dimension();
    let value = sweep
        .runner
        .steps()
        .get(i)
        .map_or_else(String::new, |s| d.describe(d.value(s)));
    Some(format!(
        "sweep {}: step {}/{n} ({value}), {} · v chart · Esc cancels",
        d.name(),
        (i + 1).min(n),
        if measuring { "measuring" } else { "ramping up" }
    ))
}

/// The message line: an error, a notice (until the next key), a sweep's progress, the
/// rate's shortfall, the newest finding, the warnings, else the keys the hint line has no
/// room for.
pub(super) fn message_line(run: &Run, theme: Theme) -> Line<'static> {
    if let Some(m) = &run.message {
        Line::styled(m.clone(), theme.error())
    } else if let Some(n) = &run.notice {
        Line::styled(n.clone(), theme.accent())
    } else if let Some(p) = sweep_progress(run) {
        Line::styled(p, theme.warn())
    } else if let Some(s) = rate_shortfall(run) {
        Line::styled(s, theme.warn())
    } else if let Some(f) = ring_fallback(run) {
        Line::styled(f, theme.warn())
    } else if let Some(f) = why::finding_line(run, theme) {
        f
    } else if !run.info.warnings.is_empty() {
        Line::styled(
            format!("warning: {}", run.info.warnings.join("; ")),
            theme.warn(),
        )
    } else {
        Line::styled(
            "Tab/↑↓ slider · ←→ +- change · space pause · r reset statistics",
            theme.dim(),
        )
    }
}

/// "│ 2 thread(s) QD1: ring failed": the active threads on pread/pwrite after their ring
/// failed, whatever depth the header's settings say.
fn fallback_part(run: &Run, theme: Theme) -> Option<Span<'static>> {
    let s = run.last.as_ref()?;
    let fell = s.threads.iter().filter(|t| t.active && t.fell_back).count();
    let text = format!("│ {fell} thread(s) QD1: ring failed ");
    (fell > 0).then(|| Span::styled(text, theme.warn()))
}

/// The threads whose ring failed, as the summary says it.
fn ring_fallback(run: &Run) -> Option<String> {
    let s = run.last.as_ref()?;
    let fell = s.threads.iter().filter(|t| t.fell_back).map(|t| t.id);
    crate::render::text::fallback_line(fell, s.threads.len(), s.settings.iodepth)
}

/// "asked 50.0k IOPS, doing 31.2k: the disk is saturated", from the last whole second when
/// it ran entirely at the rate in force.
pub(super) fn rate_shortfall(run: &Run) -> Option<String> {
    let now = run.seconds.now.as_ref()?;
    if now.settings != run.settings || now.mixed_settings || run.paused {
        return None;
    }
    crate::render::rate::RateFigures::now(now).shortfall("doing", crate::render::rate::cpus())
}

/// The baseline's figures when it is a single run, or a fleet's median host.
pub(super) fn run_baseline(b: Option<&Baseline>) -> Option<Figures> {
    b.and_then(Baseline::run_figures)
}

pub(super) fn draw_run(
    run: &Run,
    baseline: Option<&Baseline>,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let base = run_baseline(baseline);
    if area.is_empty() {
        return;
    }
    if area.height < 3 {
        status_line(run, theme, area.width, None).render(Rect { height: 1, ..area }, buf);
        return;
    }
    let [status, body, message] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    status_line(run, theme, status.width, None).render(status, buf);
    fit_message(message_line(run, theme), message.width, theme).render(message, buf);
    if body.width >= 80 && body.height >= 20 {
        // Room for the settings' phrase under the sliders from 30 rows.
        let height = if body.height >= 30 { 11 } else { 10 };
        let [top, bottom] =
            Layout::vertical([Constraint::Length(height), Constraint::Fill(1)]).areas(body);
        let [controls, kernel] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
        draw_controls(run, theme, controls, buf);
        draw_kernel(run, theme, kernel, buf);
        draw_panes(run, base, theme, [3, 2, 3], bottom, buf);
    } else if body.height >= 8 {
        let [controls, rest] =
            Layout::vertical([Constraint::Length(8), Constraint::Fill(1)]).areas(body);
        draw_controls(run, theme, controls, buf);
        if rest.height >= 8 {
            let [iops, lat] =
                Layout::vertical([Constraint::Fill(1), Constraint::Fill(1)]).areas(rest);
            draw_iops(run, base, theme, iops, buf);
            draw_latency(run, base, theme, lat, buf);
        } else {
            draw_iops(run, base, theme, rest, buf);
        }
    } else {
        // Too small for the sliders' box: the settings as one line, then IOPS.
        let s = run.settings;
        let text = format!(
            "{}: {} thr {} r{}% rnd{}%",
            run.focus.label(),
            s.threads,
            format_block_size(s.bs),
            s.read_pct,
            s.random_pct
        );
        Line::raw(text).render(Rect { height: 1, ..body }, buf);
        if body.height > 1 {
            draw_iops(
                run,
                base,
                theme,
                Rect {
                    y: body.y + 1,
                    height: body.height - 1,
                    ..body
                },
                buf,
            );
        }
    }
}

/// The live panes: IOPS, bandwidth and latency (their heights in the proportions
/// `weights`) beside the latency histogram and the thread table.
pub(super) fn draw_panes(
    run: &Run,
    base: Option<Figures>,
    theme: Theme,
    weights: [u16; 3],
    area: Rect,
    buf: &mut Buffer,
) {
    let area = draw_sides(run, theme, area, buf);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(area);
    let [iops, bw, lat] = Layout::vertical(weights.map(Constraint::Fill)).areas(left);
    draw_iops(run, base, theme, iops, buf);
    draw_bw(run, theme, bw, buf);
    draw_latency(run, base, theme, lat, buf);
    let [hist, threads] = Layout::vertical([Constraint::Fill(1), Constraint::Fill(1)]).areas(right);
    draw_histogram(run, theme, hist, buf);
    draw_threads(run, theme, threads, buf);
}

/// The lines of each direction apart above the panes (`SideLines::split_off`).
fn draw_sides(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) -> Rect {
    let sides = run.seconds.now.as_ref().and_then(|n| n.sides.as_ref());
    SideLines::split_off(&run.settings, sides, theme, area, buf)
}

/// The rate slider's value: paced, the share of what the disk did unpaced where that is
/// known ("50% 7.2k"), else the rate. Where it sits on the bar is `settings::position`'s,
/// the same scale a click is read on.
fn rate_value(run: &Run) -> String {
    let rate = run.settings.rate_iops;
    match run.rate_base.filter(|b| *b > 0) {
        Some(base) => {
            let share = rate as f64 / base as f64;
            format!("{:.0}% {}", share * 100.0, format_count_rate(rate as f64))
        }
        None => format_count_rate(rate as f64),
    }
}

pub(super) fn draw_controls(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let title = if run.sweeping() {
        Span::styled(" controls locked: sweeping (Esc cancels) ", theme.warn())
    } else {
        Span::styled(" controls: Tab/↑↓ select, ←→ +- change ", theme.dim())
    };
    let block = Block::bordered().title(title);
    let inner = framed(block, area, buf);
    let s = run.settings;
    for (row, knob) in Knob::ALL.iter().enumerate().take(inner.height as usize) {
        let value = match knob {
            Knob::Threads => s.threads.to_string(),
            Knob::QueueDepth => s.iodepth.to_string(),
            Knob::BlockSize => format_block_size(s.bs),
            Knob::ReadPct if run.info.target.write_allowed => format!("{}", s.read_pct),
            Knob::ReadPct => format!("{} ro", s.read_pct),
            Knob::RandomPct => s.random_pct.to_string(),
            Knob::Skew => s.random_distribution.label(),
            Knob::Rate if s.rate_iops == 0 => "unlimited".into(),
            Knob::Rate => rate_value(run),
            Knob::TrimPct if run.info.trim_refusal.is_some() => format!("{} off", s.trim_pct),
            Knob::TrimPct => s.trim_pct.to_string(),
        };
        let slider = Slider {
            label: knob.label(),
            value,
            position: crate::settings::position(&s, *knob),
            focused: run.focus == *knob,
            theme,
        };
        let area = Rect {
            y: inner.y + row as u16,
            height: 1,
            ..inner
        };
        let (bar_x, bar_width) = slider.bar(area).unwrap_or((area.x, 0));
        hits::record(
            area,
            Hit::Slider {
                knob: *knob,
                bar_x,
                bar_width,
            },
        );
        slider.render(area, buf);
    }
    let rows = Knob::ALL.len() as u16;
    if inner.height > rows {
        let mut phrase = format!("  {}", describe_settings(&s));
        let counts = run.periods.current_counts().unwrap_or_default();
        let span = run.info.target.span_bytes;
        if let Some(h) = HotSpots::from_counts(0, s, &counts, span) {
            // The sliders say the settings; a skewed run says what the skew did instead.
            phrase = format!("  {}", h.short());
        }
        Line::styled(phrase, theme.dim()).render(
            Rect {
                y: inner.y + rows,
                height: 1,
                ..inner
            },
            buf,
        );
    }
}
