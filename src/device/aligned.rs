//! A page-aligned, zero-initialised byte buffer for direct I/O, and the parts of
//! it a [`super::Target`] request is lent ([`ReadBuf`], [`WriteBuf`]).
//!
//! A buffer's memory is shared between the buffer and the requests in flight on
//! it ([`Hold`]): it is freed when the last of them lets go. A real device's
//! watchdog (`super::watched`) hands a hold to the thread that carries the
//! request, so that a request it gives up unanswered keeps the memory the kernel
//! may still fill until the kernel answers (for ever, if it never does), however
//! soon the engine drops its buffer. No copy of the data and no registry of
//! addresses: the memory's owner count is the record.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ops::{Bound, Deref, DerefMut, RangeBounds};
use std::ptr::NonNull;
use std::sync::Arc;

/// The alignment of every I/O buffer: a page, which covers any logical sector size
/// up to 4096 and satisfies O_DIRECT everywhere.
pub const BUF_ALIGN: usize = 4096;

/// The memory of one buffer, freed when dropped (by its last holder).
struct Memory {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the memory is plain bytes with no thread affinity; who may touch it when
// is ruled by AlignedBuf's borrows (below), not by Memory.
unsafe impl Send for Memory {}
// SAFETY: Memory itself never reads or writes the bytes.
unsafe impl Sync for Memory {}

impl Memory {
    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len.max(1), BUF_ALIGN).expect("buffer size overflows")
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        // SAFETY: allocated in AlignedBuf::new with the same layout; this is the
        // last holder (Arc), so no buffer or request refers to it any more.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout(self.len)) }
    }
}

/// A heap buffer aligned to `BUF_ALIGN` (4096 bytes), as O_DIRECT requires.
///
/// Its bytes are reached only through the buffer (`&self`, `&mut self`, as a
/// `Vec<u8>`'s are); a [`Hold`] taken for a request keeps the memory allocated,
/// nothing more.
pub struct AlignedBuf {
    mem: Arc<Memory>,
}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (at least one byte is allocated).
    pub fn new(len: usize) -> Self {
        let layout = Memory::layout(len);
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuf {
            mem: Arc::new(Memory { ptr, len }),
        }
    }

    /// The bytes of `range` lent to a read (the whole buffer for `..`).
    ///
    /// # Panics
    /// When `range` reaches past the buffer, as slicing does.
    pub fn for_read(&mut self, range: impl RangeBounds<usize>) -> ReadBuf<'_> {
        let (start, end) = bounds(&range, self.len());
        let _ = &self[start..end];
        ReadBuf {
            buf: self,
            start,
            end,
        }
    }

    /// The bytes of `range` lent to a write (the whole buffer for `..`).
    ///
    /// # Panics
    /// When `range` reaches past the buffer, as slicing does.
    pub fn for_write(&self, range: impl RangeBounds<usize>) -> WriteBuf<'_> {
        let (start, end) = bounds(&range, self.len());
        let _ = &self[start..end];
        WriteBuf {
            buf: self,
            start,
            end,
        }
    }
}

#[cfg(test)]
impl AlignedBuf {
    /// How many hold the memory: the buffer and each request still holding it.
    pub(super) fn holders(&self) -> usize {
        Arc::strong_count(&self.mem)
    }
}

/// `range` within a buffer of `len` bytes, as `(start, end)`.
fn bounds(range: &impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s + 1,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e + 1,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start, end)
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr points to len initialised bytes, allocated while `mem`
        // lives; holds never touch them.
        unsafe { std::slice::from_raw_parts(self.mem.ptr.as_ptr(), self.mem.len) }
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, and &mut self guarantees exclusivity among the
        // buffer's users (a hold is no user).
        unsafe { std::slice::from_raw_parts_mut(self.mem.ptr.as_ptr(), self.mem.len) }
    }
}

impl std::fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBuf({} bytes)", self.mem.len)
    }
}

/// A share in a buffer's memory, taken for a request: while it lives, the memory
/// stays allocated, whoever drops the buffer. It gives no access to the bytes.
pub(super) struct Hold {
    _mem: Arc<Memory>,
}

/// Part of an [`AlignedBuf`] lent to one read ([`super::Target::read_at`]): the
/// bytes the read fills, borrowed mutably, and the buffer they belong to, from
/// which a real device's watchdog takes a [`Hold`].
pub struct ReadBuf<'a> {
    buf: &'a mut AlignedBuf,
    start: usize,
    end: usize,
}

impl ReadBuf<'_> {
    /// A hold on the memory these bytes are in.
    pub(super) fn hold(&self) -> Hold {
        Hold {
            _mem: Arc::clone(&self.buf.mem),
        }
    }
}

impl Deref for ReadBuf<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }
}

impl DerefMut for ReadBuf<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.end]
    }
}

/// Part of an [`AlignedBuf`] lent to one write ([`super::Target::write_at`]): the
/// bytes written, and the buffer they belong to, as in [`ReadBuf`].
#[derive(Clone, Copy)]
pub struct WriteBuf<'a> {
    buf: &'a AlignedBuf,
    start: usize,
    end: usize,
}

impl WriteBuf<'_> {
    /// A hold on the memory these bytes are in.
    pub(super) fn hold(&self) -> Hold {
        Hold {
            _mem: Arc::clone(&self.buf.mem),
        }
    }
}

impl Deref for WriteBuf<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_page_aligned_and_zeroed() {
        for len in [0, 1, 512, 4096, 1 << 20] {
            let mut b = AlignedBuf::new(len);
            assert_eq!(b.as_ptr() as usize % BUF_ALIGN, 0);
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|&x| x == 0));
            if len > 0 {
                b[len - 1] = 7;
                assert_eq!(b[len - 1], 7);
            }
        }
    }

    #[test]
    fn parts_lend_the_bytes_they_name() {
        let mut b = AlignedBuf::new(4096);
        {
            let mut r = b.for_read(1024..2048);
            assert_eq!(r.len(), 1024);
            r.fill(9);
        }
        assert!(b[..1024].iter().all(|&x| x == 0));
        assert!(b[1024..2048].iter().all(|&x| x == 9));
        assert!(b[2048..].iter().all(|&x| x == 0));
        let w = b.for_write(1024..=2047);
        assert_eq!(w.len(), 1024);
        assert!(w.iter().all(|&x| x == 9));
    }

    #[test]
    #[should_panic]
    fn a_part_past_the_buffer_panics() {
        let mut b = AlignedBuf::new(512);
        let _ = b.for_read(..1024);
    }

    #[test]
    fn a_hold_keeps_the_memory_after_the_buffer_is_dropped() {
        let mut b = AlignedBuf::new(512);
        let hold = b.for_read(..).hold();
        let weak = Arc::downgrade(&hold._mem);
        drop(b);
        assert!(weak.upgrade().is_some(), "the held memory was freed");
        drop(hold);
        assert!(weak.upgrade().is_none(), "the last holder did not free it");
    }
}
