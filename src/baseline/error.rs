//! The error of a baseline file that could not be read, used or written.

use std::path::{Path, PathBuf};

/// A baseline file that could not be read, used or written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{}: {message}", path.display())]
#[diagnostic(
    code(baseline),
    help("a baseline is the JSON `coreml-lint check --write-baseline FILE` writes")
)]
pub struct BaselineError {
    /// The baseline file.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl BaselineError {
    /// An error about the baseline file `path`.
    pub fn new(path: &Path, message: String) -> BaselineError {
        BaselineError {
            path: path.to_path_buf(),
            message,
        }
    }
}
