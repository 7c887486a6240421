//! One function checked against the op table: one pass over its ops in program order.

use std::collections::BTreeMap;

use super::infer::{infer, InferCx};
use super::table::{opset_position, OpTable, OpVersion, OpsetPos, ParamKind, ParamSpec, OPSETS};
use crate::analysis::consteval::{self, product};
use crate::analysis::dependence::{self, DependenceMap};
use crate::analysis::facts::Fact;
use crate::ir::render::text_opset;
use crate::ir::{Arg, DType, Function, Literal, Op, Payload, ValueType};

/// A parameter binding as the checks see it: a named value or a literal (inline argument, or an
/// attribute such as `const.val`).
#[derive(Clone, Copy)]
enum Bound<'a> {
    Name(&'a str),
    Literal(&'a Literal),
}

impl Bound<'_> {
    fn shown(&self) -> String {
        match self {
            Bound::Name(n) => format!("`{n}`"),
            Bound::Literal(_) => "an inline literal".to_string(),
        }
    }
}

/// Every op-set fact of `f`. `text`: the program was read from text MIL.
pub(super) fn check_function(table: &OpTable, f: &Function, text: bool) -> Vec<Fact> {
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
    let consts = consteval::evaluate(f);
    let deps = dependence::analyze(f);
    let cx = InferCx { f, consts: &consts };
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
        let bound = bindings(op);
        literal_counts(&bound, &fact, &mut out);
        if text && op.op_type == "coreml_update_state" {
            out.push(fact("mil-update-state-in-text"));
        }
        if !table.knows(&op.op_type) {
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
        }
        let Some(version) = table.version(&op.op_type, at) else {
            let since = table.first_opset(&op.op_type).unwrap_or("?");
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
        check_params(table, f, op, &bound, version, &deps, &fact, &mut out);
        if let Some(how) = table.inference(&op.op_type) {
            output_type(&cx, op, how, &fact, &mut out);
        }
        if matches!(op.op_type.as_str(), "write_state" | "coreml_update_state") {
            write_type(f, op, &fact, &mut out);
        }
    }
    out
}

fn bindings(op: &Op) -> Vec<(&str, Vec<Bound<'_>>)> {
    let mut v: Vec<(&str, Vec<Bound<'_>>)> = op
        .inputs
        .iter()
        .map(|p| {
            let args = p
                .args
                .iter()
                .map(|a| match a {
                    Arg::Name(n) => Bound::Name(n),
                    Arg::Value(lit) => Bound::Literal(lit),
                })
                .collect();
            (p.name.as_str(), args)
        })
        .collect();
    v.extend(
        op.attributes
            .iter()
            .map(|(k, lit)| (k.as_str(), vec![Bound::Literal(lit)])),
    );
    v
}

fn bound_type<'a>(f: &'a Function, b: &Bound<'a>) -> Option<&'a ValueType> {
    match b {
        Bound::Name(n) => f.value_type(n),
        Bound::Literal(lit) => Some(&lit.ty),
    }
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
    }
}

#[allow(clippy::too_many_arguments)]
fn check_params<'a>(
    table: &OpTable,
    f: &Function,
    op: &Op,
    bound: &[(&'a str, Vec<Bound<'_>>)],
    version: &'a OpVersion,
    deps: &DependenceMap,
    fact: &dyn Fn(&str) -> Fact,
    out: &mut Vec<Fact>,
) {
    let missing: Vec<&str> = version
        .params
        .iter()
        .filter(|(name, spec)| !spec.optional && !bound.iter().any(|(n, _)| n == name))
        .map(|(name, _)| name.as_str())
        .collect();
    let unknown: Vec<&str> = bound
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !version.params.contains_key(*n))
        .collect();
    // A misspelled parameter is one problem: reported where it is written, with the parameter it
    // stands for (the closest name, or the one required parameter left out), not again as missing.
    let mut meant: Vec<&str> = Vec::new();
    for name in &unknown {
        let known: Vec<&str> = version.params.keys().map(String::as_str).collect();
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
    let mut groups = BTreeMap::new();
    for (name, args) in bound {
        if let Some(spec) = version.params.get(*name) {
            check_binding(table, f, op, name, args, spec, deps, fact, &mut groups, out);
        }
    }
    for name in missing.into_iter().filter(|m| !meant.contains(m)) {
        out.push(fact("mil-missing-param").with("PARAM", name));
    }
}

#[allow(clippy::too_many_arguments)]
fn check_binding<'a>(
    table: &OpTable,
    f: &Function,
    op: &Op,
    name: &'a str,
    args: &[Bound<'_>],
    spec: &'a ParamSpec,
    deps: &DependenceMap,
    fact: &dyn Fn(&str) -> Fact,
    groups: &mut BTreeMap<&'a str, (&'a str, DType)>,
    out: &mut Vec<Fact>,
) {
    for b in args {
        let Some(ty) = bound_type(f, b) else { continue };
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
                if let Some(d) = deps.get(n).filter(|d| d.data) {
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
    let [b] = args else { return };
    let Some(ValueType::Tensor(t)) = bound_type(f, b) else {
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
    if let Some(g) = &spec.group {
        match groups.get(g.as_str()) {
            Some(&(other, d)) if d != t.dtype => out.push(
                fact("mil-dtype-mismatch")
                    .with("PARAM", name)
                    .with("DTYPE", t.dtype)
                    .with("OTHER", other)
                    .with("OTHER_DTYPE", d),
            ),
            Some(_) => {}
            None => {
                groups.insert(g.as_str(), (name, t.dtype));
            }
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
fn literal_counts(
    bound: &[(&str, Vec<Bound<'_>>)],
    fact: &dyn Fn(&str) -> Fact,
    out: &mut Vec<Fact>,
) {
    for (name, args) in bound {
        for b in args {
            let Bound::Literal(lit) = b else { continue };
            let (ValueType::Tensor(t), Payload::Tensor(data)) = (&lit.ty, &lit.payload) else {
                continue;
            };
            let (Some(found), Some(dims)) = (data.len(), t.known_dims()) else {
                continue;
            };
            let Some(expected) = product(&dims) else {
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
