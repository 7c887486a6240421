//! The Core AI program reader as `check` runs it: the input is the `main.mlirb` of a bundle with
//! a matching `main.hash` and a valid `metadata.json`, written to a temp folder, read (container,
//! IR section, types and attributes, lowering) and linted with every rule
//! (`tests/fuzz_harness/mod.rs::aimodel_program`). One temp folder per process, emptied per input.
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

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::aimodel_program(data, folder()));
