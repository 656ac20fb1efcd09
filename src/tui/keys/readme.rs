//! The README's key reference, made from the same tables the handlers and the `?` overlay
//! read (tests only: `UPDATE_README=1 cargo test --lib readme` writes it into README.md).

use crate::tui::keymap::Binding;

/// Every screen's keys as the README lists them (a Markdown table per screen), made from
/// the same tables the handlers and the `?` overlay read; a test keeps README.md's copy
/// equal to it.
pub fn reference() -> String {
    fn rows<C, S>(t: &[Binding<C, S>]) -> Vec<(String, &'static str)> {
        t.iter().map(|b| (b.label(), b.help)).collect()
    }
    let mut screens: Vec<(&str, Vec<(String, &'static str)>)> = vec![
        (
            "the run screen",
            super::run::rows(crate::tui::state::View::Live),
        ),
        (
            "a sweep's chart",
            super::run::rows(crate::tui::state::View::Sweep),
        ),
        (
            "a suite's card",
            super::run::rows(crate::tui::state::View::Suite),
        ),
        ("the picker", rows(super::PICKER)),
        ("the picker's path entry", rows(super::PATH_ENTRY)),
        ("the write confirmation", rows(super::CONFIRM)),
        ("laying out the scratch file", rows(super::PREPARING)),
    ];
    screens.extend(super::disks::all_rows());
    screens.push(("the surface scan", super::surface::rows()));
    screens.push((
        "the help, the fio job or the message log shown",
        rows(super::OVERLAY),
    ));
    screens.push(("everywhere", rows(super::GLOBAL)));
    let mut out = String::new();
    for (name, rows) in screens {
        out.push_str(&format!(
            "\n**{name}**\n\n| keys | what they do |\n|---|---|\n"
        ));
        for (keys, help) in rows {
            out.push_str(&format!("| `{keys}` | {help} |\n"));
        }
    }
    out
}
