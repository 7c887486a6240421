//! The one IR both readers produce: a petgraph graph per function, with types, constants and spans.

pub mod attributes;
pub(crate) mod build;
pub mod compare;
pub mod coreai;
pub mod graph;
pub mod literal;
pub mod model;
pub mod name;
pub mod render;
pub mod rendered_lines;
pub mod span;
pub mod types;

pub use attributes::Attributes;
pub use graph::{
    Arg, Block, BlockId, Edge, Function, Input, Node, NodeId, Op, Output, Param, Program, ValueDef,
    BODY,
};
pub use literal::{BlobRef, Literal, Payload, TensorData};
pub use model::{
    BundleFault, BundleFaultKind, FeatureDesc, FeatureKind, Flexibility, FunctionDesc, Model,
    ModelDesc, ModelKind, NmsStage, SourceText, SubModel,
};
pub use name::{Interner, Name};
pub use span::Span;
pub use types::{DType, Dim, TensorType, ValueType};
