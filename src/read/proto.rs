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
    /// Specification version (FORMAT.md §2 table); 0 when unset. ML programs need 6 or more.
    #[prost(int32, tag = "1")]
    pub specification_version: i32,
    /// Interface and metadata; `None` when the file has none.
    #[prost(message, optional, tag = "2")]
    pub description: Option<ModelDescription>,
    /// True when the model is marked updatable (on-device training).
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
        /// Holds the undecoded message bytes of a pipeline classifier.
        #[prost(bytes, tag = "200")]
        PipelineClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a pipeline regressor.
        #[prost(bytes, tag = "201")]
        PipelineRegressor(Vec<u8>),
        /// Holds a pipeline, decoded.
        #[prost(message, tag = "202")]
        Pipeline(Pipeline),
        /// Holds the undecoded message bytes of a GLM regressor.
        #[prost(bytes, tag = "300")]
        GlmRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a support vector regressor.
        #[prost(bytes, tag = "301")]
        SupportVectorRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a tree ensemble regressor.
        #[prost(bytes, tag = "302")]
        TreeEnsembleRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a neural network regressor.
        #[prost(bytes, tag = "303")]
        NeuralNetworkRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a Bayesian probit regressor.
        #[prost(bytes, tag = "304")]
        BayesianProbitRegressor(Vec<u8>),
        /// Holds the undecoded message bytes of a GLM classifier.
        #[prost(bytes, tag = "400")]
        GlmClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a support vector classifier.
        #[prost(bytes, tag = "401")]
        SupportVectorClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a tree ensemble classifier.
        #[prost(bytes, tag = "402")]
        TreeEnsembleClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a neural network classifier.
        #[prost(bytes, tag = "403")]
        NeuralNetworkClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a k-nearest-neighbors classifier.
        #[prost(bytes, tag = "404")]
        KNearestNeighborsClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a neural network.
        #[prost(bytes, tag = "500")]
        NeuralNetwork(Vec<u8>),
        /// Holds the undecoded message bytes of an item similarity recommender.
        #[prost(bytes, tag = "501")]
        ItemSimilarityRecommender(Vec<u8>),
        /// The ML program (FORMAT.md §3).
        #[prost(message, tag = "502")]
        MlProgram(Program),
        /// Holds the undecoded message bytes of a custom model.
        #[prost(bytes, tag = "555")]
        CustomModel(Vec<u8>),
        /// Holds the undecoded message bytes of a linked model.
        #[prost(bytes, tag = "556")]
        LinkedModel(Vec<u8>),
        /// Holds the undecoded message bytes of a class confidence thresholding model.
        #[prost(bytes, tag = "560")]
        ClassConfidenceThresholding(Vec<u8>),
        /// Holds the undecoded message bytes of a one-hot encoder.
        #[prost(bytes, tag = "600")]
        OneHotEncoder(Vec<u8>),
        /// Holds the undecoded message bytes of an imputer.
        #[prost(bytes, tag = "601")]
        Imputer(Vec<u8>),
        /// Holds the undecoded message bytes of a feature vectorizer.
        #[prost(bytes, tag = "602")]
        FeatureVectorizer(Vec<u8>),
        /// Holds the undecoded message bytes of a dictionary vectorizer.
        #[prost(bytes, tag = "603")]
        DictVectorizer(Vec<u8>),
        /// Holds the undecoded message bytes of a scaler.
        #[prost(bytes, tag = "604")]
        Scaler(Vec<u8>),
        /// Holds the undecoded message bytes of a categorical mapping.
        #[prost(bytes, tag = "606")]
        CategoricalMapping(Vec<u8>),
        /// Holds the undecoded message bytes of a normalizer.
        #[prost(bytes, tag = "607")]
        Normalizer(Vec<u8>),
        /// Holds the undecoded message bytes of an array feature extractor.
        #[prost(bytes, tag = "609")]
        ArrayFeatureExtractor(Vec<u8>),
        /// Holds the undecoded message bytes of a non-maximum suppression model.
        #[prost(bytes, tag = "610")]
        NonMaximumSuppression(Vec<u8>),
        /// Holds the undecoded message bytes of an identity model.
        #[prost(bytes, tag = "900")]
        Identity(Vec<u8>),
        /// Holds the undecoded message bytes of a text classifier.
        #[prost(bytes, tag = "2000")]
        TextClassifier(Vec<u8>),
        /// Holds the undecoded message bytes of a word tagger.
        #[prost(bytes, tag = "2001")]
        WordTagger(Vec<u8>),
        /// Holds the undecoded message bytes of a vision feature print model.
        #[prost(bytes, tag = "2002")]
        VisionFeaturePrint(Vec<u8>),
        /// Holds the undecoded message bytes of a sound analysis preprocessing model.
        #[prost(bytes, tag = "2003")]
        SoundAnalysisPreprocessing(Vec<u8>),
        /// Holds the undecoded message bytes of a gazetteer.
        #[prost(bytes, tag = "2004")]
        Gazetteer(Vec<u8>),
        /// Holds the undecoded message bytes of a word embedding model.
        #[prost(bytes, tag = "2005")]
        WordEmbedding(Vec<u8>),
        /// Holds the undecoded message bytes of an audio feature print model.
        #[prost(bytes, tag = "2006")]
        AudioFeaturePrint(Vec<u8>),
        /// Holds a serialized model, decoded.
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
    /// The sub-models, in the order they run.
    #[prost(message, repeated, tag = "1")]
    pub models: Vec<Model>,
    /// Names of the sub-models, parallel to `models`; empty when the pipeline names none.
    #[prost(string, repeated, tag = "2")]
    pub names: Vec<String>,
}

/// `SerializedModel`: an opaque model identified by a string.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SerializedModel {
    /// Identifier of the serialized model's format or owner.
    #[prost(string, tag = "1")]
    pub identifier: String,
    /// The serialized model's raw bytes, not interpreted.
    #[prost(bytes = "vec", tag = "2")]
    pub model: Vec<u8>,
}

/// `ModelDescription`: inputs, outputs, states, per-function descriptions and metadata.
#[derive(Clone, PartialEq, prost::Message)]
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
#[derive(Clone, PartialEq, prost::Message)]
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
#[derive(Clone, PartialEq, prost::Message)]
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
#[derive(Clone, PartialEq, prost::Message)]
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
    pub user_defined: BTreeMap<String, String>,
}

/// `FeatureType`: the type of a described feature.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FeatureType {
    /// Which kind of feature (oneof `Type`); `None` when unset (invalid).
    #[prost(oneof = "feature_type::Type", tags = "1, 2, 3, 4, 5, 6, 7, 8")]
    pub r#type: Option<feature_type::Type>,
    /// True when callers may omit the feature (tag 1000).
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
        /// A scalar 64-bit integer.
        #[prost(message, tag = "1")]
        Int64Type(Int64FeatureType),
        /// A scalar 64-bit float.
        #[prost(message, tag = "2")]
        DoubleType(DoubleFeatureType),
        /// A UTF-8 string.
        #[prost(message, tag = "3")]
        StringType(StringFeatureType),
        /// An image.
        #[prost(message, tag = "4")]
        ImageType(ImageFeatureType),
        /// A MultiArray (tensor).
        #[prost(message, tag = "5")]
        MultiArrayType(ArrayFeatureType),
        /// A dictionary keyed by integers or strings.
        #[prost(message, tag = "6")]
        DictionaryType(DictionaryFeatureType),
        /// A sequence of integers or strings.
        #[prost(message, tag = "7")]
        SequenceType(SequenceFeatureType),
        /// A state wrapping an array (spec 9 or more).
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
    /// Smallest allowed size, inclusive.
    #[prost(uint64, tag = "1")]
    pub lower_bound: u64,
    /// Largest allowed size, inclusive; negative means unbounded.
    #[prost(int64, tag = "2")]
    pub upper_bound: i64,
}

/// `ImageFeatureType`.
#[derive(Clone, PartialEq, prost::Message)]
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

/// Nested types of [`ImageFeatureType`].
pub mod image_feature_type {
    use super::SizeRange;

    /// `ImageFeatureType.ImageSize`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ImageSize {
        /// Width in pixels.
        #[prost(uint64, tag = "1")]
        pub width: u64,
        /// Height in pixels.
        #[prost(uint64, tag = "2")]
        pub height: u64,
    }

    /// `ImageFeatureType.EnumeratedImageSizes`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EnumeratedImageSizes {
        /// The only sizes accepted.
        #[prost(message, repeated, tag = "1")]
        pub sizes: Vec<ImageSize>,
    }

    /// `ImageFeatureType.ImageSizeRange`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ImageSizeRange {
        /// Accepted widths in pixels; `None` when unset.
        #[prost(message, optional, tag = "1")]
        pub width_range: Option<SizeRange>,
        /// Accepted heights in pixels; `None` when unset.
        #[prost(message, optional, tag = "2")]
        pub height_range: Option<SizeRange>,
    }

    /// `ImageFeatureType.SizeFlexibility`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum SizeFlexibility {
        /// A list of accepted sizes.
        #[prost(message, tag = "21")]
        EnumeratedSizes(EnumeratedImageSizes),
        /// A range of widths and heights.
        #[prost(message, tag = "31")]
        ImageSizeRange(ImageSizeRange),
    }
}

/// `ImageFeatureType.ColorSpace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
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

/// `ArrayFeatureType`: a MultiArray.
#[derive(Clone, PartialEq, prost::Message)]
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
        /// Dims, outermost first.
        #[prost(int64, repeated, tag = "1")]
        pub shape: Vec<i64>,
    }

    /// `ArrayFeatureType.EnumeratedShapes`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EnumeratedShapes {
        /// The only shapes accepted.
        #[prost(message, repeated, tag = "1")]
        pub shapes: Vec<Shape>,
    }

    /// `ArrayFeatureType.ShapeRange`: one range per dimension.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ShapeRange {
        /// Accepted sizes, one range per dim, outermost first.
        #[prost(message, repeated, tag = "1")]
        pub size_ranges: Vec<SizeRange>,
    }

    /// `ArrayFeatureType.ShapeFlexibility`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum ShapeFlexibility {
        /// A list of accepted shapes.
        #[prost(message, tag = "21")]
        EnumeratedShapes(EnumeratedShapes),
        /// A range of sizes per dim.
        #[prost(message, tag = "31")]
        ShapeRange(ShapeRange),
    }

    /// `ArrayFeatureType.defaultOptionalValue`.
    #[derive(Clone, PartialEq, prost::Oneof)]
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

/// `DictionaryFeatureType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DictionaryFeatureType {
    /// Type of the keys; `None` when unset (invalid).
    #[prost(oneof = "dictionary_feature_type::KeyType", tags = "1, 2")]
    pub key_type: Option<dictionary_feature_type::KeyType>,
}

/// Nested types of [`DictionaryFeatureType`].
pub mod dictionary_feature_type {
    use super::{Int64FeatureType, StringFeatureType};

    /// `DictionaryFeatureType.KeyType`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum KeyType {
        /// Keys are 64-bit integers.
        #[prost(message, tag = "1")]
        Int64KeyType(Int64FeatureType),
        /// Keys are strings.
        #[prost(message, tag = "2")]
        StringKeyType(StringFeatureType),
    }
}

/// `SequenceFeatureType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SequenceFeatureType {
    /// Type of the elements; `None` when unset.
    #[prost(oneof = "sequence_feature_type::Type", tags = "1, 3")]
    pub r#type: Option<sequence_feature_type::Type>,
    /// Accepted sequence lengths; `None` when unconstrained.
    #[prost(message, optional, tag = "101")]
    pub size_range: Option<SizeRange>,
}

/// Nested types of [`SequenceFeatureType`].
pub mod sequence_feature_type {
    use super::{Int64FeatureType, StringFeatureType};

    /// `SequenceFeatureType.Type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        /// Elements are 64-bit integers.
        #[prost(message, tag = "1")]
        Int64Type(Int64FeatureType),
        /// Elements are strings.
        #[prost(message, tag = "3")]
        StringType(StringFeatureType),
    }
}

/// `StateFeatureType`: a state wrapping a fixed-shape array.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StateFeatureType {
    /// The wrapped array; `None` when unset (invalid).
    #[prost(oneof = "state_feature_type::Type", tags = "1")]
    pub r#type: Option<state_feature_type::Type>,
}

/// Nested types of [`StateFeatureType`].
pub mod state_feature_type {
    use super::ArrayFeatureType;

    /// `StateFeatureType.Type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        /// The array the state holds (fixed shape, no flexibility, no default).
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
    /// MIL proto version; coremltools writes 1 and rejects anything else.
    #[prost(int64, tag = "1")]
    pub version: i64,
    /// Function name (`main` for single-function models) → function.
    #[prost(btree_map = "string, message", tag = "2")]
    pub functions: BTreeMap<String, Function>,
    /// Free-text documentation; empty when none.
    #[prost(string, tag = "3")]
    pub doc_string: String,
    /// Program attributes, e.g. `buildInfo` (a string → string dictionary); empty when none.
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.Function`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    /// Function parameters in declaration order, state inputs included.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<NamedValueType>,
    /// Opset name, e.g. `CoreML8`; a key of `block_specializations`.
    #[prost(string, tag = "2")]
    pub opset: String,
    /// Opset name → body; coremltools writes one entry, keyed by `opset`.
    #[prost(btree_map = "string, message", tag = "3")]
    pub block_specializations: BTreeMap<String, Block>,
    /// Function attributes; coremltools writes none.
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.Block`.
#[derive(Clone, PartialEq, prost::Message)]
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
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.Operation`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Operation {
    /// Op name, e.g. `slice_update`, `const`.
    #[prost(string, tag = "1")]
    pub r#type: String,
    /// Parameter name → bindings; optional parameters left out are absent.
    #[prost(btree_map = "string, message", tag = "2")]
    pub inputs: BTreeMap<String, Argument>,
    /// Results in order; empty for ops such as `write_state`.
    #[prost(message, repeated, tag = "3")]
    pub outputs: Vec<NamedValueType>,
    /// Nested blocks: `cond` has [true, false], `while_loop` [cond, body]; empty otherwise.
    #[prost(message, repeated, tag = "4")]
    pub blocks: Vec<Block>,
    /// Attributes: always `name`; `val` for a `const`; every parameter of an iOS16/17 `constexpr_*`.
    #[prost(btree_map = "string, message", tag = "5")]
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.Argument`: the bindings of one parameter.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Argument {
    /// Bindings in order; one normally, several for a tuple parameter such as `concat.values`.
    #[prost(message, repeated, tag = "1")]
    pub arguments: Vec<argument::Binding>,
}

/// Nested types of [`Argument`].
pub mod argument {
    use super::Value;

    /// `Argument.Binding`: a value name or an inline value.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Binding {
        /// What is bound; `None` when unset (invalid).
        #[prost(oneof = "binding::Binding", tags = "1, 2")]
        pub binding: Option<binding::Binding>,
    }

    /// Nested types of [`Binding`].
    pub mod binding {
        use super::Value;

        /// `Argument.Binding.binding`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Binding {
            /// Name of a previously defined value.
            #[prost(string, tag = "1")]
            Name(String),
            /// An inline constant.
            #[prost(message, tag = "2")]
            Value(Value),
        }
    }
}

/// `MILSpec.NamedValueType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedValueType {
    /// Value name, unique within the function.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its type; `None` when unset (invalid).
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<ValueType>,
}

/// `MILSpec.ValueType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    /// Which kind of type; `None` when unset (invalid).
    #[prost(oneof = "value_type::Type", tags = "1, 2, 3, 4, 5")]
    pub r#type: Option<value_type::Type>,
}

/// Nested types of [`ValueType`].
pub mod value_type {
    use super::{DictionaryType, ListType, StateType, TensorType, TupleType};

    /// `ValueType.type`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        /// A tensor (scalars are rank-0 tensors).
        #[prost(message, tag = "1")]
        TensorType(TensorType),
        /// A list of values of one type.
        #[prost(message, tag = "2")]
        ListType(ListType),
        /// A tuple of values of given types.
        #[prost(message, tag = "3")]
        TupleType(TupleType),
        /// A dictionary.
        #[prost(message, tag = "4")]
        DictionaryType(DictionaryType),
        /// A state wrapping a value (a tensor in practice; iOS18 or later).
        #[prost(message, tag = "5")]
        StateType(StateType),
    }
}

/// `MILSpec.DataType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
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

/// `MILSpec.TensorType`.
#[derive(Clone, PartialEq, prost::Message)]
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
    pub attributes: BTreeMap<String, Value>,
}

/// `MILSpec.TupleType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TupleType {
    /// Element types, in order.
    #[prost(message, repeated, tag = "1")]
    pub types: Vec<ValueType>,
}

/// `MILSpec.ListType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListType {
    /// Element type; `None` when unset.
    #[prost(message, optional, boxed, tag = "1")]
    pub r#type: Option<Box<ValueType>>,
    /// Length of the list; `None` when unset.
    #[prost(message, optional, tag = "2")]
    pub length: Option<Dimension>,
}

/// `MILSpec.DictionaryType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DictionaryType {
    /// Type of the keys; `None` when unset.
    #[prost(message, optional, boxed, tag = "1")]
    pub key_type: Option<Box<ValueType>>,
    /// Type of the values; `None` when unset.
    #[prost(message, optional, boxed, tag = "2")]
    pub value_type: Option<Box<ValueType>>,
}

/// `MILSpec.StateType`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StateType {
    /// The type the state holds (a tensor in practice); `None` when unset (invalid).
    #[prost(message, optional, boxed, tag = "1")]
    pub wrapped_type: Option<Box<ValueType>>,
}

/// `MILSpec.Dimension`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    /// Known size or unknown; `None` when unset (invalid).
    #[prost(oneof = "dimension::Dimension", tags = "1, 2")]
    pub dimension: Option<dimension::Dimension>,
}

/// Nested types of [`Dimension`].
pub mod dimension {
    /// `Dimension.ConstantDimension`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ConstantDimension {
        /// Size of the dim, in elements.
        #[prost(uint64, tag = "1")]
        pub size: u64,
    }

    /// `Dimension.UnknownDimension`: `variadic` = an unknown number of dimensions.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct UnknownDimension {
        /// False: one dim of unknown size; true: an unknown number of dims.
        #[prost(bool, tag = "1")]
        pub variadic: bool,
    }

    /// `Dimension.dimension`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Dimension {
        /// A dim of known size.
        #[prost(message, tag = "1")]
        Constant(ConstantDimension),
        /// A dim (or number of dims) not known statically.
        #[prost(message, tag = "2")]
        Unknown(UnknownDimension),
    }
}

/// `MILSpec.Value`: a typed constant, immediate or file-backed.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Value {
    /// Free-text documentation; empty when none.
    #[prost(string, tag = "1")]
    pub doc_string: String,
    /// The value's type (for blobs: dtype and dims); `None` when unset.
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<ValueType>,
    /// Where the data is; `None` when unset (invalid).
    #[prost(oneof = "value::Value", tags = "3, 5")]
    pub value: Option<value::Value>,
}

/// Nested types of [`Value`].
pub mod value {
    use super::{BlobFileValue, ImmediateValue};

    /// `Value.value` (tag 4 is unused).
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// Data inline in the protobuf (tag 3).
        #[prost(message, tag = "3")]
        ImmediateValue(ImmediateValue),
        /// Data in a weight file (tag 5).
        #[prost(message, tag = "5")]
        BlobFileValue(BlobFileValue),
    }
}

/// `MILSpec.Value.ImmediateValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ImmediateValue {
    /// The data; `None` when unset (invalid).
    #[prost(oneof = "immediate_value::Value", tags = "1, 2, 3, 4")]
    pub value: Option<immediate_value::Value>,
}

/// Nested types of [`ImmediateValue`].
pub mod immediate_value {
    use super::{DictionaryValue, ListValue, TensorValue, TupleValue};

    /// `ImmediateValue.value`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// A tensor (or scalar).
        #[prost(message, tag = "1")]
        Tensor(TensorValue),
        /// A tuple of values.
        #[prost(message, tag = "2")]
        Tuple(TupleValue),
        /// A list of values.
        #[prost(message, tag = "3")]
        List(ListValue),
        /// A dictionary of key/value pairs.
        #[prost(message, tag = "4")]
        Dictionary(DictionaryValue),
    }
}

/// `MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BlobFileValue {
    /// Weight file path, e.g. `@model_path/weights/weight.bin`.
    #[prost(string, tag = "1")]
    pub file_name: String,
    /// Byte offset in the file of the blob's metadata record (not of the payload).
    #[prost(uint64, tag = "2")]
    pub offset: u64,
}

/// `MILSpec.TensorValue`: row-major elements in one of seven encodings.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorValue {
    /// The elements; `None` when unset (invalid).
    #[prost(oneof = "tensor_value::Value", tags = "1, 2, 3, 4, 5, 6, 7")]
    pub value: Option<tensor_value::Value>,
}

/// Nested types of [`TensorValue`].
pub mod tensor_value {
    /// `TensorValue.RepeatedFloats`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedFloats {
        /// Elements, row-major.
        #[prost(float, repeated, tag = "1")]
        pub values: Vec<f32>,
    }

    /// `TensorValue.RepeatedDoubles`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedDoubles {
        /// Elements, row-major.
        #[prost(double, repeated, tag = "1")]
        pub values: Vec<f64>,
    }

    /// `TensorValue.RepeatedInts`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedInts {
        /// Elements, row-major, widened to `i32` (int16/uint16/int32; int8/uint8 from old writers).
        #[prost(int32, repeated, tag = "1")]
        pub values: Vec<i32>,
    }

    /// `TensorValue.RepeatedLongInts`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedLongInts {
        /// Elements, row-major (int64, uint64).
        #[prost(int64, repeated, tag = "1")]
        pub values: Vec<i64>,
    }

    /// `TensorValue.RepeatedBools`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedBools {
        /// Elements, row-major, one `bool` each.
        #[prost(bool, repeated, tag = "1")]
        pub values: Vec<bool>,
    }

    /// `TensorValue.RepeatedStrings`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedStrings {
        /// Elements, row-major, UTF-8 each.
        #[prost(string, repeated, tag = "1")]
        pub values: Vec<String>,
    }

    /// `TensorValue.RepeatedBytes`: a single byte string of little-endian elements.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedBytes {
        /// Little-endian element bytes, row-major; sub-byte types packed LSB first.
        #[prost(bytes = "vec", tag = "1")]
        pub values: Vec<u8>,
    }

    /// `TensorValue.value`.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// fp32 elements.
        #[prost(message, tag = "1")]
        Floats(RepeatedFloats),
        /// int16, uint16 or int32 elements (int8/uint8 from coremltools before 7.0).
        #[prost(message, tag = "2")]
        Ints(RepeatedInts),
        /// bool elements.
        #[prost(message, tag = "3")]
        Bools(RepeatedBools),
        /// string elements.
        #[prost(message, tag = "4")]
        Strings(RepeatedStrings),
        /// int64 or uint64 elements.
        #[prost(message, tag = "5")]
        LongInts(RepeatedLongInts),
        /// fp64 elements.
        #[prost(message, tag = "6")]
        Doubles(RepeatedDoubles),
        /// fp16, 8-bit, uint32 and sub-byte elements as raw bytes.
        #[prost(message, tag = "7")]
        Bytes(RepeatedBytes),
    }
}

/// `MILSpec.TupleValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TupleValue {
    /// Elements, in order.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<Value>,
}

/// `MILSpec.ListValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListValue {
    /// Elements, in order.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<Value>,
}

/// `MILSpec.DictionaryValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DictionaryValue {
    /// Entries, in file order.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<dictionary_value::KeyValuePair>,
}

/// Nested types of [`DictionaryValue`].
pub mod dictionary_value {
    use super::Value;

    /// `DictionaryValue.KeyValuePair`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct KeyValuePair {
        /// The key; `None` when unset.
        #[prost(message, optional, tag = "1")]
        pub key: Option<Value>,
        /// The value; `None` when unset.
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
    /// Specification version; 0 when unset. ML programs need 6 or more.
    #[prost(int32, tag = "1")]
    pub specification_version: i32,
    /// Interface and metadata; `None` when the file has none.
    #[prost(message, optional, tag = "2")]
    pub description: Option<ModelDescription>,
    /// The ML program (tag 502); `None` when the model is of another kind.
    #[prost(message, optional, tag = "502")]
    pub ml_program: Option<ProgramOutline>,
    /// A pipeline classifier (tag 200); `None` otherwise.
    #[prost(message, optional, tag = "200")]
    pub pipeline_classifier: Option<PipelineHolderOutline>,
    /// A pipeline regressor (tag 201); `None` otherwise.
    #[prost(message, optional, tag = "201")]
    pub pipeline_regressor: Option<PipelineHolderOutline>,
    /// A plain pipeline (tag 202); `None` otherwise.
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
    /// Each sub-model's undecoded `Model` bytes, in the order they run.
    #[prost(bytes = "bytes", repeated, tag = "1")]
    pub models: Vec<prost::bytes::Bytes>,
    /// Names of the sub-models, parallel to `models`; empty when none are named.
    #[prost(string, repeated, tag = "2")]
    pub names: Vec<String>,
}

/// `PipelineClassifier` and `PipelineRegressor`: both hold their pipeline in field 1.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PipelineHolderOutline {
    /// The pipeline; `None` when unset.
    #[prost(message, optional, tag = "1")]
    pub pipeline: Option<PipelineOutline>,
}

/// [`Program`] with [`FunctionOutline`]s.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProgramOutline {
    /// MIL proto version; coremltools writes 1.
    #[prost(int64, tag = "1")]
    pub version: i64,
    /// Function name → function.
    #[prost(btree_map = "string, message", tag = "2")]
    pub functions: BTreeMap<String, FunctionOutline>,
    /// Program attributes (`buildInfo`, …) in file order.
    #[prost(message, repeated, tag = "4")]
    pub attributes: Vec<zero_copy::ValueEntry>,
}

/// [`Function`] with [`BlockOutline`]s, its other parts as [`zero_copy`] messages.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionOutline {
    /// Function parameters in declaration order, state inputs included.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<zero_copy::NamedValueType>,
    /// Opset name, e.g. `CoreML8`.
    #[prost(string, tag = "2")]
    pub opset: String,
    /// Opset name → body.
    #[prost(btree_map = "string, message", tag = "3")]
    pub block_specializations: BTreeMap<String, BlockOutline>,
    /// Function attributes in file order.
    #[prost(message, repeated, tag = "4")]
    pub attributes: Vec<zero_copy::ValueEntry>,
}

/// [`Block`] whose operations are each one undecoded `Operation` message, its other parts as
/// [`zero_copy`] messages.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BlockOutline {
    /// Block-local parameters; empty for a function's body.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<zero_copy::NamedValueType>,
    /// Names of the returned values, as raw (unchecked UTF-8) bytes.
    #[prost(bytes = "bytes", repeated, tag = "2")]
    pub outputs: Vec<prost::bytes::Bytes>,
    /// Each operation's undecoded bytes, in program order.
    #[prost(bytes = "bytes", repeated, tag = "3")]
    pub operations: Vec<prost::bytes::Bytes>,
    /// Block attributes in file order.
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
        /// Op name, e.g. `slice_update`, `const`.
        #[prost(bytes = "bytes", tag = "1")]
        pub r#type: Bytes,
        /// Parameter name → bindings, as entries in file order.
        #[prost(message, repeated, tag = "2")]
        pub inputs: Vec<ArgumentEntry>,
        /// Results in order; empty for ops such as `write_state`.
        #[prost(message, repeated, tag = "3")]
        pub outputs: Vec<NamedValueType>,
        /// Nested blocks: `cond` has [true, false], `while_loop` [cond, body]; empty otherwise.
        #[prost(message, repeated, tag = "4")]
        pub blocks: Vec<Block>,
        /// Attributes as entries in file order: always `name`; `val` for a `const`.
        #[prost(message, repeated, tag = "5")]
        pub attributes: Vec<ValueEntry>,
    }

    /// One entry of a `map<string, Argument>` (an operation's inputs).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ArgumentEntry {
        /// Parameter name, as raw bytes.
        #[prost(bytes = "bytes", tag = "1")]
        pub key: Bytes,
        /// Its bindings.
        #[prost(message, required, tag = "2")]
        pub value: Argument,
    }

    /// One entry of a `map<string, Value>` (attributes).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueEntry {
        /// Attribute name, as raw bytes.
        #[prost(bytes = "bytes", tag = "1")]
        pub key: Bytes,
        /// Attribute value.
        #[prost(message, required, tag = "2")]
        pub value: Value,
    }

    /// `MILSpec.Block`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Block {
        /// Block-local parameters (`while_loop` bodies); empty for a function's body.
        #[prost(message, repeated, tag = "1")]
        pub inputs: Vec<NamedValueType>,
        /// Names of the returned values, as raw bytes.
        #[prost(bytes = "bytes", repeated, tag = "2")]
        pub outputs: Vec<Bytes>,
        /// Operations in topological (program) order.
        #[prost(message, repeated, tag = "3")]
        pub operations: Vec<Operation>,
        /// Block attributes, in file order.
        #[prost(message, repeated, tag = "4")]
        pub attributes: Vec<ValueEntry>,
    }

    /// `MILSpec.Argument`: the bindings of one parameter.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Argument {
        /// Bindings in order; one normally, several for a tuple parameter.
        #[prost(message, repeated, tag = "1")]
        pub arguments: Vec<Binding>,
    }

    /// `Argument.Binding`: a value name or an inline value.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Binding {
        /// What is bound; `None` when unset (invalid).
        #[prost(oneof = "binding::Binding", tags = "1, 2")]
        pub binding: Option<binding::Binding>,
    }

    /// Nested types of [`Binding`].
    pub mod binding {
        use super::{Bytes, Value};

        /// `Argument.Binding.binding`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Binding {
            /// Name of a previously defined value.
            #[prost(bytes = "bytes", tag = "1")]
            Name(Bytes),
            /// An inline constant.
            #[prost(message, tag = "2")]
            Value(Value),
        }
    }

    /// `MILSpec.NamedValueType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NamedValueType {
        /// Value name, unique within the function.
        #[prost(bytes = "bytes", tag = "1")]
        pub name: Bytes,
        /// Its type; `None` when unset (invalid).
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<ValueType>,
    }

    /// `MILSpec.ValueType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueType {
        /// Which kind of type; `None` when unset (invalid).
        #[prost(oneof = "value_type::Type", tags = "1, 2, 3, 4, 5")]
        pub r#type: Option<value_type::Type>,
    }

    /// Nested types of [`ValueType`].
    pub mod value_type {
        use super::{DictionaryType, ListType, StateType, TensorType, TupleType};

        /// `ValueType.type`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Type {
            /// A tensor (scalars are rank-0 tensors).
            #[prost(message, tag = "1")]
            TensorType(TensorType),
            /// A list of values of one type.
            #[prost(message, tag = "2")]
            ListType(ListType),
            /// A tuple of values of given types.
            #[prost(message, tag = "3")]
            TupleType(TupleType),
            /// A dictionary.
            #[prost(message, tag = "4")]
            DictionaryType(DictionaryType),
            /// A state wrapping a value (a tensor in practice; iOS18 or later).
            #[prost(message, tag = "5")]
            StateType(StateType),
        }
    }

    /// `MILSpec.TensorType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorType {
        /// A [`DataType`](super::DataType) number; unknown numbers are kept.
        #[prost(int32, tag = "1")]
        pub data_type: i32,
        /// −1 = unknown rank, 0 = scalar.
        #[prost(int64, tag = "2")]
        pub rank: i64,
        /// One entry per dim, outermost first; length = `rank` (empty for scalars and unknown rank).
        #[prost(message, repeated, tag = "3")]
        pub dimensions: Vec<Dimension>,
        /// Tensor type attributes, in file order; usually empty.
        #[prost(message, repeated, tag = "4")]
        pub attributes: Vec<ValueEntry>,
    }

    /// `MILSpec.TupleType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TupleType {
        /// Element types, in order.
        #[prost(message, repeated, tag = "1")]
        pub types: Vec<ValueType>,
    }

    /// `MILSpec.ListType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ListType {
        /// Element type; `None` when unset.
        #[prost(message, optional, boxed, tag = "1")]
        pub r#type: Option<Box<ValueType>>,
        /// Length of the list; `None` when unset.
        #[prost(message, optional, tag = "2")]
        pub length: Option<Dimension>,
    }

    /// `MILSpec.DictionaryType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DictionaryType {
        /// Type of the keys; `None` when unset.
        #[prost(message, optional, boxed, tag = "1")]
        pub key_type: Option<Box<ValueType>>,
        /// Type of the values; `None` when unset.
        #[prost(message, optional, boxed, tag = "2")]
        pub value_type: Option<Box<ValueType>>,
    }

    /// `MILSpec.StateType`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct StateType {
        /// The type the state holds (a tensor in practice); `None` when unset (invalid).
        #[prost(message, optional, boxed, tag = "1")]
        pub wrapped_type: Option<Box<ValueType>>,
    }

    /// `MILSpec.Value`: a typed constant, immediate or file-backed.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Value {
        /// Free-text documentation; empty when none.
        #[prost(bytes = "bytes", tag = "1")]
        pub doc_string: Bytes,
        /// The value's type (for blobs: dtype and dims); `None` when unset.
        #[prost(message, optional, tag = "2")]
        pub r#type: Option<ValueType>,
        /// Where the data is; `None` when unset (invalid).
        #[prost(oneof = "value::Value", tags = "3, 5")]
        pub value: Option<value::Value>,
    }

    /// Nested types of [`Value`].
    pub mod value {
        use super::{BlobFileValue, ImmediateValue};

        /// `Value.value` (tag 4 is unused).
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            /// Data inline in the protobuf (tag 3).
            #[prost(message, tag = "3")]
            ImmediateValue(ImmediateValue),
            /// Data in a weight file (tag 5).
            #[prost(message, tag = "5")]
            BlobFileValue(BlobFileValue),
        }
    }

    /// `MILSpec.Value.ImmediateValue`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ImmediateValue {
        /// The data; `None` when unset (invalid).
        #[prost(oneof = "immediate_value::Value", tags = "1, 2, 3, 4")]
        pub value: Option<immediate_value::Value>,
    }

    /// Nested types of [`ImmediateValue`].
    pub mod immediate_value {
        use super::{DictionaryValue, ListValue, TensorValue, TupleValue};

        /// `ImmediateValue.value`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            /// A tensor (or scalar).
            #[prost(message, tag = "1")]
            Tensor(TensorValue),
            /// A tuple of values.
            #[prost(message, tag = "2")]
            Tuple(TupleValue),
            /// A list of values.
            #[prost(message, tag = "3")]
            List(ListValue),
            /// A dictionary of key/value pairs.
            #[prost(message, tag = "4")]
            Dictionary(DictionaryValue),
        }
    }

    /// `MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct BlobFileValue {
        /// Weight file path, e.g. `@model_path/weights/weight.bin`.
        #[prost(bytes = "bytes", tag = "1")]
        pub file_name: Bytes,
        /// Byte offset in the file of the blob's metadata record (not of the payload).
        #[prost(uint64, tag = "2")]
        pub offset: u64,
    }

    /// `MILSpec.TensorValue`: row-major elements in one of seven encodings.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorValue {
        /// The elements; `None` when unset (invalid).
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
            /// Elements, row-major, UTF-8 each.
            #[prost(bytes = "bytes", repeated, tag = "1")]
            pub values: Vec<Bytes>,
        }

        /// `TensorValue.RepeatedBytes`: a single byte string of little-endian elements.
        #[derive(Clone, PartialEq, prost::Message)]
        pub struct RepeatedBytes {
            /// Little-endian element bytes, row-major; sub-byte types packed LSB first.
            #[prost(bytes = "bytes", tag = "1")]
            pub values: Bytes,
        }

        /// `TensorValue.value`.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            /// fp32 elements.
            #[prost(message, tag = "1")]
            Floats(RepeatedFloats),
            /// int16, uint16 or int32 elements (int8/uint8 from coremltools before 7.0).
            #[prost(message, tag = "2")]
            Ints(RepeatedInts),
            /// bool elements.
            #[prost(message, tag = "3")]
            Bools(RepeatedBools),
            /// string elements.
            #[prost(message, tag = "4")]
            Strings(RepeatedStrings),
            /// int64 or uint64 elements.
            #[prost(message, tag = "5")]
            LongInts(RepeatedLongInts),
            /// fp64 elements.
            #[prost(message, tag = "6")]
            Doubles(RepeatedDoubles),
            /// fp16, 8-bit, uint32 and sub-byte elements as raw bytes.
            #[prost(message, tag = "7")]
            Bytes(RepeatedBytes),
        }
    }

    /// `MILSpec.TupleValue`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TupleValue {
        /// Elements, in order.
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<Value>,
    }

    /// `MILSpec.ListValue`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ListValue {
        /// Elements, in order.
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<Value>,
    }

    /// `MILSpec.DictionaryValue`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DictionaryValue {
        /// Entries, in file order.
        #[prost(message, repeated, tag = "1")]
        pub values: Vec<KeyValuePair>,
    }

    /// `DictionaryValue.KeyValuePair`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct KeyValuePair {
        /// The key; `None` when unset.
        #[prost(message, optional, tag = "1")]
        pub key: Option<Value>,
        /// The value; `None` when unset.
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
        message: super::error::decode_error_text(&e),
    })
}

/// Decodes the outline of a `Model` protobuf; `bytes` is shared by the operations, not copied.
pub fn decode_outline(bytes: prost::bytes::Bytes, path: &Path) -> Result<ModelOutline, ReadError> {
    use prost::Message;
    ModelOutline::decode(bytes).map_err(|e| ReadError::Protobuf {
        path: path.to_path_buf(),
        message: super::error::decode_error_text(&e),
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
    Malformed {
        /// Byte offset in the original bytes where decoding failed.
        offset: usize,
        /// What was wrong there.
        what: &'static str,
    },
    /// A replacement was asked for a field the original does not have and that cannot be added.
    #[error("the original model has no {what} to replace")]
    Missing {
        /// The field that was asked for, e.g. "sub-model at that position".
        what: &'static str,
    },
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
