//! The protobuf wire format, read by hand: the crate's one varint reader (the fixer's splice and
//! the direct reading of operations both use it), a length-delimited payload, the fixed-width
//! numbers, and the loop over a message's fields that `fields.rs`'s generated `Field` enums plug
//! into ([`Read`]: one per message, matching the keys the table gives it).

/// One field of a message, read from the front of its bytes: the generated `Field` enum of each
/// message in `fields.rs`.
pub trait Read<'a>: Sized {
    /// The next field of `b`, advancing `b` past it; `None` when the bytes do not decode, or the
    /// key is not one of the message's fields with the wire type the table gives it.
    fn read(b: &mut &'a [u8]) -> Option<Self>;
}

/// A varint, as prost reads one (at most ten bytes, the tenth 0 or 1), advancing `b` past it.
#[inline(always)]
pub fn varint(b: &mut &[u8]) -> Option<u64> {
    let (&first, rest) = b.split_first()?;
    if first < 0x80 {
        *b = rest;
        return Some(u64::from(first));
    }
    long_varint(b)
}

#[inline(never)]
fn long_varint(b: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..10 {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        if i == 9 && byte > 1 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

/// A length-delimited payload: its length as a varint, then that many bytes.
#[inline(always)]
pub fn len<'a>(b: &mut &'a [u8]) -> Option<&'a [u8]> {
    let len = usize::try_from(varint(b)?).ok()?;
    let (bytes, rest) = (b.get(..len)?, b.get(len..)?);
    *b = rest;
    Some(bytes)
}

/// A little-endian 32-bit field (`float`, `fixed32`).
#[inline(always)]
pub fn fixed32(b: &mut &[u8]) -> Option<u32> {
    let (bytes, rest) = b.split_first_chunk::<4>()?;
    *b = rest;
    Some(u32::from_le_bytes(*bytes))
}

/// A little-endian 64-bit field (`double`, `fixed64`).
#[inline(always)]
pub fn fixed64(b: &mut &[u8]) -> Option<u64> {
    let (bytes, rest) = b.split_first_chunk::<8>()?;
    *b = rest;
    Some(u64::from_le_bytes(*bytes))
}

/// The fields of a message, in file order, each read as `F` reads it.
pub struct Fields<'a, F> {
    rest: &'a [u8],
    field: std::marker::PhantomData<F>,
}

/// The fields of the message `b` holds.
#[inline(always)]
pub fn fields<'a, F: Read<'a>>(b: &'a [u8]) -> Fields<'a, F> {
    Fields {
        rest: b,
        field: std::marker::PhantomData,
    }
}

impl<'a, F: Read<'a>> Fields<'a, F> {
    /// The next field: `Some(None)` at the end, `None` when the bytes do not decode as `F`.
    #[inline(always)]
    pub fn next_field(&mut self) -> Option<Option<F>> {
        if self.rest.is_empty() {
            return Some(None);
        }
        F::read(&mut self.rest).map(Some)
    }
}

/// The one field of a message (a oneof, or a message of one field): `Some(None)` when it has
/// none, `None` when it has two or more or does not decode.
#[inline]
pub fn only<'a, F: Read<'a>>(b: &'a [u8]) -> Option<Option<F>> {
    let mut all = fields::<F>(b);
    let first = all.next_field()?;
    match all.next_field()? {
        None => Some(first),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// prost's own encoder, as the reference for what a varint is.
    fn encoded(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        prost::encoding::encode_varint(v, &mut out);
        out
    }

    #[test]
    fn varints_read_as_prost_writes_them() {
        for v in [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let bytes = encoded(v);
            let mut b = &bytes[..];
            assert_eq!(varint(&mut b), Some(v), "{v}");
            assert!(b.is_empty());
        }
    }

    #[test]
    fn varints_prost_refuses_are_refused() {
        // Eleven bytes, a tenth byte over 1, and a varint cut short.
        for bad in [
            &[0xff; 11][..],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
            &[0x80, 0x80],
        ] {
            let mut b = bad;
            assert_eq!(varint(&mut b), None, "{bad:?}");
            let mut b = bad;
            assert!(prost::encoding::decode_varint(&mut b).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn lengths_and_fixed_numbers_stop_at_the_end() {
        let mut b = &[3, b'a', b'b', b'c', 9][..];
        assert_eq!(len(&mut b), Some(&b"abc"[..]));
        assert_eq!(b, &[9]);
        assert_eq!(len(&mut &[4, b'a'][..]), None);
        assert_eq!(fixed32(&mut &[1, 0, 0, 0][..]), Some(1));
        assert_eq!(fixed32(&mut &[1, 0, 0][..]), None);
        assert_eq!(fixed64(&mut &[0, 0, 0, 0, 0, 0, 0, 1][..]), Some(1 << 56));
        assert_eq!(fixed64(&mut &[0; 7][..]), None);
    }
}
