//! State write chains and their write windows (HAZARDS.md, FORMAT.md §6.3–6.4).
//!
//! For every `write_state(input = S, data = D)` and `coreml_update_state(state = S, value = D)`:
//! strip `identity`/`cast` from `D`; when what remains is `slice_update(x = R, …)` with `R` a read of
//! `S` (`read_state(input = S)`, or the result of an earlier `coreml_update_state` of `S`), the write
//! window is the slice, resolved per axis. Anything else writes the whole state: an element-wise blend
//! of the old content, a scatter, a concat or a fresh tensor.
//!
//! A `slice_update` whose window covers all of its `x` returns its `update` unchanged. `torch.export`
//! wraps the real write in one such full-window `slice_update` per sliced axis (HAZARDS.md H4b), so
//! the chain is followed down through them: each level is recorded with its window and the
//! dependence of its bounds. The written extent is the outermost level's; the window the author
//! wrote is the innermost's.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use super::consteval::{slice_indices, ConstEnv};
use super::dependence::{Dependence, DependenceMap};
use super::entity::{kind_named, prop, Entity, EntityKind, PropType};
use crate::ir::{Arg, Function, Model, NodeId, Op, TensorType, ValueType};

/// Ops through which a written value is followed unchanged.
const PASS_THROUGH: &[&str] = &["identity", "cast"];
/// Element-wise ops a blend of the old state content is made of.
const ELEMENTWISE: &[&str] = &[
    "add", "sub", "mul", "real_div", "select", "maximum", "minimum", "identity", "cast", "clip",
];
/// How many ops a blend search visits per write before giving up.
const BLEND_SEARCH_LIMIT: usize = 256;

/// A state declared by the function (a `state<tensor<…>>` parameter).
#[derive(Clone, Debug, PartialEq)]
pub struct StateDecl {
    /// The function parameter that declares the state.
    pub node: NodeId,
    /// The state's name (the parameter's name).
    pub name: String,
    /// The wrapped tensor type.
    pub ty: TensorType,
}

impl StateDecl {
    /// Dimensions when all are known.
    pub fn dims(&self) -> Option<Vec<u64>> {
        self.ty.known_dims()
    }
}

/// The op that performs the write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOp {
    /// `write_state(input = S, data = D)` (serialized form).
    WriteState,
    /// `coreml_update_state(state = S, value = D)` (coremltools dialect).
    CoremlUpdateState,
}

/// What the written data is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    /// A `slice_update` of the state's own content: only the window changes.
    SliceUpdate,
    /// An element-wise combination of the state's old content: the whole state is rewritten.
    Blend,
    /// A `scatter` / `scatter_nd` / `scatter_along_axis` result: the whole state is rewritten.
    Scatter,
    /// A `concat` result (e.g. a shift): the whole state is rewritten.
    Concat,
    /// Any other tensor (a fresh value, a `slice_update` of something else): whole state.
    Fresh,
}

impl WriteKind {
    /// Every kind, as rules name them.
    pub const ALL: [WriteKind; 5] = [
        WriteKind::SliceUpdate,
        WriteKind::Blend,
        WriteKind::Scatter,
        WriteKind::Concat,
        WriteKind::Fresh,
    ];

    /// `slice-update`, `blend`, `scatter`, `concat` or `fresh`.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteKind::SliceUpdate => "slice-update",
            WriteKind::Blend => "blend",
            WriteKind::Scatter => "scatter",
            WriteKind::Concat => "concat",
            WriteKind::Fresh => "fresh",
        }
    }

    /// The kind named `name` in a rule.
    pub fn parse(name: &str) -> Option<WriteKind> {
        WriteKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// Where one bound (`begin` or `end`) of a window on one axis comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// An explicit index: a constant (`Some`, possibly negative: counted from the end) or a value
    /// computed at run time from data (`None`). A non-negative one names the same index in a longer
    /// axis.
    Explicit(Option<i64>),
    /// Ignored through a mask: the start of the axis (begin) or its length (end).
    Masked,
    /// Computed from a shape: it changes with the axis length.
    FromShape,
    /// Not known (a mask or the parameter itself cannot be read).
    Unknown,
}

/// The bounds of one level's window on one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisBounds {
    /// Where the window starts on the axis.
    pub begin: Bound,
    /// Where the window ends (exclusive) on the axis.
    pub end: Bound,
    /// `None` when the stride is not constant.
    pub stride: Option<i64>,
    /// True when the axis takes the single index `begin` (squeeze mask).
    pub squeeze: bool,
}

impl AxisBounds {
    /// Why this axis names other indices once the axis grows by one (`None`: it does not).
    /// `Ok` cases that only need the constant pinned are not reasons: see [`AxisBounds::pin`].
    pub fn growth_hazard(&self) -> Option<&'static str> {
        let bad = |b: Bound| match b {
            Bound::FromShape => Some("is computed from a shape"),
            Bound::Unknown => Some("is not known"),
            _ => None,
        };
        if let Some(r) = bad(self.begin) {
            return Some(r);
        }
        if self.squeeze {
            return None;
        }
        bad(self.end)
    }

    /// Constant bounds to substitute so that the window names the same indices in an axis one
    /// longer than `dim`: `(new begin, new end, clear end mask)`, each `None` when unchanged.
    /// `Err` when a bound depends on the axis length and cannot be pinned.
    #[allow(clippy::type_complexity)]
    pub fn pin(&self, dim: u64) -> Result<(Option<i64>, Option<i64>, bool), &'static str> {
        let d = i64::try_from(dim).map_err(|_| "the axis is too long")?;
        if let Some(r) = self.growth_hazard() {
            return Err(r);
        }
        let resolve = |v: i64| {
            let v = if v < 0 { v.saturating_add(d) } else { v };
            v.clamp(0, d)
        };
        let begin = match self.begin {
            Bound::Explicit(Some(v)) if v < 0 || v > d => Some(resolve(v)),
            _ => None,
        };
        if self.squeeze {
            return Ok((begin, None, false));
        }
        let unit = self.stride == Some(1);
        let (end, clear) = match self.end {
            Bound::Explicit(Some(v)) if v < 0 || v > d => (Some(resolve(v)), false),
            Bound::Masked => (Some(d), true),
            _ => (None, false),
        };
        if (begin.is_some() || end.is_some()) && !unit {
            return Err("needs a pinned bound with a stride other than 1");
        }
        Ok((begin, end, clear))
    }
}

/// The part of one axis a write covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisWindow {
    /// Resolved: indices `lo, lo + step, …` below `hi`, `count` of them.
    Known {
        /// First index written.
        lo: u64,
        /// Exclusive upper limit of the indices written.
        hi: u64,
        /// Distance between consecutive indices written.
        step: u64,
        /// Number of indices written.
        count: u64,
    },
    /// Begin or end is not a constant; `count` is the number of indices when the update's shape says.
    Runtime {
        /// Number of indices written, when the update's shape gives it.
        count: Option<u64>,
    },
}

/// The window of one write: one entry per state axis, beside the state's dimensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// One entry per state axis, outermost first.
    pub axes: Vec<AxisWindow>,
    /// The state's dimensions (`None` where unknown).
    pub dims: Vec<Option<u64>>,
}

impl Window {
    /// The whole of a state with these dimensions.
    pub fn whole(dims: &[Option<u64>]) -> Window {
        Window {
            axes: dims
                .iter()
                .map(|d| match d {
                    Some(n) => AxisWindow::Known {
                        lo: 0,
                        hi: *n,
                        step: 1,
                        count: *n,
                    },
                    None => AxisWindow::Runtime { count: None },
                })
                .collect(),
            dims: dims.to_vec(),
        }
    }

    /// Whether axis `i` is covered entirely: `Some(true)` yes, `Some(false)` certainly not.
    pub fn covers_axis(&self, i: usize) -> Option<bool> {
        let dim = (*self.dims.get(i)?)?;
        match *self.axes.get(i)? {
            AxisWindow::Known { count, .. } => Some(count == dim),
            AxisWindow::Runtime { count: Some(c) } => Some(c == dim),
            AxisWindow::Runtime { count: None } => None,
        }
    }

    /// `Some(true)` when every axis is covered, `Some(false)` when some axis certainly is not.
    pub fn covers_all(&self) -> Option<bool> {
        let mut all = Some(true);
        for i in 0..self.axes.len() {
            match self.covers_axis(i) {
                Some(false) => return Some(false),
                None => all = None,
                Some(true) => {}
            }
        }
        all
    }

    /// Axes the window certainly leaves partly unwritten.
    pub fn partial_axes(&self) -> Vec<usize> {
        (0..self.axes.len())
            .filter(|&i| self.covers_axis(i) == Some(false))
            .collect()
    }

    /// The largest number of indices left out on one axis (`None` when some axis is unknown).
    pub fn max_uncovered(&self) -> Option<u64> {
        let mut worst = 0u64;
        for (a, d) in self.axes.iter().zip(&self.dims) {
            let count = match a {
                AxisWindow::Known { count, .. } => *count,
                AxisWindow::Runtime { count } => (*count)?,
            };
            worst = worst.max((*d)?.saturating_sub(count));
        }
        Some(worst)
    }

    /// True when every axis is resolved to constant bounds.
    pub fn is_known(&self) -> bool {
        self.axes
            .iter()
            .all(|a| matches!(a, AxisWindow::Known { .. }))
    }

    /// One axis as `[lo, hi)` (with `step s` when strided), `[?, ?+n)` when run-time.
    pub fn axis_text(&self, i: usize) -> String {
        match self.axes.get(i) {
            Some(AxisWindow::Known { lo, hi, step, .. }) if *step > 1 => {
                format!("[{lo}, {hi}) step {step}")
            }
            Some(AxisWindow::Known { lo, hi, .. }) => format!("[{lo}, {hi})"),
            Some(AxisWindow::Runtime { count: Some(c) }) => format!("[?, ?+{c})"),
            Some(AxisWindow::Runtime { count: None }) | None => "[?, ?)".to_string(),
        }
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = (0..self.axes.len()).map(|i| self.axis_text(i)).collect();
        f.write_str(&parts.join(" × "))
    }
}

/// One `slice_update` of a read of the state in a write chain.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteLevel {
    /// The `slice_update` op of this level.
    pub slice_update: NodeId,
    /// The read of the state that is its `x`.
    pub read_op: NodeId,
    /// `identity` / `cast` ops between its `x` and the read.
    pub x_through: Vec<NodeId>,
    /// `identity` / `cast` ops between its result and the level above (empty for the outermost:
    /// those are the write's [`StateWrite::through`]).
    pub through: Vec<NodeId>,
    /// Per-axis window (`None` when the state's rank is unknown).
    pub window: Option<Window>,
    /// Per-axis origin of the bounds (empty when the state's rank is unknown).
    pub bounds: Vec<AxisBounds>,
    /// Run-time dependence of `begin` (`None` when constant or absent).
    pub begin_dep: Option<Dependence>,
    /// Run-time dependence of `end` (`None` when constant or absent).
    pub end_dep: Option<Dependence>,
}

impl WriteLevel {
    /// True when the window covers all of `x`: the result is the `update` unchanged.
    pub fn is_full_window(&self) -> bool {
        self.window.as_ref().and_then(Window::covers_all) == Some(true)
    }
}

/// One write into a state.
#[derive(Clone, Debug, PartialEq)]
pub struct StateWrite {
    /// Index into [`StateWrites::states`].
    pub state: usize,
    /// The `write_state` / `coreml_update_state` op.
    pub write_op: NodeId,
    /// Which write op it is.
    pub op_kind: WriteOp,
    /// What the written data is.
    pub kind: WriteKind,
    /// The read of the state whose content is updated (slice_update `x`, or found in a blend).
    pub read_op: Option<NodeId>,
    /// The outermost `slice_update` whose result is written (`None` when the data is not one).
    pub slice_update: Option<NodeId>,
    /// `identity` / `cast` ops between the written data and the `slice_update` (or blend).
    pub through: Vec<NodeId>,
    /// Per-axis window (`None` when the state's rank is unknown).
    pub window: Option<Window>,
    /// Run-time dependence of `begin` / `end` (`None` when constant or absent).
    pub begin_dep: Option<Dependence>,
    /// Run-time dependence of `end` (`None` when constant or absent).
    pub end_dep: Option<Dependence>,
    /// Element-wise ops that compute the written values from the state's old content (H2).
    pub rmw_ops: Vec<NodeId>,
    /// 1-based position among the writes into the same state in this function, in program order.
    pub nth: usize,
    /// The `slice_update` chain, outermost (written) first; empty unless `kind` is `SliceUpdate`.
    /// Every level but the last is a full-window wrapper around the one below.
    pub levels: Vec<WriteLevel>,
}

impl StateWrite {
    /// The innermost level: the window the author wrote.
    pub fn inner(&self) -> Option<&WriteLevel> {
        self.levels.last()
    }

    /// The full-window wrappers above the innermost level, outermost first.
    pub fn wrappers(&self) -> &[WriteLevel] {
        match self.levels.split_last() {
            Some((_, rest)) => rest,
            None => &[],
        }
    }

    /// The window that changes the state's content: the innermost level's, else the written one.
    pub fn inner_window(&self) -> Option<&Window> {
        self.inner()
            .and_then(|l| l.window.as_ref())
            .or(self.window.as_ref())
    }

    /// Whether the written data covers the whole state once the wrappers are removed.
    pub fn inner_covers_all(&self) -> Option<bool> {
        match self.kind {
            WriteKind::SliceUpdate => self.inner_window().and_then(Window::covers_all),
            _ => Some(true),
        }
    }
}

/// The axis to pad: among the axes some write leaves partial, the longest that is not the last
/// (the last axis is the one alignment rules judge), else the longest axis other than the last;
/// ties go to the later axis. A rank-1 state pads axis 0.
pub fn choose_pad_axis(dims: &[Option<u64>], partial: &[usize]) -> Option<usize> {
    let n = dims.len();
    let dim = |i: usize| dims.get(i).copied().flatten().unwrap_or(0);
    let best = |cands: &mut dyn Iterator<Item = usize>| {
        cands.fold(None, |best: Option<usize>, i| match best {
            Some(b) if dim(b) > dim(i) => Some(b),
            _ => Some(i),
        })
    };
    if let Some(a) = best(&mut partial.iter().copied().filter(|&a| a + 1 < n)) {
        return Some(a);
    }
    match n {
        0 => None,
        1 => Some(0),
        _ => best(&mut (0..n - 1)),
    }
}

/// The states of one function and every write into them, in program order.
#[derive(Clone, Debug, Default)]
pub struct StateWrites {
    /// The function's states, in declaration order.
    pub states: Vec<StateDecl>,
    /// Every write into them, in program order.
    pub writes: Vec<StateWrite>,
}

impl StateWrites {
    /// The state at `index`.
    pub fn state(&self, index: usize) -> Option<&StateDecl> {
        self.states.get(index)
    }

    /// Writes into state `index`.
    pub fn writes_to(&self, index: usize) -> impl Iterator<Item = &StateWrite> + '_ {
        self.writes.iter().filter(move |w| w.state == index)
    }

    /// Number of writes into state `index`.
    pub fn count(&self, index: usize) -> usize {
        self.writes_to(index).count()
    }

    /// The write performed by op `id`.
    pub fn write_at(&self, id: NodeId) -> Option<(usize, &StateWrite)> {
        self.writes
            .iter()
            .enumerate()
            .find(|(_, w)| w.write_op == id)
    }

    /// The axis to pad, judged from this function's writes alone (see [`choose_pad_axis`]; the fix
    /// plan judges from every function of the model).
    pub fn pad_axis(&self, index: usize) -> Option<usize> {
        let st = self.state(index)?;
        let dims: Vec<Option<u64>> = st.ty.shape.as_ref()?.iter().map(|d| d.known()).collect();
        let partial: Vec<usize> = self
            .writes_to(index)
            .filter_map(StateWrite::inner_window)
            .flat_map(Window::partial_axes)
            .collect();
        choose_pad_axis(&dims, &partial)
    }
}

/// The state input node a value name refers to, when it is a declared state.
fn state_index(states: &[StateDecl], f: &Function, op: &Op, param: &str) -> Option<usize> {
    let name = op.arg_name(param)?;
    let node = f.def(name)?.node;
    states.iter().position(|s| s.node == node)
}

/// Follows `identity` / `cast` backwards from a value; returns the producer and the skipped ops.
fn strip(f: &Function, value: &str) -> Option<(NodeId, Vec<NodeId>)> {
    let mut node = f.def(value)?.node;
    let mut through = Vec::new();
    for _ in 0..64 {
        let Some(op) = f.op(node) else { break };
        if !PASS_THROUGH.contains(&op.op_type.as_str()) {
            break;
        }
        let Some(x) = op.arg_name("x") else { break };
        let Some(def) = f.def(x) else { break };
        through.push(node);
        node = def.node;
    }
    Some((node, through))
}

/// True when `node` reads the current content of state `state_node`.
fn is_read_of(f: &Function, node: NodeId, state_node: NodeId) -> bool {
    let Some(op) = f.op(node) else { return false };
    let param = match op.op_type.as_str() {
        "read_state" => "input",
        "coreml_update_state" => "state",
        _ => return false,
    };
    op.arg_name(param)
        .and_then(|n| f.def(n))
        .is_some_and(|d| d.node == state_node)
}

/// A backwards search from a written value for a read of the state, through element-wise ops.
struct RmwSearch<'a> {
    f: &'a Function,
    state_node: NodeId,
    /// Also walk through `slice_by_index` (a blend of a slice of the old content).
    slices: bool,
    memo: BTreeMap<NodeId, bool>,
    read: Option<NodeId>,
    budget: usize,
}

impl RmwSearch<'_> {
    fn visit(&mut self, node: NodeId, depth: u32) -> bool {
        if let Some(&r) = self.memo.get(&node) {
            return r;
        }
        if is_read_of(self.f, node, self.state_node) {
            self.read.get_or_insert(node);
            self.memo.insert(node, true);
            return true;
        }
        let f = self.f;
        let Some(op) = f.op(node) else {
            self.memo.insert(node, false);
            return false;
        };
        let walkable = ELEMENTWISE.contains(&op.op_type.as_str())
            || (self.slices && op.op_type == "slice_by_index");
        if !walkable || self.budget == 0 || depth > 64 {
            self.memo.insert(node, false);
            return false;
        }
        self.budget -= 1;
        let mut any = false;
        for (producer, edge) in f.producers(node) {
            if op.op_type == "slice_by_index" && edge.param != "x" {
                continue;
            }
            if self.visit(producer, depth + 1) {
                any = true;
            }
        }
        self.memo.insert(node, any);
        any
    }
}

/// Searches backwards from `start` through element-wise ops (and `slice_by_index` when `slices`)
/// for a read of the state. Returns the read and the element-wise ops on paths that reach it.
fn find_rmw(
    f: &Function,
    start: NodeId,
    state_node: NodeId,
    slices: bool,
) -> Option<(NodeId, Vec<NodeId>)> {
    let mut search = RmwSearch {
        f,
        state_node,
        slices,
        memo: BTreeMap::new(),
        read: None,
        budget: BLEND_SEARCH_LIMIT,
    };
    if !search.visit(start, 0) {
        return None;
    }
    let mut ops: Vec<NodeId> = search
        .memo
        .iter()
        .filter(|(&n, &reaches)| {
            reaches
                && f.op(n).is_some_and(|o| {
                    !PASS_THROUGH.contains(&o.op_type.as_str()) && o.op_type != "slice_by_index"
                })
                && !is_read_of(f, n, state_node)
        })
        .map(|(&n, _)| n)
        .collect();
    ops.sort_by_key(|&n| f.op(n).map_or(u32::MAX, |o| o.order));
    Some((search.read?, ops))
}

fn arg_dependence(deps: &DependenceMap, op: &Op, param: &str) -> Option<Dependence> {
    match op.arg(param)? {
        Arg::Name(n) => deps.get(n).filter(|d| d.runtime()).cloned(),
        Arg::Value(_) => None,
    }
}

/// Resolves the window of `slice_update` op `su` over a state with dimensions `dims`.
fn slice_window(f: &Function, consts: &ConstEnv, su: &Op, dims: &[Option<u64>]) -> Window {
    let rank = dims.len();
    let begin = consts.partial_ints(f, su, "begin", rank);
    let end = consts.partial_ints(f, su, "end", rank);
    let mask = |name: &str| -> Option<Vec<bool>> {
        if su.param(name).is_none() {
            return Some(vec![false; rank]);
        }
        consts
            .param(su, name)
            .and_then(|v| v.data.bools())
            .filter(|v| v.len() == rank)
    };
    let stride: Option<Vec<i64>> = if su.param("stride").is_none() {
        Some(vec![1; rank])
    } else {
        consts
            .param(su, "stride")
            .and_then(|v| v.ints())
            .filter(|v| v.len() == rank)
    };
    let (bm, em, sm) = (mask("begin_mask"), mask("end_mask"), mask("squeeze_mask"));
    // Update dims line up with the axes that are not squeezed.
    let update_dims: Option<Vec<Option<u64>>> = su
        .arg_name("update")
        .and_then(|n| f.value_type(n))
        .and_then(|t| t.tensor())
        .and_then(|t| t.shape.as_ref())
        .map(|s| s.iter().map(|d| d.known()).collect());
    let kept: Vec<usize> = match &sm {
        Some(sm) => (0..rank)
            .filter(|&i| !sm.get(i).copied().unwrap_or(false))
            .collect(),
        None => (0..rank).collect(),
    };
    let update_count = |axis: usize| -> Option<u64> {
        let ud = update_dims.as_ref()?;
        if ud.len() != kept.len() {
            return None;
        }
        let pos = kept.iter().position(|&k| k == axis)?;
        *ud.get(pos)?
    };
    let mut axes = Vec::with_capacity(rank);
    for (i, &dim) in dims.iter().enumerate() {
        let squeezed = sm.as_ref().and_then(|m| m.get(i).copied());
        let runtime = |count| AxisWindow::Runtime { count };
        let axis = match (dim, squeezed) {
            (_, None) => runtime(None),
            (None, Some(true)) => runtime(Some(1)),
            (None, Some(false)) => runtime(update_count(i)),
            (Some(d), Some(true)) => match begin.get(i).copied().flatten() {
                Some(b) => {
                    let b = if b < 0 { b + d as i64 } else { b };
                    if (0..d as i64).contains(&b) {
                        AxisWindow::Known {
                            lo: b as u64,
                            hi: b as u64 + 1,
                            step: 1,
                            count: 1,
                        }
                    } else {
                        runtime(Some(1))
                    }
                }
                None => runtime(Some(1)),
            },
            (Some(d), Some(false)) => {
                let bmask = bm.as_ref().and_then(|m| m.get(i).copied());
                let emask = em.as_ref().and_then(|m| m.get(i).copied());
                let b = match bmask {
                    Some(true) => Some(0),
                    Some(false) => begin.get(i).copied().flatten(),
                    None => None,
                };
                let e = match emask {
                    Some(true) => Some(0),
                    Some(false) => end.get(i).copied().flatten(),
                    None => None,
                };
                let s = stride.as_ref().and_then(|s| s.get(i).copied());
                match (b, e, s, bmask, emask) {
                    (Some(b), Some(e), Some(s), Some(bmk), Some(emk)) => {
                        match slice_indices(d, b, e, s, bmk, emk) {
                            Some(idx) => {
                                let lo = idx.iter().copied().min().unwrap_or(0);
                                let hi = idx.iter().copied().max().map_or(0, |m| m + 1);
                                AxisWindow::Known {
                                    lo,
                                    hi,
                                    step: s.unsigned_abs(),
                                    count: idx.len() as u64,
                                }
                            }
                            None => runtime(update_count(i)),
                        }
                    }
                    _ => runtime(update_count(i)),
                }
            }
        };
        axes.push(axis);
    }
    Window {
        axes,
        dims: dims.to_vec(),
    }
}

/// The window of the `slice_update` (or `slice_by_index`) op `id` over a tensor with dimensions
/// `dims`, resolved per axis as far as constants tell.
pub fn window_of(
    f: &Function,
    consts: &ConstEnv,
    id: NodeId,
    dims: &[Option<u64>],
) -> Option<Window> {
    Some(slice_window(f, consts, f.op(id)?, dims))
}

/// True when `value` is computed (within a few ops) from a `shape` op: of a run-time shape, or of a
/// value shaped like the state (`state_dims`), whose length changes when the state is padded.
fn from_shape(f: &Function, value: &str, state_dims: &[Option<u64>], dynamic: bool) -> bool {
    let Some(start) = f.def(value).map(|d| d.node) else {
        return false;
    };
    let mut stack = vec![start];
    let mut seen = HashSet::new();
    while let Some(node) = stack.pop() {
        if !seen.insert(node) || seen.len() > BLEND_SEARCH_LIMIT {
            continue;
        }
        let Some(op) = f.op(node) else { continue };
        if op.op_type == "shape" {
            let shaped = op
                .arg_name("x")
                .and_then(|x| f.value_type(x))
                .and_then(ValueType::tensor)
                .and_then(|t| t.shape.as_ref())
                .map(|s| s.iter().map(|d| d.known()).collect::<Vec<_>>());
            if dynamic || shaped.as_deref() == Some(state_dims) {
                return true;
            }
        }
        stack.extend(f.producers(node).into_iter().map(|(p, _)| p));
    }
    false
}

/// The origin of every bound of `slice_update` op `su` over a state with dimensions `dims`.
fn slice_bounds(
    f: &Function,
    consts: &ConstEnv,
    deps: &DependenceMap,
    su: &Op,
    dims: &[Option<u64>],
) -> Vec<AxisBounds> {
    let rank = dims.len();
    let flags = |name: &str| -> Vec<Option<bool>> {
        if su.param(name).is_none() {
            return vec![Some(false); rank];
        }
        match consts.param(su, name).and_then(|v| v.data.bools()) {
            Some(v) if v.len() == rank => v.into_iter().map(Some).collect(),
            _ => vec![None; rank],
        }
    };
    let stride: Vec<Option<i64>> = if su.param("stride").is_none() {
        vec![Some(1); rank]
    } else {
        consts.partial_ints(f, su, "stride", rank)
    };
    let (bm, em, sm) = (
        flags("begin_mask"),
        flags("end_mask"),
        flags("squeeze_mask"),
    );
    let bound = |param: &str, mask: &[Option<bool>]| -> Vec<Bound> {
        let values = consts.partial_ints(f, su, param, rank);
        let name = su.arg_name(param);
        let dep = name.and_then(|n| deps.get(n)).filter(|d| d.runtime());
        let shaped = name.is_some_and(|n| from_shape(f, n, dims, dep.is_some_and(|d| d.shape)));
        (0..rank)
            .map(|i| match mask.get(i).copied().flatten() {
                Some(true) => Bound::Masked,
                None => Bound::Unknown,
                Some(false) if shaped => Bound::FromShape,
                Some(false) => match values.get(i).copied().flatten() {
                    Some(v) => Bound::Explicit(Some(v)),
                    None if dep.is_some() => Bound::Explicit(None),
                    None => Bound::Unknown,
                },
            })
            .collect()
    };
    let begins = bound("begin", &bm);
    let ends = bound("end", &em);
    (0..rank)
        .map(|i| AxisBounds {
            begin: begins[i],
            end: ends[i],
            stride: stride.get(i).copied().flatten(),
            squeeze: sm.get(i).copied().flatten().unwrap_or(false),
        })
        .collect()
}

/// The level of a write chain at `node` when it is a `slice_update` of a read of the state.
fn level_at(
    f: &Function,
    consts: &ConstEnv,
    deps: &DependenceMap,
    node: NodeId,
    state_node: NodeId,
    dims: Option<&[Option<u64>]>,
) -> Option<WriteLevel> {
    let su = f.op(node).filter(|o| o.op_type == "slice_update")?;
    let (read, x_through) = su
        .arg_name("x")
        .and_then(|x| strip(f, x))
        .filter(|(x, _)| is_read_of(f, *x, state_node))?;
    Some(WriteLevel {
        slice_update: node,
        read_op: read,
        x_through,
        through: Vec::new(),
        window: dims.map(|d| slice_window(f, consts, su, d)),
        bounds: dims.map_or_else(Vec::new, |d| slice_bounds(f, consts, deps, su, d)),
        begin_dep: arg_dependence(deps, su, "begin"),
        end_dep: arg_dependence(deps, su, "end"),
    })
}

/// How many full-window wrappers are followed at most.
const MAX_LEVELS: usize = 16;

/// The kind of a whole-state write of `data` (not a `slice_update` of the state).
fn whole_kind(f: &Function, data: NodeId) -> WriteKind {
    match f.op(data).map(|o| o.op_type.as_str()) {
        Some("scatter" | "scatter_nd" | "scatter_along_axis") => WriteKind::Scatter,
        Some("concat") => WriteKind::Concat,
        _ => WriteKind::Fresh,
    }
}

/// Finds every state and every write into one, in program order.
pub fn analyze(f: &Function, consts: &ConstEnv, deps: &DependenceMap) -> StateWrites {
    let states: Vec<StateDecl> = f
        .inputs()
        .filter(|(_, i)| i.ty.is_state())
        .filter_map(|(id, i)| {
            Some(StateDecl {
                node: id,
                name: i.name.to_string(),
                ty: i.ty.tensor()?.clone(),
            })
        })
        .collect();
    let mut writes: Vec<StateWrite> = Vec::new();
    let mut seen: Vec<usize> = vec![0; states.len()];
    for (id, op) in f.ops() {
        let (op_kind, state_param, data_param) = match op.op_type.as_str() {
            "write_state" => (WriteOp::WriteState, "input", "data"),
            "coreml_update_state" => (WriteOp::CoremlUpdateState, "state", "value"),
            _ => continue,
        };
        let Some(si) = state_index(&states, f, op, state_param) else {
            continue;
        };
        let Some(st) = states.get(si) else { continue };
        let dims: Option<Vec<Option<u64>>> = st
            .ty
            .shape
            .as_ref()
            .map(|s| s.iter().map(|d| d.known()).collect());
        let mut w = StateWrite {
            state: si,
            write_op: id,
            op_kind,
            kind: WriteKind::Fresh,
            read_op: None,
            slice_update: None,
            through: Vec::new(),
            window: dims.as_deref().map(Window::whole),
            begin_dep: None,
            end_dep: None,
            rmw_ops: Vec::new(),
            nth: 0,
            levels: Vec::new(),
        };
        if let Some((data, through)) = op.arg_name(data_param).and_then(|d| strip(f, d)) {
            w.through = through;
            let mut node = data;
            let mut above: Vec<NodeId> = Vec::new();
            while let Some(mut level) = level_at(f, consts, deps, node, st.node, dims.as_deref()) {
                level.through = std::mem::take(&mut above);
                let full = level.is_full_window();
                w.levels.push(level);
                if !full || w.levels.len() >= MAX_LEVELS {
                    break;
                }
                let Some((n, th)) = f
                    .op(node)
                    .and_then(|o| o.arg_name("update"))
                    .and_then(|u| strip(f, u))
                else {
                    break;
                };
                node = n;
                above = th;
            }
            if let (Some(outer), Some(inner)) = (w.levels.first(), w.levels.last()) {
                w.kind = WriteKind::SliceUpdate;
                w.slice_update = Some(outer.slice_update);
                w.read_op = Some(outer.read_op);
                w.through.extend(outer.x_through.iter().copied());
                w.window = outer.window.clone();
                // A run-time bound at any level is a run-time bound of the write.
                w.begin_dep = w.levels.iter().rev().find_map(|l| l.begin_dep.clone());
                w.end_dep = w.levels.iter().rev().find_map(|l| l.end_dep.clone());
                let inner_su = f.op(inner.slice_update);
                if let Some(upd) = inner_su
                    .and_then(|o| o.arg_name("update"))
                    .and_then(|u| f.def(u))
                {
                    if let Some((_, ops)) = find_rmw(f, upd.node, st.node, true) {
                        w.rmw_ops = ops;
                    }
                }
            } else if let Some((read, ops)) =
                find_rmw(f, data, st.node, false).filter(|(_, o)| !o.is_empty())
            {
                w.kind = WriteKind::Blend;
                w.read_op = Some(read);
                w.rmw_ops = ops;
            } else {
                w.kind = whole_kind(f, data);
            }
        }
        if let Some(n) = seen.get_mut(si) {
            *n += 1;
            w.nth = *n;
        }
        writes.push(w);
    }
    StateWrites { states, writes }
}

/// The entity kind produced here: the model's states across its functions.
pub const ENTITY_KINDS: &[EntityKind] = &[EntityKind {
    name: "model-state",
    doc: "a state of the model, across all its functions: who reads it and whether any function writes it",
    located_at: "its first read (in function order), else its first declaration",
    properties: &[
        prop("name", PropType::Text, "the state's name"),
        prop("read", PropType::Bool, "some function reads it (`read_state`)"),
        prop(
            "written",
            PropType::Bool,
            "some function writes it (`write_state` or `coreml_update_state`)",
        ),
        prop("readers", PropType::Text, "the functions that read it, e.g. `` `decode`, `prefill` ``"),
    ],
}];

/// One entity per state of `model`: read by which functions, written by any. `torch.jit.trace`
/// of an in-place cache update can drop the write (HAZARDS.md H4b).
pub fn model_state_entities(model: &Model) -> Vec<Entity> {
    let mut written: HashSet<&str> = HashSet::new();
    let mut first_read: BTreeMap<&str, (&Function, &Op)> = BTreeMap::new();
    let mut declared: BTreeMap<&str, &Function> = BTreeMap::new();
    for f in &model.program.functions {
        for (_, i) in f.inputs() {
            if i.ty.is_state() {
                declared.entry(&i.name).or_insert(f);
            }
        }
        for (_, op) in f.ops() {
            let (param, writes) = match op.op_type.as_str() {
                "read_state" => ("input", false),
                "write_state" => ("input", true),
                "coreml_update_state" => ("state", true),
                _ => continue,
            };
            let Some(state) = op.arg_name(param) else {
                continue;
            };
            let is_state = f
                .def(state)
                .and_then(|d| f.input(d.node))
                .is_some_and(|i| i.ty.is_state());
            if !is_state {
                continue;
            }
            if writes {
                written.insert(state);
            } else {
                first_read.entry(state).or_insert((f, op));
            }
        }
    }
    declared
        .into_iter()
        .map(|(s, decl)| {
            let readers: Vec<String> = model
                .program
                .functions
                .iter()
                .filter(|g| {
                    g.ops()
                        .any(|(_, o)| o.op_type == "read_state" && o.arg_name("input") == Some(s))
                })
                .map(|g| format!("`{}`", g.name))
                .collect();
            let mut x = Entity::new(const { kind_named(ENTITY_KINDS, "model-state") })
                .with("name", s)
                .with("read", first_read.contains_key(s))
                .with("written", written.contains(s))
                .with("readers", readers.join(", "));
            x.state = Some(s.to_string());
            match first_read.get(s) {
                Some((f, op)) => {
                    x.function = Some(f.name.clone());
                    x.op = Some(op.display_name().to_string());
                    x.op_order = Some(op.order);
                    x.span = Some(op.span);
                }
                None => {
                    x.function = Some(decl.name.clone());
                    x.span = decl
                        .inputs()
                        .find(|(_, i)| i.name.as_str() == s)
                        .map(|(_, i)| i.span);
                }
            }
            x
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testutil::*;
    use crate::ir::build::OpSyntax;
    use crate::ir::DType;

    /// read_state → slice_update(begin, end, masks) → write_state over a [1, rows, 4] state.
    fn chain(rows: u64, begin: &[i64], end: &[i64], extra: Vec<OpSyntax>) -> Function {
        let mut ops = vec![konst("b", ints(&[3], begin)), konst("e", ints(&[3], end))];
        ops.extend(extra);
        ops.push(op(
            "read_state",
            "old",
            &[("input", "s")],
            tensor(DType::Fp16, &[1, rows, 4]),
        ));
        ops.push(op(
            "slice_update",
            "new",
            &[("x", "old"), ("update", "u"), ("begin", "b"), ("end", "e")],
            tensor(DType::Fp16, &[1, rows, 4]),
        ));
        ops.push(op0("write_state", "w", &[("data", "new"), ("input", "s")]));
        func(
            vec![
                input("s", state(DType::Fp16, &[1, rows, 4])),
                input("u", tensor(DType::Fp16, &[1, 8, 4])),
            ],
            ops,
        )
    }

    fn writes(f: &Function) -> StateWrites {
        let c = crate::analysis::consteval::evaluate(f);
        let d = crate::analysis::dependence::analyze(f);
        analyze(f, &c, &d)
    }

    #[test]
    fn full_window_is_detected() {
        let f = chain(8, &[0, 0, 0], &[1, 8, 4], vec![]);
        let sw = writes(&f);
        let w = sw.writes.first().expect("one write");
        assert_eq!(w.kind, WriteKind::SliceUpdate);
        let win = w.window.as_ref().expect("rank known");
        assert_eq!(win.covers_all(), Some(true));
        assert_eq!(win.to_string(), "[0, 1) × [0, 8) × [0, 4)");
        assert_eq!(sw.pad_axis(0), Some(1));
    }

    #[test]
    fn padded_state_is_partial() {
        let f = chain(9, &[0, 0, 0], &[1, 8, 4], vec![]);
        let sw = writes(&f);
        let win = sw.writes[0].window.clone().expect("rank known");
        assert_eq!(win.covers_all(), Some(false));
        assert_eq!(win.partial_axes(), vec![1]);
        assert_eq!(win.max_uncovered(), Some(1));
    }

    #[test]
    fn negative_end_and_masks() {
        let f = chain(9, &[0, 1, 0], &[1, -1, 4], vec![]);
        let win = writes(&f).writes[0].window.clone().expect("rank known");
        assert_eq!(win.axis_text(1), "[1, 8)");
        assert_eq!(win.covers_all(), Some(false));

        let mut f = chain(
            8,
            &[0, 0, 0],
            &[1, 3, 4],
            vec![konst("em", bools(&[false, true, false]))],
        );
        // add end_mask to the slice_update
        let su = f
            .ops()
            .find(|(_, o)| o.op_type == "slice_update")
            .map(|(id, _)| id)
            .expect("slice_update exists");
        f.op_mut(su).expect("op").inputs.push(crate::ir::Param {
            name: "end_mask".into(),
            args: vec![Arg::Name("em".into())],
        });
        let win = writes(&f).writes[0].window.clone().expect("rank known");
        assert_eq!(win.covers_all(), Some(true));
    }

    #[test]
    fn runtime_begin_is_recorded() {
        let f2 = func(
            vec![
                input("s", state(DType::Fp16, &[1, 8, 4])),
                input("u", tensor(DType::Fp16, &[1, 1, 4])),
                input("pos", tensor(DType::Int32, &[3])),
            ],
            vec![
                konst("e", ints(&[3], &[1, 8, 4])),
                op(
                    "read_state",
                    "old",
                    &[("input", "s")],
                    tensor(DType::Fp16, &[1, 8, 4]),
                ),
                op(
                    "slice_update",
                    "new",
                    &[
                        ("x", "old"),
                        ("update", "u"),
                        ("begin", "pos"),
                        ("end", "e"),
                    ],
                    tensor(DType::Fp16, &[1, 8, 4]),
                ),
                op(
                    "identity",
                    "new2",
                    &[("x", "new")],
                    tensor(DType::Fp16, &[1, 8, 4]),
                ),
                op0("write_state", "w", &[("data", "new2"), ("input", "s")]),
            ],
        );
        let sw = writes(&f2);
        let w = &sw.writes[0];
        assert_eq!(w.kind, WriteKind::SliceUpdate);
        assert_eq!(w.through.len(), 1);
        assert_eq!(
            w.begin_dep.as_ref().and_then(|d| d.source.as_deref()),
            Some("pos")
        );
        let win = w.window.as_ref().expect("rank known");
        assert_eq!(
            win.covers_all(),
            Some(false),
            "1 row of 8 from the update shape"
        );
        assert_eq!(win.axis_text(1), "[?, ?+1)");
    }

    #[test]
    fn blend_and_fresh_writes_cover_everything() {
        let f = func(
            vec![
                input("s", state(DType::Fp16, &[1, 8, 4])),
                input("u", tensor(DType::Fp16, &[1, 8, 4])),
                input("m", tensor(DType::Fp16, &[1, 8, 4])),
            ],
            vec![
                op(
                    "read_state",
                    "old",
                    &[("input", "s")],
                    tensor(DType::Fp16, &[1, 8, 4]),
                ),
                op(
                    "sub",
                    "d",
                    &[("x", "u"), ("y", "old")],
                    tensor(DType::Fp16, &[1, 8, 4]),
                ),
                op(
                    "mul",
                    "dm",
                    &[("x", "d"), ("y", "m")],
                    tensor(DType::Fp16, &[1, 8, 4]),
                ),
                op(
                    "add",
                    "new",
                    &[("x", "old"), ("y", "dm")],
                    tensor(DType::Fp16, &[1, 8, 4]),
                ),
                op(
                    "coreml_update_state",
                    "w",
                    &[("state", "s"), ("value", "new")],
                    tensor(DType::Fp16, &[1, 8, 4]),
                ),
                op0("write_state", "w2", &[("data", "u"), ("input", "s")]),
            ],
        );
        let sw = writes(&f);
        assert_eq!(sw.writes.len(), 2);
        let blend = &sw.writes[0];
        assert_eq!(blend.kind, WriteKind::Blend);
        assert_eq!(blend.op_kind, WriteOp::CoremlUpdateState);
        assert_eq!(blend.rmw_ops.len(), 3);
        assert_eq!(
            blend.window.as_ref().and_then(Window::covers_all),
            Some(true)
        );
        let fresh = &sw.writes[1];
        assert_eq!(fresh.kind, WriteKind::Fresh);
        assert_eq!(fresh.nth, 2);
        assert_eq!(sw.count(0), 2);
    }

    /// torch.export's chain: an inner one-row write at a run-time row, wrapped in a full-window
    /// `slice_update` of the same read, written.
    fn wrapped(rows: u64) -> Function {
        let t = |r: u64| tensor(DType::Fp16, &[1, r, 4]);
        func(
            vec![
                input("s", state(DType::Fp16, &[1, rows, 4])),
                input("u", t(1)),
                input("pos", tensor(DType::Int32, &[3])),
            ],
            vec![
                konst("one", ints(&[3], &[1, 1, 4])),
                konst("zero", ints(&[3], &[0, 0, 0])),
                konst("all", ints(&[3], &[1, rows as i64, 4])),
                op(
                    "add",
                    "end",
                    &[("x", "pos"), ("y", "one")],
                    tensor(DType::Int32, &[3]),
                ),
                op("read_state", "old", &[("input", "s")], t(rows)),
                op(
                    "slice_update",
                    "inner",
                    &[
                        ("x", "old"),
                        ("update", "u"),
                        ("begin", "pos"),
                        ("end", "end"),
                    ],
                    t(rows),
                ),
                op(
                    "slice_update",
                    "outer",
                    &[
                        ("x", "old"),
                        ("update", "inner"),
                        ("begin", "zero"),
                        ("end", "all"),
                    ],
                    t(rows),
                ),
                op0("write_state", "w", &[("data", "outer"), ("input", "s")]),
            ],
        )
    }

    #[test]
    fn wrapper_chain_is_followed_to_the_inner_window() {
        let f = wrapped(9);
        let sw = writes(&f);
        let w = &sw.writes[0];
        assert_eq!(w.kind, WriteKind::SliceUpdate);
        assert_eq!(w.levels.len(), 2, "{:?}", w.levels);
        assert_eq!(w.wrappers().len(), 1);
        // The written op covers the whole state; the inner window is one run-time row.
        assert_eq!(w.window.as_ref().and_then(Window::covers_all), Some(true));
        assert_eq!(w.inner_covers_all(), Some(false));
        assert_eq!(
            w.inner_window().map(|x| x.axis_text(1)).as_deref(),
            Some("[?, ?+1)")
        );
        // The inner level's run-time begin is the write's.
        assert_eq!(
            w.begin_dep.as_ref().and_then(|d| d.source.as_deref()),
            Some("pos")
        );
        let inner = w.inner().expect("inner level");
        assert_eq!(inner.bounds[1].begin, Bound::Explicit(None));
        assert_eq!(inner.bounds[1].end, Bound::Explicit(None));
        assert_eq!(inner.bounds[1].pin(9), Ok((None, None, false)));
        assert_eq!(sw.pad_axis(0), Some(1));
    }

    #[test]
    fn bounds_that_grow_with_the_axis_are_pinned_or_refused() {
        let b = |begin, end| AxisBounds {
            begin,
            end,
            stride: Some(1),
            squeeze: false,
        };
        use Bound::*;
        assert_eq!(
            b(Explicit(Some(0)), Explicit(Some(8))).pin(8),
            Ok((None, None, false))
        );
        assert_eq!(
            b(Explicit(Some(-8)), Explicit(Some(-1))).pin(8),
            Ok((Some(0), Some(7), false))
        );
        assert_eq!(b(Masked, Masked).pin(8), Ok((None, Some(8), true)));
        assert_eq!(
            b(Explicit(Some(0)), Explicit(Some(99))).pin(8),
            Ok((None, Some(8), false))
        );
        assert!(b(FromShape, Explicit(Some(8))).pin(8).is_err());
        assert!(b(Explicit(None), Unknown).pin(8).is_err());
    }

    #[test]
    fn scatter_and_concat_writes_are_named() {
        let t = tensor(DType::Fp16, &[1, 8, 4]);
        let f = func(
            vec![
                input("s", state(DType::Fp16, &[1, 8, 4])),
                input("u", t.clone()),
            ],
            vec![
                konst("ax", scalar_int(1)),
                op("read_state", "old", &[("input", "s")], t.clone()),
                op(
                    "concat",
                    "c",
                    &[("values", "old"), ("axis", "ax")],
                    t.clone(),
                ),
                op0("write_state", "w", &[("data", "c"), ("input", "s")]),
            ],
        );
        let sw = writes(&f);
        assert_eq!(sw.writes[0].kind, WriteKind::Concat);
        assert_eq!(sw.writes[0].inner_covers_all(), Some(true));
    }

    #[test]
    fn a_state_read_and_never_written_says_so() {
        let mil = |write: &str| {
            format!(
                "program(1.3)\n{{\n    func main<ios18>(state<tensor<fp16, [1, 8, 4]>> s, tensor<fp16, [1, 8, 4]> u) {{\n            tensor<fp16, [1, 8, 4]> old = read_state(input = s)[name = string(\"old\")];\n{write}        }} -> (old);\n}}\n"
            )
        };
        let model = crate::rules::testing::snippet_model("t.mil", &mil("")).expect("parses");
        let states = model_state_entities(&model);
        crate::analysis::entity::tests::assert_registered(&states, ENTITY_KINDS);
        assert_eq!(states.len(), 1);
        assert_eq!(states[0].state.as_deref(), Some("s"));
        assert_eq!(states[0].op.as_deref(), Some("old"));
        assert_eq!(
            states[0].get("written"),
            Some(&crate::analysis::entity::Prop::Bool(false))
        );
        let written = mil("            write_state(data = u, input = s)[name = string(\"w\")];\n");
        let model = crate::rules::testing::snippet_model("t.mil", &written).expect("parses");
        let states = model_state_entities(&model);
        assert_eq!(
            states[0].get("written"),
            Some(&crate::analysis::entity::Prop::Bool(true))
        );
    }
}
