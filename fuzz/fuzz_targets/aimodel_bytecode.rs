//! Core AI `main.mlirb`: arbitrary bytes through the MLIR bytecode container reader; it must return
//! an error with an offset inside the input, never panic or read past it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = coreml_lint::read::aimodel::bytecode::parse(data) {
        assert!(e.offset <= data.len());
    }
});
