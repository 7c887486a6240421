//! The one description of the MIL.proto messages coreml-lint reads (FORMAT.md §3): every message,
//! field, tag, wire type, label, map and oneof. `codegen.rs` renders it as `mil.rs`: the owned
//! messages the fixer edits and re-encodes, the zero-copy views the reader decodes, and the
//! outlines that leave each top-level operation undecoded. Change this table, then run
//! `COREML_LINT_BLESS=1 cargo test --lib read::proto::codegen` to rewrite `mil.rs`.

/// A message (a struct in each rendering).
pub struct Message {
    /// Rust path from the rendering's root, e.g. `argument::Binding` for `Argument.Binding`.
    pub path: &'static str,
    pub doc: &'static str,
    pub fields: &'static [Field],
    /// Rendered a third time as `<Name>Outline`, see [`Outline`].
    pub outline: Option<&'static str>,
}

pub struct Field {
    pub name: &'static str,
    pub tag: u32,
    pub ty: Ty,
    pub label: Label,
    pub doc: &'static str,
    pub outline: Outline,
}

/// What a field holds on the wire.
#[derive(Clone, Copy)]
pub enum Ty {
    Int32,
    Int64,
    Uint64,
    Bool,
    Float,
    Double,
    /// An enum's number (`int32` on the wire); unknown numbers are kept.
    Enum(&'static str),
    /// UTF-8 text: `String` owned, unchecked `Bytes` in a view.
    Str,
    /// Raw bytes: `Vec<u8>` owned, `Bytes` in a view.
    Bytes,
    /// A message, by its path.
    Message(&'static str),
    /// `map<string, Message>`: a `BTreeMap` owned, its entries in file order in a view.
    Map(&'static str),
    /// A oneof: the enum's name (in the module named after the message) and its members.
    Oneof(&'static str, &'static [Member]),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// Proto3 singular: the default when absent (messages: `Option`).
    Single,
    /// A message held in a `Box` (it can contain itself).
    Boxed,
    Repeated,
}

/// How a field of an outlined message is rendered in its outline.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Outline {
    /// As in the view (a map of outlined messages keeps owned keys: `BTreeMap<String, _Outline>`).
    View,
    /// As in the owned message (a string that must be checked UTF-8 when the outline is decoded).
    Owned,
    /// Each element left as its undecoded bytes.
    Undecoded,
    /// Not decoded at all.
    Skipped,
}

/// A member of a oneof.
pub struct Member {
    pub variant: &'static str,
    pub tag: u32,
    pub ty: Ty,
    pub doc: &'static str,
}

/// An enum (rendered once, in the owned messages).
pub struct Enum {
    pub name: &'static str,
    pub doc: &'static str,
    pub values: &'static [(&'static str, i32, &'static str)],
}

const fn field(name: &'static str, tag: u32, ty: Ty, doc: &'static str) -> Field {
    Field {
        name,
        tag,
        ty,
        label: Label::Single,
        doc,
        outline: Outline::View,
    }
}

const fn repeated(name: &'static str, tag: u32, ty: Ty, doc: &'static str) -> Field {
    Field {
        label: Label::Repeated,
        ..field(name, tag, ty, doc)
    }
}

const fn boxed(name: &'static str, tag: u32, ty: Ty, doc: &'static str) -> Field {
    Field {
        label: Label::Boxed,
        ..field(name, tag, ty, doc)
    }
}

const fn in_outline(f: Field, outline: Outline) -> Field {
    Field { outline, ..f }
}

const fn member(variant: &'static str, tag: u32, ty: Ty, doc: &'static str) -> Member {
    Member {
        variant,
        tag,
        ty,
        doc,
    }
}

const fn message(path: &'static str, doc: &'static str, fields: &'static [Field]) -> Message {
    Message {
        path,
        doc,
        fields,
        outline: None,
    }
}

use Ty::{Bool, Double, Float, Int32, Int64, Map, Message as Msg, Oneof, Str, Uint64};

pub static ENUMS: &[Enum] = &[Enum {
    name: "DataType",
    doc: "`MILSpec.DataType`.",
    values: &[
        ("UnusedType", 0, "Unset or invalid."),
        ("Bool", 1, "Boolean (text name `bool`)."),
        ("String", 2, "UTF-8 string (`string`)."),
        ("Float16", 10, "16-bit IEEE float (`fp16`)."),
        ("Float32", 11, "32-bit IEEE float (`fp32`)."),
        ("Float64", 12, "64-bit IEEE float (`fp64`)."),
        ("Bfloat16", 13, "bfloat16 (text name guessed as `bf16`)."),
        ("Int8", 21, "8-bit signed integer (`int8`)."),
        ("Int16", 22, "16-bit signed integer (`int16`)."),
        ("Int32", 23, "32-bit signed integer (`int32`)."),
        ("Int64", 24, "64-bit signed integer (`int64`)."),
        ("Int4", 25, "4-bit signed integer (`int4`; iOS18 or later)."),
        ("Uint8", 31, "8-bit unsigned integer (`uint8`)."),
        ("Uint16", 32, "16-bit unsigned integer (`uint16`)."),
        ("Uint32", 33, "32-bit unsigned integer (`uint32`)."),
        ("Uint64", 34, "64-bit unsigned integer (`uint64`)."),
        (
            "Uint4",
            35,
            "4-bit unsigned integer (`uint4`; iOS18 or later).",
        ),
        (
            "Uint2",
            36,
            "2-bit unsigned integer (`uint2`; iOS18 or later).",
        ),
        (
            "Uint1",
            37,
            "1-bit unsigned integer (`uint1`; iOS18 or later).",
        ),
        (
            "Uint6",
            38,
            "6-bit unsigned integer (`uint6`; iOS18 or later).",
        ),
        (
            "Uint3",
            39,
            "3-bit unsigned integer (`uint3`; iOS18 or later).",
        ),
        (
            "Float8e4m3fn",
            40,
            "8-bit float, 4 exponent and 3 mantissa bits, finite only (iOS18 or later).",
        ),
        (
            "Float8e5m2",
            41,
            "8-bit float, 5 exponent and 2 mantissa bits (iOS18 or later).",
        ),
    ],
}];

pub static MESSAGES: &[Message] = &[
    Message {
        outline: Some("[`Program`] with [`FunctionOutline`]s."),
        ..message(
            "Program",
            "`MILSpec.Program`.",
            &[
                field(
                    "version",
                    1,
                    Int64,
                    "MIL proto version; coremltools writes 1 and rejects anything else.",
                ),
                field(
                    "functions",
                    2,
                    Map("Function"),
                    "Function name (`main` for single-function models) → function.",
                ),
                in_outline(
                    field(
                        "doc_string",
                        3,
                        Str,
                        "Free-text documentation; empty when none.",
                    ),
                    Outline::Skipped,
                ),
                field(
                    "attributes",
                    4,
                    Map("Value"),
                    "Program attributes, e.g. `buildInfo` (a string → string dictionary); empty \
                     when none.",
                ),
            ],
        )
    },
    Message {
        outline: Some(
            "[`Function`] with [`BlockOutline`]s, its other parts as [`zero_copy`] messages.",
        ),
        ..message(
            "Function",
            "`MILSpec.Function`.",
            &[
                repeated(
                    "inputs",
                    1,
                    Msg("NamedValueType"),
                    "Function parameters in declaration order, state inputs included.",
                ),
                in_outline(
                    field(
                        "opset",
                        2,
                        Str,
                        "Opset name, e.g. `CoreML8`; a key of `block_specializations`.",
                    ),
                    Outline::Owned,
                ),
                field(
                    "block_specializations",
                    3,
                    Map("Block"),
                    "Opset name → body; coremltools writes one entry, keyed by `opset`.",
                ),
                field(
                    "attributes",
                    4,
                    Map("Value"),
                    "Function attributes; coremltools writes none.",
                ),
            ],
        )
    },
    Message {
        outline: Some(
            "[`Block`] whose operations are each one undecoded `Operation` message, its other \
             parts as [`zero_copy`] messages.",
        ),
        ..message(
            "Block",
            "`MILSpec.Block`.",
            &[
                repeated(
                    "inputs",
                    1,
                    Msg("NamedValueType"),
                    "Block-local parameters (`while_loop` bodies); empty for a function's body.",
                ),
                repeated(
                    "outputs",
                    2,
                    Str,
                    "Names of the values the block returns, in order.",
                ),
                in_outline(
                    repeated(
                        "operations",
                        3,
                        Msg("Operation"),
                        "Operations in topological (program) order.",
                    ),
                    Outline::Undecoded,
                ),
                field(
                    "attributes",
                    4,
                    Map("Value"),
                    "Block attributes; usually empty.",
                ),
            ],
        )
    },
    message(
        "Operation",
        "`MILSpec.Operation`.",
        &[
            field("type", 1, Str, "Op name, e.g. `slice_update`, `const`."),
            field(
                "inputs",
                2,
                Map("Argument"),
                "Parameter name → bindings; optional parameters left out are absent.",
            ),
            repeated(
                "outputs",
                3,
                Msg("NamedValueType"),
                "Results in order; empty for ops such as `write_state`.",
            ),
            repeated(
                "blocks",
                4,
                Msg("Block"),
                "Nested blocks: `cond` has [true, false], `while_loop` [cond, body]; empty \
                 otherwise.",
            ),
            field(
                "attributes",
                5,
                Map("Value"),
                "Attributes: always `name`; `val` for a `const`; every parameter of an iOS16/17 \
                 `constexpr_*`.",
            ),
        ],
    ),
    message(
        "Argument",
        "`MILSpec.Argument`: the bindings of one parameter.",
        &[repeated(
            "arguments",
            1,
            Msg("argument::Binding"),
            "Bindings in order; one normally, several for a tuple parameter such as \
             `concat.values`.",
        )],
    ),
    message(
        "argument::Binding",
        "`Argument.Binding`: a value name or an inline value.",
        &[field(
            "binding",
            0,
            Oneof(
                "Binding",
                &[
                    member("Name", 1, Str, "Name of a previously defined value."),
                    member("Value", 2, Msg("Value"), "An inline constant."),
                ],
            ),
            "What is bound; `None` when unset (invalid).",
        )],
    ),
    message(
        "NamedValueType",
        "`MILSpec.NamedValueType`.",
        &[
            field("name", 1, Str, "Value name, unique within the function."),
            field(
                "type",
                2,
                Msg("ValueType"),
                "Its type; `None` when unset (invalid).",
            ),
        ],
    ),
    message(
        "ValueType",
        "`MILSpec.ValueType`.",
        &[field(
            "type",
            0,
            Oneof(
                "Type",
                &[
                    member(
                        "TensorType",
                        1,
                        Msg("TensorType"),
                        "A tensor (scalars are rank-0 tensors).",
                    ),
                    member(
                        "ListType",
                        2,
                        Msg("ListType"),
                        "A list of values of one type.",
                    ),
                    member(
                        "TupleType",
                        3,
                        Msg("TupleType"),
                        "A tuple of values of given types.",
                    ),
                    member("DictionaryType", 4, Msg("DictionaryType"), "A dictionary."),
                    member(
                        "StateType",
                        5,
                        Msg("StateType"),
                        "A state wrapping a value (a tensor in practice; iOS18 or later).",
                    ),
                ],
            ),
            "Which kind of type; `None` when unset (invalid).",
        )],
    ),
    message(
        "TensorType",
        "`MILSpec.TensorType`.",
        &[
            field(
                "data_type",
                1,
                Ty::Enum("DataType"),
                "A [`DataType`] number; unknown numbers are kept.",
            ),
            field("rank", 2, Int64, "−1 = unknown rank, 0 = scalar."),
            repeated(
                "dimensions",
                3,
                Msg("Dimension"),
                "One entry per dim, outermost first; length = `rank` (empty for scalars and \
                 unknown rank).",
            ),
            field(
                "attributes",
                4,
                Map("Value"),
                "Tensor type attributes; usually empty.",
            ),
        ],
    ),
    message(
        "TupleType",
        "`MILSpec.TupleType`.",
        &[repeated(
            "types",
            1,
            Msg("ValueType"),
            "Element types, in order.",
        )],
    ),
    message(
        "ListType",
        "`MILSpec.ListType`.",
        &[
            boxed(
                "type",
                1,
                Msg("ValueType"),
                "Element type; `None` when unset.",
            ),
            field(
                "length",
                2,
                Msg("Dimension"),
                "Length of the list; `None` when unset.",
            ),
        ],
    ),
    message(
        "DictionaryType",
        "`MILSpec.DictionaryType`.",
        &[
            boxed(
                "key_type",
                1,
                Msg("ValueType"),
                "Type of the keys; `None` when unset.",
            ),
            boxed(
                "value_type",
                2,
                Msg("ValueType"),
                "Type of the values; `None` when unset.",
            ),
        ],
    ),
    message(
        "StateType",
        "`MILSpec.StateType`.",
        &[boxed(
            "wrapped_type",
            1,
            Msg("ValueType"),
            "The type the state holds (a tensor in practice); `None` when unset (invalid).",
        )],
    ),
    message(
        "Dimension",
        "`MILSpec.Dimension`.",
        &[field(
            "dimension",
            0,
            Oneof(
                "Dimension",
                &[
                    member(
                        "Constant",
                        1,
                        Msg("dimension::ConstantDimension"),
                        "A dim of known size.",
                    ),
                    member(
                        "Unknown",
                        2,
                        Msg("dimension::UnknownDimension"),
                        "A dim (or number of dims) not known statically.",
                    ),
                ],
            ),
            "Known size or unknown; `None` when unset (invalid).",
        )],
    ),
    message(
        "dimension::ConstantDimension",
        "`Dimension.ConstantDimension`.",
        &[field("size", 1, Uint64, "Size of the dim, in elements.")],
    ),
    message(
        "dimension::UnknownDimension",
        "`Dimension.UnknownDimension`: `variadic` = an unknown number of dimensions.",
        &[field(
            "variadic",
            1,
            Bool,
            "False: one dim of unknown size; true: an unknown number of dims.",
        )],
    ),
    message(
        "Value",
        "`MILSpec.Value`: a typed constant, immediate or file-backed.",
        &[
            field(
                "doc_string",
                1,
                Str,
                "Free-text documentation; empty when none.",
            ),
            field(
                "type",
                2,
                Msg("ValueType"),
                "The value's type (for blobs: dtype and dims); `None` when unset.",
            ),
            field(
                "value",
                0,
                Oneof(
                    "Value",
                    &[
                        member(
                            "ImmediateValue",
                            3,
                            Msg("ImmediateValue"),
                            "Data inline in the protobuf (tag 3).",
                        ),
                        member(
                            "BlobFileValue",
                            5,
                            Msg("BlobFileValue"),
                            "Data in a weight file (tag 5).",
                        ),
                    ],
                ),
                "Where the data is; `None` when unset (invalid). Tag 4 is unused.",
            ),
        ],
    ),
    message(
        "ImmediateValue",
        "`MILSpec.Value.ImmediateValue`.",
        &[field(
            "value",
            0,
            Oneof(
                "Value",
                &[
                    member("Tensor", 1, Msg("TensorValue"), "A tensor (or scalar)."),
                    member("Tuple", 2, Msg("TupleValue"), "A tuple of values."),
                    member("List", 3, Msg("ListValue"), "A list of values."),
                    member(
                        "Dictionary",
                        4,
                        Msg("DictionaryValue"),
                        "A dictionary of key/value pairs.",
                    ),
                ],
            ),
            "The data; `None` when unset (invalid).",
        )],
    ),
    message(
        "BlobFileValue",
        "`MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.",
        &[
            field(
                "file_name",
                1,
                Str,
                "Weight file path, e.g. `@model_path/weights/weight.bin`.",
            ),
            field(
                "offset",
                2,
                Uint64,
                "Byte offset in the file of the blob's metadata record (not of the payload).",
            ),
        ],
    ),
    message(
        "TensorValue",
        "`MILSpec.TensorValue`: row-major elements in one of seven encodings.",
        &[field(
            "value",
            0,
            Oneof(
                "Value",
                &[
                    member(
                        "Floats",
                        1,
                        Msg("tensor_value::RepeatedFloats"),
                        "fp32 elements.",
                    ),
                    member(
                        "Ints",
                        2,
                        Msg("tensor_value::RepeatedInts"),
                        "int16, uint16 or int32 elements (int8/uint8 from coremltools before 7.0).",
                    ),
                    member(
                        "Bools",
                        3,
                        Msg("tensor_value::RepeatedBools"),
                        "bool elements.",
                    ),
                    member(
                        "Strings",
                        4,
                        Msg("tensor_value::RepeatedStrings"),
                        "string elements.",
                    ),
                    member(
                        "LongInts",
                        5,
                        Msg("tensor_value::RepeatedLongInts"),
                        "int64 or uint64 elements.",
                    ),
                    member(
                        "Doubles",
                        6,
                        Msg("tensor_value::RepeatedDoubles"),
                        "fp64 elements.",
                    ),
                    member(
                        "Bytes",
                        7,
                        Msg("tensor_value::RepeatedBytes"),
                        "fp16, 8-bit, uint32 and sub-byte elements as raw bytes.",
                    ),
                ],
            ),
            "The elements; `None` when unset (invalid).",
        )],
    ),
    message(
        "tensor_value::RepeatedFloats",
        "`TensorValue.RepeatedFloats`.",
        &[repeated("values", 1, Float, "Elements, row-major.")],
    ),
    message(
        "tensor_value::RepeatedDoubles",
        "`TensorValue.RepeatedDoubles`.",
        &[repeated("values", 1, Double, "Elements, row-major.")],
    ),
    message(
        "tensor_value::RepeatedInts",
        "`TensorValue.RepeatedInts`.",
        &[repeated(
            "values",
            1,
            Int32,
            "Elements, row-major, widened to `i32` (int16/uint16/int32; int8/uint8 from old \
             writers).",
        )],
    ),
    message(
        "tensor_value::RepeatedLongInts",
        "`TensorValue.RepeatedLongInts`.",
        &[repeated(
            "values",
            1,
            Int64,
            "Elements, row-major (int64, uint64).",
        )],
    ),
    message(
        "tensor_value::RepeatedBools",
        "`TensorValue.RepeatedBools`.",
        &[repeated(
            "values",
            1,
            Bool,
            "Elements, row-major, one `bool` each.",
        )],
    ),
    message(
        "tensor_value::RepeatedStrings",
        "`TensorValue.RepeatedStrings`.",
        &[repeated(
            "values",
            1,
            Str,
            "Elements, row-major, UTF-8 each.",
        )],
    ),
    message(
        "tensor_value::RepeatedBytes",
        "`TensorValue.RepeatedBytes`: a single byte string of little-endian elements.",
        &[field(
            "values",
            1,
            Ty::Bytes,
            "Little-endian element bytes, row-major; sub-byte types packed LSB first.",
        )],
    ),
    message(
        "TupleValue",
        "`MILSpec.TupleValue`.",
        &[repeated("values", 1, Msg("Value"), "Elements, in order.")],
    ),
    message(
        "ListValue",
        "`MILSpec.ListValue`.",
        &[repeated("values", 1, Msg("Value"), "Elements, in order.")],
    ),
    message(
        "DictionaryValue",
        "`MILSpec.DictionaryValue`.",
        &[repeated(
            "values",
            1,
            Msg("dictionary_value::KeyValuePair"),
            "Entries, in file order.",
        )],
    ),
    message(
        "dictionary_value::KeyValuePair",
        "`DictionaryValue.KeyValuePair`.",
        &[
            field("key", 1, Msg("Value"), "The key; `None` when unset."),
            field("value", 2, Msg("Value"), "The value; `None` when unset."),
        ],
    ),
];
