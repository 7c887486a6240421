//! `Manifest.json` of an `.mlpackage` (FORMAT.md §1.1).

use std::path::{Path, PathBuf};

use super::ReadError;

/// What the manifest points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// `<pkg>/Data/<root item path>`.
    pub root_model: PathBuf,
    /// `<pkg>/Data/<weights item path>`, when the manifest names one.
    pub weights_dir: Option<PathBuf>,
}

/// Reads and checks `<pkg>/Manifest.json`.
pub fn read_manifest(pkg: &Path) -> Result<Manifest, ReadError> {
    Err(ReadError::Manifest {
        path: pkg.join("Manifest.json"),
        message: "not implemented yet".into(),
    })
}
