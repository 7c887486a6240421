//! The error of a rule file that does not compile.

/// A problem in a rule file, with the YAML path of the key it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub path: Vec<String>,
    pub message: String,
}
