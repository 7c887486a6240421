//! The MIL.proto messages (FORMAT.md §3), rendered by `codegen.rs` from `table.rs`: do not edit;
//! change the table and run `COREML_LINT_BLESS=1 cargo test --lib read::proto::codegen`.
//!
//! Owned messages (what the fixer edits and re-encodes) are at the root; `<Name>Outline` is a
//! message whose top-level operations stay undecoded; [`zero_copy`] holds the views the reader
//! decodes. Enum-typed fields are plain `i32`, so numbers newer than this file are kept.

/// `MILSpec.Program`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Program {
    /// MIL proto version; coremltools writes 1 and rejects anything else.
    #[prost(int64, tag = "1")]
    pub version: i64,
    /// Function name (`main` for single-function models) → function.
    #[prost(btree_map = "string, message", tag = "2")]
    pub functions: ::std::collections::BTreeMap<String, Function>,
    /// Free-text documentation; empty when none.
    #[prost(string, tag = "3")]
    pub doc_string: String,
    /// Program attributes, e.g. `buildInfo` (a string → string dictionary); empty when none.
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: ::std::collections::BTreeMap<String, Value>,
}

/// `MILSpec.Function`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Function {
    /// Function parameters in declaration order, state inputs included.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<NamedValueType>,
    /// Opset name, e.g. `CoreML8`; a key of `block_specializations`.
    #[prost(string, tag = "2")]
    pub opset: String,
    /// Opset name → body; coremltools writes one entry, keyed by `opset`.
    #[prost(btree_map = "string, message", tag = "3")]
    pub block_specializations: ::std::collections::BTreeMap<String, Block>,
    /// Function attributes; coremltools writes none.
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: ::std::collections::BTreeMap<String, Value>,
}

/// `MILSpec.Block`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Block {
    /// Block-local parameters (`while_loop` bodies); empty for a function's body.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<NamedValueType>,
    /// Names of the values the block returns, in order.
    #[prost(string, repeated, tag = "2")]
    pub outputs: Vec<String>,
    /// Operations in topological (program) order.
    #[prost(message, repeated, tag = "3")]
    pub operations: Vec<Operation>,
    /// Block attributes; usually empty.
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: ::std::collections::BTreeMap<String, Value>,
}

/// `MILSpec.Operation`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Operation {
    /// Op name, e.g. `slice_update`, `const`.
    #[prost(string, tag = "1")]
    pub r#type: String,
    /// Parameter name → bindings; optional parameters left out are absent.
    #[prost(btree_map = "string, message", tag = "2")]
    pub inputs: ::std::collections::BTreeMap<String, Argument>,
    /// Results in order; empty for ops such as `write_state`.
    #[prost(message, repeated, tag = "3")]
    pub outputs: Vec<NamedValueType>,
    /// Nested blocks: `cond` has [true, false], `while_loop` [cond, body]; empty otherwise.
    #[prost(message, repeated, tag = "4")]
    pub blocks: Vec<Block>,
    /// Attributes: always `name`; `val` for a `const`; every parameter of an iOS16/17 `constexpr_*`.
    #[prost(btree_map = "string, message", tag = "5")]
    pub attributes: ::std::collections::BTreeMap<String, Value>,
}

/// `MILSpec.Argument`: the bindings of one parameter.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Argument {
    /// Bindings in order; one normally, several for a tuple parameter such as `concat.values`.
    #[prost(message, repeated, tag = "1")]
    pub arguments: Vec<argument::Binding>,
}

/// `MILSpec.NamedValueType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct NamedValueType {
    /// Value name, unique within the function.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its type; `None` when unset (invalid).
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<ValueType>,
}

/// `MILSpec.ValueType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ValueType {
    /// Which kind of type; `None` when unset (invalid).
    #[prost(oneof = "value_type::Type", tags = "1, 2, 3, 4, 5")]
    pub r#type: Option<value_type::Type>,
}

/// `MILSpec.TensorType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TensorType {
    /// A [`DataType`] number; unknown numbers are kept.
    #[prost(enumeration = "DataType", tag = "1")]
    pub data_type: i32,
    /// −1 = unknown rank, 0 = scalar.
    #[prost(int64, tag = "2")]
    pub rank: i64,
    /// One entry per dim, outermost first; length = `rank` (empty for scalars and unknown rank).
    #[prost(message, repeated, tag = "3")]
    pub dimensions: Vec<Dimension>,
    /// Tensor type attributes; usually empty.
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: ::std::collections::BTreeMap<String, Value>,
}

/// `MILSpec.TupleType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TupleType {
    /// Element types, in order.
    #[prost(message, repeated, tag = "1")]
    pub types: Vec<ValueType>,
}

/// `MILSpec.ListType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ListType {
    /// Element type; `None` when unset.
    #[prost(message, optional, boxed, tag = "1")]
    pub r#type: Option<Box<ValueType>>,
    /// Length of the list; `None` when unset.
    #[prost(message, optional, tag = "2")]
    pub length: Option<Dimension>,
}

/// `MILSpec.DictionaryType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct DictionaryType {
    /// Type of the keys; `None` when unset.
    #[prost(message, optional, boxed, tag = "1")]
    pub key_type: Option<Box<ValueType>>,
    /// Type of the values; `None` when unset.
    #[prost(message, optional, boxed, tag = "2")]
    pub value_type: Option<Box<ValueType>>,
}

/// `MILSpec.StateType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct StateType {
    /// The type the state holds (a tensor in practice); `None` when unset (invalid).
    #[prost(message, optional, boxed, tag = "1")]
    pub wrapped_type: Option<Box<ValueType>>,
}

/// `MILSpec.Dimension`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Dimension {
    /// Known size or unknown; `None` when unset (invalid).
    #[prost(oneof = "dimension::Dimension", tags = "1, 2")]
    pub dimension: Option<dimension::Dimension>,
}

/// `MILSpec.Value`: a typed constant, immediate or file-backed.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Value {
    /// Free-text documentation; empty when none.
    #[prost(string, tag = "1")]
    pub doc_string: String,
    /// The value's type (for blobs: dtype and dims); `None` when unset.
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<ValueType>,
    /// Where the data is; `None` when unset (invalid). Tag 4 is unused.
    #[prost(oneof = "value::Value", tags = "3, 5")]
    pub value: Option<value::Value>,
}

/// `MILSpec.Value.ImmediateValue`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ImmediateValue {
    /// The data; `None` when unset (invalid).
    #[prost(oneof = "immediate_value::Value", tags = "1, 2, 3, 4")]
    pub value: Option<immediate_value::Value>,
}

/// `MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct BlobFileValue {
    /// Weight file path, e.g. `@model_path/weights/weight.bin`.
    #[prost(string, tag = "1")]
    pub file_name: String,
    /// Byte offset in the file of the blob's metadata record (not of the payload).
    #[prost(uint64, tag = "2")]
    pub offset: u64,
}

/// `MILSpec.TensorValue`: row-major elements in one of seven encodings.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TensorValue {
    /// The elements; `None` when unset (invalid).
    #[prost(oneof = "tensor_value::Value", tags = "1, 2, 3, 4, 5, 6, 7")]
    pub value: Option<tensor_value::Value>,
}

/// `MILSpec.TupleValue`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct TupleValue {
    /// Elements, in order.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<Value>,
}

/// `MILSpec.ListValue`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ListValue {
    /// Elements, in order.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<Value>,
}

/// `MILSpec.DictionaryValue`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct DictionaryValue {
    /// Entries, in file order.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<dictionary_value::KeyValuePair>,
}

/// Nested types of [`Argument`].
pub mod argument {
    /// `Argument.Binding`: a value name or an inline value.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Binding {
        /// What is bound; `None` when unset (invalid).
        #[prost(oneof = "binding::Binding", tags = "1, 2")]
        pub binding: Option<binding::Binding>,
    }

    /// Nested types of [`Binding`].
    pub mod binding {
        /// `Binding.binding`.
        #[derive(Clone, PartialEq, ::prost::Oneof)]
        pub enum Binding {
            /// Name of a previously defined value.
            #[prost(string, tag = "1")]
            Name(String),
            /// An inline constant.
            #[prost(message, tag = "2")]
            Value(super::super::Value),
        }
    }
}

/// Nested types of [`DictionaryValue`].
pub mod dictionary_value {
    /// `DictionaryValue.KeyValuePair`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct KeyValuePair {
        /// The key; `None` when unset.
        #[prost(message, optional, tag = "1")]
        pub key: Option<super::Value>,
        /// The value; `None` when unset.
        #[prost(message, optional, tag = "2")]
        pub value: Option<super::Value>,
    }
}

/// Nested types of [`Dimension`].
pub mod dimension {
    /// `Dimension.ConstantDimension`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ConstantDimension {
        /// Size of the dim, in elements.
        #[prost(uint64, tag = "1")]
        pub size: u64,
    }

    /// `Dimension.UnknownDimension`: `variadic` = an unknown number of dimensions.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct UnknownDimension {
        /// False: one dim of unknown size; true: an unknown number of dims.
        #[prost(bool, tag = "1")]
        pub variadic: bool,
    }

    /// `Dimension.dimension`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Dimension {
        /// A dim of known size.
        #[prost(message, tag = "1")]
        Constant(super::dimension::ConstantDimension),
        /// A dim (or number of dims) not known statically.
        #[prost(message, tag = "2")]
        Unknown(super::dimension::UnknownDimension),
    }
}

/// Nested types of [`ImmediateValue`].
pub mod immediate_value {
    /// `ImmediateValue.value`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Value {
        /// A tensor (or scalar).
        #[prost(message, tag = "1")]
        Tensor(super::TensorValue),
        /// A tuple of values.
        #[prost(message, tag = "2")]
        Tuple(super::TupleValue),
        /// A list of values.
        #[prost(message, tag = "3")]
        List(super::ListValue),
        /// A dictionary of key/value pairs.
        #[prost(message, tag = "4")]
        Dictionary(super::DictionaryValue),
    }
}

/// Nested types of [`TensorValue`].
pub mod tensor_value {
    /// `TensorValue.RepeatedFloats`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct RepeatedFloats {
        /// Elements, row-major.
        #[prost(float, repeated, tag = "1")]
        pub values: Vec<f32>,
    }

    /// `TensorValue.RepeatedDoubles`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct RepeatedDoubles {
        /// Elements, row-major.
        #[prost(double, repeated, tag = "1")]
        pub values: Vec<f64>,
    }

    /// `TensorValue.RepeatedInts`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct RepeatedInts {
        /// Elements, row-major, widened to `i32` (int16/uint16/int32; int8/uint8 from old writers).
        #[prost(int32, repeated, tag = "1")]
        pub values: Vec<i32>,
    }

    /// `TensorValue.RepeatedLongInts`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct RepeatedLongInts {
        /// Elements, row-major (int64, uint64).
        #[prost(int64, repeated, tag = "1")]
        pub values: Vec<i64>,
    }

    /// `TensorValue.RepeatedBools`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct RepeatedBools {
        /// Elements, row-major, one `bool` each.
        #[prost(bool, repeated, tag = "1")]
        pub values: Vec<bool>,
    }

    /// `TensorValue.RepeatedStrings`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct RepeatedStrings {
        /// Elements, row-major, UTF-8 each.
        #[prost(string, repeated, tag = "1")]
        pub values: Vec<String>,
    }

    /// `TensorValue.RepeatedBytes`: a single byte string of little-endian elements.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct RepeatedBytes {
        /// Little-endian element bytes, row-major; sub-byte types packed LSB first.
        #[prost(bytes = "vec", tag = "1")]
        pub values: Vec<u8>,
    }

    /// `TensorValue.value`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Value {
        /// fp32 elements.
        #[prost(message, tag = "1")]
        Floats(super::tensor_value::RepeatedFloats),
        /// int16, uint16 or int32 elements (int8/uint8 from coremltools before 7.0).
        #[prost(message, tag = "2")]
        Ints(super::tensor_value::RepeatedInts),
        /// bool elements.
        #[prost(message, tag = "3")]
        Bools(super::tensor_value::RepeatedBools),
        /// string elements.
        #[prost(message, tag = "4")]
        Strings(super::tensor_value::RepeatedStrings),
        /// int64 or uint64 elements.
        #[prost(message, tag = "5")]
        LongInts(super::tensor_value::RepeatedLongInts),
        /// fp64 elements.
        #[prost(message, tag = "6")]
        Doubles(super::tensor_value::RepeatedDoubles),
        /// fp16, 8-bit, uint32 and sub-byte elements as raw bytes.
        #[prost(message, tag = "7")]
        Bytes(super::tensor_value::RepeatedBytes),
    }
}

/// Nested types of [`Value`].
pub mod value {
    /// `Value.value`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Value {
        /// Data inline in the protobuf (tag 3).
        #[prost(message, tag = "3")]
        ImmediateValue(super::ImmediateValue),
        /// Data in a weight file (tag 5).
        #[prost(message, tag = "5")]
        BlobFileValue(super::BlobFileValue),
    }
}

/// Nested types of [`ValueType`].
pub mod value_type {
    /// `ValueType.type`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Type {
        /// A tensor (scalars are rank-0 tensors).
        #[prost(message, tag = "1")]
        TensorType(super::TensorType),
        /// A list of values of one type.
        #[prost(message, tag = "2")]
        ListType(super::ListType),
        /// A tuple of values of given types.
        #[prost(message, tag = "3")]
        TupleType(super::TupleType),
        /// A dictionary.
        #[prost(message, tag = "4")]
        DictionaryType(super::DictionaryType),
        /// A state wrapping a value (a tensor in practice; iOS18 or later).
        #[prost(message, tag = "5")]
        StateType(super::StateType),
    }
}

/// `MILSpec.DataType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum DataType {
    /// Unset or invalid.
    UnusedType = 0,
    /// Boolean (text name `bool`).
    Bool = 1,
    /// UTF-8 string (`string`).
    String = 2,
    /// 16-bit IEEE float (`fp16`).
    Float16 = 10,
    /// 32-bit IEEE float (`fp32`).
    Float32 = 11,
    /// 64-bit IEEE float (`fp64`).
    Float64 = 12,
    /// bfloat16 (text name guessed as `bf16`).
    Bfloat16 = 13,
    /// 8-bit signed integer (`int8`).
    Int8 = 21,
    /// 16-bit signed integer (`int16`).
    Int16 = 22,
    /// 32-bit signed integer (`int32`).
    Int32 = 23,
    /// 64-bit signed integer (`int64`).
    Int64 = 24,
    /// 4-bit signed integer (`int4`; iOS18 or later).
    Int4 = 25,
    /// 8-bit unsigned integer (`uint8`).
    Uint8 = 31,
    /// 16-bit unsigned integer (`uint16`).
    Uint16 = 32,
    /// 32-bit unsigned integer (`uint32`).
    Uint32 = 33,
    /// 64-bit unsigned integer (`uint64`).
    Uint64 = 34,
    /// 4-bit unsigned integer (`uint4`; iOS18 or later).
    Uint4 = 35,
    /// 2-bit unsigned integer (`uint2`; iOS18 or later).
    Uint2 = 36,
    /// 1-bit unsigned integer (`uint1`; iOS18 or later).
    Uint1 = 37,
    /// 6-bit unsigned integer (`uint6`; iOS18 or later).
    Uint6 = 38,
    /// 3-bit unsigned integer (`uint3`; iOS18 or later).
    Uint3 = 39,
    /// 8-bit float, 4 exponent and 3 mantissa bits, finite only (iOS18 or later).
    Float8e4m3fn = 40,
    /// 8-bit float, 5 exponent and 2 mantissa bits (iOS18 or later).
    Float8e5m2 = 41,
}

/// [`Program`] with [`FunctionOutline`]s.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ProgramOutline {
    /// MIL proto version; coremltools writes 1 and rejects anything else.
    #[prost(int64, tag = "1")]
    pub version: i64,
    /// Function name (`main` for single-function models) → function.
    #[prost(btree_map = "string, message", tag = "2")]
    pub functions: ::std::collections::BTreeMap<String, FunctionOutline>,
    /// Program attributes, e.g. `buildInfo` (a string → string dictionary); empty when none.
    #[prost(message, repeated, tag = "4")]
    pub attributes: Vec<zero_copy::ValueEntry>,
}

/// [`Function`] with [`BlockOutline`]s, its other parts as [`zero_copy`] messages.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct FunctionOutline {
    /// Function parameters in declaration order, state inputs included.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<zero_copy::NamedValueType>,
    /// Opset name, e.g. `CoreML8`; a key of `block_specializations`.
    #[prost(string, tag = "2")]
    pub opset: String,
    /// Opset name → body; coremltools writes one entry, keyed by `opset`.
    #[prost(btree_map = "string, message", tag = "3")]
    pub block_specializations: ::std::collections::BTreeMap<String, BlockOutline>,
    /// Function attributes; coremltools writes none.
    #[prost(message, repeated, tag = "4")]
    pub attributes: Vec<zero_copy::ValueEntry>,
}

/// [`Block`] whose operations are each one undecoded `Operation` message, its other parts as [`zero_copy`] messages.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct BlockOutline {
    /// Block-local parameters (`while_loop` bodies); empty for a function's body.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<zero_copy::NamedValueType>,
    /// Names of the values the block returns, in order.
    #[prost(bytes = "bytes", repeated, tag = "2")]
    pub outputs: Vec<::prost::bytes::Bytes>,
    /// Operations in topological (program) order. Each one's undecoded bytes.
    #[prost(bytes = "bytes", repeated, tag = "3")]
    pub operations: Vec<::prost::bytes::Bytes>,
    /// Block attributes; usually empty.
    #[prost(message, repeated, tag = "4")]
    pub attributes: Vec<zero_copy::ValueEntry>,
}

/// The messages of an operation as the reader decodes them: strings as unchecked bytes,
/// maps as their entries in file order, everything borrowed from the file's buffer.
pub mod zero_copy {
    pub use super::Dimension;
    pub use super::dimension;

    /// `MILSpec.Block`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Block {
        /// Block-local parameters (`while_loop` bodies); empty for a function's body.
        #[prost(message, repeated, tag = "1")]
        pub inputs: Vec<NamedValueType>,
        /// Names of the values the block returns, in order.
        #[prost(bytes = "bytes", repeated, tag = "2")]
        pub outputs: Vec<::prost::bytes::Bytes>,
        /// Operations in topological (program) order.
        #[prost(message, repeated, tag = "3")]
        pub operations: Vec<Operation>,
        /// Block attributes; usually empty.
        #[prost(message, repeated, tag = "4")]
        pub attributes: Vec<ValueEntry>,
    }

    /// `MILSpec.Operation`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Operation {
        /// Op name, e.g. `slice_update`, `const`.
        #[prost(bytes = "bytes", tag = "1")]
        pub r#type: ::prost::bytes::Bytes,
        /// Parameter name → bindings; optional parameters left out are absent.
        #[prost(message, repeated, tag = "2")]
        pub inputs: Vec<ArgumentEntry>,
        /// Results in order; empty for ops such as `write_state`.
        #[prost(message, repeated, tag = "3")]
        pub outputs: Vec<NamedValueType>,
        /// Nested blocks: `cond` has [true, false], `while_loop` [cond, body]; empty otherwise.
        #[prost(message, repeated, tag = "4")]
        pub blocks: Vec<Block>,
        /// Attributes: always `name`; `val` for a `const`; every parameter of an iOS16/17 `constexpr_*`.
        #[prost(message, repeated, tag = "5")]
        pub attributes: Vec<ValueEntry>,
    }

    /// `MILSpec.Argument`: the bindings of one parameter.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Argument {
        /// Bindings in order; one normally, several for a tuple parameter such as `concat.values`.
        #[prost(message, repeated, tag = "1")]
        pub arguments: Vec<argument::Binding>,
    }

    /// `MILSpec.NamedValueType`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct NamedValueType {
        /// Value name, unique within the function.
        #[prost(bytes = "bytes", tag = "1")]
        pub name: ::prost::bytes::Bytes,
        /// Its type; `None` when unset (invalid).
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<ValueType>,
    }

    /// `MILSpec.ValueType`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ValueType {
        /// Which kind of type; `None` when unset (invalid).
        #[prost(oneof = "value_type::Type", tags = "1, 2, 3, 4, 5")]
        pub r#type: Option<value_type::Type>,
    }

    /// `MILSpec.TensorType`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct TensorType {
        /// A [`DataType`] number; unknown numbers are kept.
        #[prost(int32, tag = "1")]
        pub data_type: i32,
        /// −1 = unknown rank, 0 = scalar.
        #[prost(int64, tag = "2")]
        pub rank: i64,
        /// One entry per dim, outermost first; length = `rank` (empty for scalars and unknown rank).
        #[prost(message, repeated, tag = "3")]
        pub dimensions: Vec<Dimension>,
        /// Tensor type attributes; usually empty.
        #[prost(message, repeated, tag = "4")]
        pub attributes: Vec<ValueEntry>,
    }

    /// `MILSpec.TupleType`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct TupleType {
        /// Element types, in order.
        #[prost(message, repeated, tag = "1")]
        pub types: Vec<ValueType>,
    }

    /// `MILSpec.ListType`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ListType {
        /// Element type; `None` when unset.
        #[prost(message, optional, boxed, tag = "1")]
        pub r#type: Option<Box<ValueType>>,
        /// Length of the list; `None` when unset.
        #[prost(message, optional, tag = "2")]
        pub length: Option<Dimension>,
    }

    /// `MILSpec.DictionaryType`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct DictionaryType {
        /// Type of the keys; `None` when unset.
        #[prost(message, optional, boxed, tag = "1")]
        pub key_type: Option<Box<ValueType>>,
        /// Type of the values; `None` when unset.
        #[prost(message, optional, boxed, tag = "2")]
        pub value_type: Option<Box<ValueType>>,
    }

    /// `MILSpec.StateType`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct StateType {
        /// The type the state holds (a tensor in practice); `None` when unset (invalid).
        #[prost(message, optional, boxed, tag = "1")]
        pub wrapped_type: Option<Box<ValueType>>,
    }

    /// `MILSpec.Value`: a typed constant, immediate or file-backed.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Value {
        /// Free-text documentation; empty when none.
        #[prost(bytes = "bytes", tag = "1")]
        pub doc_string: ::prost::bytes::Bytes,
        /// The value's type (for blobs: dtype and dims); `None` when unset.
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<ValueType>,
        /// Where the data is; `None` when unset (invalid). Tag 4 is unused.
        #[prost(oneof = "value::Value", tags = "3, 5")]
        pub value: Option<value::Value>,
    }

    /// `MILSpec.Value.ImmediateValue`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ImmediateValue {
        /// The data; `None` when unset (invalid).
        #[prost(oneof = "immediate_value::Value", tags = "1, 2, 3, 4")]
        pub value: Option<immediate_value::Value>,
    }

    /// `MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct BlobFileValue {
        /// Weight file path, e.g. `@model_path/weights/weight.bin`.
        #[prost(bytes = "bytes", tag = "1")]
        pub file_name: ::prost::bytes::Bytes,
        /// Byte offset in the file of the blob's metadata record (not of the payload).
        #[prost(uint64, tag = "2")]
        pub offset: u64,
    }

    /// `MILSpec.TensorValue`: row-major elements in one of seven encodings.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct TensorValue {
        /// The elements; `None` when unset (invalid).
        #[prost(oneof = "tensor_value::Value", tags = "1, 2, 3, 4, 5, 6, 7")]
        pub value: Option<tensor_value::Value>,
    }

    /// `MILSpec.TupleValue`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct TupleValue {
        /// Elements, in order.
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<Value>,
    }

    /// `MILSpec.ListValue`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ListValue {
        /// Elements, in order.
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<Value>,
    }

    /// `MILSpec.DictionaryValue`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct DictionaryValue {
        /// Entries, in file order.
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<dictionary_value::KeyValuePair>,
    }

    /// Nested types of [`Argument`].
    pub mod argument {
        /// `Argument.Binding`: a value name or an inline value.
        #[derive(Clone, PartialEq, ::prost::Message)]
        pub struct Binding {
            /// What is bound; `None` when unset (invalid).
            #[prost(oneof = "binding::Binding", tags = "1, 2")]
            pub binding: Option<binding::Binding>,
        }

        /// Nested types of [`Binding`].
        pub mod binding {
            /// `Binding.binding`.
            #[derive(Clone, PartialEq, ::prost::Oneof)]
            pub enum Binding {
                /// Name of a previously defined value.
                #[prost(bytes = "bytes", tag = "1")]
                Name(::prost::bytes::Bytes),
                /// An inline constant.
                #[prost(message, tag = "2")]
                Value(super::super::Value),
            }
        }
    }

    /// Nested types of [`DictionaryValue`].
    pub mod dictionary_value {
        /// `DictionaryValue.KeyValuePair`.
        #[derive(Clone, PartialEq, ::prost::Message)]
        pub struct KeyValuePair {
            /// The key; `None` when unset.
            #[prost(message, optional, tag = "1")]
            pub key: Option<super::Value>,
            /// The value; `None` when unset.
            #[prost(message, optional, tag = "2")]
            pub value: Option<super::Value>,
        }
    }

    /// Nested types of [`ImmediateValue`].
    pub mod immediate_value {
        /// `ImmediateValue.value`.
        #[derive(Clone, PartialEq, ::prost::Oneof)]
        pub enum Value {
            /// A tensor (or scalar).
            #[prost(message, tag = "1")]
            Tensor(super::TensorValue),
            /// A tuple of values.
            #[prost(message, tag = "2")]
            Tuple(super::TupleValue),
            /// A list of values.
            #[prost(message, tag = "3")]
            List(super::ListValue),
            /// A dictionary of key/value pairs.
            #[prost(message, tag = "4")]
            Dictionary(super::DictionaryValue),
        }
    }

    /// Nested types of [`TensorValue`].
    pub mod tensor_value {
        pub use super::super::tensor_value::RepeatedFloats;
        pub use super::super::tensor_value::RepeatedDoubles;
        pub use super::super::tensor_value::RepeatedInts;
        pub use super::super::tensor_value::RepeatedLongInts;
        pub use super::super::tensor_value::RepeatedBools;

        /// `TensorValue.RepeatedStrings`.
        #[derive(Clone, PartialEq, ::prost::Message)]
        pub struct RepeatedStrings {
            /// Elements, row-major, UTF-8 each.
            #[prost(bytes = "bytes", repeated, tag = "1")]
            pub values: Vec<::prost::bytes::Bytes>,
        }

        /// `TensorValue.RepeatedBytes`: a single byte string of little-endian elements.
        #[derive(Clone, PartialEq, ::prost::Message)]
        pub struct RepeatedBytes {
            /// Little-endian element bytes, row-major; sub-byte types packed LSB first.
            #[prost(bytes = "bytes", tag = "1")]
            pub values: ::prost::bytes::Bytes,
        }

        /// `TensorValue.value`.
        #[derive(Clone, PartialEq, ::prost::Oneof)]
        pub enum Value {
            /// fp32 elements.
            #[prost(message, tag = "1")]
            Floats(super::tensor_value::RepeatedFloats),
            /// int16, uint16 or int32 elements (int8/uint8 from coremltools before 7.0).
            #[prost(message, tag = "2")]
            Ints(super::tensor_value::RepeatedInts),
            /// bool elements.
            #[prost(message, tag = "3")]
            Bools(super::tensor_value::RepeatedBools),
            /// string elements.
            #[prost(message, tag = "4")]
            Strings(super::tensor_value::RepeatedStrings),
            /// int64 or uint64 elements.
            #[prost(message, tag = "5")]
            LongInts(super::tensor_value::RepeatedLongInts),
            /// fp64 elements.
            #[prost(message, tag = "6")]
            Doubles(super::tensor_value::RepeatedDoubles),
            /// fp16, 8-bit, uint32 and sub-byte elements as raw bytes.
            #[prost(message, tag = "7")]
            Bytes(super::tensor_value::RepeatedBytes),
        }
    }

    /// Nested types of [`Value`].
    pub mod value {
        /// `Value.value`.
        #[derive(Clone, PartialEq, ::prost::Oneof)]
        pub enum Value {
            /// Data inline in the protobuf (tag 3).
            #[prost(message, tag = "3")]
            ImmediateValue(super::ImmediateValue),
            /// Data in a weight file (tag 5).
            #[prost(message, tag = "5")]
            BlobFileValue(super::BlobFileValue),
        }
    }

    /// Nested types of [`ValueType`].
    pub mod value_type {
        /// `ValueType.type`.
        #[derive(Clone, PartialEq, ::prost::Oneof)]
        pub enum Type {
            /// A tensor (scalars are rank-0 tensors).
            #[prost(message, tag = "1")]
            TensorType(super::TensorType),
            /// A list of values of one type.
            #[prost(message, tag = "2")]
            ListType(super::ListType),
            /// A tuple of values of given types.
            #[prost(message, tag = "3")]
            TupleType(super::TupleType),
            /// A dictionary.
            #[prost(message, tag = "4")]
            DictionaryType(super::DictionaryType),
            /// A state wrapping a value (a tensor in practice; iOS18 or later).
            #[prost(message, tag = "5")]
            StateType(super::StateType),
        }
    }

    /// One entry of a `map<string, Argument>`, in file order.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ArgumentEntry {
        /// The key, as unchecked bytes.
        #[prost(bytes = "bytes", tag = "1")]
        pub key: ::prost::bytes::Bytes,
        /// The value.
        #[prost(message, required, tag = "2")]
        pub value: Argument,
    }

    /// One entry of a `map<string, Value>`, in file order.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ValueEntry {
        /// The key, as unchecked bytes.
        #[prost(bytes = "bytes", tag = "1")]
        pub key: ::prost::bytes::Bytes,
        /// The value.
        #[prost(message, required, tag = "2")]
        pub value: Value,
    }
}
