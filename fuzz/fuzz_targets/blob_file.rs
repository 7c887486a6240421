//! Weight files: a few bytes choosing consts, then the bytes of `weights/weight.bin`; read and every
//! weight entity described (`tests/fuzz_harness/mod.rs::blob_file`). One temp package per process.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

#[path = "../../tests/fuzz_harness/mod.rs"]
mod harness;

fn package() -> &'static PathBuf {
    static PKG: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &PKG.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let pkg = harness::blob_package(dir.path());
        (dir, pkg)
    })
    .1
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::blob_file(data, package()));
