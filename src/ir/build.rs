//! Turns the syntax-neutral form both readers produce into a [`Function`] graph, checking SSA names.

use std::collections::hash_map::Entry;

use petgraph::stable_graph::StableDiGraph;
use rustc_hash::FxHashMap;

use super::attributes::Attributes;
use super::graph::{
    Arg, Block, BlockId, Edge, Function, Input, Node, NodeId, Op, Output, Param, ValueDef, BODY,
};
use super::literal::Literal;
use super::name::{Interner, Name};
use super::span::Span;
use super::types::ValueType;

/// An op as a reader sees it, before bindings are resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct OpSyntax {
    pub op_type: Name,
    pub name: Option<Name>,
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
    pub outputs: Vec<Name>,
    /// Where the block's `-> (…)` list is.
    pub outputs_span: Span,
}

/// A parameter as a reader sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSyntax {
    pub name: Name,
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

/// Whether an op's names are already the function's shared ones.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shared {
    No,
    Interned,
}

struct Builder {
    graph: StableDiGraph<Node, Edge>,
    blocks: Vec<Block>,
    /// Every name of the function, at its first definition (what `Function::def` answers).
    values: FxHashMap<Name, ValueDef>,
    /// The names visible where the builder is: MIL is lexically scoped, so a value defined in a
    /// nested block is not visible after it, and sibling blocks (a `cond`'s branches) may reuse
    /// a name, as coremltools does.
    visible: FxHashMap<Name, ValueDef>,
    /// The names each open nested block defined, innermost last, to hide them when it closes
    /// (the body's names stay visible to the end).
    scopes: Vec<Vec<Name>>,
    /// Op types, parameter and attribute names, weight paths: few distinct ones, many uses.
    names: Interner,
    /// A value name defined so far holds a line break.
    value_line_breaks: bool,
    order: u32,
    /// Room for the edges into the op being added (empty between ops).
    edges: Vec<(ValueDef, Edge)>,
    /// What [`FunctionBuilder::value_name`] found for each value the op being read binds, by the
    /// address of the name it gave (`None`: not visible): [`FunctionBuilder::interned_op`] takes
    /// them instead of looking each up again.
    bound: Vec<(*const u8, Option<ValueDef>)>,
}

/// Builds the graph of one function. Names must be defined before use (which also rules out cycles).
pub fn build_function(f: FunctionSyntax) -> Result<Function, BuildError> {
    let mut builder = FunctionBuilder::new(
        f.name,
        f.opset,
        f.attributes,
        f.span,
        (f.body.inputs.len(), f.body.ops.len()),
    );
    for input in f.body.inputs {
        builder.input(input)?;
    }
    for op in f.body.ops {
        builder.op(op)?;
    }
    builder.finish(f.body.outputs, f.body.outputs_span)
}

/// Builds a function's graph as a reader goes: each op joins the graph as soon as it is read, so
/// the reader never holds the syntax of a whole function.
pub struct FunctionBuilder {
    builder: Builder,
    name: String,
    opset: String,
    attributes: Vec<(String, Literal)>,
    span: Span,
}

impl FunctionBuilder {
    /// A function with room for its body's `(inputs, ops)` (nested blocks add more).
    pub fn new(
        name: String,
        opset: String,
        attributes: Vec<(String, Literal)>,
        span: Span,
        (inputs, ops): (usize, usize),
    ) -> FunctionBuilder {
        // About one value binding per op: consts have none, most others one to three.
        let mut builder = Builder {
            graph: StableDiGraph::with_capacity(inputs + ops, ops),
            blocks: Vec::new(),
            values: FxHashMap::with_capacity_and_hasher(ops, Default::default()),
            visible: FxHashMap::with_capacity_and_hasher(ops, Default::default()),
            scopes: Vec::new(),
            names: Interner::with_capacity(64),
            value_line_breaks: false,
            order: 0,
            edges: Vec::new(),
            bound: Vec::new(),
        };
        builder.open_block(None);
        builder.blocks[0].ops.reserve_exact(ops);
        FunctionBuilder {
            builder,
            name,
            opset,
            attributes,
            span,
        }
    }

    /// The shared name of an op type, parameter, attribute key or weight path: one allocation per
    /// distinct text of the function (what [`FunctionBuilder::op`] would share it with anyway).
    pub fn intern(&mut self, text: &str) -> Name {
        self.builder.names.intern(text)
    }

    /// [`Self::intern`] of the text `bytes` hold (`None`: not UTF-8), checked only the first time.
    pub fn intern_utf8(&mut self, bytes: &[u8]) -> Option<Name> {
        self.builder.names.intern_utf8(bytes)
    }

    /// Starts reading an op for [`FunctionBuilder::interned_op`]: forgets what
    /// [`FunctionBuilder::value_name`] found for an op read before (one the reader gave up on).
    pub fn start_op(&mut self) {
        self.builder.bound.clear();
    }

    /// The name of a value an op binds: the definition's when it is visible here, else a new one
    /// (the op then fails to build, or a nested block defines it). What it found is kept for the
    /// op's [`FunctionBuilder::interned_op`].
    pub fn value_name(&mut self, text: &str) -> Name {
        match self.builder.visible.get_key_value(text) {
            Some((shared, def)) => {
                self.builder.bound.push((shared.as_ptr(), Some(*def)));
                shared.clone()
            }
            None => {
                let name = Name::from(text);
                self.builder.bound.push((name.as_ptr(), None));
                name
            }
        }
    }

    /// A function parameter (states included), in declaration order.
    pub fn input(&mut self, input: InputSyntax) -> Result<(), BuildError> {
        self.builder.input(input, BODY)
    }

    /// The body's next op (its nested blocks with it).
    pub fn op(&mut self, op: OpSyntax) -> Result<(), BuildError> {
        self.builder.bound.clear();
        let node = self.builder.op(op, BODY, Shared::No)?;
        self.builder.blocks[0].ops.push(node);
        Ok(())
    }

    /// [`FunctionBuilder::op`] for an op without nested blocks whose op type, parameter names,
    /// attribute keys and weight paths all come from [`FunctionBuilder::intern`], and whose
    /// bound values' names from [`FunctionBuilder::value_name`] since [`FunctionBuilder::start_op`]
    /// (so none is looked up again).
    pub fn interned_op(&mut self, op: OpSyntax) -> Result<(), BuildError> {
        debug_assert!(op.blocks.is_empty());
        let node = self.builder.op(op, BODY, Shared::Interned)?;
        self.builder.blocks[0].ops.push(node);
        Ok(())
    }

    /// The function, once its body returns `outputs`.
    pub fn finish(
        mut self,
        outputs: Vec<Name>,
        outputs_span: Span,
    ) -> Result<Function, BuildError> {
        self.builder.close_block(BODY, outputs, outputs_span)?;
        self.builder.graph.shrink_to_fit_edges();
        Ok(Function {
            name: self.name,
            opset: self.opset,
            attributes: self.attributes,
            graph: self.builder.graph,
            blocks: self.builder.blocks,
            values: self.builder.values,
            span: self.span,
            names_hold_line_breaks: self.builder.value_line_breaks
                || self.builder.names.saw_line_break(),
        })
    }
}

impl Builder {
    /// A weight file's path, written once per const, is one of a few.
    fn share_blob_path(&mut self, literal: &mut Literal) {
        if let super::literal::Payload::Blob(blob) = &mut literal.payload {
            blob.path = self.names.adopt(blob.path.clone());
        }
    }

    fn define(&mut self, name: Name, def: ValueDef, span: Span) -> Result<(), BuildError> {
        self.value_line_breaks |= super::name::holds_line_break(name.as_bytes());
        match self.visible.entry(name) {
            Entry::Occupied(e) => Err(BuildError::Duplicate {
                name: e.key().to_string(),
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

    /// Starts a block (the body when `owner` is `None`).
    fn open_block(&mut self, owner: Option<NodeId>) -> BlockId {
        let id = BlockId(self.blocks.len() as u32);
        self.blocks.push(Block {
            owner,
            ..Block::default()
        });
        if owner.is_some() {
            self.scopes.push(Vec::new());
        }
        id
    }

    fn input(&mut self, inp: InputSyntax, block: BlockId) -> Result<(), BuildError> {
        let name = inp.name.clone();
        let node = NodeId(self.graph.add_node(Node::Input(Input {
            name: inp.name,
            ty: inp.ty,
            block,
            span: inp.span,
        })));
        self.define(name, ValueDef { node, output: 0 }, inp.span)?;
        self.blocks[block.0 as usize].inputs.push(node);
        Ok(())
    }

    /// Ends a block that returns `outputs`; a nested block's names go out of scope.
    fn close_block(
        &mut self,
        id: BlockId,
        mut outputs: Vec<Name>,
        outputs_span: Span,
    ) -> Result<(), BuildError> {
        for name in &mut outputs {
            match self.visible.get_key_value(name.as_str()) {
                Some((shared, _)) => *name = shared.clone(),
                None => {
                    return Err(BuildError::UndefinedOutput {
                        name: name.to_string(),
                        span: outputs_span,
                    })
                }
            }
        }
        if self.blocks[id.0 as usize].owner.is_some() {
            for name in self.scopes.pop().unwrap_or_default() {
                self.visible.remove(&name);
            }
        }
        self.blocks[id.0 as usize].outputs = outputs;
        Ok(())
    }

    // Nested blocks recurse once per nesting level; the readers cap nesting depth before this runs.
    fn block(&mut self, syn: BlockSyntax, owner: Option<NodeId>) -> Result<BlockId, BuildError> {
        let id = self.open_block(owner);
        for inp in syn.inputs {
            self.input(inp, id)?;
        }
        let mut ops = Vec::with_capacity(syn.ops.len());
        for op in syn.ops {
            ops.push(self.op(op, id, Shared::No)?);
        }
        self.blocks[id.0 as usize].ops = ops;
        self.close_block(id, syn.outputs, syn.outputs_span)?;
        Ok(id)
    }

    fn op(
        &mut self,
        mut syn: OpSyntax,
        block: BlockId,
        shared: Shared,
    ) -> Result<NodeId, BuildError> {
        let adopt = shared == Shared::No;
        if adopt {
            syn.op_type = self.names.adopt(syn.op_type);
            for (key, literal) in syn.attributes.iter_mut() {
                *key = self.names.adopt(key.clone());
                self.share_blob_path(literal);
            }
        }
        // A reader's vectors grow from a capacity of four; most ops keep one or two entries each for
        // the life of the graph.
        syn.inputs.shrink_to_fit();
        syn.outputs.shrink_to_fit();
        syn.attributes.shrink_to_fit();
        // The edges of one op at a time, in a vector kept between ops.
        let mut edges = std::mem::take(&mut self.edges);
        // What the reader found for a bound name, by the name's address (else looked up here).
        let bound = if adopt {
            Vec::new()
        } else {
            std::mem::take(&mut self.bound)
        };
        let found = |n: &Name| {
            // The last entry of an address is the name that lives there now.
            bound
                .iter()
                .rev()
                .find(|(at, _)| std::ptr::eq(*at, n.as_ptr()))
                .map(|(_, def)| *def)
        };
        for p in &mut syn.inputs {
            p.args.shrink_to_fit();
            if adopt {
                p.name = self.names.adopt(p.name.clone());
            }
            for (pos, arg) in p.args.iter_mut().enumerate() {
                let n = match arg {
                    Arg::Name(n) => n,
                    Arg::Value(literal) => {
                        if adopt {
                            self.share_blob_path(literal);
                        }
                        continue;
                    }
                };
                {
                    let visible = match found(n) {
                        Some(def) => def.map(|d| (d, n.clone())),
                        None => self
                            .visible
                            .get_key_value(n.as_str())
                            .map(|(k, d)| (*d, k.clone())),
                    };
                    let (def, shared) = visible.ok_or_else(|| BuildError::Undefined {
                        name: n.to_string(),
                        op: syn
                            .name
                            .as_ref()
                            .or_else(|| syn.outputs.first().map(|o| &o.name))
                            .unwrap_or(&syn.op_type)
                            .to_string(),
                        span: syn.span,
                    })?;
                    *n = shared;
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
        if !adopt {
            let mut bound = bound;
            bound.clear();
            self.bound = bound;
        }
        let order = self.order;
        self.order += 1;
        let outputs = syn.outputs.len();
        // An op's `name` is most often its first output's name: share it.
        if let (Some(name), Some(first)) = (&mut syn.name, syn.outputs.first()) {
            if *name == first.name {
                *name = first.name.clone();
            }
        }
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
        for (def, edge) in edges.drain(..) {
            self.graph.add_edge(def.node.0, node.0, edge);
        }
        self.edges = edges;
        // Nested blocks see values defined before the op; the op's own results are defined after them.
        let mut nested = Vec::with_capacity(syn.blocks.len());
        for blk in syn.blocks {
            nested.push(self.block(blk, Some(node))?);
        }
        if let Some(Node::Op(op)) = self.graph.node_weight_mut(node.0) {
            op.blocks = nested;
        }
        for i in 0..outputs {
            let name = match self.graph.node_weight(node.0) {
                Some(Node::Op(op)) => op.outputs.get(i).map(|o| o.name.clone()),
                _ => None,
            };
            let Some(name) = name else { break };
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
