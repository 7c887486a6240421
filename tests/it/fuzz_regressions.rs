//! Replays every saved fuzz input under `tests/fuzz_regressions/<target>/` through the check its
//! fuzz target runs (`tests/fuzz_harness`). Inputs that once crashed, hung or broke an invariant are
//! kept here, named for what they broke.

use crate::fuzz_harness;

use std::path::PathBuf;

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.map(|e| e.expect("dir entry").path())
                .map(|p| {
                    let bytes = std::fs::read(&p).expect("read input");
                    (p, bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn mil_text_regressions() {
    let cases = inputs("mil_text");
    assert!(!cases.is_empty(), "no saved mil_text inputs");
    for (path, bytes) in cases {
        eprintln!("{}", path.display());
        fuzz_harness::mil_text(&bytes);
    }
}

#[test]
fn blob_file_regressions() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = fuzz_harness::blob_package(dir.path());
    for (path, bytes) in inputs("blob_file") {
        eprintln!("{}", path.display());
        fuzz_harness::blob_file(&bytes, &pkg);
    }
}

#[test]
fn model_proto_regressions() {
    for (path, bytes) in inputs("model_proto") {
        eprintln!("{}", path.display());
        fuzz_harness::model_proto(&bytes);
    }
}

#[test]
fn pipeline_regressions() {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in inputs("pipeline") {
        eprintln!("{}", path.display());
        fuzz_harness::pipeline(&bytes, &dir.path().join("work"));
    }
}

/// The container and program readers on every saved input.
#[test]
fn aimodel_bytecode_regressions() {
    let cases = inputs("aimodel_bytecode");
    assert!(!cases.is_empty(), "no saved aimodel_bytecode inputs");
    for (path, bytes) in cases {
        eprintln!("{}", path.display());
        fuzz_harness::aimodel_bytecode(&bytes);
    }
}

/// The `aimodel_program` check on every saved input and on the corpus's Core AI programs (its
/// seeds), so the harness itself is known to read a program end to end.
#[test]
fn aimodel_program_regressions() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = inputs("aimodel_program");
    let programs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/coreai/programs");
    for entry in std::fs::read_dir(&programs).expect("corpus/coreai/programs") {
        let program = entry.unwrap().path().join("main.mlirb");
        if let Ok(bytes) = std::fs::read(&program) {
            cases.push((program, bytes));
        }
    }
    assert!(cases.len() >= 5, "only {} Core AI programs", cases.len());
    let work = dir.path().join("work");
    for (path, bytes) in cases {
        eprintln!("{}", path.display());
        fuzz_harness::aimodel_program(&bytes, &work);
        if path.starts_with(&programs) {
            let found = coreml_lint::discover::discover(&[work.join("x.aimodel")]);
            let [Ok(found)] = found.as_slice() else {
                panic!("{}: the harness's bundle is not found", path.display());
            };
            let read = coreml_lint::read::read_model(found);
            let Ok(coreml_lint::read::ReadOutcome::Model(model)) = read else {
                panic!("{}: the harness's bundle does not read", path.display());
            };
            assert!(
                !model.program.functions.is_empty(),
                "{}: no function read",
                path.display()
            );
        }
    }
}
