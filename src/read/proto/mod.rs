//! The `Model` and MIL protobufs (FORMAT.md §2–3) as prost messages.
//!
//! - `model_spec.rs`: the Model.proto messages (the model, its description and feature types).
//! - `mil.rs`: the MIL.proto messages, rendered from the one table of their fields (`table.rs`,
//!   by `codegen.rs`): owned messages for the fixer, `<Name>Outline`s and the
//!   [`zero_copy`] views the reader decodes.
//! - `outline.rs`: the `Model` outline the reader decodes first.
//! - `decode.rs`: decoding, errors naming the file.
//!
//! The splice that re-encodes a `Model` keeping every byte not meant to change is the fixer's
//! (`fix/splice.rs`).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

mod decode;
#[rustfmt::skip]
mod mil;
mod model_spec;
mod outline;

#[cfg(test)]
mod codegen;
#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod table;
#[cfg(test)]
mod tests;

pub use decode::{decode_model, decode_outline};
pub use mil::*;
pub use model_spec::*;
pub use outline::*;
