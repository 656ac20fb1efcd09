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

    /// Bytes the set allocates: `count × stride` (counted, not read through a slice of the
    /// whole set, which the kernel may be writing).
    pub fn allocated(&self) -> usize {
        self.stride * self.count.max(1)
    }

    /// Where buffer `i` starts, as a raw pointer: what a request handed to the kernel points
    /// at. Built from the allocation's own pointer, never through a reference to the whole
    /// set, so handing out slot `i` claims nothing of the slots the kernel is writing.
    #[inline]
    pub fn slot_ptr(&self, i: usize) -> *mut u8 {
        assert!(i < self.count, "buffer {i} of {}", self.count);
        // SAFETY: i < count, so i × stride + len ≤ count × stride, inside the allocation.
        unsafe { self.block.ptr.as_ptr().add(i * self.stride) }
    }

    /// Buffer `i`, and only it: the slice covers `len` bytes from slot `i`'s start, so the
    /// kernel may go on writing the other slots (requests in flight) while it is held. The
    /// caller has no request in flight on slot `i` itself.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> &mut [u8] {
        // SAFETY: `slot_ptr` is in bounds for `len` bytes (stride ≥ len), the bytes are
        // initialised (zeroed at allocation), and `&mut self` keeps this the only slice of
        // slot `i` handed out from safe code while it lives.
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(i), self.len) }
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

    /// What a request in flight on slot 0 may see: the slice of slot 1 reaches exactly its own
    /// bytes and no further, and a write through the raw pointer of slot 0 (as the kernel's)
    /// made while slot 1 is borrowed is seen afterwards (under Miri, a slice over the whole set
    /// would be a Unique borrow that such a write invalidates).
    #[test]
    fn a_slot_is_borrowed_alone_while_another_is_written_through_its_pointer() {
        let mut set = BufferSet::new(3, 512, 4096);
        let kernel = set.slot_ptr(0);
        let one = set.get_mut(1);
        let range = one.as_ptr_range();
        assert_eq!(range.end as usize - range.start as usize, 512);
        assert!(range.start as usize >= kernel as usize + 4096);
        // SAFETY: slot 0 is in bounds for 512 bytes and not borrowed by anything.
        unsafe { kernel.write_bytes(9, 512) };
        one.fill(3);
        assert!(set.get_mut(0).iter().all(|&b| b == 9));
        assert!(set.get_mut(1).iter().all(|&b| b == 3));
        assert!(set.get_mut(2).iter().all(|&b| b == 0));
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
