//! A bounds-checked reader of the protobuf wire format over a byte slice: keys, varints, fixed
//! 32/64-bit values, length-delimited slices, skipped groups, packed and unpacked repeated scalars.
//!
//! What it accepts and refuses is what prost 0.14 accepts and refuses (the reader used to be prost):
//! varints of at most 10 bytes that fit in 64 bits, keys that fit in 32 bits with a field number
//! other than 0 and a wire type other than 6 or 7, lengths within the bytes that remain, and at most
//! [`RECURSION_LIMIT`] nested messages below the one a decode starts from (unknown fields count:
//! prost refuses to skip one at the limit). The error messages are prost's.

use std::fmt;

/// How many message levels a decode may descend below the message it starts from (prost's
/// recursion limit). A message's fields are read with a budget; entering a nested message (or
/// skipping an unknown field) needs a budget above 0 and gives the nested message's fields one less.
pub(crate) const RECURSION_LIMIT: u32 = 100;

/// The six wire types (the names are prost's, as its error messages print them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WireType {
    Varint,
    SixtyFourBit,
    LengthDelimited,
    StartGroup,
    ThirtyTwoBit,
}

/// Why bytes are not a well-formed message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WireError {
    /// A varint longer than 10 bytes, past the end, or over 64 bits.
    InvalidVarint,
    /// A key over 32 bits.
    InvalidKey(u64),
    /// A key with field number 0.
    InvalidTag,
    /// Wire type 6 or 7.
    InvalidWireType(u64),
    /// A known field with another wire type than its declaration's.
    UnexpectedWireType {
        actual: WireType,
        expected: WireType,
    },
    /// A length or fixed-width value past the end of its message.
    BufferUnderflow,
    /// Messages nested more than [`RECURSION_LIMIT`] levels deep.
    RecursionLimit,
    /// An end-group key without its start, or not matching it.
    UnexpectedEndGroup,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("failed to decode Protobuf message: ")?;
        match self {
            WireError::InvalidVarint => f.write_str("invalid varint"),
            WireError::InvalidKey(key) => write!(f, "invalid key value: {key}"),
            WireError::InvalidTag => f.write_str("invalid tag value: 0"),
            WireError::InvalidWireType(value) => write!(f, "invalid wire type value: {value}"),
            WireError::UnexpectedWireType { actual, expected } => {
                write!(f, "invalid wire type: {actual:?} (expected {expected:?})")
            }
            WireError::BufferUnderflow => f.write_str("buffer underflow"),
            WireError::RecursionLimit => f.write_str("recursion limit reached"),
            WireError::UnexpectedEndGroup => f.write_str("unexpected end group tag"),
        }
    }
}

/// The value of one field as it sits on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    Varint(u64),
    SixtyFourBit(u64),
    LengthDelimited(&'a [u8]),
    ThirtyTwoBit(u32),
    /// A group (proto2; never a known field here), already skipped.
    Group,
}

/// One field: its number and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field<'a> {
    pub(crate) number: u32,
    pub(crate) value: Value<'a>,
}

impl<'a> Field<'a> {
    /// The wire type the field was written with.
    pub(crate) fn wire_type(&self) -> WireType {
        match self.value {
            Value::Varint(_) => WireType::Varint,
            Value::SixtyFourBit(_) => WireType::SixtyFourBit,
            Value::LengthDelimited(_) => WireType::LengthDelimited,
            Value::ThirtyTwoBit(_) => WireType::ThirtyTwoBit,
            Value::Group => WireType::StartGroup,
        }
    }

    fn expected(&self, expected: WireType) -> WireError {
        WireError::UnexpectedWireType {
            actual: self.wire_type(),
            expected,
        }
    }

    /// A `bytes`, `string` or message field's payload.
    #[inline]
    pub(crate) fn bytes(&self) -> Result<&'a [u8], WireError> {
        match self.value {
            Value::LengthDelimited(b) => Ok(b),
            _ => Err(self.expected(WireType::LengthDelimited)),
        }
    }

    /// An `int32`, `int64`, `uint64`, `bool` or enum field's varint.
    #[inline]
    pub(crate) fn varint(&self) -> Result<u64, WireError> {
        match self.value {
            Value::Varint(v) => Ok(v),
            _ => Err(self.expected(WireType::Varint)),
        }
    }

    /// Each element of a repeated varint field (one element unpacked, any number packed).
    pub(crate) fn varints(&self, mut each: impl FnMut(u64)) -> Result<(), WireError> {
        match self.value {
            Value::Varint(v) => {
                each(v);
                Ok(())
            }
            Value::LengthDelimited(b) => {
                let mut rest = b;
                while !rest.is_empty() {
                    each(read_varint(&mut rest)?);
                }
                Ok(())
            }
            _ => Err(self.expected(WireType::Varint)),
        }
    }

    /// Each element of a repeated `float` field (one element unpacked, any number packed).
    pub(crate) fn fixed32s(&self, mut each: impl FnMut(u32)) -> Result<(), WireError> {
        match self.value {
            Value::ThirtyTwoBit(v) => {
                each(v);
                Ok(())
            }
            Value::LengthDelimited(b) => {
                let chunks = b.chunks_exact(4);
                if !chunks.remainder().is_empty() {
                    return Err(WireError::BufferUnderflow);
                }
                for c in chunks {
                    let mut four = [0u8; 4];
                    four.copy_from_slice(c);
                    each(u32::from_le_bytes(four));
                }
                Ok(())
            }
            _ => Err(self.expected(WireType::ThirtyTwoBit)),
        }
    }

    /// Each element of a repeated `double` field (one element unpacked, any number packed).
    pub(crate) fn fixed64s(&self, mut each: impl FnMut(u64)) -> Result<(), WireError> {
        match self.value {
            Value::SixtyFourBit(v) => {
                each(v);
                Ok(())
            }
            Value::LengthDelimited(b) => {
                let chunks = b.chunks_exact(8);
                if !chunks.remainder().is_empty() {
                    return Err(WireError::BufferUnderflow);
                }
                for c in chunks {
                    let mut eight = [0u8; 8];
                    eight.copy_from_slice(c);
                    each(u64::from_le_bytes(eight));
                }
                Ok(())
            }
            _ => Err(self.expected(WireType::SixtyFourBit)),
        }
    }
}

/// Reads a varint from the front of `buf`, advancing it. At most 10 bytes, the tenth 0 or 1.
#[inline]
pub(crate) fn read_varint(buf: &mut &[u8]) -> Result<u64, WireError> {
    let bytes = *buf;
    if let Some(&b) = bytes.first() {
        if b < 0x80 {
            *buf = bytes.get(1..).unwrap_or_default();
            return Ok(u64::from(b));
        }
    }
    let mut value = 0u64;
    for (i, &b) in bytes.iter().take(10).enumerate() {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            if i == 9 && b >= 0x02 {
                return Err(WireError::InvalidVarint);
            }
            *buf = bytes.get(i + 1..).unwrap_or_default();
            return Ok(value);
        }
    }
    Err(WireError::InvalidVarint)
}

/// Takes `n` bytes from the front of `buf`.
#[inline]
fn take<'a>(buf: &mut &'a [u8], n: u64) -> Result<&'a [u8], WireError> {
    let n = usize::try_from(n).map_err(|_| WireError::BufferUnderflow)?;
    if n > buf.len() {
        return Err(WireError::BufferUnderflow);
    }
    let (head, tail) = buf.split_at(n);
    *buf = tail;
    Ok(head)
}

/// Reads a key: the field number and the wire type.
#[inline]
fn read_key(buf: &mut &[u8]) -> Result<(u32, u64), WireError> {
    let key = read_varint(buf)?;
    if key > u64::from(u32::MAX) {
        return Err(WireError::InvalidKey(key));
    }
    let wire_type = key & 7;
    if wire_type > 5 {
        return Err(WireError::InvalidWireType(wire_type));
    }
    let number = (key as u32) >> 3;
    if number == 0 {
        return Err(WireError::InvalidTag);
    }
    Ok((number, wire_type))
}

/// Skips the rest of the group started by field `number`, as prost's `skip_field` does: at the
/// recursion limit it refuses, and each field inside is skipped one level deeper.
fn skip_group(buf: &mut &[u8], number: u32, budget: u32) -> Result<(), WireError> {
    if budget == 0 {
        return Err(WireError::RecursionLimit);
    }
    loop {
        let (inner, wire_type) = read_key(buf)?;
        match wire_type {
            4 if inner == number => return Ok(()),
            4 => return Err(WireError::UnexpectedEndGroup),
            3 => skip_group(buf, inner, budget - 1)?,
            _ => {
                if budget - 1 == 0 {
                    return Err(WireError::RecursionLimit);
                }
                skip_value(buf, wire_type)?;
            }
        }
    }
}

/// Skips a value of wire type 0, 1, 2 or 5.
fn skip_value(buf: &mut &[u8], wire_type: u64) -> Result<(), WireError> {
    match wire_type {
        0 => read_varint(buf).map(drop),
        1 => take(buf, 8).map(drop),
        2 => {
            let len = read_varint(buf)?;
            take(buf, len).map(drop)
        }
        5 => take(buf, 4).map(drop),
        _ => Err(WireError::UnexpectedEndGroup),
    }
}

/// Reads the fields of one message, in order.
#[derive(Clone, Debug)]
pub(crate) struct Cursor<'a> {
    rest: &'a [u8],
    budget: u32,
}

impl<'a> Cursor<'a> {
    /// A reader of the message `bytes`, whose fields are read with `budget` levels left (a decode
    /// starts at [`RECURSION_LIMIT`]).
    pub(crate) fn new(bytes: &'a [u8], budget: u32) -> Cursor<'a> {
        Cursor {
            rest: bytes,
            budget,
        }
    }

    /// The next field, `None` at the end of the message. A group is skipped whole (its value is
    /// [`Value::Group`]); an end-group key is an error.
    #[inline]
    pub(crate) fn next_field(&mut self) -> Result<Option<Field<'a>>, WireError> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let (number, wire_type) = read_key(&mut self.rest)?;
        let value = match wire_type {
            0 => Value::Varint(read_varint(&mut self.rest)?),
            1 => {
                let mut eight = [0u8; 8];
                eight.copy_from_slice(take(&mut self.rest, 8)?);
                Value::SixtyFourBit(u64::from_le_bytes(eight))
            }
            2 => {
                let len = read_varint(&mut self.rest)?;
                Value::LengthDelimited(take(&mut self.rest, len)?)
            }
            5 => {
                let mut four = [0u8; 4];
                four.copy_from_slice(take(&mut self.rest, 4)?);
                Value::ThirtyTwoBit(u32::from_le_bytes(four))
            }
            3 => {
                skip_group(&mut self.rest, number, self.budget)?;
                Value::Group
            }
            _ => return Err(WireError::UnexpectedEndGroup),
        };
        Ok(Some(Field { number, value }))
    }

    /// The budget of the fields of a message nested in this one: refused at the recursion limit.
    #[inline]
    pub(crate) fn nested(&self) -> Result<u32, WireError> {
        nested(self.budget)
    }

    /// Accounts for a field this message does not declare: prost skips it, except at the recursion
    /// limit.
    #[inline]
    pub(crate) fn unknown(&self) -> Result<(), WireError> {
        nested(self.budget).map(drop)
    }
}

/// The budget of the fields of a message nested in one whose fields have `budget`.
#[inline]
pub(crate) fn nested(budget: u32) -> Result<u32, WireError> {
    budget.checked_sub(1).ok_or(WireError::RecursionLimit)
}
