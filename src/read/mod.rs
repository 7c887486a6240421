//! Readers: package discovery results in, [`Model`](crate::ir::Model) out.
//!
//! One module per source: `manifest` (Manifest.json), `proto` (hand-written prost structs),
//! `lower` (protobuf → IR), `miltext` (text MIL lexer + parser), `metadata` (metadata.json),
//! `blob` (memory-mapped weight files), `limits` (caps on what input may make us allocate).

pub mod aimodel;
pub mod blob;
pub(crate) mod coremldata;
pub mod error;
pub mod lfs;
pub(crate) mod limits;
pub mod lower;
pub(crate) mod manifest;
pub mod metadata;
pub mod miltext;
pub(crate) mod nms;
pub mod outcome;
pub mod package;
pub mod proto;

pub use error::{MilSyntax, ReadError};
pub use outcome::{ReadOutcome, Stage};
pub use package::{read_model, read_model_with, ReadOptions};
