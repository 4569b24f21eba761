//! A page-aligned, zero-initialised byte buffer for direct I/O.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::{Mutex, OnceLock};

/// The alignment of every I/O buffer: a page, which covers any logical sector size
/// up to 4096 and satisfies O_DIRECT everywhere.
pub const BUF_ALIGN: usize = 4096;

/// A heap buffer aligned to `BUF_ALIGN` (4096 bytes), as O_DIRECT requires.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: AlignedBuf owns its allocation exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only reads through &[u8].
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes (at least one byte is allocated).
    pub fn new(len: usize) -> Self {
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, len }
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len.max(1), BUF_ALIGN).expect("buffer size overflows")
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr points to len initialised bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in deref, and &mut self guarantees exclusivity.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if quarantined(self.ptr.as_ptr() as usize, self.len) {
            // A request given up unanswered may still fill it: never freed.
            return;
        }
        // SAFETY: allocated in new() with the same layout.
        unsafe { dealloc(self.ptr.as_ptr(), Self::layout(self.len)) }
    }
}

/// The address ranges of buffers that requests given up unanswered may still
/// fill; unset until the first (the common case, none, costs one load).
///
/// The one static of the device layer, and why it stays one: the memory is the
/// allocator's, and whoever drops the [`AlignedBuf`] (any engine, on any thread,
/// long after the request) frees it, while the watchdog that gave the request up
/// saw only a borrowed slice of it. Whether an address may still be written by
/// the kernel is a fact of the process's memory, as the allocator's own state is,
/// not of one value that could carry it; making the watchdog own the buffers it
/// hands out would cost a copy of every request's data (`watched.rs` says why
/// there is none).
static QUARANTINE: OnceLock<Mutex<Vec<(usize, usize)>>> = OnceLock::new();

/// Keep the memory of `len` bytes at `ptr` from ever being freed: a request the
/// watchdog gave up (`super::watched`) may still be filled or read by the kernel.
/// The [`AlignedBuf`] holding it leaks it when dropped.
pub(super) fn quarantine(ptr: usize, len: usize) {
    let q = QUARANTINE.get_or_init(|| Mutex::new(Vec::new()));
    let mut q = q.lock().unwrap_or_else(|e| e.into_inner());
    q.push((ptr, len.max(1)));
}

/// Whether the buffer of `len` bytes at `ptr` holds quarantined memory.
fn quarantined(ptr: usize, len: usize) -> bool {
    let Some(q) = QUARANTINE.get() else {
        return false;
    };
    let q = q.lock().unwrap_or_else(|e| e.into_inner());
    let end = ptr + len.max(1);
    q.iter().any(|&(p, l)| p < end && p + l > ptr)
}

impl std::fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBuf({} bytes)", self.len)
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
}
