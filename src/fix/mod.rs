//! Fixes: graph rewrites, write-back (protobuf / text) and atomic file replacement.

pub mod plan;
pub mod window;
pub mod edit;
