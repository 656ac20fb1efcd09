//! The scan loop: the plan's reads issued in order at depth on one io_uring (one thread, as
//! fio's `rw=read iodepth=N` does), each timed from submission to completion, folded into the
//! map as it completes. Every ~100 ms `tick` sees the report so far and the progress, and
//! says whether to go on: the front door's signals and the TUI's pause stop it there. A
//! stop drains the reads in flight, so everything before `next_offset` has been read and a
//! resumed scan starts exactly there. Where the kernel refuses io_uring the reads go one at a
//! time through `pread`.

use std::io;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use io_uring::{IoUring, opcode, types};

use crate::engine::buffer::BufferSet;
use crate::engine::io::BlockIo;
use crate::surface::fold::{Completion, Fold};
use crate::surface::plan::{Read, ScanPlan};

/// How often `tick` is called.
pub const TICK: Duration = Duration::from_millis(100);

/// Where a scan stands, for the ETA and the progress line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Bytes of the plan read (or failed) so far, this session.
    pub done_bytes: u64,
    /// Bytes the plan reads this session.
    pub total_bytes: u64,
    pub elapsed_s: f64,
    /// Every read before this offset has completed: where a scan saved now would resume.
    pub resume_offset: u64,
}

impl Progress {
    /// Seconds left at this session's rate so far; `None` before a rate is known.
    pub fn eta_s(&self) -> Option<f64> {
        (self.done_bytes > 0 && self.elapsed_s > 0.0).then(|| {
            let rate = self.done_bytes as f64 / self.elapsed_s;
            self.total_bytes.saturating_sub(self.done_bytes) as f64 / rate
        })
    }
}

/// How a scan ended.
pub struct ScanEnd {
    pub fold: Fold,
    /// Where a resumed scan starts: every read before it completed.
    pub next_offset: u64,
    /// True when the plan ran to its end.
    pub complete: bool,
    pub elapsed_s: f64,
}

/// One read in flight.
#[derive(Clone, Copy)]
struct Flight {
    read: Read,
    submitted: Instant,
}

/// The loop's clock and counters, apart from the ring.
struct Clock {
    started: Instant,
    last_tick: Instant,
    /// The previous completion: the device started on the next read no earlier.
    last_done: Option<Instant>,
    done_bytes: u64,
    total_bytes: u64,
}

impl Clock {
    fn new(total_bytes: u64) -> Clock {
        let now = Instant::now();
        Clock {
            started: now,
            last_tick: now,
            last_done: None,
            done_bytes: 0,
            total_bytes,
        }
    }

    /// The completions of the reads reaped together now, with their latency, service time
    /// and share of the busy time (`fold`'s note).
    fn complete(&mut self, reaped: Vec<(Flight, Result<(), String>)>) -> Vec<Completion> {
        let now = Instant::now();
        let last = self.last_done;
        let began = |submitted: Instant| last.map_or(submitted, |d| d.max(submitted));
        let earliest = reaped.iter().map(|(f, _)| f.submitted).min().unwrap_or(now);
        let gap_ns = now.duration_since(began(earliest)).as_nanos() as u64;
        let share_ns = gap_ns / reaped.len().max(1) as u64;
        self.last_done = Some(now);
        reaped
            .into_iter()
            .map(|(f, result)| {
                self.done_bytes += f.read.len;
                Completion {
                    offset: f.read.offset,
                    len: f.read.len,
                    latency_ns: now.duration_since(f.submitted).as_nanos() as u64,
                    service_ns: now.duration_since(began(f.submitted)).as_nanos() as u64,
                    busy_ns: share_ns,
                    result,
                }
            })
            .collect()
    }

    fn progress(&self, resume_offset: u64) -> Progress {
        Progress {
            done_bytes: self.done_bytes,
            total_bytes: self.total_bytes,
            elapsed_s: self.started.elapsed().as_secs_f64(),
            resume_offset,
        }
    }

    /// True when a tick is due (and starts the next period).
    fn tick_due(&mut self) -> bool {
        let due = self.last_tick.elapsed() >= TICK;
        if due {
            self.last_tick = Instant::now();
        }
        due
    }
}

/// What a completed read returned, in words when it failed or came back short.
fn outcome(res: i64, len: u64) -> Result<(), String> {
    if res < 0 {
        Err(io::Error::from_raw_os_error(-res as i32).to_string())
    } else if (res as u64) < len {
        Err(format!("short read: {res} of {len} bytes"))
    } else {
        Ok(())
    }
}

/// Runs `plan` on `io` with `depth` reads in flight, folding into `fold`; `tick` returns
/// false to stop.
pub fn scan(
    io: &mut dyn BlockIo,
    plan: &ScanPlan,
    depth: usize,
    fold: Fold,
    tick: &mut dyn FnMut(&Fold, &Progress) -> bool,
) -> io::Result<ScanEnd> {
    let depth = depth.max(1);
    let _fair = crate::engine::niceness::Fair::enlist();
    match (io.raw_fd(), IoUring::new(depth.next_power_of_two() as u32)) {
        (Some(fd), Ok(ring)) => scan_uring(ring, fd, plan, depth, fold, tick),
        _ => scan_psync(io, plan, fold, tick),
    }
}

/// The reads the ring has completed, taken out of their slots, with what each returned.
fn reap(
    ring: &mut IoUring,
    flights: &mut [Option<Flight>],
    in_flight: &mut usize,
) -> Vec<(Flight, Result<(), String>)> {
    let done: Vec<(u64, i32)> = ring
        .completion()
        .map(|c| (c.user_data(), c.result()))
        .collect();
    let mut reaped = Vec::with_capacity(done.len());
    for (slot, res) in done {
        if let Some(f) = flights.get_mut(slot as usize).and_then(Option::take) {
            *in_flight -= 1;
            reaped.push((f, outcome(i64::from(res), f.read.len)));
        }
    }
    reaped
}

/// Registers the scan's buffers with the ring (ReadFixed): the kernel pins their pages once,
/// not 256 pages at every 1 MiB read. False where the kernel refuses (a locked-memory limit):
/// plain reads then.
fn register(ring: &IoUring, bufs: &BufferSet) -> bool {
    let iovecs: Vec<nix::libc::iovec> = (0..bufs.count())
        .map(|i| nix::libc::iovec {
            iov_base: bufs.slot_ptr(i).cast(),
            iov_len: bufs.len(),
        })
        .collect();
    // SAFETY: the buffers stay allocated, at these addresses, while they are registered:
    // `scan_uring` unregisters them before it returns normally, and leaks them (never frees)
    // where it returns early with reads in flight.
    unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok()
}

fn scan_uring(
    mut ring: IoUring,
    fd: RawFd,
    plan: &ScanPlan,
    depth: usize,
    mut fold: Fold,
    tick: &mut dyn FnMut(&Fold, &Progress) -> bool,
) -> io::Result<ScanEnd> {
    let bufs = BufferSet::new(depth, plan.block_bytes as usize, 4096);
    let fixed = register(&ring, &bufs);
    let mut flights: Vec<Option<Flight>> = vec![None; depth];
    let mut reads = plan.reads();
    let mut clock = Clock::new(plan.total_bytes());
    let (mut stopping, mut exhausted, mut in_flight) = (false, false, 0usize);
    loop {
        while !stopping && !exhausted && in_flight < depth {
            let Some(read) = reads.next() else {
                exhausted = true;
                break;
            };
            let slot = flights.iter().position(Option::is_none).unwrap_or(0);
            let (ptr, len, at) = (bufs.slot_ptr(slot), read.len as u32, read.offset);
            let entry = if fixed {
                let index = slot as u16;
                opcode::ReadFixed::new(types::Fd(fd), ptr, len, index)
                    .offset(at)
                    .build()
            } else {
                opcode::Read::new(types::Fd(fd), ptr, len)
                    .offset(at)
                    .build()
            };
            let entry = entry.user_data(slot as u64);
            // SAFETY: buffer `slot` is free (no read in flight on it) and stays allocated,
            // untouched by this code, until its completion is reaped below; `bufs` is freed
            // only once the loop has drained every read in flight (leaked where it cannot).
            if unsafe { ring.submission().push(&entry) }.is_err() {
                // Cannot happen (the ring holds `depth` entries); if it did, the reads in
                // flight may still write their buffers: never free them.
                std::mem::forget(bufs);
                return Err(io::Error::other("the surface scan's ring is full"));
            }
            flights[slot] = Some(Flight {
                read,
                submitted: Instant::now(),
            });
            in_flight += 1;
        }
        if in_flight == 0 {
            break;
        }
        match ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // The reads in flight may still write their buffers: never free them.
                std::mem::forget(bufs);
                return Err(e);
            }
        }
        for c in clock.complete(reap(&mut ring, &mut flights, &mut in_flight)) {
            fold.add(&c);
        }
        if clock.tick_due() {
            let oldest = flights.iter().flatten().map(|f| f.read.offset).min();
            let at = oldest.unwrap_or(reads.next_offset());
            stopping |= !tick(&fold, &clock.progress(at));
        }
    }
    // Nothing in flight: the buffers may go, once the ring lets them go.
    let _ = ring.submitter().unregister_buffers();
    let complete = exhausted && !stopping;
    Ok(end(fold, &clock, reads.next_offset(), complete))
}

fn scan_psync(
    io: &mut dyn BlockIo,
    plan: &ScanPlan,
    mut fold: Fold,
    tick: &mut dyn FnMut(&Fold, &Progress) -> bool,
) -> io::Result<ScanEnd> {
    let mut buf = crate::engine::buffer::AlignedBuf::new(plan.block_bytes as usize, 4096);
    let mut reads = plan.reads();
    let mut clock = Clock::new(plan.total_bytes());
    let mut complete = true;
    while let Some(read) = reads.next() {
        let submitted = Instant::now();
        let res = match io.read_at(&mut buf[..read.len as usize], read.offset) {
            Ok(n) => outcome(n as i64, read.len),
            Err(e) => Err(e.to_string()),
        };
        for c in clock.complete(vec![(Flight { read, submitted }, res)]) {
            fold.add(&c);
        }
        if clock.tick_due() && !tick(&fold, &clock.progress(reads.next_offset())) {
            complete = false;
            break;
        }
    }
    Ok(end(fold, &clock, reads.next_offset(), complete))
}

fn end(fold: Fold, clock: &Clock, next_offset: u64, complete: bool) -> ScanEnd {
    ScanEnd {
        fold,
        next_offset,
        complete,
        elapsed_s: clock.started.elapsed().as_secs_f64(),
    }
}
