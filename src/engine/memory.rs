//! How much memory a run's I/O buffers may take. Every worker holds `bs` bytes of aligned
//! buffer (times the requests it keeps in flight), so `-t 1024 -b 16M` alone asks for 16 GiB:
//! on a small server that ends in the OOM killer, not in a benchmark. The limit is a quarter of
//! the memory this process may really use — the smallest of the machine's RAM, the cgroup's
//! memory limit (v1 or v2, ancestors included) and the address-space rlimit — so the page
//! cache, the kernel and whatever else the server runs keep the rest. It is read once per
//! process; the reading is a pure function of the files' text so tests can feed it fixtures.
//!
//! What a run holds, measured with the release binary on this project's VM (Linux 6.18, 2 CPUs;
//! O_DIRECT 4k reads of a scratch file for 3 s, two runs each, peak VmHWM of the process and the
//! rise of /proc/meminfo's KernelStack and SUnreclaim while it ran — `tests/memory.rs` repeats
//! the user-space part):
//! - a slot (one I/O in flight): its buffer, `bs` rounded up to the page, as one `BufferSet`
//!   per worker; plus 58 bytes of the worker's own (ring entries, bookkeeping: VmHWM 288,392 KiB
//!   at `-t 256 -Q 256` against 17,204 at `-Q 1`, over 65,280 more slots: 4,154 bytes a 4 KiB
//!   slot) and 1.2 KiB of the kernel's per request in flight (SUnreclaim +81.8 MiB against
//!   +4.5 MiB). Before the set, each buffer was its own allocation and a 4 KiB one cost glibc
//!   about 8 KiB: 549 MB at `-t 256 -Q 256`.
//! - a worker thread: 42.6 KiB of VmHWM (its touched stack, batches, ring mappings; 49,888 KiB
//!   at `-t 1024 -Q 1` against 6,272 at `-t 1`), 16 KiB of kernel stack and 22.4 KiB of slab
//!   (its task, ring and files); its 256 KiB stack is reserved address space, counted against
//!   `ulimit -v` only. The first threads cost more: each gets a malloc arena of its own, up to
//!   8 per CPU (a second thread added 264-448 KiB).
//! - an io-wq worker (a kernel thread of the process that runs what cannot be issued without
//!   blocking: buffered writes, fsyncs): about 17 KiB of kernel stack and task; capped per ring
//!   (`ring::iowq_bounded_cap`), so 8 at `-t 4 -Q 32 --buffered` writes and 64 at `-t 64`.
//! - the process itself: 6.2 MiB at one thread, with microsecond latencies; the sampler's
//!   latency histograms (latency and service time, and reads and writes apart: some six,
//!   interval and total) and the report's windows grow with the largest latency seen (an
//!   HdrHistogram of 3 digits holds about 2,048 counters per doubling of its range: some
//!   200 KiB each at second-long latencies).
//!
//! `Need` counts these, rounded up, so the refusal's figure is what the run would really hold.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::units::format_bytes;

/// Stack size of a worker thread (reserved address space; what it touches is in
/// `THREAD_BYTES`).
pub const THREAD_STACK: usize = 256 << 10;

/// One worker thread's resident memory beyond its buffers: 40-43 KiB measured with the release
/// binary, 50.4 KiB with the debug one (larger stack frames), rounded up.
const THREAD_USER_BYTES: u64 = 56 << 10;
/// One worker thread in the kernel: 16 KiB of kernel stack and 22.4 KiB of slab measured.
const THREAD_KERNEL_BYTES: u64 = 40 << 10;
/// One slot's resident memory beyond its buffer: 58 bytes measured at `-t 256 -Q 256`, up to
/// 144 at `-t 64 -Q 64`, rounded up.
const SLOT_USER_BYTES: u64 = 256;
/// One request in flight in the kernel: 1.2 KiB of slab measured, rounded up.
const SLOT_KERNEL_BYTES: u64 = 1280;
/// One io-wq kernel thread: about 17 KiB of kernel stack and task measured, rounded up.
const IOWQ_WORKER_BYTES: u64 = 32 << 10;
/// glibc gives each thread that allocates an arena of its own, up to 8 per CPU (the default
/// `M_ARENA_MAX` on 64-bit; 2 under `ulimit -v`, see `prepare_allocator`): what one holds
/// resident. A second thread added 264-448 KiB of VmHWM, a 128th 42.8 KiB (the arenas were
/// all there). Counted with the thread's own `THREAD_USER_BYTES`, a second thread is 440 KiB:
/// a run of few threads and large blocks, where the arenas are most of what is not buffer, is
/// not counted under what it holds (256 KiB was, by 0.3%, in a CI run of `-t 4 -Q 8 -b 1M`).
const ARENA_BYTES: u64 = 384 << 10;
/// An arena's reserved address space (glibc's `HEAP_MAX_SIZE`), counted under `ulimit -v`.
const ARENA_RESERVED: u64 = 64 << 20;
/// The process before any worker: 6.2 MiB of RSS measured, and room for its latency
/// histograms to grow to second-long latencies.
const BASE_BYTES: u64 = 10 << 20;
/// Buffers are whole pages.
const PAGE: u64 = 4096;

/// The share of usable memory the buffers may take: one part in `SHARE_DIVISOR`.
const SHARE_DIVISOR: u64 = 4;

/// The buffer limit and the memory it was derived from, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferLimit {
    /// Most bytes a run may hold at once: buffers, threads, rings, the kernel's share.
    pub bytes: u64,
    /// What the limit is a quarter of, e.g. "the 24 GiB of RAM" or "the cgroup's 2 GiB limit".
    pub basis: String,
    /// Whether the basis is address space (`ulimit -v`), where reserved stacks count in full.
    pub address_space: bool,
}

/// What a run of `threads × depth × bs` holds: its buffers; the rest of its resident memory
/// (threads, rings, bookkeeping, the process); and the kernel's share (per thread, per
/// request in flight, io-wq threads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Need {
    pub buffers: u64,
    pub user: u64,
    pub kernel: u64,
}

impl Need {
    /// The need of `threads` workers each with `depth` slots of `bs` bytes; with
    /// `address_space`, each thread's reserved stack counts in full.
    pub fn of(threads: usize, depth: usize, bs: u64, address_space: bool) -> Need {
        Need::of_engines(1, threads, depth, bs, address_space)
    }

    /// The need of `engines` engines of `threads` workers each (several targets at once): the
    /// process and its arenas are counted once, and each engine caps its rings' io-wq
    /// threads from its own thread count, so 24 engines of 4 threads hold more io-wq threads
    /// than one engine of 96.
    pub fn of_engines(
        engines: usize,
        threads: usize,
        depth: usize,
        bs: u64,
        address_space: bool,
    ) -> Need {
        let t = (engines as u64).saturating_mul(threads as u64);
        let slots = t.saturating_mul(depth as u64);
        let stride = bs.div_ceil(PAGE).saturating_mul(PAGE);
        let iowq = u64::from(super::ring::iowq_bounded_cap(threads, super::ring::cpus()));
        let mut per_thread = THREAD_USER_BYTES;
        let (arenas, mut per_arena) = if address_space {
            per_thread += THREAD_STACK as u64 + PAGE;
            (t.min(2), ARENA_BYTES + ARENA_RESERVED)
        } else {
            (t.min(8 * super::ring::cpus() as u64), ARENA_BYTES)
        };
        per_arena = arenas.saturating_mul(per_arena);
        Need {
            buffers: slots.saturating_mul(stride),
            user: BASE_BYTES
                .saturating_add(t.saturating_mul(per_thread))
                .saturating_add(per_arena)
                .saturating_add(slots.saturating_mul(SLOT_USER_BYTES)),
            kernel: t
                .saturating_mul(THREAD_KERNEL_BYTES + iowq * IOWQ_WORKER_BYTES)
                .saturating_add(slots.saturating_mul(SLOT_KERNEL_BYTES)),
        }
    }

    /// Everything but the buffers.
    pub fn other(&self) -> u64 {
        self.user.saturating_add(self.kernel)
    }

    pub fn total(&self) -> u64 {
        self.buffers.saturating_add(self.other())
    }
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
            address_space: basis.contains("ulimit -v"),
            basis,
        }
    }

    /// Checks what `threads × depth × bs` would hold (`Need`) against the limit; the message
    /// names the numbers and what to lower.
    pub fn check(&self, threads: usize, depth: usize, bs: u64) -> Result<(), String> {
        self.check_engines(1, threads, depth, bs)
    }

    /// As `check`, for `engines` engines of `threads` workers each (see `Need::of_engines`);
    /// the message counts all their threads.
    pub fn check_engines(
        &self,
        engines: usize,
        threads_each: usize,
        depth: usize,
        bs: u64,
    ) -> Result<(), String> {
        let need = Need::of_engines(engines, threads_each, depth, bs, self.address_space);
        let threads = engines.saturating_mul(threads_each);
        if need.total() <= self.bytes {
            return Ok(());
        }
        let shape = if depth > 1 {
            format!("{threads} threads × depth {depth} × {}", format_bytes(bs))
        } else {
            format!("{threads} threads × {} blocks", format_bytes(bs))
        };
        Err(format!(
            "{shape} need {} ({} of buffers, {} of threads, rings and kernel state), over the \
             limit of {} (diskscope's limit is a quarter of {}): use fewer threads or smaller \
             blocks",
            format_bytes(need.total()),
            format_bytes(need.buffers),
            format_bytes(need.other()),
            format_bytes(self.bytes),
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
        assert!(l.check(62, 1, 16 << 20).is_ok()); // 992 MiB and 14 MiB of the rest
        assert!(l.check(64, 1, 16 << 20).is_err()); // 1 GiB of buffers alone
        let e = l.check(1024, 1, 16 << 20).unwrap_err();
        assert!(e.contains("1024 threads × 16 MiB blocks"), "{e}");
        assert!(e.contains("16 GiB"), "{e}");
        assert!(e.contains("limit of 1 GiB"), "{e}");
        let e = l.check(4, 64, 16 << 20).unwrap_err();
        assert!(e.contains("depth 64"), "{e}");
    }

    #[test]
    fn the_need_counts_whole_pages_threads_and_the_kernels_share() {
        // 4 KiB blocks: a page each, and 1.5 KiB of the rest per slot.
        let n = Need::of(256, 256, 4096, false);
        assert_eq!(n.buffers, 256 * 256 * 4096);
        assert!(n.other() >= 256 * 256 * 1536 + 256 * (96 << 10), "{n:?}");
        // A 6 KiB block takes two pages.
        assert_eq!(Need::of(1, 1, 6144, false).buffers, 8192);
        // Under ulimit -v the reserved stacks count too.
        let rss = Need::of(1024, 1, 4096, false).other();
        let virt = Need::of(1024, 1, 4096, true).other();
        let arenas = 8 * crate::engine::ring::cpus().min(128) as u64;
        assert_eq!(
            virt - rss,
            1024 * ((256 << 10) + 4096) + 2 * (ARENA_BYTES + (64 << 20)) - arenas * ARENA_BYTES
        );
        // Nothing overflows at the largest settings.
        let big = Need::of(usize::MAX, 256, 16 << 20, true);
        assert_eq!(big.total(), u64::MAX);
    }

    #[test]
    fn several_engines_count_each_engines_io_wq_threads() {
        use crate::engine::ring::{cpus, iowq_bounded_cap};
        let together = Need::of_engines(24, 4, 32, 4096, false);
        let as_one = Need::of(96, 32, 4096, false);
        // The same buffers, threads and slots; the process once.
        assert_eq!(together.buffers, as_one.buffers);
        assert_eq!(together.user, as_one.user);
        // Each engine's rings cap io-wq from its own 4 threads, not from all 96.
        let per_ring = |t| u64::from(iowq_bounded_cap(t, cpus()));
        assert_eq!(
            together.kernel - as_one.kernel,
            96 * (per_ring(4) - per_ring(96)) * (32 << 10)
        );
        if cpus() > 1 {
            assert!(per_ring(4) > per_ring(96));
        }
        // One engine is the single-target need.
        assert_eq!(
            Need::of_engines(1, 8, 4, 65536, true),
            Need::of(8, 4, 65536, true)
        );
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
