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
