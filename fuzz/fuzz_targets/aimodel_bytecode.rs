//! Core AI `main.mlirb`: arbitrary bytes through the MLIR bytecode container reader and, when the
//! container reads, through the program reader (IR section, `aicode` types and attributes,
//! properties, lowering into the IR); each must return an error with an offset inside the input,
//! never panic or read past it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    match coreml_lint::read::aimodel::bytecode::parse(data) {
        Err(e) => assert!(e.offset <= data.len()),
        Ok(b) => {
            let mut text = String::new();
            if let Err(e) = coreml_lint::read::aimodel::program::lower(data, &b, &mut text) {
                assert!(e.offset <= data.len());
            }
        }
    }
});
