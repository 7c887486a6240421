//! Errors of the read layer: every one names the file and says what is wrong.

use std::path::PathBuf;

use miette::{Diagnostic, NamedSource, SourceSpan};

/// Why a model could not be read.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[non_exhaustive]
pub enum ReadError {
    /// The file or folder could not be opened or read.
    #[error("{}: cannot read: {message}", path.display())]
    #[diagnostic(code(read))]
    Io {
        /// The file or folder that could not be read.
        path: PathBuf,
        /// The operating system's message.
        message: String,
    },

    /// The path is not something coreml-lint knows how to read.
    #[error("{}: {message}", path.display())]
    #[diagnostic(
        code(read),
        help("pass an .mlpackage or .mlmodelc folder, a .mlmodel file or a .mil file")
    )]
    NotAModel {
        /// The path as given.
        path: PathBuf,
        /// Why it is not a model (what it is instead).
        message: String,
    },

    /// A folder given as input holds no model at any depth.
    #[error("{}: no Core ML model in this folder or below it", path.display())]
    #[diagnostic(
        code(read),
        help("pass a folder holding .mlpackage or .mlmodelc folders, .mlmodel or .mil files")
    )]
    NoModels {
        /// The folder as given.
        path: PathBuf,
    },

    /// `Manifest.json` is missing, not JSON, or names an item that is not there or not allowed.
    #[error("{}: bad Manifest.json: {message}", path.display())]
    #[diagnostic(code(read))]
    Manifest {
        /// The package's `Manifest.json`.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },

    /// The `Model` protobuf does not decode.
    #[error("{}: not a valid Core ML Model protobuf: {message}", path.display())]
    #[diagnostic(code(read))]
    Protobuf {
        /// The `model.mlmodel` file.
        path: PathBuf,
        /// The decoder's message (what field, at what offset).
        message: String,
    },

    /// The program is structurally invalid (bad types, absurd shapes, …) in a protobuf file.
    #[error("{}: invalid ML program: {message}", path.display())]
    #[diagnostic(code(read))]
    Program {
        /// The `model.mlmodel` file.
        path: PathBuf,
        /// What is invalid, naming the function or op.
        message: String,
    },

    /// Text MIL that does not parse, or whose names do not resolve.
    #[error(transparent)]
    #[diagnostic(transparent)]
    MilSyntax(Box<MilSyntax>),

    /// `metadata.json` of a compiled model is not what the format says.
    #[error("{}: bad metadata.json: {message}", path.display())]
    #[diagnostic(code(read))]
    Metadata {
        /// The `metadata.json` file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },

    /// A compiled model folder (`.mlmodelc`) is incomplete or its `coremldata.bin` is unreadable.
    #[error("{}: {message}", path.display())]
    #[diagnostic(code(read))]
    Compiled {
        /// The folder or file at fault.
        path: PathBuf,
        /// What is wrong, and what to do about it.
        message: String,
    },

    /// A Git LFS pointer stands in for a file the model cannot be read without.
    #[error("{}: is a Git LFS pointer ({size} bytes), not the file itself: the LFS object was never fetched", path.display())]
    #[diagnostic(
        code(read),
        help("run `git lfs pull` in the repository the model came from (or download the real file), then check again")
    )]
    LfsPointer {
        /// The pointer file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
    },

    /// A file is larger than coreml-lint will read into memory.
    #[error("{}: file is {size} bytes, over the {limit}-byte limit for reading it into memory", path.display())]
    #[diagnostic(code(read))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The largest size read ([`crate::limits::MAX_FILE_BYTES`]).
        limit: u64,
    },
}

impl ReadError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, err: &std::io::Error) -> ReadError {
        ReadError::Io {
            path: path.into(),
            message: err.to_string(),
        }
    }

    /// The error as it concerns a sub-model of a pipeline: the message names the sub-model.
    pub(crate) fn in_sub_model(self, sub_model: &crate::ir::SubModel) -> ReadError {
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

    /// 1-based line and column (in bytes) in [`ReadError::path`] where the error is, when the
    /// reader knows it (text MIL).
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            ReadError::MilSyntax(e) => Some((e.line, e.column)),
            _ => None,
        }
    }

    /// What is wrong, without the path (and position) the message starts with: for reports that
    /// give the location apart from the message.
    pub fn detail(&self) -> String {
        if let ReadError::MilSyntax(e) = self {
            return e.message.clone();
        }
        let whole = self.to_string();
        let prefix = format!("{}: ", self.path().display());
        match whole.strip_prefix(&prefix) {
            Some(rest) => rest.to_string(),
            None => whole,
        }
    }

    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            ReadError::Io { path, .. }
            | ReadError::NotAModel { path, .. }
            | ReadError::NoModels { path }
            | ReadError::Manifest { path, .. }
            | ReadError::Protobuf { path, .. }
            | ReadError::Program { path, .. }
            | ReadError::Metadata { path, .. }
            | ReadError::Compiled { path, .. }
            | ReadError::LfsPointer { path, .. }
            | ReadError::TooLarge { path, .. } => path,
            ReadError::MilSyntax(e) => &e.path,
        }
    }
}

/// A syntax or name-resolution error in text MIL, with a labelled span.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{}:{line}:{column}: {message}", path.display())]
#[diagnostic(code(read))]
pub struct MilSyntax {
    /// The `model.mil` file.
    pub path: PathBuf,
    /// What is wrong (`expected `=`, found `)``).
    pub message: String,
    /// The text of the file, for the snippet.
    #[source_code]
    pub src: NamedSource<String>,
    /// Where in the text.
    #[label("{label}")]
    pub span: SourceSpan,
    /// The label under the span (what was expected there).
    pub label: String,
    /// 1-based line of the span start.
    pub line: usize,
    /// 1-based column (in bytes) of the span start.
    pub column: usize,
    /// What to do about it, when the reader can tell (a printed program is not text MIL).
    #[help]
    pub help: Option<String>,
}

/// The protobuf decoder's error in a user's words: what is wrong with the bytes and what to do,
/// without the names of the reader's message types (`ModelOutline.ml_program: buffer underflow`).
pub(crate) fn decode_error_text(e: &prost::DecodeError) -> String {
    let whole = e.to_string();
    let has = |s: &str| whole.contains(s);
    let damaged = "the file is damaged, or not a Core ML model; export or download it again";
    if has("buffer underflow") {
        "the file is cut short: it ends inside a message (an interrupted download or copy?); \
         export or download the model again"
            .into()
    } else if has("delimited length exceeded") || has("length delimiter exceeds") {
        format!("a length field points past the end of its message or of the file: {damaged}")
    } else if has("recursion limit reached") {
        "messages are nested deeper than the decoder's limit of 100 levels".into()
    } else if has("not UTF-8") {
        "a string field is not UTF-8 text".into()
    } else if has("invalid varint") {
        "the file is cut short or damaged: a number in it does not end; export or download the \
         model again"
            .into()
    } else {
        // The cause without the decoder's stack of message and field names.
        let mut cause = whole
            .strip_prefix("failed to decode Protobuf message: ")
            .unwrap_or(&whole);
        while let Some((head, rest)) = cause.split_once(": ") {
            let is_field = head.split_once('.').is_some_and(|(m, f)| {
                !m.is_empty()
                    && !f.is_empty()
                    && (m.chars().chain(f.chars())).all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            if !is_field {
                break;
            }
            cause = rest;
        }
        format!("the bytes do not decode as a Model message ({cause}): {damaged}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoder_errors_say_what_is_wrong_without_internal_type_names() {
        use prost::Message;
        // `description` says 5 bytes follow; 4 do.
        let cut = crate::read::proto::Model::decode(&[0x12, 0x05, 0x0a, 0x03, b'a', b'b'][..])
            .unwrap_err();
        let text = decode_error_text(&cut);
        assert!(text.starts_with("the file is cut short"), "{text}");
        // Cut inside a length: the number does not end.
        let cut = crate::read::proto::Model::decode(&[0x08, 0x09, 0x12][..]).unwrap_err();
        let text = decode_error_text(&cut);
        assert!(text.contains("cut short or damaged"), "{text}");
        let garbage = crate::read::proto::Model::decode(&[0x0f, 0x01][..]).unwrap_err();
        let text = decode_error_text(&garbage);
        assert!(
            !text.contains("Model.") && !text.contains("Outline"),
            "{text}"
        );
        assert!(text.contains("not a Core ML model"), "{text}");
    }

    #[test]
    fn detail_drops_the_path_and_position_prefix_the_message_starts_with() {
        let io = ReadError::Io {
            path: "a/b.mil".into(),
            message: "no such file".into(),
        };
        assert_eq!(io.to_string(), "a/b.mil: cannot read: no such file");
        assert_eq!(io.detail(), "cannot read: no such file");
        assert_eq!(io.position(), None);

        let text = "program(1.3)\n{ y = relu(x = q) }\n".to_string();
        let syntax = ReadError::MilSyntax(Box::new(MilSyntax {
            path: "a/b.mil".into(),
            message: "`q` is not defined".into(),
            src: NamedSource::new("a/b.mil", text),
            span: (29, 1).into(),
            label: "here".into(),
            line: 2,
            column: 17,
            help: None,
        }));
        assert_eq!(syntax.to_string(), "a/b.mil:2:17: `q` is not defined");
        assert_eq!(syntax.detail(), "`q` is not defined");
        assert_eq!(syntax.position(), Some((2, 17)));
    }
}
