//! The captures a match binds: nodes, values resolved when they were bound, states, writes,
//! regions and the other captures, by name.

use std::collections::BTreeSet;

use super::region::Region;
use super::target::Family;
use crate::analysis::{ConstValue, Dependence};
use crate::ir::{NodeId, ValueType};

/// A value bound to a capture, resolved when it was bound.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueInfo {
    /// The value name, or the literal's text for inline literals.
    pub name: String,
    pub ty: Option<ValueType>,
    pub constant: Option<ConstValue>,
    pub dep: Option<Dependence>,
}

/// A bound capture.
#[derive(Clone, Debug, PartialEq)]
pub enum Binding {
    Node(NodeId),
    Value(Box<ValueInfo>),
    /// Index into `FunctionAnalysis::states::states`.
    State(usize),
    /// Index into `FunctionAnalysis::states::writes`.
    Write(usize),
    /// The region an `origin:` finding stands for.
    Region(Box<Region>),
    /// The peers of the matched node in program order (the function's set, shared by every
    /// node bound to it), and the node's index among them.
    Peers {
        peers: std::rc::Rc<[NodeId]>,
        at: Option<usize>,
    },
    /// The texts of the `reasons:` entries that hold, in entry order.
    Reasons(Vec<String>),
    /// The chip families of the run's target a `target:` condition applies to (without a target,
    /// the families the condition names; empty: not about families).
    Target(BTreeSet<Family>),
    /// The nodes of the other matches a `group-by:` finding stands for, in program order.
    Group(Vec<NodeId>),
}

/// Captures by name (without `$`), in name order. A rule binds a handful at most, so a sorted
/// `Vec` serves: creating and dropping an empty one costs nothing, and matching tests every node
/// with fresh bindings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bindings(Vec<(String, Binding)>);

impl Bindings {
    /// No captures.
    pub fn new() -> Bindings {
        Bindings(Vec::new())
    }

    /// Binds `name`, replacing what it held.
    pub fn insert(&mut self, name: String, value: Binding) {
        match self.0.binary_search_by(|(n, _)| n.as_str().cmp(&name)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (name, value)),
        }
    }

    /// What `name` is bound to.
    pub fn get(&self, name: &str) -> Option<&Binding> {
        self.0
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| &self.0[i].1)
    }

    /// True when `name` is bound.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The bound values, in name order.
    pub fn values(&self) -> impl Iterator<Item = &Binding> {
        self.0.iter().map(|(_, v)| v)
    }

    /// Adds every capture of `other`, replacing the ones bound under the same names.
    pub fn extend(&mut self, other: Bindings) {
        for (name, value) in other.0 {
            self.insert(name, value);
        }
    }
}
