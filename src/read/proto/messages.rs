//! The Model.proto and MIL.proto messages (FORMAT.md §2–3), rendered by `codegen.rs` from
//! `table.rs`: do not edit;
//! change the table and run `COREML_LINT_BLESS=1 cargo test --lib read::proto::codegen`.
//!
//! Owned messages (what the fixer edits and re-encodes) are at the root; `<Name>Outline` is a
//! message whose sub-models or top-level operations stay undecoded; [`zero_copy`] holds the
//! views the reader decodes. Field names are the protobuf names in snake case (only the tags
//! matter on the wire); enum-typed fields are plain `i32`, so numbers newer than this file are
//! kept, not rejected.

/// `CoreML.Specification.Model`: one model of some kind plus its interface description.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Model {
    /// Specification version (FORMAT.md §2 table); 0 when unset. ML programs need 6 or more.
    #[prost(int32, tag = "1")]
    pub specification_version: i32,
    /// Interface and metadata; `None` when the file has none.
    #[prost(message, optional, tag = "2")]
    pub description: Option<ModelDescription>,
    /// True when the model is marked updatable (on-device training).
    #[prost(bool, tag = "10")]
    pub is_updatable: bool,
    /// The model kind. Only pipelines, ML programs and serialized models are decoded; every other kind keeps its raw message bytes.
    #[prost(oneof = "model::Type", tags = "200, 201, 202, 300, 301, 302, 303, 304, 400, 401, 402, 403, 404, 500, 501, 502, 555, 556, 560, 600, 601, 602, 603, 604, 606, 607, 609, 610, 900, 2000, 2001, 2002, 2003, 2004, 2005, 2006, 3000")]
    pub r#type: Option<model::Type>,
}

/// `Pipeline`: models run one after another.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Pipeline {
    /// The sub-models, in the order they run.
    #[prost(message, repeated, tag = "1")]
    pub models: Vec<Model>,
    /// Names of the sub-models, parallel to `models`; empty when the pipeline names none.
    #[prost(string, repeated, tag = "2")]
    pub names: Vec<String>,
}

/// `PipelineClassifier` and `PipelineRegressor` as far as coreml-lint reads them: the pipeline in field 1 (the owned `Model` keeps them raw).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct PipelineHolder {
    /// The pipeline; `None` when unset.
    #[prost(message, optional, tag = "1")]
    pub pipeline: Option<Pipeline>,
}

/// `SerializedModel`: an opaque model identified by a string.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct SerializedModel {
    /// Identifier of the serialized model's format or owner.
    #[prost(string, tag = "1")]
    pub identifier: String,
    /// The serialized model's raw bytes, not interpreted.
    #[prost(bytes = "vec", tag = "2")]
    pub model: Vec<u8>,
}

/// `ModelDescription`: inputs, outputs, states, per-function descriptions and metadata.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ModelDescription {
    /// Model-level inputs (single-function form); empty in the multifunction form.
    #[prost(message, repeated, tag = "1")]
    pub input: Vec<FeatureDescription>,
    /// Model-level outputs (single-function form); empty in the multifunction form.
    #[prost(message, repeated, tag = "10")]
    pub output: Vec<FeatureDescription>,
    /// Name of the predicted output of a classifier or regressor; empty when none.
    #[prost(string, tag = "11")]
    pub predicted_feature_name: String,
    /// Name of a classifier's probabilities output; empty when none.
    #[prost(string, tag = "12")]
    pub predicted_probabilities_name: String,
    /// Model-level states (stateType features; spec 9 or more); empty for stateless models.
    #[prost(message, repeated, tag = "13")]
    pub state: Vec<FeatureDescription>,
    /// Per-function interfaces (multifunction form, spec 9 or more); empty in the single-function form.
    #[prost(message, repeated, tag = "20")]
    pub functions: Vec<FunctionDescription>,
    /// Function run when the caller names none; empty when `functions` is empty.
    #[prost(string, tag = "21")]
    pub default_function_name: String,
    /// Inputs used for on-device training (updatable models); empty otherwise.
    #[prost(message, repeated, tag = "50")]
    pub training_input: Vec<FeatureDescription>,
    /// Author, licence, version and user-defined metadata; `None` when absent.
    #[prost(message, optional, tag = "100")]
    pub metadata: Option<Metadata>,
}

/// `FunctionDescription`: the interface of one function of a multifunction model.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct FunctionDescription {
    /// Function name, a key of `Program.functions`.
    #[prost(string, tag = "1")]
    pub name: String,
    /// The function's inputs, in declaration order.
    #[prost(message, repeated, tag = "2")]
    pub input: Vec<FeatureDescription>,
    /// The function's outputs, in declaration order.
    #[prost(message, repeated, tag = "3")]
    pub output: Vec<FeatureDescription>,
    /// Name of the predicted output of a classifier or regressor; empty when none.
    #[prost(string, tag = "4")]
    pub predicted_feature_name: String,
    /// Name of a classifier's probabilities output; empty when none.
    #[prost(string, tag = "5")]
    pub predicted_probabilities_name: String,
    /// The function's states (stateType features only); empty when stateless.
    #[prost(message, repeated, tag = "6")]
    pub state: Vec<FeatureDescription>,
}

/// `FeatureDescription`: a named, typed input, output or state.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct FeatureDescription {
    /// Feature name, as callers pass it.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Free-text description; empty when none.
    #[prost(string, tag = "2")]
    pub short_description: String,
    /// Type of the feature; `None` when missing (invalid).
    #[prost(message, optional, tag = "3")]
    pub r#type: Option<FeatureType>,
}

/// `Metadata`: free-text fields and the user-defined string map.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Metadata {
    /// Free-text description of the model; empty when none.
    #[prost(string, tag = "1")]
    pub short_description: String,
    /// The model's own version, free text; empty when none.
    #[prost(string, tag = "2")]
    pub version_string: String,
    /// Author, free text; empty when none.
    #[prost(string, tag = "3")]
    pub author: String,
    /// Licence, free text; empty when none.
    #[prost(string, tag = "4")]
    pub license: String,
    /// User-defined key → value pairs (coremltools writes `com.github.apple.coremltools.*`).
    #[prost(btree_map = "string, string", tag = "100")]
    pub user_defined: ::std::collections::BTreeMap<String, String>,
}

/// `FeatureType`: the type of a described feature.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct FeatureType {
    /// Which kind of feature; `None` when unset (invalid).
    #[prost(oneof = "feature_type::Type", tags = "1, 2, 3, 4, 5, 6, 7, 8")]
    pub r#type: Option<feature_type::Type>,
    /// True when callers may omit the feature (tag 1000).
    #[prost(bool, tag = "1000")]
    pub is_optional: bool,
}

/// `Int64FeatureType` (empty).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Int64FeatureType {}

/// `DoubleFeatureType` (empty).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct DoubleFeatureType {}

/// `StringFeatureType` (empty).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct StringFeatureType {}

/// `SizeRange`: a closed range; a negative upper bound means unbounded.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct SizeRange {
    /// Smallest allowed size, inclusive.
    #[prost(uint64, tag = "1")]
    pub lower_bound: u64,
    /// Largest allowed size, inclusive; negative means unbounded.
    #[prost(int64, tag = "2")]
    pub upper_bound: i64,
}

/// `ImageFeatureType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ImageFeatureType {
    /// Default width in pixels.
    #[prost(int64, tag = "1")]
    pub width: i64,
    /// Default height in pixels.
    #[prost(int64, tag = "2")]
    pub height: i64,
    /// A [`ColorSpace`] number; 0 is invalid, unknown numbers are kept.
    #[prost(enumeration = "ColorSpace", tag = "3")]
    pub color_space: i32,
    /// Other sizes accepted; `None` when only `width` × `height` is.
    #[prost(oneof = "image_feature_type::SizeFlexibility", tags = "21, 31")]
    pub size_flexibility: Option<image_feature_type::SizeFlexibility>,
}

/// `ArrayFeatureType`: a MultiArray.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ArrayFeatureType {
    /// Fixed or default shape, outermost dim first; empty when none is declared.
    #[prost(int64, repeated, tag = "1")]
    pub shape: Vec<i64>,
    /// An [`ArrayDataType`] number; 0 is invalid, unknown numbers are kept.
    #[prost(enumeration = "ArrayDataType", tag = "2")]
    pub data_type: i32,
    /// Other shapes accepted; `None` when only `shape` is.
    #[prost(oneof = "array_feature_type::ShapeFlexibility", tags = "21, 31")]
    pub shape_flexibility: Option<array_feature_type::ShapeFlexibility>,
    /// Value used when an optional input is omitted; `None` when none is declared.
    #[prost(oneof = "array_feature_type::DefaultOptionalValue", tags = "41, 51, 61")]
    pub default_optional_value: Option<array_feature_type::DefaultOptionalValue>,
}

/// `DictionaryFeatureType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct DictionaryFeatureType {
    /// Type of the keys; `None` when unset (invalid).
    #[prost(oneof = "dictionary_feature_type::KeyType", tags = "1, 2")]
    pub key_type: Option<dictionary_feature_type::KeyType>,
}

/// `SequenceFeatureType`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct SequenceFeatureType {
    /// Type of the elements; `None` when unset.
    #[prost(oneof = "sequence_feature_type::Type", tags = "1, 3")]
    pub r#type: Option<sequence_feature_type::Type>,
    /// Accepted sequence lengths; `None` when unconstrained.
    #[prost(message, optional, tag = "101")]
    pub size_range: Option<SizeRange>,
}

/// `StateFeatureType`: a state wrapping a fixed-shape array.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct StateFeatureType {
    /// The wrapped array; `None` when unset (invalid).
    #[prost(oneof = "state_feature_type::Type", tags = "1")]
    pub r#type: Option<state_feature_type::Type>,
}

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

/// `NonMaximumSuppression` (the bytes of `Model.Type` member 610): the fields that say which features the stage reads and how many class labels it holds (FIELD-HAZARDS-4 G3).
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct NonMaximumSuppression {
    /// `stringClassLabels` (a member of the `ClassLabels` oneof).
    #[prost(message, optional, tag = "100")]
    pub string_class_labels: Option<StringVector>,
    /// `int64ClassLabels` (the other member of `ClassLabels`).
    #[prost(message, optional, tag = "101")]
    pub int64_class_labels: Option<Int64Vector>,
    /// `confidenceInputFeatureName`.
    #[prost(string, tag = "200")]
    pub confidence_input_feature_name: String,
    /// `coordinatesInputFeatureName`.
    #[prost(string, tag = "201")]
    pub coordinates_input_feature_name: String,
}

/// `StringVector`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct StringVector {
    /// The strings, in order.
    #[prost(string, repeated, tag = "1")]
    pub vector: Vec<String>,
}

/// `Int64Vector`.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct Int64Vector {
    /// The numbers, in order.
    #[prost(int64, repeated, tag = "1")]
    pub vector: Vec<i64>,
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

/// Nested types of [`ArrayFeatureType`].
pub mod array_feature_type {
    /// `ArrayFeatureType.Shape`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct Shape {
        /// Dims, outermost first.
        #[prost(int64, repeated, tag = "1")]
        pub shape: Vec<i64>,
    }

    /// `ArrayFeatureType.EnumeratedShapes`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct EnumeratedShapes {
        /// The only shapes accepted.
        #[prost(message, repeated, tag = "1")]
        pub shapes: Vec<super::array_feature_type::Shape>,
    }

    /// `ArrayFeatureType.ShapeRange`: one range per dimension.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ShapeRange {
        /// Accepted sizes, one range per dim, outermost first.
        #[prost(message, repeated, tag = "1")]
        pub size_ranges: Vec<super::SizeRange>,
    }

    /// `ArrayFeatureType.shape_flexibility`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum ShapeFlexibility {
        /// A list of accepted shapes.
        #[prost(message, tag = "21")]
        EnumeratedShapes(super::array_feature_type::EnumeratedShapes),
        /// A range of sizes per dim.
        #[prost(message, tag = "31")]
        ShapeRange(super::array_feature_type::ShapeRange),
    }

    /// `ArrayFeatureType.default_optional_value`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum DefaultOptionalValue {
        /// Integer default (tag 41).
        #[prost(int32, tag = "41")]
        IntDefaultValue(i32),
        /// 32-bit float default (tag 51).
        #[prost(float, tag = "51")]
        FloatDefaultValue(f32),
        /// 64-bit float default (tag 61).
        #[prost(double, tag = "61")]
        DoubleDefaultValue(f64),
    }
}

/// Nested types of [`DictionaryFeatureType`].
pub mod dictionary_feature_type {
    /// `DictionaryFeatureType.key_type`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum KeyType {
        /// Keys are 64-bit integers.
        #[prost(message, tag = "1")]
        Int64KeyType(super::Int64FeatureType),
        /// Keys are strings.
        #[prost(message, tag = "2")]
        StringKeyType(super::StringFeatureType),
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

/// Nested types of [`FeatureType`].
pub mod feature_type {
    /// `FeatureType.type`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Type {
        /// A scalar 64-bit integer.
        #[prost(message, tag = "1")]
        Int64Type(super::Int64FeatureType),
        /// A scalar 64-bit float.
        #[prost(message, tag = "2")]
        DoubleType(super::DoubleFeatureType),
        /// A UTF-8 string.
        #[prost(message, tag = "3")]
        StringType(super::StringFeatureType),
        /// An image.
        #[prost(message, tag = "4")]
        ImageType(super::ImageFeatureType),
        /// A MultiArray (tensor).
        #[prost(message, tag = "5")]
        MultiArrayType(super::ArrayFeatureType),
        /// A dictionary keyed by integers or strings.
        #[prost(message, tag = "6")]
        DictionaryType(super::DictionaryFeatureType),
        /// A sequence of integers or strings.
        #[prost(message, tag = "7")]
        SequenceType(super::SequenceFeatureType),
        /// A state wrapping an array (spec 9 or more).
        #[prost(message, tag = "8")]
        StateType(super::StateFeatureType),
    }
}

/// Nested types of [`ImageFeatureType`].
pub mod image_feature_type {
    /// `ImageFeatureType.ImageSize`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ImageSize {
        /// Width in pixels.
        #[prost(uint64, tag = "1")]
        pub width: u64,
        /// Height in pixels.
        #[prost(uint64, tag = "2")]
        pub height: u64,
    }

    /// `ImageFeatureType.EnumeratedImageSizes`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct EnumeratedImageSizes {
        /// The only sizes accepted.
        #[prost(message, repeated, tag = "1")]
        pub sizes: Vec<super::image_feature_type::ImageSize>,
    }

    /// `ImageFeatureType.ImageSizeRange`.
    #[derive(Clone, PartialEq, ::prost::Message)]
    pub struct ImageSizeRange {
        /// Accepted widths in pixels; `None` when unset.
        #[prost(message, optional, tag = "1")]
        pub width_range: Option<super::SizeRange>,
        /// Accepted heights in pixels; `None` when unset.
        #[prost(message, optional, tag = "2")]
        pub height_range: Option<super::SizeRange>,
    }

    /// `ImageFeatureType.size_flexibility`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum SizeFlexibility {
        /// A list of accepted sizes.
        #[prost(message, tag = "21")]
        EnumeratedSizes(super::image_feature_type::EnumeratedImageSizes),
        /// A range of widths and heights.
        #[prost(message, tag = "31")]
        ImageSizeRange(super::image_feature_type::ImageSizeRange),
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

/// Nested types of [`Model`].
pub mod model {
    /// `Model.type`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Type {
        /// Holds the undecoded message bytes of a pipeline classifier.
        #[prost(bytes = "vec", tag = "200")]
        PipelineClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a pipeline regressor.
        #[prost(bytes = "vec", tag = "201")]
        PipelineRegressor(Vec<u8>),
        /// Holds a pipeline, decoded.
        #[prost(message, tag = "202")]
        Pipeline(super::Pipeline),
        /// Holds the undecoded message bytes of a GLM regressor.
        #[prost(bytes = "vec", tag = "300")]
        GlmRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a support vector regressor.
        #[prost(bytes = "vec", tag = "301")]
        SupportVectorRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a tree ensemble regressor.
        #[prost(bytes = "vec", tag = "302")]
        TreeEnsembleRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a neural network regressor.
        #[prost(bytes = "vec", tag = "303")]
        NeuralNetworkRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a Bayesian probit regressor.
        #[prost(bytes = "vec", tag = "304")]
        BayesianProbitRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a GLM classifier.
        #[prost(bytes = "vec", tag = "400")]
        GlmClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a support vector classifier.
        #[prost(bytes = "vec", tag = "401")]
        SupportVectorClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a tree ensemble classifier.
        #[prost(bytes = "vec", tag = "402")]
        TreeEnsembleClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a neural network classifier.
        #[prost(bytes = "vec", tag = "403")]
        NeuralNetworkClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a k-nearest-neighbors classifier.
        #[prost(bytes = "vec", tag = "404")]
        KNearestNeighborsClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a neural network.
        #[prost(bytes = "vec", tag = "500")]
        NeuralNetwork(Vec<u8>),
        /// Holds the undecoded message bytes of an item similarity recommender.
        #[prost(bytes = "vec", tag = "501")]
        ItemSimilarityRecommender(Vec<u8>),
        /// The ML program (FORMAT.md §3).
        #[prost(message, tag = "502")]
        MlProgram(super::Program),
        /// Holds the undecoded message bytes of a custom model.
        #[prost(bytes = "vec", tag = "555")]
        CustomModel(Vec<u8>),
        /// Holds the undecoded message bytes of a linked model.
        #[prost(bytes = "vec", tag = "556")]
        LinkedModel(Vec<u8>),
        /// Holds the undecoded message bytes of a class confidence thresholding model.
        #[prost(bytes = "vec", tag = "560")]
        ClassConfidenceThresholding(Vec<u8>),
        /// Holds the undecoded message bytes of a one-hot encoder.
        #[prost(bytes = "vec", tag = "600")]
        OneHotEncoder(Vec<u8>),
        /// Holds the undecoded message bytes of an imputer.
        #[prost(bytes = "vec", tag = "601")]
        Imputer(Vec<u8>),
        /// Holds the undecoded message bytes of a feature vectorizer.
        #[prost(bytes = "vec", tag = "602")]
        FeatureVectorizer(Vec<u8>),
        /// Holds the undecoded message bytes of a dictionary vectorizer.
        #[prost(bytes = "vec", tag = "603")]
        DictVectorizer(Vec<u8>),
        /// Holds the undecoded message bytes of a scaler.
        #[prost(bytes = "vec", tag = "604")]
        Scaler(Vec<u8>),
        /// Holds the undecoded message bytes of a categorical mapping.
        #[prost(bytes = "vec", tag = "606")]
        CategoricalMapping(Vec<u8>),
        /// Holds the undecoded message bytes of a normalizer.
        #[prost(bytes = "vec", tag = "607")]
        Normalizer(Vec<u8>),
        /// Holds the undecoded message bytes of an array feature extractor.
        #[prost(bytes = "vec", tag = "609")]
        ArrayFeatureExtractor(Vec<u8>),
        /// Holds the undecoded message bytes of a non-maximum suppression model.
        #[prost(bytes = "vec", tag = "610")]
        NonMaximumSuppression(Vec<u8>),
        /// Holds the undecoded message bytes of an identity model.
        #[prost(bytes = "vec", tag = "900")]
        Identity(Vec<u8>),
        /// Holds the undecoded message bytes of a text classifier.
        #[prost(bytes = "vec", tag = "2000")]
        TextClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a word tagger.
        #[prost(bytes = "vec", tag = "2001")]
        WordTagger(Vec<u8>),
        /// Holds the undecoded message bytes of a vision feature print model.
        #[prost(bytes = "vec", tag = "2002")]
        VisionFeaturePrint(Vec<u8>),
        /// Holds the undecoded message bytes of a sound analysis preprocessing model.
        #[prost(bytes = "vec", tag = "2003")]
        SoundAnalysisPreprocessing(Vec<u8>),
        /// Holds the undecoded message bytes of a gazetteer.
        #[prost(bytes = "vec", tag = "2004")]
        Gazetteer(Vec<u8>),
        /// Holds the undecoded message bytes of a word embedding model.
        #[prost(bytes = "vec", tag = "2005")]
        WordEmbedding(Vec<u8>),
        /// Holds the undecoded message bytes of an audio feature print model.
        #[prost(bytes = "vec", tag = "2006")]
        AudioFeaturePrint(Vec<u8>),
        /// Holds a serialized model, decoded.
        #[prost(message, tag = "3000")]
        SerializedModel(super::SerializedModel),
    }
}

/// Nested types of [`SequenceFeatureType`].
pub mod sequence_feature_type {
    /// `SequenceFeatureType.type`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Type {
        /// Elements are 64-bit integers.
        #[prost(message, tag = "1")]
        Int64Type(super::Int64FeatureType),
        /// Elements are strings.
        #[prost(message, tag = "3")]
        StringType(super::StringFeatureType),
    }
}

/// Nested types of [`StateFeatureType`].
pub mod state_feature_type {
    /// `StateFeatureType.type`.
    #[derive(Clone, PartialEq, ::prost::Oneof)]
    pub enum Type {
        /// The array the state holds (fixed shape, no flexibility, no default).
        #[prost(message, tag = "1")]
        ArrayType(super::ArrayFeatureType),
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

/// `ImageFeatureType.ColorSpace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum ColorSpace {
    /// Unset or invalid.
    InvalidColorSpace = 0,
    /// 8-bit grayscale.
    Grayscale = 10,
    /// 8-bit RGB.
    Rgb = 20,
    /// 8-bit BGR.
    Bgr = 30,
    /// Float16 grayscale (spec 7 or more).
    GrayscaleFloat16 = 40,
}

/// `ArrayFeatureType.ArrayDataType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::prost::Enumeration)]
#[repr(i32)]
pub enum ArrayDataType {
    /// Unset or invalid.
    InvalidArrayDataType = 0,
    /// 32-bit float (0x10020).
    Float32 = 65568,
    /// 64-bit float (0x10040).
    Double = 65600,
    /// 32-bit signed integer (0x20020).
    Int32 = 131104,
    /// 16-bit float (0x10010; spec 7 or more).
    Float16 = 65552,
    /// 8-bit signed integer (0x20008; spec 10 or more for multiarrays).
    Int8 = 131080,
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

/// A `Model` as the reader decodes it: the ML program's top-level operations stay raw bytes (a `repeated Operation` is wire-identical to `repeated bytes`), so they are decoded, lowered and dropped one at a time instead of all being held as one tree. Kinds other than ML programs and pipelines are skipped here; `decode_model` names them.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct ModelOutline {
    /// Specification version (FORMAT.md §2 table); 0 when unset. ML programs need 6 or more.
    #[prost(int32, tag = "1")]
    pub specification_version: i32,
    /// Interface and metadata; `None` when the file has none.
    #[prost(message, optional, tag = "2")]
    pub description: Option<ModelDescription>,
    /// `Model.PipelineClassifier` (tag 200), as its outline; `None` when the model is another kind.
    #[prost(message, optional, tag = "200")]
    pub pipeline_classifier: Option<PipelineHolderOutline>,
    /// `Model.PipelineRegressor` (tag 201), as its outline; `None` when the model is another kind.
    #[prost(message, optional, tag = "201")]
    pub pipeline_regressor: Option<PipelineHolderOutline>,
    /// `Model.Pipeline` (tag 202), as its outline; `None` when the model is another kind.
    #[prost(message, optional, tag = "202")]
    pub pipeline: Option<PipelineOutline>,
    /// `Model.MlProgram` (tag 502), as its outline; `None` when the model is another kind.
    #[prost(message, optional, tag = "502")]
    pub ml_program: Option<ProgramOutline>,
}

/// [`Pipeline`] whose models are each one undecoded `Model` message.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct PipelineOutline {
    /// The sub-models, in the order they run. Each one's undecoded bytes.
    #[prost(bytes = "bytes", repeated, tag = "1")]
    pub models: Vec<::prost::bytes::Bytes>,
    /// Names of the sub-models, parallel to `models`; empty when the pipeline names none.
    #[prost(string, repeated, tag = "2")]
    pub names: Vec<String>,
}

/// `PipelineClassifier` and `PipelineRegressor`: both hold their pipeline in field 1.
#[derive(Clone, PartialEq, ::prost::Message)]
pub struct PipelineHolderOutline {
    /// The pipeline; `None` when unset.
    #[prost(message, optional, tag = "1")]
    pub pipeline: Option<PipelineOutline>,
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
