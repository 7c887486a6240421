//! The benchmark floor: map `model.mlmodel` into memory and walk its protobuf wire format without
//! decoding into structs, without copying and without allocating: every field of every nested
//! message of the model (its description, its pipeline stages and the ML program) is visited (tag,
//! wire type, varint or slice), and nothing else is done. `bench/instructions.sh` counts its
//! instructions as the floor of reading that `coreml-lint check` is measured against.
//!
//! `cargo build --release --example wire_walk`, then
//! `target/release/examples/wire_walk <package.mlpackage | model.mlmodel>`. Prints the number of
//! fields visited and of operations found (so that the walk cannot be optimised away). Which
//! length-delimited fields are nested messages comes from the table in [`Message::child`]: the
//! field numbers of FORMAT.md §2–3, the same ones `src/read/proto/table.rs` describes.

use std::process::ExitCode;

#[path = "floor/mod.rs"]
mod floor;

// Same allocator as `coreml-lint`, so that process start-up costs the same.
#[global_allocator]
static GLOBAL: coreml_lint::allocator::Mimalloc = coreml_lint::allocator::Mimalloc;

/// The message types whose nested messages the walk descends into.
#[derive(Clone, Copy, PartialEq)]
enum Message {
    Model,
    ModelDescription,
    FunctionDescription,
    FeatureDescription,
    FeatureType,
    ImageFeatureType,
    EnumeratedImageSizes,
    ImageSizeRange,
    ArrayFeatureType,
    EnumeratedShapes,
    ShapeRange,
    SequenceFeatureType,
    StateFeatureType,
    Metadata,
    /// `PipelineClassifier` and `PipelineRegressor`: field 1 is a `Pipeline`.
    PipelineWrapper,
    Pipeline,
    Program,
    Function,
    Block,
    Operation,
    Argument,
    Binding,
    NamedValueType,
    ValueType,
    TensorType,
    TupleType,
    ListType,
    DictionaryType,
    StateType,
    Dimension,
    Value,
    ImmediateValue,
    TensorValue,
    TupleValue,
    ListValue,
    DictionaryValue,
    KeyValuePair,
    /// A `map<string, M>` entry: key (1) is a string, value (2) is an `M`.
    MapEntry(MapValue),
    /// A message whose fields are all scalars or strings (visited, not descended into).
    Leaf,
}

#[derive(Clone, Copy, PartialEq)]
enum MapValue {
    Function,
    Block,
    Argument,
    Value,
    String,
}

impl Message {
    /// The message type of field `tag` of `self` if that field is a nested message.
    fn child(self, tag: u32) -> Option<Message> {
        use Message::*;
        Some(match (self, tag) {
            (Model, 2) => ModelDescription,
            (Model, 200 | 201) => PipelineWrapper,
            (Model, 202) => Pipeline,
            (Model, 502) => Program,
            (ModelDescription, 1 | 10 | 13 | 50) => FeatureDescription,
            (ModelDescription, 20) => FunctionDescription,
            (ModelDescription, 100) => Metadata,
            (FunctionDescription, 2 | 3 | 6) => FeatureDescription,
            (FeatureDescription, 3) => FeatureType,
            (FeatureType, 4) => ImageFeatureType,
            (FeatureType, 5) => ArrayFeatureType,
            (FeatureType, 7) => SequenceFeatureType,
            (FeatureType, 8) => StateFeatureType,
            (FeatureType, 1..=3 | 6) => Leaf,
            (ImageFeatureType, 21) => EnumeratedImageSizes,
            (ImageFeatureType, 31) => ImageSizeRange,
            (EnumeratedImageSizes, 1) | (ImageSizeRange, 1 | 2) => Leaf,
            (ArrayFeatureType, 21) => EnumeratedShapes,
            (ArrayFeatureType, 31) => ShapeRange,
            (EnumeratedShapes | ShapeRange, 1) => Leaf,
            (SequenceFeatureType, 1 | 3 | 101) => Leaf,
            (StateFeatureType, 1) => ArrayFeatureType,
            (Metadata, 100) => MapEntry(MapValue::String),
            (PipelineWrapper, 1) => Pipeline,
            (Pipeline, 1) => Model,
            (Program, 2) => MapEntry(MapValue::Function),
            (Program, 4) => MapEntry(MapValue::Value),
            (Function, 1) => NamedValueType,
            (Function, 3) => MapEntry(MapValue::Block),
            (Function, 4) => MapEntry(MapValue::Value),
            (Block, 1) => NamedValueType,
            (Block, 3) => Operation,
            (Block, 4) => MapEntry(MapValue::Value),
            (Operation, 2) => MapEntry(MapValue::Argument),
            (Operation, 3) => NamedValueType,
            (Operation, 4) => Block,
            (Operation, 5) => MapEntry(MapValue::Value),
            (Argument, 1) => Binding,
            (Binding, 2) => Value,
            (NamedValueType, 2) => ValueType,
            (ValueType, 1) => TensorType,
            (ValueType, 2) => ListType,
            (ValueType, 3) => TupleType,
            (ValueType, 4) => DictionaryType,
            (ValueType, 5) => StateType,
            (TensorType, 3) => Dimension,
            (TensorType, 4) => MapEntry(MapValue::Value),
            (TupleType, 1) => ValueType,
            (ListType, 1) => ValueType,
            (ListType, 2) => Dimension,
            (DictionaryType, 1 | 2) => ValueType,
            (StateType, 1) => ValueType,
            (Dimension, 1 | 2) => Leaf,
            (Value, 2) => ValueType,
            (Value, 3) => ImmediateValue,
            (Value, 5) => Leaf,
            (ImmediateValue, 1) => TensorValue,
            (ImmediateValue, 2) => TupleValue,
            (ImmediateValue, 3) => ListValue,
            (ImmediateValue, 4) => DictionaryValue,
            (TensorValue, 1..=7) => Leaf,
            (TupleValue | ListValue, 1) => Value,
            (DictionaryValue, 1) => KeyValuePair,
            (KeyValuePair, 1 | 2) => Value,
            (MapEntry(MapValue::Function), 2) => Function,
            (MapEntry(MapValue::Block), 2) => Block,
            (MapEntry(MapValue::Argument), 2) => Argument,
            (MapEntry(MapValue::Value), 2) => Value,
            _ => return None,
        })
    }
}

/// What the walk saw.
#[derive(Default)]
struct Tally {
    fields: u64,
    operations: u64,
    /// Sum of every varint and slice length, so that no field's content is skipped unread.
    checksum: u64,
}

fn varint(buf: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *buf.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

/// Walks one message; `None` if the bytes are not a well-formed message.
fn walk(buf: &[u8], message: Message, tally: &mut Tally) -> Option<()> {
    if message == Message::Operation {
        tally.operations += 1;
    }
    let mut at = 0;
    while at < buf.len() {
        let key = varint(buf, &mut at)?;
        let tag = u32::try_from(key >> 3).ok()?;
        tally.fields += 1;
        match key & 7 {
            0 => tally.checksum = tally.checksum.wrapping_add(varint(buf, &mut at)?),
            1 => at = at.checked_add(8).filter(|&end| end <= buf.len())?,
            5 => at = at.checked_add(4).filter(|&end| end <= buf.len())?,
            2 => {
                let len = usize::try_from(varint(buf, &mut at)?).ok()?;
                let body = buf.get(at..at.checked_add(len)?)?;
                at += len;
                tally.checksum = tally.checksum.wrapping_add(len as u64);
                if let Some(child) = message.child(tag) {
                    walk(body, child, tally)?;
                }
            }
            _ => return None,
        }
    }
    Some(())
}

fn main() -> ExitCode {
    let (file, bytes) = match floor::map_model_file("wire_walk") {
        Ok(read) => read,
        Err(code) => return code,
    };
    let mut tally = Tally::default();
    if walk(&bytes, Message::Model, &mut tally).is_none() {
        eprintln!("{}: not a well-formed Model protobuf", file.display());
        return ExitCode::from(2);
    }
    println!(
        "{} bytes, {} fields, {} operations (checksum {})",
        bytes.len(),
        tally.fields,
        tally.operations,
        tally.checksum
    );
    ExitCode::SUCCESS
}
