//! One function checked against the op table: one pass over its ops in program order. Each op's
//! table entry is looked up once and its bindings matched to the version's parameters by index;
//! every op, parameter and literal is described as an entity whose properties the `mil-*` rules
//! test.

use super::infer::{infer, InferCx};
use super::table::{
    opset_position, OpTable, OpVersion, OpsetPos, ParamKind, ParamSpec, MAX_GROUPS, OPSETS,
};
use super::values::FunctionValues;
use crate::analysis::entity::Entity;
use crate::analysis::FunctionAnalysis;
use crate::ir::render::text_opset;
use crate::ir::{Arg, DType, Function, Literal, Op, Payload, ValueType};

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
fn bindings(op: &Op) -> impl Iterator<Item = (&str, Bindings<'_>)> {
    let inputs = op
        .inputs
        .iter()
        .map(|p| (p.name.as_str(), Bindings::Args(&p.args)));
    let attributes = op
        .attributes
        .iter()
        .map(|(k, lit)| (k.as_str(), Bindings::Attribute(lit)));
    inputs.chain(attributes)
}

/// Where an entity about `op` of `f` is reported.
fn at_op(kind: &'static str, f: &Function, op: &Op) -> Entity {
    let mut e = Entity::new(kind).with("op-type", op.op_type.as_str());
    e.function = Some(f.name.clone());
    e.op = Some(op.display_name().to_string());
    e.op_order = Some(op.order);
    e.span = Some(op.span);
    e
}

/// Every op-set entity of `f`: the function, and for each op the op, its parameters and its
/// literals, as the op table sees them. `text`: the program was read from text MIL.
/// `analysis`: the function's analysis, when it was computed already.
pub(super) fn check_function(
    table: &OpTable,
    f: &Function,
    analysis: Option<&FunctionAnalysis>,
    text: bool,
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
    let mut out = vec![function.with("described", true)];
    let old_opset_with_states = at + 1 < OPSETS.len() && f.inputs().any(|(_, i)| i.ty.is_state());
    let values = FunctionValues::new(f, analysis);
    let cx = InferCx { f, values: &values };
    for (_, op) in f.ops() {
        literal_counts(f, op, &mut out);
        let mut e = at_op("mil-op", f, op).with("text-program", text);
        let Some(entry) = table.entry(&op.op_type) else {
            let hint = suggest(&op.op_type, table.op_names())
                .map_or("no op of that name exists in any opset".to_string(), |s| {
                    format!("did you mean `{s}`?")
                });
            out.push(e.with("known", false).with("hint", hint));
            continue;
        };
        e.set("known", true);
        let Some(version) = entry.version(at) else {
            let since = entry.first_opset().unwrap_or("?");
            out.push(
                e.with("available", false)
                    .with(
                        "needs-state-opset",
                        old_opset_with_states && Some(since) == OPSETS.last().copied(),
                    )
                    .with("since", since)
                    .with("since-target", target_name(since))
                    .with("opset", f.opset.as_str())
                    .with("opset-target", target_name(text_opset(&f.opset))),
            );
            continue;
        };
        e.set("available", true);
        check_params(table, &values, f, op, version, &mut out);
        if let Some(how) = entry.inference() {
            output_type(&cx, op, how, &mut e);
        }
        if matches!(op.op_type.as_str(), "write_state" | "coreml_update_state") {
            write_type(f, op, &mut e);
        }
        out.push(e);
    }
    out
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
    f: &Function,
    op: &'a Op,
    version: &'a OpVersion,
    out: &mut Vec<Entity>,
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
        let unknown: Vec<&str> = bindings(op)
            .map(|(n, _)| n)
            .filter(|n| version.position(n).is_none())
            .collect();
        let missing: Vec<&str> = missing_names().collect();
        let known: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        for name in &unknown {
            let guess = suggest(name, known.iter().copied()).or(
                match (unknown.as_slice(), missing.as_slice()) {
                    ([_], [only]) => Some(*only),
                    _ => None,
                },
            );
            let hint = match guess {
                Some(s) => format!("did you mean `{s}`?"),
                None if known.is_empty() => format!("`{}` takes no parameters", op.op_type),
                None => format!("`{}` takes {}", op.op_type, known.join(", ")),
            };
            meant.extend(guess);
            out.push(
                at_op("mil-parameter", f, op)
                    .with("param", *name)
                    .with("bound", true)
                    .with("in-signature", false)
                    .with("hint", hint),
            );
        }
    }
    let mut groups = [None; MAX_GROUPS];
    for (name, binds) in bindings(op) {
        if let Some(spec) = version.param(name) {
            check_binding(table, values, op, name, binds, spec, &mut groups, out);
        }
    }
    for (i, p) in params.iter().enumerate() {
        if bound & (1 << i) == 0 {
            out.push(
                at_op("mil-parameter", f, op)
                    .with("param", p.name.as_str())
                    .with("bound", false)
                    .with("in-signature", true)
                    .with("required", version.required() & (1 << i) != 0)
                    .with("misspelled", meant.contains(&p.name.as_str())),
            );
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

/// One `mil-parameter` entity per binding of parameter `name`, which the signature has (`spec`).
/// The element type is described for a parameter bound to one tensor; `group-param` /
/// `group-dtype` name the first parameter of its type group and that parameter's element type.
#[allow(clippy::too_many_arguments)]
fn check_binding<'a>(
    table: &OpTable,
    values: &FunctionValues<'a>,
    op: &'a Op,
    name: &'a str,
    binds: Bindings<'a>,
    spec: &'a ParamSpec,
    groups: &mut [Option<(&'a str, DType)>; MAX_GROUPS],
    out: &mut Vec<Entity>,
) {
    let f = values.function();
    let all: Vec<Bound<'a>> = binds.iter().collect();
    let single = all.len() == 1;
    for b in all {
        let ty = bound_type(f, &b);
        let mut e = at_op("mil-parameter", f, op)
            .with("param", name)
            .with("bound", true)
            .with("in-signature", true)
            .with("required", !spec.optional)
            .with("value", b.shown())
            .with("takes", takes(spec.kind))
            .with("must-be-const", spec.constant);
        let Some(ty) = ty else {
            out.push(e);
            continue;
        };
        e.set("is-state", ty.is_state());
        e.set("got", describe(ty));
        e.set(
            "expects",
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
        e.set("runtime-data", runtime.is_some());
        if let Some(d) = runtime {
            e.set("source", d.describe());
        }
        if let (true, ParamKind::Tensor, ValueType::Tensor(t)) = (single, spec.kind, ty) {
            let accepted = spec.accepts(t.dtype);
            e.set("dtype", t.dtype.to_string());
            e.set("dtype-accepted", accepted);
            e.set("accepted-dtypes", spec.dtypes.join(", "));
            e.set(
                "deferred",
                table.deferred(&op.op_type, name, t.dtype).is_some(),
            );
            if let (true, Some(slot)) = (accepted, spec.group.and_then(|g| groups.get_mut(g))) {
                match *slot {
                    Some((other, d)) => {
                        e.set("group-param", other);
                        e.set("group-dtype", d.to_string());
                    }
                    None => *slot = Some((name, t.dtype)),
                }
            }
        }
        out.push(e);
    }
}

/// The declared and the inferred type of `op`'s first output, on its `mil-op` entity.
fn output_type(cx: &InferCx<'_>, op: &Op, how: super::table::Inference, e: &mut Entity) {
    let Some(first) = op.outputs.first() else {
        return;
    };
    let ValueType::Tensor(declared) = &first.ty else {
        return;
    };
    let found = match infer(cx, op, how) {
        Ok(Some(t)) => t.contradiction(declared).map(|why| (t.to_string(), why)),
        Ok(None) => None,
        Err(why) => Some(("no valid type".to_string(), why)),
    };
    e.set("output", first.name.to_string());
    e.set("declared", declared.to_string());
    e.set("output-agrees", found.is_none());
    if let Some((inferred, detail)) = found {
        e.set("inferred", inferred);
        e.set("contradiction", detail);
    }
}

/// The state a write op writes and the data it writes, on its `mil-op` entity.
fn write_type(f: &Function, op: &Op, e: &mut Entity) {
    let (state_param, data_param) = if op.op_type == "write_state" {
        ("input", "data")
    } else {
        ("state", "value")
    };
    let (Some(state), Some(data)) = (op.arg_name(state_param), op.arg(data_param)) else {
        return;
    };
    let Some(ValueType::State(inner)) = f.value_type(state) else {
        return;
    };
    let Some(st) = inner.tensor() else { return };
    let (shown, ty) = match data {
        Arg::Name(n) => (format!("`{n}`"), f.value_type(n)),
        Arg::Value(lit) => ("an inline literal".to_string(), Some(&lit.ty)),
    };
    let Some(ValueType::Tensor(dt)) = ty else {
        return;
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
    e.state = Some(state.to_string());
    e.set("state-type", st.to_string());
    e.set("data", shown);
    e.set("data-type", dt.to_string());
    e.set("data-fits-state", st.dtype == dt.dtype && !shapes_differ);
}

/// A `mil-literal` entity per tensor literal (inline argument or attribute) of `op` whose shape is
/// fully known: how many elements it lists and how many its shape holds.
fn literal_counts(f: &Function, op: &Op, out: &mut Vec<Entity>) {
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
            out.push(
                at_op("mil-literal", f, op)
                    .with("param", name)
                    .with("type", t.to_string())
                    .with("elements", found)
                    .with("shape-elements", expected),
            );
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
