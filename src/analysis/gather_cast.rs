//! The plan of `gather-float-indices`' fix: one `cast(dtype = "int32")` of the float indices,
//! inserted before the first gather that reads them, and every gather that reads them as `indices`
//! rebound to the cast. Exact when the indices are whole numbers, which a gather needs of them
//! anyway: the plan is refused when the indices may be fractional (they come from a fractional
//! constant, or from an op such as `real_div` or `sqrt` that yields fractions).

use rustc_hash::FxHashSet;

use super::fix_plan::{
    op_ref, Anchor, Applicability, FunctionEdit, Insert, Names, NewOp, OpRewrite, PadPlan, Rebind,
};
use super::{ConstEnv, ConstValue};
use crate::ir::{
    Arg, DType, Function, Literal, Node, NodeId, Payload, TensorData, TensorType, ValueType, BODY,
};

/// The ops whose `indices` the fix casts.
const GATHERS: &[&str] = &["gather", "gather_along_axis", "gather_nd"];

/// Plans the cast of the float `indices` of the gather at `node`, or says why there is none.
pub fn plan_cast_gather_indices(
    f: &Function,
    consts: &ConstEnv,
    node: NodeId,
) -> Result<PadPlan, String> {
    let op = f.op(node).ok_or("not an op")?;
    if !GATHERS.contains(&op.op_type.as_str()) {
        return Err(format!("`{}` is not a gather", op.display_name()));
    }
    let idx = match op.param("indices").and_then(|p| p.args.first()) {
        Some(Arg::Name(n)) => n.to_string(),
        _ => return Err("the indices are not a named value".into()),
    };
    let ty = f
        .value_type(&idx)
        .and_then(ValueType::tensor)
        .filter(|t| t.dtype.is_float() && t.shape.is_some())
        .ok_or("the indices are not a float tensor of known rank")?
        .clone();
    whole_numbers(f, consts, &idx, &mut FxHashSet::default(), 0)?;
    let def = f.def(&idx).ok_or("the indices have no definition")?;
    let mut readers: Vec<(NodeId, u32)> = f
        .consumers(def.node)
        .into_iter()
        .filter(|(c, e)| {
            e.output == def.output
                && e.param == "indices"
                && f.op(*c)
                    .is_some_and(|o| GATHERS.contains(&o.op_type.as_str()))
        })
        .map(|(c, e)| (c, e.position))
        .collect();
    readers.sort_by_key(|(c, _)| f.op(*c).map(|o| o.order));
    readers.dedup();
    if readers
        .iter()
        .any(|(c, _)| f.op(*c).is_none_or(|o| o.block != BODY))
    {
        return Err("a gather that reads the indices is inside a nested block".into());
    }
    let first = readers.first().ok_or("no gather reads the indices")?.0;
    let anchor = op_ref(f, first).ok_or("internal: op vanished")?;
    let mut names = Names::of(f);
    let dtype_name = names.fresh(&format!("{idx}_dtype_int32"));
    let cast = names.fresh(&format!("{idx}_to_int32"));
    let string = TensorType::scalar(DType::String);
    let before = |op: NewOp| Insert {
        anchor: Anchor::Before(anchor.clone()),
        op,
    };
    let inserts = vec![
        before(NewOp {
            op_type: "const".into(),
            name: dtype_name.clone(),
            op_name: None,
            inputs: Vec::new(),
            output: string.clone(),
            value: Some(Literal {
                ty: ValueType::Tensor(string),
                payload: Payload::Tensor(TensorData::Strings(vec!["int32".into()])),
            }),
        }),
        before(NewOp {
            op_type: "cast".into(),
            name: cast.clone(),
            op_name: None,
            inputs: vec![("dtype".into(), dtype_name), ("x".into(), idx.clone())],
            output: TensorType {
                dtype: DType::Int32,
                shape: ty.shape.clone(),
            },
            value: None,
        }),
    ];
    let rebinds = readers
        .iter()
        .map(|&(c, position)| {
            Ok(Rebind {
                op: op_ref(f, c).ok_or("internal: op vanished")?,
                param: "indices".into(),
                position,
                from: Some(idx.clone()),
                to: cast.clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let label = op.display_name().to_string();
    let what = format!(
        "the {} indices `{idx}` as int32 through one cast `{cast}`, read by {} gather(s) in `{}`",
        ty.dtype,
        rebinds.len(),
        f.name
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
            rebinds,
            ..FunctionEdit::default()
        }],
        Vec::new(),
    ))
}

/// Deepest chain of definitions followed back from the indices.
const MAX_DEPTH: usize = 64;

/// `Ok` when every element of `value` is a whole number for valid inputs (a function input used as
/// indices is, as the value range assumes); `Err` says where a fraction may come from.
fn whole_numbers(
    f: &Function,
    consts: &ConstEnv,
    value: &str,
    seen: &mut FxHashSet<String>,
    depth: usize,
) -> Result<(), String> {
    if !seen.insert(value.to_string()) {
        return Ok(());
    }
    if let Some(c) = consts.get(value) {
        return whole_constant(value, c);
    }
    if depth > MAX_DEPTH {
        return Err(format!("`{value}` is computed too far back to follow"));
    }
    let def = f
        .def(value)
        .ok_or_else(|| format!("`{value}` is not defined"))?;
    let op = match f.node(def.node) {
        Some(Node::Input(_)) => return Ok(()),
        Some(Node::Op(op)) => op,
        None => return Err(format!("`{value}` is not defined")),
    };
    let from = |params: &[&str], seen: &mut FxHashSet<String>| -> Result<(), String> {
        for p in params {
            for a in op.param(p).map(|p| p.args.as_slice()).unwrap_or_default() {
                match a {
                    Arg::Name(n) => whole_numbers(f, consts, n, seen, depth + 1)?,
                    Arg::Value(lit) => match ConstValue::from_literal(lit) {
                        Some(c) => whole_constant(value, &c)?,
                        None => return Err(format!("`{value}` reads a literal of unknown value")),
                    },
                }
            }
        }
        Ok(())
    };
    let source_is_int = || {
        op.arg_name("x")
            .and_then(|x| f.value_type(x))
            .and_then(ValueType::tensor)
            .is_some_and(|t| t.dtype.is_int() || t.dtype == DType::Bool)
    };
    match op.op_type.as_str() {
        "floor" | "ceil" | "round" | "shape" | "reduce_argmax" | "reduce_argmin" | "argsort" => {
            Ok(())
        }
        "cast" if source_is_int() => Ok(()),
        "cast" | "reshape" | "expand_dims" | "squeeze" | "transpose" | "slice_by_index"
        | "slice_by_size" | "identity" | "tile" | "split" | "reverse" | "abs" | "sign"
        | "gather" | "gather_along_axis" | "gather_nd" => from(&["x"], seen),
        "concat" | "stack" => from(&["values"], seen),
        "select" => from(&["a", "b"], seen),
        "add" | "sub" | "mul" | "maximum" | "minimum" | "floor_div" | "mod" => {
            from(&["x", "y"], seen)
        }
        "clip" => from(&["x", "alpha", "beta"], seen),
        "fill" | "fill_like" => from(&["value"], seen),
        "range_1d" => from(&["start", "step"], seen),
        other => Err(format!(
            "`{value}` comes from `{}` ({other}), which may give fractional values",
            op.display_name()
        )),
    }
}

fn whole_constant(value: &str, c: &ConstValue) -> Result<(), String> {
    match c.data.numbers() {
        Some(v) if v.iter().all(|x| x.is_finite() && x.fract() == 0.0) => Ok(()),
        Some(_) => Err(format!(
            "`{value}` holds fractional or non-finite constants"
        )),
        None => Err(format!("the value of `{value}` is not known")),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::analysis::analyze;
    use crate::read::miltext::parse_program;

    /// The plan for the first gather of a function whose body is `body` (`pos` fp16, `ids` int32).
    fn plan(body: &str) -> Result<PadPlan, String> {
        let text = format!(
            "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [8]> pos, tensor<int32, [8]> ids) {{\n            tensor<fp16, [64, 4]> table = const()[name = string(\"table\"), val = tensor<fp16, [64, 4]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            int32 ax = const()[name = string(\"ax\"), val = int32(0)];\n{body}\n        }} -> (y);\n}}\n"
        );
        let p = parse_program(&text, Path::new("t.mil")).expect("parses");
        let f = &p.functions[0];
        let (id, _) = f
            .ops()
            .find(|(_, o)| o.op_type == "gather")
            .expect("a gather");
        plan_cast_gather_indices(f, &analyze(f).consts, id)
    }

    fn gather(indices: &str) -> String {
        format!("            tensor<fp16, [8, 4]> y = gather(axis = ax, indices = {indices}, x = table)[name = string(\"y\")];")
    }

    #[test]
    fn whole_indices_get_one_cast() {
        for body in [
            gather("pos"),
            format!("            tensor<fp16, [8]> p = cast(dtype = string(\"fp16\"), x = ids)[name = string(\"p\")];\n{}", gather("p")),
            format!("            tensor<fp16, [8]> p = add(x = pos, y = fp16(3))[name = string(\"p\")];\n{}", gather("p")),
            format!("            tensor<fp16, [8]> p = floor(x = pos)[name = string(\"p\")];\n{}", gather("p")),
        ] {
            let p = plan(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
            let fe = &p.functions[0];
            assert_eq!(fe.inserts.len(), 2, "a dtype const and the cast");
            assert_eq!(fe.inserts[1].op.op_type, "cast");
            assert_eq!(fe.inserts[1].op.output.dtype, DType::Int32);
            assert_eq!(fe.rebinds.len(), 1);
            assert_eq!(p.applicability, Applicability::Safe);
        }
    }

    #[test]
    fn indices_that_may_be_fractional_are_refused() {
        for (body, why) in [
            (
                format!("            tensor<fp16, [8]> p = real_div(x = pos, y = fp16(2))[name = string(\"p\")];\n{}", gather("p")),
                "real_div",
            ),
            (
                format!("            tensor<fp16, [8]> p = add(x = pos, y = fp16(0.5))[name = string(\"p\")];\n{}", gather("p")),
                "fractional",
            ),
            (
                format!("            tensor<fp16, [8]> p = sqrt(x = pos)[name = string(\"p\")];\n{}", gather("p")),
                "sqrt",
            ),
        ] {
            let e = plan(&body).expect_err(&body);
            assert!(e.contains(why), "{e}");
        }
    }
}
