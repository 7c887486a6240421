//! The plan of the exact rewrites of FIELD-HAZARDS-4.md G1 (`ane-fp16-exp-overflow`): the naive
//! exp-log forms coremltools writes, which overflow in fp16 on the Neural Engine, into their
//! shifted forms, equal in real arithmetic:
//!
//! - `softplus(x)` → `relu(x) + log(exp(−|x|), epsilon = 1)` (MIL's `log` adds its `epsilon`: this
//!   is log(1 + exp(−|x|)), and a Mish's `tanh` reads the result as before);
//! - `reduce_log_sum_exp(x, axes, keep_dims)` → `m' + log(Σ exp(x − m))`, with `m =
//!   reduce_max(x, axes, keep_dims = true)` and `m'` the same maximum with the op's `keep_dims`;
//! - `softmax(x, axis)` read by `log` → `(x − m) − log(Σ exp(x − m))` over `axis`, with `m =
//!   reduce_max(x, [axis], keep_dims = true)`, in place of the `log` (the softmax stays for its
//!   other readers, and goes when the log was its only one).
//!
//! Every new op is in the rewritten op's element type (fp16 or fp32), the last keeps the output
//! name and `name` attribute of the op it replaces, so every reader and the function's outputs are
//! untouched. Where the original is finite the results differ only by rounding; where it overflowed
//! (exp of more than 11.09 in fp16) every intermediate of the rewrite stays in range: exp's input
//! is at most 0.

use super::consteval::ConstEnv;
use super::fix_plan::{
    bool_scalar_const, float_scalar_const, int_const, op_ref, Anchor, Applicability, FunctionEdit,
    Insert, Names, NewOp, OpRef, OpRewrite, PadPlan,
};
use crate::ir::{Arg, DType, Dim, Function, NodeId, Op, TensorType, ValueType};

/// Plans the rewrite of the op at `node` (a `softplus`, a `reduce_log_sum_exp`, or a `softmax`
/// read by a `log`), or says why there is none.
pub fn plan_stable_exp_log(
    f: &Function,
    consts: &ConstEnv,
    node: NodeId,
) -> Result<PadPlan, String> {
    let op = f.op(node).ok_or("not an op")?;
    match &*op.op_type {
        "softplus" => softplus(f, op, node),
        "reduce_log_sum_exp" => log_sum_exp(f, consts, op, node),
        "softmax" => log_softmax(f, consts, op, node),
        other => Err(format!(
            "`{}` is a {other}: only softplus, reduce_log_sum_exp and softmax → log have an exact shifted form",
            op.display_name()
        )),
    }
}

/// The op's `x`: a named tensor of a fixed fp16 or fp32 type.
fn input_of(f: &Function, op: &Op) -> Result<(String, TensorType), String> {
    let x = match op.arg("x") {
        Some(Arg::Name(n)) => n.to_string(),
        _ => return Err("its input is not a named value".into()),
    };
    let ty = f
        .value_type(&x)
        .and_then(ValueType::tensor)
        .filter(|t| t.known_dims().is_some())
        .ok_or("its input's shape is not fixed")?;
    if !matches!(ty.dtype, DType::Fp16 | DType::Fp32) {
        return Err(format!("its input is {}, not fp16 or fp32", ty.dtype));
    }
    Ok((x, ty.clone()))
}

/// The op's single output (name, type).
fn output_of(op: &Op) -> Result<(String, TensorType), String> {
    let out = op.outputs.first().ok_or("the op has no output")?;
    let ty = out.ty.tensor().ok_or("its output is not a tensor")?;
    Ok((out.name.to_string(), ty.clone()))
}

/// Builds the new ops of one rewrite, all inserted before one op, named after one label.
struct Chain {
    anchor: OpRef,
    /// The replaced op whose output name and `name` the last new op takes.
    label: String,
    /// The op the finding is at (the softmax of a log_softmax, else the replaced op).
    reported: String,
    names: Names,
    inserts: Vec<Insert>,
}

impl Chain {
    fn new(f: &Function, anchor: NodeId, label: &str, reported: &str) -> Result<Chain, String> {
        Ok(Chain {
            anchor: op_ref(f, anchor).ok_or("internal: op vanished")?,
            label: label.to_string(),
            reported: reported.to_string(),
            names: Names::of(f),
            inserts: Vec::new(),
        })
    }

    fn push(&mut self, op: NewOp) -> String {
        let name = op.name.clone();
        self.inserts.push(Insert {
            anchor: Anchor::Before(self.anchor.clone()),
            op,
        });
        name
    }

    fn fresh(&mut self, suffix: &str) -> String {
        self.names.fresh(&format!("{}_{suffix}", self.label))
    }

    fn scalar(&mut self, suffix: &str, dtype: DType, v: f64) -> String {
        let name = self.fresh(suffix);
        self.push(float_scalar_const(name, dtype, v))
    }

    fn ints(&mut self, suffix: &str, v: Vec<i64>) -> String {
        let name = self.fresh(suffix);
        self.push(int_const(name, v))
    }

    fn flag(&mut self, suffix: &str, v: bool) -> String {
        let name = self.fresh(suffix);
        self.push(bool_scalar_const(name, v))
    }

    /// An op with a fresh name.
    fn op(
        &mut self,
        suffix: &str,
        op_type: &str,
        inputs: &[(&str, &str)],
        ty: &TensorType,
    ) -> String {
        let name = self.fresh(suffix);
        self.push(new_op(op_type, name, None, inputs, ty))
    }

    /// The last op: it takes the replaced op's output name and `name` attribute.
    fn last(&mut self, op_type: &str, out: &str, inputs: &[(&str, &str)], ty: &TensorType) {
        let op_name = (self.label != out).then(|| self.label.clone());
        self.push(new_op(op_type, out.to_string(), op_name, inputs, ty));
    }

    /// The plan: the new ops, the replaced ops removed (`removed`), with the `const`s only they read.
    fn plan(self, f: &Function, removed: &[NodeId], what: String) -> Result<PadPlan, String> {
        let mut gone: Vec<NodeId> = removed.to_vec();
        for &node in removed {
            for (p, _) in f.producers(node) {
                let is_const = f.op(p).is_some_and(|o| o.op_type == "const");
                let only_removed = f.consumers(p).iter().all(|(c, _)| gone.contains(c));
                let returned = f.op(p).is_some_and(|o| {
                    o.outputs
                        .iter()
                        .any(|out| f.outputs().iter().any(|r| **r == *out.name))
                });
                if is_const && only_removed && !returned && !gone.contains(&p) {
                    gone.push(p);
                }
            }
        }
        let removes = gone
            .iter()
            .map(|&n| op_ref(f, n).ok_or_else(|| "internal: op vanished".to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self.finish(f, removes, what))
    }

    fn finish(self, f: &Function, removes: Vec<OpRef>, what: String) -> PadPlan {
        PadPlan::op_fix(
            OpRewrite {
                function: f.name.clone(),
                op: self.reported,
                what,
            },
            Applicability::Safe,
            vec![FunctionEdit {
                function: f.name.clone(),
                inserts: self.inserts,
                removes,
                ..FunctionEdit::default()
            }],
            Vec::new(),
        )
    }
}

fn new_op(
    op_type: &str,
    name: String,
    op_name: Option<String>,
    inputs: &[(&str, &str)],
    ty: &TensorType,
) -> NewOp {
    let mut inputs: Vec<(String, String)> = inputs
        .iter()
        .map(|(p, v)| ((*p).to_string(), (*v).to_string()))
        .collect();
    inputs.sort();
    NewOp {
        op_type: op_type.into(),
        name,
        op_name,
        inputs,
        output: ty.clone(),
        value: None,
    }
}

/// softplus(x) = relu(x) + log(exp(−|x|), epsilon = 1).
fn softplus(f: &Function, op: &Op, node: NodeId) -> Result<PadPlan, String> {
    let (x, ty) = input_of(f, op)?;
    let (out, out_ty) = output_of(op)?;
    if out_ty != ty {
        return Err("its output's type is not its input's".into());
    }
    let label = op.display_name().to_string();
    let mut c = Chain::new(f, node, &label, &label)?;
    let relu = c.op("relu", "relu", &[("x", &x)], &ty);
    let abs = c.op("abs", "abs", &[("x", &x)], &ty);
    let minus_one = c.scalar("minus_one", ty.dtype, -1.0);
    let neg = c.op("neg_abs", "mul", &[("x", &abs), ("y", &minus_one)], &ty);
    let exp = c.op("exp", "exp", &[("x", &neg)], &ty);
    let one = c.scalar("one", ty.dtype, 1.0);
    let log = c.op("log1p", "log", &[("epsilon", &one), ("x", &exp)], &ty);
    c.last("add", &out, &[("x", &relu), ("y", &log)], &ty);
    let what = format!(
        "`{label}` as relu(`{x}`) + log(1 + exp(−|`{x}`|)) in `{}` ({})",
        f.name, ty.dtype
    );
    c.plan(f, &[node], what)
}

/// The axes `axes` resolves to on a value of rank `rank` (`None`: every axis), non-negative.
fn resolve_axes(axes: Option<Vec<i64>>, rank: usize) -> Result<Vec<usize>, String> {
    let r = i64::try_from(rank).map_err(|_| "rank too large")?;
    let mut out: Vec<usize> = match axes {
        None => (0..rank).collect(),
        Some(v) => v
            .into_iter()
            .map(|a| {
                let a = if a < 0 { a + r } else { a };
                usize::try_from(a)
                    .ok()
                    .filter(|&a| a < rank)
                    .ok_or_else(|| format!("axis {a} is outside rank {rank}"))
            })
            .collect::<Result<_, _>>()?,
    };
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// `ty` reduced over `axes`, keeping them as 1s or dropping them.
fn reduced(ty: &TensorType, axes: &[usize], keep: bool) -> TensorType {
    let dims = ty.shape.as_deref().unwrap_or_default();
    let shape = dims
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match (axes.contains(&i), keep) {
            (false, _) => Some(*d),
            (true, true) => Some(Dim::Known(1)),
            (true, false) => None,
        })
        .collect();
    TensorType {
        dtype: ty.dtype,
        shape: Some(shape),
    }
}

/// `m = reduce_max(x, axes, keep_dims = true)`, `d = x − m`, `s = Σ exp(d)` (keep_dims as `keep`),
/// `l = log(s)`: the names of `m`, `d`, `l` and of the `axes` constant.
fn shifted_log_sum(
    c: &mut Chain,
    x: &str,
    ty: &TensorType,
    axes: &[usize],
    keep: bool,
) -> Result<(String, String, String, String), String> {
    let axes_i64: Vec<i64> = axes
        .iter()
        .map(|&a| i64::try_from(a).map_err(|_| "axis too large".to_string()))
        .collect::<Result<_, _>>()?;
    let axes_name = c.ints("axes", axes_i64);
    let keep_true = c.flag("keep_dims", true);
    let kept = reduced(ty, axes, true);
    let m = c.op(
        "max",
        "reduce_max",
        &[("axes", &axes_name), ("keep_dims", &keep_true), ("x", x)],
        &kept,
    );
    let d = c.op("shifted", "sub", &[("x", x), ("y", &m)], ty);
    let e = c.op("exp", "exp", &[("x", &d)], ty);
    let keep_name = if keep {
        keep_true
    } else {
        c.flag("keep_dims_out", false)
    };
    let summed = reduced(ty, axes, keep);
    let s = c.op(
        "sum",
        "reduce_sum",
        &[("axes", &axes_name), ("keep_dims", &keep_name), ("x", &e)],
        &summed,
    );
    let l = c.op("log_sum", "log", &[("x", &s)], &summed);
    Ok((m, d, l, axes_name))
}

/// logsumexp(x) = m' + log Σ exp(x − m).
fn log_sum_exp(f: &Function, consts: &ConstEnv, op: &Op, node: NodeId) -> Result<PadPlan, String> {
    let (x, ty) = input_of(f, op)?;
    let (out, out_ty) = output_of(op)?;
    let rank = ty.shape.as_ref().map_or(0, Vec::len);
    let axes = match op.param("axes") {
        None => None,
        Some(_) => Some(
            consts
                .param(op, "axes")
                .and_then(|c| c.data.ints())
                .ok_or("its axes are not known constants")?,
        ),
    };
    let axes = resolve_axes(axes, rank)?;
    let keep = match op.param("keep_dims") {
        None => false,
        Some(_) => {
            consts
                .param(op, "keep_dims")
                .and_then(|c| c.data.ints())
                .and_then(|v| v.first().copied())
                .ok_or("its keep_dims is not a known constant")?
                != 0
        }
    };
    if reduced(&ty, &axes, keep) != out_ty {
        return Err("its output's type is not its input reduced over its axes".into());
    }
    let label = op.display_name().to_string();
    let mut c = Chain::new(f, node, &label, &label)?;
    let (m, _, l, axes_name) = shifted_log_sum(&mut c, &x, &ty, &axes, keep)?;
    let m_out = if keep {
        m
    } else {
        let no = c.flag("keep_dims_max", false);
        c.op(
            "max_out",
            "reduce_max",
            &[("axes", &axes_name), ("keep_dims", &no), ("x", &x)],
            &out_ty,
        )
    };
    c.last("add", &out, &[("x", &m_out), ("y", &l)], &out_ty);
    let what = format!(
        "`{label}` as m + log Σ exp(`{x}` − m), m = reduce_max(`{x}`), in `{}` ({})",
        f.name, ty.dtype
    );
    c.plan(f, &[node], what)
}

/// log(softmax(x)) = (x − m) − log Σ exp(x − m), in place of the `log`.
fn log_softmax(f: &Function, consts: &ConstEnv, op: &Op, node: NodeId) -> Result<PadPlan, String> {
    let (x, ty) = input_of(f, op)?;
    let (soft_out, _) = output_of(op)?;
    let logs: Vec<NodeId> = f
        .consumers(node)
        .into_iter()
        .filter(|(c, _)| f.op(*c).is_some_and(|o| o.op_type == "log"))
        .map(|(c, _)| c)
        .collect();
    let [log_node] = logs.as_slice() else {
        return Err("no single `log` reads the softmax".into());
    };
    let log = f.op(*log_node).ok_or("internal: op vanished")?;
    let (out, out_ty) = output_of(log)?;
    if out_ty != ty {
        return Err("the log's type is not the softmax input's".into());
    }
    let rank = ty.shape.as_ref().map_or(0, Vec::len);
    let axis = match op.param("axis") {
        None => -1,
        Some(_) => consts
            .param(op, "axis")
            .and_then(|c| c.data.ints())
            .and_then(|v| v.first().copied())
            .ok_or("its axis is not a known constant")?,
    };
    let axes = resolve_axes(Some(vec![axis]), rank)?;
    let label = log.display_name().to_string();
    let mut c = Chain::new(f, *log_node, &label, op.display_name())?;
    let (_, d, l, _) = shifted_log_sum(&mut c, &x, &ty, &axes, true)?;
    c.last("sub", &out, &[("x", &d), ("y", &l)], &out_ty);
    let mut removed = vec![*log_node];
    // The softmax goes too when the log was its only reader.
    let only_log = f.consumers(node).iter().all(|(c, _)| c == log_node);
    let returned = f.outputs().iter().any(|o| **o == *soft_out);
    if only_log && !returned {
        removed.push(node);
    }
    let what = format!(
        "log(softmax(`{x}`)) (`{}` → `{label}`) as (`{x}` − m) − log Σ exp(`{x}` − m), m = reduce_max(`{x}`), in `{}` ({})",
        op.display_name(),
        f.name,
        ty.dtype
    );
    c.plan(f, &removed, what)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::analysis::analyze;
    use crate::read::miltext::parse_program;

    /// The plan for the first op of type `op_type` of a function of `x: fp16 [2, 8]` whose body is
    /// `body`, returning `y`.
    fn plan(body: &str, op_type: &str) -> Result<PadPlan, String> {
        let text = format!(
            "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [2, 8]> x) {{\n{body}\n        }} -> (y);\n}}\n"
        );
        let p = parse_program(&text, Path::new("t.mil")).expect("parses");
        let f = &p.functions[0];
        let (id, _) = f.ops().find(|(_, o)| o.op_type == op_type).expect("the op");
        plan_stable_exp_log(f, &analyze(f).consts, id)
    }

    fn types(p: &PadPlan) -> Vec<&str> {
        p.functions[0]
            .inserts
            .iter()
            .map(|i| i.op.op_type.as_str())
            .collect()
    }

    fn removed(p: &PadPlan) -> Vec<&str> {
        p.functions[0]
            .removes
            .iter()
            .map(|r| r.label.as_str())
            .collect()
    }

    #[test]
    fn softplus_becomes_relu_plus_log1p_of_exp_of_minus_abs_in_its_dtype() {
        let p = plan(
            "            tensor<fp16, [2, 8]> y = softplus(x = x)[name = string(\"sp\")];",
            "softplus",
        )
        .unwrap();
        assert_eq!(
            types(&p),
            ["relu", "abs", "const", "mul", "exp", "const", "log", "add"]
        );
        let ins = &p.functions[0].inserts;
        let last = &ins.last().unwrap().op;
        assert_eq!(
            (last.name.as_str(), last.op_name.as_deref()),
            ("y", Some("sp"))
        );
        // log's epsilon is a const 1 in fp16: log(exp(−|x|) + 1).
        let log = ins.iter().find(|i| i.op.op_type == "log").unwrap();
        let eps = &log
            .op
            .inputs
            .iter()
            .find(|(p, _)| p == "epsilon")
            .unwrap()
            .1;
        let one = ins.iter().find(|i| &i.op.name == eps).unwrap();
        assert_eq!(one.op.output.dtype, DType::Fp16);
        assert_eq!(removed(&p), ["sp"]);
    }

    #[test]
    fn logsumexp_keeps_its_axes_and_keep_dims() {
        // Named axes and keep_dims: both consts go with the op.
        let p = plan(
            "            tensor<int32, [1]> ax = const()[name = string(\"ax\"), val = tensor<int32, [1]>([-1])];\n            bool kd = const()[name = string(\"kd\"), val = bool(false)];\n            tensor<fp16, [2]> y = reduce_log_sum_exp(axes = ax, keep_dims = kd, x = x)[name = string(\"y\")];",
            "reduce_log_sum_exp",
        )
        .unwrap();
        let ins = &p.functions[0].inserts;
        let last = &ins.last().unwrap().op;
        assert_eq!(last.op_type, "add");
        assert_eq!(last.output, TensorType::fixed(DType::Fp16, &[2]));
        assert_eq!(removed(&p), ["y", "ax", "kd"]);
        // keep_dims = true and no axes (every axis): one maximum, read by the sub and the add.
        let p = plan(
            "            tensor<fp16, [1, 1]> y = reduce_log_sum_exp(keep_dims = bool(true), x = x)[name = string(\"y\")];",
            "reduce_log_sum_exp",
        )
        .unwrap();
        assert_eq!(types(&p).iter().filter(|t| **t == "reduce_max").count(), 1);
        let axes = p.functions[0]
            .inserts
            .iter()
            .find(|i| i.op.name.ends_with("_axes"))
            .and_then(|i| i.op.value.clone())
            .unwrap();
        assert_eq!(
            axes.payload,
            crate::ir::Payload::Tensor(crate::ir::TensorData::Ints(vec![0, 1]))
        );
        assert!(plan(
            "            tensor<fp16, [2]> y = reduce_log_sum_exp(axes = tensor<int32, [1]>([5]), x = x)[name = string(\"y\")];",
            "reduce_log_sum_exp",
        )
        .is_err_and(|e| e.contains("outside rank")));
    }

    #[test]
    fn log_softmax_replaces_the_log_and_keeps_a_softmax_others_read() {
        let only = "            tensor<fp16, [2, 8]> s = softmax(axis = int32(0), x = x)[name = string(\"s\")];\n            tensor<fp16, [2, 8]> y = log(x = s)[name = string(\"l\")];";
        let p = plan(only, "softmax").unwrap();
        assert_eq!(removed(&p), ["l", "s"]);
        let last = &p.functions[0].inserts.last().unwrap().op;
        assert_eq!((last.op_type.as_str(), last.name.as_str()), ("sub", "y"));
        let shared = "            tensor<fp16, [2, 8]> s = softmax(axis = int32(-1), x = x)[name = string(\"s\")];\n            tensor<fp16, [2, 8]> l = log(x = s)[name = string(\"l\")];\n            tensor<fp16, [2, 8]> y = add(x = l, y = s)[name = string(\"y\")];";
        assert_eq!(removed(&plan(shared, "softmax").unwrap()), ["l"]);
        let no_log = "            tensor<fp16, [2, 8]> y = softmax(axis = int32(-1), x = x)[name = string(\"s\")];";
        assert!(plan(no_log, "softmax").is_err());
    }

    #[test]
    fn an_inline_input_or_an_unknown_shape_gets_no_rewrite() {
        let inline = plan(
            "            tensor<fp16, [2]> y = softplus(x = tensor<fp16, [2]>([1, 2]))[name = string(\"y\")];",
            "softplus",
        )
        .unwrap_err();
        assert!(inline.contains("not a named value"), "{inline}");
        let text = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [?, 8]> x) {\n            tensor<fp16, [?, 8]> y = softplus(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";
        let p = parse_program(text, Path::new("t.mil")).expect("parses");
        let f = &p.functions[0];
        let (id, _) = f.ops().find(|(_, o)| o.op_type == "softplus").unwrap();
        let e = plan_stable_exp_log(f, &analyze(f).consts, id).unwrap_err();
        assert!(e.contains("not fixed"), "{e}");
    }

    #[test]
    fn other_ops_get_no_rewrite() {
        let e = plan(
            "            tensor<fp16, [2, 8]> e = exp(x = x)[name = string(\"e\")];\n            tensor<fp16, [2, 8]> c = cumsum(axis = int32(-1), x = e)[name = string(\"c\")];\n            tensor<fp16, [2, 8]> y = log(x = c)[name = string(\"y\")];",
            "exp",
        )
        .unwrap_err();
        assert!(e.contains("only softplus"), "{e}");
    }
}
