//! Settings of mimalloc, the binary's global allocator (`src/main.rs`).

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
