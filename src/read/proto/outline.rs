//! The `Model` as the reader decodes it first: an outline that leaves the ML program's
//! operations and a pipeline's sub-models undecoded.

use super::{ModelDescription, ProgramOutline};

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
