//! The whole pipeline: bytes → a package in a temp folder → check → fix into a temp copy
//! (`tests/fuzz_harness/mod.rs::pipeline`). One temp folder per process, emptied per input.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

#[path = "../../tests/fuzz_harness/mod.rs"]
mod harness;

fn folder() -> &'static PathBuf {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let work = dir.path().join("work");
        (dir, work)
    })
    .1
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::pipeline(data, folder()));
