//! How much memory a run's I/O buffers may take. Every worker holds `bs` bytes of aligned
//! buffer (times the requests it keeps in flight), so `-t 1024 -b 16M` alone asks for 16 GiB:
//! on a small server that ends in the OOM killer, not in a benchmark. The limit is a quarter of
//! the memory this process may really use — the smallest of the machine's RAM, the cgroup's
//! memory limit (v1 or v2, ancestors included) and the address-space rlimit — so the page
//! cache, the kernel and whatever else the server runs keep the rest. It is read once per
//! process; the reading is a pure function of the files' text so tests can feed it fixtures.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::units::format_bytes;

/// Stack size of a worker thread; with its guard page, counted against the limit too.
pub const THREAD_STACK: usize = 256 << 10;

/// The share of usable memory the buffers may take: one part in `SHARE_DIVISOR`.
const SHARE_DIVISOR: u64 = 4;

/// The buffer limit and the memory it was derived from, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferLimit {
    /// Most bytes of I/O buffers a run may hold at once.
    pub bytes: u64,
    /// What the limit is a quarter of, e.g. "the 24 GiB of RAM" or "the cgroup's 2 GiB limit".
    pub basis: String,
}

impl BufferLimit {
    /// Derives the limit from /proc/meminfo's text, the cgroup limits found (bytes) and the
    /// address-space rlimit (bytes), whichever is smallest.
    pub fn from_sources(meminfo: &str, cgroup_bytes: Option<u64>, rlimit_as: Option<u64>) -> Self {
        let ram = mem_total(meminfo);
        let mut best: Option<(u64, String)> =
            ram.map(|b| (b, format!("the {} of RAM", format_bytes(b))));
        let others = [
            (cgroup_bytes, "the cgroup's memory limit of"),
            (rlimit_as, "the address space left under ulimit -v,"),
        ];
        for (bytes, what) in others {
            if let Some(b) = bytes
                && best.as_ref().is_none_or(|(m, _)| b < *m)
            {
                best = Some((b, format!("{what} {}", format_bytes(b))));
            }
        }
        let (usable, basis) = best.unwrap_or((4 << 30, "an assumed 4 GiB of memory".into()));
        BufferLimit {
            bytes: usable / SHARE_DIVISOR,
            basis,
        }
    }

    /// Checks `threads × depth × bs` of buffers, plus the workers' stacks, against the
    /// limit; the message names the numbers (the limit first, so a narrow screen keeps it)
    /// and what to lower.
    pub fn check(&self, threads: usize, depth: usize, bs: u64) -> Result<(), String> {
        let need = (threads as u128) * (depth as u128) * u128::from(bs);
        let stacks = threads as u128 * (THREAD_STACK as u128 + 4096);
        if need + stacks <= u128::from(self.bytes) {
            return Ok(());
        }
        let shape = if depth > 1 {
            format!("{threads} threads × depth {depth} × {}", format_bytes(bs))
        } else {
            format!("{threads} threads × {} blocks", format_bytes(bs))
        };
        let bytes = |b: u128| format_bytes(u64::try_from(b).unwrap_or(u64::MAX));
        Err(format!(
            "{shape} need {} of buffers, over the limit of {} (+{} of stacks; diskscope's \
             limit is a quarter of {}): use fewer threads or smaller blocks",
            bytes(need),
            format_bytes(self.bytes),
            bytes(stacks),
            self.basis
        ))
    }
}

/// MemTotal of /proc/meminfo's text, in bytes: the machine's RAM.
pub fn mem_total(meminfo: &str) -> Option<u64> {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kib| kib * 1024)
}

/// This machine's RAM, from /proc/meminfo.
pub fn ram_bytes() -> Option<u64> {
    mem_total(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// The limit for this process, read from the system once.
pub fn buffer_limit() -> &'static BufferLimit {
    static LIMIT: OnceLock<BufferLimit> = OnceLock::new();
    LIMIT.get_or_init(|| {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let cgroup = cgroup_limit(&cgroups, Path::new("/sys/fs/cgroup"));
        BufferLimit::from_sources(&meminfo, cgroup, rlimit_as())
    })
}

/// The smallest memory limit of this process's cgroup and its ancestors, v2 (`memory.max`)
/// or v1 (`memory.limit_in_bytes`), under the cgroup filesystem mounted at `root`.
pub fn cgroup_limit(proc_self_cgroup: &str, root: &Path) -> Option<u64> {
    let mut limits = Vec::new();
    for line in proc_self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        let candidates: Vec<(PathBuf, &str)> = if controllers.is_empty() {
            vec![
                (root.join(path), "memory.max"),
                (root.join("unified").join(path), "memory.max"),
            ]
        } else if controllers.split(',').any(|c| c == "memory") {
            vec![(root.join("memory").join(path), "memory.limit_in_bytes")]
        } else {
            continue;
        };
        for (dir, file) in candidates {
            limits.extend(
                dir.ancestors()
                    .take_while(|d| d.starts_with(root))
                    .filter_map(|d| std::fs::read_to_string(d.join(file)).ok())
                    .filter_map(|t| t.trim().parse::<u64>().ok()),
            );
        }
    }
    // "max" (v2) does not parse; v1 says "no limit" with a number near 2^63.
    limits.into_iter().filter(|&b| b < 1 << 62).min()
}

/// The address-space rlimit, when one is set.
/// The address space still free under the address-space rlimit, when one is set: the limit
/// less what the process maps already (VmSize).
fn rlimit_as() -> Option<u64> {
    use nix::sys::resource::{Resource, getrlimit};
    let (soft, _) = getrlimit(Resource::RLIMIT_AS).ok()?;
    if soft == nix::libc::RLIM_INFINITY {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mapped_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0);
    Some(soft.saturating_sub(mapped_kib * 1024))
}

/// Fits the allocator to an address-space limit: with `ulimit -v` set, malloc arenas are
/// capped (see `sys::limit_malloc_arenas`) so the buffers, not arena reservations, use the
/// room the limit leaves. Call once at startup, before any thread starts.
pub fn prepare_allocator() {
    use nix::sys::resource::{Resource, getrlimit};
    if getrlimit(Resource::RLIMIT_AS).is_ok_and(|(soft, _)| soft != nix::libc::RLIM_INFINITY) {
        crate::sys::limit_malloc_arenas(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str = "MemTotal:       24683656 kB\nMemFree:  1000 kB\n";

    #[test]
    fn a_quarter_of_ram_without_other_limits() {
        let l = BufferLimit::from_sources(MEMINFO, None, None);
        assert_eq!(l.bytes, 24683656 * 1024 / 4);
        assert!(l.basis.contains("of RAM"), "{}", l.basis);
    }

    #[test]
    fn the_smallest_limit_wins_and_is_named() {
        let l = BufferLimit::from_sources(MEMINFO, Some(2 << 30), Some(8 << 30));
        assert_eq!(l.bytes, 512 << 20);
        assert!(l.basis.contains("cgroup"), "{}", l.basis);
        let l = BufferLimit::from_sources(MEMINFO, Some(8 << 30), Some(1 << 30));
        assert_eq!(l.bytes, 256 << 20);
        assert!(l.basis.contains("ulimit -v"), "{}", l.basis);
    }

    #[test]
    fn check_names_the_numbers() {
        let l = BufferLimit::from_sources(MEMINFO, Some(4 << 30), None);
        assert!(l.check(63, 1, 16 << 20).is_ok()); // 1008 MiB and 16 MiB of stacks
        assert!(l.check(64, 1, 16 << 20).is_err()); // 1 GiB of buffers alone
        let e = l.check(1024, 1, 16 << 20).unwrap_err();
        assert!(e.contains("1024 threads × 16 MiB blocks"), "{e}");
        assert!(e.contains("16 GiB"), "{e}");
        assert!(e.contains("limit of 1 GiB"), "{e}");
        let e = l.check(4, 64, 16 << 20).unwrap_err();
        assert!(e.contains("depth 64"), "{e}");
    }

    #[test]
    fn cgroup_v1_and_v2_limits_with_ancestors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let v1 = root.join("memory/outer/inner");
        std::fs::create_dir_all(&v1).unwrap();
        std::fs::write(v1.join("memory.limit_in_bytes"), "9223372036854771712\n").unwrap();
        std::fs::write(
            root.join("memory/outer/memory.limit_in_bytes"),
            "1073741824\n",
        )
        .unwrap();
        let text = "4:memory:/outer/inner\n1:cpu:/\n";
        assert_eq!(cgroup_limit(text, root), Some(1 << 30));

        let v2 = root.join("unified/svc");
        std::fs::create_dir_all(&v2).unwrap();
        std::fs::write(v2.join("memory.max"), "max\n").unwrap();
        std::fs::write(root.join("unified/memory.max"), "536870912\n").unwrap();
        assert_eq!(cgroup_limit("0::/svc\n", root), Some(512 << 20));
        assert_eq!(cgroup_limit("0::/nowhere\n", &root.join("none")), None);
    }
}
