//! Output type inference for the ops `rules/opset/inference.yaml` lists. A dimension the inputs do
//! not fix stays unknown, and an op whose constant parameters are not known gives no type at all:
//! the caller reports only definite contradictions.

use super::table::Inference;
use super::values::FunctionValues;
use crate::analysis::consteval::ConstValue;
use crate::ir::{Arg, DType, Dim, Function, Op, TensorType, ValueType};

/// An inferred tensor type: element type and shape, each possibly unknown (`None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inferred {
    pub dtype: Option<DType>,
    /// `None` when even the rank is unknown.
    pub shape: Option<Vec<Option<u64>>>,
}

impl Inferred {
    fn of(t: &TensorType) -> Inferred {
        Inferred {
            dtype: Some(t.dtype),
            shape: dims(t),
        }
    }

    /// Why `declared` contradicts this type, if it does.
    pub fn contradiction(&self, declared: &TensorType) -> Option<String> {
        if let Some(d) = self.dtype {
            if d != declared.dtype {
                return Some(format!("element type {d}, not {}", declared.dtype));
            }
        }
        let (Some(want), Some(got)) = (&self.shape, &declared.shape) else {
            return None;
        };
        if want.len() != got.len() {
            return Some(format!("rank {}, not {}", want.len(), got.len()));
        }
        for (axis, (w, g)) in want.iter().zip(got).enumerate() {
            if let (Some(w), Dim::Known(g)) = (w, g) {
                if w != g {
                    return Some(format!("{w} on axis {axis}, not {g}"));
                }
            }
        }
        None
    }
}

impl std::fmt::Display for Inferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dtype = self.dtype.map_or("?".to_string(), |d| d.text_name());
        match &self.shape {
            None => write!(f, "tensor<{dtype}, *>"),
            Some(s) => {
                let dims: Vec<String> = s
                    .iter()
                    .map(|d| d.map_or("?".to_string(), |n| n.to_string()))
                    .collect();
                write!(f, "tensor<{dtype}, [{}]>", dims.join(", "))
            }
        }
    }
}

type Shape = Vec<Option<u64>>;

fn dims(t: &TensorType) -> Option<Shape> {
    t.shape
        .as_ref()
        .map(|s| s.iter().map(|d| d.known()).collect())
}

/// What inference needs of a function.
pub struct InferCx<'a> {
    /// The function.
    pub f: &'a Function,
    /// Its constant values, as far as inference asks.
    pub(crate) values: &'a FunctionValues<'a>,
}

impl InferCx<'_> {
    fn arg_type<'b>(&'b self, arg: &'b Arg) -> Option<&'b ValueType> {
        match arg {
            Arg::Name(n) => self.f.value_type(n),
            Arg::Value(lit) => Some(&lit.ty),
        }
    }

    /// The tensor bound to a single-binding parameter (states excluded).
    fn tensor<'b>(&'b self, op: &'b Op, param: &str) -> Option<&'b TensorType> {
        match self.arg_type(op.arg(param)?)? {
            ValueType::Tensor(t) => Some(t),
            _ => None,
        }
    }

    fn state_tensor<'b>(&'b self, op: &'b Op, param: &str) -> Option<&'b TensorType> {
        match self.arg_type(op.arg(param)?)? {
            ValueType::State(inner) => inner.tensor(),
            _ => None,
        }
    }

    /// A constant integer parameter: `Ok(None)` when absent, `Err` when bound but not known.
    fn const_int(&self, op: &Op, param: &str) -> Result<Option<i64>, ()> {
        match op.param(param) {
            None => Ok(None),
            Some(_) => self
                .values
                .param(op, param, ConstValue::as_int)
                .map(Some)
                .ok_or(()),
        }
    }

    fn const_bool(&self, op: &Op, param: &str) -> Result<bool, ()> {
        match op.param(param) {
            None => Ok(false),
            Some(_) => match self.values.param(op, param, |v| v.data.bools()).as_deref() {
                Some([b]) => Ok(*b),
                _ => Err(()),
            },
        }
    }

    fn const_ints(&self, op: &Op, param: &str) -> Option<Vec<i64>> {
        self.values.param(op, param, ConstValue::ints)
    }
}

/// The inferred type of `op`'s first output: `Ok(None)` when it cannot be told, `Err` when the
/// inputs themselves contradict each other (no type exists).
pub fn infer(cx: &InferCx<'_>, op: &Op, how: Inference) -> Result<Option<Inferred>, String> {
    let t = |p: &str| cx.tensor(op, p);
    Ok(match how {
        Inference::SameAsX | Inference::Const => passed_through(cx, op, how).map(Inferred::of),
        Inference::Broadcast | Inference::BroadcastBool => {
            let (Some(x), Some(y)) = (t("x"), t("y")) else {
                return Ok(None);
            };
            let shape = match (dims(x), dims(y)) {
                (Some(a), Some(b)) => Some(broadcast(&a, &b)?),
                _ => None,
            };
            let dtype = if how == Inference::BroadcastBool {
                DType::Bool
            } else {
                x.dtype
            };
            Some(Inferred {
                dtype: Some(dtype),
                shape,
            })
        }
        Inference::Matmul => matmul(cx, op)?,
        Inference::Linear => {
            let (Some(x), Some(w)) = (t("x"), t("weight")) else {
                return Ok(None);
            };
            let (Some(xs), Some(ws)) = (dims(x), dims(w)) else {
                return Ok(None);
            };
            let ([.., x_in], [w_out, w_in]) = (xs.as_slice(), ws.as_slice()) else {
                return Ok(None);
            };
            if let (Some(a), Some(b)) = (x_in, w_in) {
                if a != b {
                    return Err(format!(
                        "the last axis of `x` is {a} but `weight` takes {b} inputs"
                    ));
                }
            }
            let mut shape = xs[..xs.len() - 1].to_vec();
            shape.push(*w_out);
            Some(Inferred {
                dtype: Some(x.dtype),
                shape: Some(shape),
            })
        }
        Inference::Concat => concat(cx, op)?,
        Inference::Reshape => reshape(cx, op),
        Inference::Transpose => {
            let (Some(x), Some(perm)) = (t("x"), cx.const_ints(op, "perm")) else {
                return Ok(None);
            };
            let Some(xs) = dims(x) else { return Ok(None) };
            if perm.len() != xs.len() {
                return Ok(None);
            }
            let mut shape = Vec::new();
            for p in perm {
                let Some(i) = axis(p, xs.len()) else {
                    return Ok(None);
                };
                shape.push(xs[i]);
            }
            Some(Inferred {
                dtype: Some(x.dtype),
                shape: Some(shape),
            })
        }
        Inference::SliceByIndex => slice_by_index(cx, op),
        Inference::Gather => {
            let (Some(x), Some(ind)) = (t("x"), t("indices")) else {
                return Ok(None);
            };
            let (Some(xs), Some(is)) = (dims(x), dims(ind)) else {
                return Ok(None);
            };
            let (Ok(a), Ok(b)) = (cx.const_int(op, "axis"), cx.const_int(op, "batch_dims")) else {
                return Ok(None);
            };
            let (Some(a), Ok(b)) = (
                axis(a.unwrap_or(0), xs.len()),
                usize::try_from(b.unwrap_or(0)),
            ) else {
                return Ok(None);
            };
            if b > is.len() {
                return Ok(None);
            }
            let mut shape = xs[..a].to_vec();
            shape.extend_from_slice(&is[b..]);
            shape.extend_from_slice(&xs[a + 1..]);
            Some(Inferred {
                dtype: Some(x.dtype),
                shape: Some(shape),
            })
        }
        Inference::Reduce => {
            let Some(x) = t("x") else { return Ok(None) };
            let Some(xs) = dims(x) else { return Ok(None) };
            let Ok(keep) = cx.const_bool(op, "keep_dims") else {
                return Ok(None);
            };
            let axes: Vec<usize> = match op.param("axes") {
                None => (0..xs.len()).collect(),
                Some(_) => {
                    let Some(v) = cx.const_ints(op, "axes") else {
                        return Ok(None);
                    };
                    let Some(v) = v.into_iter().map(|a| axis(a, xs.len())).collect() else {
                        return Ok(None);
                    };
                    v
                }
            };
            let mut shape = Vec::new();
            for (i, d) in xs.iter().enumerate() {
                if !axes.contains(&i) {
                    shape.push(*d);
                } else if keep {
                    shape.push(Some(1));
                }
            }
            Some(Inferred {
                dtype: Some(x.dtype),
                shape: Some(shape),
            })
        }
        Inference::Cast => {
            let Some(x) = t("x") else { return Ok(None) };
            let dtype = cx.values.param(op, "dtype", |v| {
                v.as_str()
                    .filter(|n| CAST_NAMES.contains(n))
                    .and_then(DType::from_text)
            });
            Some(Inferred {
                dtype,
                shape: dims(x),
            })
        }
        Inference::ReadState => cx
            .state_tensor(op, "input")
            .or_else(|| cx.state_tensor(op, "state"))
            .map(Inferred::of),
    })
}

/// The tensor type an op whose output is inferred `how` passes on unchanged: the value of a
/// `const`, the `x` of a same-as-x op (`None` for the other inferences). A declared output type
/// equal to it agrees with the inferred type, with no need to infer it.
pub fn passed_through<'b>(
    cx: &'b InferCx<'_>,
    op: &'b Op,
    how: Inference,
) -> Option<&'b TensorType> {
    match how {
        Inference::SameAsX => cx.tensor(op, "x"),
        Inference::Const => match op.attributes.get("val").map(|l| &l.ty) {
            Some(ValueType::Tensor(v)) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// `cast` dtype names whose element type is the name itself.
const CAST_NAMES: &[&str] = &[
    "bool", "fp16", "fp32", "int8", "int16", "int32", "uint8", "uint16",
];

/// A possibly negative axis of a rank-`rank` tensor.
fn axis(a: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let a = if a < 0 { a + r } else { a };
    usize::try_from(a).ok().filter(|&a| a < rank)
}

fn broadcast(a: &[Option<u64>], b: &[Option<u64>]) -> Result<Shape, String> {
    let n = a.len().max(b.len());
    let mut out = vec![None; n];
    for (i, slot) in out.iter_mut().enumerate() {
        let pick = |s: &[Option<u64>]| {
            (i + s.len())
                .checked_sub(n)
                .map_or(Some(1), |j| s.get(j).copied().flatten())
        };
        let (x, y) = (pick(a), pick(b));
        *slot = match (x, y) {
            (Some(x), Some(y)) if x == y => Some(x),
            (Some(1), Some(y)) => Some(y),
            (Some(x), Some(1)) => Some(x),
            (Some(x), Some(y)) => {
                return Err(format!("axis {i} of the broadcast has sizes {x} and {y}"))
            }
            _ => None,
        };
    }
    Ok(out)
}

fn matmul(cx: &InferCx<'_>, op: &Op) -> Result<Option<Inferred>, String> {
    let (Some(x), Some(y)) = (cx.tensor(op, "x"), cx.tensor(op, "y")) else {
        return Ok(None);
    };
    let (Some(mut xs), Some(mut ys)) = (dims(x), dims(y)) else {
        return Ok(None);
    };
    let (Ok(tx), Ok(ty)) = (
        cx.const_bool(op, "transpose_x"),
        cx.const_bool(op, "transpose_y"),
    ) else {
        return Ok(None);
    };
    let (x1, y1) = (xs.len() == 1, ys.len() == 1);
    if xs.is_empty() || ys.is_empty() || (x1 && tx) || (y1 && ty) {
        return Ok(None);
    }
    if x1 {
        xs.insert(0, Some(1));
    }
    if y1 {
        ys.push(Some(1));
    }
    let (xn, yn) = (xs.len(), ys.len());
    if tx {
        xs.swap(xn - 1, xn - 2);
    }
    if ty {
        ys.swap(yn - 1, yn - 2);
    }
    if let (Some(k1), Some(k2)) = (xs[xn - 1], ys[yn - 2]) {
        if k1 != k2 {
            return Err(format!(
                "the inner dimensions differ: `x` gives {k1}, `y` takes {k2}"
            ));
        }
    }
    let mut shape = broadcast(&xs[..xn - 2], &ys[..yn - 2])?;
    if !x1 {
        shape.push(xs[xn - 2]);
    }
    if !y1 {
        shape.push(ys[yn - 1]);
    }
    Ok(Some(Inferred {
        dtype: Some(x.dtype),
        shape: Some(shape),
    }))
}

fn concat(cx: &InferCx<'_>, op: &Op) -> Result<Option<Inferred>, String> {
    let Some(values) = op.param("values") else {
        return Ok(None);
    };
    let Ok(Some(a)) = cx.const_int(op, "axis") else {
        return Ok(None);
    };
    let mut shapes = Vec::new();
    let mut dtype = None;
    for arg in &values.args {
        let Some(ValueType::Tensor(t)) = cx.arg_type(arg) else {
            return Ok(None);
        };
        dtype.get_or_insert(t.dtype);
        let Some(s) = dims(t) else { return Ok(None) };
        shapes.push(s);
    }
    let Some(first) = shapes.first() else {
        return Ok(None);
    };
    let rank = first.len();
    if shapes.iter().any(|s| s.len() != rank) {
        return Ok(None);
    }
    let Some(a) = axis(a, rank) else {
        return Ok(None);
    };
    let mut shape = Vec::with_capacity(rank);
    for i in 0..rank {
        let col: Vec<Option<u64>> = shapes.iter().map(|s| s[i]).collect();
        if i == a {
            shape.push(col.iter().try_fold(0u64, |acc, d| acc.checked_add((*d)?)));
            continue;
        }
        let known: Vec<u64> = col.iter().flatten().copied().collect();
        if let Some(w) = known.windows(2).find(|w| w[0] != w[1]) {
            return Err(format!(
                "the values differ on axis {i} ({} and {}), which is not the concat axis",
                w[0], w[1]
            ));
        }
        shape.push(if known.len() == col.len() {
            known.first().copied()
        } else {
            None
        });
    }
    Ok(Some(Inferred {
        dtype,
        shape: Some(shape),
    }))
}

fn reshape(cx: &InferCx<'_>, op: &Op) -> Option<Inferred> {
    let x = cx.tensor(op, "x")?;
    let target = cx.const_ints(op, "shape")?;
    let mut shape: Shape = target
        .iter()
        .map(|&d| u64::try_from(d).ok().filter(|&d| d > 0))
        .collect();
    let holes: Vec<usize> = target
        .iter()
        .enumerate()
        .filter(|(_, &d)| d == -1)
        .map(|(i, _)| i)
        .collect();
    if let ([hole], Some(total)) = (holes.as_slice(), x.element_count()) {
        let rest: Option<u64> = shape
            .iter()
            .enumerate()
            .filter(|(i, _)| i != hole)
            .try_fold(1u64, |acc, (_, d)| acc.checked_mul((*d)?));
        if let Some(rest) = rest.filter(|&r| r > 0 && total % r == 0) {
            shape[*hole] = Some(total / rest);
        }
    }
    Some(Inferred {
        dtype: Some(x.dtype),
        shape: Some(shape),
    })
}

fn slice_by_index(cx: &InferCx<'_>, op: &Op) -> Option<Inferred> {
    let x = cx.tensor(op, "x")?;
    let xs = dims(x)?;
    let r = xs.len();
    let begin = cx.values.partial_ints(op, "begin", r);
    let end = cx.values.partial_ints(op, "end", r);
    let stride = match op.param("stride") {
        None => vec![Some(1); r],
        Some(_) => cx.values.partial_ints(op, "stride", r),
    };
    let mask = |name: &str| -> Option<Vec<bool>> {
        match op.param(name) {
            None => Some(vec![false; r]),
            Some(_) => cx
                .values
                .param(op, name, |v| v.data.bools())
                .filter(|v| v.len() == r),
        }
    };
    let (bm, em, sq) = (
        mask("begin_mask")?,
        mask("end_mask")?,
        mask("squeeze_mask")?,
    );
    let mut shape = Vec::new();
    for i in 0..r {
        if sq[i] {
            continue;
        }
        let len = (|| {
            let d = i64::try_from(xs[i]?).ok()?;
            let s = stride[i]?;
            if s <= 0 {
                return None;
            }
            let clamp = |v: i64| if v < 0 { (v + d).max(0) } else { v.min(d) };
            let b = if bm[i] { 0 } else { clamp(begin[i]?) };
            let e = if em[i] { d } else { clamp(end[i]?) };
            u64::try_from((e - b).max(0).checked_add(s - 1)? / s).ok()
        })();
        shape.push(len);
    }
    Some(Inferred {
        dtype: Some(x.dtype),
        shape: Some(shape),
    })
}
