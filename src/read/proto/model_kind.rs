//! What each kind of model is called, for "not an ML Program" messages.

use super::messages::model::Type;

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
