//! Plans the one-row state pad (HAZARDS.md H1) from the IR alone.
//!
//! A [`PadPlan`] is a list of edits per function, named by value names and op positions, so that both
//! write-backs (protobuf and text) apply the same change.

use std::collections::{BTreeSet, HashSet};

use crate::finding::Applicability;
use crate::ir::{
    Arg, DType, Dim, Function, Literal, Model, NodeId, Op, Payload, TensorData, TensorType,
    ValueType, BODY,
};

use super::window::{AxisWindow, SliceParams};

/// Which state to pad, and optionally on which axis (`--pad-axis`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PadRequest {
    pub state: String,
    pub axis: Option<usize>,
}

/// Why a state cannot be padded. Nothing is changed when a plan is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot pad state `{state}`{}: {reason}", function.as_ref().map(|f| format!(" (function `{f}`)")).unwrap_or_default())]
pub struct FixRefusal {
    pub state: String,
    pub function: Option<String>,
    pub reason: String,
}

/// An op of the original function: its position in program order (depth-first, as the IR numbers
/// ops), its type and its display name, checked by the write-backs before they edit it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpRef {
    pub order: u32,
    pub op_type: String,
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
    pub op_type: String,
    /// The `name` attribute and the output's name (fresh in its function).
    pub name: String,
    /// (parameter, bound value name), in the order the compiler prints them (alphabetical).
    pub inputs: Vec<(String, String)>,
    pub output: TensorType,
    /// The `val` attribute of a `const`.
    pub value: Option<Literal>,
}

/// An inserted op and where it goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Insert {
    pub anchor: Anchor,
    pub op: NewOp,
}

/// A binding of an existing op that now names another value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rebind {
    pub op: OpRef,
    pub param: String,
    pub position: u32,
    /// The value name bound before, `None` for an inline constant.
    pub from: Option<String>,
    pub to: String,
}

/// The edits in one function that declares the state.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionEdit {
    pub function: String,
    /// Values (op outputs) whose type grows by one row on the pad axis.
    pub retype: Vec<String>,
    pub inserts: Vec<Insert>,
    pub rebinds: Vec<Rebind>,
    /// Number of writes rewritten from a whole-state write into a `slice_update` of `[0, N)`.
    pub blends: usize,
}

/// The whole fix for one state.
#[derive(Clone, Debug, PartialEq)]
pub struct PadPlan {
    pub state: String,
    pub axis: usize,
    pub dtype: DType,
    pub old_shape: Vec<u64>,
    pub new_shape: Vec<u64>,
    /// `Safe` for the plain pad, `Unsafe` when a blend write is rewritten.
    pub applicability: Applicability,
    /// Things the user should know (axis choice, no-op, rewrites).
    pub notes: Vec<String>,
    /// Empty when there is nothing to do.
    pub functions: Vec<FunctionEdit>,
}

impl PadPlan {
    /// True when applying the plan changes nothing.
    pub fn is_noop(&self) -> bool {
        self.functions.is_empty()
    }

    /// The state's length on the pad axis after padding.
    pub fn padded_rows(&self) -> Result<u64, String> {
        self.new_shape
            .get(self.axis)
            .copied()
            .ok_or_else(|| "internal: pad axis out of range".to_string())
    }

    /// The padded type of the state's wrapped tensor.
    pub fn new_type(&self) -> TensorType {
        TensorType::fixed(self.dtype, &self.new_shape)
    }
}

const PASSTHROUGH: &[&str] = &["identity", "cast"];

/// A write of the state found in a function.
struct Write {
    op: NodeId,
    /// `data` of `write_state`, `value` of `coreml_update_state`.
    data_param: &'static str,
    kind: WriteKind,
}

enum WriteKind {
    /// read → (identity/cast)* → slice_update → (identity/cast)* → write.
    Chain {
        slice_update: NodeId,
        ops: Vec<NodeId>,
        window: SliceParams,
    },
    /// Anything else: the data replaces the whole state.
    Whole,
}

/// What one function does with the state.
struct StateUse<'f> {
    f: &'f Function,
    /// read_state(S) and coreml_update_state(S): ops whose output is the state's content.
    readers: Vec<NodeId>,
    writes: Vec<Write>,
}

/// Plans the pad of `state` on `axis` (or the axis found from the writes).
pub fn plan_pad(model: &Model, state: &str, axis: Option<usize>) -> Result<PadPlan, FixRefusal> {
    let refuse = |function: Option<&str>, reason: String| FixRefusal {
        state: state.to_string(),
        function: function.map(str::to_string),
        reason,
    };
    let mut shape: Option<(DType, Vec<u64>)> = None;
    let mut uses = Vec::new();
    for f in &model.program.functions {
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
        uses.push(state_use(f, input_id, state).map_err(|r| refuse(Some(&f.name), r))?);
    }
    let Some((dtype, old_shape)) = shape else {
        return Err(refuse(None, "no function declares this state".into()));
    };
    if old_shape.is_empty() {
        return Err(refuse(None, "the state is a scalar".into()));
    }

    let mut notes = Vec::new();
    let axis = choose_axis(&uses, &old_shape, axis, &mut notes).map_err(|r| refuse(None, r))?;
    let all_partial = uses
        .iter()
        .flat_map(|u| u.writes.iter())
        .all(|w| write_extent(w, &old_shape) == Extent::Partial);
    if all_partial {
        notes.push(format!(
            "every write into `{state}` covers only part of the state {}: nothing to pad",
            shape_text(&old_shape)
        ));
        return Ok(PadPlan {
            state: state.to_string(),
            axis,
            dtype,
            new_shape: old_shape.clone(),
            old_shape,
            applicability: Applicability::Safe,
            notes,
            functions: Vec::new(),
        });
    }
    let rows = old_shape[axis];
    let mut new_shape = old_shape.clone();
    new_shape[axis] = rows
        .checked_add(1)
        .ok_or_else(|| refuse(None, "the state's dimension overflows".into()))?;
    let new_type = TensorType::fixed(dtype, &new_shape);

    let mut functions = Vec::new();
    for u in &uses {
        let edit = function_edit(u, state, axis, rows, &old_shape, &new_type)
            .map_err(|r| refuse(Some(&u.f.name), r))?;
        if edit.blends > 0 {
            notes.push(format!(
                "function `{}`: {} whole-state write(s) rewritten to write rows [0, {rows}) through one slice_update (unsafe fix)",
                u.f.name, edit.blends
            ));
        }
        functions.push(edit);
    }
    let applicability = if functions.iter().any(|e| e.blends > 0) {
        Applicability::Unsafe
    } else {
        Applicability::Safe
    };
    notes.push(format!(
        "state `{state}` {} → {} (axis {axis}) in {} function(s)",
        shape_text(&old_shape),
        shape_text(&new_shape),
        functions.len()
    ));
    Ok(PadPlan {
        state: state.to_string(),
        axis,
        dtype,
        old_shape,
        new_shape,
        applicability,
        notes,
        functions,
    })
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

fn op_ref(f: &Function, id: NodeId) -> Option<OpRef> {
    let op = f.op(id)?;
    Some(OpRef {
        order: op.order,
        op_type: op.op_type.clone(),
        label: op.display_name().to_string(),
    })
}

fn is_reader(op: &Op, state: &str) -> bool {
    (op.op_type == "read_state" && op.arg_name("input") == Some(state))
        || (op.op_type == "coreml_update_state" && op.arg_name("state") == Some(state))
}

/// Finds the reads and writes of `state` in `f`, refusing uses the fix does not understand.
fn state_use<'f>(f: &'f Function, input: NodeId, state: &str) -> Result<StateUse<'f>, String> {
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
    let mut readers = Vec::new();
    let mut writes = Vec::new();
    for (id, op) in f.ops() {
        if is_reader(op, state) {
            readers.push(id);
        }
        let data_param = match op.op_type.as_str() {
            "write_state" if op.arg_name("input") == Some(state) => "data",
            "coreml_update_state" if op.arg_name("state") == Some(state) => "value",
            _ => continue,
        };
        let kind = trace_write(f, id, data_param, state);
        writes.push(Write {
            op: id,
            data_param,
            kind,
        });
    }
    Ok(StateUse { f, readers, writes })
}

/// Follows the data of a write back to a `slice_update` of a read of the same state.
fn trace_write(f: &Function, write: NodeId, data_param: &str, state: &str) -> WriteKind {
    let mut ops = Vec::new();
    let mut cur = f.producer(write, data_param);
    let slice_update = loop {
        let Some(id) = cur else {
            return WriteKind::Whole;
        };
        let Some(op) = f.op(id) else {
            return WriteKind::Whole;
        };
        if op.op_type == "slice_update" {
            break id;
        }
        if !PASSTHROUGH.contains(&op.op_type.as_str()) {
            return WriteKind::Whole;
        }
        ops.push(id);
        cur = f.producer(id, "x");
    };
    ops.push(slice_update);
    let mut cur = f.producer(slice_update, "x");
    loop {
        let Some(id) = cur else {
            return WriteKind::Whole;
        };
        let Some(op) = f.op(id) else {
            return WriteKind::Whole;
        };
        if is_reader(op, state) {
            break;
        }
        if !PASSTHROUGH.contains(&op.op_type.as_str()) {
            return WriteKind::Whole;
        }
        ops.push(id);
        cur = f.producer(id, "x");
    }
    match SliceParams::of(f, slice_update) {
        Some(window) => WriteKind::Chain {
            slice_update,
            ops,
            window,
        },
        None => WriteKind::Whole,
    }
}

/// How much of the state a write covers, as far as constants tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Extent {
    Full,
    /// Some axis has a constant window that is not the whole axis.
    Partial,
    /// Not constant enough to say.
    Unknown,
}

fn write_extent(w: &Write, dims: &[u64]) -> Extent {
    match &w.kind {
        WriteKind::Whole => Extent::Full,
        WriteKind::Chain { window, .. } => {
            let axes: Vec<Option<bool>> = dims
                .iter()
                .enumerate()
                .map(|(i, &d)| window.axis(i, d).map(|a| a.is_full()))
                .collect();
            if axes.contains(&Some(false)) {
                Extent::Partial
            } else if axes.iter().all(|a| *a == Some(true)) {
                Extent::Full
            } else {
                Extent::Unknown
            }
        }
    }
}

/// The pad axis: the requested one, else the one axis other writes leave partial, else the one
/// axis longer than 1, else the conventional KV position axis `rank - 2`.
fn choose_axis(
    uses: &[StateUse<'_>],
    dims: &[u64],
    requested: Option<usize>,
    notes: &mut Vec<String>,
) -> Result<usize, String> {
    let rank = dims.len();
    if let Some(a) = requested {
        if a >= rank {
            return Err(format!(
                "--pad-axis {a} is out of range for a rank-{rank} state"
            ));
        }
        notes.push(format!("pad axis {a}: as requested"));
        return Ok(a);
    }
    let mut partial = BTreeSet::new();
    for u in uses {
        for w in &u.writes {
            if let WriteKind::Chain { window, .. } = &w.kind {
                for (i, &d) in dims.iter().enumerate() {
                    if window.axis(i, d).is_some_and(|a| !a.is_full()) {
                        partial.insert(i);
                    }
                }
            }
        }
    }
    if let [a] = partial.iter().copied().collect::<Vec<_>>().as_slice() {
        notes.push(format!(
            "pad axis {a}: the axis other writes of the state cover partially"
        ));
        return Ok(*a);
    }
    let long: Vec<usize> = (0..rank).filter(|&i| dims[i] > 1).collect();
    if let [a] = long.as_slice() {
        notes.push(format!("pad axis {a}: the only axis longer than 1"));
        return Ok(*a);
    }
    let a = rank.saturating_sub(2);
    notes.push(format!(
        "pad axis {a}: ambiguous from the windows, so the conventional KV position axis (rank - 2) was used; pass --pad-axis to choose another"
    ));
    Ok(a)
}

/// Fresh value/op names in one function.
struct Names {
    used: HashSet<String>,
}

impl Names {
    fn of(f: &Function) -> Names {
        let mut used: HashSet<String> = f.values.keys().cloned().collect();
        used.extend(f.ops().filter_map(|(_, o)| o.name.clone()));
        Names { used }
    }

    fn fresh(&mut self, base: &str) -> String {
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

fn int_const(name: String, values: Vec<i64>) -> NewOp {
    let n = values.len() as u64;
    vector_const(name, DType::Int32, n, TensorData::Ints(values))
}

fn bool_const(name: String, values: Vec<bool>) -> NewOp {
    let n = values.len() as u64;
    vector_const(name, DType::Bool, n, TensorData::Bools(values))
}

/// A new rank-1 `const` op holding `data`.
fn vector_const(name: String, dtype: DType, len: u64, data: TensorData) -> NewOp {
    let ty = TensorType::fixed(dtype, &[len]);
    NewOp {
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

/// The edits in one function.
fn function_edit(
    u: &StateUse<'_>,
    state: &str,
    axis: usize,
    rows: u64,
    old_shape: &[u64],
    new_type: &TensorType,
) -> Result<FunctionEdit, String> {
    let f = u.f;
    let mut names = Names::of(f);
    // Values that get the padded type, and the (consumer, parameter) pairs inside write chains.
    let mut padded: BTreeSet<(u32, NodeId)> = BTreeSet::new();
    let mut chain_edges: HashSet<(NodeId, String)> = HashSet::new();
    for &r in &u.readers {
        padded.insert((order_of(f, r), r));
    }
    for w in &u.writes {
        chain_edges.insert((w.op, w.data_param.to_string()));
        if let WriteKind::Chain { ops, .. } = &w.kind {
            for &id in ops {
                padded.insert((order_of(f, id), id));
                chain_edges.insert((id, "x".to_string()));
            }
        }
    }
    let mut edit = FunctionEdit {
        function: f.name.clone(),
        retype: Vec::new(),
        inserts: Vec::new(),
        rebinds: Vec::new(),
        blends: 0,
    };
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
        if dims != old_shape {
            return Err(format!(
                "`{}` has type {t}, not the state's shape {}",
                out.name,
                shape_text(old_shape)
            ));
        }
        if f.blocks.iter().any(|b| b.outputs.contains(&out.name)) {
            return Err(format!(
                "`{}` (the state's content) is returned by the function; padding would change an output",
                out.name
            ));
        }
        edit.retype.push(out.name.clone());
        // Consumers outside the write chains read the original rows through a slice.
        let outside: Vec<_> = f
            .consumers(id)
            .into_iter()
            .filter(|(c, e)| e.output == 0 && !chain_edges.contains(&(*c, e.param.clone())))
            .collect();
        if outside.is_empty() {
            continue;
        }
        let anchor = Anchor::After(op_ref(f, id).ok_or("internal: op vanished")?);
        let begin = names.fresh(&format!("{}_unpadded_begin", out.name));
        let end = names.fresh(&format!("{}_unpadded_end", out.name));
        let slice = names.fresh(&format!("{}_unpadded", out.name));
        let zeros = vec![0i64; old_shape.len()];
        for new in [
            int_const(begin.clone(), zeros),
            int_const(end.clone(), dims_i64(old_shape)?),
            NewOp {
                op_type: "slice_by_index".into(),
                name: slice.clone(),
                inputs: vec![
                    ("begin".into(), begin),
                    ("end".into(), end),
                    ("x".into(), out.name.clone()),
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
        for (c, e) in outside {
            edit.rebinds.push(Rebind {
                op: op_ref(f, c).ok_or("internal: consumer is not an op")?,
                param: e.param.clone(),
                position: e.position,
                from: Some(out.name.clone()),
                to: slice.clone(),
            });
        }
    }
    for w in &u.writes {
        match &w.kind {
            WriteKind::Chain {
                slice_update,
                window,
                ..
            } => keep_window(f, *slice_update, window, axis, rows, &mut names, &mut edit)?,
            WriteKind::Whole => {
                rewrite_whole_write(f, u, w, state, old_shape, new_type, &mut names, &mut edit)?
            }
        }
    }
    Ok(edit)
}

fn order_of(f: &Function, id: NodeId) -> u32 {
    f.op(id).map_or(u32::MAX, |o| o.order)
}

/// Pins a window whose parameters depend on the axis length (masks, negative or clamped indices)
/// to absolute constants, so it names the same rows once the axis is one row longer.
fn keep_window(
    f: &Function,
    su: NodeId,
    window: &SliceParams,
    axis: usize,
    rows: u64,
    names: &mut Names,
    edit: &mut FunctionEdit,
) -> Result<(), String> {
    let op = f.op(su).ok_or("internal: slice_update vanished")?;
    let label = op.display_name().to_string();
    let w: AxisWindow = window
        .axis(axis, rows)
        .ok_or_else(|| format!("the window of `{label}` is not constant on the pad axis {axis}"))?;
    let (b, e) = w.resolved().ok_or_else(|| {
        format!(
            "the window of `{label}` has stride {} on the pad axis",
            w.stride
        )
    })?;
    if !w.depends_on_dim() {
        return Ok(());
    }
    let anchor = Anchor::Before(op_ref(f, su).ok_or("internal: op vanished")?);
    let replace = |param: &str, new: NewOp, edit: &mut FunctionEdit| -> Result<(), String> {
        let from = match op.arg(param) {
            Some(Arg::Name(n)) => Some(n.clone()),
            Some(Arg::Value(_)) => None,
            None => {
                return Err(format!(
                    "internal: `{label}` has no single `{param}` binding"
                ))
            }
        };
        let to = new.name.clone();
        edit.inserts.push(Insert {
            anchor: anchor.clone(),
            op: new,
        });
        edit.rebinds.push(Rebind {
            op: op_ref(f, su).ok_or("internal: op vanished")?,
            param: param.to_string(),
            position: 0,
            from,
            to,
        });
        Ok(())
    };
    let set = |p: &super::window::ConstParam, value: i64| -> Option<Vec<i64>> {
        match p {
            super::window::ConstParam::Const(v) => {
                let mut v = v.clone();
                *v.get_mut(axis)? = value;
                Some(v)
            }
            _ => None,
        }
    };
    if w.begin_depends_on_dim() {
        let begin = set(&window.begin, b).ok_or("internal: begin is not constant")?;
        replace(
            "begin",
            int_const(names.fresh(&format!("{label}_pad_begin")), begin),
            edit,
        )?;
    }
    if w.end_depends_on_dim() {
        let end = set(&window.end, e).ok_or("internal: end is not constant")?;
        replace(
            "end",
            int_const(names.fresh(&format!("{label}_pad_end")), end),
            edit,
        )?;
    }
    // A begin mask does not depend on the axis length; an end mask does (end is now absolute).
    if w.end_mask && !w.squeeze {
        let v = set(&window.end_mask, 0).ok_or("internal: end_mask is not constant")?;
        replace(
            "end_mask",
            bool_const(
                names.fresh(&format!("{label}_pad_end_mask")),
                v.into_iter().map(|x| x != 0).collect(),
            ),
            edit,
        )?;
    }
    Ok(())
}

/// Rewrites `write(S, D)` into `write(S, slice_update(x = read(S), update = D, [0, N)))`.
#[allow(clippy::too_many_arguments)]
fn rewrite_whole_write(
    f: &Function,
    u: &StateUse<'_>,
    w: &Write,
    state: &str,
    old_shape: &[u64],
    new_type: &TensorType,
    names: &mut Names,
    edit: &mut FunctionEdit,
) -> Result<(), String> {
    let op = f.op(w.op).ok_or("internal: write vanished")?;
    let label = op.display_name().to_string();
    if op.block != BODY {
        return Err(format!("`{label}` is inside a nested block"));
    }
    let data = match op.arg(w.data_param) {
        Some(Arg::Name(n)) => n.clone(),
        _ => {
            return Err(format!(
                "`{label}` writes an inline constant; rewrite it by hand"
            ))
        }
    };
    if u.readers.iter().any(|&r| {
        f.op(r)
            .and_then(|o| o.outputs.first())
            .is_some_and(|o| o.name == data)
    }) {
        return Err(format!(
            "`{label}` writes back a value read from the state unchanged"
        ));
    }
    let data_dims = f
        .value_type(&data)
        .and_then(|t| t.tensor())
        .and_then(|t| t.known_dims());
    if data_dims.as_deref() != Some(old_shape) {
        return Err(format!(
            "`{label}` writes `{data}`, whose shape is not the state's {}",
            shape_text(old_shape)
        ));
    }
    let anchor = Anchor::Before(op_ref(f, w.op).ok_or("internal: op vanished")?);
    let write_order = op.order;
    let latest_read = u
        .readers
        .iter()
        .filter_map(|&r| f.op(r))
        .filter(|o| o.order < write_order && o.block == BODY)
        .max_by_key(|o| o.order)
        .and_then(|o| o.outputs.first())
        .map(|o| o.name.clone());
    let read = match latest_read {
        Some(r) => r,
        None => {
            let name = names.fresh(&format!("{state}_pad_read"));
            edit.inserts.push(Insert {
                anchor: anchor.clone(),
                op: NewOp {
                    op_type: "read_state".into(),
                    name: name.clone(),
                    inputs: vec![("input".into(), state.to_string())],
                    output: new_type.clone(),
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
        int_const(begin.clone(), vec![0; old_shape.len()]),
        int_const(end.clone(), dims_i64(old_shape)?),
        NewOp {
            op_type: "slice_update".into(),
            name: su.clone(),
            inputs: vec![
                ("begin".into(), begin),
                ("end".into(), end),
                ("update".into(), data.clone()),
                ("x".into(), read),
            ],
            output: new_type.clone(),
            value: None,
        },
    ] {
        edit.inserts.push(Insert {
            anchor: anchor.clone(),
            op: new,
        });
    }
    edit.rebinds.push(Rebind {
        op: op_ref(f, w.op).ok_or("internal: op vanished")?,
        param: w.data_param.to_string(),
        position: 0,
        from: Some(data),
        to: su,
    });
    edit.blends += 1;
    Ok(())
}

/// The tensor type `t` with `axis` set to `rows` (for retyping).
pub fn with_rows(t: &TensorType, axis: usize, rows: u64) -> Option<TensorType> {
    let mut t = t.clone();
    let d = t.shape.as_mut()?.get_mut(axis)?;
    *d = Dim::Known(rows);
    Some(t)
}
