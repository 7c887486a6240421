//! One function checked against the op table: one pass over its ops in program order. Each op's
//! table entry is looked up once and its bindings matched to the version's parameters by index;
//! every op, parameter and literal is described as an entity whose properties the `mil-*` rules
//! test.

use super::infer::{infer, InferCx};
use super::table::{
    opset_position, OpTable, OpVersion, OpsetPos, ParamKind, ParamSpec, MAX_GROUPS, OPSETS,
};
use super::values::FunctionValues;
use super::ENTITY_KINDS;
use crate::analysis::entity::{
    Entity, EntityDemand, EntityKind, Partial, PartialProp, Slot, MAX_PROPERTIES,
};
use crate::analysis::FunctionAnalysis;
use crate::ir::render::text_opset;
use crate::ir::{Arg, DType, Function, Literal, Name, Op, Payload, TensorType, ValueType};

/// A parameter binding as the checks see it: a named value or a literal (inline argument, or an
/// attribute such as `const.val`).
#[derive(Clone, Copy)]
enum Bound<'a> {
    Name(&'a str),
    Literal(&'a Literal),
}

impl<'a> Bound<'a> {
    fn of(arg: &'a Arg) -> Bound<'a> {
        match arg {
            Arg::Name(n) => Bound::Name(n),
            Arg::Value(lit) => Bound::Literal(lit),
        }
    }

    fn shown(&self) -> String {
        match self {
            Bound::Name(n) => format!("`{n}`"),
            Bound::Literal(_) => "an inline literal".to_string(),
        }
    }
}

/// What one parameter of an op binds: the arguments of an input, or an attribute's literal.
#[derive(Clone, Copy)]
enum Bindings<'a> {
    Args(&'a [Arg]),
    Attribute(&'a Literal),
}

impl<'a> Bindings<'a> {
    fn iter(self) -> impl Iterator<Item = Bound<'a>> {
        let (args, attribute) = match self {
            Bindings::Args(args) => (args, None),
            Bindings::Attribute(lit) => (&[][..], Some(Bound::Literal(lit))),
        };
        args.iter().map(Bound::of).chain(attribute)
    }
}

/// Every parameter binding of `op`: inputs in source order, then attributes.
fn bindings(op: &Op) -> impl Iterator<Item = (&Name, Bindings<'_>)> {
    let inputs = op.inputs.iter().map(|p| (&p.name, Bindings::Args(&p.args)));
    let attributes = op
        .attributes
        .iter()
        .map(|(k, lit)| (k, Bindings::Attribute(lit)));
    inputs.chain(attributes)
}

/// Where an entity about `op` of `f` is reported.
fn at_op(kind: &'static str, f: &Function, op: &Op) -> Entity {
    let mut e = Entity::new(kind);
    e.function = Some(f.name.clone());
    e.op = Some(op.display_name().to_string());
    e.op_order = Some(op.order);
    e.span = Some(op.span);
    e
}

/// The op-set kinds an op's entities are of.
const MIL_OP: &EntityKind = &ENTITY_KINDS[1];
const MIL_PARAMETER: &EntityKind = &ENTITY_KINDS[2];
const MIL_LITERAL: &EntityKind = &ENTITY_KINDS[3];

/// The slots of the properties set while an entity is described in part.
mod slot {
    use super::{Slot, MAX_PROPERTIES, MIL_LITERAL, MIL_OP, MIL_PARAMETER};

    pub const OP_TYPE: Slot = MIL_OP.slot("op-type");
    pub const TEXT_PROGRAM: Slot = MIL_OP.slot("text-program");
    pub const KNOWN: Slot = MIL_OP.slot("known");
    pub const AVAILABLE: Slot = MIL_OP.slot("available");
    pub const NEEDS_STATE_OPSET: Slot = MIL_OP.slot("needs-state-opset");
    pub const OUTPUT_AGREES: Slot = MIL_OP.slot("output-agrees");
    pub const DATA_FITS_STATE: Slot = MIL_OP.slot("data-fits-state");

    pub const PARAM: Slot = MIL_PARAMETER.slot("param");
    pub const BOUND: Slot = MIL_PARAMETER.slot("bound");
    pub const IN_SIGNATURE: Slot = MIL_PARAMETER.slot("in-signature");
    pub const REQUIRED: Slot = MIL_PARAMETER.slot("required");
    pub const MISSPELLED: Slot = MIL_PARAMETER.slot("misspelled");
    pub const MUST_BE_CONST: Slot = MIL_PARAMETER.slot("must-be-const");
    pub const TAKES: Slot = MIL_PARAMETER.slot("takes");
    pub const IS_STATE: Slot = MIL_PARAMETER.slot("is-state");
    pub const EXPECTS: Slot = MIL_PARAMETER.slot("expects");
    pub const RUNTIME_DATA: Slot = MIL_PARAMETER.slot("runtime-data");
    pub const DTYPE: Slot = MIL_PARAMETER.slot("dtype");
    pub const DTYPE_ACCEPTED: Slot = MIL_PARAMETER.slot("dtype-accepted");
    pub const DEFERRED: Slot = MIL_PARAMETER.slot("deferred");
    pub const GROUP_PARAM: Slot = MIL_PARAMETER.slot("group-param");
    pub const GROUP_DTYPE: Slot = MIL_PARAMETER.slot("group-dtype");

    pub const LITERAL_PARAM: Slot = MIL_LITERAL.slot("param");

    pub const ELEMENTS: Slot = MIL_LITERAL.slot("elements");
    pub const SHAPE_ELEMENTS: Slot = MIL_LITERAL.slot("shape-elements");

    // `start` sets the op type in the same slot whatever the kind.
    const _: () =
        assert!(MIL_PARAMETER.slot("op-type") == OP_TYPE && MIL_LITERAL.slot("op-type") == OP_TYPE);
    // A `Partial` has a slot for each property of its kind.
    const _: () = assert!(
        MIL_OP.properties.len() <= MAX_PROPERTIES
            && MIL_PARAMETER.properties.len() <= MAX_PROPERTIES
            && MIL_LITERAL.properties.len() <= MAX_PROPERTIES
    );
}

/// The properties of each kind that are set only once an entity is wanted (texts for messages),
/// as a mask of slots.
fn pending(kind: &EntityKind) -> u64 {
    const OP: u64 = MIL_OP.slots(&[
        "hint",
        "since",
        "since-target",
        "opset",
        "opset-target",
        "output",
        "declared",
        "inferred",
        "contradiction",
        "state-type",
        "data",
        "data-type",
    ]);
    const PARAMETER: u64 =
        MIL_PARAMETER.slots(&["hint", "value", "got", "source", "accepted-dtypes"]);
    const LITERAL: u64 = MIL_LITERAL.slots(&["type"]);
    match kind.name {
        "mil-op" => OP,
        "mil-parameter" => PARAMETER,
        "mil-literal" => LITERAL,
        _ => 0,
    }
}

/// The op-set entities of one function as they are described: each first in part (the cheap
/// properties, by slot), then made whole and located only when a rule of the run may select it.
struct Described<'a> {
    f: &'a Function,
    demand: &'a dyn EntityDemand,
    partial: Partial<'a>,
    out: Vec<Entity>,
}

impl<'a> Described<'a> {
    fn new(f: &'a Function, demand: &'a dyn EntityDemand) -> Described<'a> {
        Described {
            f,
            demand,
            partial: Partial::new(MIL_OP),
            out: Vec::new(),
        }
    }

    /// Starts an entity of `kind` about `op`; its cheap properties are set on what this returns.
    fn start(&mut self, kind: &'static EntityKind, op: &'a Op) -> &mut Partial<'a> {
        self.partial.reset(kind);
        // `op-type` has the same slot in each kind.
        self.partial.set(slot::OP_TYPE, &op.op_type)
    }

    /// Makes the entity started last whole when a rule may select it: its location, its cheap
    /// properties, then the costly ones `rest` sets (the kind's [`pending`] properties).
    fn finish(&mut self, op: &Op, rest: impl FnOnce(&mut Entity)) {
        let kind = self.partial.kind();
        if !self.demand.may_select(&self.partial, pending(kind)) {
            return;
        }
        let mut e = at_op(kind.name, self.f, op);
        self.partial.describe(&mut e);
        rest(&mut e);
        self.out.push(e);
    }
}

/// Every op-set entity of `f` that `demand` may select: the function, and for each op the op, its
/// parameters and its literals, as the op table sees them. `text`: the program was read from text
/// MIL. `analysis`: the function's analysis, when it was computed already.
pub(super) fn check_function(
    table: &OpTable,
    f: &Function,
    analysis: Option<&FunctionAnalysis>,
    text: bool,
    demand: &dyn EntityDemand,
) -> Vec<Entity> {
    let mut function = Entity::new("mil-function")
        .with("opset", f.opset.as_str())
        .with("known-opsets", OPSETS.join(", "));
    function.function = Some(f.name.clone());
    function.span = Some(f.span);
    let at = match opset_position(&f.opset) {
        OpsetPos::Known(i) => i,
        OpsetPos::NotDescribed => return vec![function.with("described", false)],
    };
    let old_opset_with_states = at + 1 < OPSETS.len() && f.inputs().any(|(_, i)| i.ty.is_state());
    let values = FunctionValues::new(f, analysis);
    let cx = InferCx { f, values: &values };
    let mut d = Described::new(f, demand);
    d.out.push(function.with("described", true));
    for (_, op) in f.ops() {
        literal_counts(op, &mut d);
        let Some(entry) = table.entry(&op.op_type) else {
            d.start(MIL_OP, op)
                .set(slot::TEXT_PROGRAM, text)
                .set(slot::KNOWN, false);
            d.finish(op, |e| {
                let hint = suggest(&op.op_type, table.op_names())
                    .map_or("no op of that name exists in any opset".to_string(), |s| {
                        format!("did you mean `{s}`?")
                    });
                e.set("hint", hint);
            });
            continue;
        };
        let Some(version) = entry.version(at) else {
            let since = entry.first_opset().unwrap_or("?");
            d.start(MIL_OP, op)
                .set(slot::TEXT_PROGRAM, text)
                .set(slot::KNOWN, true)
                .set(slot::AVAILABLE, false)
                .set(
                    slot::NEEDS_STATE_OPSET,
                    old_opset_with_states && Some(since) == OPSETS.last().copied(),
                );
            d.finish(op, |e| {
                e.set("since", since);
                e.set("since-target", target_name(since));
                e.set("opset", f.opset.as_str());
                e.set("opset-target", target_name(text_opset(&f.opset)));
            });
            continue;
        };
        check_params(table, &values, op, version, &mut d);
        let output = entry.inference().and_then(|how| output_type(&cx, op, how));
        let write = matches!(op.op_type.as_str(), "write_state" | "coreml_update_state")
            .then(|| write_type(f, op))
            .flatten();
        let e = d
            .start(MIL_OP, op)
            .set(slot::TEXT_PROGRAM, text)
            .set(slot::KNOWN, true)
            .set(slot::AVAILABLE, true);
        if let Some(o) = &output {
            e.set(slot::OUTPUT_AGREES, o.disagreement.is_none());
        }
        if let Some(w) = &write {
            e.set(slot::DATA_FITS_STATE, w.fits);
        }
        d.finish(op, |e| {
            if let Some(o) = output {
                e.set("output", o.name);
                e.set("declared", o.declared.to_string());
                if let Some((inferred, detail)) = o.disagreement {
                    e.set("inferred", inferred);
                    e.set("contradiction", detail);
                }
            }
            if let Some(w) = write {
                e.state = Some(w.state.to_string());
                e.set("state-type", w.state_type.to_string());
                e.set("data", w.data);
                e.set("data-type", w.data_type.to_string());
            }
        });
    }
    d.out
}

fn describe(ty: &ValueType) -> String {
    match ty {
        ValueType::Tensor(t) => t.to_string(),
        ValueType::State(inner) => match inner.tensor() {
            Some(t) => format!("state<{t}>"),
            None => "a state".to_string(),
        },
        ValueType::List { .. } => "a list".to_string(),
        ValueType::Tuple(_) => "a tuple".to_string(),
        ValueType::Dict { .. } => "a dict".to_string(),
        ValueType::Token => "a token".to_string(),
    }
}

/// The `mil-parameter` entities of `op`: each binding of a parameter (one the signature has or
/// not), then each parameter of the signature the op leaves unbound.
fn check_params<'a>(
    table: &OpTable,
    values: &FunctionValues<'a>,
    op: &'a Op,
    version: &'a OpVersion,
    d: &mut Described<'a>,
) {
    let params = version.params();
    let mut bound = 0u64;
    let mut unknown = 0usize;
    for (name, _) in bindings(op) {
        match version.position(name) {
            Some(i) => bound |= 1 << i,
            None => unknown += 1,
        }
    }
    let missing = version.required() & !bound;
    let missing_names = || {
        params
            .iter()
            .enumerate()
            .filter(move |(i, _)| missing & (1 << i) != 0)
            .map(|(_, p)| p.name.as_str())
    };
    // A misspelled parameter stands for the closest name, or for the one required parameter left
    // out: that parameter is then `misspelled`, not simply missing.
    let mut meant: Vec<&str> = Vec::new();
    if unknown > 0 {
        let unknown: Vec<&Name> = bindings(op)
            .map(|(n, _)| n)
            .filter(|n| version.position(n).is_none())
            .collect();
        let missing: Vec<&str> = missing_names().collect();
        let known: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        let one_unknown = unknown.len() == 1;
        for name in unknown {
            let guess = suggest(name, known.iter().copied()).or(match missing.as_slice() {
                [only] if one_unknown => Some(*only),
                _ => None,
            });
            let hint = match guess {
                Some(s) => format!("did you mean `{s}`?"),
                None if known.is_empty() => format!("`{}` takes no parameters", op.op_type),
                None => format!("`{}` takes {}", op.op_type, known.join(", ")),
            };
            meant.extend(guess);
            d.start(MIL_PARAMETER, op)
                .set(slot::BOUND, true)
                .set(slot::IN_SIGNATURE, false)
                .set(slot::PARAM, name);
            d.finish(op, |e| e.set("hint", hint));
        }
    }
    let mut groups = [None; MAX_GROUPS];
    for (name, binds) in bindings(op) {
        if let Some(spec) = version.param(name) {
            check_binding(table, values, op, name, binds, spec, &mut groups, d);
        }
    }
    for (i, p) in params.iter().enumerate() {
        if bound & (1 << i) == 0 {
            d.start(MIL_PARAMETER, op)
                .set(slot::BOUND, false)
                .set(slot::IN_SIGNATURE, true)
                .set(slot::REQUIRED, version.required() & (1 << i) != 0)
                .set(slot::MISSPELLED, meant.contains(&p.name.as_str()))
                .set(slot::PARAM, p.name.as_str());
            d.finish(op, |_| {});
        }
    }
}

/// The type of a binding: the named value's, or the literal's.
fn bound_type<'a>(f: &'a Function, b: &Bound<'a>) -> Option<&'a ValueType> {
    match b {
        Bound::Name(n) => f.value_type(n),
        Bound::Literal(lit) => Some(&lit.ty),
    }
}

/// What a parameter of `kind` takes, as `mil-parameter`'s `takes` says it.
fn takes(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::Tensor => "tensor",
        ParamKind::State => "state",
        ParamKind::Tuple => "tuple",
        ParamKind::List => "list",
        ParamKind::Any => "any",
    }
}

/// An element type as a property: the type's name (no allocation for the known ones).
fn dtype_text(d: DType) -> PartialProp<'static> {
    d.known_name()
        .map_or_else(|| PartialProp::from(d.text_name()), PartialProp::from)
}

/// One `mil-parameter` entity per binding of parameter `name`, which the signature has (`spec`).
/// The element type is described for a parameter bound to one tensor; `group-param` /
/// `group-dtype` name the first parameter of its type group and that parameter's element type.
#[allow(clippy::too_many_arguments)]
fn check_binding<'a>(
    table: &OpTable,
    values: &FunctionValues<'a>,
    op: &'a Op,
    name: &'a Name,
    binds: Bindings<'a>,
    spec: &'a ParamSpec,
    groups: &mut [Option<(&'a Name, DType)>; MAX_GROUPS],
    d: &mut Described<'a>,
) {
    let f = values.function();
    let single = binds.iter().nth(1).is_none();
    for b in binds.iter() {
        let ty = bound_type(f, &b);
        let e = d
            .start(MIL_PARAMETER, op)
            .set(slot::BOUND, true)
            .set(slot::IN_SIGNATURE, true)
            .set(slot::REQUIRED, !spec.optional)
            .set(slot::MUST_BE_CONST, spec.constant);
        e.set(slot::PARAM, name);
        e.set(slot::TAKES, takes(spec.kind));
        let Some(ty) = ty else {
            d.finish(op, |e| e.set("value", b.shown()));
            continue;
        };
        e.set(slot::IS_STATE, ty.is_state());
        e.set(
            slot::EXPECTS,
            if spec.kind == ParamKind::State {
                "a state"
            } else {
                "a tensor"
            },
        );
        let runtime = match b {
            Bound::Name(n) => values.dependence(n).filter(|d| d.data),
            Bound::Literal(_) => None,
        };
        e.set(slot::RUNTIME_DATA, runtime.is_some());
        let tensor = match (single, spec.kind, ty) {
            (true, ParamKind::Tensor, ValueType::Tensor(t)) => Some(t),
            _ => None,
        };
        if let Some(t) = tensor {
            let accepted = spec.accepts(t.dtype);
            e.set(slot::DTYPE, dtype_text(t.dtype));
            e.set(slot::DTYPE_ACCEPTED, accepted);
            e.set(
                slot::DEFERRED,
                table.deferred(&op.op_type, name, t.dtype).is_some(),
            );
            if let (true, Some(slot)) = (accepted, spec.group.and_then(|g| groups.get_mut(g))) {
                match *slot {
                    Some((other, dt)) => {
                        e.set(slot::GROUP_PARAM, other);
                        e.set(slot::GROUP_DTYPE, dtype_text(dt));
                    }
                    None => *slot = Some((name, t.dtype)),
                }
            }
        }
        d.finish(op, |e| {
            e.set("value", b.shown());
            e.set("got", describe(ty));
            if let Some(dep) = runtime {
                e.set("source", dep.describe());
            }
            if tensor.is_some() {
                e.set("accepted-dtypes", spec.dtypes.join(", "));
            }
        });
    }
}

/// The first output of an op whose type the table infers: its name, declared type, and the
/// inferred type and why it disagrees, when it does.
struct OutputType<'a> {
    name: &'a Name,
    declared: &'a TensorType,
    disagreement: Option<(String, String)>,
}

/// The declared and the inferred type of `op`'s first output.
fn output_type<'a>(
    cx: &InferCx<'_>,
    op: &'a Op,
    how: super::table::Inference,
) -> Option<OutputType<'a>> {
    let first = op.outputs.first()?;
    let ValueType::Tensor(declared) = &first.ty else {
        return None;
    };
    let disagreement = match infer(cx, op, how) {
        Ok(Some(t)) => t.contradiction(declared).map(|why| (t.to_string(), why)),
        Ok(None) => None,
        Err(why) => Some(("no valid type".to_string(), why)),
    };
    Some(OutputType {
        name: &first.name,
        declared,
        disagreement,
    })
}

/// A state write: the state, its tensor type, the data written and its type, and whether the
/// data fits the state.
struct WriteType<'a> {
    state: &'a str,
    state_type: &'a TensorType,
    data: String,
    data_type: &'a TensorType,
    fits: bool,
}

/// The state a write op writes and the data it writes.
fn write_type<'a>(f: &'a Function, op: &'a Op) -> Option<WriteType<'a>> {
    let (state_param, data_param) = if op.op_type == "write_state" {
        ("input", "data")
    } else {
        ("state", "value")
    };
    let (state, data) = (op.arg_name(state_param)?, op.arg(data_param)?);
    let Some(ValueType::State(inner)) = f.value_type(state) else {
        return None;
    };
    let st = inner.tensor()?;
    let (shown, ty) = match data {
        Arg::Name(n) => (format!("`{n}`"), f.value_type(n)),
        Arg::Value(lit) => ("an inline literal".to_string(), Some(&lit.ty)),
    };
    let Some(ValueType::Tensor(dt)) = ty else {
        return None;
    };
    let shapes_differ = match (&st.shape, &dt.shape) {
        (Some(a), Some(b)) => {
            a.len() != b.len()
                || a.iter()
                    .zip(b)
                    .any(|(x, y)| matches!((x.known(), y.known()), (Some(p), Some(q)) if p != q))
        }
        _ => false,
    };
    Some(WriteType {
        state,
        state_type: st,
        data: shown,
        data_type: dt,
        fits: st.dtype == dt.dtype && !shapes_differ,
    })
}

/// A `mil-literal` entity per tensor literal (inline argument or attribute) of `op` whose shape is
/// fully known: how many elements it lists and how many its shape holds.
fn literal_counts<'a>(op: &'a Op, d: &mut Described<'a>) {
    for (name, binds) in bindings(op) {
        for b in binds.iter() {
            let Bound::Literal(lit) = b else { continue };
            let (ValueType::Tensor(t), Payload::Tensor(data)) = (&lit.ty, &lit.payload) else {
                continue;
            };
            let Some(found) = data.len() else { continue };
            // The element count of a fully known shape, `None` on overflow.
            let Some(expected) = t
                .shape
                .as_ref()
                .and_then(|dims| dims.iter().try_fold(1u64, |n, d| n.checked_mul(d.known()?)))
            else {
                continue;
            };
            let e = d.start(MIL_LITERAL, op);
            e.set(slot::LITERAL_PARAM, name);
            e.set(slot::ELEMENTS, found);
            e.set(slot::SHAPE_ELEMENTS, expected);
            d.finish(op, |e| e.set("type", t.to_string()));
        }
    }
}

/// coremltools' spelling of an opset (`ios18` → `iOS18`).
fn target_name(opset: &str) -> String {
    match opset.strip_prefix("ios") {
        Some(n) => format!("iOS{n}"),
        None => opset.to_string(),
    }
}

/// The closest candidate by edit distance, when it is close enough to be a likely typo.
fn suggest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    crate::suggest::closest_within(name, candidates, (name.chars().count() / 3).clamp(1, 3))
}
