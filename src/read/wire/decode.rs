//! The message decoders: MIL messages on the wire → the IR's reader syntax.
//!
//! Each function reads one message type (its fields by the numbers of [`super::fields`]) and
//! builds what the IR holds of it; messages nested in it are read where they are used. The order
//! in which parts are lowered, and so which fault is reported first, is that of the reader this
//! replaced: attributes, then inputs, outputs and blocks of an op; maps in key order.

use super::cursor::{nested, Cursor, WireError};
use super::fields::{
    argument, argument_entry, binding, blob_file_value, block, constant_dimension, dictionary_type,
    dictionary_value, dimension, immediate_value, key_value_pair, list_type, list_value,
    named_value_type, operation, repeated_bools, repeated_bytes, repeated_doubles, repeated_floats,
    repeated_ints, repeated_long_ints, repeated_strings, state_type, tensor_type, tensor_value,
    tuple_type, tuple_value, unknown_dimension, value, value_entry, value_type, Message,
};
use super::msg::{Msg, View};
use super::Fault;
use crate::ir::build::{BlockSyntax, InputSyntax, OpSyntax};
use crate::ir::literal::f16_to_f64;
use crate::ir::{
    Arg, Attributes, BlobRef, DType, Dim, Literal, Name, Output, Param, Payload, Span, TensorData,
    TensorType, ValueType,
};
use crate::limits;

impl From<WireError> for Fault {
    fn from(e: WireError) -> Fault {
        Fault::Decode(e.to_string())
    }
}

/// A `string` field, which protobuf requires to be UTF-8.
pub(crate) fn text(bytes: &[u8]) -> Result<&str, Fault> {
    std::str::from_utf8(bytes).map_err(|e| {
        Fault::Decode(format!(
            "a string is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })
}

/// A name (of a value, an op, a parameter, an attribute, an op type, a weight file) as the IR
/// holds it. The one place strings read from the file become IR names.
#[inline]
pub(crate) fn ir_name(name: &str) -> Name {
    Name::from(name)
}

// ---------------------------------------------------------------------------------------------
// Maps
// ---------------------------------------------------------------------------------------------

/// One entry of a `map<string, M>`: its key, and its value (defaults when absent).
pub(crate) struct Entry<'a> {
    pub(crate) key: &'a [u8],
    pub(crate) value: Msg<'a>,
}

/// Reads a map entry (`key` = 1, `value` = 2 in both map entry messages).
fn entry<'a>(m: &Msg<'a>, message: Message) -> Result<Entry<'a>, Fault> {
    debug_assert_eq!(argument_entry::KEY, value_entry::KEY);
    debug_assert_eq!(argument_entry::VALUE, value_entry::VALUE);
    let v = m.view(message)?;
    Ok(Entry {
        key: v.bytes(value_entry::KEY),
        value: v
            .message(value_entry::VALUE)?
            .unwrap_or_else(|| m.empty_child()),
    })
}

/// The entries of the map field `number` of `m` (entry messages `message`) as the decoded map
/// holds them: sorted by key (byte order, which is `String` order), the last of equal keys winning.
pub(crate) fn map_entries<'a>(
    m: &View<'_, 'a>,
    number: u32,
    message: Message,
) -> Result<Entries<'a>, Fault> {
    if m.count(number) <= 1 {
        // What most maps of an op hold (`name`; `x`): no list to make.
        let one = m.message(number)?.map(|e| entry(&e, message)).transpose()?;
        return Ok(Entries::One(one));
    }
    let mut entries = Vec::new();
    m.each_message(number, |e| {
        entries.push(entry(&e, message)?);
        Ok(())
    })?;
    sort_entries(&mut entries, message)?;
    Ok(Entries::Many(entries.into_iter()))
}

/// The entries [`map_entries`] gives.
pub(crate) enum Entries<'a> {
    One(Option<Entry<'a>>),
    Many(std::vec::IntoIter<Entry<'a>>),
}

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        match self {
            Entries::One(one) => one.take(),
            Entries::Many(all) => all.next(),
        }
    }
}

/// Sorts map entries by key, keeping the last of equal keys (in file order).
/// The entries that lose are still checked as prost decodes them (as `message`s, the map's entry
/// type).
pub(crate) fn sort_entries(entries: &mut Vec<Entry<'_>>, message: Message) -> Result<(), Fault> {
    let in_order = entries.windows(2).all(|w| match w {
        [a, b] => a.key < b.key,
        _ => true,
    });
    if in_order {
        return Ok(());
    }
    let value_type = match message.kind(value_entry::VALUE) {
        Some(super::fields::Kind::Message(m)) => m,
        _ => Message::Value,
    };
    // Stable: equal keys stay in file order, so the last of each run is the last in the file.
    entries.sort_by(|a, b| a.key.cmp(b.key));
    let mut unique: Vec<Entry<'_>> = Vec::with_capacity(entries.len());
    for e in entries.drain(..) {
        match unique.last_mut() {
            Some(last) if last.key == e.key => {
                let lost = std::mem::replace(last, e);
                lost.value.validate(value_type)?;
            }
            _ => unique.push(e),
        }
    }
    *entries = unique;
    Ok(())
}

/// Every entry of the `map<string, Value>` field `number`, in file order (for checks that look at
/// all of them); each is also checked as prost decodes it, since only its strings are looked at.
fn raw_entries<'a>(
    m: &View<'_, 'a>,
    number: u32,
    mut each: impl FnMut(Entry<'a>) -> Result<(), Fault>,
) -> Result<(), Fault> {
    m.validate_all(number)?;
    m.each_message(number, |e| each(entry(&e, Message::ValueEntry)?))
}

// ---------------------------------------------------------------------------------------------
// Operations and blocks
// ---------------------------------------------------------------------------------------------

/// Lowers an `Operation`, with the op named in its error.
pub(crate) fn op_in_context(op: &Msg<'_>, depth: usize) -> Result<OpSyntax, Fault> {
    lower_op(op, depth).map_err(|fault| {
        let ty = op.bytes(operation::TYPE).unwrap_or_default();
        fault.at(format_args!(
            "op `{}` ({})",
            op_label(op),
            String::from_utf8_lossy(ty)
        ))
    })
}

/// The op's `name` attribute, else its first output, else its type (for messages only).
fn op_label(op: &Msg<'_>) -> String {
    let name = op
        .view(Message::Operation)
        .and_then(|v| map_entries(&v, operation::ATTRIBUTES, Message::ValueEntry))
        .ok()
        .and_then(|mut entries| {
            entries
                .find(|e| e.key == b"name")
                .and_then(|e| lower_value(&e.value, 0).ok())
                .and_then(|l| l.as_str().map(str::to_string))
        });
    if let Some(name) = name {
        return name;
    }
    let mut first_output = None;
    let _ = op.each_message(operation::OUTPUTS, |o| {
        if first_output.is_none() {
            let name = o.bytes(named_value_type::NAME)?;
            first_output = Some(String::from_utf8_lossy(name).into_owned());
        }
        Ok(())
    });
    first_output.unwrap_or_else(|| {
        String::from_utf8_lossy(op.bytes(operation::TYPE).unwrap_or_default()).into_owned()
    })
}

fn lower_op(op: &Msg<'_>, depth: usize) -> Result<OpSyntax, Fault> {
    let v = op.view(Message::Operation)?;
    let op_type = ir_name(text(v.bytes(operation::TYPE))?);
    let mut name = None;
    let mut attributes = Attributes::new();
    for entry in map_entries(&v, operation::ATTRIBUTES, Message::ValueEntry)? {
        let key = text(entry.key)?;
        let lit = lower_value(&entry.value, depth)
            .map_err(|fault| fault.at(format_args!("attribute `{key}`")))?;
        if key == "name" {
            if let Some(s) = lit.as_str() {
                name = Some(ir_name(s));
                continue;
            }
        }
        attributes.insert(ir_name(key), lit);
    }
    // Map order = parameters sorted by name, as the compiler prints them.
    let mut inputs = Vec::new();
    for entry in map_entries(&v, operation::INPUTS, Message::ArgumentEntry)? {
        let key = text(entry.key)?;
        let mut args = Vec::with_capacity(1);
        entry
            .value
            .each_message_of(Message::Argument, argument::ARGUMENTS, |b| {
                let i = args.len();
                let arg = lower_binding(&b, depth)
                    .map_err(|fault| fault.at(format_args!("input `{key}` binding {i}")))?;
                args.push(arg);
                Ok(())
            })?;
        inputs.push(Param {
            name: ir_name(key),
            args,
        });
    }
    let mut outputs = Vec::with_capacity(1);
    v.each_message(operation::OUTPUTS, |o| {
        let o = o.view(Message::NamedValueType)?;
        let name = text(o.bytes(named_value_type::NAME))?;
        let ty = o
            .message(named_value_type::TYPE)?
            .ok_or_else(|| Fault::invalid(format!("output `{name}` has no type")))
            .and_then(|t| lower_value_type(&t, depth))
            .map_err(|fault| fault.at(format_args!("output `{name}`")))?;
        outputs.push(Output {
            name: ir_name(name),
            ty,
        });
        Ok(())
    })?;
    let mut blocks = Vec::new();
    v.each_message(operation::BLOCKS, |b| {
        let i = blocks.len();
        let block =
            lower_block(&b, depth + 1).map_err(|fault| fault.at(format_args!("block {i}")))?;
        blocks.push(block);
        Ok(())
    })?;
    Ok(OpSyntax {
        op_type,
        name,
        inputs,
        outputs,
        attributes,
        blocks,
        span: Span::default(),
    })
}

/// An `Argument.Binding`: a value name or an inline value (oneof, the last member set wins).
pub(super) fn lower_binding(b: &Msg<'_>, depth: usize) -> Result<Arg, Fault> {
    let v = b.view(Message::Binding)?;
    let name = (binding::NAME, v.count(binding::NAME));
    let value = (binding::VALUE, v.count(binding::VALUE));
    let member = match (name, value) {
        ((_, 0), (_, 0)) => None,
        ((_, _), (_, 0)) => Some(Ok(v.bytes(binding::NAME))),
        ((_, 0), (_, 1)) => v.message(binding::VALUE)?.map(Err),
        // Both members set, or the value set more than once: in file order, the last member
        // wins and a value set several times in a row is merged.
        _ => {
            v.validate_all(binding::VALUE)?;
            let mut member: Option<Result<&[u8], Msg<'_>>> = None;
            for f in b.fields() {
                let f = f?;
                match f.number {
                    binding::NAME => member = Some(Ok(f.bytes()?)),
                    binding::VALUE => {
                        let bytes = f.bytes()?;
                        match &mut member {
                            Some(Err(v)) => v.merge_occurrence(bytes),
                            _ => member = Some(Err(b.child(&f)?)),
                        }
                    }
                    _ => {}
                }
            }
            member
        }
    };
    match member {
        Some(Ok(n)) => text(n).map(|n| Arg::Name(ir_name(n))),
        Some(Err(v)) => lower_value(&v, depth).map(|l| Arg::Value(Box::new(l))),
        None => Err(Fault::invalid("binding is empty")),
    }
}

/// Lowers a nested `Block` (of a `cond`, `while_loop`, …).
fn lower_block(b: &Msg<'_>, depth: usize) -> Result<BlockSyntax, Fault> {
    if depth > limits::MAX_BLOCK_NESTING {
        return Err(Fault::invalid(format!(
            "blocks are nested deeper than {} levels",
            limits::MAX_BLOCK_NESTING
        )));
    }
    let v = b.view(Message::Block)?;
    check_ignored_attributes(&v, block::ATTRIBUTES)?;
    let mut inputs = Vec::new();
    v.each_message(block::INPUTS, |i| {
        inputs.push(lower_input(&i, depth)?);
        Ok(())
    })?;
    let mut ops = Vec::new();
    v.each_message(block::OPERATIONS, |op| {
        ops.push(op_in_context(&op, depth)?);
        Ok(())
    })?;
    let mut outputs = Vec::new();
    v.each(block::OUTPUTS, |o| {
        outputs.push(ir_name(text(o.bytes()?)?));
        Ok(())
    })?;
    Ok(BlockSyntax {
        inputs,
        ops,
        outputs,
        outputs_span: Span::default(),
    })
}

/// Lowers a `NamedValueType` that is a function's or block's parameter.
pub(crate) fn lower_input(i: &Msg<'_>, depth: usize) -> Result<InputSyntax, Fault> {
    let v = i.view(Message::NamedValueType)?;
    let name = text(v.bytes(named_value_type::NAME))?;
    let ty = v
        .message(named_value_type::TYPE)?
        .ok_or_else(|| Fault::invalid("has no type"))
        .and_then(|t| lower_value_type(&t, depth))
        .map_err(|fault| fault.at(format_args!("input `{name}`")))?;
    Ok(InputSyntax {
        name: ir_name(name),
        ty,
        span: Span::default(),
    })
}

/// Lowers the `map<string, Value>` entries `entries` (each one entry message), in key order.
pub(crate) fn lower_attributes(
    entries: Vec<Entry<'_>>,
    depth: usize,
) -> Result<Vec<(String, Literal)>, Fault> {
    let mut entries = entries;
    sort_entries(&mut entries, Message::ValueEntry)?;
    entries
        .iter()
        .map(|e| {
            let key = text(e.key)?;
            lower_value(&e.value, depth)
                .map(|l| (key.to_string(), l))
                .map_err(|fault| fault.at(format_args!("`{key}`")))
        })
        .collect()
}

/// Reads one `map<string, Value>` entry message (`bytes`, whose fields have `budget` levels left).
pub(crate) fn read_entry(bytes: &[u8], budget: u32) -> Result<Entry<'_>, Fault> {
    entry(&Msg::new(bytes, budget), Message::ValueEntry)
}

// ---------------------------------------------------------------------------------------------
// Fields the IR does not keep: still protobuf, so their strings must be UTF-8
// ---------------------------------------------------------------------------------------------

/// Checks every entry of the attribute map field `number` of `m`, in file order.
fn check_ignored_attributes(m: &View<'_, '_>, number: u32) -> Result<(), Fault> {
    raw_entries(m, number, |e| check_ignored_entry(&e))
}

/// Checks one attribute entry that is not lowered: its key and the strings of its value.
pub(crate) fn check_ignored_entry(e: &Entry<'_>) -> Result<(), Fault> {
    text(e.key)?;
    check_value_strings(&e.value)
}

fn check_value_strings(v: &Msg<'_>) -> Result<(), Fault> {
    let v = v.view(Message::Value)?;
    text(v.bytes(value::DOC_STRING))?;
    if let Some(t) = v.message(value::TYPE)? {
        check_type_strings(&t)?;
    }
    let imm = match v.oneof(&[value::IMMEDIATE_VALUE, value::BLOB_FILE_VALUE])? {
        Some((value::BLOB_FILE_VALUE, b)) => {
            let b = b.view(Message::BlobFileValue)?;
            return text(b.bytes(blob_file_value::FILE_NAME)).map(drop);
        }
        Some((_, imm)) => imm,
        None => return Ok(()),
    };
    use immediate_value as iv;
    let imm = imm.view(Message::ImmediateValue)?;
    match imm.oneof(&[iv::TENSOR, iv::TUPLE, iv::LIST, iv::DICTIONARY])? {
        Some((iv::TENSOR, t)) => match tensor_value_oneof(&t.view(Message::TensorValue)?)? {
            Some((tensor_value::STRINGS, s)) => {
                s.each_of(Message::RepeatedStrings, repeated_strings::VALUES, |f| {
                    text(f.bytes()?).map(drop)
                })
            }
            _ => Ok(()),
        },
        Some((iv::TUPLE | iv::LIST, l)) => {
            debug_assert_eq!(tuple_value::VALUES, list_value::VALUES);
            l.each_message_of(Message::TupleValue, tuple_value::VALUES, |e| {
                check_value_strings(&e)
            })
        }
        Some((_, d)) => {
            d.each_message_of(Message::DictionaryValue, dictionary_value::VALUES, |kv| {
                let kv = kv.view(Message::KeyValuePair)?;
                if let Some(k) = kv.message(key_value_pair::KEY)? {
                    check_value_strings(&k)?;
                }
                if let Some(v) = kv.message(key_value_pair::VALUE)? {
                    check_value_strings(&v)?;
                }
                Ok(())
            })
        }
        None => Ok(()),
    }
}

fn check_type_strings(t: &Msg<'_>) -> Result<(), Fault> {
    use value_type as vt;
    match value_type_oneof(&t.view(Message::ValueType)?)? {
        Some((vt::TENSOR_TYPE, t)) => {
            check_ignored_attributes(&t.view(Message::TensorType)?, tensor_type::ATTRIBUTES)
        }
        Some((vt::LIST_TYPE, l)) => match l.view(Message::ListType)?.message(list_type::TYPE)? {
            Some(e) => check_type_strings(&e),
            None => Ok(()),
        },
        Some((vt::TUPLE_TYPE, t)) => {
            t.each_message_of(Message::TupleType, tuple_type::TYPES, |e| {
                check_type_strings(&e)
            })
        }
        Some((vt::DICTIONARY_TYPE, d)) => {
            let d = d.view(Message::DictionaryType)?;
            for number in [dictionary_type::KEY_TYPE, dictionary_type::VALUE_TYPE] {
                if let Some(e) = d.message(number)? {
                    check_type_strings(&e)?;
                }
            }
            Ok(())
        }
        Some((_, s)) => match s
            .view(Message::StateType)?
            .message(state_type::WRAPPED_TYPE)?
        {
            Some(e) => check_type_strings(&e),
            None => Ok(()),
        },
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

fn check_depth(depth: usize) -> Result<(), Fault> {
    if depth > limits::MAX_NESTING {
        Err(Fault::invalid(format!(
            "types or values are nested deeper than {} levels",
            limits::MAX_NESTING
        )))
    } else {
        Ok(())
    }
}

/// The member set in a `ValueType`.
fn value_type_oneof<'a>(t: &View<'_, 'a>) -> Result<Option<(u32, Msg<'a>)>, Fault> {
    use value_type as vt;
    t.oneof(&[
        vt::TENSOR_TYPE,
        vt::LIST_TYPE,
        vt::TUPLE_TYPE,
        vt::DICTIONARY_TYPE,
        vt::STATE_TYPE,
    ])
}

/// The member set in a `TensorValue`.
fn tensor_value_oneof<'a>(t: &View<'_, 'a>) -> Result<Option<(u32, Msg<'a>)>, Fault> {
    use tensor_value as tv;
    t.oneof(&[
        tv::FLOATS,
        tv::INTS,
        tv::BOOLS,
        tv::STRINGS,
        tv::LONG_INTS,
        tv::DOUBLES,
        tv::BYTES,
    ])
}

/// Lowers a `ValueType`.
pub(crate) fn lower_value_type(vt: &Msg<'_>, depth: usize) -> Result<ValueType, Fault> {
    use value_type as v;
    check_depth(depth)?;
    let boxed = |t: Option<Msg<'_>>, what: &str| -> Result<Box<ValueType>, Fault> {
        let t = t.ok_or_else(|| Fault::invalid(format!("{what} is missing")))?;
        Ok(Box::new(lower_value_type(&t, depth + 1)?))
    };
    match value_type_oneof(&vt.view(Message::ValueType)?)? {
        Some((v::TENSOR_TYPE, t)) => lower_tensor_type(&t).map(ValueType::Tensor),
        Some((v::LIST_TYPE, l)) => {
            let l = l.view(Message::ListType)?;
            Ok(ValueType::List {
                elem: boxed(l.message(list_type::TYPE)?, "list element type")?,
                len: match l.message(list_type::LENGTH)? {
                    Some(d) => lower_dim(&d)?.unwrap_or(Dim::Unknown),
                    None => Dim::Unknown,
                },
            })
        }
        Some((v::TUPLE_TYPE, t)) => {
            let mut types = Vec::new();
            t.each_message_of(Message::TupleType, tuple_type::TYPES, |e| {
                types.push(lower_value_type(&e, depth + 1)?);
                Ok(())
            })?;
            Ok(ValueType::Tuple(types))
        }
        Some((v::DICTIONARY_TYPE, d)) => {
            let d = d.view(Message::DictionaryType)?;
            Ok(ValueType::Dict {
                key: boxed(d.message(dictionary_type::KEY_TYPE)?, "dictionary key type")?,
                value: boxed(
                    d.message(dictionary_type::VALUE_TYPE)?,
                    "dictionary value type",
                )?,
            })
        }
        Some((_, s)) => Ok(ValueType::State(boxed(
            s.view(Message::StateType)?
                .message(state_type::WRAPPED_TYPE)?,
            "state's wrapped type",
        )?)),
        None => Err(Fault::invalid("a value type is empty")),
    }
}

/// One `Dimension`; `Ok(None)` for a variadic unknown (an unknown number of dimensions).
pub(super) fn lower_dim(d: &Msg<'_>) -> Result<Option<Dim>, Fault> {
    if let Some(dim) = d.only_part().and_then(|b| plain_dim(b, d.budget())) {
        return dim;
    }
    match d
        .view(Message::Dimension)?
        .oneof(&[dimension::CONSTANT, dimension::UNKNOWN])?
    {
        Some((dimension::CONSTANT, c)) => known_dim(
            c.view(Message::ConstantDimension)?
                .varint(constant_dimension::SIZE),
        ),
        Some((_, u)) => {
            let variadic = u
                .view(Message::UnknownDimension)?
                .varint(unknown_dimension::VARIADIC);
            Ok(if variadic != 0 {
                None
            } else {
                Some(Dim::Unknown)
            })
        }
        None => Ok(Some(Dim::Unknown)),
    }
}

fn known_dim(size: u64) -> Result<Option<Dim>, Fault> {
    if size > limits::MAX_DIM {
        Err(Fault::invalid(format!(
            "dimension {size} is larger than the 2^40 limit"
        )))
    } else {
        Ok(Some(Dim::Known(size)))
    }
}

/// A `Dimension` as writers write it (one member set once, holding at most its one field once),
/// read without a view: dimensions are the most numerous messages of a program. `None` for any
/// other shape (or malformed bytes), which [`lower_dim`] reads the general way.
fn plain_dim(bytes: &[u8], budget: u32) -> Option<Result<Option<Dim>, Fault>> {
    let mut c = Cursor::new(bytes, budget);
    let member = c.next_field().ok()??;
    if c.next_field().ok()?.is_some() {
        return None;
    }
    debug_assert_eq!(constant_dimension::SIZE, unknown_dimension::VARIADIC);
    let mut inner = Cursor::new(member.bytes().ok()?, nested(budget).ok()?);
    let value = match inner.next_field().ok()? {
        None => 0,
        Some(f) if f.number == constant_dimension::SIZE => f.varint().ok()?,
        Some(_) => return None,
    };
    if inner.next_field().ok()?.is_some() {
        return None;
    }
    match member.number {
        dimension::CONSTANT => Some(known_dim(value)),
        dimension::UNKNOWN if value != 0 => Some(Ok(None)),
        dimension::UNKNOWN => Some(Ok(Some(Dim::Unknown))),
        _ => None,
    }
}

/// Lowers a `TensorType`.
pub(crate) fn lower_tensor_type(t: &Msg<'_>) -> Result<TensorType, Fault> {
    let t = t.view(Message::TensorType)?;
    check_ignored_attributes(&t, tensor_type::ATTRIBUTES)?;
    let dtype = DType::from_proto(t.varint(tensor_type::DATA_TYPE) as i32);
    let rank = t.varint(tensor_type::RANK) as i64;
    if rank < 0 {
        // The dimensions are not looked at, but prost decoded them.
        t.validate_all(tensor_type::DIMENSIONS)?;
        return Ok(TensorType { dtype, shape: None });
    }
    let mut dims = Vec::with_capacity(usize::try_from(rank).unwrap_or(0).min(8));
    let mut variadic = false;
    t.each_message(tensor_type::DIMENSIONS, |d| {
        if variadic {
            // Not looked at after a variadic one, but prost decoded it.
            return d.validate(Message::Dimension);
        }
        match lower_dim(&d)? {
            Some(dim) => dims.push(dim),
            None => variadic = true,
        }
        Ok(())
    })?;
    if variadic {
        return Ok(TensorType { dtype, shape: None });
    }
    if i64::try_from(dims.len()).ok() != Some(rank) {
        return Err(Fault::invalid(format!(
            "tensor type declares rank {rank} but lists {} dimensions",
            dims.len()
        )));
    }
    Ok(TensorType {
        dtype,
        shape: Some(dims),
    })
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/// Lowers a `Value`.
pub(crate) fn lower_value(v: &Msg<'_>, depth: usize) -> Result<Literal, Fault> {
    let v = v.view(Message::Value)?;
    let ty = v
        .message(value::TYPE)?
        .ok_or_else(|| Fault::invalid("a value has no type"))
        .and_then(|t| lower_value_type(&t, depth))?;
    let payload = lower_payload(&v, &ty, depth)?;
    Ok(Literal { ty, payload })
}

/// The payload of `v`, whose type is `ty` (its own type when it has one).
fn lower_payload(v: &View<'_, '_>, ty: &ValueType, depth: usize) -> Result<Payload, Fault> {
    use immediate_value as iv;
    check_depth(depth)?;
    text(v.bytes(value::DOC_STRING))?;
    let imm = match v.oneof(&[value::IMMEDIATE_VALUE, value::BLOB_FILE_VALUE])? {
        Some((value::BLOB_FILE_VALUE, b)) => {
            let b = b.view(Message::BlobFileValue)?;
            return Ok(Payload::Blob(BlobRef {
                path: ir_name(text(b.bytes(blob_file_value::FILE_NAME))?),
                offset: b.varint(blob_file_value::OFFSET),
            }));
        }
        Some((_, imm)) => imm,
        None => {
            return Err(Fault::invalid(
                "a value has neither an immediate value nor a blob reference",
            ))
        }
    };
    // Elements of containers carry their own type; fall back to the container's declaration.
    let element = |e: &Msg<'_>, declared: Option<&ValueType>| -> Result<Payload, Fault> {
        let e = e.view(Message::Value)?;
        let own = e
            .message(value::TYPE)?
            .map(|t| lower_value_type(&t, depth + 1))
            .transpose()?;
        let ty = own
            .as_ref()
            .or(declared)
            .ok_or_else(|| Fault::invalid("a container element has no type"))?;
        lower_payload(&e, ty, depth + 1)
    };
    let imm = imm.view(Message::ImmediateValue)?;
    match imm.oneof(&[iv::TENSOR, iv::TUPLE, iv::LIST, iv::DICTIONARY])? {
        Some((iv::TENSOR, t)) => {
            let dtype = ty.tensor().map_or(DType::Unknown(0), |t| t.dtype);
            Ok(Payload::Tensor(tensor_data(
                &t,
                dtype,
                limits::MAX_IMMEDIATE_ELEMENTS,
            )?))
        }
        Some((iv::TUPLE, t)) => {
            let declared = match ty {
                ValueType::Tuple(types) => types.as_slice(),
                _ => &[],
            };
            let mut out = Vec::new();
            t.each_message_of(Message::TupleValue, tuple_value::VALUES, |e| {
                out.push(element(&e, declared.get(out.len()))?);
                Ok(())
            })?;
            Ok(Payload::Tuple(out))
        }
        Some((iv::LIST, l)) => {
            let declared = match ty {
                ValueType::List { elem, .. } => Some(elem.as_ref()),
                _ => None,
            };
            let mut out = Vec::new();
            l.each_message_of(Message::ListValue, list_value::VALUES, |e| {
                out.push(element(&e, declared)?);
                Ok(())
            })?;
            Ok(Payload::List(out))
        }
        Some((_, d)) => {
            let (kt, vt) = match ty {
                ValueType::Dict { key, value } => (Some(key.as_ref()), Some(value.as_ref())),
                _ => (None, None),
            };
            let mut out = Vec::new();
            d.each_message_of(Message::DictionaryValue, dictionary_value::VALUES, |kv| {
                let kv = kv.view(Message::KeyValuePair)?;
                let k = kv
                    .message(key_value_pair::KEY)?
                    .ok_or_else(|| Fault::invalid("a dictionary entry has no key"))?;
                let v = kv
                    .message(key_value_pair::VALUE)?
                    .ok_or_else(|| Fault::invalid("a dictionary entry has no value"))?;
                out.push((element(&k, kt)?, element(&v, vt)?));
                Ok(())
            })?;
            Ok(Payload::Dict(out))
        }
        None => Err(Fault::invalid("an immediate value is empty")),
    }
}

/// Decodes the elements of a `TensorValue` of element type `dtype`. Raw `bytes` are decoded for
/// byte-aligned numeric types when there are at most `max_elements` of them, else kept raw.
pub(super) fn tensor_data(
    t: &Msg<'_>,
    dtype: DType,
    max_elements: u64,
) -> Result<TensorData, Fault> {
    use tensor_value as tv;
    let Some((member, m)) = tensor_value_oneof(&t.view(Message::TensorValue)?)? else {
        return Ok(empty_data(dtype));
    };
    Ok(match member {
        tv::FLOATS => {
            let mut out = Vec::new();
            m.each_of(Message::RepeatedFloats, repeated_floats::VALUES, |f| {
                Ok(f.fixed32s(|x| out.push(f64::from(f32::from_bits(x))))?)
            })?;
            TensorData::Floats(out)
        }
        tv::DOUBLES => {
            let mut out = Vec::new();
            m.each_of(Message::RepeatedDoubles, repeated_doubles::VALUES, |f| {
                Ok(f.fixed64s(|x| out.push(f64::from_bits(x)))?)
            })?;
            TensorData::Floats(out)
        }
        tv::INTS => {
            let mut out = Vec::new();
            m.each_of(Message::RepeatedInts, repeated_ints::VALUES, |f| {
                Ok(f.varints(|x| out.push(i64::from(x as i32)))?)
            })?;
            TensorData::Ints(out)
        }
        tv::LONG_INTS => {
            let mut out = Vec::new();
            m.each_of(Message::RepeatedLongInts, repeated_long_ints::VALUES, |f| {
                Ok(f.varints(|x| out.push(x as i64))?)
            })?;
            TensorData::Ints(out)
        }
        tv::BOOLS => {
            let mut out = Vec::new();
            m.each_of(Message::RepeatedBools, repeated_bools::VALUES, |f| {
                Ok(f.varints(|x| out.push(x != 0))?)
            })?;
            TensorData::Bools(out)
        }
        tv::STRINGS => {
            let mut out = Vec::new();
            m.each_of(Message::RepeatedStrings, repeated_strings::VALUES, |f| {
                out.push(text(f.bytes()?)?.to_string());
                Ok(())
            })?;
            TensorData::Strings(out)
        }
        _ => decode_bytes(
            m.view(Message::RepeatedBytes)?
                .bytes(repeated_bytes::VALUES),
            dtype,
            max_elements,
        ),
    })
}

/// An empty element list of the kind `dtype` decodes to.
fn empty_data(dtype: DType) -> TensorData {
    match dtype {
        DType::Bool => TensorData::Bools(Vec::new()),
        DType::String => TensorData::Strings(Vec::new()),
        d if d.is_float() => TensorData::Floats(Vec::new()),
        d if d.is_int() => TensorData::Ints(Vec::new()),
        _ => TensorData::Bytes(Vec::new()),
    }
}

/// Decodes little-endian element bytes of type `dtype` (kept raw when not byte-aligned numbers,
/// when the length is not a multiple of the width, or when there are over `max_elements`).
pub(crate) fn decode_bytes(bytes: &[u8], dtype: DType, max_elements: u64) -> TensorData {
    let width = match dtype {
        DType::Int8 | DType::UInt8 => 1,
        DType::Fp16 | DType::Bf16 | DType::Int16 | DType::UInt16 => 2,
        DType::Int32 | DType::UInt32 => 4,
        // Sub-byte, fp8, bool, 64-bit and unknown types stay raw.
        _ => return TensorData::Bytes(bytes.to_vec()),
    };
    let count = bytes.len() / width;
    if bytes.len() % width != 0 || count as u64 > max_elements {
        return TensorData::Bytes(bytes.to_vec());
    }
    let chunks = bytes.chunks_exact(width);
    let u16s = || {
        bytes.chunks_exact(2).map(|c| {
            u16::from_le_bytes([
                c.first().copied().unwrap_or(0),
                c.get(1).copied().unwrap_or(0),
            ])
        })
    };
    match dtype {
        DType::Fp16 => TensorData::Floats(u16s().map(f16_to_f64).collect()),
        DType::Bf16 => TensorData::Floats(
            u16s()
                .map(|b| f64::from(f32::from_bits(u32::from(b) << 16)))
                .collect(),
        ),
        DType::Int8 => TensorData::Ints(bytes.iter().map(|&b| i64::from(b as i8)).collect()),
        DType::UInt8 => TensorData::Ints(bytes.iter().map(|&b| i64::from(b)).collect()),
        DType::Int16 => TensorData::Ints(u16s().map(|b| i64::from(b as i16)).collect()),
        DType::UInt16 => TensorData::Ints(u16s().map(i64::from).collect()),
        DType::Int32 | DType::UInt32 => {
            let signed = dtype == DType::Int32;
            TensorData::Ints(
                chunks
                    .map(|c| {
                        let mut four = [0u8; 4];
                        four.copy_from_slice(c);
                        let bits = u32::from_le_bytes(four);
                        if signed {
                            i64::from(bits as i32)
                        } else {
                            i64::from(bits)
                        }
                    })
                    .collect(),
            )
        }
        _ => TensorData::Bytes(bytes.to_vec()),
    }
}
