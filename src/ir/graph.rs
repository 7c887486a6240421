//! The per-function dataflow graph: ops and inputs as nodes, value bindings as edges.

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use rustc_hash::FxHashMap;

use super::attributes::Attributes;
use super::literal::Literal;
use super::name::Name;
use super::span::Span;
use super::types::ValueType;

/// A node of a function graph: an op or an input (function parameter or block parameter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) NodeIndex);

impl NodeId {
    /// The raw index, for stable display and hashing only.
    pub fn index(self) -> usize {
        self.0.index()
    }
}

/// A block: the function body, or a nested block of a `cond` / `while_loop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// The function body is always block 0.
pub const BODY: BlockId = BlockId(0);

/// A named, typed result of an op (or the value an input node defines).
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The value's name, unique within the function.
    pub name: Name,
    /// Its declared type.
    pub ty: ValueType,
}

/// One binding of a parameter: a named value or an inline literal.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// Holds the name of the value bound (an op output or an input).
    Name(Name),
    /// Holds the literal written in place of a value name.
    Value(Box<Literal>),
}

/// A parameter with its bindings (more than one for tuple parameters such as `concat.values`).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Parameter name as the op defines it (`x`, `values`, …).
    pub name: Name,
    /// Bindings in source order; one for ordinary parameters, several for a tuple.
    pub args: Vec<Arg>,
}

/// An operation.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// `slice_update`, `const`, … (unknown types are kept as they are).
    pub op_type: Name,
    /// The `name` attribute, when present.
    pub name: Option<Name>,
    /// Parameters in source order.
    pub inputs: Vec<Param>,
    /// Results in declaration order; empty for ops that return nothing.
    pub outputs: Vec<Output>,
    /// Attributes other than `name` (`val` of a const, iOS16/17 constexpr parameters, …).
    pub attributes: Attributes,
    /// Nested blocks owned by this op.
    pub blocks: Vec<BlockId>,
    /// The block this op belongs to.
    pub block: BlockId,
    /// Position in program order within the whole function (depth-first through blocks).
    pub order: u32,
    /// Where the statement is in the source text.
    pub span: Span,
}

impl Op {
    /// The `name` attribute, else the first output's name, else the op type.
    pub fn display_name(&self) -> &str {
        self.name
            .as_deref()
            .or_else(|| self.outputs.first().map(|o| o.name.as_str()))
            .unwrap_or(&self.op_type)
    }

    /// The bindings of one parameter.
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.inputs.iter().find(|p| p.name == name)
    }

    /// The single binding of a parameter, when it has exactly one.
    pub fn arg(&self, name: &str) -> Option<&Arg> {
        match self.param(name)?.args.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The value name bound to a parameter, when it binds one name.
    pub fn arg_name(&self, name: &str) -> Option<&str> {
        match self.arg(name)? {
            Arg::Name(n) => Some(n),
            Arg::Value(_) => None,
        }
    }
}

/// A function or block parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The parameter's value name.
    pub name: Name,
    /// Its declared type.
    pub ty: ValueType,
    /// The block it is a parameter of ([`BODY`] for function parameters).
    pub block: BlockId,
    /// Where it is declared in the source text.
    pub span: Span,
}

/// A graph node.
#[allow(clippy::large_enum_variant)] // ops dominate; boxing each would cost an allocation per op
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A function or block parameter.
    Input(Input),
    /// An operation.
    Op(Op),
}

/// A value binding: the consumer's parameter, its position in a tuple parameter, and which output of
/// the producer it reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Name of the consumer's parameter the value is bound to.
    pub param: Name,
    /// Index of the binding within that parameter (0 unless it is a tuple parameter).
    pub position: u32,
    /// Index into the producer's outputs (0 for an input node).
    pub output: u32,
}

/// A block's parameters, ops in program order, and returned value names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// The op that owns this block (`None` for the function body).
    pub owner: Option<NodeId>,
    /// Its parameter nodes, in declaration order (function parameters for the body).
    pub inputs: Vec<NodeId>,
    /// Its op nodes, in program order (nested blocks' ops excluded).
    pub ops: Vec<NodeId>,
    /// Names of the values it returns, in order.
    pub outputs: Vec<Name>,
}

/// Where a value name is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueDef {
    /// The op or input node that defines it.
    pub node: NodeId,
    /// Index into the op's outputs (0 for an input node).
    pub output: u32,
}

/// One function of a program.
#[derive(Clone, Debug)]
pub struct Function {
    /// Function name (`main`, or a multifunction model's function names).
    pub name: String,
    /// As written: `ios18`, `CoreML8`, …
    pub opset: String,
    /// Function attributes (e.g. `FlexibleShapeInformation`), in source order.
    pub attributes: Vec<(String, Literal)>,
    /// Ops and inputs as nodes; edges run producer → consumer, one per value binding.
    pub graph: StableDiGraph<Node, Edge>,
    /// `blocks[0]` is the body.
    pub blocks: Vec<Block>,
    /// Value name → definition. Names are unique within a function (SSA).
    pub values: FxHashMap<Name, ValueDef>,
    /// Span of the `func` header.
    pub span: Span,
    /// Some name of the function (a value's, an op type, a parameter or attribute key) may hold a
    /// line break: false only when the builder saw every name and none did. An edit after
    /// building sets it.
    pub names_hold_line_breaks: bool,
}

impl Function {
    /// The function parameters (states included), in declaration order.
    pub fn inputs(&self) -> impl Iterator<Item = (NodeId, &Input)> + '_ {
        self.blocks
            .first()
            .into_iter()
            .flat_map(|b| b.inputs.iter())
            .filter_map(move |&id| self.input(id).map(|i| (id, i)))
    }

    /// Every op of the function in program order, nested blocks included.
    pub fn ops(&self) -> impl Iterator<Item = (NodeId, &Op)> + '_ {
        let mut ids: Vec<NodeId> = self
            .blocks
            .iter()
            .flat_map(|b| b.ops.iter().copied())
            .collect();
        // One block's ops are in program order already (the builder numbers them as it adds them).
        if self.blocks.len() > 1 {
            ids.sort_by_key(|&id| self.op(id).map_or(u32::MAX, |o| o.order));
        }
        ids.into_iter()
            .filter_map(move |id| self.op(id).map(|o| (id, o)))
    }

    /// Number of ops (nested included).
    pub fn op_count(&self) -> usize {
        self.blocks.iter().map(|b| b.ops.len()).sum()
    }

    /// The node, whatever it is.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.graph.node_weight(id.0)
    }

    /// The op at `id`, if that node is an op.
    pub fn op(&self, id: NodeId) -> Option<&Op> {
        match self.graph.node_weight(id.0)? {
            Node::Op(op) => Some(op),
            Node::Input(_) => None,
        }
    }

    /// Mutable op access (for the fixer).
    pub fn op_mut(&mut self, id: NodeId) -> Option<&mut Op> {
        match self.graph.node_weight_mut(id.0)? {
            Node::Op(op) => Some(op),
            Node::Input(_) => None,
        }
    }

    /// The input at `id`, if that node is an input.
    pub fn input(&self, id: NodeId) -> Option<&Input> {
        match self.graph.node_weight(id.0)? {
            Node::Input(i) => Some(i),
            Node::Op(_) => None,
        }
    }

    /// Mutable input access (for the fixer).
    pub fn input_mut(&mut self, id: NodeId) -> Option<&mut Input> {
        match self.graph.node_weight_mut(id.0)? {
            Node::Input(i) => Some(i),
            Node::Op(_) => None,
        }
    }

    /// Where a value name is defined.
    pub fn def(&self, value: &str) -> Option<ValueDef> {
        self.values.get(value).copied()
    }

    /// The type of a named value.
    pub fn value_type(&self, value: &str) -> Option<&ValueType> {
        let def = self.def(value)?;
        match self.node(def.node)? {
            Node::Input(i) => Some(&i.ty),
            Node::Op(op) => op.outputs.get(def.output as usize).map(|o| &o.ty),
        }
    }

    /// The node producing the value bound to `param` of op `id` (first binding).
    pub fn producer(&self, id: NodeId, param: &str) -> Option<NodeId> {
        self.graph
            .edges_directed(id.0, Direction::Incoming)
            .filter(|e| e.weight().param == param)
            .min_by_key(|e| e.weight().position)
            .map(|e| NodeId(e.source()))
    }

    /// Every (producer, edge) feeding `id`, in parameter order.
    pub fn producers(&self, id: NodeId) -> Vec<(NodeId, &Edge)> {
        let mut v: Vec<_> = self
            .graph
            .edges_directed(id.0, Direction::Incoming)
            .map(|e| (NodeId(e.source()), e.weight()))
            .collect();
        v.sort_by(|a, b| (&a.1.param, a.1.position).cmp(&(&b.1.param, b.1.position)));
        v
    }

    /// Every (consumer, edge) reading a value of `id`, in program order.
    pub fn consumers(&self, id: NodeId) -> Vec<(NodeId, &Edge)> {
        let mut v: Vec<_> = self
            .graph
            .edges_directed(id.0, Direction::Outgoing)
            .map(|e| (NodeId(e.target()), e.weight()))
            .collect();
        v.sort_by_key(|(n, e)| {
            (
                self.op(*n).map_or(u32::MAX, |o| o.order),
                e.param.clone(),
                e.position,
            )
        });
        v
    }

    /// Names returned by the function body.
    pub fn outputs(&self) -> &[Name] {
        self.blocks.first().map_or(&[], |b| b.outputs.as_slice())
    }
}

/// A whole MIL program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// `1.0`, `1.3`, … for text; `1` for proto programs.
    pub version: String,
    /// Program attributes (`buildInfo`), in source order.
    pub attributes: Vec<(String, Literal)>,
    /// Its functions, in source order.
    pub functions: Vec<Function>,
}

impl Program {
    /// The function with this name.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}
