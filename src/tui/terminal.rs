//! The terminal's two states and the ways between them. `init` enters raw mode and the
//! alternate screen; `restore` leaves them, and is reached on every way out: normal quit, an
//! error (the `Guard`'s drop), a panic (a hook that restores before the message prints), and
//! SIGTERM/SIGHUP/SIGINT (the `signals` flag, polled by the run loop, ends the loop normally).
//!
//! Raw mode turns off ISIG, so Ctrl-Z arrives as a key, not as SIGTSTP: `suspend` restores the
//! terminal, stops the process with SIGTSTP itself, and re-enters when `fg` continues it.
//!
//! The mouse: `set_mouse` asks the terminal to report presses, drags and the wheel (xterm's
//! modes 1000 and 1002, in SGR encoding, 1006 — not every motion, 1003, which would wake the
//! loop for nothing). `restore` always turns all three off, so every way out above gives the
//! terminal its own mouse (and text selection) back; `enter` turns them on again after `fg`
//! when they were on.

use std::io::{self, Stdout, Write, stdout};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::cursor::{Hide, Show};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

/// The real terminal.
pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Restores the terminal when dropped, so an early `?` return cannot leave it raw.
pub struct Guard(());

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Enters raw mode and the alternate screen, with the panic hook installed first.
pub fn init() -> io::Result<(Term, Guard)> {
    install_panic_hook();
    enter()?;
    let guard = Guard(());
    let terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
    Ok((terminal, guard))
}

fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(stdout(), EnterAlternateScreen, Hide)?;
    if MOUSE.load(Ordering::Relaxed) {
        write_mouse(true)?;
    }
    Ok(())
}

/// Whether the mouse is captured (the TUI asked for it and has not let it go).
static MOUSE: AtomicBool = AtomicBool::new(false);

/// Presses and releases (1000), drags (1002), in SGR encoding (1006).
const MOUSE_ON: &str = "\x1b[?1000h\x1b[?1002h\x1b[?1006h";
const MOUSE_OFF: &str = "\x1b[?1006l\x1b[?1002l\x1b[?1000l";

fn write_mouse(on: bool) -> io::Result<()> {
    let mut out = stdout();
    out.write_all(if on { MOUSE_ON } else { MOUSE_OFF }.as_bytes())?;
    out.flush()
}

/// Captures the mouse (clicks, drags and the wheel come as events) or gives it back to the
/// terminal (its own text selection); kept across Ctrl-Z and `fg`.
pub fn set_mouse(on: bool) {
    MOUSE.store(on, Ordering::Relaxed);
    let _ = write_mouse(on);
}

/// Leaves raw mode, the mouse's capture and the alternate screen; errors are ignored (the
/// terminal may be gone, as after SIGHUP), and calling it twice is harmless.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = write_mouse(false);
    let _ = execute!(stdout(), LeaveAlternateScreen, Show);
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Ctrl-Z: gives the terminal back, stops until `fg`, then takes it again. The caller must
/// redraw everything (`Terminal::clear`).
pub fn suspend() -> io::Result<()> {
    restore();
    let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGTSTP);
    enter()
}
