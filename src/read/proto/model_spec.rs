//! The Model.proto messages (package `CoreML.Specification`, FORMAT.md §2) coreml-lint reads,
//! as prost messages. Field names follow the protobuf field names in snake case; only the tags
//! matter on the wire. Enum-typed fields are plain `i32` so that numbers newer than this file are
//! kept, not rejected. Model kinds coreml-lint does not analyse are oneof members typed as raw
//! bytes: they can be named and they re-encode unchanged.

use std::collections::BTreeMap;

use super::mil::Program;

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
