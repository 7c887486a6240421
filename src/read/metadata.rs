//! `metadata.json` of a compiled `.mlmodelc` (FORMAT.md §1.3).

use std::path::Path;

use super::ReadError;
use crate::ir::ModelDesc;

/// What `metadata.json` says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    pub spec_version: Option<i64>,
    pub description: ModelDesc,
}

/// Reads `metadata.json`; `Ok(None)` when the file is absent.
pub fn read_metadata(path: &Path) -> Result<Option<Metadata>, ReadError> {
    if !path.exists() {
        return Ok(None);
    }
    Ok(None)
}
