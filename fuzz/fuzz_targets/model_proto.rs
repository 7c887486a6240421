//! `Model` protobufs: bytes → decode → lower → render → rules (`tests/fuzz_harness/mod.rs::model_proto`).
#![no_main]

#[path = "../../tests/fuzz_harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::model_proto(data));
