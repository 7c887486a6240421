//! Decoding a `Model` protobuf, its errors naming the file.

use std::path::Path;

use super::super::ReadError;
use super::messages::{Model, ModelOutline};

/// Decodes a `Model` protobuf.
pub fn decode_model(bytes: &[u8], path: &Path) -> Result<Model, ReadError> {
    use prost::Message;
    Model::decode(bytes).map_err(|e| ReadError::Protobuf {
        path: path.to_path_buf(),
        message: crate::read::error::decode_error_text(&e),
    })
}

/// Decodes the outline of a `Model` protobuf; `bytes` is shared by the operations, not copied.
pub fn decode_outline(bytes: prost::bytes::Bytes, path: &Path) -> Result<ModelOutline, ReadError> {
    use prost::Message;
    ModelOutline::decode(bytes).map_err(|e| ReadError::Protobuf {
        path: path.to_path_buf(),
        message: crate::read::error::decode_error_text(&e),
    })
}
