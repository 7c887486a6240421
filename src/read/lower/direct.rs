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
use crate::read::proto::fields::argument::binding;
use crate::read::proto::fields::dimension::{constant_dimension, unknown_dimension};
use crate::read::proto::fields::tensor_value::{
    repeated_bools, repeated_bytes, repeated_doubles, repeated_floats, repeated_ints,
    repeated_long_ints, repeated_strings,
};
use crate::read::proto::fields::{
    argument, blob_file_value, dimension, immediate_value, map_entry, named_value_type, operation,
    tensor_type, tensor_value, value, value_type,
};
use crate::read::proto::wire::{fields, only, varint, Read};
use rustc_hash::FxHashMap;

/// A `string` field: UTF-8 or `None`.
#[inline]
fn text(b: &[u8]) -> Option<&str> {
    std::str::from_utf8(b).ok()
}

/// Puts `value` in `slot`; `None` when the slot is taken (a field that should occur once, twice).
#[inline(always)]
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    slot.replace(value).is_none().then_some(())
}

/// The two fields of a message of two length-delimited fields (a map entry, a `NamedValueType`),
/// each exactly once, in the table's order: `second` says which one a field is.
#[inline]
fn pair<'a, F: Read<'a>>(
    b: &'a [u8],
    second: impl Fn(F) -> (bool, &'a [u8]),
) -> Option<(&'a [u8], &'a [u8])> {
    let (mut one, mut two) = (None, None);
    let mut all = fields::<F>(b);
    while let Some(f) = all.next_field()? {
        match second(f) {
            (false, v) => once(&mut one, v)?,
            (true, v) => once(&mut two, v)?,
        }
    }
    Some((one?, two?))
}

/// A map entry's key and value.
#[inline]
fn entry(b: &[u8]) -> Option<(&[u8], &[u8])> {
    pair(b, |f| match f {
        map_entry::Field::Key(k) => (false, k),
        map_entry::Field::Value(v) => (true, v),
    })
}

/// The start of the `name` attribute's map entry as writers put it (the key first): the op's
/// name, not an attribute.
const NAME_ENTRY: [u8; 7] = [
    map_entry::KEY as u8,
    4,
    b'n',
    b'a',
    b'm',
    b'e',
    map_entry::VALUE as u8,
];
const _: () = assert!(map_entry::KEY < 0x80 && map_entry::VALUE < 0x80);

/// The packed elements of a message of one field (`TensorValue.Repeated*`), as `payload` takes
/// them from that field: empty when absent, `None` when repeated.
#[inline]
fn packed<'a, F: Read<'a>>(b: &'a [u8], payload: fn(F) -> &'a [u8]) -> Option<&'a [u8]> {
    Some(only::<F>(b)?.map_or(&[][..], payload))
}

/// An operation without nested blocks, as `lower::lower_op` would lower it; `None` for anything
/// else (the caller then takes the prost path). `names` is the function being built.
pub(super) fn operation(
    raw: &[u8],
    names: &mut FunctionBuilder,
    types: &mut TypeCache,
) -> Option<OpSyntax> {
    use operation::Field as F;
    // First the counts, so each vector is allocated once at its length.
    let (mut n_inputs, mut n_outputs, mut n_attributes) = (0usize, 0usize, 0usize);
    let mut op_type = None;
    let mut all = fields::<F>(raw);
    while let Some(f) = all.next_field()? {
        match f {
            F::Type(b) => once(&mut op_type, b)?,
            F::Inputs(_) => n_inputs += 1,
            F::Outputs(_) => n_outputs += 1,
            // The `name` attribute names the op instead.
            F::Attributes(b) => n_attributes += usize::from(!b.starts_with(&NAME_ENTRY)),
            F::Blocks(_) => return None,
        }
    }
    names.start_op();
    let op_type = names.intern_utf8(op_type?)?;
    let mut inputs: Vec<Param> = Vec::with_capacity(n_inputs);
    let mut outputs: Vec<Output> = Vec::with_capacity(n_outputs);
    let mut attributes: Vec<(Name, Literal)> = Vec::with_capacity(n_attributes);
    // The `name` attribute: its text when it is one string, else its literal.
    let mut name: Option<Result<&str, Literal>> = None;
    let mut all = fields::<F>(raw);
    while let Some(f) = all.next_field()? {
        match f {
            F::Inputs(b) => {
                let (key, argument) = entry(b)?;
                inputs.push(Param {
                    name: names.intern_utf8(key)?,
                    args: arguments(argument, names, types)?,
                });
            }
            F::Outputs(b) => {
                let (n, ty) = named_value_type(b)?;
                outputs.push(Output {
                    name: Name::from(text(n)?),
                    ty: types.value_type(ty)?,
                });
            }
            F::Attributes(b) => {
                let (key, v) = entry(b)?;
                if key == b"name" {
                    name = Some(match one_string(v, types)? {
                        Some(s) => Ok(s),
                        None => Err(value(v, names, types)?),
                    });
                } else {
                    attributes.push((names.intern_utf8(key)?, value(v, names, types)?));
                }
            }
            F::Type(_) | F::Blocks(_) => {}
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

/// A `NamedValueType`'s name and type.
fn named_value_type(b: &[u8]) -> Option<(&[u8], &[u8])> {
    pair(b, |f| match f {
        named_value_type::Field::Name(n) => (false, n),
        named_value_type::Field::Type(t) => (true, t),
    })
}

/// The fields of a `Value`, each at most once.
struct ValueFields<'a> {
    doc_string: Option<&'a [u8]>,
    ty: Option<&'a [u8]>,
    immediate: Option<&'a [u8]>,
    blob: Option<&'a [u8]>,
}

fn value_fields(b: &[u8]) -> Option<ValueFields<'_>> {
    use value::Field as F;
    let mut v = ValueFields {
        doc_string: None,
        ty: None,
        immediate: None,
        blob: None,
    };
    let mut all = fields::<F>(b);
    while let Some(f) = all.next_field()? {
        match f {
            F::DocString(d) => once(&mut v.doc_string, d)?,
            F::Type(t) => once(&mut v.ty, t)?,
            F::ImmediateValue(i) => once(&mut v.immediate, i)?,
            F::BlobFileValue(p) => once(&mut v.blob, p)?,
        }
    }
    Some(v)
}

/// The text of a `Value` that holds one string (an op's `name`), without lowering it to a
/// literal; `Some(None)` when it holds something else and reads as a literal.
fn one_string<'a>(b: &'a [u8], types: &mut TypeCache) -> Option<Option<&'a str>> {
    let v = value_fields(b)?;
    text(v.doc_string.unwrap_or_default())?;
    types.value_type(v.ty?)?;
    let (Some(immediate), None) = (v.immediate, v.blob) else {
        return Some(None);
    };
    let Some(immediate_value::Field::Tensor(tensor)) = only(immediate)? else {
        return Some(None);
    };
    let Some(tensor_value::Field::Strings(strings)) = only(tensor)? else {
        return Some(None);
    };
    match only::<repeated_strings::Field>(strings) {
        Some(Some(repeated_strings::Field::Values(s))) => text(s).map(Some),
        _ => Some(None),
    }
}

/// The bindings of an `Argument`.
fn arguments(b: &[u8], names: &mut FunctionBuilder, types: &mut TypeCache) -> Option<Vec<Arg>> {
    let mut count = 0;
    let mut all = fields::<argument::Field>(b);
    while let Some(argument::Field::Arguments(_)) = all.next_field()? {
        count += 1;
    }
    let mut args = Vec::with_capacity(count);
    let mut all = fields::<argument::Field>(b);
    while let Some(argument::Field::Arguments(binding)) = all.next_field()? {
        args.push(match only(binding)?? {
            binding::Field::Name(n) => Arg::Name(names.value_name(text(n)?)),
            binding::Field::Value(v) => Arg::Value(Box::new(value(v, names, types)?)),
        });
    }
    Some(args)
}

/// The value types of one function's ops, by their bytes: a 32-layer program repeats a few
/// hundred types thousands of times, and each is decoded once (up to [`TypeCache::MAX_TYPES`]
/// distinct ones, so that a program of only distinct types holds each once).
#[derive(Default)]
pub(super) struct TypeCache {
    by_bytes: FxHashMap<Box<[u8]>, ValueType>,
}

impl TypeCache {
    const MAX_TYPES: usize = 4096;

    /// [`value_type`] of `b`.
    fn value_type(&mut self, b: &[u8]) -> Option<ValueType> {
        if let Some(known) = self.by_bytes.get(b) {
            return Some(known.clone());
        }
        let ty = value_type(b)?;
        if self.by_bytes.len() < Self::MAX_TYPES {
            self.by_bytes.insert(b.into(), ty.clone());
        }
        Some(ty)
    }
}

/// A `ValueType` that is a tensor type.
fn value_type(b: &[u8]) -> Option<ValueType> {
    match only(b)?? {
        value_type::Field::TensorType(t) => tensor_type(t).map(ValueType::Tensor),
        _ => None,
    }
}

/// The one field of a dimension's message (its size, or whether it is variadic), 0 when absent.
fn dimension_number<'a, F: Read<'a>>(b: &'a [u8], number: fn(F) -> u64) -> Option<u64> {
    Some(only::<F>(b)?.map_or(0, number))
}

/// A `TensorType` without attributes, as `lower::lower_tensor_type` lowers it.
fn tensor_type(b: &[u8]) -> Option<TensorType> {
    use tensor_type::Field as F;
    let (mut data_type, mut rank) = (None, None);
    let mut dims = Vec::new();
    // Every dimension is decoded (as prost would); the lowering stops at the first variadic one,
    // and refuses a size over the limit before it.
    let (mut variadic, mut oversize) = (false, false);
    let mut all = fields::<F>(b);
    while let Some(f) = all.next_field()? {
        match f {
            F::DataType(v) => once(&mut data_type, v as i32)?,
            F::Rank(v) => {
                let r = v as i64;
                once(&mut rank, r)?;
                // Writers put the rank first: room for exactly its dimensions.
                if dims.is_empty() && (0..=64).contains(&r) {
                    dims.reserve_exact(r as usize);
                }
            }
            F::Dimensions(d) => {
                let dim = match only(d)? {
                    Some(dimension::Field::Constant(c)) => {
                        Dim::Known(dimension_number(c, |constant_dimension::Field::Size(s)| s)?)
                    }
                    Some(dimension::Field::Unknown(u)) => {
                        variadic |=
                            dimension_number(u, |unknown_dimension::Field::Variadic(v)| v)? != 0;
                        Dim::Unknown
                    }
                    None => Dim::Unknown,
                };
                if let Dim::Known(size) = dim {
                    oversize |= !variadic && size > limits::MAX_DIM;
                }
                if !variadic {
                    dims.push(dim);
                }
            }
            F::Attributes(_) => return None,
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
fn value(b: &[u8], names: &mut FunctionBuilder, types: &mut TypeCache) -> Option<Literal> {
    let v = value_fields(b)?;
    text(v.doc_string.unwrap_or_default())?;
    let ty = types.value_type(v.ty?)?;
    let payload = match (v.immediate, v.blob) {
        (None, Some(blob)) => {
            let (mut path, mut offset) = (None, None);
            let mut all = fields::<blob_file_value::Field>(blob);
            while let Some(f) = all.next_field()? {
                match f {
                    blob_file_value::Field::FileName(p) => once(&mut path, p)?,
                    blob_file_value::Field::Offset(o) => once(&mut offset, o)?,
                }
            }
            Payload::Blob(BlobRef {
                path: names.intern_utf8(path.unwrap_or_default())?,
                offset: offset.unwrap_or(0),
            })
        }
        (Some(immediate), None) => match only(immediate)?? {
            immediate_value::Field::Tensor(tensor) => {
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
    use tensor_value::Field as F;
    let Some(elements) = only(b)? else {
        return Some(empty_data(dtype));
    };
    Some(match elements {
        F::Strings(e) => {
            let mut strings = Vec::new();
            let mut all = fields::<repeated_strings::Field>(e);
            while let Some(repeated_strings::Field::Values(s)) = all.next_field()? {
                strings.push(text(s)?.to_string());
            }
            TensorData::Strings(strings)
        }
        F::Floats(e) => TensorData::Floats(
            fixed::<4>(packed(e, |repeated_floats::Field::Values(p)| p)?)?
                .map(|c| f64::from(f32::from_le_bytes(c)))
                .collect(),
        ),
        F::Doubles(e) => TensorData::Floats(
            fixed::<8>(packed(e, |repeated_doubles::Field::Values(p)| p)?)?
                .map(f64::from_le_bytes)
                .collect(),
        ),
        F::Ints(e) => TensorData::Ints(varints(
            packed(e, |repeated_ints::Field::Values(p)| p)?,
            |v| i64::from(v as i32),
        )?),
        F::LongInts(e) => TensorData::Ints(varints(
            packed(e, |repeated_long_ints::Field::Values(p)| p)?,
            |v| v as i64,
        )?),
        F::Bools(e) => TensorData::Bools(varints(
            packed(e, |repeated_bools::Field::Values(p)| p)?,
            |v| v != 0,
        )?),
        F::Bytes(e) => decode_bytes(
            packed(e, |repeated_bytes::Field::Values(p)| p)?,
            dtype,
            limits::MAX_IMMEDIATE_ELEMENTS,
        ),
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
