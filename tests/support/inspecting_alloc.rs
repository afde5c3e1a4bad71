//! The system allocator with a look at each block before it is freed: a test that checks what a
//! freed block still holds (a secret left unwiped) installs one as its `#[global_allocator]`,
//! with `armed` saying which blocks to look at and `inspect` reading them. Neither may allocate.

#![allow(dead_code)]
#![allow(unsafe_code)] // A global allocator; each block has a SAFETY note.

use std::alloc::{GlobalAlloc, Layout, System};

/// `System`, calling `inspect` on every freed block of a size `armed` accepts.
pub struct Inspecting {
    /// Whether to look at a freed block of this many bytes.
    pub armed: fn(usize) -> bool,
    /// Reads the block (its bytes as they are when it is freed).
    pub inspect: fn(&[u8]),
}

// SAFETY: every call is forwarded unchanged to `System`; `dealloc` only reads the block it is
// handed (valid for `layout.size()` bytes until it is freed) before forwarding it.
unsafe impl GlobalAlloc for Inspecting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if (self.armed)(layout.size()) {
            // The block is only read, and `System.dealloc` below frees it afterwards.
            // SAFETY: `ptr` is a live allocation of `layout.size()` bytes (`GlobalAlloc`).
            let block = unsafe { std::slice::from_raw_parts(ptr, layout.size()) };
            (self.inspect)(block);
        }
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
}
