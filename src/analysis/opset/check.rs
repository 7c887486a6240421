//! One function checked against the op table: one pass over its ops in program order. Each op's
//! table entry is looked up once and its bindings matched to the version's parameters by index;
//! nothing is allocated for an op unless it produces a fact.

use super::infer::{infer, InferCx};
use super::table::{
    opset_position, OpTable, OpVersion, OpsetPos, ParamKind, ParamSpec, MAX_GROUPS, OPSETS,
};
use super::values::FunctionValues;
use crate::analysis::facts::Fact;
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

/// Every op-set fact of `f`. `text`: the program was read from text MIL.
/// `analysis`: the function's analysis, when it was computed already.
pub(super) fn check_function(
    table: &OpTable,
    f: &Function,
    analysis: Option<&FunctionAnalysis>,
    text: bool,
) -> Vec<Fact> {
    let at = match opset_position(&f.opset) {
        OpsetPos::Known(i) => i,
        OpsetPos::NotDescribed => {
            let mut x = Fact::new("mil-opset-not-checked")
                .with("OPSET", &f.opset)
                .with("KNOWN", OPSETS.join(", "));
            x.function = Some(f.name.clone());
            x.span = Some(f.span);
            return vec![x];
        }
    };
    let old_opset_with_states = at + 1 < OPSETS.len() && f.inputs().any(|(_, i)| i.ty.is_state());
    let values = FunctionValues::new(f, analysis);
    let cx = InferCx { f, values: &values };
    let mut out = Vec::new();
    for (_, op) in f.ops() {
        let fact = |kind: &str| {
            let mut x = Fact::new(kind).with("OP_TYPE", &op.op_type);
            x.function = Some(f.name.clone());
            x.op = Some(op.display_name().to_string());
            x.op_order = Some(op.order);
            x.span = Some(op.span);
            x
        };
        literal_counts(op, &fact, &mut out);
        if text && op.op_type == "coreml_update_state" {
            out.push(fact("mil-update-state-in-text"));
        }
        let Some(entry) = table.entry(&op.op_type) else {
            out.push(
                fact("mil-unknown-op").with(
                    "SUGGESTION",
                    suggest(&op.op_type, table.op_names())
                        .map_or("no op of that name exists in any opset".to_string(), |s| {
                            format!("did you mean `{s}`?")
                        }),
                ),
            );
            continue;
        };
        let Some(version) = entry.version(at) else {
            let since = entry.first_opset().unwrap_or("?");
            if old_opset_with_states && Some(since) == OPSETS.last().copied() {
                // `opset-too-old-for-states` reports the function's opset at its state; declaring
                // iOS18 brings every iOS18 op with it.
                continue;
            }
            out.push(
                fact("mil-op-too-new")
                    .with("SINCE", since)
                    .with("SINCE_TARGET", target_name(since))
                    .with("OPSET", &f.opset)
                    .with("OPSET_TARGET", target_name(text_opset(&f.opset))),
            );
            continue;
        };
        check_params(table, &values, op, version, &fact, &mut out);
        if let Some(how) = entry.inference() {
            output_type(&cx, op, how, &fact, &mut out);
        }
        if matches!(op.op_type.as_str(), "write_state" | "coreml_update_state") {
            write_type(f, op, &fact, &mut out);
        }
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

fn check_params<'a>(
    table: &OpTable,
    values: &FunctionValues<'a>,
    op: &'a Op,
    version: &'a OpVersion,
    fact: &dyn Fn(&str) -> Fact,
    out: &mut Vec<Fact>,
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
    // A misspelled parameter is one problem: reported where it is written, with the parameter it
    // stands for (the closest name, or the one required parameter left out), not again as missing.
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
                fact("mil-unknown-param")
                    .with("PARAM", name)
                    .with("SUGGESTION", hint),
            );
        }
    }
    let mut groups = [None; MAX_GROUPS];
    for (name, binds) in bindings(op) {
        if let Some(spec) = version.param(name) {
            check_binding(table, values, op, name, binds, spec, fact, &mut groups, out);
        }
    }
    if missing != 0 {
        for name in missing_names().filter(|m| !meant.contains(m)) {
            out.push(fact("mil-missing-param").with("PARAM", name));
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

#[allow(clippy::too_many_arguments)]
fn check_binding<'a>(
    table: &OpTable,
    values: &FunctionValues<'a>,
    op: &'a Op,
    name: &'a str,
    binds: Bindings<'a>,
    spec: &'a ParamSpec,
    fact: &dyn Fn(&str) -> Fact,
    groups: &mut [Option<(&'a str, DType)>; MAX_GROUPS],
    out: &mut Vec<Fact>,
) {
    if spec.kind == ParamKind::Any && !spec.constant {
        return; // nothing below applies
    }
    let f = values.function();
    // The only binding and its type, when there is exactly one.
    let mut single: Option<(Bound<'a>, Option<&'a ValueType>)> = None;
    for (i, b) in binds.iter().enumerate() {
        let ty = bound_type(f, &b);
        single = (i == 0).then_some((b, ty));
        let Some(ty) = ty else { continue };
        let kind = |expected: &str| {
            fact("mil-param-kind")
                .with("PARAM", name)
                .with("VALUE", b.shown())
                .with("EXPECTED", expected)
                .with("GOT", describe(ty))
        };
        match spec.kind {
            ParamKind::State if !ty.is_state() => {
                out.push(kind("a state"));
                return;
            }
            ParamKind::Tensor | ParamKind::Tuple | ParamKind::List if ty.is_state() => {
                out.push(kind("a tensor"));
                return;
            }
            _ => {}
        }
        if spec.constant {
            if let Bound::Name(n) = b {
                if let Some(d) = values.dependence(n).filter(|d| d.data) {
                    out.push(
                        fact("mil-param-not-const")
                            .with("PARAM", name)
                            .with("VALUE", b.shown())
                            .with("SOURCE", d.describe()),
                    );
                    return;
                }
            }
        }
    }
    if spec.kind != ParamKind::Tensor {
        return;
    }
    let Some((b, Some(ValueType::Tensor(t)))) = single else {
        return;
    };
    if !spec.accepts(t.dtype) {
        if table.deferred(&op.op_type, name, t.dtype).is_some() {
            return;
        }
        out.push(
            fact("mil-param-dtype")
                .with("PARAM", name)
                .with("VALUE", b.shown())
                .with("DTYPE", t.dtype)
                .with("ALLOWED", spec.dtypes.join(", ")),
        );
        return;
    }
    if let Some(slot) = spec.group.and_then(|g| groups.get_mut(g)) {
        match *slot {
            Some((other, d)) if d != t.dtype => out.push(
                fact("mil-dtype-mismatch")
                    .with("PARAM", name)
                    .with("DTYPE", t.dtype)
                    .with("OTHER", other)
                    .with("OTHER_DTYPE", d),
            ),
            Some(_) => {}
            None => *slot = Some((name, t.dtype)),
        }
    }
}

fn output_type(
    cx: &InferCx<'_>,
    op: &Op,
    how: super::table::Inference,
    fact: &dyn Fn(&str) -> Fact,
    out: &mut Vec<Fact>,
) {
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
    if let Some((inferred, detail)) = found {
        out.push(
            fact("mil-output-type")
                .with("OUTPUT", &first.name)
                .with("DECLARED", declared)
                .with("INFERRED", inferred)
                .with("DETAIL", detail),
        );
    }
}

fn write_type(f: &Function, op: &Op, fact: &dyn Fn(&str) -> Fact, out: &mut Vec<Fact>) {
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
    if st.dtype != dt.dtype || shapes_differ {
        let mut x = fact("mil-write-state-type")
            .with("STATE_TYPE", st)
            .with("DATA", shown)
            .with("DATA_TYPE", dt);
        x.state = Some(state.to_string());
        out.push(x);
    }
}

/// Literals (inline arguments and attributes) whose element count disagrees with their shape.
fn literal_counts(op: &Op, fact: &dyn Fn(&str) -> Fact, out: &mut Vec<Fact>) {
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
            if found as u64 != expected {
                out.push(
                    fact("mil-literal-elements")
                        .with("PARAM", name)
                        .with("TYPE", t)
                        .with("FOUND", found)
                        .with("EXPECTED", expected),
                );
            }
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
    let limit = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}
