//! The `Model` outline the reader decodes first (its struct is in `messages.rs`): the pipeline a
//! model is, whichever of the three fields holds it.

use super::messages::{ModelOutline, PipelineOutline};

impl ModelOutline {
    /// The pipeline this model is (plain, classifier or regressor), taken out of the outline.
    pub fn take_pipeline(&mut self) -> Option<PipelineOutline> {
        self.pipeline
            .take()
            .or_else(|| self.pipeline_classifier.take().and_then(|h| h.pipeline))
            .or_else(|| self.pipeline_regressor.take().and_then(|h| h.pipeline))
    }
}
