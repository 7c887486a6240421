//! The reader of MIL operations: protobuf wire bytes straight into the IR's reader syntax
//! ([`OpSyntax`], [`InputSyntax`], [`Literal`], …), with no message tree in between.
//!
//! - [`cursor`]: a bounds-checked reader of the wire format (keys, varints, fixed-width values,
//!   length-delimited slices, skipped unknown fields and groups, packed and unpacked repeated
//!   scalars), accepting and refusing what prost does.
//! - [`fields`]: the field numbers of each message, written once.
//! - [`validate`]: checks that bytes are a well-formed message of a type, as prost would decode it.
//! - [`msg`] and [`decode`]: the message decoders. Strings are read as `&str` borrowed from the
//!   file's buffer (UTF-8 checked where the IR keeps or the format requires them) and become IR
//!   names in [`decode::ir_name`] only.
//!
//! The outline of a model (Model → ML program → functions → blocks, operations left as bytes) is
//! decoded by prost (`read::proto`); the owned prost structs there are what the fixer re-encodes.
//!
//! What a file may make the reader do is capped by [`crate::limits`] (block and type nesting,
//! dimension sizes, decoded immediate elements) and by the recursion limit of [`cursor`].

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

mod cursor;
mod decode;
pub(crate) mod fields;
mod msg;
mod validate;

#[cfg(test)]
mod tests;

use std::path::Path;

use super::ReadError;
use crate::ir::build::{InputSyntax, OpSyntax};
use crate::ir::Literal;

pub(crate) use cursor::{WireError, RECURSION_LIMIT};
#[cfg(test)]
pub(crate) use decode::decode_bytes;
pub(crate) use decode::ir_name;
pub(crate) use fields::Message;
pub(crate) use validate::validate;

use decode::text;
use msg::Msg;

/// Why part of a program could not be lowered.
#[derive(Debug)]
pub(crate) enum Fault {
    /// The bytes are not protobuf of the expected message (an operation that does not decode, a
    /// `string` field that is not UTF-8).
    Decode(String),
    /// The program is well-formed protobuf but not a valid program.
    Invalid(String),
}

impl Fault {
    pub(crate) fn invalid(message: impl Into<String>) -> Fault {
        Fault::Invalid(message.into())
    }

    /// The same fault, its message prefixed with where it is.
    pub(crate) fn at(self, place: impl std::fmt::Display) -> Fault {
        match self {
            Fault::Decode(m) => Fault::Decode(format!("{place}: {m}")),
            Fault::Invalid(m) => Fault::Invalid(format!("{place}: {m}")),
        }
    }

    pub(crate) fn into_read_error(self, path: &Path, place: &str) -> ReadError {
        match self {
            Fault::Decode(m) => ReadError::Protobuf {
                path: path.to_path_buf(),
                message: format!("{place}: {m}"),
            },
            Fault::Invalid(m) => ReadError::Program {
                path: path.to_path_buf(),
                message: format!("{place}: {m}"),
            },
        }
    }
}

impl From<String> for Fault {
    fn from(message: String) -> Fault {
        Fault::Invalid(message)
    }
}

/// Lowers one top-level `Operation` message (`bytes`, read as a message of its own, as the
/// outline leaves it). Malformed wire bytes anywhere in it are reported before any other fault.
///
/// The decoders check every byte they read as prost would, and check with [`validate`] what they
/// do not lower (a oneof member set before the last one, map entries that lose to a later equal
/// key, …), so an operation that lowers is well-formed. When lowering fails, the whole operation
/// is validated: a malformed one reports that (prost decoded the whole operation before anything
/// was lowered), a well-formed one the fault met in lowering.
pub(crate) fn operation(bytes: &[u8]) -> Result<OpSyntax, Fault> {
    let lowered = decode::op_in_context(&Msg::new(bytes, RECURSION_LIMIT), 0);
    match lowered {
        Ok(op) => {
            debug_assert_eq!(
                validate(bytes, Message::Operation, RECURSION_LIMIT),
                Ok(()),
                "lowered an operation prost would refuse"
            );
            Ok(op)
        }
        Err(fault) => {
            validate(bytes, Message::Operation, RECURSION_LIMIT)?;
            Err(fault)
        }
    }
}

/// Lowers a function's or block's parameter: the `NamedValueType` `bytes`, whose fields have
/// `budget` levels left (already checked with [`validate`]).
pub(crate) fn input(bytes: &[u8], budget: u32) -> Result<InputSyntax, Fault> {
    decode::lower_input(&Msg::new(bytes, budget), 0)
}

/// Lowers the entries of a `map<string, Value>` (`entries`, each one entry message whose fields
/// have `budget` levels left, already checked with [`validate`]), in key order, the last of equal
/// keys winning.
pub(crate) fn attributes<'a>(
    entries: impl IntoIterator<Item = &'a [u8]>,
    budget: u32,
) -> Result<Vec<(String, Literal)>, Fault> {
    let entries = entries
        .into_iter()
        .map(|e| decode::read_entry(e, budget))
        .collect::<Result<Vec<_>, _>>()?;
    decode::lower_attributes(entries, 0)
}

/// Checks the entries of a `map<string, Value>` the IR does not keep: keys and strings UTF-8.
pub(crate) fn check_attributes<'a>(
    entries: impl IntoIterator<Item = &'a [u8]>,
    budget: u32,
) -> Result<(), Fault> {
    entries
        .into_iter()
        .try_for_each(|e| decode::check_ignored_entry(&decode::read_entry(e, budget)?))
}

/// The UTF-8 text of a `string` field (a block output), or a decode fault.
pub(crate) fn string(bytes: &[u8]) -> Result<&str, Fault> {
    text(bytes)
}
