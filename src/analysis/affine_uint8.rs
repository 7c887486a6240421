//! The plan of `affine-dequantize-int8`'s fix: every `constexpr_affine_dequantize` of the model
//! whose `quantized_data` is int8 gets uint8 data and zero point, 128 added to each element of
//! both. `scale · (q − zp)` is unchanged for every element (−128 becomes 0), so the dequantized
//! weights are bit-identical. File-backed data changes in place in its weight-file record (same
//! size, storage type int8 → uint8); immediate data and zero points change in the program. One plan
//! for the whole model: the rule reports each function once, and functions may share records.

use super::fix_plan::{Applicability, FunctionEdit, LiteralSite, OpRewrite, PadPlan, ValueChange};
use super::literal_sites::{edit_literal, literal_at, records_not_shared};
use crate::ir::{Arg, DType, Function, Model, NodeId};

/// The re-encoding of every signed-int8 affine weight of `model` (`f` and `node` name the
/// finding's op, which must be one of them), or why there is none.
pub fn plan_affine_uint8(model: &Model, f: &Function, node: NodeId) -> Result<PadPlan, String> {
    if !is_int8_affine(f, node) {
        return Err("the op is not a constexpr_affine_dequantize of int8 data".into());
    }
    let change = ValueChange::Int8ToUint8;
    let mut functions = Vec::new();
    let mut weights = Vec::new();
    let mut listed = Vec::new();
    let mut first = None;
    let mut count = 0usize;
    for g in &model.program.functions {
        let mut ops: Vec<(NodeId, u32)> = g
            .ops()
            .filter(|(id, _)| is_int8_affine(g, *id))
            .map(|(id, o)| (id, o.order))
            .collect();
        ops.sort_by_key(|(_, order)| *order);
        let mut fe = FunctionEdit {
            function: g.name.clone(),
            ..FunctionEdit::default()
        };
        for &(id, _) in &ops {
            let label = g.op(id).map_or("?", |o| o.display_name()).to_string();
            first.get_or_insert_with(|| (g.name.clone(), label.clone()));
            count += 1;
            for param in ["quantized_data", "zero_point"] {
                let site = site_of(g, id, param)
                    .ok_or_else(|| format!("`{label}`'s {param} is not a literal of the op"))?;
                let (edit, weight) = edit_literal(model, g, id, site, change)?;
                listed.push((g.name.clone(), edit.clone()));
                fe.literals.push(edit);
                weights.extend(weight);
            }
        }
        if !fe.literals.is_empty() {
            functions.push(fe);
        }
    }
    records_not_shared(model, &weights, &listed)?;
    weights.sort_by(|a, b| (&a.file, a.offset).cmp(&(&b.file, b.offset)));
    weights.dedup();
    let (function, op) = first.ok_or("no int8 affine weight")?;
    let what = format!(
        "{count} signed-int8 constexpr_affine_dequantize weight(s) as uint8 (data and zero point + 128, the same dequantized values; {} weight-file record(s) in place)",
        weights.len()
    );
    Ok(PadPlan::op_fix(
        OpRewrite { function, op, what },
        Applicability::Safe,
        functions,
        weights,
    ))
}

/// `constexpr_affine_dequantize` with int8 `quantized_data` (attribute or inline argument).
fn is_int8_affine(f: &Function, node: NodeId) -> bool {
    f.op(node)
        .is_some_and(|o| o.op_type == "constexpr_affine_dequantize")
        && site_of(f, node, "quantized_data")
            .and_then(|s| literal_at(f, node, &s))
            .and_then(|l| l.ty.tensor())
            .is_some_and(|t| t.dtype == DType::Int8)
}

/// Where the op holds `param`: an attribute (what coremltools writes) or an inline argument.
fn site_of(f: &Function, node: NodeId, param: &str) -> Option<LiteralSite> {
    let op = f.op(node)?;
    if op.attributes.get(param).is_some() {
        return Some(LiteralSite::Attribute(param.into()));
    }
    match op.param(param)?.args.first()? {
        Arg::Value(_) => Some(LiteralSite::Argument {
            param: param.into(),
            position: 0,
        }),
        Arg::Name(_) => None,
    }
}
