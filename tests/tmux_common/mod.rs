//! A real terminal for the end-to-end tests: a tmux server on its own socket (killed on
//! drop), keys in with `send-keys`, the screen back with `capture-pane`, and the pid of what
//! runs in the pane. `DISKSCOPE_BIN` runs another build of the binary (to see a test fail on
//! the code before its fix); the default is this build's.
#![allow(dead_code)]

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The binary under test.
pub fn bin() -> String {
    std::env::var("DISKSCOPE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_diskscope").into())
}

/// Whether tmux can run; when not, says the test is skipped.
pub fn tmux_installed() -> bool {
    let ok = Command::new("tmux").arg("-V").output().is_ok();
    if !ok {
        eprintln!("note: tmux is not installed; skipping the TUI end-to-end test");
    }
    ok
}

/// A tmux server on its own socket, killed on drop whatever happens in the test.
pub struct Tmux {
    pub socket: String,
}

impl Tmux {
    /// A new server on a socket named `name` and this process's id, running `shell` in a
    /// session named e2e of `w` x `h`.
    pub fn start(name: &str, (w, h): (u16, u16), shell: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
        };
        let (w, h) = (w.to_string(), h.to_string());
        let out = tmux.run(&["new-session", "-d", "-s", "e2e", "-x", &w, "-y", &h, shell]);
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux
    }

    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("running tmux")
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            let out = self.run(&["send-keys", "-t", "e2e", k]);
            assert!(
                out.status.success(),
                "send-keys {k}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    /// Waits until `ok(screen)`, or fails showing the last screen.
    pub fn wait_for(&self, what: &str, timeout: Duration, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > timeout {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The pid of the first process whose command line holds `needle` and that runs in
    /// the pane's session (the diskscope process, under whatever shell).
    pub fn process(&self, needle: &str) -> Option<i32> {
        let out = self.run(&["display-message", "-p", "-t", "e2e", "#{pane_pid}"]);
        let shell: i32 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
        let session = nix::unistd::getsid(Some(nix::unistd::Pid::from_raw(shell))).ok()?;
        std::fs::read_dir("/proc")
            .ok()?
            .filter_map(Result::ok)
            .find_map(|e| {
                let pid: i32 = e.file_name().to_str()?.parse().ok()?;
                let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                let sid = nix::unistd::getsid(Some(nix::unistd::Pid::from_raw(pid))).ok()?;
                (sid == session && pid != shell && cmd.contains(needle) && !cmd.starts_with("bash"))
                    .then_some(pid)
            })
    }

    /// Kills the server: the pane's terminal goes away, as when an ssh connection drops.
    pub fn hang_up(&self) {
        let _ = self.run(&["kill-server"]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// Waits until process `pid` is gone; fails after `timeout`.
pub fn wait_gone(pid: i32, timeout: Duration) {
    let start = Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        // A zombie is gone for this purpose: it ran to its end.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'))
        {
            return;
        }
        assert!(start.elapsed() < timeout, "process {pid} still runs");
        std::thread::sleep(Duration::from_millis(100));
    }
}
