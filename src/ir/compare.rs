//! Structural comparison of two programs: same functions, ops, bindings and types (spans ignored).

use super::graph::{Function, Node};
use super::render::text_opset;
use super::Program;

/// The first difference between `a` and `b`, or `Ok(())` when they are the same graph.
pub fn same_program(a: &Program, b: &Program) -> Result<(), String> {
    let names = |p: &Program| {
        p.functions
            .iter()
            .map(|f| f.name.clone())
            .collect::<Vec<_>>()
    };
    if names(a) != names(b) {
        return Err(format!(
            "functions differ: {:?} vs {:?}",
            names(a),
            names(b)
        ));
    }
    for (fa, fb) in a.functions.iter().zip(&b.functions) {
        same_function(fa, fb).map_err(|e| format!("function `{}`: {e}", fa.name))?;
    }
    Ok(())
}

/// The first difference between two functions.
pub(crate) fn same_function(a: &Function, b: &Function) -> Result<(), String> {
    if text_opset(&a.opset) != text_opset(&b.opset) {
        return Err(format!("opset {} vs {}", a.opset, b.opset));
    }
    let inputs = |f: &Function| {
        f.inputs()
            .map(|(_, i)| (i.name.clone(), i.ty.clone()))
            .collect::<Vec<_>>()
    };
    if inputs(a) != inputs(b) {
        return Err(format!("inputs differ: {:?} vs {:?}", inputs(a), inputs(b)));
    }
    if a.outputs() != b.outputs() {
        return Err(format!(
            "outputs differ: {:?} vs {:?}",
            a.outputs(),
            b.outputs()
        ));
    }
    let ops_a: Vec<_> = a.ops().collect();
    let ops_b: Vec<_> = b.ops().collect();
    if ops_a.len() != ops_b.len() {
        return Err(format!("{} ops vs {}", ops_a.len(), ops_b.len()));
    }
    for ((ia, oa), (ib, ob)) in ops_a.iter().zip(&ops_b) {
        let ctx = |what: &str| format!("op #{} `{}`: {what} differ", oa.order, oa.display_name());
        if oa.op_type != ob.op_type || oa.name != ob.name {
            return Err(ctx("type or name"));
        }
        if oa.outputs != ob.outputs {
            return Err(ctx("outputs"));
        }
        if oa.inputs != ob.inputs {
            return Err(ctx("inputs"));
        }
        if oa.attributes != ob.attributes {
            return Err(ctx("attributes"));
        }
        if oa.blocks.len() != ob.blocks.len() {
            return Err(ctx("nested blocks"));
        }
        let producers = |f: &Function, id| {
            f.producers(id)
                .into_iter()
                .map(|(n, e)| {
                    let who = match f.node(n) {
                        Some(Node::Op(o)) => o.order.to_string(),
                        Some(Node::Input(i)) => i.name.to_string(),
                        None => String::new(),
                    };
                    (who, e.clone())
                })
                .collect::<Vec<_>>()
        };
        if producers(a, *ia) != producers(b, *ib) {
            return Err(ctx("bindings"));
        }
    }
    Ok(())
}
