//! An operation's bytes straight into an [`OpSyntax`]: no decoded message tree in between, names
//! interned as they are read (op types, parameter names, attribute keys and weight paths once per
//! function, a bound value's name the definition's), each vector allocated at its final length.
//!
//! This is the path of the operations converters write: tensor types and tensor values, blob
//! references, map entries in key order, every field once. Whatever else an operation holds
//! (nested blocks, tuple, list or dictionary values and types, unknown or repeated fields, a
//! string that is not UTF-8, a value the lowering refuses) gives `None`, and the caller decodes
//! the operation with prost and lowers it as before, errors and all. So this path never accepts an
//! operation the other refuses, and gives the same syntax when both accept one (tested below on
//! every operation of `corpus/` and on mutants of them).

use super::{decode_bytes, empty_data};
use crate::ir::build::{FunctionBuilder, OpSyntax};
use crate::ir::{
    Arg, Attributes, BlobRef, DType, Dim, Literal, Name, Output, Param, Payload, Span, TensorData,
    TensorType, ValueType,
};
use crate::limits;

/// One field of a message: its number and what the wire holds.
enum Field<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed32,
    Fixed64,
}

/// A varint, as prost reads one (at most ten bytes, the tenth 0 or 1).
#[inline(always)]
fn varint(b: &mut &[u8]) -> Option<u64> {
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

/// The next field of `b`; `None` when it does not decode (or is a group).
#[inline(always)]
fn field<'a>(b: &mut &'a [u8]) -> Option<(u64, Field<'a>)> {
    let key = varint(b)?;
    let tag = key >> 3;
    if tag == 0 || key > u64::from(u32::MAX) {
        return None;
    }
    let f = match key & 7 {
        0 => Field::Varint(varint(b)?),
        1 => {
            *b = b.get(8..)?;
            Field::Fixed64
        }
        2 => {
            let len = usize::try_from(varint(b)?).ok()?;
            let (bytes, rest) = (b.get(..len)?, b.get(len..)?);
            *b = rest;
            Field::Bytes(bytes)
        }
        5 => {
            *b = b.get(4..)?;
            Field::Fixed32
        }
        _ => return None,
    };
    Some((tag, f))
}

/// The fields of a message, stopping (with `None` from [`Fields::next_field`]) at the end.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    /// `Some(None)` at the end, `None` when the bytes do not decode.
    #[inline(always)]
    fn next_field(&mut self) -> Option<Option<(u64, Field<'a>)>> {
        if self.0.is_empty() {
            return Some(None);
        }
        field(&mut self.0).map(Some)
    }
}

/// Each length-delimited field of `b` by number, for messages whose fields all are (`None` when
/// one is not, repeats, or is not in `tags`): `out[i]` is field `tags[i]`.
#[inline]
fn slices<const N: usize>(b: &[u8], tags: [u64; N]) -> Option<[Option<&[u8]>; N]> {
    let mut out = [None; N];
    let mut fields = Fields(b);
    while let Some((tag, f)) = fields.next_field()? {
        let Field::Bytes(bytes) = f else { return None };
        let slot = tags.iter().position(|&t| t == tag)?;
        if out.get(slot).copied().flatten().is_some() {
            return None;
        }
        *out.get_mut(slot)? = Some(bytes);
    }
    Some(out)
}

/// A `string` field: UTF-8 or `None`.
#[inline]
fn text(b: &[u8]) -> Option<&str> {
    std::str::from_utf8(b).ok()
}

/// The one varint field 1 of a message (`ConstantDimension`, `UnknownDimension`), 0 when absent.
#[inline]
fn only_varint(b: &[u8]) -> Option<u64> {
    let mut fields = Fields(b);
    let mut value = None;
    while let Some((tag, f)) = fields.next_field()? {
        match (tag, f) {
            (1, Field::Varint(v)) if value.is_none() => value = Some(v),
            _ => return None,
        }
    }
    Some(value.unwrap_or(0))
}

/// The one field of a message that is a oneof of messages: `Some(None)` when it is unset.
#[inline]
fn oneof(b: &[u8]) -> Option<Option<(u64, &[u8])>> {
    let mut fields = Fields(b);
    let mut set = None;
    while let Some((tag, f)) = fields.next_field()? {
        match f {
            Field::Bytes(bytes) if set.is_none() => set = Some((tag, bytes)),
            _ => return None,
        }
    }
    Some(set)
}

/// An operation without nested blocks, as `lower::lower_op` would lower it; `None` for anything
/// else (the caller then takes the prost path). `names` is the function being built.
pub(super) fn operation(raw: &[u8], names: &mut FunctionBuilder) -> Option<OpSyntax> {
    // First the counts, so each vector is allocated once at its length.
    let (mut n_inputs, mut n_outputs, mut n_attributes) = (0usize, 0usize, 0usize);
    let mut op_type = None;
    let mut fields = Fields(raw);
    while let Some((tag, f)) = fields.next_field()? {
        let Field::Bytes(bytes) = f else { return None };
        match tag {
            1 if op_type.is_none() => op_type = Some(bytes),
            2 => n_inputs += 1,
            3 => n_outputs += 1,
            // The `name` attribute (key first, as writers put it) names the op instead.
            5 => n_attributes += usize::from(!bytes.starts_with(b"\x0a\x04name\x12")),
            _ => return None,
        }
    }
    let op_type = names.intern(text(op_type?)?);
    let mut inputs: Vec<Param> = Vec::with_capacity(n_inputs);
    let mut outputs: Vec<Output> = Vec::with_capacity(n_outputs);
    let mut attributes: Vec<(Name, Literal)> = Vec::with_capacity(n_attributes);
    // The `name` attribute: its text when it is one string, else its literal.
    let mut name: Option<Result<&str, Literal>> = None;
    let mut fields = Fields(raw);
    while let Some((tag, f)) = fields.next_field()? {
        let Field::Bytes(bytes) = f else { return None };
        match tag {
            2 => {
                let [key, argument] = slices(bytes, [1, 2])?;
                inputs.push(Param {
                    name: names.intern(text(key?)?),
                    args: arguments(argument?, names)?,
                });
            }
            3 => {
                let [n, ty] = slices(bytes, [1, 2])?;
                outputs.push(Output {
                    name: Name::from(text(n?)?),
                    ty: value_type(ty?)?,
                });
            }
            5 => {
                let [key, v] = slices(bytes, [1, 2])?;
                let (key, v) = (key?, v?);
                if key == b"name" {
                    name = Some(match one_string(v)? {
                        Some(s) => Ok(s),
                        None => Err(value(v, names)?),
                    });
                } else {
                    attributes.push((names.intern(text(key)?), value(v, names)?));
                }
            }
            _ => {}
        }
    }
    // Maps as the decoded map holds them: by key, the last of equal keys winning.
    by_key(&mut inputs, |p| &p.name);
    by_key(&mut attributes, |(k, _)| k);
    let mut attributes = Attributes::from_sorted(attributes);
    let name = match name {
        // Most often the first output's name: share it.
        Some(Ok(s)) => Some(match outputs.first() {
            Some(first) if first.name.as_str() == s => first.name.clone(),
            _ => Name::from(s),
        }),
        Some(Err(literal)) => {
            attributes.insert(names.intern("name"), literal);
            None
        }
        None => None,
    };
    Some(OpSyntax {
        op_type,
        name,
        inputs,
        outputs,
        attributes,
        blocks: Vec::new(),
        span: Span::default(),
    })
}

/// Sorts the entries of a map read in file order by key (stable), keeping the last of equal keys.
fn by_key<T>(entries: &mut Vec<T>, key: impl Fn(&T) -> &Name) {
    if entries
        .windows(2)
        .all(|w| matches!(w, [a, b] if key(a) < key(b)))
    {
        return;
    }
    entries.sort_by(|a, b| key(a).cmp(key(b)));
    entries.dedup_by(|later, kept| {
        let same = key(later) == key(kept);
        if same {
            std::mem::swap(later, kept);
        }
        same
    });
}

/// The text of a `Value` that holds one string (an op's `name`), without lowering it to a
/// literal; `Some(None)` when it holds something else and reads as a literal.
fn one_string(b: &[u8]) -> Option<Option<&str>> {
    let [doc, ty, immediate, blob] = slices(b, [1, 2, 3, 5])?;
    text(doc.unwrap_or_default())?;
    value_type(ty?)?;
    let (Some(immediate), None) = (immediate, blob) else {
        return Some(None);
    };
    let Some((1, tensor)) = oneof(immediate)? else {
        return Some(None);
    };
    let Some((4, strings)) = oneof(tensor)? else {
        return Some(None);
    };
    match slices(strings, [1]) {
        Some([Some(s)]) => text(s).map(Some),
        _ => Some(None),
    }
}

/// The bindings of an `Argument`.
fn arguments(b: &[u8], names: &mut FunctionBuilder) -> Option<Vec<Arg>> {
    let mut count = 0;
    let mut fields = Fields(b);
    while let Some((tag, f)) = fields.next_field()? {
        match (tag, f) {
            (1, Field::Bytes(_)) => count += 1,
            _ => return None,
        }
    }
    let mut args = Vec::with_capacity(count);
    let mut fields = Fields(b);
    while let Some((_, f)) = fields.next_field()? {
        let Field::Bytes(binding) = f else {
            return None;
        };
        args.push(match oneof(binding)?? {
            (1, n) => Arg::Name(names.value_name(text(n)?)),
            (2, v) => Arg::Value(Box::new(value(v, names)?)),
            _ => return None,
        });
    }
    Some(args)
}

/// A `ValueType` that is a tensor type.
fn value_type(b: &[u8]) -> Option<ValueType> {
    match oneof(b)?? {
        (1, t) => tensor_type(t).map(ValueType::Tensor),
        _ => None,
    }
}

/// A `TensorType` without attributes, as `lower::lower_tensor_type` lowers it.
fn tensor_type(b: &[u8]) -> Option<TensorType> {
    let (mut data_type, mut rank) = (None, None);
    let mut dims = Vec::new();
    // Every dimension is decoded (as prost would); the lowering stops at the first variadic one,
    // and refuses a size over the limit before it.
    let (mut variadic, mut oversize) = (false, false);
    let mut fields = Fields(b);
    while let Some((tag, f)) = fields.next_field()? {
        match (tag, f) {
            (1, Field::Varint(v)) if data_type.is_none() => data_type = Some(v as i32),
            (2, Field::Varint(v)) if rank.is_none() => {
                let r = v as i64;
                // Writers put the rank first: room for exactly its dimensions.
                if dims.is_empty() && (0..=64).contains(&r) {
                    dims.reserve_exact(r as usize);
                }
                rank = Some(r);
            }
            (3, Field::Bytes(d)) => {
                let dim = match oneof(d)? {
                    Some((1, c)) => Dim::Known(only_varint(c)?),
                    Some((2, u)) => {
                        variadic |= only_varint(u)? != 0;
                        Dim::Unknown
                    }
                    None => Dim::Unknown,
                    Some(_) => return None,
                };
                if let Dim::Known(size) = dim {
                    oversize |= !variadic && size > limits::MAX_DIM;
                }
                if !variadic {
                    dims.push(dim);
                }
            }
            _ => return None,
        }
    }
    let (dtype, rank) = (DType::from_proto(data_type.unwrap_or(0)), rank.unwrap_or(0));
    if rank < 0 || (!oversize && variadic) {
        return Some(TensorType { dtype, shape: None });
    }
    if oversize || i64::try_from(dims.len()).ok() != Some(rank) {
        return None;
    }
    Some(TensorType {
        dtype,
        shape: Some(dims),
    })
}

/// A `Value` whose type is a tensor type and whose data is a tensor or a blob reference.
fn value(b: &[u8], names: &mut FunctionBuilder) -> Option<Literal> {
    let [doc, ty, immediate, blob] = slices(b, [1, 2, 3, 5])?;
    text(doc.unwrap_or_default())?;
    let ty = value_type(ty?)?;
    let payload = match (immediate, blob) {
        (None, Some(blob)) => {
            let mut path = None;
            let mut offset = None;
            let mut fields = Fields(blob);
            while let Some((tag, f)) = fields.next_field()? {
                match (tag, f) {
                    (1, Field::Bytes(p)) if path.is_none() => path = Some(p),
                    (2, Field::Varint(o)) if offset.is_none() => offset = Some(o),
                    _ => return None,
                }
            }
            Payload::Blob(BlobRef {
                path: names.intern(text(path.unwrap_or_default())?),
                offset: offset.unwrap_or(0),
            })
        }
        (Some(immediate), None) => match oneof(immediate)?? {
            (1, tensor) => {
                let dtype = ty.tensor().map_or(DType::Unknown(0), |t| t.dtype);
                Payload::Tensor(tensor_data(tensor, dtype)?)
            }
            _ => return None,
        },
        _ => return None,
    };
    Some(Literal { ty, payload })
}

/// A `TensorValue`'s elements, as `lower::tensor_data` decodes them.
fn tensor_data(b: &[u8], dtype: DType) -> Option<TensorData> {
    let Some((which, elements)) = oneof(b)? else {
        return Some(empty_data(dtype));
    };
    if which == 4 {
        let mut strings = Vec::new();
        let mut fields = Fields(elements);
        while let Some((tag, f)) = fields.next_field()? {
            match (tag, f) {
                (1, Field::Bytes(s)) => strings.push(text(s)?.to_string()),
                _ => return None,
            }
        }
        return Some(TensorData::Strings(strings));
    }
    // The other encodings hold one field 1: packed elements, or (7) the raw bytes.
    let [packed] = slices(elements, [1])?;
    let packed = packed.unwrap_or_default();
    Some(match which {
        1 => TensorData::Floats(
            fixed::<4>(packed)?
                .map(|c| f64::from(f32::from_le_bytes(c)))
                .collect(),
        ),
        6 => TensorData::Floats(fixed::<8>(packed)?.map(f64::from_le_bytes).collect()),
        2 => TensorData::Ints(varints(packed, |v| i64::from(v as i32))?),
        5 => TensorData::Ints(varints(packed, |v| v as i64)?),
        3 => TensorData::Bools(varints(packed, |v| v != 0)?),
        7 => decode_bytes(packed, dtype, limits::MAX_IMMEDIATE_ELEMENTS),
        _ => return None,
    })
}

/// Packed fixed-width elements; `None` when the length is not a multiple of the width.
fn fixed<const W: usize>(b: &[u8]) -> Option<impl Iterator<Item = [u8; W]> + '_> {
    (b.len() % W == 0).then(|| {
        b.chunks_exact(W).map(|c| {
            let mut a = [0u8; W];
            a.copy_from_slice(c);
            a
        })
    })
}

/// Packed varints, each read as `element` reads it; `None` when one does not end inside `b`.
fn varints<T>(mut b: &[u8], element: impl Fn(u64) -> T) -> Option<Vec<T>> {
    let mut out = Vec::with_capacity(b.iter().filter(|&&byte| byte < 0x80).count());
    while !b.is_empty() {
        out.push(element(varint(&mut b)?));
    }
    Some(out)
}

#[cfg(test)]
mod tests;
