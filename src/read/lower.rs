//! Protobuf `Model` → IR [`Program`](crate::ir::Program) and [`ModelDesc`](crate::ir::ModelDesc).

use std::path::Path;

use super::{proto, ReadError};
use crate::ir::{ModelDesc, Program};

/// A lowered ML program.
#[derive(Debug)]
pub struct LoweredProgram {
    pub program: Program,
    pub description: ModelDesc,
    pub spec_version: i64,
}

/// The result of lowering a `Model`.
#[derive(Debug)]
pub enum Lowered {
    Program(Box<LoweredProgram>),
    /// Not an ML program; the string names what it is (e.g. "a neural network").
    NotMlProgram(String),
}

/// Lowers a decoded `Model`.
pub fn lower_model(_model: &proto::Model, path: &Path) -> Result<Lowered, ReadError> {
    Err(ReadError::Program {
        path: path.to_path_buf(),
        message: "not implemented yet".into(),
    })
}
