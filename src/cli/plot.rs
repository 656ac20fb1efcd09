//! `--plot FILE.svg` with the arguments: a name ending in .svg, for a mode that has a result
//! to draw, and never the file `--show` reads. Whether it is apart from the other files the
//! run uses (`config::check_apart`) and may receive a chart (`results::file::check_output`) is
//! checked with the other result files. Nothing here draws.

use std::path::PathBuf;

use super::Args;

/// The `--plot` path when it names an SVG for a mode with a result to draw; an error is one
/// line naming the path, the problem and the fix.
pub(super) fn plot_path(a: &Args) -> Result<Option<PathBuf>, String> {
    let Some(path) = a.output.plot.as_deref() else {
        return Ok(None);
    };
    let shown = crate::target::shell::quote_path(path);
    let o = &a.other;
    for (flag, given) in [
        ("--list", o.list),
        ("--fio", a.output.fio),
        ("--man", o.man),
        ("--completions", o.completions.is_some()),
    ] {
        if given {
            return Err(format!(
                "--plot {shown}: {flag} has no result to draw; drop --plot (or give --show FILE to draw a saved one)"
            ));
        }
    }
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !svg {
        return Err(format!(
            "--plot {shown}: the chart is SVG; name the file .svg (rsvg-convert turns it into a PNG)"
        ));
    }
    if let Some(show) = a.output.show.as_deref()
        && (show == path || crate::results::file::same_file(path, show))
    {
        return Err(format!(
            "--plot {shown}: that is the file of --show; give the chart its own file"
        ));
    }
    Ok(Some(path.to_path_buf()))
}
