//! Text MIL (`model.mil`): lexer and parser with byte spans (FORMAT.md §5, SYNTAX-NOTES.md).

use std::path::Path;

use super::ReadError;
use crate::ir::Program;

/// Parses a whole `model.mil` into the IR.
pub fn parse_program(_text: &str, path: &Path) -> Result<Program, ReadError> {
    Err(ReadError::Program {
        path: path.to_path_buf(),
        message: "not implemented yet".into(),
    })
}
