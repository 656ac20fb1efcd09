//! Keys declared once per screen: each screen has a table of bindings — the keys, the
//! command they give, when they apply, and their help — and both the key handler
//! (`keys`) and the `?` overlay read that table, so the help cannot drift from what the keys
//! do (gitui's `commands()` per component). A row's label is made from its keys.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key as a binding names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A character, whatever the modifiers (Ctrl-C and Ctrl-Z are taken before any table).
    Char(char),
    /// A character with Ctrl held.
    Ctrl(char),
    /// A named key: Tab, the arrows, Enter, Esc …
    Code(KeyCode),
    /// The first character, then the second (`s` then `t`).
    Then(char, char),
    /// Any character, typed into a field.
    Text,
    /// Any key at all.
    Any,
}

impl Key {
    /// Whether `k` is this key, with `prefix` the first key of a pair already pressed.
    pub fn matches(self, k: &KeyEvent, prefix: Option<char>) -> bool {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        match self {
            Key::Then(p, c) => prefix == Some(p) && k.code == KeyCode::Char(c),
            // Ctrl-C quits even while a pair of keys is half typed.
            Key::Ctrl(c) => ctrl && k.code == KeyCode::Char(c),
            _ if prefix.is_some() => false,
            Key::Char(c) => k.code == KeyCode::Char(c),
            Key::Code(code) => k.code == code,
            Key::Text => matches!(k.code, KeyCode::Char(_)),
            Key::Any => true,
        }
    }

    /// How the help names it: "space", "Ctrl-C", "↑", "PgUp", "s t".
    pub fn name(self) -> String {
        match self {
            Key::Char(' ') => "space".into(),
            Key::Char(c) => c.to_string(),
            Key::Ctrl(c) => format!("Ctrl-{}", c.to_ascii_uppercase()),
            Key::Then(p, c) => format!("{p} {c}"),
            Key::Text => "letters".into(),
            Key::Any => "any key".into(),
            Key::Code(code) => match code {
                KeyCode::Tab => "Tab".into(),
                KeyCode::BackTab => "S-Tab".into(),
                KeyCode::Up => "↑".into(),
                KeyCode::Down => "↓".into(),
                KeyCode::Left => "←".into(),
                KeyCode::Right => "→".into(),
                KeyCode::PageUp => "PgUp".into(),
                KeyCode::PageDown => "PgDn".into(),
                KeyCode::Home => "Home".into(),
                KeyCode::End => "End".into(),
                KeyCode::Enter => "Enter".into(),
                KeyCode::Esc => "Esc".into(),
                KeyCode::Backspace => "Backspace".into(),
                other => format!("{other:?}"),
            },
        }
    }
}

/// When a binding applies, beyond its screen: a state of the screen, named in the help.
pub struct When<S> {
    /// Said after the keys in the help: "sweeping" makes "Esc (sweeping)".
    pub name: &'static str,
    pub holds: fn(&S) -> bool,
}

/// One row of a screen's keys: each key with its command, when they apply, and the help.
pub struct Binding<C: 'static, S: 'static> {
    pub keys: &'static [(Key, C)],
    pub when: Option<When<S>>,
    pub help: &'static str,
    /// The word the screen's hint line gives this row ("sweep" makes "s sweep"); rows
    /// without one are only in the `?` overlay.
    pub hint: Option<&'static str>,
}

impl<C, S> Binding<C, S> {
    /// Keys that apply whatever the screen's state.
    pub const fn always(keys: &'static [(Key, C)], help: &'static str) -> Self {
        Binding {
            keys,
            when: None,
            help,
            hint: None,
        }
    }

    /// Keys that apply only while `when` holds.
    pub const fn when(keys: &'static [(Key, C)], when: When<S>, help: &'static str) -> Self {
        Binding {
            keys,
            when: Some(when),
            help,
            hint: None,
        }
    }

    /// The same row, shown on the screen's hint line as its first key and `word`.
    pub const fn hint(mut self, word: &'static str) -> Self {
        self.hint = Some(word);
        self
    }

    /// The key the hint line names: the first, or the first of a pair (`s` of `s t`).
    pub fn hint_key(&self) -> String {
        match self.keys.first() {
            Some((Key::Then(p, _), _)) => p.to_string(),
            Some((k, _)) => k.name(),
            None => String::new(),
        }
    }

    /// The keys as the help shows them: "Tab ↑ ↓ j k", "s t / s b", "Esc (sweeping)".
    pub fn label(&self) -> String {
        let mut names: Vec<String> = Vec::new();
        for (k, _) in self.keys {
            let n = k.name();
            if !names.contains(&n) {
                names.push(n);
            }
        }
        let pairs = self.keys.iter().any(|(k, _)| matches!(k, Key::Then(..)));
        let keys = names.join(if pairs { " / " } else { " " });
        match &self.when {
            Some(w) => format!("{keys} ({})", w.name),
            None => keys,
        }
    }
}

/// The command `key` gives on a screen in state `state`: the first row that applies and
/// has the key (rows are tried in order, so a conditional row goes before a plain one).
pub fn lookup<C: Copy, S>(
    table: &[Binding<C, S>],
    key: &KeyEvent,
    prefix: Option<char>,
    state: &S,
) -> Option<C> {
    table
        .iter()
        .filter(|b| b.when.as_ref().is_none_or(|w| (w.holds)(state)))
        .flat_map(|b| b.keys.iter())
        .find(|(k, _)| k.matches(key, prefix))
        .map(|(_, c)| *c)
}

/// Whether `c` starts a pair of keys in `table` (`s` of `s t`).
pub fn is_prefix<C, S>(table: &[Binding<C, S>], c: char) -> bool {
    table
        .iter()
        .flat_map(|b| b.keys.iter())
        .any(|(k, _)| matches!(k, Key::Then(p, _) if *p == c))
}

/// The hint line's entries of `table` in state `state`: (key, word) for each row that has a
/// hint and applies now, in the table's order.
pub fn hints<C, S>(table: &[Binding<C, S>], state: &S) -> Vec<(String, &'static str)> {
    table
        .iter()
        .filter(|b| b.when.as_ref().is_none_or(|w| (w.holds)(state)))
        .filter_map(|b| b.hint.map(|w| (b.hint_key(), w)))
        .collect()
}

/// A screen's keys on one line: "Enter back · e save · q Ctrl-C quit".
pub fn one_line<C, S>(table: &[Binding<C, S>]) -> String {
    table
        .iter()
        .map(|b| format!("{} {}", b.label(), b.help))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Why a row of `table` could never do what the help says (for the tables' tests): an earlier row that always
/// applies takes one of its keys first. `None` when every row is reachable.
#[cfg(test)]
pub fn shadowed<C, S>(table: &[Binding<C, S>]) -> Option<String> {
    for (i, row) in table.iter().enumerate() {
        for (k, _) in row.keys.iter().filter(|(k, _)| !matches!(k, Key::Any)) {
            let earlier = table[..i]
                .iter()
                .filter(|b| b.when.is_none())
                .find(|b| b.keys.iter().any(|(e, _)| e == k || *e == Key::Any));
            if let Some(b) = earlier {
                return Some(format!(
                    "{} of '{}' is taken by '{}'",
                    k.name(),
                    row.label(),
                    b.label()
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEvent;

    const T: &[Binding<u8, bool>] = &[
        Binding::when(
            &[(Key::Code(KeyCode::Esc), 1)],
            When {
                name: "busy",
                holds: |b| *b,
            },
            "cancel",
        ),
        Binding::always(
            &[(Key::Then('s', 't'), 2), (Key::Then('s', 'b'), 3)],
            "sweep",
        ),
        Binding::always(
            &[
                (Key::Char('q'), 4),
                (Key::Code(KeyCode::Esc), 4),
                (Key::Ctrl('c'), 4),
            ],
            "quit",
        ),
    ];

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::from(code)
    }

    #[test]
    fn the_first_row_that_applies_takes_the_key() {
        let esc = key(KeyCode::Esc);
        assert_eq!(lookup(T, &esc, None, &true), Some(1));
        assert_eq!(lookup(T, &esc, None, &false), Some(4));
        assert_eq!(
            lookup(T, &key(KeyCode::Char('t')), Some('s'), &false),
            Some(2)
        );
        // Half a pair takes nothing but its second key, and Ctrl-C.
        assert_eq!(lookup(T, &key(KeyCode::Char('q')), Some('s'), &false), None);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(lookup(T, &ctrl_c, Some('s'), &false), Some(4));
        assert!(is_prefix(T, 's') && !is_prefix(T, 'q'));
    }

    #[test]
    fn labels_are_made_from_the_keys() {
        let labels: Vec<String> = T.iter().map(Binding::label).collect();
        assert_eq!(labels, ["Esc (busy)", "s t / s b", "q Esc Ctrl-C"]);
        assert_eq!(shadowed(T), None);
        let bad: &[Binding<u8, ()>] = &[
            Binding::always(&[(Key::Char('q'), 1)], "quit"),
            Binding::always(&[(Key::Char('q'), 2)], "never"),
        ];
        assert_eq!(shadowed(bad).as_deref(), Some("q of 'q' is taken by 'q'"));
    }
}
