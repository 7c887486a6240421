//! The plan of `mask-nonfinite-const`'s fix: the reported constant (a `const`'s value, in the
//! program or in its weight-file record, or the op's inline float arguments) keeps every finite
//! fp16 element; −∞ and anything below −65504 becomes −1e4, +∞ and anything above 65504 becomes
//! +1e4, NaN becomes 0. A kept position is unchanged and a masked one still gives exp(·) = 0 in
//! fp16; only a row masked entirely changes (NaN becomes a uniform softmax), so the fix is unsafe.

use super::fix_plan::{Applicability, FunctionEdit, LiteralSite, OpRewrite, PadPlan, ValueChange};
use super::literal_sites::{edit_literal, records_not_shared, sites};
use crate::ir::{Function, Literal, Model, NodeId, Payload, TensorData};

/// Plans the finite sentinels of the op at `node`, or says why there is none.
pub fn plan_mask_sentinel(model: &Model, f: &Function, node: NodeId) -> Result<PadPlan, String> {
    let op = f.op(node).ok_or("not an op")?;
    let change = ValueChange::FiniteSentinels;
    let label = op.display_name().to_string();
    let chosen: Vec<LiteralSite> = sites(f)
        .into_iter()
        .filter(|(id, site, lit)| {
            *id == node
                && match site {
                    LiteralSite::Attribute(a) => op.op_type == "const" && a == "val",
                    LiteralSite::Argument { .. } => op.op_type != "const",
                }
                && lit
                    .ty
                    .tensor()
                    .is_some_and(|t| change.dtype(t.dtype).is_some())
                && changes(lit, change)
        })
        .map(|(_, site, _)| site)
        .collect();
    if chosen.is_empty() {
        return Err(format!("`{label}` holds no non-finite float literal"));
    }
    let mut fe = FunctionEdit {
        function: f.name.clone(),
        ..FunctionEdit::default()
    };
    let mut weights = Vec::new();
    for site in chosen {
        let (edit, weight) = edit_literal(model, f, node, site, change)?;
        fe.literals.push(edit);
        weights.extend(weight);
    }
    let listed: Vec<(String, _)> = fe
        .literals
        .iter()
        .map(|e| (f.name.clone(), e.clone()))
        .collect();
    records_not_shared(model, &weights, &listed)?;
    let place = if weights.is_empty() {
        "in the program"
    } else {
        "in its weight-file record"
    };
    let what = format!(
        "the non-finite values of `{label}` in `{}` as finite sentinels (−1e4 / +1e4, NaN → 0) {place}",
        f.name
    );
    Ok(PadPlan::op_fix(
        OpRewrite {
            function: f.name.clone(),
            op: label,
            what,
        },
        Applicability::Unsafe,
        vec![fe],
        weights,
    ))
}

/// Whether `change` alters an element of `lit`: immediate elements are tested; a file-backed value
/// is what the rule read and reported.
fn changes(lit: &Literal, change: ValueChange) -> bool {
    match &lit.payload {
        Payload::Blob(_) => true,
        Payload::Tensor(TensorData::Floats(v)) => v.iter().any(|&x| change.alters(x)),
        Payload::Tensor(TensorData::Bytes(b)) => {
            let mut copy = b.clone();
            lit.ty
                .tensor()
                .and_then(|t| change.bytes(t.dtype, &mut copy))
                .is_some_and(|n| n > 0)
        }
        _ => false,
    }
}
