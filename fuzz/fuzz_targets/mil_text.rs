//! Text MIL: bytes → `read::miltext::parse_program`; a program that parses must render and parse back
//! to the same program (`tests/fuzz_harness/mod.rs::mil_text`).
#![no_main]

#[path = "../../tests/fuzz_harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::mil_text(data));
