//! mimalloc as the binary's global allocator (`src/main.rs`), and its settings.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// Every block mimalloc's plain calls return is aligned to this at least: its size classes are
/// multiples of a word.
const WORD_ALIGNED: usize = std::mem::size_of::<usize>();

/// mimalloc through its plain calls (`mi_malloc`, `mi_realloc`) for the layouts of a word's
/// alignment or less (nearly all: strings, vectors, tree nodes), and its aligned calls for the
/// others. The `mimalloc` crate's allocator takes the aligned calls for every layout, whose
/// alignment arithmetic cost about twice the plain fast path: 38 M of a 414 M check of a
/// 14k-op model (BENCHMARKS.md).
pub struct Mimalloc;

// SAFETY: each method hands mimalloc a layout it allocates as asked: the plain calls only when
// the alignment is a word's or less, which every mimalloc block has (`WORD_ALIGNED`); the aligned
// calls otherwise. `mi_free` frees blocks of both kinds. The unit tests check the alignment,
// zeroing and copying of each call over sizes and alignments.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD_ALIGNED {
            mi::mi_malloc(layout.size()).cast()
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD_ALIGNED {
            mi::mi_zalloc(layout.size()).cast()
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi::mi_free(ptr.cast::<c_void>());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD_ALIGNED {
            mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
        }
    }
}

/// `mi_option_purge_delay`'s number in the mimalloc header built into this crate (build.rs reads
/// it: the Rust binding names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t =
    match i32::from_str_radix(env!("MI_OPTION_PURGE_DELAY"), 10) {
        Ok(n) => n,
        Err(_) => panic!("build.rs writes a number"),
    };

/// Has mimalloc return freed memory to the system at once instead of 10 ms later: a check frees
/// its transient allocations (decoded operations, parse trees, the analyses of a linted function)
/// while it allocates others, and the delay keeps both resident (about 4 MB of peak RSS on a
/// 14k-op model; the same CPU time, BENCHMARKS.md). Call it before starting any thread.
pub fn purge_freed_memory_at_once() {
    // SAFETY: `mi_option_set` takes plain integers and stores the option's value; the binary calls
    // this before it starts any thread (the thread pool starts in `check`), so nothing reads the
    // option while it is written. `purge_delay_is_set` tests the option's number and effect.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each call gives memory of the asked alignment, zeroed when asked, and `realloc` keeps the
    /// bytes, over the sizes of every small size class and some large ones.
    #[test]
    fn blocks_have_their_layouts_alignment_and_contents() {
        let sizes = (1..=130).chain([255, 1000, 4097, 70_000, 1 << 21]);
        for size in sizes {
            for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero sizes; every block is freed once, with the layout it has.
                unsafe {
                    let p = Mimalloc.alloc(layout);
                    assert!(!p.is_null() && p as usize % align == 0, "{size} × {align}");
                    p.write_bytes(0xAB, size);
                    let grown = size * 3 + 1;
                    let q = Mimalloc.realloc(p, layout, grown);
                    assert!(q as usize % align == 0, "realloc {size} × {align}");
                    assert!((0..size).all(|i| *q.add(i) == 0xAB), "realloc {size} kept");
                    Mimalloc.dealloc(q, Layout::from_size_align(grown, align).unwrap());
                    let z = Mimalloc.alloc_zeroed(layout);
                    assert!(z as usize % align == 0, "zeroed {size} × {align}");
                    assert!((0..size).all(|i| *z.add(i) == 0), "zeroed {size}");
                    Mimalloc.dealloc(z, layout);
                }
            }
        }
    }

    #[test]
    fn purge_delay_is_set() {
        // The header lists `mi_option_purge_delay` right after the option the binding names.
        assert_eq!(
            MI_OPTION_PURGE_DELAY,
            libmimalloc_sys::mi_option_eager_commit_delay + 1
        );
        purge_freed_memory_at_once();
        // SAFETY: reads an option's value; this test is the only writer of options.
        let delay = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(delay, 0);
    }
}
