//! The one IR both readers produce: a petgraph graph per function, with types, constants and spans.

#[warn(missing_docs)]
pub mod attributes;
pub(crate) mod build;
#[warn(missing_docs)]
pub mod compare;
pub mod graph;
#[warn(missing_docs)]
pub mod literal;
pub mod model;
#[warn(missing_docs)]
pub mod render;
#[warn(missing_docs)]
pub mod span;
#[warn(missing_docs)]
pub mod types;

pub use attributes::Attributes;
pub use graph::{
    Arg, Block, BlockId, Edge, Function, Input, Node, NodeId, Op, Output, Param, Program, ValueDef,
    BODY,
};
pub use literal::{BlobRef, Literal, Payload, TensorData};
pub use model::{
    FeatureDesc, FeatureKind, Flexibility, FunctionDesc, Model, ModelDesc, ModelKind, SourceText,
    SubModel,
};
pub use span::Span;
pub use types::{DType, Dim, TensorType, ValueType};
