//! Tests of the cursor, the field table (tied to the owned prost structs), the validator (against
//! prost) and each message decoder.

use std::collections::BTreeMap;

use prost::Message as _;

use super::cursor::{read_varint, Cursor, Field, Value, WireError, WireType, RECURSION_LIMIT};
use super::decode::{self, lower_tensor_type, lower_value, lower_value_type};
use super::fields::{self, Kind, Message};
use super::msg::Msg;
use super::{operation, validate, Fault};
use crate::ir::{DType, Dim, Payload, TensorData, ValueType};
use crate::read::proto::fixtures::*;
use crate::read::proto::{self, DataType as D};

// ---------------------------------------------------------------------------------------------
// Writing wire bytes by hand
// ---------------------------------------------------------------------------------------------

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, number: u32, wire_type: u8) {
    varint(out, (u64::from(number) << 3) | u64::from(wire_type));
}

fn len_field(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    key(out, number, 2);
    varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

fn varint_field(out: &mut Vec<u8>, number: u32, v: u64) {
    key(out, number, 0);
    varint(out, v);
}

/// Every field of `bytes` (a message whose fields have the full budget).
fn all_fields(bytes: &[u8]) -> Result<Vec<Field<'_>>, WireError> {
    let mut c = Cursor::new(bytes, RECURSION_LIMIT);
    let mut out = Vec::new();
    while let Some(f) = c.next_field()? {
        out.push(f);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Cursor
// ---------------------------------------------------------------------------------------------

#[test]
fn varints_of_every_length_and_their_limits() {
    for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), 1 << 62, u64::MAX] {
        let mut b = Vec::new();
        varint(&mut b, v);
        let mut rest = b.as_slice();
        assert_eq!(read_varint(&mut rest), Ok(v));
        assert!(rest.is_empty());
    }
    // u64::MAX is the 10-byte varint whose last byte is 1.
    let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert_eq!(read_varint(&mut &max[..]), Ok(u64::MAX));
    // A tenth byte over 1 overflows 64 bits.
    let over = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
    assert_eq!(read_varint(&mut &over[..]), Err(WireError::InvalidVarint));
    // Eleven bytes: overlong, even if the value would fit (prost refuses it too).
    let overlong = [
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
    ];
    assert_eq!(
        read_varint(&mut &overlong[..]),
        Err(WireError::InvalidVarint)
    );
    // Overlong but within 10 bytes (a zero written in 10 bytes) is accepted, as by prost.
    let padded = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
    assert_eq!(read_varint(&mut &padded[..]), Ok(0));
    // Truncated: the continuation bit set on the last byte there is.
    for cut in [&[][..], &[0x80], &[0xff, 0xff]] {
        assert_eq!(read_varint(&mut &cut[..]), Err(WireError::InvalidVarint));
    }
    // Same answers as prost's own decoder for every prefix of those.
    for bytes in [&max[..], &over, &overlong, &padded] {
        for n in 0..=bytes.len() {
            let mut ours = &bytes[..n];
            let mut theirs = &bytes[..n];
            assert_eq!(
                read_varint(&mut ours).ok(),
                prost::encoding::decode_varint(&mut theirs).ok(),
                "{:?}",
                &bytes[..n]
            );
        }
    }
}

#[test]
fn keys_fields_and_lengths_are_checked() {
    // Field number 0, wire types 6 and 7, keys over 32 bits.
    assert_eq!(all_fields(&[0x00]).unwrap_err(), WireError::InvalidTag);
    assert_eq!(
        all_fields(&[0x0e]).unwrap_err(),
        WireError::InvalidWireType(6)
    );
    assert_eq!(
        all_fields(&[0x0f]).unwrap_err(),
        WireError::InvalidWireType(7)
    );
    let mut big = Vec::new();
    varint(&mut big, 1 << 32);
    assert_eq!(
        all_fields(&big).unwrap_err(),
        WireError::InvalidKey(1 << 32)
    );
    // The largest field number is fine.
    let mut top = Vec::new();
    varint_field(&mut top, (1 << 29) - 1, 5);
    assert_eq!(all_fields(&top).unwrap()[0].number, (1 << 29) - 1);
    // A length past the end, fixed-width values past the end, a truncated varint value.
    assert_eq!(
        all_fields(&[0x0a, 0x05, 1, 2]).unwrap_err(),
        WireError::BufferUnderflow
    );
    assert_eq!(
        all_fields(&[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap_err(),
        WireError::BufferUnderflow
    );
    assert_eq!(
        all_fields(&[0x0d, 1, 2, 3]).unwrap_err(),
        WireError::BufferUnderflow
    );
    assert_eq!(
        all_fields(&[0x09, 1, 2, 3, 4, 5, 6, 7]).unwrap_err(),
        WireError::BufferUnderflow
    );
    assert_eq!(
        all_fields(&[0x08, 0x80]).unwrap_err(),
        WireError::InvalidVarint
    );
    // A stray end-group key.
    assert_eq!(
        all_fields(&[0x0c]).unwrap_err(),
        WireError::UnexpectedEndGroup
    );
    // Each wire type read back.
    let bytes = [
        0x08, 0x96, 0x01, // 1: varint 150
        0x11, 1, 0, 0, 0, 0, 0, 0, 0, // 2: fixed64 1
        0x1a, 0x02, b'h', b'i', // 3: "hi"
        0x25, 2, 0, 0, 0, // 4: fixed32 2
        0x2b, 0x08, 0x01, 0x2c, // 5: a group holding 1: varint 1
    ];
    let fields = all_fields(&bytes).unwrap();
    let values: Vec<_> = fields.iter().map(|f| (f.number, f.value)).collect();
    assert_eq!(
        values,
        [
            (1, Value::Varint(150)),
            (2, Value::SixtyFourBit(1)),
            (3, Value::LengthDelimited(b"hi")),
            (4, Value::ThirtyTwoBit(2)),
            (5, Value::Group),
        ]
    );
    assert_eq!(fields[0].wire_type(), WireType::Varint);
}

#[test]
fn wrong_wire_types_are_refused_with_prosts_message() {
    let f = all_fields(&[0x08, 0x01]).unwrap()[0];
    let err = f.bytes().unwrap_err();
    assert_eq!(
        err.to_string(),
        "failed to decode Protobuf message: invalid wire type: Varint (expected LengthDelimited)"
    );
    let f = all_fields(&[0x0a, 0x00]).unwrap()[0];
    assert!(f.varint().is_err());
    assert!(f.bytes().is_ok());
    let f = all_fields(&[0x0d, 0, 0, 0, 0]).unwrap()[0];
    assert!(f.varints(drop).is_err());
    assert!(f.fixed64s(drop).is_err());
    assert!(f.fixed32s(drop).is_ok());
}

#[test]
fn groups_are_skipped_and_must_match() {
    // Group 1 holding a varint, a fixed64, a string, a fixed32 and a nested group 2.
    let mut g = vec![0x0b];
    varint_field(&mut g, 3, 7);
    g.extend_from_slice(&[0x21, 0, 0, 0, 0, 0, 0, 0, 0]);
    len_field(&mut g, 5, b"xyz");
    g.extend_from_slice(&[0x35, 0, 0, 0, 0]);
    g.extend_from_slice(&[0x13, 0x14]); // group 2, empty
    g.push(0x0c); // end of group 1
    varint_field(&mut g, 9, 1);
    let fields = all_fields(&g).unwrap();
    assert_eq!(fields.len(), 2);
    assert_eq!(fields[1].value, Value::Varint(1));
    // End of group 2 where group 1 ends; a group never ended.
    assert_eq!(
        all_fields(&[0x0b, 0x14]).unwrap_err(),
        WireError::UnexpectedEndGroup
    );
    assert!(all_fields(&[0x0b, 0x08, 0x01]).is_err());
    // Groups nested past the recursion limit.
    let levels = RECURSION_LIMIT as usize + 1;
    let deep = [vec![0x0b; levels], vec![0x0c; levels]].concat();
    assert_eq!(all_fields(&deep).unwrap_err(), WireError::RecursionLimit);
    // prost agrees on each of these.
    for bytes in [&g[..], &[0x0b, 0x14], &deep] {
        assert_eq!(
            validate(bytes, Message::Dimension, RECURSION_LIMIT).is_ok(),
            proto::Dimension::decode(bytes).is_ok()
        );
    }
}

#[test]
fn packed_and_unpacked_repeated_scalars() {
    fn f(bytes: &[u8]) -> Field<'_> {
        all_fields(bytes).unwrap()[0]
    }
    let mut seen = Vec::new();
    // Unpacked varint; packed varints.
    f(&[0x08, 0x05]).varints(|v| seen.push(v)).unwrap();
    f(&[0x0a, 0x03, 0x01, 0x96, 0x01])
        .varints(|v| seen.push(v))
        .unwrap();
    assert_eq!(seen, [5, 1, 150]);
    // A packed varint cut short.
    assert_eq!(
        f(&[0x0a, 0x02, 0x01, 0x96]).varints(drop),
        Err(WireError::InvalidVarint)
    );
    // Floats: unpacked, packed, and a packed length that is not a multiple of 4.
    let mut floats = Vec::new();
    f(&[0x0d, 0, 0, 0x80, 0x3f])
        .fixed32s(|x| floats.push(f32::from_bits(x)))
        .unwrap();
    f(&[0x0a, 8, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40])
        .fixed32s(|x| floats.push(f32::from_bits(x)))
        .unwrap();
    assert_eq!(floats, [1.0, 2.0, 3.0]);
    assert!(f(&[0x0a, 3, 0, 0, 0]).fixed32s(drop).is_err());
    // Doubles likewise.
    let mut doubles = Vec::new();
    let one = 1f64.to_bits().to_le_bytes();
    let mut unpacked = vec![0x09];
    unpacked.extend_from_slice(&one);
    f(&unpacked)
        .fixed64s(|x| doubles.push(f64::from_bits(x)))
        .unwrap();
    let mut packed = vec![0x0a, 16];
    packed.extend_from_slice(&one);
    packed.extend_from_slice(&one);
    f(&packed)
        .fixed64s(|x| doubles.push(f64::from_bits(x)))
        .unwrap();
    assert_eq!(doubles, [1.0, 1.0, 1.0]);
    assert!(f(&[0x0a, 4, 0, 0, 0, 0]).fixed64s(drop).is_err());

    // Through the decoder: packed and unpacked give the same elements, and prost agrees.
    let packed = proto::tensor_value::RepeatedInts {
        values: vec![1, -2, 300],
    }
    .encode_to_vec();
    let mut unpacked = Vec::new();
    for v in [1i64, -2, 300] {
        varint_field(&mut unpacked, 1, v as u64);
    }
    for bytes in [&packed, &unpacked] {
        assert_eq!(
            proto::tensor_value::RepeatedInts::decode(bytes.as_slice())
                .unwrap()
                .values,
            [1, -2, 300]
        );
        let mut tensor = Vec::new();
        len_field(&mut tensor, fields::tensor_value::INTS, bytes);
        let data = decode_tensor(&tensor, DType::Int32);
        assert_eq!(data, TensorData::Ints(vec![1, -2, 300]));
    }
}

#[test]
fn unknown_fields_of_every_wire_type_are_skipped_but_not_at_the_recursion_limit() {
    let mut bytes = proto::Dimension {
        dimension: Some(proto::dimension::Dimension::Constant(
            proto::dimension::ConstantDimension { size: 7 },
        )),
    }
    .encode_to_vec();
    varint_field(&mut bytes, 90, 1);
    bytes.extend_from_slice(&[0xd1, 0x05, 0, 0, 0, 0, 0, 0, 0, 0]); // 90: fixed64
    len_field(&mut bytes, 91, b"skip me");
    bytes.extend_from_slice(&[0xdd, 0x05, 0, 0, 0, 0]); // 91: fixed32
    bytes.extend_from_slice(&[0xdb, 0x05, 0xdc, 0x05]); // 91: empty group
    assert!(validate(&bytes, Message::Dimension, RECURSION_LIMIT).is_ok());
    assert!(proto::Dimension::decode(bytes.as_slice()).is_ok());
    let d = Msg::new(&bytes, RECURSION_LIMIT);
    assert_eq!(decode::lower_dim(&d).unwrap(), Some(Dim::Known(7)));
    // With no levels left, an unknown field is refused (as prost does), a known scalar is not.
    assert_eq!(
        validate(&[0x08, 0x01], Message::ConstantDimension, 0),
        Ok(())
    );
    assert_eq!(
        validate(&[0x10, 0x01], Message::ConstantDimension, 0),
        Err(WireError::RecursionLimit)
    );
    assert_eq!(
        validate(&[0x0a, 0x00], Message::Dimension, 0),
        Err(WireError::RecursionLimit)
    );
}

// ---------------------------------------------------------------------------------------------
// The field table against the owned prost structs
// ---------------------------------------------------------------------------------------------

/// The payload of the first field `number` of `bytes`.
fn payload(bytes: &[u8], number: u32) -> Vec<u8> {
    all_fields(bytes)
        .unwrap()
        .into_iter()
        .find(|f| f.number == number)
        .and_then(|f| f.bytes().ok())
        .unwrap_or_else(|| panic!("no field {number}"))
        .to_vec()
}

fn immediate(v: proto::immediate_value::Value) -> proto::Value {
    proto::Value {
        doc_string: "doc".into(),
        r#type: Some(tensor_type(D::Int32, &[1])),
        value: Some(proto::value::Value::ImmediateValue(proto::ImmediateValue {
            value: Some(v),
        })),
    }
}

fn dims(rank: usize) -> proto::TensorType {
    proto::TensorType {
        data_type: D::Float16 as i32,
        rank: rank as i64,
        dimensions: (0..rank)
            .map(|i| proto::Dimension {
                dimension: Some(proto::dimension::Dimension::Constant(
                    proto::dimension::ConstantDimension { size: i as u64 + 1 },
                )),
            })
            .collect(),
        attributes: BTreeMap::from([("a".to_string(), string_value("b"))]),
    }
}

/// Encodings, through the owned prost structs, of `message` with every field set (one encoding
/// per member of a oneof).
fn samples(message: Message) -> Vec<Vec<u8>> {
    use proto::tensor_value as tv;
    use proto::value_type::Type as T;
    let vt = |t: T| proto::ValueType { r#type: Some(t) }.encode_to_vec();
    let boxed = || Some(Box::new(tensor_type(D::Float32, &[2])));
    let tensor = |v: tv::Value| proto::TensorValue { value: Some(v) }.encode_to_vec();
    let full_op = || {
        let mut o = op(
            "cond",
            "c",
            &[("x", "a")],
            vec![named("y", tensor_type(D::Bool, &[]))],
        );
        o.blocks = vec![proto::Block {
            inputs: vec![named("i", tensor_type(D::Bool, &[]))],
            outputs: vec!["y".into()],
            operations: vec![op("identity", "y", &[("x", "i")], vec![])],
            attributes: BTreeMap::from([("k".to_string(), string_value("v"))]),
        }];
        o
    };
    match message {
        Message::Operation => vec![full_op().encode_to_vec()],
        Message::Block => vec![full_op().blocks[0].encode_to_vec()],
        Message::ArgumentEntry => vec![payload(&full_op().encode_to_vec(), 2)],
        Message::ValueEntry => vec![payload(&full_op().encode_to_vec(), 5)],
        Message::Argument => vec![full_op().inputs["x"].encode_to_vec()],
        Message::Binding => vec![
            proto::argument::Binding {
                binding: Some(proto::argument::binding::Binding::Name("n".into())),
            }
            .encode_to_vec(),
            proto::argument::Binding {
                binding: Some(proto::argument::binding::Binding::Value(ints_value(&[1]))),
            }
            .encode_to_vec(),
        ],
        Message::NamedValueType => vec![named("n", tensor_type(D::Int8, &[1])).encode_to_vec()],
        Message::ValueType => vec![
            vt(T::TensorType(dims(1))),
            vt(T::ListType(proto::ListType {
                r#type: boxed(),
                length: dims(1).dimensions.pop(),
            })),
            vt(T::TupleType(proto::TupleType {
                types: vec![tensor_type(D::Bool, &[])],
            })),
            vt(T::DictionaryType(proto::DictionaryType {
                key_type: boxed(),
                value_type: boxed(),
            })),
            vt(T::StateType(proto::StateType {
                wrapped_type: boxed(),
            })),
        ],
        Message::TensorType => vec![dims(2).encode_to_vec()],
        Message::TupleType => vec![proto::TupleType {
            types: vec![tensor_type(D::Bool, &[])],
        }
        .encode_to_vec()],
        Message::ListType => vec![proto::ListType {
            r#type: boxed(),
            length: dims(1).dimensions.pop(),
        }
        .encode_to_vec()],
        Message::DictionaryType => vec![proto::DictionaryType {
            key_type: boxed(),
            value_type: boxed(),
        }
        .encode_to_vec()],
        Message::StateType => vec![proto::StateType {
            wrapped_type: boxed(),
        }
        .encode_to_vec()],
        Message::Dimension => vec![
            dims(1).dimensions[0].encode_to_vec(),
            proto::Dimension {
                dimension: Some(proto::dimension::Dimension::Unknown(
                    proto::dimension::UnknownDimension { variadic: true },
                )),
            }
            .encode_to_vec(),
        ],
        Message::ConstantDimension => {
            vec![proto::dimension::ConstantDimension { size: 3 }.encode_to_vec()]
        }
        Message::UnknownDimension => {
            vec![proto::dimension::UnknownDimension { variadic: true }.encode_to_vec()]
        }
        Message::Value => vec![
            ints_value(&[1]).encode_to_vec(),
            proto::Value {
                doc_string: "doc".into(),
                r#type: Some(tensor_type(D::Float16, &[2])),
                value: Some(proto::value::Value::BlobFileValue(proto::BlobFileValue {
                    file_name: "w.bin".into(),
                    offset: 64,
                })),
            }
            .encode_to_vec(),
        ],
        Message::ImmediateValue => {
            use proto::immediate_value::Value as I;
            [
                I::Tensor(proto::TensorValue::default()),
                I::Tuple(proto::TupleValue {
                    values: vec![ints_value(&[1])],
                }),
                I::List(proto::ListValue {
                    values: vec![ints_value(&[1])],
                }),
                I::Dictionary(proto::DictionaryValue::default()),
            ]
            .into_iter()
            .map(|v| proto::ImmediateValue { value: Some(v) }.encode_to_vec())
            .collect()
        }
        Message::BlobFileValue => vec![proto::BlobFileValue {
            file_name: "w.bin".into(),
            offset: 64,
        }
        .encode_to_vec()],
        Message::TensorValue => vec![
            tensor(tv::Value::Floats(tv::RepeatedFloats { values: vec![1.0] })),
            tensor(tv::Value::Ints(tv::RepeatedInts { values: vec![1] })),
            tensor(tv::Value::Bools(tv::RepeatedBools { values: vec![true] })),
            tensor(tv::Value::Strings(tv::RepeatedStrings {
                values: vec!["s".into()],
            })),
            tensor(tv::Value::LongInts(tv::RepeatedLongInts {
                values: vec![1],
            })),
            tensor(tv::Value::Doubles(tv::RepeatedDoubles {
                values: vec![1.0],
            })),
            tensor(tv::Value::Bytes(tv::RepeatedBytes { values: vec![1] })),
        ],
        Message::RepeatedFloats => vec![tv::RepeatedFloats {
            values: vec![1.0, 2.0],
        }
        .encode_to_vec()],
        Message::RepeatedDoubles => vec![tv::RepeatedDoubles {
            values: vec![1.0, 2.0],
        }
        .encode_to_vec()],
        Message::RepeatedInts => vec![tv::RepeatedInts { values: vec![1, 2] }.encode_to_vec()],
        Message::RepeatedLongInts => {
            vec![tv::RepeatedLongInts { values: vec![1, 2] }.encode_to_vec()]
        }
        Message::RepeatedBools => vec![tv::RepeatedBools {
            values: vec![true, false],
        }
        .encode_to_vec()],
        Message::RepeatedStrings => vec![tv::RepeatedStrings {
            values: vec!["a".into(), "b".into()],
        }
        .encode_to_vec()],
        Message::RepeatedBytes => vec![tv::RepeatedBytes { values: vec![1, 2] }.encode_to_vec()],
        Message::TupleValue => vec![proto::TupleValue {
            values: vec![ints_value(&[1])],
        }
        .encode_to_vec()],
        Message::ListValue => vec![proto::ListValue {
            values: vec![ints_value(&[1])],
        }
        .encode_to_vec()],
        Message::DictionaryValue => vec![proto::DictionaryValue {
            values: vec![proto::dictionary_value::KeyValuePair {
                key: Some(string_value("k")),
                value: Some(string_value("v")),
            }],
        }
        .encode_to_vec()],
        Message::KeyValuePair => vec![proto::dictionary_value::KeyValuePair {
            key: Some(string_value("k")),
            value: Some(string_value("v")),
        }
        .encode_to_vec()],
    }
}

fn expected_wire_type(kind: Kind) -> WireType {
    match kind {
        Kind::Varint => WireType::Varint,
        // prost packs repeated scalars.
        Kind::Bytes
        | Kind::Message(_)
        | Kind::PackedVarint
        | Kind::PackedFixed32
        | Kind::PackedFixed64 => WireType::LengthDelimited,
    }
}

/// Every field of every message, set through prost, is found under its named number with the
/// wire type the table says; and nothing prost writes is missing from the table.
#[test]
fn the_field_table_matches_the_owned_prost_structs() {
    for &message in Message::ALL {
        let mut seen = BTreeMap::new();
        for bytes in samples(message) {
            for f in all_fields(&bytes).unwrap() {
                seen.insert(f.number, f.wire_type());
            }
            // What prost wrote is a well-formed message of this type, nested messages included.
            validate(&bytes, message, RECURSION_LIMIT)
                .unwrap_or_else(|e| panic!("{}: {e}", message.name()));
        }
        let table: BTreeMap<u32, WireType> = message
            .fields()
            .iter()
            .map(|&(n, k)| (n, expected_wire_type(k)))
            .collect();
        assert_eq!(seen, table, "{}", message.name());
    }
}

/// The named numbers are the ones of FORMAT.md §3 the decoders were written against.
#[test]
fn named_numbers_are_distinct_within_each_message() {
    for &message in Message::ALL {
        let mut numbers: Vec<u32> = message.fields().iter().map(|f| f.0).collect();
        let n = numbers.len();
        numbers.dedup();
        assert_eq!(numbers.len(), n, "{}", message.name());
    }
    for &message in Message::ALL {
        for &(n, kind) in message.fields() {
            assert!(
                n >= 1 && n <= fields::MAX_FIELD_NUMBER,
                "{}",
                message.name()
            );
            assert_eq!(message.kind(n), Some(kind));
        }
    }
    assert_eq!(fields::operation::ATTRIBUTES, 5);
    assert_eq!(fields::value::BLOB_FILE_VALUE, 5);
    assert_eq!(fields::tensor_value::BYTES, 7);
}

// ---------------------------------------------------------------------------------------------
// The validator against prost, on hostile bytes
// ---------------------------------------------------------------------------------------------

/// xorshift, for repeatable mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn sample_ops() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = samples(Message::Operation);
    let mut c = const_op("w", ints_value(&[1, 2, 3]));
    c.attributes.insert(
        "doc".into(),
        proto::Value {
            doc_string: "d".into(),
            ..string_value("x")
        },
    );
    out.push(c.encode_to_vec());
    out.push(
        const_op(
            "f",
            proto::Value {
                doc_string: String::new(),
                r#type: Some(tensor_type(D::Float16, &[2, 2])),
                value: Some(proto::value::Value::BlobFileValue(proto::BlobFileValue {
                    file_name: "@model_path/weights/weight.bin".into(),
                    offset: 128,
                })),
            },
        )
        .encode_to_vec(),
    );
    out
}

fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for _ in 0..=rng.below(3) {
        let i = rng.below(b.len());
        match rng.below(5) {
            0 if !b.is_empty() => b[i] ^= 1 << rng.below(8),
            1 if !b.is_empty() => b[i] = rng.next() as u8,
            2 => b.truncate(i),
            3 => b.insert(i.min(b.len()), rng.next() as u8),
            _ => {
                let other = b.clone();
                let at = rng.below(other.len());
                b.extend_from_slice(&other[at..]);
            }
        }
    }
    b
}

/// On mutated operations, the validator accepts exactly what prost's decode of the owned
/// `Operation` accepts, except strings prost refuses as not UTF-8 (the IR checks those where it
/// reads them); and the decoder accepts nothing the validator refuses.
#[test]
fn the_validator_accepts_what_prost_accepts() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let ops = sample_ops();
    let mut refused = 0;
    for round in 0..20_000 {
        let base = &ops[round % ops.len()];
        let bytes = mutate(&mut rng, base);
        let ours = validate(&bytes, Message::Operation, RECURSION_LIMIT);
        // The decoder lowers only what validates (it asserts so in debug builds), and a malformed
        // operation is a decode fault whatever else is wrong with it.
        let lowered = operation(&bytes);
        if ours.is_err() {
            assert!(matches!(lowered, Err(Fault::Decode(_))), "{lowered:?}");
        }
        match proto::Operation::decode(bytes.as_slice()) {
            Ok(_) => assert_eq!(ours, Ok(()), "{bytes:02x?}"),
            Err(e) if e.to_string().contains("UTF-8") => {}
            Err(e) => {
                refused += 1;
                assert!(ours.is_err(), "prost: {e}; {bytes:02x?}");
            }
        }
    }
    assert!(refused > 1000, "{refused}");
}

/// Messages nested to the recursion limit and one past it, as prost counts them.
#[test]
fn the_recursion_limit_is_prosts() {
    // Operation → Block → Operation → … : each level two messages.
    let nested = |levels: usize| {
        let mut op = Vec::new();
        len_field(&mut op, fields::operation::TYPE, b"cond");
        for _ in 0..levels {
            let mut block = Vec::new();
            len_field(&mut block, fields::block::OPERATIONS, &op);
            op = Vec::new();
            len_field(&mut op, fields::operation::BLOCKS, &block);
        }
        op
    };
    for levels in [40, 49, 50, 51, 60] {
        let bytes = nested(levels);
        assert_eq!(
            validate(&bytes, Message::Operation, RECURSION_LIMIT).is_ok(),
            proto::Operation::decode(bytes.as_slice()).is_ok(),
            "{levels}"
        );
    }
    assert!(validate(&nested(50), Message::Operation, RECURSION_LIMIT).is_ok());
    assert_eq!(
        validate(&nested(51), Message::Operation, RECURSION_LIMIT),
        Err(WireError::RecursionLimit)
    );
}

// ---------------------------------------------------------------------------------------------
// The decoders
// ---------------------------------------------------------------------------------------------

fn decode_tensor(tensor_value: &[u8], dtype: DType) -> TensorData {
    decode::tensor_data(
        &Msg::new(tensor_value, RECURSION_LIMIT),
        dtype,
        crate::limits::MAX_IMMEDIATE_ELEMENTS,
    )
    .unwrap()
}

fn value_type(t: &proto::ValueType) -> Result<ValueType, Fault> {
    let bytes = t.encode_to_vec();
    lower_value_type(&Msg::new(&bytes, RECURSION_LIMIT), 0)
}

fn value(v: &proto::Value) -> Result<crate::ir::Literal, Fault> {
    let bytes = v.encode_to_vec();
    lower_value(&Msg::new(&bytes, RECURSION_LIMIT), 0)
}

#[test]
fn tensor_types_dynamic_shapes_and_rank_checks() {
    let t = |rank: i64, dims: Vec<proto::Dimension>| proto::TensorType {
        data_type: D::Float32 as i32,
        rank,
        dimensions: dims,
        attributes: BTreeMap::new(),
    };
    let unknown = |variadic| proto::Dimension {
        dimension: Some(proto::dimension::Dimension::Unknown(
            proto::dimension::UnknownDimension { variadic },
        )),
    };
    let lower = |t: &proto::TensorType| {
        let bytes = t.encode_to_vec();
        lower_tensor_type(&Msg::new(&bytes, RECURSION_LIMIT))
    };
    assert_eq!(lower(&t(-1, vec![])).unwrap().shape, None);
    assert_eq!(lower(&t(1, vec![unknown(true)])).unwrap().shape, None);
    assert_eq!(
        lower(&t(1, vec![unknown(false)])).unwrap().shape,
        Some(vec![Dim::Unknown])
    );
    assert_eq!(lower(&t(0, vec![])).unwrap().shape, Some(vec![]));
    assert!(matches!(
        lower(&t(3, vec![unknown(false)])),
        Err(Fault::Invalid(m)) if m.contains("rank 3")
    ));
    // An unknown dtype number is kept.
    let odd = proto::TensorType {
        data_type: 77,
        ..t(0, vec![])
    };
    assert_eq!(lower(&odd).unwrap().dtype, DType::Unknown(77));
    // A dimension over 2^40, and one after a variadic (not looked at).
    let mut big = dims(2);
    if let Some(proto::dimension::Dimension::Constant(c)) = &mut big.dimensions[1].dimension {
        c.size = 1 << 41;
    }
    assert!(matches!(lower(&big), Err(Fault::Invalid(m)) if m.contains("2^40")));
    big.dimensions.insert(0, unknown(true));
    big.rank = 3;
    assert_eq!(lower(&big).unwrap().shape, None);
    // Attribute keys must be UTF-8 even though the IR drops them.
    let mut bytes = dims(1).encode_to_vec();
    let at = bytes
        .windows(3)
        .position(|w| w == [0x0a, 0x01, b'a'])
        .unwrap();
    bytes[at + 2] = 0xff;
    assert!(matches!(
        lower_tensor_type(&Msg::new(&bytes, RECURSION_LIMIT)),
        Err(Fault::Decode(m)) if m.contains("UTF-8")
    ));
}

#[test]
fn value_types_of_every_kind() {
    use proto::value_type::Type as T;
    let f32s = || Some(Box::new(tensor_type(D::Float32, &[2])));
    let vt = |t: T| proto::ValueType { r#type: Some(t) };
    let list = value_type(&vt(T::ListType(proto::ListType {
        r#type: f32s(),
        length: dims(1).dimensions.pop(),
    })))
    .unwrap();
    assert!(matches!(
        list,
        ValueType::List {
            len: Dim::Known(1),
            ..
        }
    ));
    let tuple = value_type(&vt(T::TupleType(proto::TupleType {
        types: vec![tensor_type(D::Bool, &[]), tensor_type(D::Int32, &[3])],
    })))
    .unwrap();
    assert!(matches!(&tuple, ValueType::Tuple(t) if t.len() == 2));
    let dict = value_type(&vt(T::DictionaryType(proto::DictionaryType {
        key_type: f32s(),
        value_type: f32s(),
    })))
    .unwrap();
    assert!(matches!(dict, ValueType::Dict { .. }));
    let state = value_type(&state_type(D::Float16, &[1, 4])).unwrap();
    assert!(state.is_state());
    for (missing, what) in [
        (
            vt(T::ListType(proto::ListType::default())),
            "list element type is missing",
        ),
        (
            vt(T::DictionaryType(proto::DictionaryType {
                key_type: f32s(),
                value_type: None,
            })),
            "dictionary value type is missing",
        ),
        (
            vt(T::StateType(proto::StateType::default())),
            "wrapped type is missing",
        ),
        (proto::ValueType::default(), "a value type is empty"),
    ] {
        assert!(
            matches!(value_type(&missing), Err(Fault::Invalid(m)) if m.contains(what)),
            "{what}"
        );
    }
}

#[test]
fn values_of_every_encoding() {
    use proto::tensor_value as tv;
    let typed = |dtype: D, dims: &[u64], v: tv::Value| tensor_value(tensor_type(dtype, dims), v);
    let data = |v: &proto::Value| match value(v).unwrap().payload {
        Payload::Tensor(t) => t,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        data(&typed(
            D::Float32,
            &[2],
            tv::Value::Floats(tv::RepeatedFloats {
                values: vec![1.5, -2.0]
            })
        )),
        TensorData::Floats(vec![1.5, -2.0])
    );
    assert_eq!(
        data(&typed(
            D::Float64,
            &[1],
            tv::Value::Doubles(tv::RepeatedDoubles { values: vec![0.25] })
        )),
        TensorData::Floats(vec![0.25])
    );
    assert_eq!(
        data(&typed(
            D::Int64,
            &[2],
            tv::Value::LongInts(tv::RepeatedLongInts {
                values: vec![-1, 1 << 40]
            })
        )),
        TensorData::Ints(vec![-1, 1 << 40])
    );
    assert_eq!(
        data(&typed(
            D::Bool,
            &[2],
            tv::Value::Bools(tv::RepeatedBools {
                values: vec![true, false]
            })
        )),
        TensorData::Bools(vec![true, false])
    );
    assert_eq!(
        data(&string_value("hi")),
        TensorData::Strings(vec!["hi".into()])
    );
    assert_eq!(
        data(&typed(
            D::Float16,
            &[1],
            tv::Value::Bytes(tv::RepeatedBytes {
                values: vec![0x00, 0x3c]
            })
        )),
        TensorData::Floats(vec![1.0])
    );
    // No member set: an empty list of the dtype's kind.
    let empty = proto::Value {
        doc_string: String::new(),
        r#type: Some(tensor_type(D::Int32, &[0])),
        value: Some(proto::value::Value::ImmediateValue(proto::ImmediateValue {
            value: Some(proto::immediate_value::Value::Tensor(
                proto::TensorValue::default(),
            )),
        })),
    };
    assert_eq!(data(&empty), TensorData::Ints(vec![]));
    // A blob reference.
    let blob = value(&proto::Value {
        doc_string: String::new(),
        r#type: Some(tensor_type(D::Float16, &[2])),
        value: Some(proto::value::Value::BlobFileValue(proto::BlobFileValue {
            file_name: "@model_path/weights/weight.bin".into(),
            offset: 64,
        })),
    })
    .unwrap();
    assert_eq!(blob.blob().map(|b| b.offset), Some(64));
    // Containers: elements typed by themselves or by the container.
    let tuple = immediate(proto::immediate_value::Value::Tuple(proto::TupleValue {
        values: vec![ints_value(&[1]), string_value("s")],
    }));
    assert!(matches!(value(&tuple).unwrap().payload, Payload::Tuple(t) if t.len() == 2));
    let dict = immediate(proto::immediate_value::Value::Dictionary(
        proto::DictionaryValue {
            values: vec![proto::dictionary_value::KeyValuePair {
                key: Some(string_value("k")),
                value: None,
            }],
        },
    ));
    assert!(matches!(value(&dict), Err(Fault::Invalid(m)) if m.contains("no value")));
    // Faults.
    let mut no_type = ints_value(&[1]);
    no_type.r#type = None;
    assert!(matches!(value(&no_type), Err(Fault::Invalid(m)) if m.contains("no type")));
    let mut nothing = ints_value(&[1]);
    nothing.value = None;
    assert!(matches!(value(&nothing), Err(Fault::Invalid(m)) if m.contains("neither")));
    let empty_imm = proto::Value {
        value: Some(proto::value::Value::ImmediateValue(
            proto::ImmediateValue::default(),
        )),
        ..ints_value(&[1])
    };
    assert!(
        matches!(value(&empty_imm), Err(Fault::Invalid(m)) if m.contains("immediate value is empty"))
    );
}

/// Protobuf merges a message field written twice, and a oneof keeps its last member; the
/// decoder reads the concatenation of two encodings as prost does (decoded by prost and encoded
/// again, the same op lowers to the same syntax).
#[test]
fn repeated_occurrences_merge_as_prost_merges() {
    let ops = sample_ops();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut compared = 0;
    for _ in 0..3_000 {
        let a = &ops[rng.below(ops.len())];
        let pick = rng.below(ops.len());
        let b = mutate(&mut rng, &ops[pick]);
        let bytes = [a.as_slice(), &b].concat();
        let Ok(decoded) = proto::Operation::decode(bytes.as_slice()) else {
            continue;
        };
        let canonical = decoded.encode_to_vec();
        let ours = operation(&bytes);
        let theirs = operation(&canonical);
        assert_eq!(format!("{ours:?}"), format!("{theirs:?}"), "{bytes:02x?}");
        compared += 1;
    }
    assert!(compared > 200, "{compared}");
    // Two types for one output: the tensor types merge (dims are appended, the rank replaced).
    let mut named_twice = named("y", tensor_type(D::Float16, &[2])).encode_to_vec();
    let mut tensor = Vec::new();
    varint_field(&mut tensor, fields::tensor_type::RANK, 2);
    len_field(
        &mut tensor,
        fields::tensor_type::DIMENSIONS,
        &dims(1).dimensions[0].encode_to_vec(),
    );
    let mut vt = Vec::new();
    len_field(&mut vt, fields::value_type::TENSOR_TYPE, &tensor);
    len_field(&mut named_twice, fields::named_value_type::TYPE, &vt);
    let input = super::input(&named_twice, RECURSION_LIMIT).unwrap();
    assert_eq!(
        input.ty.tensor().and_then(|t| t.shape.clone()),
        Some(vec![Dim::Known(2), Dim::Known(1)])
    );
}

#[test]
fn bindings_are_a_name_or_a_value_the_last_set_winning() {
    use proto::argument::binding::Binding as B;
    let lower = |bytes: &[u8]| decode::lower_binding(&Msg::new(bytes, RECURSION_LIMIT), 0);
    let name = proto::argument::Binding {
        binding: Some(B::Name("x".into())),
    }
    .encode_to_vec();
    let val = proto::argument::Binding {
        binding: Some(B::Value(ints_value(&[4]))),
    }
    .encode_to_vec();
    assert!(matches!(lower(&name), Ok(crate::ir::Arg::Name(n)) if n == "x"));
    assert!(matches!(lower(&val), Ok(crate::ir::Arg::Value(_))));
    assert!(matches!(
        lower(&[name.clone(), val.clone()].concat()),
        Ok(crate::ir::Arg::Value(_))
    ));
    assert!(matches!(
        lower(&[val, name].concat()),
        Ok(crate::ir::Arg::Name(_))
    ));
    assert!(matches!(lower(&[]), Err(Fault::Invalid(m)) if m.contains("binding is empty")));
}

#[test]
fn operations_lower_with_their_context_in_faults() {
    let out = vec![named("y", tensor_type(D::Float32, &[2]))];
    let relu = op("relu", "r", &[("x", "a")], out.clone());
    let syntax = operation(&relu.encode_to_vec()).unwrap();
    assert_eq!(syntax.op_type, "relu");
    assert_eq!(syntax.name.as_deref(), Some("r"));
    assert_eq!(syntax.inputs[0].name, "x");
    assert_eq!(syntax.outputs[0].name, "y");
    assert!(syntax.attributes.is_empty());
    // A fault names the op by its name attribute, else its first output, else its type.
    let mut no_type = out.clone();
    no_type[0].r#type = None;
    let labelled = |o: &proto::Operation| match operation(&o.encode_to_vec()) {
        Err(Fault::Invalid(m)) => m,
        other => panic!("{other:?}"),
    };
    let mut o = op("relu", "r", &[("x", "a")], no_type.clone());
    assert_eq!(
        labelled(&o),
        "op `r` (relu): output `y`: output `y` has no type"
    );
    o.attributes.clear();
    assert!(labelled(&o).starts_with("op `y` (relu)"));
    let mut bare = op("relu", "r", &[], vec![]);
    bare.attributes.clear();
    bare.inputs.insert(
        "x".into(),
        proto::Argument {
            arguments: vec![proto::argument::Binding { binding: None }],
        },
    );
    assert_eq!(
        labelled(&bare),
        "op `relu` (relu): input `x` binding 0: binding is empty"
    );
    // Malformed bytes anywhere are a decode fault, reported before any other.
    let mut bytes = o.encode_to_vec();
    bytes.extend_from_slice(&[0x0a, 0x09]);
    assert!(matches!(operation(&bytes), Err(Fault::Decode(m)) if m.contains("buffer underflow")));
}

/// Dimensions read the short way (as writers write them) and the general way agree, on plain and
/// on mutated encodings.
#[test]
fn plain_dimensions_read_as_the_general_way_reads_them() {
    let general = |bytes: &[u8]| {
        // An empty second occurrence changes nothing but the way the message is read.
        let mut m = Msg::new(bytes, RECURSION_LIMIT);
        m.merge_occurrence(&[]);
        format!("{:?}", decode::lower_dim(&m))
    };
    let short =
        |bytes: &[u8]| format!("{:?}", decode::lower_dim(&Msg::new(bytes, RECURSION_LIMIT)));
    let unknown = |variadic| {
        proto::Dimension {
            dimension: Some(proto::dimension::Dimension::Unknown(
                proto::dimension::UnknownDimension { variadic },
            )),
        }
        .encode_to_vec()
    };
    let mut bases = vec![
        dims(1).dimensions[0].encode_to_vec(),
        unknown(true),
        unknown(false),
        Vec::new(),
    ];
    let mut big = Vec::new();
    let mut size = Vec::new();
    varint_field(&mut size, fields::constant_dimension::SIZE, 1 << 41);
    len_field(&mut big, fields::dimension::CONSTANT, &size);
    bases.push(big);
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for round in 0..5_000 {
        let base = &bases[round % bases.len()];
        let bytes = if round < bases.len() {
            base.clone()
        } else {
            mutate(&mut rng, base)
        };
        assert_eq!(short(&bytes), general(&bytes), "{bytes:02x?}");
    }
    assert_eq!(short(&bases[0]), "Ok(Some(Known(1)))");
    assert_eq!(short(&bases[1]), "Ok(None)");
    assert_eq!(short(&bases[2]), "Ok(Some(Unknown))");
}
