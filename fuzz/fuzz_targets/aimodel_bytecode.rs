//! Core AI `main.mlirb`: arbitrary bytes through the MLIR bytecode container reader and, when the
//! container reads, through the program reader (`tests/fuzz_harness/mod.rs::aimodel_bytecode`).
#![no_main]

#[path = "../../tests/fuzz_harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::aimodel_bytecode(data));
