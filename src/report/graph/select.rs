//! Which nodes a picture shows: the nodes a finding names (its op, the ops its labels point at,
//! its region, its state), the nodes on the paths between them (a state's read → … → write
//! chain), and their neighbours within a few hops. Constants are never drawn: every op has them.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::finding::Finding;
use crate::ir::{Function, Node, NodeId, Span};

/// The most nodes one picture draws; the rest of a region is counted as omitted.
pub const MAX_NODES: usize = 60;

/// How far the path search between a finding's nodes goes (hops).
const MAX_PATH: usize = 24;

/// Finds a function's nodes by name and by source position.
pub struct FunctionIndex<'f> {
    f: &'f Function,
    by_name: FxHashMap<&'f str, NodeId>,
    /// (span start, span end, node), sorted by start.
    by_span: Vec<(usize, usize, NodeId)>,
}

impl<'f> FunctionIndex<'f> {
    /// Indexes the ops and inputs of `f`.
    pub fn new(f: &'f Function) -> FunctionIndex<'f> {
        let mut by_name = FxHashMap::default();
        let mut by_span = Vec::new();
        for (id, i) in f.inputs() {
            by_name.insert(i.name.as_str(), id);
        }
        for (id, op) in f.ops() {
            by_name.insert(op.display_name(), id);
            for o in &op.outputs {
                by_name.entry(o.name.as_str()).or_insert(id);
            }
            if op.span.len > 0 {
                by_span.push((op.span.start, op.span.end(), id));
            }
        }
        by_span.sort_unstable();
        FunctionIndex {
            f,
            by_name,
            by_span,
        }
    }

    /// The node of an op's name (or an output's, or an input's).
    pub fn named(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    /// The innermost op whose statement holds the start of `span`.
    pub fn at(&self, span: Span) -> Option<NodeId> {
        let end = self.by_span.partition_point(|e| e.0 <= span.start);
        self.by_span[..end]
            .iter()
            .rev()
            .take(8)
            .find(|e| span.start < e.1)
            .map(|e| e.2)
    }
}

fn is_const(f: &Function, id: NodeId) -> bool {
    f.op(id).is_some_and(|o| o.op_type == "const")
}

/// Neighbours of `id` that pictures draw (constants left out).
fn neighbours(f: &Function, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    f.producers(id)
        .into_iter()
        .map(|(n, _)| n)
        .chain(f.consumers(id).into_iter().map(|(n, _)| n))
        .filter(move |&n| !is_const(f, n))
}

/// The nodes within `depth` hops of `seeds` (seeds first, then by distance), at most `limit`.
/// Returns the nodes and how many more the hops reached.
pub fn around(f: &Function, seeds: &[NodeId], depth: usize, limit: usize) -> (Vec<NodeId>, usize) {
    let mut seen: FxHashSet<NodeId> = FxHashSet::default();
    let mut out = Vec::new();
    let mut queue = VecDeque::new();
    for &s in seeds {
        if seen.insert(s) {
            out.push(s);
            queue.push_back((s, 0));
        }
    }
    let mut omitted = 0;
    while let Some((id, d)) = queue.pop_front() {
        if d == depth {
            continue;
        }
        for n in neighbours(f, id) {
            if seen.insert(n) {
                if out.len() < limit {
                    out.push(n);
                    queue.push_back((n, d + 1));
                } else {
                    omitted += 1;
                }
            }
        }
    }
    (out, omitted)
}

/// Nodes reachable from `from` in at most `MAX_PATH` hops along (or against) the edges.
fn reach(f: &Function, from: &[NodeId], forward: bool) -> FxHashSet<NodeId> {
    let mut seen: FxHashSet<NodeId> = from.iter().copied().collect();
    let mut frontier: Vec<NodeId> = from.to_vec();
    for _ in 0..MAX_PATH {
        let mut next = Vec::new();
        for id in frontier {
            let step: Vec<NodeId> = if forward {
                f.consumers(id).into_iter().map(|(n, _)| n).collect()
            } else {
                f.producers(id).into_iter().map(|(n, _)| n).collect()
            };
            for n in step {
                if !is_const(f, n) && seen.insert(n) {
                    next.push(n);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    seen
}

/// The nodes on directed paths between any two of `seeds` (the seeds included).
pub fn between(f: &Function, seeds: &[NodeId]) -> Vec<NodeId> {
    if seeds.len() < 2 {
        return seeds.to_vec();
    }
    let down = reach(f, seeds, true);
    let up = reach(f, seeds, false);
    let seed_set: FxHashSet<NodeId> = seeds.iter().copied().collect();
    let mut on_path: Vec<NodeId> = down
        .intersection(&up)
        .copied()
        .filter(|n| !seed_set.contains(n))
        .collect();
    on_path.sort_by_key(|&n| order(f, n));
    on_path
}

/// Program order of a node (inputs first).
pub fn order(f: &Function, id: NodeId) -> (u8, u32) {
    match f.node(id) {
        Some(Node::Op(op)) => (1, op.order),
        _ => (0, id.index() as u32),
    }
}

/// What a finding's picture shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FindingRegion {
    /// The nodes to draw, in program order.
    pub nodes: Vec<NodeId>,
    /// The reported op (or the first node the finding names).
    pub primary: Option<NodeId>,
    /// Each label's node and text.
    pub labels: Vec<(NodeId, String)>,
    /// Nodes of the region left out of the picture.
    pub omitted: usize,
    /// The finding's own nodes and the paths between them (the rest are neighbours).
    pub core: Vec<NodeId>,
}

/// The nodes a finding names: its op, its labels' ops, its covered region, its state's uses.
fn finding_seeds(ix: &FunctionIndex<'_>, x: &Finding) -> (Vec<NodeId>, Vec<(NodeId, String)>) {
    let f = ix.f;
    let mut seeds: Vec<NodeId> = Vec::new();
    let push = |seeds: &mut Vec<NodeId>, id: NodeId| {
        if !seeds.contains(&id) {
            seeds.push(id);
        }
    };
    if let Some(id) = x.op.as_deref().and_then(|n| ix.named(n)) {
        push(&mut seeds, id);
    } else if let Some(id) = x.span.and_then(|s| ix.at(s)) {
        push(&mut seeds, id);
    }
    let mut labels = Vec::new();
    for l in &x.labels {
        if let Some(id) = ix.at(l.span) {
            push(&mut seeds, id);
            labels.push((id, l.text.clone()));
        }
    }
    if let Some(c) = &x.covered {
        for id in c.names.iter().filter_map(|n| ix.named(n)) {
            push(&mut seeds, id);
        }
    }
    if let Some(state) = x.state.as_deref().and_then(|s| ix.named(s)) {
        push(&mut seeds, state);
        for (n, _) in f.consumers(state) {
            push(&mut seeds, n);
        }
    }
    if seeds.is_empty() {
        // A finding about the whole function: its inputs.
        for (id, _) in f.inputs().take(8) {
            push(&mut seeds, id);
        }
    }
    (seeds, labels)
}

/// The picture of a finding in function `f`: its nodes, the paths between them, and
/// neighbours (two hops around a single op, one around a chain or region).
pub fn finding_region(ix: &FunctionIndex<'_>, x: &Finding) -> FindingRegion {
    let f = ix.f;
    let (mut seeds, labels) = finding_seeds(ix, x);
    let primary = seeds.first().copied();
    let mut omitted = 0;
    if seeds.len() > MAX_NODES {
        omitted += seeds.len() - MAX_NODES;
        seeds.truncate(MAX_NODES);
    }
    let mut core = seeds.clone();
    for n in between(f, &seeds) {
        if core.len() >= MAX_NODES {
            omitted += 1;
        } else {
            core.push(n);
        }
    }
    let depth = if core.len() == 1 { 2 } else { 1 };
    let budget = MAX_NODES.max(core.len());
    let (mut nodes, more) = around(f, &core, depth, budget);
    omitted += more;
    nodes.sort_by_key(|&n| order(f, n));
    FindingRegion {
        nodes,
        primary,
        labels,
        omitted,
        core,
    }
}
