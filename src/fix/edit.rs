//! Applies a [`PadPlan`] to an IR [`Program`] and re-renders it (the text write-back, and the
//! "after" side of `--diff`).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::ir::render::render_to_string;
use crate::ir::{Arg, Function, Node, NodeId, Op, Output, Param, Program, Span, ValueType, BODY};
use crate::read::miltext::parse_program;

use crate::analysis::fix_plan::{
    with_rows, Anchor, FunctionEdit, LiteralSite, NewOp, OpRef, PadPlan,
};

/// Applies `plans` (of distinct states, all computed on `program`) to `program` and returns the
/// program re-read from its rendered text (so its graph, value map, op order and spans are
/// consistent again), with that text.
pub(crate) fn apply_to_program(
    program: &Program,
    plans: &[&PadPlan],
) -> Result<(Program, String), String> {
    let mut p = program.clone();
    for f in &mut p.functions {
        let edits: Vec<(&PadPlan, &FunctionEdit)> = plans
            .iter()
            .flat_map(|plan| {
                plan.functions
                    .iter()
                    .filter(|fe| fe.function == f.name)
                    .map(move |fe| (*plan, fe))
            })
            .collect();
        if !edits.is_empty() {
            edit_function(f, &edits)?;
        }
    }
    for plan in plans {
        if !p
            .functions
            .iter()
            .any(|f| plan.functions.iter().any(|fe| fe.function == f.name))
            && !plan.functions.is_empty()
        {
            return Err(format!(
                "no function of the plan for {} is in the program",
                plan.subject()
            ));
        }
    }
    let text = render_to_string(&p);
    let reread = parse_program(&text, Path::new("fixed model.mil"))
        .map_err(|e| format!("internal: the padded program does not re-read: {e}"))?;
    Ok((reread, text))
}

/// Edits one function in place, every op named by its position in the original program. The
/// graph's edges, value map and op order are left stale: render it.
fn edit_function(f: &mut Function, edits: &[(&PadPlan, &FunctionEdit)]) -> Result<(), String> {
    f.names_hold_line_breaks = true;
    let by_order: HashMap<u32, NodeId> = f.ops().map(|(id, o)| (o.order, id)).collect();
    let resolve = |r: &OpRef, f: &Function| -> Result<NodeId, String> {
        let id = by_order
            .get(&r.order)
            .copied()
            .ok_or_else(|| format!("op #{} (`{}`) not found", r.order, r.label))?;
        let op = f.op(id).ok_or("internal: not an op")?;
        if op.op_type != r.op_type || op.display_name() != r.label {
            return Err(format!(
                "op #{} is `{}` ({}), the plan expected `{}` ({})",
                r.order,
                op.display_name(),
                op.op_type,
                r.label,
                r.op_type
            ));
        }
        Ok(id)
    };
    let mut before: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    let mut after: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
    let mut removed: HashSet<NodeId> = HashSet::new();
    for &(plan, fe) in edits {
        if plan.pads() {
            let rows = plan.padded_rows()?;
            let inputs = f
                .blocks
                .first()
                .map(|b| b.inputs.clone())
                .unwrap_or_default();
            let mut found = false;
            for id in inputs {
                if let Some(inp) = f.input_mut(id) {
                    if inp.name == plan.state {
                        inp.ty = ValueType::State(Box::new(ValueType::Tensor(plan.new_type())));
                        found = true;
                    }
                }
            }
            if !found {
                return Err(format!(
                    "function `{}` does not declare state `{}`",
                    fe.function, plan.state
                ));
            }
            for rn in &fe.renames {
                let id = resolve(&rn.op, f)?;
                let out = f
                    .op_mut(id)
                    .and_then(|o| o.outputs.first_mut())
                    .filter(|o| o.name == rn.from)
                    .ok_or_else(|| format!("`{}` has no output `{}`", rn.op.label, rn.from))?;
                out.name = rn.to.clone().into();
            }
            let ids: Vec<NodeId> = by_order.values().copied().collect();
            for id in ids {
                if let Some(op) = f.op_mut(id) {
                    for out in &mut op.outputs {
                        if fe.retype.iter().any(|r| *r == out.name) {
                            let t = out
                                .ty
                                .tensor()
                                .and_then(|t| with_rows(t, plan.axis, rows))
                                .ok_or_else(|| format!("cannot retype `{}`", out.name))?;
                            out.ty = ValueType::Tensor(t);
                        }
                    }
                }
            }
        }
        for rb in &fe.rebinds {
            let id = resolve(&rb.op, f)?;
            let op = f.op_mut(id).ok_or("internal: not an op")?;
            let arg = op
                .inputs
                .iter_mut()
                .find(|p| p.name == rb.param)
                .and_then(|p| p.args.get_mut(rb.position as usize))
                .ok_or_else(|| format!("`{}` has no `{}` binding", rb.op.label, rb.param))?;
            let matches = match (&*arg, &rb.from) {
                (Arg::Name(n), Some(from)) => n == from,
                (Arg::Value(_), None) => true,
                _ => false,
            };
            if !matches {
                return Err(format!(
                    "`{}.{}` is not bound as the plan expected",
                    rb.op.label, rb.param
                ));
            }
            *arg = Arg::Name(rb.to.clone().into());
        }
        for le in &fe.literals {
            let id = resolve(&le.op, f)?;
            let op = f.op_mut(id).ok_or("internal: not an op")?;
            let lit = match &le.site {
                LiteralSite::Attribute(a) => op
                    .attributes
                    .iter_mut()
                    .find(|(k, _)| k.as_str() == a)
                    .map(|(_, v)| v),
                LiteralSite::Argument { param, position } => op
                    .inputs
                    .iter_mut()
                    .find(|p| p.name == *param)
                    .and_then(|p| p.args.get_mut(*position as usize))
                    .and_then(|a| match a {
                        Arg::Value(v) => Some(&mut **v),
                        Arg::Name(_) => None,
                    }),
            }
            .ok_or_else(|| format!("`{}` has no literal {:?}", le.op.label, le.site))?;
            le.change.literal(lit).ok_or_else(|| {
                format!(
                    "the literal {:?} of `{}` cannot change",
                    le.site, le.op.label
                )
            })?;
        }
        for r in &fe.removes {
            removed.insert(resolve(r, f)?);
        }
        for ins in &fe.inserts {
            let (anchor, list) = match &ins.anchor {
                Anchor::After(r) => (resolve(r, f)?, &mut after),
                Anchor::Before(r) => (resolve(r, f)?, &mut before),
            };
            if f.op(anchor).map(|o| o.block) != Some(BODY) {
                return Err(format!("`{}` is not in the function body", ins.op.name));
            }
            let node = NodeId(f.graph.add_node(Node::Op(ir_op(&ins.op))));
            list.entry(anchor).or_default().push(node);
        }
    }
    let body = f
        .blocks
        .first_mut()
        .ok_or("internal: function has no body")?;
    let mut ops = Vec::with_capacity(body.ops.len());
    for &id in &body.ops {
        ops.extend(before.get(&id).into_iter().flatten().copied());
        if !removed.contains(&id) {
            ops.push(id);
        }
        ops.extend(after.get(&id).into_iter().flatten().copied());
    }
    body.ops = ops;
    Ok(())
}

/// The IR form of an inserted op.
pub(crate) fn ir_op(new: &NewOp) -> Op {
    Op {
        op_type: new.op_type.clone().into(),
        name: Some(
            new.op_name
                .clone()
                .unwrap_or_else(|| new.name.clone())
                .into(),
        ),
        inputs: new
            .inputs
            .iter()
            .map(|(p, v)| Param {
                name: p.clone().into(),
                args: vec![Arg::Name(v.clone().into())],
            })
            .collect(),
        outputs: vec![Output {
            name: new.name.clone().into(),
            ty: ValueType::Tensor(new.output.clone()),
        }],
        attributes: new
            .value
            .iter()
            .map(|v| ("val".to_string(), v.clone()))
            .collect(),
        blocks: Vec::new(),
        block: BODY,
        order: 0,
        span: Span::default(),
    }
}
