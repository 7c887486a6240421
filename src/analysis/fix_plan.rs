//! The fix plan of each state, computed once per model from `analysis::state_writes` (HAZARDS.md
//! H1, H4b): collapse full-window `slice_update` wrappers so the innermost one writes the state
//! directly, then — when some write still covers the whole state — allocate the state one row
//! deeper on its pad axis and keep every window.
//!
//! A [`PadPlan`] is typed data: the state, axis, shapes, applicability and a list of edits per
//! function, named by value names and op positions, so that the finding that offers it, `--diff`,
//! `--fix` and both write-backs (protobuf and text) use the same plan.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::state_writes::choose_pad_axis;
pub use super::value_edit::{LiteralSite, ValueChange, WeightAppend, WeightEdit, WEIGHT_PATH};
use super::{analyze, FunctionAnalysis, StateWrite, WriteKind};
use crate::ir::{
    Arg, DType, Dim, Function, Literal, Model, NodeId, Payload, TensorData, TensorType, ValueType,
    BODY,
};

/// How safe a fix is to apply (ruff's ordering: `DisplayOnly < Unsafe < Safe`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Shown, never applied.
    DisplayOnly,
    /// Applied with `--unsafe-fixes`: it changes the model's interface or behaviour.
    Unsafe,
    /// Applied with `--fix`.
    Safe,
}

/// Which state to pad, and optionally on which axis (`--pad-axis`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PadRequest {
    /// Name of the state to pad, as the model declares it.
    pub state: String,
    /// Axis to grow (0-based); `None` lets the planner pick an axis that the writes window partially.
    pub axis: Option<usize>,
}

/// Why a state cannot be fixed. Nothing is changed when a plan is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot pad state `{state}`{}: {reason}", function.as_ref().map(|f| format!(" (function `{f}`)")).unwrap_or_default())]
pub struct FixRefusal {
    /// Name of the state the refusal is about.
    pub state: String,
    /// Function where the plan failed; `None` when the reason concerns the state as a whole.
    pub function: Option<String>,
    /// Why, as a sentence fragment shown after the state's name.
    pub reason: String,
}

/// An op of the original function: its position in program order (depth-first, as the IR numbers
/// ops), its type and its display name, checked by the write-backs before they edit it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpRef {
    /// Position in program order (depth-first, as the IR numbers ops).
    pub order: u32,
    /// The op's type, e.g. `slice_update`.
    pub op_type: String,
    /// The op's display name, used in messages and to check the op is still the one planned.
    pub label: String,
}

/// Where a new op goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// Right after this op (after any op inserted there earlier in the plan).
    After(OpRef),
    /// Right before this op (after any op inserted there earlier in the plan).
    Before(OpRef),
}

/// An op the fix inserts. It has exactly one output, named like the op.
#[derive(Clone, Debug, PartialEq)]
pub struct NewOp {
    /// MIL op type, e.g. `const` or `slice_update`.
    pub op_type: String,
    /// The `name` attribute and the output's name (fresh in its function, or the name of a value
    /// renamed by the same plan).
    pub name: String,
    /// The `name` attribute when it differs from the output's name (a sliced copy that takes the
    /// name of a returned value keeps op names unique).
    pub op_name: Option<String>,
    /// (parameter, bound value name), in the order the compiler prints them (alphabetical).
    pub inputs: Vec<(String, String)>,
    /// Type of the op's single output.
    pub output: TensorType,
    /// The `val` attribute of a `const`.
    pub value: Option<Literal>,
}

/// An inserted op and where it goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Insert {
    /// Where the op goes.
    pub anchor: Anchor,
    /// The op itself.
    pub op: NewOp,
}

/// A binding of an existing op that now names another value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rebind {
    /// The op whose binding changes.
    pub op: OpRef,
    /// Parameter name of the binding.
    pub param: String,
    /// Index of the binding within the parameter (0 unless the parameter takes a list).
    pub position: u32,
    /// The value name bound before, `None` for an inline constant.
    pub from: Option<String>,
    /// The value name bound after the edit.
    pub to: String,
}

/// An existing op's first output that gets a new name (its old name goes to an inserted op).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rename {
    /// The op whose output is renamed.
    pub op: OpRef,
    /// The output's name before the edit.
    pub from: String,
    /// The output's name after the edit.
    pub to: String,
}

/// A value whose type grows by one row on the plan's axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retype {
    /// Name of the value (after renames).
    pub value: String,
}

/// A literal of an existing op that changes in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiteralEdit {
    /// The op.
    pub op: OpRef,
    /// Which of its literals.
    pub site: LiteralSite,
    /// What happens to its elements.
    pub change: ValueChange,
}

/// The edits in one function that declares the state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionEdit {
    /// Name of the function the edits apply to.
    pub function: String,
    /// Values (op outputs, by their names after renames) whose type grows by one row on the pad axis.
    pub retype: Vec<String>,
    /// Outputs renamed, in plan order.
    pub renames: Vec<Rename>,
    /// Ops inserted, in plan order (inserts at one anchor keep this order).
    pub inserts: Vec<Insert>,
    /// Bindings redirected to other values.
    pub rebinds: Vec<Rebind>,
    /// Ops deleted: full-window wrappers (and the pass-through ops between them).
    pub removes: Vec<OpRef>,
    /// Number of whole-state writes rewritten into a `slice_update` of `[0, N)`.
    pub blends: usize,
    /// Literals of existing ops changed in place (their elements, maybe their element type).
    pub literals: Vec<LiteralEdit>,
}

impl FunctionEdit {
    fn is_empty(&self) -> bool {
        self.retype.is_empty()
            && self.renames.is_empty()
            && self.inserts.is_empty()
            && self.rebinds.is_empty()
            && self.removes.is_empty()
            && self.literals.is_empty()
    }
}

/// The op an op-rewrite plan replaces (FIELD-HAZARDS-3.md C1: `pow(x = 2, y)` → `exp(mul(y, ln 2))`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpRewrite {
    /// Function of the op.
    pub function: String,
    /// The op's display name.
    pub op: String,
    /// What is rewritten into what, e.g. `` `p` as exp(mul(`y`, ln 2)) in `main` (fp16 ln 2) ``:
    /// messages say "rewrite …", "rewrote …", "would rewrite …".
    pub what: String,
}

/// The whole fix for one state, or the exact rewrite of one op (`rewrite`); both are lists of
/// [`FunctionEdit`]s that the write-backs apply the same way.
#[derive(Clone, Debug, PartialEq)]
pub struct PadPlan {
    /// Name of the state the plan fixes (empty for an op rewrite).
    pub state: String,
    /// Axis (0-based) that grows; meaningful only when the plan pads.
    pub axis: usize,
    /// Element type of the state's tensor.
    pub dtype: DType,
    /// Shape of the state's tensor before the fix.
    pub old_shape: Vec<u64>,
    /// Equal to `old_shape` when the plan only removes wrappers.
    pub new_shape: Vec<u64>,
    /// Every edit is an exact equivalence for reads and outputs: `Safe`.
    pub applicability: Applicability,
    /// The full-window wrappers removed, as `function`/`op` labels.
    pub unwrapped: Vec<String>,
    /// Things the user should know (axis choice, no-op, rewrites).
    pub notes: Vec<String>,
    /// Empty when there is nothing to do.
    pub functions: Vec<FunctionEdit>,
    /// `Some` for an op rewrite: the op it replaces (the state fields are then unused).
    pub rewrite: Option<OpRewrite>,
    /// Weight-file records whose payload changes in place.
    pub weights: Vec<WeightEdit>,
    /// Weight-file records added at the end of their file.
    pub appends: Vec<WeightAppend>,
}

impl PadPlan {
    /// True when applying the plan changes nothing.
    pub fn is_noop(&self) -> bool {
        self.functions.iter().all(FunctionEdit::is_empty)
            && self.weights.is_empty()
            && self.appends.is_empty()
    }

    /// The plan of an op fix: `edits` (and `weights`) that fix what `rewrite` names.
    pub fn op_fix(
        rewrite: OpRewrite,
        applicability: Applicability,
        functions: Vec<FunctionEdit>,
        weights: Vec<WeightEdit>,
    ) -> PadPlan {
        PadPlan {
            state: String::new(),
            axis: 0,
            dtype: DType::Fp32,
            old_shape: Vec::new(),
            new_shape: Vec::new(),
            applicability,
            unwrapped: Vec::new(),
            notes: Vec::new(),
            functions,
            rewrite: Some(rewrite),
            weights,
            appends: Vec::new(),
        }
    }

    /// True when the plan grows the state.
    pub fn pads(&self) -> bool {
        self.new_shape != self.old_shape
    }

    /// The state's length on the pad axis after the fix.
    pub fn padded_rows(&self) -> Result<u64, String> {
        self.new_shape
            .get(self.axis)
            .copied()
            .ok_or_else(|| "internal: pad axis out of range".to_string())
    }

    /// The type of the state's wrapped tensor after the fix.
    pub fn new_type(&self) -> TensorType {
        TensorType::fixed(self.dtype, &self.new_shape)
    }

    /// What the plan is about, unique among a model's plans: the state, or `function/op` of an op
    /// rewrite.
    pub fn key(&self) -> String {
        match &self.rewrite {
            Some(r) => format!("{}/{}", r.function, r.op),
            None => self.state.clone(),
        }
    }

    /// The plan's subject for messages: `state `S`` or `op `O` of `F``.
    pub fn subject(&self) -> String {
        match &self.rewrite {
            Some(r) => format!("op `{}` of `{}`", r.op, r.function),
            None => format!("state `{}`", self.state),
        }
    }

    /// One line saying what applying the plan does (fix titles, `--fix` messages).
    pub fn summary(&self) -> String {
        if let Some(r) = &self.rewrite {
            return format!("rewrite {}", r.what);
        }
        let mut parts = Vec::new();
        if !self.unwrapped.is_empty() {
            let names: Vec<String> = self.unwrapped.iter().map(|n| format!("`{n}`")).collect();
            parts.push(format!(
                "remove the full-window slice_update wrapper{} {} so the inner slice_update writes `{}` directly",
                if names.len() == 1 { "" } else { "s" },
                names.join(", "),
                self.state
            ));
        }
        if self.pads() {
            parts.push(format!(
                "allocate `{}` as {} (one more row on axis {}) and keep every window",
                self.state,
                shape_text(&self.new_shape),
                self.axis
            ));
        } else if !self.unwrapped.is_empty() {
            parts.push(format!(
                "`{}` keeps its shape {}",
                self.state,
                shape_text(&self.old_shape)
            ));
        }
        if parts.is_empty() {
            return format!("nothing to change in `{}`", self.state);
        }
        parts.join("; ")
    }
}

/// The plan (or the reason there is none) of every state of a model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelPlans {
    /// Per state name: its plan, or why it has none.
    pub by_state: BTreeMap<String, Result<Arc<PadPlan>, FixRefusal>>,
}

impl ModelPlans {
    /// The plan of `state` when there is one that changes something.
    pub fn offer(&self, state: &str) -> Option<&Arc<PadPlan>> {
        self.by_state
            .get(state)
            .and_then(|r| r.as_ref().ok())
            .filter(|p| !p.is_noop())
    }

    /// Why `state` has no plan.
    pub fn refusal(&self, state: &str) -> Option<&FixRefusal> {
        self.by_state.get(state).and_then(|r| r.as_ref().err())
    }

    /// `{S.fix}`: what the fix of `state` does, or why there is none.
    pub fn fix_text(&self, state: &str) -> String {
        match (self.offer(state), self.refusal(state)) {
            (Some(plan), _) => plan.summary(),
            (None, Some(r)) => format!("no automatic fix: {}", r.reason),
            (None, None) => "nothing to fix automatically".to_string(),
        }
    }
}

/// Plans every state of `model`; `facts` are the analyses of its functions, in program order.
pub fn plan_model(model: &Model, facts: &[FunctionAnalysis]) -> ModelPlans {
    let mut names: BTreeSet<&str> = BTreeSet::new();
    for f in &model.program.functions {
        names.extend(
            f.inputs()
                .filter(|(_, i)| i.ty.is_state())
                .map(|(_, i)| i.name.as_str()),
        );
    }
    ModelPlans {
        by_state: names
            .into_iter()
            .map(|s| {
                (
                    s.to_string(),
                    plan_state(model, facts, s, None).map(Arc::new),
                )
            })
            .collect(),
    }
}

/// Plans the fix of `state` on `axis` (or the axis found from the writes), analysing the model.
pub fn plan_pad(model: &Model, state: &str, axis: Option<usize>) -> Result<PadPlan, FixRefusal> {
    let facts: Vec<FunctionAnalysis> = model.program.functions.iter().map(analyze).collect();
    plan_state(model, &facts, state, axis)
}

/// What one function does with the state.
struct StateUse<'f> {
    f: &'f Function,
    facts: &'f FunctionAnalysis,
    /// read_state(S) and coreml_update_state(S): ops whose output is the state's content.
    readers: Vec<NodeId>,
    writes: Vec<&'f StateWrite>,
}

/// Plans the fix of `state` from the analyses of the model's functions.
pub fn plan_state(
    model: &Model,
    facts: &[FunctionAnalysis],
    state: &str,
    axis: Option<usize>,
) -> Result<PadPlan, FixRefusal> {
    let refuse = |function: Option<&str>, reason: String| FixRefusal {
        state: state.to_string(),
        function: function.map(str::to_string),
        reason,
    };
    let mut shape: Option<(DType, Vec<u64>)> = None;
    let mut uses = Vec::new();
    for (f, ff) in model.program.functions.iter().zip(facts) {
        let Some((input_id, ty)) = f
            .inputs()
            .find(|(_, i)| i.name == state)
            .map(|(id, i)| (id, &i.ty))
        else {
            continue;
        };
        let ValueType::State(inner) = ty else {
            return Err(refuse(
                Some(&f.name),
                format!(
                    "`{state}` is an input of type {}, not a state",
                    type_text(ty)
                ),
            ));
        };
        let t = inner
            .tensor()
            .ok_or_else(|| refuse(Some(&f.name), "the state does not wrap a tensor".into()))?;
        let dims = t.known_dims().ok_or_else(|| {
            refuse(
                Some(&f.name),
                format!("the state's shape {t} is not fully known"),
            )
        })?;
        match &shape {
            None => shape = Some((t.dtype, dims)),
            Some((dt, d)) if *dt == t.dtype && *d == dims => {}
            Some((dt, d)) => {
                return Err(refuse(
                    Some(&f.name),
                    format!(
                        "the functions disagree on the state's type ({} vs {t})",
                        TensorType::fixed(*dt, d)
                    ),
                ))
            }
        }
        let index = ff.states.states.iter().position(|s| s.node == input_id);
        let writes: Vec<&StateWrite> = match index {
            Some(i) => ff.states.writes_to(i).collect(),
            None => Vec::new(),
        };
        uses.push(state_use(f, ff, input_id, state, writes).map_err(|r| refuse(Some(&f.name), r))?);
    }
    let Some((dtype, old_shape)) = shape else {
        return Err(refuse(None, "no function declares this state".into()));
    };
    if old_shape.is_empty() {
        return Err(refuse(None, "the state is a scalar".into()));
    }
    let all_writes = || uses.iter().flat_map(|u| u.writes.iter().copied());
    let need_pad = all_writes().any(|w| w.inner_covers_all() == Some(true));
    let mut notes = Vec::new();
    let dims: Vec<Option<u64>> = old_shape.iter().map(|&d| Some(d)).collect();
    let axis = match axis {
        Some(a) if a >= old_shape.len() => {
            return Err(refuse(
                None,
                format!(
                    "--pad-axis {a} is out of range for a rank-{} state",
                    old_shape.len()
                ),
            ))
        }
        Some(a) => {
            notes.push(format!("pad axis {a}: as requested"));
            a
        }
        None => {
            let partial: Vec<usize> = all_writes()
                .filter_map(StateWrite::inner_window)
                .flat_map(|w| w.partial_axes())
                .collect();
            choose_pad_axis(&dims, &partial).ok_or_else(|| refuse(None, "no axis to pad".into()))?
        }
    };
    let pad = if need_pad {
        let rows = old_shape[axis];
        let mut new_shape = old_shape.clone();
        new_shape[axis] = rows
            .checked_add(1)
            .ok_or_else(|| refuse(None, "the state's dimension overflows".into()))?;
        Some(Pad {
            axis,
            rows,
            old_shape: old_shape.clone(),
            new_type: TensorType::fixed(dtype, &new_shape),
        })
    } else {
        None
    };
    let mut functions = Vec::new();
    let mut unwrapped = Vec::new();
    for u in &uses {
        let edit = function_edit(u, state, pad.as_ref(), u.facts, &mut unwrapped)
            .map_err(|r| refuse(Some(&u.f.name), r))?;
        if edit.blends > 0 {
            notes.push(format!(
                "function `{}`: {} whole-state write(s) now write rows [0, {}) through one slice_update",
                u.f.name,
                edit.blends,
                old_shape[axis]
            ));
        }
        if !edit.is_empty() {
            functions.push(edit);
        }
    }
    let new_shape = pad.as_ref().map_or_else(
        || old_shape.clone(),
        |p| p.new_type.known_dims().unwrap_or_default(),
    );
    if functions.is_empty() {
        notes.push(format!(
            "every write into `{state}` covers only part of the state {}: nothing to pad",
            shape_text(&old_shape)
        ));
    } else {
        notes.push(format!(
            "state `{state}` {} → {} (axis {axis}) in {} function(s)",
            shape_text(&old_shape),
            shape_text(&new_shape),
            functions.len()
        ));
    }
    Ok(PadPlan {
        state: state.to_string(),
        axis,
        dtype,
        old_shape,
        new_shape,
        applicability: Applicability::Safe,
        unwrapped,
        notes,
        functions,
        rewrite: None,
        weights: Vec::new(),
        appends: Vec::new(),
    })
}

/// The pad decided for the state.
struct Pad {
    axis: usize,
    rows: u64,
    old_shape: Vec<u64>,
    new_type: TensorType,
}

fn type_text(ty: &ValueType) -> String {
    match ty.tensor() {
        Some(t) => t.to_string(),
        None => format!("{ty:?}"),
    }
}

fn shape_text(dims: &[u64]) -> String {
    let inner: Vec<String> = dims.iter().map(u64::to_string).collect();
    format!("[{}]", inner.join(", "))
}

pub(super) fn op_ref(f: &Function, id: NodeId) -> Option<OpRef> {
    let op = f.op(id)?;
    Some(OpRef {
        order: op.order,
        op_type: op.op_type.to_string(),
        label: op.display_name().to_string(),
    })
}

fn is_reader(op: &crate::ir::Op, state: &str) -> bool {
    (op.op_type == "read_state" && op.arg_name("input") == Some(state))
        || (op.op_type == "coreml_update_state" && op.arg_name("state") == Some(state))
}

/// The reads of `state` in `f`, refusing uses the fix does not understand.
fn state_use<'f>(
    f: &'f Function,
    facts: &'f FunctionAnalysis,
    input: NodeId,
    state: &str,
    writes: Vec<&'f StateWrite>,
) -> Result<StateUse<'f>, String> {
    for (c, e) in f.consumers(input) {
        let Some(op) = f.op(c) else { continue };
        let known = matches!(
            (op.op_type.as_str(), e.param.as_str()),
            ("read_state", "input") | ("write_state", "input") | ("coreml_update_state", "state")
        );
        if !known {
            return Err(format!(
                "`{}` ({}) uses the state directly; only read_state/write_state are understood",
                op.display_name(),
                op.op_type
            ));
        }
        if op.block != BODY {
            return Err(format!(
                "`{}` uses the state inside a nested block, which the fix does not rewrite",
                op.display_name()
            ));
        }
    }
    let readers = f
        .ops()
        .filter(|(_, op)| is_reader(op, state))
        .map(|(id, _)| id)
        .collect();
    Ok(StateUse {
        f,
        facts,
        readers,
        writes,
    })
}

fn order_of(f: &Function, id: NodeId) -> u32 {
    f.op(id).map_or(u32::MAX, |o| o.order)
}

fn output_name(f: &Function, id: NodeId) -> Option<String> {
    f.op(id)
        .and_then(|o| o.outputs.first())
        .map(|o| o.name.to_string())
}

fn is_returned(f: &Function, name: &str) -> bool {
    f.blocks.iter().any(|b| b.outputs.iter().any(|o| o == name))
}

/// The edits in one function.
fn function_edit(
    u: &StateUse<'_>,
    state: &str,
    pad: Option<&Pad>,
    facts: &FunctionAnalysis,
    unwrapped: &mut Vec<String>,
) -> Result<FunctionEdit, String> {
    let f = u.f;
    let mut edit = FunctionEdit {
        function: f.name.clone(),
        ..FunctionEdit::default()
    };
    // 1. Full-window wrappers: their consumers take the innermost result, then they go.
    let mut removed: HashSet<NodeId> = HashSet::new();
    for w in &u.writes {
        let wrappers = w.wrappers();
        let Some(innermost_wrapper) = wrappers.last() else {
            continue;
        };
        let target = f
            .op(innermost_wrapper.slice_update)
            .and_then(|o| match o.arg("update") {
                Some(Arg::Name(n)) => Some(n.clone()),
                _ => None,
            })
            .ok_or("a wrapper's `update` is not a named value")?;
        let mut gone: Vec<NodeId> = wrappers.iter().map(|l| l.slice_update).collect();
        // Pass-through ops between two wrappers only feed the wrapper above.
        gone.extend(
            w.levels[1..wrappers.len()]
                .iter()
                .flat_map(|l| l.through.iter().copied()),
        );
        removed.extend(gone.iter().copied());
        for &id in &gone {
            let op = f.op(id).ok_or("internal: wrapper vanished")?;
            if op.block != BODY {
                return Err(format!("`{}` is inside a nested block", op.display_name()));
            }
            let out = output_name(f, id).ok_or("internal: wrapper has no output")?;
            if is_returned(f, &out) {
                return Err(format!(
                    "the wrapper `{}` is returned by the function",
                    op.display_name()
                ));
            }
            unwrapped.push(format!("{}/{}", f.name, op.display_name()));
            edit.removes
                .push(op_ref(f, id).ok_or("internal: op vanished")?);
        }
        for &id in &gone {
            let out = output_name(f, id).ok_or("internal: wrapper has no output")?;
            for (c, e) in f.consumers(id) {
                if removed.contains(&c) || gone.contains(&c) {
                    continue;
                }
                edit.rebinds.push(Rebind {
                    op: op_ref(f, c).ok_or("internal: consumer is not an op")?,
                    param: e.param.to_string(),
                    position: e.position,
                    from: Some(out.clone()),
                    to: target.to_string(),
                });
            }
        }
    }
    let Some(pad) = pad else {
        return Ok(edit);
    };
    let mut names = Names::of(f);
    // 2. The pad: the state's content grows; reads outside the write chains see the old rows.
    let mut padded: BTreeSet<(u32, NodeId)> = BTreeSet::new();
    let mut chain_edges: HashSet<(NodeId, String)> = HashSet::new();
    for &r in &u.readers {
        padded.insert((order_of(f, r), r));
    }
    for w in &u.writes {
        chain_edges.insert((w.write_op, data_param(f, w.write_op).to_string()));
        let Some(inner) = w.inner() else { continue };
        let chain = w
            .through
            .iter()
            .chain(&inner.x_through)
            .chain(&inner.through)
            .copied()
            .chain(std::iter::once(inner.slice_update));
        for id in chain.filter(|id| !removed.contains(id)) {
            padded.insert((order_of(f, id), id));
            chain_edges.insert((id, "x".to_string()));
        }
    }
    for &(_, id) in &padded {
        let op = f.op(id).ok_or("internal: a padded value has no op")?;
        if op.block != BODY {
            return Err(format!(
                "`{}` is inside a nested block, which the fix does not rewrite",
                op.display_name()
            ));
        }
        let out = op
            .outputs
            .first()
            .ok_or_else(|| format!("`{}` has no output", op.display_name()))?;
        let t = out
            .ty
            .tensor()
            .filter(|_| !out.ty.is_state())
            .ok_or_else(|| format!("`{}` does not produce a tensor", out.name))?;
        let dims = t
            .known_dims()
            .ok_or_else(|| format!("`{}` has a shape that is not fully known ({t})", out.name))?;
        if dims != pad.old_shape {
            return Err(format!(
                "`{}` has type {t}, not the state's shape {}",
                out.name,
                shape_text(&pad.old_shape)
            ));
        }
        let returned = is_returned(f, &out.name);
        // The padded content keeps the name unless the function returns it: then the padded value
        // is renamed and the old name goes to the sliced copy, so the output keeps name and shape.
        let padded_name = if returned {
            let to = names.fresh(&format!("{}_padded", out.name));
            edit.renames.push(Rename {
                op: op_ref(f, id).ok_or("internal: op vanished")?,
                from: out.name.to_string(),
                to: to.clone(),
            });
            to
        } else {
            out.name.to_string()
        };
        edit.retype.push(padded_name.clone());
        let consumers = f.consumers(id);
        let (inside, outside): (Vec<_>, Vec<_>) = consumers
            .into_iter()
            .filter(|(c, e)| e.output == 0 && !removed.contains(c))
            .partition(|(c, e)| chain_edges.contains(&(*c, e.param.to_string())));
        if returned {
            for (c, e) in &inside {
                edit.rebinds.push(Rebind {
                    op: op_ref(f, *c).ok_or("internal: consumer is not an op")?,
                    param: e.param.to_string(),
                    position: e.position,
                    from: Some(out.name.to_string()),
                    to: padded_name.clone(),
                });
            }
        }
        if outside.is_empty() && !returned {
            continue;
        }
        let anchor = Anchor::After(op_ref(f, id).ok_or("internal: op vanished")?);
        let begin = names.fresh(&format!("{}_unpadded_begin", out.name));
        let end = names.fresh(&format!("{}_unpadded_end", out.name));
        let slice = if returned {
            out.name.to_string()
        } else {
            names.fresh(&format!("{}_unpadded", out.name))
        };
        for new in [
            int_const(begin.clone(), vec![0i64; pad.old_shape.len()]),
            int_const(end.clone(), dims_i64(&pad.old_shape)?),
            NewOp {
                op_name: returned.then(|| names.fresh(&format!("{}_unpadded", out.name))),
                op_type: "slice_by_index".into(),
                name: slice.clone(),
                inputs: vec![
                    ("begin".into(), begin),
                    ("end".into(), end),
                    ("x".into(), padded_name.clone()),
                ],
                output: t.clone(),
                value: None,
            },
        ] {
            edit.inserts.push(Insert {
                anchor: anchor.clone(),
                op: new,
            });
        }
        if !returned {
            for (c, e) in outside {
                edit.rebinds.push(Rebind {
                    op: op_ref(f, c).ok_or("internal: consumer is not an op")?,
                    param: e.param.to_string(),
                    position: e.position,
                    from: Some(out.name.to_string()),
                    to: slice.clone(),
                });
            }
        }
    }
    for w in &u.writes {
        match w.inner() {
            Some(inner) if w.kind == WriteKind::SliceUpdate => {
                keep_window(f, facts, inner, pad, &mut names, &mut edit)?
            }
            _ => rewrite_whole_write(f, u, w, state, pad, &mut names, &mut edit)?,
        }
    }
    Ok(edit)
}

fn data_param(f: &Function, write: NodeId) -> &'static str {
    match f.op(write).map(|o| o.op_type.as_str()) {
        Some("coreml_update_state") => "value",
        _ => "data",
    }
}

/// Pins the bounds of the innermost window that depend on the axis length (masks, negative or
/// clamped indices) to absolute constants, so it names the same rows once the axis is one row
/// longer. Explicit bounds, constant or run-time, already do.
fn keep_window(
    f: &Function,
    facts: &FunctionAnalysis,
    level: &crate::analysis::state_writes::WriteLevel,
    pad: &Pad,
    names: &mut Names,
    edit: &mut FunctionEdit,
) -> Result<(), String> {
    let su = level.slice_update;
    let op = f.op(su).ok_or("internal: slice_update vanished")?;
    let label = op.display_name().to_string();
    let axis = pad.axis;
    let bounds = level
        .bounds
        .get(axis)
        .ok_or_else(|| format!("the window of `{label}` has no axis {axis}"))?;
    let (begin, end, clear_mask) = bounds.pin(pad.rows).map_err(|why| {
        format!("the window of `{label}` on the pad axis {axis} {why}, so it would name other rows in a longer state")
    })?;
    let anchor = Anchor::Before(op_ref(f, su).ok_or("internal: op vanished")?);
    let rank = pad.old_shape.len();
    let mut replace = |param: &str, axis_value: i64, dtype: DType| -> Result<(), String> {
        let mut values: Vec<i64> = facts
            .consts
            .partial_ints(f, op, param, rank)
            .into_iter()
            .collect::<Option<Vec<i64>>>()
            .ok_or_else(|| {
                format!("`{param}` of `{label}` is not constant on every axis, so its axis-{axis} entry cannot be pinned")
            })?;
        if param == "end_mask" && values.is_empty() {
            values = vec![0; rank];
        }
        *values
            .get_mut(axis)
            .ok_or_else(|| format!("`{param}` of `{label}` has no axis {axis}"))? = axis_value;
        let from = match op.arg(param) {
            Some(Arg::Name(n)) => Some(n.to_string()),
            Some(Arg::Value(_)) => None,
            None => {
                return Err(format!(
                    "internal: `{label}` has no single `{param}` binding"
                ))
            }
        };
        let name = names.fresh(&format!("{label}_pad_{param}"));
        let new = match dtype {
            DType::Bool => bool_const(name.clone(), values.into_iter().map(|x| x != 0).collect()),
            _ => int_const(name.clone(), values),
        };
        edit.inserts.push(Insert {
            anchor: anchor.clone(),
            op: new,
        });
        edit.rebinds.push(Rebind {
            op: op_ref(f, su).ok_or("internal: op vanished")?,
            param: param.to_string(),
            position: 0,
            from,
            to: name,
        });
        Ok(())
    };
    if let Some(b) = begin {
        replace("begin", b, DType::Int32)?;
    }
    if let Some(e) = end {
        replace("end", e, DType::Int32)?;
    }
    if clear_mask {
        replace("end_mask", 0, DType::Bool)?;
    }
    Ok(())
}

/// Rewrites `write(S, D)` into `write(S, slice_update(x = read(S), update = D, [0, N)))`.
fn rewrite_whole_write(
    f: &Function,
    u: &StateUse<'_>,
    w: &StateWrite,
    state: &str,
    pad: &Pad,
    names: &mut Names,
    edit: &mut FunctionEdit,
) -> Result<(), String> {
    let op = f.op(w.write_op).ok_or("internal: write vanished")?;
    let label = op.display_name().to_string();
    let data_param = data_param(f, w.write_op);
    if op.block != BODY {
        return Err(format!("`{label}` is inside a nested block"));
    }
    let data = match op.arg(data_param) {
        Some(Arg::Name(n)) => n.clone(),
        _ => {
            return Err(format!(
                "`{label}` writes an inline constant; rewrite it by hand"
            ))
        }
    };
    if u.readers
        .iter()
        .any(|&r| output_name(f, r).is_some_and(|o| o == data))
    {
        return Err(format!(
            "`{label}` writes back a value read from the state unchanged"
        ));
    }
    let data_dims = f
        .value_type(&data)
        .and_then(|t| t.tensor())
        .and_then(|t| t.known_dims());
    if data_dims.as_deref() != Some(pad.old_shape.as_slice()) {
        return Err(format!(
            "`{label}` writes `{data}`, whose shape is not the state's {}",
            shape_text(&pad.old_shape)
        ));
    }
    let anchor = Anchor::Before(op_ref(f, w.write_op).ok_or("internal: op vanished")?);
    let write_order = op.order;
    let latest_read = u
        .readers
        .iter()
        .filter_map(|&r| f.op(r))
        .filter(|o| o.order < write_order && o.block == BODY)
        .max_by_key(|o| o.order)
        .and_then(|o| o.outputs.first())
        .map(|o| o.name.clone());
    // A read whose output the plan renamed is bound under its new name.
    let latest_read = latest_read.map(|r| {
        edit.renames
            .iter()
            .find(|x| x.from == r)
            .map_or(r.to_string(), |x| x.to.clone())
    });
    let read = match latest_read {
        Some(r) => r,
        None => {
            let name = names.fresh(&format!("{state}_pad_read"));
            edit.inserts.push(Insert {
                anchor: anchor.clone(),
                op: NewOp {
                    op_name: None,
                    op_type: "read_state".into(),
                    name: name.clone(),
                    inputs: vec![("input".into(), state.to_string())],
                    output: pad.new_type.clone(),
                    value: None,
                },
            });
            name
        }
    };
    let begin = names.fresh(&format!("{state}_pad_write_begin"));
    let end = names.fresh(&format!("{state}_pad_write_end"));
    let su = names.fresh(&format!("{state}_pad_write"));
    for new in [
        int_const(begin.clone(), vec![0; pad.old_shape.len()]),
        int_const(end.clone(), dims_i64(&pad.old_shape)?),
        NewOp {
            op_name: None,
            op_type: "slice_update".into(),
            name: su.clone(),
            inputs: vec![
                ("begin".into(), begin),
                ("end".into(), end),
                ("update".into(), data.to_string()),
                ("x".into(), read),
            ],
            output: pad.new_type.clone(),
            value: None,
        },
    ] {
        edit.inserts.push(Insert {
            anchor: anchor.clone(),
            op: new,
        });
    }
    edit.rebinds.push(Rebind {
        op: op_ref(f, w.write_op).ok_or("internal: op vanished")?,
        param: data_param.to_string(),
        position: 0,
        from: Some(data.to_string()),
        to: su,
    });
    edit.blends += 1;
    Ok(())
}

/// Fresh value/op names in one function.
pub(super) struct Names {
    used: HashSet<String>,
}

impl Names {
    pub(super) fn of(f: &Function) -> Names {
        let mut used: HashSet<String> = f.values.keys().map(|k| k.to_string()).collect();
        used.extend(
            f.ops()
                .filter_map(|(_, o)| o.name.as_ref().map(|n| n.to_string())),
        );
        Names { used }
    }

    pub(super) fn fresh(&mut self, base: &str) -> String {
        if self.used.insert(base.to_string()) {
            return base.to_string();
        }
        let mut k: u64 = 1;
        loop {
            let name = format!("{base}_{k}");
            if self.used.insert(name.clone()) {
                return name;
            }
            k += 1;
        }
    }
}

pub(super) fn int_const(name: String, values: Vec<i64>) -> NewOp {
    let n = values.len() as u64;
    vector_const(name, DType::Int32, n, TensorData::Ints(values))
}

fn bool_const(name: String, values: Vec<bool>) -> NewOp {
    let n = values.len() as u64;
    vector_const(name, DType::Bool, n, TensorData::Bools(values))
}

/// A new scalar `const` op of `dtype` (a float type) holding `v` (rounded to `dtype` when written).
pub(super) fn float_scalar_const(name: String, dtype: DType, v: f64) -> NewOp {
    scalar_const(name, dtype, TensorData::Floats(vec![v]))
}

/// A new scalar bool `const` op.
pub(super) fn bool_scalar_const(name: String, v: bool) -> NewOp {
    scalar_const(name, DType::Bool, TensorData::Bools(vec![v]))
}

fn scalar_const(name: String, dtype: DType, data: TensorData) -> NewOp {
    const_op(name, TensorType::scalar(dtype), data)
}

/// A new rank-1 `const` op holding `data`.
fn vector_const(name: String, dtype: DType, len: u64, data: TensorData) -> NewOp {
    const_op(name, TensorType::fixed(dtype, &[len]), data)
}

/// A new `const` op of type `ty` holding `data`.
fn const_op(name: String, ty: TensorType, data: TensorData) -> NewOp {
    NewOp {
        op_name: None,
        op_type: "const".into(),
        name,
        inputs: Vec::new(),
        output: ty.clone(),
        value: Some(Literal {
            ty: ValueType::Tensor(ty),
            payload: Payload::Tensor(data),
        }),
    }
}

fn dims_i64(dims: &[u64]) -> Result<Vec<i64>, String> {
    dims.iter()
        .map(|&d| i64::try_from(d).map_err(|_| format!("dimension {d} is too large")))
        .collect()
}

/// The tensor type `t` with `axis` set to `rows` (for retyping).
pub fn with_rows(t: &TensorType, axis: usize, rows: u64) -> Option<TensorType> {
    let mut t = t.clone();
    let d = t.shape.as_mut()?.get_mut(axis)?;
    *d = Dim::Known(rows);
    Some(t)
}
