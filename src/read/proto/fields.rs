//! Each message's fields by key (field number and wire type), rendered by `codegen.rs` from
//! `table.rs`: do not edit; change the table and run
//! `COREML_LINT_BLESS=1 cargo test --lib read::proto::codegen`.
//!
//! A module per message (nested as in `messages.rs`, snake case): a constant per field holding its
//! key (`number << 3 | wire type`), and `Field`, the fields as read ([`super::wire::Read`]), each
//! with its payload borrowed: a varint as `u64`, a length-delimited field (strings, bytes,
//! messages, map entries, packed repeated numbers) as its bytes, `float` and `double` as their
//! bits. A oneof's members are fields of their own. A key the table does not give the message
//! (unpacked repeated numbers included) reads as `None`. `map_entry` is the entry of every
//! `map<string, _>`.

/// `CoreML.Specification.Model`: one model of some kind plus its interface description.
pub mod model {
    use crate::read::proto::wire::{self, Read};

    /// `specification_version`: field 1, varint.
    pub const SPECIFICATION_VERSION: u64 = 8;

    /// `description`: field 2, length-delimited.
    pub const DESCRIPTION: u64 = 18;

    /// `is_updatable`: field 10, varint.
    pub const IS_UPDATABLE: u64 = 80;

    /// `type.PipelineClassifier`: field 200, length-delimited.
    pub const PIPELINE_CLASSIFIER: u64 = 1602;

    /// `type.PipelineRegressor`: field 201, length-delimited.
    pub const PIPELINE_REGRESSOR: u64 = 1610;

    /// `type.Pipeline`: field 202, length-delimited.
    pub const PIPELINE: u64 = 1618;

    /// `type.GlmRegressor`: field 300, length-delimited.
    pub const GLM_REGRESSOR: u64 = 2402;

    /// `type.SupportVectorRegressor`: field 301, length-delimited.
    pub const SUPPORT_VECTOR_REGRESSOR: u64 = 2410;

    /// `type.TreeEnsembleRegressor`: field 302, length-delimited.
    pub const TREE_ENSEMBLE_REGRESSOR: u64 = 2418;

    /// `type.NeuralNetworkRegressor`: field 303, length-delimited.
    pub const NEURAL_NETWORK_REGRESSOR: u64 = 2426;

    /// `type.BayesianProbitRegressor`: field 304, length-delimited.
    pub const BAYESIAN_PROBIT_REGRESSOR: u64 = 2434;

    /// `type.GlmClassifier`: field 400, length-delimited.
    pub const GLM_CLASSIFIER: u64 = 3202;

    /// `type.SupportVectorClassifier`: field 401, length-delimited.
    pub const SUPPORT_VECTOR_CLASSIFIER: u64 = 3210;

    /// `type.TreeEnsembleClassifier`: field 402, length-delimited.
    pub const TREE_ENSEMBLE_CLASSIFIER: u64 = 3218;

    /// `type.NeuralNetworkClassifier`: field 403, length-delimited.
    pub const NEURAL_NETWORK_CLASSIFIER: u64 = 3226;

    /// `type.KNearestNeighborsClassifier`: field 404, length-delimited.
    pub const K_NEAREST_NEIGHBORS_CLASSIFIER: u64 = 3234;

    /// `type.NeuralNetwork`: field 500, length-delimited.
    pub const NEURAL_NETWORK: u64 = 4002;

    /// `type.ItemSimilarityRecommender`: field 501, length-delimited.
    pub const ITEM_SIMILARITY_RECOMMENDER: u64 = 4010;

    /// `type.MlProgram`: field 502, length-delimited.
    pub const ML_PROGRAM: u64 = 4018;

    /// `type.CustomModel`: field 555, length-delimited.
    pub const CUSTOM_MODEL: u64 = 4442;

    /// `type.LinkedModel`: field 556, length-delimited.
    pub const LINKED_MODEL: u64 = 4450;

    /// `type.ClassConfidenceThresholding`: field 560, length-delimited.
    pub const CLASS_CONFIDENCE_THRESHOLDING: u64 = 4482;

    /// `type.OneHotEncoder`: field 600, length-delimited.
    pub const ONE_HOT_ENCODER: u64 = 4802;

    /// `type.Imputer`: field 601, length-delimited.
    pub const IMPUTER: u64 = 4810;

    /// `type.FeatureVectorizer`: field 602, length-delimited.
    pub const FEATURE_VECTORIZER: u64 = 4818;

    /// `type.DictVectorizer`: field 603, length-delimited.
    pub const DICT_VECTORIZER: u64 = 4826;

    /// `type.Scaler`: field 604, length-delimited.
    pub const SCALER: u64 = 4834;

    /// `type.CategoricalMapping`: field 606, length-delimited.
    pub const CATEGORICAL_MAPPING: u64 = 4850;

    /// `type.Normalizer`: field 607, length-delimited.
    pub const NORMALIZER: u64 = 4858;

    /// `type.ArrayFeatureExtractor`: field 609, length-delimited.
    pub const ARRAY_FEATURE_EXTRACTOR: u64 = 4874;

    /// `type.NonMaximumSuppression`: field 610, length-delimited.
    pub const NON_MAXIMUM_SUPPRESSION: u64 = 4882;

    /// `type.Identity`: field 900, length-delimited.
    pub const IDENTITY: u64 = 7202;

    /// `type.TextClassifier`: field 2000, length-delimited.
    pub const TEXT_CLASSIFIER: u64 = 16002;

    /// `type.WordTagger`: field 2001, length-delimited.
    pub const WORD_TAGGER: u64 = 16010;

    /// `type.VisionFeaturePrint`: field 2002, length-delimited.
    pub const VISION_FEATURE_PRINT: u64 = 16018;

    /// `type.SoundAnalysisPreprocessing`: field 2003, length-delimited.
    pub const SOUND_ANALYSIS_PREPROCESSING: u64 = 16026;

    /// `type.Gazetteer`: field 2004, length-delimited.
    pub const GAZETTEER: u64 = 16034;

    /// `type.WordEmbedding`: field 2005, length-delimited.
    pub const WORD_EMBEDDING: u64 = 16042;

    /// `type.AudioFeaturePrint`: field 2006, length-delimited.
    pub const AUDIO_FEATURE_PRINT: u64 = 16050;

    /// `type.SerializedModel`: field 3000, length-delimited.
    pub const SERIALIZED_MODEL: u64 = 24002;

    /// A field of a `Model` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `specification_version` (varint).
        SpecificationVersion(u64),
        /// `description` (length-delimited).
        Description(&'a [u8]),
        /// `is_updatable` (varint).
        IsUpdatable(u64),
        /// `type.PipelineClassifier` (length-delimited).
        PipelineClassifier(&'a [u8]),
        /// `type.PipelineRegressor` (length-delimited).
        PipelineRegressor(&'a [u8]),
        /// `type.Pipeline` (length-delimited).
        Pipeline(&'a [u8]),
        /// `type.GlmRegressor` (length-delimited).
        GlmRegressor(&'a [u8]),
        /// `type.SupportVectorRegressor` (length-delimited).
        SupportVectorRegressor(&'a [u8]),
        /// `type.TreeEnsembleRegressor` (length-delimited).
        TreeEnsembleRegressor(&'a [u8]),
        /// `type.NeuralNetworkRegressor` (length-delimited).
        NeuralNetworkRegressor(&'a [u8]),
        /// `type.BayesianProbitRegressor` (length-delimited).
        BayesianProbitRegressor(&'a [u8]),
        /// `type.GlmClassifier` (length-delimited).
        GlmClassifier(&'a [u8]),
        /// `type.SupportVectorClassifier` (length-delimited).
        SupportVectorClassifier(&'a [u8]),
        /// `type.TreeEnsembleClassifier` (length-delimited).
        TreeEnsembleClassifier(&'a [u8]),
        /// `type.NeuralNetworkClassifier` (length-delimited).
        NeuralNetworkClassifier(&'a [u8]),
        /// `type.KNearestNeighborsClassifier` (length-delimited).
        KNearestNeighborsClassifier(&'a [u8]),
        /// `type.NeuralNetwork` (length-delimited).
        NeuralNetwork(&'a [u8]),
        /// `type.ItemSimilarityRecommender` (length-delimited).
        ItemSimilarityRecommender(&'a [u8]),
        /// `type.MlProgram` (length-delimited).
        MlProgram(&'a [u8]),
        /// `type.CustomModel` (length-delimited).
        CustomModel(&'a [u8]),
        /// `type.LinkedModel` (length-delimited).
        LinkedModel(&'a [u8]),
        /// `type.ClassConfidenceThresholding` (length-delimited).
        ClassConfidenceThresholding(&'a [u8]),
        /// `type.OneHotEncoder` (length-delimited).
        OneHotEncoder(&'a [u8]),
        /// `type.Imputer` (length-delimited).
        Imputer(&'a [u8]),
        /// `type.FeatureVectorizer` (length-delimited).
        FeatureVectorizer(&'a [u8]),
        /// `type.DictVectorizer` (length-delimited).
        DictVectorizer(&'a [u8]),
        /// `type.Scaler` (length-delimited).
        Scaler(&'a [u8]),
        /// `type.CategoricalMapping` (length-delimited).
        CategoricalMapping(&'a [u8]),
        /// `type.Normalizer` (length-delimited).
        Normalizer(&'a [u8]),
        /// `type.ArrayFeatureExtractor` (length-delimited).
        ArrayFeatureExtractor(&'a [u8]),
        /// `type.NonMaximumSuppression` (length-delimited).
        NonMaximumSuppression(&'a [u8]),
        /// `type.Identity` (length-delimited).
        Identity(&'a [u8]),
        /// `type.TextClassifier` (length-delimited).
        TextClassifier(&'a [u8]),
        /// `type.WordTagger` (length-delimited).
        WordTagger(&'a [u8]),
        /// `type.VisionFeaturePrint` (length-delimited).
        VisionFeaturePrint(&'a [u8]),
        /// `type.SoundAnalysisPreprocessing` (length-delimited).
        SoundAnalysisPreprocessing(&'a [u8]),
        /// `type.Gazetteer` (length-delimited).
        Gazetteer(&'a [u8]),
        /// `type.WordEmbedding` (length-delimited).
        WordEmbedding(&'a [u8]),
        /// `type.AudioFeaturePrint` (length-delimited).
        AudioFeaturePrint(&'a [u8]),
        /// `type.SerializedModel` (length-delimited).
        SerializedModel(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                SPECIFICATION_VERSION => Self::SpecificationVersion(wire::varint(b)?),
                DESCRIPTION => Self::Description(wire::len(b)?),
                IS_UPDATABLE => Self::IsUpdatable(wire::varint(b)?),
                PIPELINE_CLASSIFIER => Self::PipelineClassifier(wire::len(b)?),
                PIPELINE_REGRESSOR => Self::PipelineRegressor(wire::len(b)?),
                PIPELINE => Self::Pipeline(wire::len(b)?),
                GLM_REGRESSOR => Self::GlmRegressor(wire::len(b)?),
                SUPPORT_VECTOR_REGRESSOR => Self::SupportVectorRegressor(wire::len(b)?),
                TREE_ENSEMBLE_REGRESSOR => Self::TreeEnsembleRegressor(wire::len(b)?),
                NEURAL_NETWORK_REGRESSOR => Self::NeuralNetworkRegressor(wire::len(b)?),
                BAYESIAN_PROBIT_REGRESSOR => Self::BayesianProbitRegressor(wire::len(b)?),
                GLM_CLASSIFIER => Self::GlmClassifier(wire::len(b)?),
                SUPPORT_VECTOR_CLASSIFIER => Self::SupportVectorClassifier(wire::len(b)?),
                TREE_ENSEMBLE_CLASSIFIER => Self::TreeEnsembleClassifier(wire::len(b)?),
                NEURAL_NETWORK_CLASSIFIER => Self::NeuralNetworkClassifier(wire::len(b)?),
                K_NEAREST_NEIGHBORS_CLASSIFIER => Self::KNearestNeighborsClassifier(wire::len(b)?),
                NEURAL_NETWORK => Self::NeuralNetwork(wire::len(b)?),
                ITEM_SIMILARITY_RECOMMENDER => Self::ItemSimilarityRecommender(wire::len(b)?),
                ML_PROGRAM => Self::MlProgram(wire::len(b)?),
                CUSTOM_MODEL => Self::CustomModel(wire::len(b)?),
                LINKED_MODEL => Self::LinkedModel(wire::len(b)?),
                CLASS_CONFIDENCE_THRESHOLDING => Self::ClassConfidenceThresholding(wire::len(b)?),
                ONE_HOT_ENCODER => Self::OneHotEncoder(wire::len(b)?),
                IMPUTER => Self::Imputer(wire::len(b)?),
                FEATURE_VECTORIZER => Self::FeatureVectorizer(wire::len(b)?),
                DICT_VECTORIZER => Self::DictVectorizer(wire::len(b)?),
                SCALER => Self::Scaler(wire::len(b)?),
                CATEGORICAL_MAPPING => Self::CategoricalMapping(wire::len(b)?),
                NORMALIZER => Self::Normalizer(wire::len(b)?),
                ARRAY_FEATURE_EXTRACTOR => Self::ArrayFeatureExtractor(wire::len(b)?),
                NON_MAXIMUM_SUPPRESSION => Self::NonMaximumSuppression(wire::len(b)?),
                IDENTITY => Self::Identity(wire::len(b)?),
                TEXT_CLASSIFIER => Self::TextClassifier(wire::len(b)?),
                WORD_TAGGER => Self::WordTagger(wire::len(b)?),
                VISION_FEATURE_PRINT => Self::VisionFeaturePrint(wire::len(b)?),
                SOUND_ANALYSIS_PREPROCESSING => Self::SoundAnalysisPreprocessing(wire::len(b)?),
                GAZETTEER => Self::Gazetteer(wire::len(b)?),
                WORD_EMBEDDING => Self::WordEmbedding(wire::len(b)?),
                AUDIO_FEATURE_PRINT => Self::AudioFeaturePrint(wire::len(b)?),
                SERIALIZED_MODEL => Self::SerializedModel(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `Pipeline`: models run one after another.
pub mod pipeline {
    use crate::read::proto::wire::{self, Read};

    /// `models`: field 1, length-delimited.
    pub const MODELS: u64 = 10;

    /// `names`: field 2, length-delimited.
    pub const NAMES: u64 = 18;

    /// A field of a `Pipeline` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `models` (length-delimited).
        Models(&'a [u8]),
        /// `names` (length-delimited).
        Names(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                MODELS => Self::Models(wire::len(b)?),
                NAMES => Self::Names(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `PipelineClassifier` and `PipelineRegressor` as far as coreml-lint reads them: the pipeline in field 1 (the owned `Model` keeps them raw).
pub mod pipeline_holder {
    use crate::read::proto::wire::{self, Read};

    /// `pipeline`: field 1, length-delimited.
    pub const PIPELINE: u64 = 10;

    /// A field of a `PipelineHolder` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `pipeline` (length-delimited).
        Pipeline(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                PIPELINE => Self::Pipeline(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `SerializedModel`: an opaque model identified by a string.
pub mod serialized_model {
    use crate::read::proto::wire::{self, Read};

    /// `identifier`: field 1, length-delimited.
    pub const IDENTIFIER: u64 = 10;

    /// `model`: field 2, length-delimited.
    pub const MODEL: u64 = 18;

    /// A field of a `SerializedModel` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `identifier` (length-delimited).
        Identifier(&'a [u8]),
        /// `model` (length-delimited).
        Model(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                IDENTIFIER => Self::Identifier(wire::len(b)?),
                MODEL => Self::Model(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `ModelDescription`: inputs, outputs, states, per-function descriptions and metadata.
pub mod model_description {
    use crate::read::proto::wire::{self, Read};

    /// `input`: field 1, length-delimited.
    pub const INPUT: u64 = 10;

    /// `output`: field 10, length-delimited.
    pub const OUTPUT: u64 = 82;

    /// `predicted_feature_name`: field 11, length-delimited.
    pub const PREDICTED_FEATURE_NAME: u64 = 90;

    /// `predicted_probabilities_name`: field 12, length-delimited.
    pub const PREDICTED_PROBABILITIES_NAME: u64 = 98;

    /// `state`: field 13, length-delimited.
    pub const STATE: u64 = 106;

    /// `functions`: field 20, length-delimited.
    pub const FUNCTIONS: u64 = 162;

    /// `default_function_name`: field 21, length-delimited.
    pub const DEFAULT_FUNCTION_NAME: u64 = 170;

    /// `training_input`: field 50, length-delimited.
    pub const TRAINING_INPUT: u64 = 402;

    /// `metadata`: field 100, length-delimited.
    pub const METADATA: u64 = 802;

    /// A field of a `ModelDescription` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `input` (length-delimited).
        Input(&'a [u8]),
        /// `output` (length-delimited).
        Output(&'a [u8]),
        /// `predicted_feature_name` (length-delimited).
        PredictedFeatureName(&'a [u8]),
        /// `predicted_probabilities_name` (length-delimited).
        PredictedProbabilitiesName(&'a [u8]),
        /// `state` (length-delimited).
        State(&'a [u8]),
        /// `functions` (length-delimited).
        Functions(&'a [u8]),
        /// `default_function_name` (length-delimited).
        DefaultFunctionName(&'a [u8]),
        /// `training_input` (length-delimited).
        TrainingInput(&'a [u8]),
        /// `metadata` (length-delimited).
        Metadata(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                INPUT => Self::Input(wire::len(b)?),
                OUTPUT => Self::Output(wire::len(b)?),
                PREDICTED_FEATURE_NAME => Self::PredictedFeatureName(wire::len(b)?),
                PREDICTED_PROBABILITIES_NAME => Self::PredictedProbabilitiesName(wire::len(b)?),
                STATE => Self::State(wire::len(b)?),
                FUNCTIONS => Self::Functions(wire::len(b)?),
                DEFAULT_FUNCTION_NAME => Self::DefaultFunctionName(wire::len(b)?),
                TRAINING_INPUT => Self::TrainingInput(wire::len(b)?),
                METADATA => Self::Metadata(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `FunctionDescription`: the interface of one function of a multifunction model.
pub mod function_description {
    use crate::read::proto::wire::{self, Read};

    /// `name`: field 1, length-delimited.
    pub const NAME: u64 = 10;

    /// `input`: field 2, length-delimited.
    pub const INPUT: u64 = 18;

    /// `output`: field 3, length-delimited.
    pub const OUTPUT: u64 = 26;

    /// `predicted_feature_name`: field 4, length-delimited.
    pub const PREDICTED_FEATURE_NAME: u64 = 34;

    /// `predicted_probabilities_name`: field 5, length-delimited.
    pub const PREDICTED_PROBABILITIES_NAME: u64 = 42;

    /// `state`: field 6, length-delimited.
    pub const STATE: u64 = 50;

    /// A field of a `FunctionDescription` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `name` (length-delimited).
        Name(&'a [u8]),
        /// `input` (length-delimited).
        Input(&'a [u8]),
        /// `output` (length-delimited).
        Output(&'a [u8]),
        /// `predicted_feature_name` (length-delimited).
        PredictedFeatureName(&'a [u8]),
        /// `predicted_probabilities_name` (length-delimited).
        PredictedProbabilitiesName(&'a [u8]),
        /// `state` (length-delimited).
        State(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                NAME => Self::Name(wire::len(b)?),
                INPUT => Self::Input(wire::len(b)?),
                OUTPUT => Self::Output(wire::len(b)?),
                PREDICTED_FEATURE_NAME => Self::PredictedFeatureName(wire::len(b)?),
                PREDICTED_PROBABILITIES_NAME => Self::PredictedProbabilitiesName(wire::len(b)?),
                STATE => Self::State(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `FeatureDescription`: a named, typed input, output or state.
pub mod feature_description {
    use crate::read::proto::wire::{self, Read};

    /// `name`: field 1, length-delimited.
    pub const NAME: u64 = 10;

    /// `short_description`: field 2, length-delimited.
    pub const SHORT_DESCRIPTION: u64 = 18;

    /// `type`: field 3, length-delimited.
    pub const TYPE: u64 = 26;

    /// A field of a `FeatureDescription` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `name` (length-delimited).
        Name(&'a [u8]),
        /// `short_description` (length-delimited).
        ShortDescription(&'a [u8]),
        /// `type` (length-delimited).
        Type(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                NAME => Self::Name(wire::len(b)?),
                SHORT_DESCRIPTION => Self::ShortDescription(wire::len(b)?),
                TYPE => Self::Type(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `Metadata`: free-text fields and the user-defined string map.
pub mod metadata {
    use crate::read::proto::wire::{self, Read};

    /// `short_description`: field 1, length-delimited.
    pub const SHORT_DESCRIPTION: u64 = 10;

    /// `version_string`: field 2, length-delimited.
    pub const VERSION_STRING: u64 = 18;

    /// `author`: field 3, length-delimited.
    pub const AUTHOR: u64 = 26;

    /// `license`: field 4, length-delimited.
    pub const LICENSE: u64 = 34;

    /// `user_defined`: field 100, length-delimited.
    pub const USER_DEFINED: u64 = 802;

    /// A field of a `Metadata` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `short_description` (length-delimited).
        ShortDescription(&'a [u8]),
        /// `version_string` (length-delimited).
        VersionString(&'a [u8]),
        /// `author` (length-delimited).
        Author(&'a [u8]),
        /// `license` (length-delimited).
        License(&'a [u8]),
        /// `user_defined` (length-delimited).
        UserDefined(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                SHORT_DESCRIPTION => Self::ShortDescription(wire::len(b)?),
                VERSION_STRING => Self::VersionString(wire::len(b)?),
                AUTHOR => Self::Author(wire::len(b)?),
                LICENSE => Self::License(wire::len(b)?),
                USER_DEFINED => Self::UserDefined(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `FeatureType`: the type of a described feature.
pub mod feature_type {
    use crate::read::proto::wire::{self, Read};

    /// `type.Int64Type`: field 1, length-delimited.
    pub const INT64_TYPE: u64 = 10;

    /// `type.DoubleType`: field 2, length-delimited.
    pub const DOUBLE_TYPE: u64 = 18;

    /// `type.StringType`: field 3, length-delimited.
    pub const STRING_TYPE: u64 = 26;

    /// `type.ImageType`: field 4, length-delimited.
    pub const IMAGE_TYPE: u64 = 34;

    /// `type.MultiArrayType`: field 5, length-delimited.
    pub const MULTI_ARRAY_TYPE: u64 = 42;

    /// `type.DictionaryType`: field 6, length-delimited.
    pub const DICTIONARY_TYPE: u64 = 50;

    /// `type.SequenceType`: field 7, length-delimited.
    pub const SEQUENCE_TYPE: u64 = 58;

    /// `type.StateType`: field 8, length-delimited.
    pub const STATE_TYPE: u64 = 66;

    /// `is_optional`: field 1000, varint.
    pub const IS_OPTIONAL: u64 = 8000;

    /// A field of a `FeatureType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `type.Int64Type` (length-delimited).
        Int64Type(&'a [u8]),
        /// `type.DoubleType` (length-delimited).
        DoubleType(&'a [u8]),
        /// `type.StringType` (length-delimited).
        StringType(&'a [u8]),
        /// `type.ImageType` (length-delimited).
        ImageType(&'a [u8]),
        /// `type.MultiArrayType` (length-delimited).
        MultiArrayType(&'a [u8]),
        /// `type.DictionaryType` (length-delimited).
        DictionaryType(&'a [u8]),
        /// `type.SequenceType` (length-delimited).
        SequenceType(&'a [u8]),
        /// `type.StateType` (length-delimited).
        StateType(&'a [u8]),
        /// `is_optional` (varint).
        IsOptional(u64),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                INT64_TYPE => Self::Int64Type(wire::len(b)?),
                DOUBLE_TYPE => Self::DoubleType(wire::len(b)?),
                STRING_TYPE => Self::StringType(wire::len(b)?),
                IMAGE_TYPE => Self::ImageType(wire::len(b)?),
                MULTI_ARRAY_TYPE => Self::MultiArrayType(wire::len(b)?),
                DICTIONARY_TYPE => Self::DictionaryType(wire::len(b)?),
                SEQUENCE_TYPE => Self::SequenceType(wire::len(b)?),
                STATE_TYPE => Self::StateType(wire::len(b)?),
                IS_OPTIONAL => Self::IsOptional(wire::varint(b)?),
                _ => return None,
            })
        }
    }
}

/// `SizeRange`: a closed range; a negative upper bound means unbounded.
pub mod size_range {
    use crate::read::proto::wire::{self, Read};

    /// `lower_bound`: field 1, varint.
    pub const LOWER_BOUND: u64 = 8;

    /// `upper_bound`: field 2, varint.
    pub const UPPER_BOUND: u64 = 16;

    /// A field of a `SizeRange` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field {
        /// `lower_bound` (varint).
        LowerBound(u64),
        /// `upper_bound` (varint).
        UpperBound(u64),
    }

    impl<'a> Read<'a> for Field {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                LOWER_BOUND => Self::LowerBound(wire::varint(b)?),
                UPPER_BOUND => Self::UpperBound(wire::varint(b)?),
                _ => return None,
            })
        }
    }
}

/// `ImageFeatureType`.
pub mod image_feature_type {
    use crate::read::proto::wire::{self, Read};

    /// `width`: field 1, varint.
    pub const WIDTH: u64 = 8;

    /// `height`: field 2, varint.
    pub const HEIGHT: u64 = 16;

    /// `color_space`: field 3, varint.
    pub const COLOR_SPACE: u64 = 24;

    /// `size_flexibility.EnumeratedSizes`: field 21, length-delimited.
    pub const ENUMERATED_SIZES: u64 = 170;

    /// `size_flexibility.ImageSizeRange`: field 31, length-delimited.
    pub const IMAGE_SIZE_RANGE: u64 = 250;

    /// A field of a `ImageFeatureType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `width` (varint).
        Width(u64),
        /// `height` (varint).
        Height(u64),
        /// `color_space` (varint).
        ColorSpace(u64),
        /// `size_flexibility.EnumeratedSizes` (length-delimited).
        EnumeratedSizes(&'a [u8]),
        /// `size_flexibility.ImageSizeRange` (length-delimited).
        ImageSizeRange(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                WIDTH => Self::Width(wire::varint(b)?),
                HEIGHT => Self::Height(wire::varint(b)?),
                COLOR_SPACE => Self::ColorSpace(wire::varint(b)?),
                ENUMERATED_SIZES => Self::EnumeratedSizes(wire::len(b)?),
                IMAGE_SIZE_RANGE => Self::ImageSizeRange(wire::len(b)?),
                _ => return None,
            })
        }
    }

    /// `ImageFeatureType.ImageSize`.
    pub mod image_size {
        use crate::read::proto::wire::{self, Read};

        /// `width`: field 1, varint.
        pub const WIDTH: u64 = 8;

        /// `height`: field 2, varint.
        pub const HEIGHT: u64 = 16;

        /// A field of a `ImageSize` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field {
            /// `width` (varint).
            Width(u64),
            /// `height` (varint).
            Height(u64),
        }

        impl<'a> Read<'a> for Field {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    WIDTH => Self::Width(wire::varint(b)?),
                    HEIGHT => Self::Height(wire::varint(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `ImageFeatureType.EnumeratedImageSizes`.
    pub mod enumerated_image_sizes {
        use crate::read::proto::wire::{self, Read};

        /// `sizes`: field 1, length-delimited.
        pub const SIZES: u64 = 10;

        /// A field of a `EnumeratedImageSizes` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `sizes` (length-delimited).
            Sizes(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    SIZES => Self::Sizes(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `ImageFeatureType.ImageSizeRange`.
    pub mod image_size_range {
        use crate::read::proto::wire::{self, Read};

        /// `width_range`: field 1, length-delimited.
        pub const WIDTH_RANGE: u64 = 10;

        /// `height_range`: field 2, length-delimited.
        pub const HEIGHT_RANGE: u64 = 18;

        /// A field of a `ImageSizeRange` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `width_range` (length-delimited).
            WidthRange(&'a [u8]),
            /// `height_range` (length-delimited).
            HeightRange(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    WIDTH_RANGE => Self::WidthRange(wire::len(b)?),
                    HEIGHT_RANGE => Self::HeightRange(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }
}

/// `ArrayFeatureType`: a MultiArray.
pub mod array_feature_type {
    use crate::read::proto::wire::{self, Read};

    /// `shape`: field 1, length-delimited.
    pub const SHAPE: u64 = 10;

    /// `data_type`: field 2, varint.
    pub const DATA_TYPE: u64 = 16;

    /// `shape_flexibility.EnumeratedShapes`: field 21, length-delimited.
    pub const ENUMERATED_SHAPES: u64 = 170;

    /// `shape_flexibility.ShapeRange`: field 31, length-delimited.
    pub const SHAPE_RANGE: u64 = 250;

    /// `default_optional_value.IntDefaultValue`: field 41, varint.
    pub const INT_DEFAULT_VALUE: u64 = 328;

    /// `default_optional_value.FloatDefaultValue`: field 51, 32-bit.
    pub const FLOAT_DEFAULT_VALUE: u64 = 413;

    /// `default_optional_value.DoubleDefaultValue`: field 61, 64-bit.
    pub const DOUBLE_DEFAULT_VALUE: u64 = 489;

    /// A field of a `ArrayFeatureType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `shape` (length-delimited).
        Shape(&'a [u8]),
        /// `data_type` (varint).
        DataType(u64),
        /// `shape_flexibility.EnumeratedShapes` (length-delimited).
        EnumeratedShapes(&'a [u8]),
        /// `shape_flexibility.ShapeRange` (length-delimited).
        ShapeRange(&'a [u8]),
        /// `default_optional_value.IntDefaultValue` (varint).
        IntDefaultValue(u64),
        /// `default_optional_value.FloatDefaultValue` (32-bit).
        FloatDefaultValue(u32),
        /// `default_optional_value.DoubleDefaultValue` (64-bit).
        DoubleDefaultValue(u64),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                SHAPE => Self::Shape(wire::len(b)?),
                DATA_TYPE => Self::DataType(wire::varint(b)?),
                ENUMERATED_SHAPES => Self::EnumeratedShapes(wire::len(b)?),
                SHAPE_RANGE => Self::ShapeRange(wire::len(b)?),
                INT_DEFAULT_VALUE => Self::IntDefaultValue(wire::varint(b)?),
                FLOAT_DEFAULT_VALUE => Self::FloatDefaultValue(wire::fixed32(b)?),
                DOUBLE_DEFAULT_VALUE => Self::DoubleDefaultValue(wire::fixed64(b)?),
                _ => return None,
            })
        }
    }

    /// `ArrayFeatureType.Shape`.
    pub mod shape {
        use crate::read::proto::wire::{self, Read};

        /// `shape`: field 1, length-delimited.
        pub const SHAPE: u64 = 10;

        /// A field of a `Shape` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `shape` (length-delimited).
            Shape(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    SHAPE => Self::Shape(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `ArrayFeatureType.EnumeratedShapes`.
    pub mod enumerated_shapes {
        use crate::read::proto::wire::{self, Read};

        /// `shapes`: field 1, length-delimited.
        pub const SHAPES: u64 = 10;

        /// A field of a `EnumeratedShapes` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `shapes` (length-delimited).
            Shapes(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    SHAPES => Self::Shapes(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `ArrayFeatureType.ShapeRange`: one range per dimension.
    pub mod shape_range {
        use crate::read::proto::wire::{self, Read};

        /// `size_ranges`: field 1, length-delimited.
        pub const SIZE_RANGES: u64 = 10;

        /// A field of a `ShapeRange` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `size_ranges` (length-delimited).
            SizeRanges(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    SIZE_RANGES => Self::SizeRanges(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }
}

/// `DictionaryFeatureType`.
pub mod dictionary_feature_type {
    use crate::read::proto::wire::{self, Read};

    /// `key_type.Int64KeyType`: field 1, length-delimited.
    pub const INT64_KEY_TYPE: u64 = 10;

    /// `key_type.StringKeyType`: field 2, length-delimited.
    pub const STRING_KEY_TYPE: u64 = 18;

    /// A field of a `DictionaryFeatureType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `key_type.Int64KeyType` (length-delimited).
        Int64KeyType(&'a [u8]),
        /// `key_type.StringKeyType` (length-delimited).
        StringKeyType(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                INT64_KEY_TYPE => Self::Int64KeyType(wire::len(b)?),
                STRING_KEY_TYPE => Self::StringKeyType(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `SequenceFeatureType`.
pub mod sequence_feature_type {
    use crate::read::proto::wire::{self, Read};

    /// `type.Int64Type`: field 1, length-delimited.
    pub const INT64_TYPE: u64 = 10;

    /// `type.StringType`: field 3, length-delimited.
    pub const STRING_TYPE: u64 = 26;

    /// `size_range`: field 101, length-delimited.
    pub const SIZE_RANGE: u64 = 810;

    /// A field of a `SequenceFeatureType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `type.Int64Type` (length-delimited).
        Int64Type(&'a [u8]),
        /// `type.StringType` (length-delimited).
        StringType(&'a [u8]),
        /// `size_range` (length-delimited).
        SizeRange(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                INT64_TYPE => Self::Int64Type(wire::len(b)?),
                STRING_TYPE => Self::StringType(wire::len(b)?),
                SIZE_RANGE => Self::SizeRange(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `StateFeatureType`: a state wrapping a fixed-shape array.
pub mod state_feature_type {
    use crate::read::proto::wire::{self, Read};

    /// `type.ArrayType`: field 1, length-delimited.
    pub const ARRAY_TYPE: u64 = 10;

    /// A field of a `StateFeatureType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `type.ArrayType` (length-delimited).
        ArrayType(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                ARRAY_TYPE => Self::ArrayType(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.Program`.
pub mod program {
    use crate::read::proto::wire::{self, Read};

    /// `version`: field 1, varint.
    pub const VERSION: u64 = 8;

    /// `functions`: field 2, length-delimited.
    pub const FUNCTIONS: u64 = 18;

    /// `doc_string`: field 3, length-delimited.
    pub const DOC_STRING: u64 = 26;

    /// `attributes`: field 4, length-delimited.
    pub const ATTRIBUTES: u64 = 34;

    /// A field of a `Program` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `version` (varint).
        Version(u64),
        /// `functions` (length-delimited).
        Functions(&'a [u8]),
        /// `doc_string` (length-delimited).
        DocString(&'a [u8]),
        /// `attributes` (length-delimited).
        Attributes(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                VERSION => Self::Version(wire::varint(b)?),
                FUNCTIONS => Self::Functions(wire::len(b)?),
                DOC_STRING => Self::DocString(wire::len(b)?),
                ATTRIBUTES => Self::Attributes(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.Function`.
pub mod function {
    use crate::read::proto::wire::{self, Read};

    /// `inputs`: field 1, length-delimited.
    pub const INPUTS: u64 = 10;

    /// `opset`: field 2, length-delimited.
    pub const OPSET: u64 = 18;

    /// `block_specializations`: field 3, length-delimited.
    pub const BLOCK_SPECIALIZATIONS: u64 = 26;

    /// `attributes`: field 4, length-delimited.
    pub const ATTRIBUTES: u64 = 34;

    /// A field of a `Function` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `inputs` (length-delimited).
        Inputs(&'a [u8]),
        /// `opset` (length-delimited).
        Opset(&'a [u8]),
        /// `block_specializations` (length-delimited).
        BlockSpecializations(&'a [u8]),
        /// `attributes` (length-delimited).
        Attributes(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                INPUTS => Self::Inputs(wire::len(b)?),
                OPSET => Self::Opset(wire::len(b)?),
                BLOCK_SPECIALIZATIONS => Self::BlockSpecializations(wire::len(b)?),
                ATTRIBUTES => Self::Attributes(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.Block`.
pub mod block {
    use crate::read::proto::wire::{self, Read};

    /// `inputs`: field 1, length-delimited.
    pub const INPUTS: u64 = 10;

    /// `outputs`: field 2, length-delimited.
    pub const OUTPUTS: u64 = 18;

    /// `operations`: field 3, length-delimited.
    pub const OPERATIONS: u64 = 26;

    /// `attributes`: field 4, length-delimited.
    pub const ATTRIBUTES: u64 = 34;

    /// A field of a `Block` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `inputs` (length-delimited).
        Inputs(&'a [u8]),
        /// `outputs` (length-delimited).
        Outputs(&'a [u8]),
        /// `operations` (length-delimited).
        Operations(&'a [u8]),
        /// `attributes` (length-delimited).
        Attributes(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                INPUTS => Self::Inputs(wire::len(b)?),
                OUTPUTS => Self::Outputs(wire::len(b)?),
                OPERATIONS => Self::Operations(wire::len(b)?),
                ATTRIBUTES => Self::Attributes(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.Operation`.
pub mod operation {
    use crate::read::proto::wire::{self, Read};

    /// `type`: field 1, length-delimited.
    pub const TYPE: u64 = 10;

    /// `inputs`: field 2, length-delimited.
    pub const INPUTS: u64 = 18;

    /// `outputs`: field 3, length-delimited.
    pub const OUTPUTS: u64 = 26;

    /// `blocks`: field 4, length-delimited.
    pub const BLOCKS: u64 = 34;

    /// `attributes`: field 5, length-delimited.
    pub const ATTRIBUTES: u64 = 42;

    /// A field of a `Operation` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `type` (length-delimited).
        Type(&'a [u8]),
        /// `inputs` (length-delimited).
        Inputs(&'a [u8]),
        /// `outputs` (length-delimited).
        Outputs(&'a [u8]),
        /// `blocks` (length-delimited).
        Blocks(&'a [u8]),
        /// `attributes` (length-delimited).
        Attributes(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                TYPE => Self::Type(wire::len(b)?),
                INPUTS => Self::Inputs(wire::len(b)?),
                OUTPUTS => Self::Outputs(wire::len(b)?),
                BLOCKS => Self::Blocks(wire::len(b)?),
                ATTRIBUTES => Self::Attributes(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.Argument`: the bindings of one parameter.
pub mod argument {
    use crate::read::proto::wire::{self, Read};

    /// `arguments`: field 1, length-delimited.
    pub const ARGUMENTS: u64 = 10;

    /// A field of a `Argument` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `arguments` (length-delimited).
        Arguments(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                ARGUMENTS => Self::Arguments(wire::len(b)?),
                _ => return None,
            })
        }
    }

    /// `Argument.Binding`: a value name or an inline value.
    pub mod binding {
        use crate::read::proto::wire::{self, Read};

        /// `binding.Name`: field 1, length-delimited.
        pub const NAME: u64 = 10;

        /// `binding.Value`: field 2, length-delimited.
        pub const VALUE: u64 = 18;

        /// A field of a `Binding` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `binding.Name` (length-delimited).
            Name(&'a [u8]),
            /// `binding.Value` (length-delimited).
            Value(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    NAME => Self::Name(wire::len(b)?),
                    VALUE => Self::Value(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }
}

/// `MILSpec.NamedValueType`.
pub mod named_value_type {
    use crate::read::proto::wire::{self, Read};

    /// `name`: field 1, length-delimited.
    pub const NAME: u64 = 10;

    /// `type`: field 2, length-delimited.
    pub const TYPE: u64 = 18;

    /// A field of a `NamedValueType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `name` (length-delimited).
        Name(&'a [u8]),
        /// `type` (length-delimited).
        Type(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                NAME => Self::Name(wire::len(b)?),
                TYPE => Self::Type(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.ValueType`.
pub mod value_type {
    use crate::read::proto::wire::{self, Read};

    /// `type.TensorType`: field 1, length-delimited.
    pub const TENSOR_TYPE: u64 = 10;

    /// `type.ListType`: field 2, length-delimited.
    pub const LIST_TYPE: u64 = 18;

    /// `type.TupleType`: field 3, length-delimited.
    pub const TUPLE_TYPE: u64 = 26;

    /// `type.DictionaryType`: field 4, length-delimited.
    pub const DICTIONARY_TYPE: u64 = 34;

    /// `type.StateType`: field 5, length-delimited.
    pub const STATE_TYPE: u64 = 42;

    /// A field of a `ValueType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `type.TensorType` (length-delimited).
        TensorType(&'a [u8]),
        /// `type.ListType` (length-delimited).
        ListType(&'a [u8]),
        /// `type.TupleType` (length-delimited).
        TupleType(&'a [u8]),
        /// `type.DictionaryType` (length-delimited).
        DictionaryType(&'a [u8]),
        /// `type.StateType` (length-delimited).
        StateType(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                TENSOR_TYPE => Self::TensorType(wire::len(b)?),
                LIST_TYPE => Self::ListType(wire::len(b)?),
                TUPLE_TYPE => Self::TupleType(wire::len(b)?),
                DICTIONARY_TYPE => Self::DictionaryType(wire::len(b)?),
                STATE_TYPE => Self::StateType(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.TensorType`.
pub mod tensor_type {
    use crate::read::proto::wire::{self, Read};

    /// `data_type`: field 1, varint.
    pub const DATA_TYPE: u64 = 8;

    /// `rank`: field 2, varint.
    pub const RANK: u64 = 16;

    /// `dimensions`: field 3, length-delimited.
    pub const DIMENSIONS: u64 = 26;

    /// `attributes`: field 4, length-delimited.
    pub const ATTRIBUTES: u64 = 34;

    /// A field of a `TensorType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `data_type` (varint).
        DataType(u64),
        /// `rank` (varint).
        Rank(u64),
        /// `dimensions` (length-delimited).
        Dimensions(&'a [u8]),
        /// `attributes` (length-delimited).
        Attributes(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                DATA_TYPE => Self::DataType(wire::varint(b)?),
                RANK => Self::Rank(wire::varint(b)?),
                DIMENSIONS => Self::Dimensions(wire::len(b)?),
                ATTRIBUTES => Self::Attributes(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.TupleType`.
pub mod tuple_type {
    use crate::read::proto::wire::{self, Read};

    /// `types`: field 1, length-delimited.
    pub const TYPES: u64 = 10;

    /// A field of a `TupleType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `types` (length-delimited).
        Types(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                TYPES => Self::Types(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.ListType`.
pub mod list_type {
    use crate::read::proto::wire::{self, Read};

    /// `type`: field 1, length-delimited.
    pub const TYPE: u64 = 10;

    /// `length`: field 2, length-delimited.
    pub const LENGTH: u64 = 18;

    /// A field of a `ListType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `type` (length-delimited).
        Type(&'a [u8]),
        /// `length` (length-delimited).
        Length(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                TYPE => Self::Type(wire::len(b)?),
                LENGTH => Self::Length(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.DictionaryType`.
pub mod dictionary_type {
    use crate::read::proto::wire::{self, Read};

    /// `key_type`: field 1, length-delimited.
    pub const KEY_TYPE: u64 = 10;

    /// `value_type`: field 2, length-delimited.
    pub const VALUE_TYPE: u64 = 18;

    /// A field of a `DictionaryType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `key_type` (length-delimited).
        KeyType(&'a [u8]),
        /// `value_type` (length-delimited).
        ValueType(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                KEY_TYPE => Self::KeyType(wire::len(b)?),
                VALUE_TYPE => Self::ValueType(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.StateType`.
pub mod state_type {
    use crate::read::proto::wire::{self, Read};

    /// `wrapped_type`: field 1, length-delimited.
    pub const WRAPPED_TYPE: u64 = 10;

    /// A field of a `StateType` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `wrapped_type` (length-delimited).
        WrappedType(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                WRAPPED_TYPE => Self::WrappedType(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.Dimension`.
pub mod dimension {
    use crate::read::proto::wire::{self, Read};

    /// `dimension.Constant`: field 1, length-delimited.
    pub const CONSTANT: u64 = 10;

    /// `dimension.Unknown`: field 2, length-delimited.
    pub const UNKNOWN: u64 = 18;

    /// A field of a `Dimension` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `dimension.Constant` (length-delimited).
        Constant(&'a [u8]),
        /// `dimension.Unknown` (length-delimited).
        Unknown(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                CONSTANT => Self::Constant(wire::len(b)?),
                UNKNOWN => Self::Unknown(wire::len(b)?),
                _ => return None,
            })
        }
    }

    /// `Dimension.ConstantDimension`.
    pub mod constant_dimension {
        use crate::read::proto::wire::{self, Read};

        /// `size`: field 1, varint.
        pub const SIZE: u64 = 8;

        /// A field of a `ConstantDimension` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field {
            /// `size` (varint).
            Size(u64),
        }

        impl<'a> Read<'a> for Field {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    SIZE => Self::Size(wire::varint(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `Dimension.UnknownDimension`: `variadic` = an unknown number of dimensions.
    pub mod unknown_dimension {
        use crate::read::proto::wire::{self, Read};

        /// `variadic`: field 1, varint.
        pub const VARIADIC: u64 = 8;

        /// A field of a `UnknownDimension` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field {
            /// `variadic` (varint).
            Variadic(u64),
        }

        impl<'a> Read<'a> for Field {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    VARIADIC => Self::Variadic(wire::varint(b)?),
                    _ => return None,
                })
            }
        }
    }
}

/// `MILSpec.Value`: a typed constant, immediate or file-backed.
pub mod value {
    use crate::read::proto::wire::{self, Read};

    /// `doc_string`: field 1, length-delimited.
    pub const DOC_STRING: u64 = 10;

    /// `type`: field 2, length-delimited.
    pub const TYPE: u64 = 18;

    /// `value.ImmediateValue`: field 3, length-delimited.
    pub const IMMEDIATE_VALUE: u64 = 26;

    /// `value.BlobFileValue`: field 5, length-delimited.
    pub const BLOB_FILE_VALUE: u64 = 42;

    /// A field of a `Value` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `doc_string` (length-delimited).
        DocString(&'a [u8]),
        /// `type` (length-delimited).
        Type(&'a [u8]),
        /// `value.ImmediateValue` (length-delimited).
        ImmediateValue(&'a [u8]),
        /// `value.BlobFileValue` (length-delimited).
        BlobFileValue(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                DOC_STRING => Self::DocString(wire::len(b)?),
                TYPE => Self::Type(wire::len(b)?),
                IMMEDIATE_VALUE => Self::ImmediateValue(wire::len(b)?),
                BLOB_FILE_VALUE => Self::BlobFileValue(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.Value.ImmediateValue`.
pub mod immediate_value {
    use crate::read::proto::wire::{self, Read};

    /// `value.Tensor`: field 1, length-delimited.
    pub const TENSOR: u64 = 10;

    /// `value.Tuple`: field 2, length-delimited.
    pub const TUPLE: u64 = 18;

    /// `value.List`: field 3, length-delimited.
    pub const LIST: u64 = 26;

    /// `value.Dictionary`: field 4, length-delimited.
    pub const DICTIONARY: u64 = 34;

    /// A field of a `ImmediateValue` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `value.Tensor` (length-delimited).
        Tensor(&'a [u8]),
        /// `value.Tuple` (length-delimited).
        Tuple(&'a [u8]),
        /// `value.List` (length-delimited).
        List(&'a [u8]),
        /// `value.Dictionary` (length-delimited).
        Dictionary(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                TENSOR => Self::Tensor(wire::len(b)?),
                TUPLE => Self::Tuple(wire::len(b)?),
                LIST => Self::List(wire::len(b)?),
                DICTIONARY => Self::Dictionary(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.Value.BlobFileValue`: `offset` is that of the blob's metadata record.
pub mod blob_file_value {
    use crate::read::proto::wire::{self, Read};

    /// `file_name`: field 1, length-delimited.
    pub const FILE_NAME: u64 = 10;

    /// `offset`: field 2, varint.
    pub const OFFSET: u64 = 16;

    /// A field of a `BlobFileValue` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `file_name` (length-delimited).
        FileName(&'a [u8]),
        /// `offset` (varint).
        Offset(u64),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                FILE_NAME => Self::FileName(wire::len(b)?),
                OFFSET => Self::Offset(wire::varint(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.TensorValue`: row-major elements in one of seven encodings.
pub mod tensor_value {
    use crate::read::proto::wire::{self, Read};

    /// `value.Floats`: field 1, length-delimited.
    pub const FLOATS: u64 = 10;

    /// `value.Ints`: field 2, length-delimited.
    pub const INTS: u64 = 18;

    /// `value.Bools`: field 3, length-delimited.
    pub const BOOLS: u64 = 26;

    /// `value.Strings`: field 4, length-delimited.
    pub const STRINGS: u64 = 34;

    /// `value.LongInts`: field 5, length-delimited.
    pub const LONG_INTS: u64 = 42;

    /// `value.Doubles`: field 6, length-delimited.
    pub const DOUBLES: u64 = 50;

    /// `value.Bytes`: field 7, length-delimited.
    pub const BYTES: u64 = 58;

    /// A field of a `TensorValue` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `value.Floats` (length-delimited).
        Floats(&'a [u8]),
        /// `value.Ints` (length-delimited).
        Ints(&'a [u8]),
        /// `value.Bools` (length-delimited).
        Bools(&'a [u8]),
        /// `value.Strings` (length-delimited).
        Strings(&'a [u8]),
        /// `value.LongInts` (length-delimited).
        LongInts(&'a [u8]),
        /// `value.Doubles` (length-delimited).
        Doubles(&'a [u8]),
        /// `value.Bytes` (length-delimited).
        Bytes(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                FLOATS => Self::Floats(wire::len(b)?),
                INTS => Self::Ints(wire::len(b)?),
                BOOLS => Self::Bools(wire::len(b)?),
                STRINGS => Self::Strings(wire::len(b)?),
                LONG_INTS => Self::LongInts(wire::len(b)?),
                DOUBLES => Self::Doubles(wire::len(b)?),
                BYTES => Self::Bytes(wire::len(b)?),
                _ => return None,
            })
        }
    }

    /// `TensorValue.RepeatedFloats`.
    pub mod repeated_floats {
        use crate::read::proto::wire::{self, Read};

        /// `values`: field 1, length-delimited.
        pub const VALUES: u64 = 10;

        /// A field of a `RepeatedFloats` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `values` (length-delimited).
            Values(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    VALUES => Self::Values(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `TensorValue.RepeatedDoubles`.
    pub mod repeated_doubles {
        use crate::read::proto::wire::{self, Read};

        /// `values`: field 1, length-delimited.
        pub const VALUES: u64 = 10;

        /// A field of a `RepeatedDoubles` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `values` (length-delimited).
            Values(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    VALUES => Self::Values(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `TensorValue.RepeatedInts`.
    pub mod repeated_ints {
        use crate::read::proto::wire::{self, Read};

        /// `values`: field 1, length-delimited.
        pub const VALUES: u64 = 10;

        /// A field of a `RepeatedInts` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `values` (length-delimited).
            Values(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    VALUES => Self::Values(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `TensorValue.RepeatedLongInts`.
    pub mod repeated_long_ints {
        use crate::read::proto::wire::{self, Read};

        /// `values`: field 1, length-delimited.
        pub const VALUES: u64 = 10;

        /// A field of a `RepeatedLongInts` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `values` (length-delimited).
            Values(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    VALUES => Self::Values(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `TensorValue.RepeatedBools`.
    pub mod repeated_bools {
        use crate::read::proto::wire::{self, Read};

        /// `values`: field 1, length-delimited.
        pub const VALUES: u64 = 10;

        /// A field of a `RepeatedBools` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `values` (length-delimited).
            Values(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    VALUES => Self::Values(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `TensorValue.RepeatedStrings`.
    pub mod repeated_strings {
        use crate::read::proto::wire::{self, Read};

        /// `values`: field 1, length-delimited.
        pub const VALUES: u64 = 10;

        /// A field of a `RepeatedStrings` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `values` (length-delimited).
            Values(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    VALUES => Self::Values(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }

    /// `TensorValue.RepeatedBytes`: a single byte string of little-endian elements.
    pub mod repeated_bytes {
        use crate::read::proto::wire::{self, Read};

        /// `values`: field 1, length-delimited.
        pub const VALUES: u64 = 10;

        /// A field of a `RepeatedBytes` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `values` (length-delimited).
            Values(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    VALUES => Self::Values(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }
}

/// `MILSpec.TupleValue`.
pub mod tuple_value {
    use crate::read::proto::wire::{self, Read};

    /// `values`: field 1, length-delimited.
    pub const VALUES: u64 = 10;

    /// A field of a `TupleValue` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `values` (length-delimited).
        Values(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                VALUES => Self::Values(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.ListValue`.
pub mod list_value {
    use crate::read::proto::wire::{self, Read};

    /// `values`: field 1, length-delimited.
    pub const VALUES: u64 = 10;

    /// A field of a `ListValue` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `values` (length-delimited).
        Values(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                VALUES => Self::Values(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `MILSpec.DictionaryValue`.
pub mod dictionary_value {
    use crate::read::proto::wire::{self, Read};

    /// `values`: field 1, length-delimited.
    pub const VALUES: u64 = 10;

    /// A field of a `DictionaryValue` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `values` (length-delimited).
        Values(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                VALUES => Self::Values(wire::len(b)?),
                _ => return None,
            })
        }
    }

    /// `DictionaryValue.KeyValuePair`.
    pub mod key_value_pair {
        use crate::read::proto::wire::{self, Read};

        /// `key`: field 1, length-delimited.
        pub const KEY: u64 = 10;

        /// `value`: field 2, length-delimited.
        pub const VALUE: u64 = 18;

        /// A field of a `KeyValuePair` as read, its payload borrowed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Field<'a> {
            /// `key` (length-delimited).
            Key(&'a [u8]),
            /// `value` (length-delimited).
            Value(&'a [u8]),
        }

        impl<'a> Read<'a> for Field<'a> {
            #[inline(always)]
            fn read(b: &mut &'a [u8]) -> Option<Self> {
                Some(match wire::varint(b)? {
                    KEY => Self::Key(wire::len(b)?),
                    VALUE => Self::Value(wire::len(b)?),
                    _ => return None,
                })
            }
        }
    }
}

/// `NonMaximumSuppression` (the bytes of `Model.Type` member 610): the fields that say which features the stage reads and how many class labels it holds (FIELD-HAZARDS-4 G3).
pub mod non_maximum_suppression {
    use crate::read::proto::wire::{self, Read};

    /// `string_class_labels`: field 100, length-delimited.
    pub const STRING_CLASS_LABELS: u64 = 802;

    /// `int64_class_labels`: field 101, length-delimited.
    pub const INT64_CLASS_LABELS: u64 = 810;

    /// `confidence_input_feature_name`: field 200, length-delimited.
    pub const CONFIDENCE_INPUT_FEATURE_NAME: u64 = 1602;

    /// `coordinates_input_feature_name`: field 201, length-delimited.
    pub const COORDINATES_INPUT_FEATURE_NAME: u64 = 1610;

    /// A field of a `NonMaximumSuppression` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `string_class_labels` (length-delimited).
        StringClassLabels(&'a [u8]),
        /// `int64_class_labels` (length-delimited).
        Int64ClassLabels(&'a [u8]),
        /// `confidence_input_feature_name` (length-delimited).
        ConfidenceInputFeatureName(&'a [u8]),
        /// `coordinates_input_feature_name` (length-delimited).
        CoordinatesInputFeatureName(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                STRING_CLASS_LABELS => Self::StringClassLabels(wire::len(b)?),
                INT64_CLASS_LABELS => Self::Int64ClassLabels(wire::len(b)?),
                CONFIDENCE_INPUT_FEATURE_NAME => Self::ConfidenceInputFeatureName(wire::len(b)?),
                COORDINATES_INPUT_FEATURE_NAME => Self::CoordinatesInputFeatureName(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `StringVector`.
pub mod string_vector {
    use crate::read::proto::wire::{self, Read};

    /// `vector`: field 1, length-delimited.
    pub const VECTOR: u64 = 10;

    /// A field of a `StringVector` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `vector` (length-delimited).
        Vector(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                VECTOR => Self::Vector(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// `Int64Vector`.
pub mod int64_vector {
    use crate::read::proto::wire::{self, Read};

    /// `vector`: field 1, length-delimited.
    pub const VECTOR: u64 = 10;

    /// A field of a `Int64Vector` as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `vector` (length-delimited).
        Vector(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                VECTOR => Self::Vector(wire::len(b)?),
                _ => return None,
            })
        }
    }
}

/// The entry of a `map<string, _>`: the key, then the value.
pub mod map_entry {
    use crate::read::proto::wire::{self, Read};

    /// `key`: field 1, length-delimited.
    pub const KEY: u64 = 10;

    /// `value`: field 2, length-delimited.
    pub const VALUE: u64 = 18;

    /// A field of a map entry as read, its payload borrowed.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Field<'a> {
        /// `key` (length-delimited).
        Key(&'a [u8]),
        /// `value` (length-delimited).
        Value(&'a [u8]),
    }

    impl<'a> Read<'a> for Field<'a> {
        #[inline(always)]
        fn read(b: &mut &'a [u8]) -> Option<Self> {
            Some(match wire::varint(b)? {
                KEY => Self::Key(wire::len(b)?),
                VALUE => Self::Value(wire::len(b)?),
                _ => return None,
            })
        }
    }
}
