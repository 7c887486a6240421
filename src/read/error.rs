//! Errors of the read layer: every one names the file and says what is wrong.

use std::path::PathBuf;

use miette::{Diagnostic, NamedSource, SourceSpan};

/// Why a model could not be read.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[non_exhaustive]
pub enum ReadError {
    /// The file or folder could not be opened or read.
    #[error("{}: cannot read: {message}", path.display())]
    #[diagnostic(code(coreml_lint::read::io))]
    Io { path: PathBuf, message: String },

    /// The path is not something coreml-lint knows how to read.
    #[error("{}: {message}", path.display())]
    #[diagnostic(
        code(coreml_lint::read::not_a_model),
        help("pass an .mlpackage or .mlmodelc folder, a .mlmodel file or a .mil file")
    )]
    NotAModel { path: PathBuf, message: String },

    /// `Manifest.json` is missing, not JSON, or names an item that is not there or not allowed.
    #[error("{}: bad Manifest.json: {message}", path.display())]
    #[diagnostic(code(coreml_lint::read::manifest))]
    Manifest { path: PathBuf, message: String },

    /// The `Model` protobuf does not decode.
    #[error("{}: not a valid Core ML Model protobuf: {message}", path.display())]
    #[diagnostic(code(coreml_lint::read::protobuf))]
    Protobuf { path: PathBuf, message: String },

    /// The program is structurally invalid (bad types, absurd shapes, …) in a protobuf file.
    #[error("{}: invalid ML program: {message}", path.display())]
    #[diagnostic(code(coreml_lint::read::program))]
    Program { path: PathBuf, message: String },

    /// Text MIL that does not parse, or whose names do not resolve.
    #[error(transparent)]
    #[diagnostic(transparent)]
    MilSyntax(Box<MilSyntax>),

    /// `metadata.json` of a compiled model is not what the format says.
    #[error("{}: bad metadata.json: {message}", path.display())]
    #[diagnostic(code(coreml_lint::read::metadata))]
    Metadata { path: PathBuf, message: String },

    /// A file is larger than coreml-lint will read into memory.
    #[error("{}: file is {size} bytes, over the {limit}-byte limit for reading it into memory", path.display())]
    #[diagnostic(code(coreml_lint::read::too_large))]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
}

impl ReadError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, err: &std::io::Error) -> ReadError {
        ReadError::Io {
            path: path.into(),
            message: err.to_string(),
        }
    }

    /// The error as it concerns a sub-model of a pipeline: the message names the sub-model.
    pub fn in_sub_model(self, sub_model: &crate::ir::SubModel) -> ReadError {
        match self {
            ReadError::Protobuf { path, message } => ReadError::Protobuf {
                path,
                message: format!("{sub_model}: {message}"),
            },
            ReadError::Program { path, message } => ReadError::Program {
                path,
                message: format!("{sub_model}: {message}"),
            },
            other => other,
        }
    }

    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            ReadError::Io { path, .. }
            | ReadError::NotAModel { path, .. }
            | ReadError::Manifest { path, .. }
            | ReadError::Protobuf { path, .. }
            | ReadError::Program { path, .. }
            | ReadError::Metadata { path, .. }
            | ReadError::TooLarge { path, .. } => path,
            ReadError::MilSyntax(e) => &e.path,
        }
    }
}

/// A syntax or name-resolution error in text MIL, with a labelled span.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{}:{line}:{column}: {message}", path.display())]
#[diagnostic(code(coreml_lint::read::mil_syntax))]
pub struct MilSyntax {
    pub path: PathBuf,
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("{label}")]
    pub span: SourceSpan,
    pub label: String,
    /// 1-based line and column of the span start.
    pub line: usize,
    pub column: usize,
}
