//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the repository (or `$COREML_LINT_SHARED`), when it exists.
pub fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("COREML_LINT_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared"));
    dir.is_dir().then_some(dir)
}

/// `corpus/` in the repository.
pub fn corpus() -> PathBuf {
    repo().join("corpus")
}
