//! Keys → `Action`s, per screen: the picker (and its path entry), the write confirmation,
//! the layout, the run screen with its sweep chart and suite card (`run`), the disks screen
//! of several targets (`disks`), and the overlays.
//! Every screen's keys are a table of `keymap::Binding`s declared here once; the handlers
//! look keys up in it and the `?` overlay lists it (`help`). Keys change the screen's own
//! state directly (selection, focus, typed text); what needs the engine or the disk goes out
//! as an `Action`.

mod complete;
mod disks;
mod disks_table;
#[cfg(test)]
mod readme;
pub(super) mod run;
mod run_table;
mod series;
mod slide;
mod surface;
#[cfg(test)]
pub use readme::reference;
pub(super) mod sliders;

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind};

use super::action::{Action, SurfaceAct};
use super::keymap::{self, Binding, Key, lookup, one_line};
use super::state::{App, Confirm, Picker, PickerRow, Screen};

/// What Ctrl-C and Ctrl-Z do wherever they are pressed, before any screen's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Global {
    Quit,
    Suspend,
}

const GLOBAL: &[Binding<Global, ()>] = &[
    Binding::always(&[(Key::Ctrl('z'), Global::Suspend)], "suspend (fg resumes)"),
    // Each screen's table lists Ctrl-C in its quit row too (a test checks), so the help
    // shows it there; this row is not listed again.
    Binding::always(&[(Key::Ctrl('c'), Global::Quit)], "quit"),
];

/// What a key does while the help or the fio job is shown over the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overlay {
    Quit,
    /// Scroll by this many lines (a page: the lines shown).
    Scroll(isize),
    Page(isize),
    Close,
}

const OVERLAY: &[Binding<Overlay, ()>] = &[
    Binding::always(
        &[
            (Key::Char('q'), Overlay::Quit),
            (Key::Ctrl('c'), Overlay::Quit),
        ],
        "quit",
    ),
    Binding::always(
        &[
            (Key::Code(KeyCode::Up), Overlay::Scroll(-1)),
            (Key::Code(KeyCode::Down), Overlay::Scroll(1)),
            (Key::Code(KeyCode::PageUp), Overlay::Page(-1)),
            (Key::Code(KeyCode::PageDown), Overlay::Page(1)),
        ],
        "scroll it",
    ),
    Binding::always(&[(Key::Any, Overlay::Close)], "close it"),
];

/// The picker's commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    Prev,
    Next,
    First,
    Last,
    Start,
    Surface,
    Mark,
    Mouse,
    Help,
    Log,
    Quit,
}

const PICKER: &[Binding<Pick, Picker>] = &[
    Binding::always(
        &[
            (Key::Code(KeyCode::Up), Pick::Prev),
            (Key::Code(KeyCode::Down), Pick::Next),
            (Key::Char('j'), Pick::Next),
            (Key::Char('k'), Pick::Prev),
            (Key::Code(KeyCode::Home), Pick::First),
            (Key::Code(KeyCode::End), Pick::Last),
        ],
        "choose",
    ),
    Binding::always(
        &[(Key::Code(KeyCode::Enter), Pick::Start)],
        "start (on all marked rows)",
    )
    .hint("start"),
    Binding::always(
        &[(Key::Char('S'), Pick::Surface)],
        "surface scan of the row: every block read in order, the map and the curve",
    )
    .hint("surface"),
    Binding::always(
        &[(Key::Char(' '), Pick::Mark)],
        "mark / unmark a row, to run several targets at once",
    )
    .hint("mark"),
    Binding::always(
        &[(Key::Char('M'), Pick::Mouse)],
        "mouse on/off (while on, Shift-drag selects text)",
    ),
    Binding::always(
        &[(Key::Char('L'), Pick::Log)],
        "the message log: every message whole",
    )
    .hint("log"),
    Binding::always(&[(Key::Char('?'), Pick::Help)], "this help").hint("help"),
    Binding::always(
        &[
            (Key::Char('q'), Pick::Quit),
            (Key::Code(KeyCode::Esc), Pick::Quit),
            (Key::Ctrl('c'), Pick::Quit),
        ],
        "quit (nothing has run yet)",
    )
    .hint("quit"),
];

/// The commands of a text field: the picker's path entry, the write confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Complete,
    Submit,
    Escape,
    Erase,
    Quit,
    Type,
}

const PATH_ENTRY: &[Binding<Entry, ()>] = &[
    Binding::always(
        &[(Key::Code(KeyCode::Tab), Entry::Complete)],
        "complete the path (as a shell does: as far as it is one, else the choices)",
    )
    .hint("complete"),
    Binding::always(&[(Key::Code(KeyCode::Enter), Entry::Submit)], "start").hint("start"),
    Binding::always(&[(Key::Code(KeyCode::Esc), Entry::Escape)], "back").hint("back"),
    Binding::always(&[(Key::Code(KeyCode::Backspace), Entry::Erase)], "erase"),
    Binding::always(&[(Key::Text, Entry::Type)], "type the path"),
    Binding::always(&[(Key::Ctrl('c'), Entry::Quit)], "quit").hint("quit"),
];

const CONFIRM: &[Binding<Entry, ()>] = &[
    Binding::always(&[(Key::Code(KeyCode::Enter), Entry::Submit)], "writes").hint("writes"),
    Binding::always(&[(Key::Code(KeyCode::Esc), Entry::Escape)], "read-only").hint("read-only"),
    Binding::always(&[(Key::Code(KeyCode::Backspace), Entry::Erase)], "erase"),
    Binding::always(&[(Key::Text, Entry::Type)], "type the device's path"),
    Binding::always(&[(Key::Ctrl('c'), Entry::Quit)], "quit").hint("quit"),
];

/// The layout of the scratch file: only leaving.
const PREPARING: &[Binding<(), ()>] = &[Binding::always(
    &[
        (Key::Char('q'), ()),
        (Key::Code(KeyCode::Esc), ()),
        (Key::Ctrl('c'), ()),
    ],
    "stop the layout and quit",
)
.hint("stop and quit")];

/// What the fleet screen's keys do: stop every host early (`true`), or, with Esc, leave once
/// the report is in (`false`: Esc never ends a fleet still running).
pub const FLEET: &[Binding<bool, ()>] = &[
    Binding::always(
        &[(Key::Char('q'), true), (Key::Ctrl('c'), true)],
        "stop every host early (each still reports); once done, leave",
    )
    .hint("quit"),
    Binding::always(
        &[(Key::Code(KeyCode::Esc), false)],
        "once done, leave (while the hosts run, nothing: q stops them)",
    ),
];

impl App {
    /// Handles a key; the returned action is for the run loop to carry out.
    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::None;
        }
        match lookup(GLOBAL, &key, None, &()) {
            Some(Global::Suspend) => return Action::Suspend,
            Some(Global::Quit) => return Action::Quit,
            None => {}
        }
        if self.help || self.fio.is_some() || self.log_shown {
            let (max, page) = super::ui::overlay_scroll_range(self);
            let scroll = |by: isize| self.overlay_scroll.saturating_add_signed(by).min(max);
            match lookup(OVERLAY, &key, None, &()) {
                Some(Overlay::Quit) => return Action::Quit,
                Some(Overlay::Scroll(by)) => self.overlay_scroll = scroll(by),
                Some(Overlay::Page(by)) => self.overlay_scroll = scroll(by * page as isize),
                _ => {
                    self.help = false;
                    self.fio = None;
                    self.log_shown = false;
                    self.overlay_scroll = 0;
                }
            }
            return Action::None;
        }
        let action = match &mut self.screen {
            Screen::Picker(p) => picker_key(p, key, &mut self.help),
            Screen::Confirm(c) => confirm_key(c, key),
            Screen::Preparing(_) => match lookup(PREPARING, &key, None, &()) {
                Some(()) => Action::Quit,
                None => Action::None,
            },
            Screen::Run(r) => run::run_key(r, key, &mut self.help, &mut self.fio),
            Screen::Disks(d) => disks::disks_key(d, key, &mut self.help),
            Screen::Surface(v) => surface::surface_key(v, key, &mut self.help),
        };
        if action == Action::ShowLog {
            self.log_shown = true;
            // The newest messages: the overlay stops at its last page.
            self.overlay_scroll = usize::MAX;
            return Action::None;
        }
        action
    }
}

/// The hint line's entries of the screen showing: `? help` first, quit last, the feature
/// keys between, from the same tables as the handlers and the `?` overlay.
pub fn hints(app: &App) -> Vec<(String, &'static str)> {
    match &app.screen {
        Screen::Picker(p) if p.input.is_some() => keymap::hints(PATH_ENTRY, &()),
        Screen::Picker(p) => keymap::hints(PICKER, p),
        Screen::Confirm(_) => keymap::hints(CONFIRM, &()),
        Screen::Preparing(_) => keymap::hints(PREPARING, &()),
        Screen::Run(r) => run::hints(r),
        Screen::Disks(d) => disks::hints(d),
        Screen::Surface(v) => surface::hints(v),
    }
}

/// The keys the `?` overlay lists: every row of the screen showing (and the keys that work
/// anywhere), then every other screen's keys a line each.
pub fn help(app: &App) -> (Vec<(String, &'static str)>, Vec<String>) {
    fn rows<C, S>(t: &[Binding<C, S>]) -> Vec<(String, &'static str)> {
        t.iter().map(|b| (b.label(), b.help)).collect()
    }
    let mut here = match &app.screen {
        Screen::Picker(p) if p.input.is_some() => rows(PATH_ENTRY),
        Screen::Picker(_) => rows(PICKER),
        Screen::Confirm(_) => rows(CONFIRM),
        Screen::Preparing(_) => rows(PREPARING),
        Screen::Run(r) => run::rows(r.view),
        Screen::Disks(d) => disks::rows(d),
        Screen::Surface(_) => surface::rows(),
    };
    here.extend(rows(&GLOBAL[..1]));
    let mut elsewhere = match &app.screen {
        Screen::Disks(d) => vec![disks::other_view(d)],
        _ => vec![],
    };
    elsewhere.extend(run::other_views(app.run().map(|r| r.view)));
    elsewhere.extend([
        format!("picker: {}", one_line(PICKER)),
        format!("write confirm: {}", one_line(CONFIRM)),
        format!("path entry: {}", one_line(PATH_ENTRY)),
        format!("laying out: {}", one_line(PREPARING)),
        format!("surface scan: {}", surface::one_line()),
        format!("help or fio shown: {}", one_line(OVERLAY)),
    ]);
    (here, elsewhere)
}

fn picker_key(p: &mut Picker, key: KeyEvent, help: &mut bool) -> Action {
    if p.input.is_some() {
        return path_entry_key(p, key);
    }
    let last = p.rows.len().saturating_sub(1);
    match lookup(PICKER, &key, None, p) {
        Some(Pick::Prev) => p.selected = p.selected.saturating_sub(1),
        Some(Pick::Next) => p.selected = (p.selected + 1).min(last),
        Some(Pick::First) => p.selected = 0,
        Some(Pick::Last) => p.selected = last,
        Some(Pick::Help) => *help = true,
        Some(Pick::Log) => return Action::ShowLog,
        Some(Pick::Quit) => return Action::Quit,
        Some(Pick::Mark) => p.toggle_mark(),
        Some(Pick::Mouse) => return Action::ToggleMouse,
        Some(Pick::Surface) => match p.rows.get(p.selected) {
            Some(PickerRow::Scratch { .. }) => return Action::Surface(SurfaceAct::Open(None)),
            Some(PickerRow::Device(d)) => {
                let path = PathBuf::from(&d.path);
                return Action::Surface(SurfaceAct::Open(Some(path)));
            }
            _ => p.message = Some("S scans a listed device or the scratch file".into()),
        },
        Some(Pick::Start) if !p.marked.is_empty() => {
            let mut targets = p.marked_targets();
            return match targets.len() {
                1 if p.marked == [0] => Action::Start(None),
                1 => Action::Start(targets.pop()),
                _ => Action::StartMany(targets),
            };
        }
        Some(Pick::Start) => match p.rows.get(p.selected) {
            Some(PickerRow::Scratch { .. }) => return Action::Start(None),
            Some(PickerRow::Device(d)) => {
                if let crate::target::discover::Access::Denied(why) = &d.access {
                    p.message = Some(format!("{}: cannot open it ({why}); try as root", d.path));
                    return Action::None;
                }
                return Action::Start(Some(PathBuf::from(&d.path)));
            }
            Some(PickerRow::EnterPath) => {
                p.input = Some(String::new());
                p.message = None;
            }
            None => {}
        },
        None => {}
    }
    Action::None
}

/// The picker's "enter a path" row being typed into.
fn path_entry_key(p: &mut Picker, key: KeyEvent) -> Action {
    let Some(input) = &mut p.input else {
        return Action::None;
    };
    match lookup(PATH_ENTRY, &key, None, &()) {
        Some(Entry::Submit) => {
            let path = input.trim().to_string();
            if path.is_empty() {
                p.message = Some("type the path of a device, file or directory".into());
                return Action::None;
            }
            p.input = None;
            return Action::Start(Some(PathBuf::from(path)));
        }
        Some(Entry::Escape) => p.input = None,
        Some(Entry::Complete) => {
            let (completed, choices) = complete::complete(input);
            *input = completed;
            p.message = choices;
        }
        Some(Entry::Erase) => {
            input.pop();
            p.message = None;
        }
        Some(Entry::Quit) => return Action::Quit,
        Some(Entry::Type) => {
            typed(input, &key);
            p.message = None;
        }
        None => {}
    }
    Action::None
}

fn confirm_key(c: &mut Confirm, key: KeyEvent) -> Action {
    match lookup(CONFIRM, &key, None, &()) {
        Some(Entry::Submit) => return Action::ConfirmWrite(c.input.trim().to_string()),
        Some(Entry::Escape) => return Action::ReadOnly,
        Some(Entry::Erase) => {
            c.input.pop();
        }
        Some(Entry::Complete) => {}
        Some(Entry::Quit) => return Action::Quit,
        Some(Entry::Type) => typed(&mut c.input, &key),
        None => {}
    }
    Action::None
}

/// Adds the character `key` types to `input`.
fn typed(input: &mut String, key: &KeyEvent) {
    if let KeyCode::Char(ch) = key.code {
        input.push(ch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::keymap::shadowed;
    use crate::tui::state::View;

    /// Every key the help lists does what its row says: no row is hidden behind an earlier
    /// one that always applies.
    #[test]
    fn no_key_in_a_table_is_taken_by_an_earlier_row() {
        for problem in [
            shadowed(GLOBAL),
            shadowed(OVERLAY),
            shadowed(PICKER),
            shadowed(PATH_ENTRY),
            shadowed(CONFIRM),
            shadowed(PREPARING),
            shadowed(FLEET),
            shadowed(surface::SURFACE),
        ] {
            assert_eq!(problem, None);
        }
    }

    /// README.md's key reference is the one the tables make: a key added, changed or
    /// dropped in a table and not in the README fails here. `UPDATE_README=1` rewrites it.
    #[test]
    fn the_readme_lists_the_keys_the_tables_have() {
        const BEGIN: &str =
            "<!-- keys: made from src/tui/keys by `UPDATE_README=1 cargo test --lib readme` -->\n";
        const END: &str = "<!-- keys end -->";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let (Some(a), Some(b)) = (readme.find(BEGIN), readme.find(END)) else {
            panic!("README.md has no key reference between {BEGIN:?} and {END:?}");
        };
        let listed = &readme[a + BEGIN.len()..b];
        let made = reference();
        if listed != made && std::env::var_os("UPDATE_README").is_some() {
            let updated = format!("{}{made}{}", &readme[..a + BEGIN.len()], &readme[b..]);
            std::fs::write(path, updated).unwrap();
            return;
        }
        assert!(
            listed == made,
            "README.md's keys differ from the tables; run UPDATE_README=1 cargo test --lib readme\n--- README\n{listed}\n--- tables\n{made}"
        );
    }

    /// Ctrl-C quits wherever it is pressed (`GLOBAL`); every screen's help says so in its
    /// quit row.
    #[test]
    fn every_screen_lists_ctrl_c() {
        fn lists<C, S>(t: &[Binding<C, S>]) -> bool {
            t.iter().any(|b| b.label().contains("Ctrl-C"))
        }
        assert!(lists(PICKER) && lists(PATH_ENTRY) && lists(CONFIRM));
        assert!(lists(PREPARING) && lists(FLEET) && lists(OVERLAY));
        for v in [View::Live, View::Sweep, View::Suite] {
            assert!(
                run::rows(v).iter().any(|(k, _)| k.contains("Ctrl-C")),
                "{v:?}"
            );
        }
    }
}
