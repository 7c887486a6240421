//! The plan of the exact rewrite of `pow(x = 2, y)` into `exp(x = mul(x = y, y = ln 2))`
//! (FIELD-HAZARDS-3.md C1: Core ML's runtime computes the first as y²). `2^y = e^(y · ln 2)`, so the
//! rewrite changes no value; the `ln 2` constant takes the element type of `y` (fp16 or fp32), and
//! the `exp` keeps the `pow`'s output name and `name` attribute, so every reader and the function's
//! outputs are untouched. The constant base is removed when the `pow` was its only reader.

use super::fix_plan::PadPlan;
use super::fix_plan::{
    op_ref, Anchor, Applicability, FunctionEdit, Insert, Names, NewOp, OpRewrite,
};
use super::ConstEnv;
use crate::ir::{
    Arg, DType, Function, Literal, NodeId, Payload, TensorData, TensorType, ValueType,
};

/// Plans the rewrite of the `pow` at `node`, or says why there is none (the op is not a `pow` of a
/// constant base 2 everywhere, `y` is not a named value, or the output's type is not `y`'s: a base
/// tensor that broadcasts `y` to a larger shape).
pub fn plan_pow_base_two(f: &Function, consts: &ConstEnv, node: NodeId) -> Result<PadPlan, String> {
    let op = f.op(node).ok_or("not an op")?;
    if op.op_type != "pow" {
        return Err(format!("`{}` is not a pow", op.display_name()));
    }
    let base = consts
        .param(op, "x")
        .and_then(|c| c.data.numbers())
        .ok_or("the base is not a known constant")?;
    if base.is_empty() || base.iter().any(|&v| v != 2.0) {
        return Err("the base is not 2 everywhere".into());
    }
    let y = match op.param("y").and_then(|p| p.args.first()) {
        Some(Arg::Name(n)) => n.to_string(),
        _ => return Err("the exponent is not a named value".into()),
    };
    let y_type = f
        .value_type(&y)
        .and_then(ValueType::tensor)
        .ok_or("the exponent is not a tensor")?;
    let out = op.outputs.first().ok_or("the pow has no output")?;
    let out_type = out.ty.tensor().ok_or("the output is not a tensor")?;
    if out_type != y_type || y_type.known_dims().is_none() {
        return Err("the output's type is not the exponent's fixed type".into());
    }
    if !matches!(y_type.dtype, DType::Fp16 | DType::Fp32) {
        return Err(format!(
            "the exponent is {}, not fp16 or fp32",
            y_type.dtype
        ));
    }
    let label = op.display_name().to_string();
    let pow = op_ref(f, node).ok_or("internal: op vanished")?;
    let mut names = Names::of(f);
    let ln2 = names.fresh(&format!("{label}_ln2"));
    let scaled = names.fresh(&format!("{label}_y_ln2"));
    let scalar = TensorType::scalar(y_type.dtype);
    let before = |op: NewOp| Insert {
        anchor: Anchor::Before(pow.clone()),
        op,
    };
    let inserts = vec![
        before(NewOp {
            op_type: "const".into(),
            name: ln2.clone(),
            op_name: None,
            inputs: Vec::new(),
            output: scalar.clone(),
            value: Some(Literal {
                ty: ValueType::Tensor(scalar),
                payload: Payload::Tensor(TensorData::Floats(vec![ln2_in(y_type.dtype)])),
            }),
        }),
        before(NewOp {
            op_type: "mul".into(),
            name: scaled.clone(),
            op_name: None,
            inputs: vec![("x".into(), y.clone()), ("y".into(), ln2)],
            output: y_type.clone(),
            value: None,
        }),
        before(NewOp {
            op_type: "exp".into(),
            name: out.name.to_string(),
            op_name: (label != *out.name).then(|| label.clone()),
            inputs: vec![("x".into(), scaled)],
            output: out_type.clone(),
            value: None,
        }),
    ];
    let mut removes = vec![pow];
    // The constant base goes too when nothing else reads it.
    if let Some(Arg::Name(x)) = op.param("x").and_then(|p| p.args.first()) {
        if let Some(def) = f.def(x) {
            let only_pow = f.consumers(def.node).iter().all(|(c, _)| *c == node);
            let is_const = f.op(def.node).is_some_and(|d| d.op_type == "const");
            let returned = f.outputs().iter().any(|o| o == x);
            if only_pow && is_const && !returned {
                removes.push(op_ref(f, def.node).ok_or("internal: op vanished")?);
            }
        }
    }
    let what = format!(
        "`{label}` as exp(mul(`{y}`, ln 2)) in `{}` ({} ln 2)",
        f.name, y_type.dtype
    );
    Ok(PadPlan::op_fix(
        OpRewrite {
            function: f.name.clone(),
            op: label,
            what,
        },
        Applicability::Safe,
        vec![FunctionEdit {
            function: f.name.clone(),
            inserts,
            removes,
            ..FunctionEdit::default()
        }],
        Vec::new(),
    ))
}

/// ln 2 rounded to `dtype` (fp16 or fp32), as the written file holds it.
fn ln2_in(dtype: DType) -> f64 {
    let ln2 = std::f64::consts::LN_2;
    match dtype {
        DType::Fp16 => half::f16::from_f64(ln2).to_f64(),
        _ => f64::from(ln2 as f32),
    }
}
