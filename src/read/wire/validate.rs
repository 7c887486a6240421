//! Checks that bytes are a well-formed message of a given type, as prost would decode it: every
//! field read, known fields of their declared wire type, nested messages checked in turn (depth
//! first, in file order, so the first problem found is the first prost would have met), unknown
//! fields skipped. Nothing is kept.

use super::cursor::{Cursor, WireError};
use super::fields::{Kind, Message};

/// Checks `bytes` as a `message` whose fields have `budget` levels left.
pub(crate) fn validate(bytes: &[u8], message: Message, budget: u32) -> Result<(), WireError> {
    let mut c = Cursor::new(bytes, budget);
    while let Some(f) = c.next_field()? {
        let Some(kind) = message.kind(f.number) else {
            c.unknown()?;
            continue;
        };
        match kind {
            Kind::Varint => drop(f.varint()?),
            Kind::Bytes => drop(f.bytes()?),
            Kind::Message(inner) => validate(f.bytes()?, inner, c.nested()?)?,
            Kind::PackedVarint => f.varints(drop)?,
            Kind::PackedFixed32 => f.fixed32s(drop)?,
            Kind::PackedFixed64 => f.fixed64s(drop)?,
        }
    }
    Ok(())
}
