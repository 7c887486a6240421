//! Hand-written prost structs for the `Model` and MIL protobufs (FORMAT.md §2–3), and a wire-level
//! splice that re-encodes a `Model` while keeping every byte we do not mean to change.
//!
//! Field names follow the protobuf field names in snake case; only the tags matter on the wire.
//! Enum-typed fields are plain `i32` so that numbers newer than this file are kept, not rejected.
//! Model kinds coreml-lint does not analyse are oneof members typed as raw bytes: they can be named
//! and they re-encode unchanged.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

use std::collections::BTreeMap;
use std::path::Path;

use super::ReadError;

// ---------------------------------------------------------------------------------------------
// Model.proto (package CoreML.Specification)
// ---------------------------------------------------------------------------------------------

/// `CoreML.Specification.Model`: one model of some kind plus its interface description.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Model {
    #[prost(int32, tag = "1")]
    pub specification_version: i32,
    #[prost(message, optional, tag = "2")]
    pub description: Option<ModelDescription>,
    #[prost(bool, tag = "10")]
    pub is_updatable: bool,
    /// The model kind (oneof `Type`).
    #[prost(
        oneof = "model::Type",
        tags = "200, 201, 202, 300, 301, 302, 303, 304, 400, 401, 402, 403, 404, 500, 501, 502, \
                555, 556, 560, 600, 601, 602, 603, 604, 606, 607, 609, 610, 900, 2000, 2001, 2002, \
                2003, 2004, 2005, 2006, 3000"
    )]
    pub r#type: Option<model::Type>,
}

/// Nested types of [`Model`].
pub mod model {
    use super::{Pipeline, Program, SerializedModel};

    /// `Model.Type`: the kind of model. Only pipelines, ML programs and serialized models are
    /// decoded; every other kind keeps its raw message bytes.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        #[prost(bytes, tag = "200")]
        PipelineClassifier(Vec<u8>),
        #[prost(bytes, tag = "201")]
        PipelineRegressor(Vec<u8>),
        #[prost(message, tag = "202")]
        Pipeline(Pipeline),
        #[prost(bytes, tag = "300")]
        GlmRegressor(Vec<u8>),
        #[prost(bytes, tag = "301")]
        SupportVectorRegressor(Vec<u8>),
        #[prost(bytes, tag = "302")]
        TreeEnsembleRegressor(Vec<u8>),
        #[prost(bytes, tag = "303")]
        NeuralNetworkRegressor(Vec<u8>),
        #[prost(bytes, tag = "304")]
        BayesianProbitRegressor(Vec<u8>),
        #[prost(bytes, tag = "400")]
        GlmClassifier(Vec<u8>),
        #[prost(bytes, tag = "401")]
        SupportVectorClassifier(Vec<u8>),
        #[prost(bytes, tag = "402")]
        TreeEnsembleClassifier(Vec<u8>),
        #[prost(bytes, tag = "403")]
        NeuralNetworkClassifier(Vec<u8>),
        #[prost(bytes, tag = "404")]
        KNearestNeighborsClassifier(Vec<u8>),
        #[prost(bytes, tag = "500")]
        NeuralNetwork(Vec<u8>),
        #[prost(bytes, tag = "501")]
        ItemSimilarityRecommender(Vec<u8>),
        /// The ML program (FORMAT.md §3).
        #[prost(message, tag = "502")]
        MlProgram(Program),
        #[prost(bytes, tag = "555")]
        CustomModel(Vec<u8>),
        #[prost(bytes, tag = "556")]
        LinkedModel(Vec<u8>),
        #[prost(bytes, tag = "560")]
        ClassConfidenceThresholding(Vec<u8>),
        #[prost(bytes, tag = "600")]
        OneHotEncoder(Vec<u8>),
        #[prost(bytes, tag = "601")]
        Imputer(Vec<u8>),
        #[prost(bytes, tag = "602")]
        FeatureVectorizer(Vec<u8>),
        #[prost(bytes, tag = "603")]
        DictVectorizer(Vec<u8>),
        #[prost(bytes, tag = "604")]
        Scaler(Vec<u8>),
        #[prost(bytes, tag = "606")]
        CategoricalMapping(Vec<u8>),
        #[prost(bytes, tag = "607")]
        Normalizer(Vec<u8>),
        #[prost(bytes, tag = "609")]
        ArrayFeatureExtractor(Vec<u8>),
        #[prost(bytes, tag = "610")]
        NonMaximumSuppression(Vec<u8>),
        #[prost(bytes, tag = "900")]
        Identity(Vec<u8>),
        #[prost(bytes, tag = "2000")]
        TextClassifier(Vec<u8>),
        #[prost(bytes, tag = "2001")]
        WordTagger(Vec<u8>),
        #[prost(bytes, tag = "2002")]
        VisionFeaturePrint(Vec<u8>),
        #[prost(bytes, tag = "2003")]
        SoundAnalysisPreprocessing(Vec<u8>),
        #[prost(bytes, tag = "2004")]
        Gazetteer(Vec<u8>),
        #[prost(bytes, tag = "2005")]
        WordEmbedding(Vec<u8>),
        #[prost(bytes, tag = "2006")]
        AudioFeaturePrint(Vec<u8>),
        #[prost(message, tag = "3000")]
        SerializedModel(SerializedModel),
    }

    impl Type {
        /// What this kind of model is, for "not an ML Program" messages ("a neural network", …).
        pub fn describe(&self) -> &'static str {
            match self {
                Type::PipelineClassifier(_) => "a pipeline classifier",
                Type::PipelineRegressor(_) => "a pipeline regressor",
                Type::Pipeline(_) => "a pipeline",
                Type::GlmRegressor(_) => "a GLM regressor",
                Type::SupportVectorRegressor(_) => "a support vector regressor",
                Type::TreeEnsembleRegressor(_) => "a tree ensemble regressor",
                Type::NeuralNetworkRegressor(_) => "a neural network regressor",
                Type::BayesianProbitRegressor(_) => "a Bayesian probit regressor",
                Type::GlmClassifier(_) => "a GLM classifier",
                Type::SupportVectorClassifier(_) => "a support vector classifier",
                Type::TreeEnsembleClassifier(_) => "a tree ensemble classifier",
                Type::NeuralNetworkClassifier(_) => "a neural network classifier",
                Type::KNearestNeighborsClassifier(_) => "a k-nearest-neighbors classifier",
                Type::NeuralNetwork(_) => "a neural network",
                Type::ItemSimilarityRecommender(_) => "an item similarity recommender",
                Type::MlProgram(_) => "an ML program",
                Type::CustomModel(_) => "a custom model",
                Type::LinkedModel(_) => "a linked model",
                Type::ClassConfidenceThresholding(_) => "a class confidence thresholding model",
                Type::OneHotEncoder(_) => "a one-hot encoder",
                Type::Imputer(_) => "an imputer",
                Type::FeatureVectorizer(_) => "a feature vectorizer",
                Type::DictVectorizer(_) => "a dictionary vectorizer",
                Type::Scaler(_) => "a scaler",
                Type::CategoricalMapping(_) => "a categorical mapping",
                Type::Normalizer(_) => "a normalizer",
                Type::ArrayFeatureExtractor(_) => "an array feature extractor",
                Type::NonMaximumSuppression(_) => "a non-maximum suppression model",
                Type::Identity(_) => "an identity model",
                Type::TextClassifier(_) => "a text classifier",
                Type::WordTagger(_) => "a word tagger",
                Type::VisionFeaturePrint(_) => "a vision feature print model",
                Type::SoundAnalysisPreprocessing(_) => "a sound analysis preprocessing model",
                Type::Gazetteer(_) => "a gazetteer",
                Type::WordEmbedding(_) => "a word embedding model",
                Type::AudioFeaturePrint(_) => "an audio feature print model",
                Type::SerializedModel(_) => "a serialized model",
            }
        }
    }
}

/// `Pipeline`: models run one after another.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Pipeline {
    #[prost(message, repeated, tag = "1")]
    pub models: Vec<Model>,
    #[prost(string, repeated, tag = "2")]
    pub names: Vec<String>,
}

/// `SerializedModel`: an opaque model identified by a string.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SerializedModel {
    #[prost(string, tag = "1")]
    pub identifier: String,
    #[prost(bytes = "vec", tag = "2")]
    pub model: Vec<u8>,
}

/// `ModelDescription`: inputs, outputs, states, per-function descriptions and metadata.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelDescription {
    #[prost(message, repeated, tag = "1")]
    pub input: Vec<FeatureDescription>,
    #[prost(message, repeated, tag = "10")]
    pub output: Vec<FeatureDescription>,
    #[prost(string, tag = "11")]
    pub predicted_feature_name: String,
    #[prost(string, tag = "12")]
    pub predicted_probabilities_name: String,
    #[prost(message, repeated, tag = "13")]
    pub state: Vec<FeatureDescription>,
    #[prost(message, repeated, tag = "20")]
    pub functions: Vec<FunctionDescription>,
    #[prost(string, tag = "21")]
    pub default_function_name: String,
    #[prost(message, repeated, tag = "50")]
    pub training_input: Vec<FeatureDescription>,
    #[prost(message, optional, tag = "100")]
    pub metadata: Option<Metadata>,
}

/// `FunctionDescription`: the interface of one function of a multifunction model.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionDescription {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, repeated, tag = "2")]
    pub input: Vec<FeatureDescription>,
    #[prost(message, repeated, tag = "3")]
    pub output: Vec<FeatureDescription>,
    #[prost(string, tag = "4")]
    pub predicted_feature_name: String,
    #[prost(string, tag = "5")]
    pub predicted_probabilities_name: String,
    #[prost(message, repeated, tag = "6")]
    pub state: Vec<FeatureDescription>,
}

/// `FeatureDescription`: a named, typed input, output or state.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FeatureDescription {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub short_description: String,
    #[prost(message, optional, tag = "3")]
    pub r#type: Option<FeatureType>,
}

/// `Metadata`: free-text fields and the user-defined string map.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Metadata {
    #[prost(string, tag = "1")]
    pub short_description: String,
    #[prost(string, tag = "2")]
    pub version_string: String,
    #[prost(string, tag = "3")]
    pub author: String,
    #[prost(string, tag = "4")]
    pub license: String,
    #[prost(btree_map = "string, string", tag = "100")]
    pub user_defined: BTreeMap<String, String>,
}

/// `FeatureType`: the type of a described feature.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FeatureType {
    #[prost(oneof = "feature_type::Type", tags = "1, 2, 3, 4, 5, 6, 7, 8")]
    pub r#type: Option<feature_type::Type>,
    #[prost(bool, tag = "1000")]
    pub is_optional: bool,
}

/// Nested types of [`FeatureType`].
pub mod feature_type {
    use super::{
        ArrayFeatureType, DictionaryFeatureType, DoubleFeatureType, ImageFeatureType,
        Int64FeatureType, SequenceFeatureType, StateFeatureType, StringFeatureType,
    };

    /// `FeatureType.Type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        #[prost(message, tag = "1")]
        Int64Type(Int64FeatureType),
        #[prost(message, tag = "2")]
        DoubleType(DoubleFeatureType),
        #[prost(message, tag = "3")]
        StringType(StringFeatureType),
        #[prost(message, tag = "4")]
        ImageType(ImageFeatureType),
        #[prost(message, tag = "5")]
        MultiArrayType(ArrayFeatureType),
        #[prost(message, tag = "6")]
        DictionaryType(DictionaryFeatureType),
        #[prost(message, tag = "7")]
        SequenceType(SequenceFeatureType),
        #[prost(message, tag = "8")]
        StateType(StateFeatureType),
    }
}

/// `Int64FeatureType` (empty).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Int64FeatureType {}

/// `DoubleFeatureType` (empty).
#[derive(Clone, PartialEq, prost::Message)]
pub struct DoubleFeatureType {}

/// `StringFeatureType` (empty).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringFeatureType {}

/// `SizeRange`: a closed range; a negative upper bound means unbounded.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SizeRange {
    #[prost(uint64, tag = "1")]
    pub lower_bound: u64,
    #[prost(int64, tag = "2")]
    pub upper_bound: i64,
}

/// `ImageFeatureType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ImageFeatureType {
    #[prost(int64, tag = "1")]
    pub width: i64,
    #[prost(int64, tag = "2")]
    pub height: i64,
    #[prost(enumeration = "ColorSpace", tag = "3")]
    pub color_space: i32,
    #[prost(oneof = "image_feature_type::SizeFlexibility", tags = "21, 31")]
    pub size_flexibility: Option<image_feature_type::SizeFlexibility>,
}

/// Nested types of [`ImageFeatureType`].
pub mod image_feature_type {
    use super::SizeRange;

    /// `ImageFeatureType.ImageSize`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ImageSize {
        #[prost(uint64, tag = "1")]
        pub width: u64,
        #[prost(uint64, tag = "2")]
        pub height: u64,
    }

    /// `ImageFeatureType.EnumeratedImageSizes`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EnumeratedImageSizes {
        #[prost(message, repeated, tag = "1")]
        pub sizes: Vec<ImageSize>,
    }

    /// `ImageFeatureType.ImageSizeRange`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ImageSizeRange {
        #[prost(message, optional, tag = "1")]
        pub width_range: Option<SizeRange>,
        #[prost(message, optional, tag = "2")]
        pub height_range: Option<SizeRange>,
    }

    /// `ImageFeatureType.SizeFlexibility`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum SizeFlexibility {
        #[prost(message, tag = "21")]
        EnumeratedSizes(EnumeratedImageSizes),
        #[prost(message, tag = "31")]
        ImageSizeRange(ImageSizeRange),
    }
}

/// `ImageFeatureType.ColorSpace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum ColorSpace {
    InvalidColorSpace = 0,
    Grayscale = 10,
    Rgb = 20,
    Bgr = 30,
    GrayscaleFloat16 = 40,
}

/// `ArrayFeatureType.ArrayDataType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum ArrayDataType {
    InvalidArrayDataType = 0,
    Float32 = 65568,
    Double = 65600,
    Int32 = 131104,
    Float16 = 65552,
    Int8 = 131080,
}

/// `ArrayFeatureType`: a MultiArray.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArrayFeatureType {
    #[prost(int64, repeated, tag = "1")]
    pub shape: Vec<i64>,
    #[prost(enumeration = "ArrayDataType", tag = "2")]
    pub data_type: i32,
    #[prost(oneof = "array_feature_type::ShapeFlexibility", tags = "21, 31")]
    pub shape_flexibility: Option<array_feature_type::ShapeFlexibility>,
    #[prost(
        oneof = "array_feature_type::DefaultOptionalValue",
        tags = "41, 51, 61"
    )]
    pub default_optional_value: Option<array_feature_type::DefaultOptionalValue>,
}

/// Nested types of [`ArrayFeatureType`].
pub mod array_feature_type {
    use super::SizeRange;

    /// `ArrayFeatureType.Shape`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Shape {
        #[prost(int64, repeated, tag = "1")]
        pub shape: Vec<i64>,
    }

    /// `ArrayFeatureType.EnumeratedShapes`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EnumeratedShapes {
        #[prost(message, repeated, tag = "1")]
        pub shapes: Vec<Shape>,
    }

    /// `ArrayFeatureType.ShapeRange`: one range per dimension.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ShapeRange {
        #[prost(message, repeated, tag = "1")]
        pub size_ranges: Vec<SizeRange>,
    }

    /// `ArrayFeatureType.ShapeFlexibility`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum ShapeFlexibility {
        #[prost(message, tag = "21")]
        EnumeratedShapes(EnumeratedShapes),
        #[prost(message, tag = "31")]
        ShapeRange(ShapeRange),
    }

    /// `ArrayFeatureType.defaultOptionalValue`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum DefaultOptionalValue {
        #[prost(int32, tag = "41")]
        IntDefaultValue(i32),
        #[prost(float, tag = "51")]
        FloatDefaultValue(f32),
        #[prost(double, tag = "61")]
        DoubleDefaultValue(f64),
    }
}

/// `DictionaryFeatureType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DictionaryFeatureType {
    #[prost(oneof = "dictionary_feature_type::KeyType", tags = "1, 2")]
    pub key_type: Option<dictionary_feature_type::KeyType>,
}

/// Nested types of [`DictionaryFeatureType`].
pub mod dictionary_feature_type {
    use super::{Int64FeatureType, StringFeatureType};

    /// `DictionaryFeatureType.KeyType`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum KeyType {
        #[prost(message, tag = "1")]
        Int64KeyType(Int64FeatureType),
        #[prost(message, tag = "2")]
        StringKeyType(StringFeatureType),
    }
}

/// `SequenceFeatureType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SequenceFeatureType {
    #[prost(oneof = "sequence_feature_type::Type", tags = "1, 3")]
    pub r#type: Option<sequence_feature_type::Type>,
    #[prost(message, optional, tag = "101")]
    pub size_range: Option<SizeRange>,
}

/// Nested types of [`SequenceFeatureType`].
pub mod sequence_feature_type {
    use super::{Int64FeatureType, StringFeatureType};

    /// `SequenceFeatureType.Type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        #[prost(message, tag = "1")]
        Int64Type(Int64FeatureType),
        #[prost(message, tag = "3")]
        StringType(StringFeatureType),
    }
}

/// `StateFeatureType`: a state wrapping a fixed-shape array.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StateFeatureType {
    #[prost(oneof = "state_feature_type::Type", tags = "1")]
    pub r#type: Option<state_feature_type::Type>,
}

/// Nested types of [`StateFeatureType`].
pub mod state_feature_type {
    use super::ArrayFeatureType;

    /// `StateFeatureType.Type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        #[prost(message, tag = "1")]
        ArrayType(ArrayFeatureType),
    }
}

// ---------------------------------------------------------------------------------------------
// MIL.proto (package CoreML.Specification.MILSpec)
// ---------------------------------------------------------------------------------------------

/// `MILSpec.Program`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Program {
    #[prost(int64, tag = "1")]
    pub version: i64,
    #[prost(btree_map = "string, message", tag = "2")]
    pub functions: BTreeMap<String, Function>,
    #[prost(string, tag = "3")]
    pub doc_string: String,
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.Function`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<NamedValueType>,
    #[prost(string, tag = "2")]
    pub opset: String,
    #[prost(btree_map = "string, message", tag = "3")]
    pub block_specializations: BTreeMap<String, Block>,
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.Block`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Block {
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<NamedValueType>,
    #[prost(string, repeated, tag = "2")]
    pub outputs: Vec<String>,
    #[prost(message, repeated, tag = "3")]
    pub operations: Vec<Operation>,
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.Operation`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Operation {
    #[prost(string, tag = "1")]
    pub r#type: String,
    #[prost(btree_map = "string, message", tag = "2")]
    pub inputs: BTreeMap<String, Argument>,
    #[prost(message, repeated, tag = "3")]
    pub outputs: Vec<NamedValueType>,
    #[prost(message, repeated, tag = "4")]
    pub blocks: Vec<Block>,
    #[prost(btree_map = "string, message", tag = "5")]
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.Argument`: the bindings of one parameter.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Argument {
    #[prost(message, repeated, tag = "1")]
    pub arguments: Vec<argument::Binding>,
}

/// Nested types of [`Argument`].
pub mod argument {
    use super::Value;

    /// `Argument.Binding`: a value name or an inline value.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Binding {
        #[prost(oneof = "binding::Binding", tags = "1, 2")]
        pub binding: Option<binding::Binding>,
    }

    /// Nested types of [`Binding`].
    pub mod binding {
        use super::Value;

        /// `Argument.Binding.binding`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Binding {
            #[prost(string, tag = "1")]
            Name(String),
            #[prost(message, tag = "2")]
            Value(Value),
        }
    }
}

/// `MILSpec.NamedValueType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedValueType {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<ValueType>,
}

/// `MILSpec.ValueType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    #[prost(oneof = "value_type::Type", tags = "1, 2, 3, 4, 5")]
    pub r#type: Option<value_type::Type>,
}

/// Nested types of [`ValueType`].
pub mod value_type {
    use super::{DictionaryType, ListType, StateType, TensorType, TupleType};

    /// `ValueType.type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        #[prost(message, tag = "1")]
        TensorType(TensorType),
        #[prost(message, tag = "2")]
        ListType(ListType),
        #[prost(message, tag = "3")]
        TupleType(TupleType),
        #[prost(message, tag = "4")]
        DictionaryType(DictionaryType),
        #[prost(message, tag = "5")]
        StateType(StateType),
    }
}

/// `MILSpec.DataType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum DataType {
    UnusedType = 0,
    Bool = 1,
    String = 2,
    Float16 = 10,
    Float32 = 11,
    Float64 = 12,
    Bfloat16 = 13,
    Int8 = 21,
    Int16 = 22,
    Int32 = 23,
    Int64 = 24,
    Int4 = 25,
    Uint8 = 31,
    Uint16 = 32,
    Uint32 = 33,
    Uint64 = 34,
    Uint4 = 35,
    Uint2 = 36,
    Uint1 = 37,
    Uint6 = 38,
    Uint3 = 39,
    Float8e4m3fn = 40,
    Float8e5m2 = 41,
}

/// `MILSpec.TensorType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorType {
    #[prost(enumeration = "DataType", tag = "1")]
    pub data_type: i32,
    /// −1 = unknown rank, 0 = scalar.
    #[prost(int64, tag = "2")]
    pub rank: i64,
    #[prost(message, repeated, tag = "3")]
    pub dimensions: Vec<Dimension>,
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.TupleType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TupleType {
    #[prost(message, repeated, tag = "1")]
    pub types: Vec<ValueType>,
}

/// `MILSpec.ListType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListType {
    #[prost(message, optional, boxed, tag = "1")]
    pub r#type: Option<Box<ValueType>>,
    #[prost(message, optional, tag = "2")]
    pub length: Option<Dimension>,
}

/// `MILSpec.DictionaryType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DictionaryType {
    #[prost(message, optional, boxed, tag = "1")]
    pub key_type: Option<Box<ValueType>>,
    #[prost(message, optional, boxed, tag = "2")]
    pub value_type: Option<Box<ValueType>>,
}

/// `MILSpec.StateType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StateType {
    #[prost(message, optional, boxed, tag = "1")]
    pub wrapped_type: Option<Box<ValueType>>,
}

/// `MILSpec.Dimension`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    #[prost(oneof = "dimension::Dimension", tags = "1, 2")]
    pub dimension: Option<dimension::Dimension>,
}

/// Nested types of [`Dimension`].
pub mod dimension {
    /// `Dimension.ConstantDimension`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ConstantDimension {
        #[prost(uint64, tag = "1")]
        pub size: u64,
    }

    /// `Dimension.UnknownDimension`: `variadic` = an unknown number of dimensions.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct UnknownDimension {
        #[prost(bool, tag = "1")]
        pub variadic: bool,
    }

    /// `Dimension.dimension`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Dimension {
        #[prost(message, tag = "1")]
        Constant(ConstantDimension),
        #[prost(message, tag = "2")]
        Unknown(UnknownDimension),
    }
}

/// `MILSpec.Value`: a typed constant, immediate or file-backed.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Value {
    #[prost(string, tag = "1")]
    pub doc_string: String,
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<ValueType>,
    #[prost(oneof = "value::Value", tags = "3, 5")]
    pub value: Option<value::Value>,
}

/// Nested types of [`Value`].
pub mod value {
    use super::{BlobFileValue, ImmediateValue};

    /// `Value.value` (tag 4 is unused).
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        #[prost(message, tag = "3")]
        ImmediateValue(ImmediateValue),
        #[prost(message, tag = "5")]
        BlobFileValue(BlobFileValue),
    }
}

/// `MILSpec.Value.ImmediateValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ImmediateValue {
    #[prost(oneof = "immediate_value::Value", tags = "1, 2, 3, 4")]
    pub value: Option<immediate_value::Value>,
}

/// Nested types of [`ImmediateValue`].
pub mod immediate_value {
    use super::{DictionaryValue, ListValue, TensorValue, TupleValue};

    /// `ImmediateValue.value`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        #[prost(message, tag = "1")]
        Tensor(TensorValue),
        #[prost(message, tag = "2")]
        Tuple(TupleValue),
        #[prost(message, tag = "3")]
        List(ListValue),
        #[prost(message, tag = "4")]
        Dictionary(DictionaryValue),
    }
}

/// `MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BlobFileValue {
    #[prost(string, tag = "1")]
    pub file_name: String,
    #[prost(uint64, tag = "2")]
    pub offset: u64,
}

/// `MILSpec.TensorValue`: row-major elements in one of seven encodings.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorValue {
    #[prost(oneof = "tensor_value::Value", tags = "1, 2, 3, 4, 5, 6, 7")]
    pub value: Option<tensor_value::Value>,
}

/// Nested types of [`TensorValue`].
pub mod tensor_value {
    /// `TensorValue.RepeatedFloats`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedFloats {
        #[prost(float, repeated, tag = "1")]
        pub values: Vec<f32>,
    }

    /// `TensorValue.RepeatedDoubles`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedDoubles {
        #[prost(double, repeated, tag = "1")]
        pub values: Vec<f64>,
    }

    /// `TensorValue.RepeatedInts`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedInts {
        #[prost(int32, repeated, tag = "1")]
        pub values: Vec<i32>,
    }

    /// `TensorValue.RepeatedLongInts`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedLongInts {
        #[prost(int64, repeated, tag = "1")]
        pub values: Vec<i64>,
    }

    /// `TensorValue.RepeatedBools`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedBools {
        #[prost(bool, repeated, tag = "1")]
        pub values: Vec<bool>,
    }

    /// `TensorValue.RepeatedStrings`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedStrings {
        #[prost(string, repeated, tag = "1")]
        pub values: Vec<String>,
    }

    /// `TensorValue.RepeatedBytes`: a single byte string of little-endian elements.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedBytes {
        #[prost(bytes = "vec", tag = "1")]
        pub values: Vec<u8>,
    }

    /// `TensorValue.value`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        #[prost(message, tag = "1")]
        Floats(RepeatedFloats),
        #[prost(message, tag = "2")]
        Ints(RepeatedInts),
        #[prost(message, tag = "3")]
        Bools(RepeatedBools),
        #[prost(message, tag = "4")]
        Strings(RepeatedStrings),
        #[prost(message, tag = "5")]
        LongInts(RepeatedLongInts),
        #[prost(message, tag = "6")]
        Doubles(RepeatedDoubles),
        #[prost(message, tag = "7")]
        Bytes(RepeatedBytes),
    }
}

/// `MILSpec.TupleValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TupleValue {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<Value>,
}

/// `MILSpec.ListValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListValue {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<Value>,
}

/// `MILSpec.DictionaryValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DictionaryValue {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<dictionary_value::KeyValuePair>,
}

/// Nested types of [`DictionaryValue`].
pub mod dictionary_value {
    use super::Value;

    /// `DictionaryValue.KeyValuePair`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct KeyValuePair {
        #[prost(message, optional, tag = "1")]
        pub key: Option<Value>,
        #[prost(message, optional, tag = "2")]
        pub value: Option<Value>,
    }
}

// ---------------------------------------------------------------------------------------------
// Outlines: the same messages with each top-level operation left undecoded
// ---------------------------------------------------------------------------------------------

/// A `Model` as the reader decodes it: the ML program's top-level operations stay raw bytes (a
/// `repeated Operation` is wire-identical to `repeated bytes`), so they are decoded, lowered and
/// dropped one at a time instead of all being held as one tree. Kinds other than ML programs
/// are skipped here; [`decode_model`] names them.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelOutline {
    #[prost(int32, tag = "1")]
    pub specification_version: i32,
    #[prost(message, optional, tag = "2")]
    pub description: Option<ModelDescription>,
    #[prost(message, optional, tag = "502")]
    pub ml_program: Option<ProgramOutline>,
    #[prost(message, optional, tag = "200")]
    pub pipeline_classifier: Option<PipelineHolderOutline>,
    #[prost(message, optional, tag = "201")]
    pub pipeline_regressor: Option<PipelineHolderOutline>,
    #[prost(message, optional, tag = "202")]
    pub pipeline: Option<PipelineOutline>,
}

impl ModelOutline {
    /// The pipeline this model is (plain, classifier or regressor), taken out of the outline.
    pub fn take_pipeline(&mut self) -> Option<PipelineOutline> {
        self.pipeline
            .take()
            .or_else(|| self.pipeline_classifier.take().and_then(|h| h.pipeline))
            .or_else(|| self.pipeline_regressor.take().and_then(|h| h.pipeline))
    }
}

/// [`Pipeline`] whose models are each one undecoded `Model` message.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PipelineOutline {
    #[prost(bytes = "bytes", repeated, tag = "1")]
    pub models: Vec<prost::bytes::Bytes>,
    #[prost(string, repeated, tag = "2")]
    pub names: Vec<String>,
}

/// `PipelineClassifier` and `PipelineRegressor`: both hold their pipeline in field 1.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PipelineHolderOutline {
    #[prost(message, optional, tag = "1")]
    pub pipeline: Option<PipelineOutline>,
}

/// [`Program`] with [`FunctionOutline`]s.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProgramOutline {
    #[prost(int64, tag = "1")]
    pub version: i64,
    #[prost(btree_map = "string, message", tag = "2")]
    pub functions: BTreeMap<String, FunctionOutline>,
    #[prost(message, repeated, tag = "4")]
    pub attributes: Vec<zero_copy::ValueEntry>,
}

/// [`Function`] with [`BlockOutline`]s, its other parts as [`zero_copy`] messages.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionOutline {
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<zero_copy::NamedValueType>,
    #[prost(string, tag = "2")]
    pub opset: String,
    #[prost(btree_map = "string, message", tag = "3")]
    pub block_specializations: BTreeMap<String, BlockOutline>,
    #[prost(message, repeated, tag = "4")]
    pub attributes: Vec<zero_copy::ValueEntry>,
}

/// [`Block`] whose operations are each one undecoded `Operation` message, its other parts as
/// [`zero_copy`] messages.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BlockOutline {
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<zero_copy::NamedValueType>,
    #[prost(bytes = "bytes", repeated, tag = "2")]
    pub outputs: Vec<prost::bytes::Bytes>,
    #[prost(bytes = "bytes", repeated, tag = "3")]
    pub operations: Vec<prost::bytes::Bytes>,
    #[prost(message, repeated, tag = "4")]
    pub attributes: Vec<zero_copy::ValueEntry>,
}

// ---------------------------------------------------------------------------------------------
// The MIL messages of operations, decoded without copying
// ---------------------------------------------------------------------------------------------

/// The MIL messages an operation is made of, as the reader decodes them: wire-identical to the
/// messages above, but every `string` and `bytes` field is a slice of the file's buffer (UTF-8 is
/// checked where the reader uses a string) and every `map<string, …>` is its list of entries in
/// file order (the reader sorts them and lets the last of equal keys win, as a map would). The
/// fixer keeps using the owned messages above.
pub mod zero_copy {
    use prost::bytes::Bytes;

    pub use super::Dimension;

    /// `MILSpec.Operation`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Operation {
        #[prost(bytes = "bytes", tag = "1")]
        pub r#type: Bytes,
        #[prost(message, repeated, tag = "2")]
        pub inputs: Vec<ArgumentEntry>,
        #[prost(message, repeated, tag = "3")]
        pub outputs: Vec<NamedValueType>,
        #[prost(message, repeated, tag = "4")]
        pub blocks: Vec<Block>,
        #[prost(message, repeated, tag = "5")]
        pub attributes: Vec<ValueEntry>,
    }

    /// One entry of a `map<string, Argument>` (an operation's inputs).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ArgumentEntry {
        #[prost(bytes = "bytes", tag = "1")]
        pub key: Bytes,
        #[prost(message, required, tag = "2")]
        pub value: Argument,
    }

    /// One entry of a `map<string, Value>` (attributes).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueEntry {
        #[prost(bytes = "bytes", tag = "1")]
        pub key: Bytes,
        #[prost(message, required, tag = "2")]
        pub value: Value,
    }

    /// `MILSpec.Block`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Block {
        #[prost(message, repeated, tag = "1")]
        pub inputs: Vec<NamedValueType>,
        #[prost(bytes = "bytes", repeated, tag = "2")]
        pub outputs: Vec<Bytes>,
        #[prost(message, repeated, tag = "3")]
        pub operations: Vec<Operation>,
        #[prost(message, repeated, tag = "4")]
        pub attributes: Vec<ValueEntry>,
    }

    /// `MILSpec.Argument`: the bindings of one parameter.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Argument {
        #[prost(message, repeated, tag = "1")]
        pub arguments: Vec<Binding>,
    }

    /// `Argument.Binding`: a value name or an inline value.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Binding {
        #[prost(oneof = "binding::Binding", tags = "1, 2")]
        pub binding: Option<binding::Binding>,
    }

    /// Nested types of [`Binding`].
    pub mod binding {
        use super::{Bytes, Value};

        /// `Argument.Binding.binding`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Binding {
            #[prost(bytes = "bytes", tag = "1")]
            Name(Bytes),
            #[prost(message, tag = "2")]
            Value(Value),
        }
    }

    /// `MILSpec.NamedValueType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NamedValueType {
        #[prost(bytes = "bytes", tag = "1")]
        pub name: Bytes,
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<ValueType>,
    }

    /// `MILSpec.ValueType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueType {
        #[prost(oneof = "value_type::Type", tags = "1, 2, 3, 4, 5")]
        pub r#type: Option<value_type::Type>,
    }

    /// Nested types of [`ValueType`].
    pub mod value_type {
        use super::{DictionaryType, ListType, StateType, TensorType, TupleType};

        /// `ValueType.type`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Type {
            #[prost(message, tag = "1")]
            TensorType(TensorType),
            #[prost(message, tag = "2")]
            ListType(ListType),
            #[prost(message, tag = "3")]
            TupleType(TupleType),
            #[prost(message, tag = "4")]
            DictionaryType(DictionaryType),
            #[prost(message, tag = "5")]
            StateType(StateType),
        }
    }

    /// `MILSpec.TensorType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorType {
        #[prost(int32, tag = "1")]
        pub data_type: i32,
        /// −1 = unknown rank, 0 = scalar.
        #[prost(int64, tag = "2")]
        pub rank: i64,
        #[prost(message, repeated, tag = "3")]
        pub dimensions: Vec<Dimension>,
        #[prost(message, repeated, tag = "4")]
        pub attributes: Vec<ValueEntry>,
    }

    /// `MILSpec.TupleType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TupleType {
        #[prost(message, repeated, tag = "1")]
        pub types: Vec<ValueType>,
    }

    /// `MILSpec.ListType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ListType {
        #[prost(message, optional, boxed, tag = "1")]
        pub r#type: Option<Box<ValueType>>,
        #[prost(message, optional, tag = "2")]
        pub length: Option<Dimension>,
    }

    /// `MILSpec.DictionaryType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DictionaryType {
        #[prost(message, optional, boxed, tag = "1")]
        pub key_type: Option<Box<ValueType>>,
        #[prost(message, optional, boxed, tag = "2")]
        pub value_type: Option<Box<ValueType>>,
    }

    /// `MILSpec.StateType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct StateType {
        #[prost(message, optional, boxed, tag = "1")]
        pub wrapped_type: Option<Box<ValueType>>,
    }

    /// `MILSpec.Value`: a typed constant, immediate or file-backed.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Value {
        #[prost(bytes = "bytes", tag = "1")]
        pub doc_string: Bytes,
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<ValueType>,
        #[prost(oneof = "value::Value", tags = "3, 5")]
        pub value: Option<value::Value>,
    }

    /// Nested types of [`Value`].
    pub mod value {
        use super::{BlobFileValue, ImmediateValue};

        /// `Value.value` (tag 4 is unused).
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            #[prost(message, tag = "3")]
            ImmediateValue(ImmediateValue),
            #[prost(message, tag = "5")]
            BlobFileValue(BlobFileValue),
        }
    }

    /// `MILSpec.Value.ImmediateValue`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ImmediateValue {
        #[prost(oneof = "immediate_value::Value", tags = "1, 2, 3, 4")]
        pub value: Option<immediate_value::Value>,
    }

    /// Nested types of [`ImmediateValue`].
    pub mod immediate_value {
        use super::{DictionaryValue, ListValue, TensorValue, TupleValue};

        /// `ImmediateValue.value`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            #[prost(message, tag = "1")]
            Tensor(TensorValue),
            #[prost(message, tag = "2")]
            Tuple(TupleValue),
            #[prost(message, tag = "3")]
            List(ListValue),
            #[prost(message, tag = "4")]
            Dictionary(DictionaryValue),
        }
    }

    /// `MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct BlobFileValue {
        #[prost(bytes = "bytes", tag = "1")]
        pub file_name: Bytes,
        #[prost(uint64, tag = "2")]
        pub offset: u64,
    }

    /// `MILSpec.TensorValue`: row-major elements in one of seven encodings.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorValue {
        #[prost(oneof = "tensor_value::Value", tags = "1, 2, 3, 4, 5, 6, 7")]
        pub value: Option<tensor_value::Value>,
    }

    /// Nested types of [`TensorValue`].
    pub mod tensor_value {
        use super::Bytes;
        pub use crate::read::proto::tensor_value::{
            RepeatedBools, RepeatedDoubles, RepeatedFloats, RepeatedInts, RepeatedLongInts,
        };

        /// `TensorValue.RepeatedStrings`.
        #[derive(Clone, PartialEq, prost::Message)]
        pub struct RepeatedStrings {
            #[prost(bytes = "bytes", repeated, tag = "1")]
            pub values: Vec<Bytes>,
        }

        /// `TensorValue.RepeatedBytes`: a single byte string of little-endian elements.
        #[derive(Clone, PartialEq, prost::Message)]
        pub struct RepeatedBytes {
            #[prost(bytes = "bytes", tag = "1")]
            pub values: Bytes,
        }

        /// `TensorValue.value`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            #[prost(message, tag = "1")]
            Floats(RepeatedFloats),
            #[prost(message, tag = "2")]
            Ints(RepeatedInts),
            #[prost(message, tag = "3")]
            Bools(RepeatedBools),
            #[prost(message, tag = "4")]
            Strings(RepeatedStrings),
            #[prost(message, tag = "5")]
            LongInts(RepeatedLongInts),
            #[prost(message, tag = "6")]
            Doubles(RepeatedDoubles),
            #[prost(message, tag = "7")]
            Bytes(RepeatedBytes),
        }
    }

    /// `MILSpec.TupleValue`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TupleValue {
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<Value>,
    }

    /// `MILSpec.ListValue`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ListValue {
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<Value>,
    }

    /// `MILSpec.DictionaryValue`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DictionaryValue {
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<KeyValuePair>,
    }

    /// `DictionaryValue.KeyValuePair`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct KeyValuePair {
        #[prost(message, optional, tag = "1")]
        pub key: Option<Value>,
        #[prost(message, optional, tag = "2")]
        pub value: Option<Value>,
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding and lossless re-encoding
// ---------------------------------------------------------------------------------------------

/// Decodes a `Model` protobuf.
pub fn decode_model(bytes: &[u8], path: &Path) -> Result<Model, ReadError> {
    use prost::Message;
    Model::decode(bytes).map_err(|e| ReadError::Protobuf {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Decodes the outline of a `Model` protobuf; `bytes` is shared by the operations, not copied.
pub fn decode_outline(bytes: prost::bytes::Bytes, path: &Path) -> Result<ModelOutline, ReadError> {
    use prost::Message;
    ModelOutline::decode(bytes).map_err(|e| ReadError::Protobuf {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Tag of `Model.description`.
pub const MODEL_DESCRIPTION_TAG: u32 = 2;
/// Tag of `Model.mlProgram`.
pub const MODEL_ML_PROGRAM_TAG: u32 = 502;

/// Why a `Model` could not be re-encoded at the wire level.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpliceError {
    /// The original bytes are not a well-formed protobuf message.
    #[error("the original model protobuf is malformed at byte {offset}: {what}")]
    Malformed { offset: usize, what: &'static str },
    /// A replacement was asked for a field the original does not have and that cannot be added.
    #[error("the original model has no {what} to replace")]
    Missing { what: &'static str },
}

/// One top-level field of a message as it sits in the bytes.
struct WireField {
    number: u32,
    /// The whole field: key, length prefix (if any) and payload.
    start: usize,
    end: usize,
    /// Where the payload of a length-delimited field starts (`start` for other wire types).
    payload_start: usize,
    length_delimited: bool,
}

/// Reads a base-128 varint at `*pos`, advancing it. prost's public codec for varints is its
/// length-delimiter pair (`prost::encoding` is not public API); keys and lengths are both varints.
fn read_varint(bytes: &[u8], pos: &mut usize) -> Result<u64, SpliceError> {
    let malformed = SpliceError::Malformed {
        offset: *pos,
        what: "malformed or truncated varint",
    };
    let mut rest = bytes.get(*pos..).ok_or(malformed.clone())?;
    let before = rest.len();
    let value = prost::decode_length_delimiter(&mut rest).map_err(|_| malformed)?;
    *pos += before - rest.len();
    Ok(value as u64)
}

/// Writes a base-128 varint (prost's public encoder takes a `usize`; keys are `u64` here).
fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Advances `*pos` by `n` bytes, refusing to run past the end.
fn skip(bytes: &[u8], pos: &mut usize, n: u64) -> Result<(), SpliceError> {
    let end = usize::try_from(n)
        .ok()
        .and_then(|n| pos.checked_add(n))
        .filter(|&end| end <= bytes.len())
        .ok_or(SpliceError::Malformed {
            offset: *pos,
            what: "field runs past the end",
        })?;
    *pos = end;
    Ok(())
}

/// Splits a message into its top-level fields, in file order, without interpreting them. Written
/// here because prost decodes into messages and keeps no byte ranges, which the splice needs.
fn wire_fields(bytes: &[u8]) -> Result<Vec<WireField>, SpliceError> {
    let mut fields = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let start = pos;
        let mut payload_start = start;
        let key = read_varint(bytes, &mut pos)?;
        let number =
            u32::try_from(key >> 3)
                .ok()
                .filter(|&n| n != 0)
                .ok_or(SpliceError::Malformed {
                    offset: start,
                    what: "invalid field number",
                })?;
        match key & 7 {
            0 => {
                read_varint(bytes, &mut pos)?;
            }
            1 => skip(bytes, &mut pos, 8)?,
            2 => {
                let len = read_varint(bytes, &mut pos)?;
                payload_start = pos;
                skip(bytes, &mut pos, len)?;
            }
            5 => skip(bytes, &mut pos, 4)?,
            // Groups (3/4) are proto2-only and never used by Core ML files.
            _ => {
                return Err(SpliceError::Malformed {
                    offset: start,
                    what: "unsupported wire type",
                })
            }
        }
        fields.push(WireField {
            number,
            start,
            end: pos,
            payload_start,
            length_delimited: key & 7 == 2,
        });
    }
    Ok(fields)
}

/// A field to substitute, written at most once.
struct Replacement {
    number: u32,
    payload: Option<Vec<u8>>,
    written: bool,
}

impl Replacement {
    fn new(number: u32, payload: Option<Vec<u8>>) -> Replacement {
        Replacement {
            number,
            payload,
            written: false,
        }
    }

    fn write_once(&mut self, out: &mut Vec<u8>) {
        if let (Some(payload), false) = (&self.payload, self.written) {
            write_message_field(out, self.number, payload);
            self.written = true;
        }
    }
}

fn write_message_field(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    write_varint(out, (u64::from(number) << 3) | 2);
    write_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

/// Re-encodes a `Model` from its original bytes, replacing only `description` (tag 2) and/or
/// `mlProgram` (tag 502) and copying every other field verbatim, in its original position, so
/// fields these structs do not model survive.
///
/// A replaced field takes the position of its first occurrence; later occurrences (which a
/// protobuf parser would have merged into the decoded message) are dropped. A description the
/// original lacks is appended; a program the original lacks is an error (it would make the model
/// carry two kinds). With no replacement the output equals `original` byte for byte.
pub fn encode_model_preserving(
    original: &[u8],
    description: Option<&ModelDescription>,
    program: Option<&Program>,
) -> Result<Vec<u8>, SpliceError> {
    use prost::Message;
    let fields = wire_fields(original)?;
    if program.is_some() && !fields.iter().any(|f| f.number == MODEL_ML_PROGRAM_TAG) {
        return Err(SpliceError::Missing {
            what: "mlProgram (it is not an ML program)",
        });
    }
    let mut replacements = [
        Replacement::new(
            MODEL_DESCRIPTION_TAG,
            description.map(Message::encode_to_vec),
        ),
        Replacement::new(MODEL_ML_PROGRAM_TAG, program.map(Message::encode_to_vec)),
    ];
    let mut out = Vec::with_capacity(original.len());
    for field in &fields {
        match replacements
            .iter_mut()
            .find(|r| r.number == field.number && r.payload.is_some())
        {
            Some(r) => r.write_once(&mut out),
            None => out.extend_from_slice(original.get(field.start..field.end).ok_or(
                SpliceError::Malformed {
                    offset: field.start,
                    what: "field out of range",
                },
            )?),
        }
    }
    for r in &mut replacements {
        r.write_once(&mut out);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Pipelines: the bytes of one sub-model, and the whole model with one sub-model replaced
// ---------------------------------------------------------------------------------------------

/// Tags of `Model.pipeline` (the models list is its field 1), and of `Model.pipelineClassifier`
/// and `Model.pipelineRegressor` (which hold a `Pipeline` in their field 1).
const PIPELINE_TAG: u32 = 202;
const PIPELINE_HOLDER_TAGS: [u32; 2] = [200, 201];
/// Tag of `Pipeline.models`, and of the pipeline inside a pipeline classifier or regressor.
const PIPELINE_MODELS_TAG: u32 = 1;

/// The field numbers leading from a `Model` to the `Pipeline` message it holds.
fn pipeline_route(model: &[u8]) -> Result<Vec<u32>, SpliceError> {
    let fields = wire_fields(model)?;
    if fields.iter().any(|f| f.number == PIPELINE_TAG) {
        return Ok(vec![PIPELINE_TAG]);
    }
    PIPELINE_HOLDER_TAGS
        .into_iter()
        .find(|&tag| fields.iter().any(|f| f.number == tag))
        .map(|tag| vec![tag, PIPELINE_MODELS_TAG])
        .ok_or(SpliceError::Missing {
            what: "pipeline (it is not a pipeline)",
        })
}

/// The payload of the `n`-th occurrence of length-delimited field `number` in `message`.
fn nth_payload(message: &[u8], number: u32, n: usize) -> Result<&[u8], SpliceError> {
    let field = wire_fields(message)?
        .into_iter()
        .filter(|f| f.number == number)
        .nth(n)
        .ok_or(SpliceError::Missing {
            what: "sub-model at that position",
        })?;
    if !field.length_delimited {
        return Err(SpliceError::Malformed {
            offset: field.start,
            what: "a pipeline field is not length-delimited",
        });
    }
    message
        .get(field.payload_start..field.end)
        .ok_or(SpliceError::Malformed {
            offset: field.start,
            what: "field out of range",
        })
}

/// The payload of field `number`, which must occur exactly once (a second occurrence would be
/// merged by a parser, so positions inside it would not be what the reader saw).
fn only_payload(message: &[u8], number: u32) -> Result<&[u8], SpliceError> {
    let count = wire_fields(message)?
        .iter()
        .filter(|f| f.number == number)
        .count();
    if count > 1 {
        return Err(SpliceError::Malformed {
            offset: 0,
            what: "a pipeline field occurs more than once",
        });
    }
    nth_payload(message, number, 0)
}

/// `message` with the payload of the `n`-th occurrence of field `number` replaced; every other
/// byte is kept.
fn replace_nth_payload(
    message: &[u8],
    number: u32,
    n: usize,
    payload: &[u8],
) -> Result<Vec<u8>, SpliceError> {
    let mut out = Vec::with_capacity(message.len() + payload.len());
    let mut seen = 0;
    for field in wire_fields(message)? {
        if field.number == number {
            if seen == n {
                write_message_field(&mut out, number, payload);
                seen += 1;
                continue;
            }
            seen += 1;
        }
        out.extend_from_slice(message.get(field.start..field.end).ok_or(
            SpliceError::Malformed {
                offset: field.start,
                what: "field out of range",
            },
        )?);
    }
    if seen <= n {
        return Err(SpliceError::Missing {
            what: "sub-model at that position",
        });
    }
    Ok(out)
}

/// The `Model` bytes of the sub-model at `position` (outermost level first) of the pipeline
/// `model`; an empty position is `model` itself.
pub fn sub_model_bytes<'a>(model: &'a [u8], position: &[usize]) -> Result<&'a [u8], SpliceError> {
    let Some((&i, rest)) = position.split_first() else {
        return Ok(model);
    };
    let mut pipeline = model;
    for tag in pipeline_route(model)? {
        pipeline = only_payload(pipeline, tag)?;
    }
    sub_model_bytes(nth_payload(pipeline, PIPELINE_MODELS_TAG, i)?, rest)
}

/// The pipeline `model` with its sub-model at `position` replaced by `new`: every byte outside
/// that sub-model is kept (the length prefixes of the messages holding it change with its size).
pub fn replace_sub_model(
    model: &[u8],
    position: &[usize],
    new: &[u8],
) -> Result<Vec<u8>, SpliceError> {
    let Some((&i, rest)) = position.split_first() else {
        return Ok(new.to_vec());
    };
    let route = pipeline_route(model)?;
    // The messages from `model` down to its `Pipeline`, outermost first.
    let mut chain = vec![model];
    for &tag in &route {
        let inner = only_payload(chain.last().copied().unwrap_or(model), tag)?;
        chain.push(inner);
    }
    let pipeline = chain.pop().unwrap_or(model);
    let sub = nth_payload(pipeline, PIPELINE_MODELS_TAG, i)?;
    let mut rebuilt = replace_nth_payload(
        pipeline,
        PIPELINE_MODELS_TAG,
        i,
        &replace_sub_model(sub, rest, new)?,
    )?;
    for (outer, &tag) in chain.iter().zip(&route).rev() {
        rebuilt = replace_nth_payload(outer, tag, 0, &rebuilt)?;
    }
    Ok(rebuilt)
}

/// Builders for hand-made protobuf programs, shared by the read layer's tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    fn dim(size: u64) -> Dimension {
        Dimension {
            dimension: Some(dimension::Dimension::Constant(
                dimension::ConstantDimension { size },
            )),
        }
    }

    /// `tensor<dtype, dims>`.
    pub(crate) fn tensor_type(dtype: DataType, dims: &[u64]) -> ValueType {
        ValueType {
            r#type: Some(value_type::Type::TensorType(TensorType {
                data_type: dtype as i32,
                rank: dims.len() as i64,
                dimensions: dims.iter().map(|&d| dim(d)).collect(),
                attributes: BTreeMap::new(),
            })),
        }
    }

    /// `state<tensor<dtype, dims>>`.
    pub(crate) fn state_type(dtype: DataType, dims: &[u64]) -> ValueType {
        ValueType {
            r#type: Some(value_type::Type::StateType(StateType {
                wrapped_type: Some(Box::new(tensor_type(dtype, dims))),
            })),
        }
    }

    /// An immediate tensor value of type `ty`.
    pub(crate) fn tensor_value(ty: ValueType, v: tensor_value::Value) -> Value {
        Value {
            doc_string: String::new(),
            r#type: Some(ty),
            value: Some(value::Value::ImmediateValue(ImmediateValue {
                value: Some(immediate_value::Value::Tensor(TensorValue {
                    value: Some(v),
                })),
            })),
        }
    }

    /// A string scalar.
    pub(crate) fn string_value(s: &str) -> Value {
        tensor_value(
            tensor_type(DataType::String, &[]),
            tensor_value::Value::Strings(tensor_value::RepeatedStrings {
                values: vec![s.to_string()],
            }),
        )
    }

    /// An int32 tensor.
    pub(crate) fn ints_value(v: &[i32]) -> Value {
        tensor_value(
            tensor_type(DataType::Int32, &[v.len() as u64]),
            tensor_value::Value::Ints(tensor_value::RepeatedInts { values: v.to_vec() }),
        )
    }

    /// A named, typed value.
    pub(crate) fn named(name: &str, ty: ValueType) -> NamedValueType {
        NamedValueType {
            name: name.into(),
            r#type: Some(ty),
        }
    }

    /// An op with `name` attribute `name`, inputs bound by value name.
    pub(crate) fn op(
        op_type: &str,
        name: &str,
        inputs: &[(&str, &str)],
        outputs: Vec<NamedValueType>,
    ) -> Operation {
        Operation {
            r#type: op_type.into(),
            inputs: inputs
                .iter()
                .map(|(k, v)| {
                    (
                        k.to_string(),
                        Argument {
                            arguments: vec![argument::Binding {
                                binding: Some(argument::binding::Binding::Name(v.to_string())),
                            }],
                        },
                    )
                })
                .collect(),
            outputs,
            blocks: vec![],
            attributes: BTreeMap::from([("name".to_string(), string_value(name))]),
        }
    }

    /// A `const` op holding `val`.
    pub(crate) fn const_op(out: &str, val: Value) -> Operation {
        let ty = val.r#type.clone().unwrap_or_default();
        let mut o = op("const", out, &[], vec![named(out, ty)]);
        o.attributes.insert("val".into(), val);
        o
    }

    /// A function whose only block is keyed by its opset.
    pub(crate) fn function(
        opset: &str,
        inputs: Vec<NamedValueType>,
        ops: Vec<Operation>,
        outputs: &[&str],
    ) -> Function {
        Function {
            inputs,
            opset: opset.into(),
            block_specializations: BTreeMap::from([(
                opset.to_string(),
                Block {
                    inputs: vec![],
                    outputs: outputs.iter().map(|s| s.to_string()).collect(),
                    operations: ops,
                    attributes: BTreeMap::new(),
                },
            )]),
            attributes: BTreeMap::new(),
        }
    }

    /// An ML program model.
    pub(crate) fn ml_model(
        spec: i32,
        functions: Vec<(&str, Function)>,
        description: ModelDescription,
    ) -> Model {
        Model {
            specification_version: spec,
            description: Some(description),
            is_updatable: false,
            r#type: Some(model::Type::MlProgram(Program {
                version: 1,
                functions: functions
                    .into_iter()
                    .map(|(n, f)| (n.to_string(), f))
                    .collect(),
                doc_string: String::new(),
                attributes: BTreeMap::new(),
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;
    use prost::Message;

    fn sample_model() -> Model {
        let op = Operation {
            r#type: "relu".into(),
            inputs: BTreeMap::from([(
                "x".to_string(),
                Argument {
                    arguments: vec![argument::Binding {
                        binding: Some(argument::binding::Binding::Name("x".into())),
                    }],
                },
            )]),
            outputs: vec![NamedValueType {
                name: "y".into(),
                r#type: Some(tensor_type(DataType::Float16, &[1, 4])),
            }],
            blocks: vec![],
            attributes: BTreeMap::from([("name".to_string(), string_value("relu_0"))]),
        };
        let func = Function {
            inputs: vec![NamedValueType {
                name: "x".into(),
                r#type: Some(tensor_type(DataType::Float16, &[1, 4])),
            }],
            opset: "CoreML8".into(),
            block_specializations: BTreeMap::from([(
                "CoreML8".to_string(),
                Block {
                    inputs: vec![],
                    outputs: vec!["y".into()],
                    operations: vec![op],
                    attributes: BTreeMap::new(),
                },
            )]),
            attributes: BTreeMap::new(),
        };
        Model {
            specification_version: 9,
            description: Some(ModelDescription {
                metadata: Some(Metadata {
                    author: "me".into(),
                    ..Metadata::default()
                }),
                ..ModelDescription::default()
            }),
            is_updatable: false,
            r#type: Some(model::Type::MlProgram(Program {
                version: 1,
                functions: BTreeMap::from([("main".to_string(), func)]),
                doc_string: String::new(),
                attributes: BTreeMap::new(),
            })),
        }
    }

    /// A field number no struct here models, appended as a varint and as a length-delimited field.
    fn with_unknown_fields(mut bytes: Vec<u8>) -> Vec<u8> {
        write_varint(&mut bytes, 777 << 3); // wire type 0 (varint)
        write_varint(&mut bytes, 42);
        write_message_field(&mut bytes, 778, b"opaque");
        bytes
    }

    #[test]
    fn model_round_trips_through_prost() {
        let m = sample_model();
        let bytes = m.encode_to_vec();
        let back = decode_model(&bytes, Path::new("m.mlmodel")).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn unknown_enum_numbers_are_kept() {
        let tt = TensorType {
            data_type: 99,
            ..TensorType::default()
        };
        let back = TensorType::decode(tt.encode_to_vec().as_slice()).unwrap();
        assert_eq!(back.data_type, 99);
    }

    #[test]
    fn splice_without_replacement_is_byte_identical() {
        let bytes = with_unknown_fields(sample_model().encode_to_vec());
        let out = encode_model_preserving(&bytes, None, None).unwrap();
        assert_eq!(out, bytes);
    }

    #[test]
    fn splice_with_unchanged_parts_decodes_equal_and_keeps_unknown_fields() {
        let bytes = with_unknown_fields(sample_model().encode_to_vec());
        let m = Model::decode(bytes.as_slice()).unwrap();
        let program = match &m.r#type {
            Some(model::Type::MlProgram(p)) => p,
            _ => unreachable!("sample is an ML program"),
        };
        let out = encode_model_preserving(&bytes, m.description.as_ref(), Some(program)).unwrap();
        assert_eq!(Model::decode(out.as_slice()).unwrap(), m);
        let numbers: Vec<u32> = wire_fields(&out)
            .unwrap()
            .iter()
            .map(|f| f.number)
            .collect();
        let original: Vec<u32> = wire_fields(&bytes)
            .unwrap()
            .iter()
            .map(|f| f.number)
            .collect();
        assert_eq!(numbers, original);
        assert!(out.windows(6).any(|w| w == b"opaque"));
    }

    #[test]
    fn splice_replaces_description_in_place() {
        let bytes = with_unknown_fields(sample_model().encode_to_vec());
        let mut m = Model::decode(bytes.as_slice()).unwrap();
        let mut desc = m.description.clone().unwrap_or_default();
        desc.default_function_name = "main".into();
        let out = encode_model_preserving(&bytes, Some(&desc), None).unwrap();
        m.description = Some(desc);
        assert_eq!(Model::decode(out.as_slice()).unwrap(), m);
        assert!(out.windows(6).any(|w| w == b"opaque"));
    }

    #[test]
    fn splice_appends_missing_description_and_refuses_missing_program() {
        let m = Model {
            specification_version: 4,
            r#type: Some(model::Type::NeuralNetwork(vec![8, 1])),
            ..Model::default()
        };
        let bytes = m.encode_to_vec();
        let desc = ModelDescription {
            predicted_feature_name: "p".into(),
            ..ModelDescription::default()
        };
        let out = encode_model_preserving(&bytes, Some(&desc), None).unwrap();
        assert_eq!(
            Model::decode(out.as_slice()).unwrap().description,
            Some(desc)
        );
        let err = encode_model_preserving(&bytes, None, Some(&Program::default())).unwrap_err();
        assert!(matches!(err, SpliceError::Missing { .. }));
    }

    #[test]
    fn duplicate_description_fields_collapse_to_one() {
        let mut bytes = sample_model().encode_to_vec();
        let extra = ModelDescription {
            predicted_feature_name: "second".into(),
            ..ModelDescription::default()
        };
        write_message_field(&mut bytes, 2, &extra.encode_to_vec());
        let merged = Model::decode(bytes.as_slice()).unwrap();
        let out = encode_model_preserving(&bytes, merged.description.as_ref(), None).unwrap();
        let count = wire_fields(&out)
            .unwrap()
            .iter()
            .filter(|f| f.number == 2)
            .count();
        assert_eq!(count, 1);
        assert_eq!(Model::decode(out.as_slice()).unwrap(), merged);
    }

    #[test]
    fn splice_rejects_malformed_input() {
        let bytes = sample_model().encode_to_vec();
        for len in 1..bytes.len() {
            // A prefix either splits into whole fields or is reported; it never panics.
            let _ = encode_model_preserving(&bytes[..len], None, None);
        }
        let err = encode_model_preserving(&[0x12, 0x05, 0x01], None, None).unwrap_err();
        assert!(matches!(err, SpliceError::Malformed { .. }));
        assert!(encode_model_preserving(&[0x0b], None, None).is_err());
    }

    #[test]
    fn truncated_and_garbage_models_fail_cleanly() {
        let bytes = sample_model().encode_to_vec();
        let mut failures = 0;
        for len in 0..bytes.len() {
            if decode_model(&bytes[..len], Path::new("t.mlmodel")).is_err() {
                failures += 1;
            }
        }
        assert!(failures > 0, "some truncations must be detected");
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200 {
            let garbage: Vec<u8> = (0..64)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            if let Err(e) = decode_model(&garbage, Path::new("g.mlmodel")) {
                assert!(e.to_string().contains("g.mlmodel"));
            }
        }
    }

    /// `Model.pipelineClassifier` holding a pipeline of `models`, plus an unknown field.
    fn classifier_of(models: Vec<Model>) -> Vec<u8> {
        let pipeline = Pipeline {
            models,
            names: vec!["a".into(), "b".into()],
        }
        .encode_to_vec();
        let mut holder = Vec::new();
        write_message_field(&mut holder, 1, &pipeline);
        let top = Model {
            specification_version: 9,
            r#type: Some(model::Type::PipelineClassifier(holder)),
            ..Model::default()
        };
        with_unknown_fields(top.encode_to_vec())
    }

    #[test]
    fn sub_models_are_found_and_replaced_keeping_every_other_byte() {
        let inner = Model {
            r#type: Some(model::Type::Pipeline(Pipeline {
                models: vec![sample_model(), sample_model()],
                names: vec![],
            })),
            ..Model::default()
        };
        let bytes = classifier_of(vec![sample_model(), inner]);
        let sub = sub_model_bytes(&bytes, &[1, 0]).unwrap();
        assert_eq!(Model::decode(sub).unwrap(), sample_model());
        assert_eq!(sub_model_bytes(&bytes, &[]).unwrap(), bytes.as_slice());

        let mut changed = sample_model();
        changed.specification_version = 10;
        let out = replace_sub_model(&bytes, &[1, 0], &changed.encode_to_vec()).unwrap();
        assert_eq!(
            Model::decode(sub_model_bytes(&out, &[1, 0]).unwrap()).unwrap(),
            changed
        );
        for untouched in [&[0][..], &[1, 1]] {
            assert_eq!(
                sub_model_bytes(&out, untouched).unwrap(),
                sub_model_bytes(&bytes, untouched).unwrap()
            );
        }
        assert!(out.windows(6).any(|w| w == b"opaque"));
        // Replacing a sub-model with its own bytes gives the file back unchanged.
        let same = replace_sub_model(&bytes, &[1, 0], sub).unwrap();
        assert_eq!(same, bytes);
    }

    #[test]
    fn sub_model_positions_that_do_not_exist_are_refused() {
        let bytes = classifier_of(vec![sample_model()]);
        assert!(matches!(
            sub_model_bytes(&bytes, &[3]),
            Err(SpliceError::Missing { .. })
        ));
        assert!(replace_sub_model(&bytes, &[0, 0], b"").is_err());
        let program = sample_model().encode_to_vec();
        assert!(sub_model_bytes(&program, &[0]).is_err());
        // A pipeline field given twice would be merged by a parser: refused, not guessed.
        let mut twice = bytes.clone();
        let holder = nth_payload(&bytes, 200, 0).unwrap().to_vec();
        write_message_field(&mut twice, 200, &holder);
        assert!(matches!(
            sub_model_bytes(&twice, &[0]),
            Err(SpliceError::Malformed { .. })
        ));
        for len in 0..bytes.len() {
            let _ = sub_model_bytes(&bytes[..len], &[0]);
            let _ = replace_sub_model(&bytes[..len], &[0], b"x");
        }
    }
}
