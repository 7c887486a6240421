//! What reading a model root gives: one ML program, the sub-models of a pipeline, or a model of
//! another kind. Every reader returns it (`package`, `aimodel`).

use std::path::PathBuf;

use crate::ir::{Model, SubModel};

/// What reading a model root gave.
#[derive(Debug)]
pub enum ReadOutcome {
    /// An ML program, ready for analysis.
    Model(Box<Model>),
    /// A pipeline holding at least one ML program: its sub-models in order (nested pipelines
    /// flattened), each ML program read as a model of its own.
    Pipeline(Vec<Stage>),
    /// A valid model of another kind (neural network, pipeline of those, …): reported, not checked.
    NotMlProgram {
        /// The model root (or bare file) as discovered.
        path: PathBuf,
        /// What kind of model it is, e.g. "a neural network".
        what: String,
    },
}

impl ReadOutcome {
    /// The ML programs read: the model itself, or every ML-program sub-model of a pipeline in
    /// order; none for a model of another kind.
    pub fn into_programs(self) -> Vec<Model> {
        match self {
            ReadOutcome::Model(m) => vec![*m],
            ReadOutcome::Pipeline(stages) => stages
                .into_iter()
                .filter_map(|s| match s {
                    Stage::Program(m) => Some(*m),
                    Stage::Other { .. } => None,
                })
                .collect(),
            ReadOutcome::NotMlProgram { .. } => Vec::new(),
        }
    }
}

/// One sub-model of a pipeline.
#[derive(Debug)]
pub enum Stage {
    /// An ML program; its [`Model::sub_model`] says where it sits.
    Program(Box<Model>),
    /// A model of another kind, named.
    Other {
        /// Where it sits in the pipeline.
        sub_model: SubModel,
        /// What kind of model it is, e.g. "a neural network".
        what: String,
        /// What was read from it (a non-maximum suppression stage's labels and inputs), when
        /// anything was.
        read: Option<String>,
    },
}
