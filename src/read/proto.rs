//! Hand-written prost structs for the `Model` and MIL protobufs (FORMAT.md §2–3).

use std::path::Path;

use super::ReadError;

/// `CoreML.Specification.Model` (the subset we model).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Model {
    #[prost(int32, tag = "1")]
    pub specification_version: i32,
}

/// Decodes a `Model` protobuf.
pub fn decode_model(bytes: &[u8], path: &Path) -> Result<Model, ReadError> {
    use prost::Message;
    Model::decode(bytes).map_err(|e| ReadError::Protobuf {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}
