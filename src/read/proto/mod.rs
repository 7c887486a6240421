//! The `Model` and MIL protobufs (FORMAT.md §2–3) as prost messages, all rendered from one table.
//!
//! - `table.rs`: every message and field coreml-lint reads (names, tags, wire types, labels,
//!   maps, oneofs), and how each is held in a view and an outline.
//! - `messages.rs`: rendered from the table by `codegen.rs` and kept equal to it by a test: the
//!   owned messages the fixer edits and re-encodes, the `<Name>Outline`s the reader decodes first
//!   (a pipeline's sub-models and a program's top-level operations left undecoded), and the
//!   [`zero_copy`] views of an operation's messages.
//! - `fields.rs`: rendered from the table too: each message's fields by key, and a `Field` enum per
//!   message that [`wire`] reads, so code reading the wire by hand names no field number.
//! - `wire.rs`: the wire format by hand: the crate's one varint reader, payloads, the field loop.
//! - `outline.rs`, `model_kind.rs`: what the outlines and the model kinds offer beyond fields.
//! - `decode.rs`: decoding, errors naming the file.
//!
//! The splice that re-encodes a `Model` keeping every byte not meant to change is the fixer's
//! (`fix/splice.rs`).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

mod decode;
#[rustfmt::skip]
pub mod fields;
#[rustfmt::skip]
mod messages;
mod model_kind;
mod outline;
pub mod wire;

#[cfg(test)]
mod codegen;
#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod table;
#[cfg(test)]
mod tests;

pub use decode::{decode_model, decode_outline};
pub use messages::*;
