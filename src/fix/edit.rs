//! Applies a [`PadPlan`] to an IR [`Program`] and re-renders it (the text write-back, and the
//! "after" side of `--diff`).

use std::collections::HashMap;
use std::path::Path;

use crate::ir::render::render_to_string;
use crate::ir::{Arg, Node, NodeId, Op, Output, Param, Program, Span, ValueType, BODY};
use crate::read::miltext::parse_program;

use super::plan::{with_rows, Anchor, NewOp, OpRef, PadPlan};

/// Applies `plan` to `program` and returns the program re-read from its rendered text (so its
/// graph, value map, op order and spans are consistent again), with that text.
pub fn apply_to_program(program: &Program, plan: &PadPlan) -> Result<(Program, String), String> {
    let mut p = program.clone();
    edit_program(&mut p, plan)?;
    let text = render_to_string(&p);
    let reread = parse_program(&text, Path::new("fixed model.mil"))
        .map_err(|e| format!("internal: the padded program does not re-read: {e}"))?;
    Ok((reread, text))
}

/// Edits `program` in place. The graph's edges, value map and op order are left stale: render it.
fn edit_program(program: &mut Program, plan: &PadPlan) -> Result<(), String> {
    let rows = plan.padded_rows()?;
    for fe in &plan.functions {
        let f = program
            .functions
            .iter_mut()
            .find(|f| f.name == fe.function)
            .ok_or_else(|| format!("function `{}` is not in the program", fe.function))?;
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
        let by_order: HashMap<u32, NodeId> = f.ops().map(|(id, o)| (o.order, id)).collect();
        let resolve = |r: &OpRef, f: &crate::ir::Function| -> Result<NodeId, String> {
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
        let ids: Vec<NodeId> = by_order.values().copied().collect();
        for id in ids {
            if let Some(op) = f.op_mut(id) {
                for out in &mut op.outputs {
                    if fe.retype.contains(&out.name) {
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
            *arg = Arg::Name(rb.to.clone());
        }
        let mut before: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
        let mut after: HashMap<NodeId, Vec<NodeId>> = HashMap::new();
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
        let body = f
            .blocks
            .first_mut()
            .ok_or("internal: function has no body")?;
        let mut ops = Vec::with_capacity(body.ops.len() + fe.inserts.len());
        for &id in &body.ops {
            ops.extend(before.get(&id).into_iter().flatten().copied());
            ops.push(id);
            ops.extend(after.get(&id).into_iter().flatten().copied());
        }
        body.ops = ops;
    }
    Ok(())
}

/// The IR form of an inserted op.
pub fn ir_op(new: &NewOp) -> Op {
    Op {
        op_type: new.op_type.clone(),
        name: Some(new.name.clone()),
        inputs: new
            .inputs
            .iter()
            .map(|(p, v)| Param {
                name: p.clone(),
                args: vec![Arg::Name(v.clone())],
            })
            .collect(),
        outputs: vec![Output {
            name: new.name.clone(),
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
