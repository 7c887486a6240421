//! Turns the syntax-neutral form both readers produce into a [`Function`] graph, checking SSA names.

use std::collections::hash_map::Entry;

use petgraph::stable_graph::StableDiGraph;
use rustc_hash::FxHashMap;

use super::attributes::Attributes;
use super::graph::{
    Arg, Block, BlockId, Edge, Function, Input, Node, NodeId, Op, Output, Param, ValueDef,
};
use super::literal::Literal;
use super::span::Span;
use super::types::ValueType;

/// An op as a reader sees it, before bindings are resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct OpSyntax {
    pub op_type: String,
    pub name: Option<String>,
    pub inputs: Vec<Param>,
    pub outputs: Vec<Output>,
    pub attributes: Attributes,
    pub blocks: Vec<BlockSyntax>,
    pub span: Span,
}

/// A block as a reader sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockSyntax {
    pub inputs: Vec<InputSyntax>,
    pub ops: Vec<OpSyntax>,
    pub outputs: Vec<String>,
    /// Where the block's `-> (…)` list is.
    pub outputs_span: Span,
}

/// A parameter as a reader sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSyntax {
    pub name: String,
    pub ty: ValueType,
    pub span: Span,
}

/// A function as a reader sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionSyntax {
    pub name: String,
    pub opset: String,
    pub attributes: Vec<(String, Literal)>,
    pub body: BlockSyntax,
    pub span: Span,
}

/// Why a function could not become a graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    #[error("`{name}` is used by `{op}` but not defined before it")]
    Undefined {
        name: String,
        op: String,
        span: Span,
    },
    #[error("`{name}` is defined twice")]
    Duplicate { name: String, span: Span },
    #[error("block output `{name}` is not defined")]
    UndefinedOutput { name: String, span: Span },
}

impl BuildError {
    /// Where the problem is.
    pub fn span(&self) -> Span {
        match self {
            BuildError::Undefined { span, .. }
            | BuildError::Duplicate { span, .. }
            | BuildError::UndefinedOutput { span, .. } => *span,
        }
    }
}

struct Builder {
    graph: StableDiGraph<Node, Edge>,
    blocks: Vec<Block>,
    /// Every name of the function, at its first definition (what `Function::def` answers).
    values: FxHashMap<String, ValueDef>,
    /// The names visible where the builder is: MIL is lexically scoped, so a value defined in a
    /// nested block is not visible after it, and sibling blocks (a `cond`'s branches) may reuse
    /// a name, as coremltools does.
    visible: FxHashMap<String, ValueDef>,
    /// The names each open nested block defined, innermost last, to hide them when it closes
    /// (the body's names stay visible to the end).
    scopes: Vec<Vec<String>>,
    order: u32,
}

/// Builds the graph of one function. Names must be defined before use (which also rules out cycles).
pub fn build_function(f: FunctionSyntax) -> Result<Function, BuildError> {
    // The body's own inputs and ops (nested blocks add more), each defining about one name.
    let nodes = f.body.inputs.len() + f.body.ops.len();
    let mut b = Builder {
        graph: StableDiGraph::with_capacity(nodes, 2 * nodes),
        blocks: Vec::new(),
        values: FxHashMap::with_capacity_and_hasher(nodes, Default::default()),
        visible: FxHashMap::with_capacity_and_hasher(nodes, Default::default()),
        scopes: Vec::new(),
        order: 0,
    };
    b.block(f.body, None)?;
    Ok(Function {
        name: f.name,
        opset: f.opset,
        attributes: f.attributes,
        graph: b.graph,
        blocks: b.blocks,
        values: b.values,
        span: f.span,
    })
}

impl Builder {
    fn define(&mut self, name: String, def: ValueDef, span: Span) -> Result<(), BuildError> {
        match self.visible.entry(name) {
            Entry::Occupied(e) => Err(BuildError::Duplicate {
                name: e.key().clone(),
                span,
            }),
            Entry::Vacant(e) => {
                self.values.entry(e.key().clone()).or_insert(def);
                if let Some(scope) = self.scopes.last_mut() {
                    scope.push(e.key().clone());
                }
                e.insert(def);
                Ok(())
            }
        }
    }

    // Nested blocks recurse once per nesting level; the readers cap nesting depth before this runs.
    fn block(&mut self, syn: BlockSyntax, owner: Option<NodeId>) -> Result<BlockId, BuildError> {
        let id = BlockId(self.blocks.len() as u32);
        self.blocks.push(Block {
            owner,
            ..Block::default()
        });
        if owner.is_some() {
            self.scopes.push(Vec::new());
        }
        let mut inputs = Vec::with_capacity(syn.inputs.len());
        for inp in syn.inputs {
            let name = inp.name.clone();
            let node = NodeId(self.graph.add_node(Node::Input(Input {
                name: inp.name,
                ty: inp.ty,
                block: id,
                span: inp.span,
            })));
            self.define(name, ValueDef { node, output: 0 }, inp.span)?;
            inputs.push(node);
        }
        let mut ops = Vec::with_capacity(syn.ops.len());
        for op in syn.ops {
            ops.push(self.op(op, id)?);
        }
        for name in &syn.outputs {
            if !self.visible.contains_key(name) {
                return Err(BuildError::UndefinedOutput {
                    name: name.clone(),
                    span: syn.outputs_span,
                });
            }
        }
        // The block's own names go out of scope (the function's body is the outermost block).
        if owner.is_some() {
            for name in self.scopes.pop().unwrap_or_default() {
                self.visible.remove(&name);
            }
        }
        let block = &mut self.blocks[id.0 as usize];
        block.inputs = inputs;
        block.ops = ops;
        block.outputs = syn.outputs;
        Ok(id)
    }

    fn op(&mut self, syn: OpSyntax, block: BlockId) -> Result<NodeId, BuildError> {
        let mut edges = Vec::with_capacity(syn.inputs.len());
        for p in &syn.inputs {
            for (pos, arg) in p.args.iter().enumerate() {
                if let Arg::Name(n) = arg {
                    let def =
                        self.visible
                            .get(n)
                            .copied()
                            .ok_or_else(|| BuildError::Undefined {
                                name: n.clone(),
                                op: syn
                                    .name
                                    .clone()
                                    .or_else(|| syn.outputs.first().map(|o| o.name.clone()))
                                    .unwrap_or_else(|| syn.op_type.clone()),
                                span: syn.span,
                            })?;
                    edges.push((
                        def,
                        Edge {
                            param: p.name.clone(),
                            position: pos as u32,
                            output: def.output,
                        },
                    ));
                }
            }
        }
        let order = self.order;
        self.order += 1;
        let output_names: Vec<String> = syn.outputs.iter().map(|o| o.name.clone()).collect();
        let node = NodeId(self.graph.add_node(Node::Op(Op {
            op_type: syn.op_type,
            name: syn.name,
            inputs: syn.inputs,
            outputs: syn.outputs,
            attributes: syn.attributes,
            blocks: Vec::new(),
            block,
            order,
            span: syn.span,
        })));
        for (def, edge) in edges {
            self.graph.add_edge(def.node.0, node.0, edge);
        }
        // Nested blocks see values defined before the op; the op's own results are defined after them.
        let mut nested = Vec::with_capacity(syn.blocks.len());
        for blk in syn.blocks {
            nested.push(self.block(blk, Some(node))?);
        }
        if let Some(Node::Op(op)) = self.graph.node_weight_mut(node.0) {
            op.blocks = nested;
        }
        for (i, name) in output_names.into_iter().enumerate() {
            self.define(
                name,
                ValueDef {
                    node,
                    output: i as u32,
                },
                syn.span,
            )?;
        }
        Ok(node)
    }
}
