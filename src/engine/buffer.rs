//! The I/O buffers: heap blocks aligned for O_DIRECT.
//!
//! O_DIRECT needs the buffer address aligned to the device's logical block size; a `Vec<u8>`
//! only promises the alignment of `u8`. The `unsafe` here is one allocation with an explicit
//! `Layout`, freed with the same layout. A worker's `iodepth` buffers are one `BufferSet`: one
//! allocation cut into equal aligned slots. One allocation per buffer cost twice the memory
//! at 4 KiB: glibc serves a 4096-aligned 4096-byte block from a chunk of about 8 KiB, and
//! `-t 256 -Q 256 -b 4k` held 549 MB for 256 MiB of buffers (VmRSS); as one set per worker
//! it holds what it asks for (see `memory`). The crate's other `unsafe` blocks are libc calls nix
//! does not wrap (ioctl, mincore, preadv2/pwritev2, setpriority, sigaction), each with its
//! SAFETY note beside it; `sys.rs` holds the one shared by the engine and the front door.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;

/// A zero-initialised byte buffer whose start is aligned to `align` bytes.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
    layout: Layout,
}

// SAFETY: the buffer owns its allocation exclusively; moving it to another thread moves that
// ownership, and shared access only hands out `&[u8]`.
unsafe impl Send for AlignedBuf {}
// SAFETY: as above: through `&AlignedBuf` only `&[u8]` is handed out, so threads sharing it
// only read.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocates `len` zeroed bytes aligned to `align` (a power of two). The allocation is at
    /// least `align` bytes so it is never zero-sized; the buffer's length is exactly `len`.
    pub fn new(len: usize, align: usize) -> Self {
        let layout = Layout::from_size_align(len.max(align), align)
            .expect("buffer alignment is a power of two and the size fits in isize");
        // SAFETY: the layout has a non-zero size (len.max(align) with align >= 1).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, len, layout }
    }

    /// The alignment the buffer was allocated with.
    pub fn align(&self) -> usize {
        self.layout.align()
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr points to layout.size() >= len initialised (zeroed) bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: ptr was returned by alloc_zeroed with exactly this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// `count` buffers of `len` bytes, each aligned, in one allocation: buffer `i` starts at
/// `i × stride`, the stride being `len` rounded up to the alignment.
pub struct BufferSet {
    block: AlignedBuf,
    len: usize,
    stride: usize,
    count: usize,
}

impl BufferSet {
    /// `count` zeroed buffers of `len` bytes aligned to `align` (a power of two).
    pub fn new(count: usize, len: usize, align: usize) -> Self {
        let stride = len.next_multiple_of(align).max(align);
        BufferSet {
            block: AlignedBuf::new(stride * count.max(1), align),
            len,
            stride,
            count,
        }
    }

    /// Bytes per buffer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// How many buffers.
    pub fn count(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Bytes the set allocates: `count × stride`.
    pub fn allocated(&self) -> usize {
        self.block.len()
    }

    /// Buffer `i`.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut [u8] {
        let at = i * self.stride;
        &mut self.block[at..at + self.len]
    }

    /// Fills every buffer with bytes from `fill` (random data for writes).
    pub fn fill_with(&mut self, mut fill: impl FnMut(&mut [u8])) {
        for i in 0..self.count {
            fill(self.get_mut(i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AlignedBuf, BufferSet};

    #[test]
    fn a_set_is_one_block_of_aligned_slots() {
        for (count, len, align) in [
            (256, 4096, 4096),
            (3, 512, 4096),
            (2, 6144, 4096),
            (0, 4096, 4096),
        ] {
            let mut set = BufferSet::new(count, len, align);
            assert_eq!(set.count(), count);
            assert_eq!(set.len(), len);
            let stride = len.next_multiple_of(align);
            assert_eq!(set.allocated(), stride * count.max(1));
            let starts: Vec<usize> = (0..count)
                .map(|i| set.get_mut(i).as_ptr() as usize)
                .collect();
            for (i, &a) in starts.iter().enumerate() {
                assert_eq!(a % align, 0, "buffer {i} aligned");
                assert_eq!(set.get_mut(i).len(), len);
            }
            // Buffers do not overlap: writing one leaves its neighbours untouched.
            if count >= 2 {
                set.get_mut(0).fill(1);
                assert!(set.get_mut(1).iter().all(|&b| b == 0));
            }
        }
    }

    #[test]
    fn buffers_are_aligned_and_sized() {
        for (len, align) in [
            (512, 512),
            (4096, 4096),
            (65536, 4096),
            (1 << 20, 4096),
            (0, 4096),
        ] {
            let mut b = AlignedBuf::new(len, align);
            assert_eq!(b.as_ptr() as usize % align, 0);
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|&x| x == 0));
            if len > 0 {
                b[len - 1] = 7;
                assert_eq!(b[len - 1], 7);
            }
        }
    }
}
