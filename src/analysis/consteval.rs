//! Constant evaluation of small int / bool / float tensors through `const` bindings, inline literals
//! and a handful of cheap ops (`add`, `sub`, `mul`, `floor_div`, `concat`, `cast`, `reshape`,
//! `expand_dims`, `squeeze`, `identity`, `shape` of static shapes, `slice_by_index`, `fill`,
//! `range_1d`, …). One forward pass in program order; tensors over
//! [`MAX_CONSTEVAL_ELEMENTS`](crate::limits::MAX_CONSTEVAL_ELEMENTS) are never materialised.

use std::fmt;

use rustc_hash::FxHashMap;

use crate::ir::{Arg, DType, Function, Literal, Name, Op, Payload, TensorData, ValueType};
use crate::limits::MAX_CONSTEVAL_ELEMENTS;

/// Decoded elements of a constant, row-major.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstData {
    /// Integer elements (every integer dtype, widened to `i64`).
    Ints(Vec<i64>),
    /// Floating-point elements (every float dtype, widened to `f64`).
    Floats(Vec<f64>),
    /// Boolean elements.
    Bools(Vec<bool>),
    /// String elements.
    Strings(Vec<String>),
}

impl ConstData {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            ConstData::Ints(v) => v.len(),
            ConstData::Floats(v) => v.len(),
            ConstData::Bools(v) => v.len(),
            ConstData::Strings(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a number (bools are 0/1); `None` for strings.
    pub fn number(&self, i: usize) -> Option<f64> {
        match self {
            ConstData::Ints(v) => v.get(i).map(|&x| x as f64),
            ConstData::Floats(v) => v.get(i).copied(),
            ConstData::Bools(v) => v.get(i).map(|&b| f64::from(u8::from(b))),
            ConstData::Strings(_) => None,
        }
    }

    /// Every element as a number; `None` for strings.
    pub fn numbers(&self) -> Option<Vec<f64>> {
        (0..self.len()).map(|i| self.number(i)).collect()
    }

    /// Every element as an integer (floats only when integral); `None` otherwise.
    pub fn ints(&self) -> Option<Vec<i64>> {
        match self {
            ConstData::Ints(v) => Some(v.clone()),
            ConstData::Bools(v) => Some(v.iter().map(|&b| i64::from(b)).collect()),
            ConstData::Floats(v) => v
                .iter()
                .map(|&x| (x.fract() == 0.0 && x.abs() < 9.0e15).then_some(x as i64))
                .collect(),
            ConstData::Strings(_) => None,
        }
    }

    /// Every element as a bool (numbers: non-zero); `None` for strings.
    pub fn bools(&self) -> Option<Vec<bool>> {
        match self {
            ConstData::Bools(v) => Some(v.clone()),
            other => Some(other.numbers()?.iter().map(|&x| x != 0.0).collect()),
        }
    }

    fn take(&self, indices: &[usize]) -> Option<ConstData> {
        fn pick<T: Clone>(v: &[T], idx: &[usize]) -> Option<Vec<T>> {
            idx.iter().map(|&i| v.get(i).cloned()).collect()
        }
        Some(match self {
            ConstData::Ints(v) => ConstData::Ints(pick(v, indices)?),
            ConstData::Floats(v) => ConstData::Floats(pick(v, indices)?),
            ConstData::Bools(v) => ConstData::Bools(pick(v, indices)?),
            ConstData::Strings(v) => ConstData::Strings(pick(v, indices)?),
        })
    }
}

/// A constant tensor: dtype, static shape and elements.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstValue {
    /// Element type as declared in the program.
    pub dtype: DType,
    /// Static dimensions, outermost first; empty for a scalar.
    pub shape: Vec<u64>,
    /// The elements, row-major; their count is the product of `shape`.
    pub data: ConstData,
}

impl ConstValue {
    /// A rank-1 int32 tensor.
    pub fn ints1(v: Vec<i64>) -> ConstValue {
        ConstValue {
            dtype: DType::Int32,
            shape: vec![v.len() as u64],
            data: ConstData::Ints(v),
        }
    }

    /// The single string of a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.data {
            ConstData::Strings(v) if v.len() == 1 => v.first().map(String::as_str),
            _ => None,
        }
    }

    /// The single element as an integer.
    pub fn as_int(&self) -> Option<i64> {
        match self.data.ints()?.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Elements as integers.
    pub fn ints(&self) -> Option<Vec<i64>> {
        self.data.ints()
    }

    /// Builds a value from a literal (immediate tensors only; blobs are not read here).
    pub fn from_literal(lit: &Literal) -> Option<ConstValue> {
        let t = match &lit.ty {
            ValueType::Tensor(t) => t,
            _ => return None,
        };
        let data = match &lit.payload {
            Payload::Tensor(d) => d,
            _ => return None,
        };
        let data = match data {
            TensorData::Ints(v) => ConstData::Ints(v.clone()),
            TensorData::Floats(v) => ConstData::Floats(v.clone()),
            TensorData::Bools(v) => ConstData::Bools(v.clone()),
            TensorData::Strings(v) => ConstData::Strings(v.clone()),
            TensorData::Bytes(_) => return None,
        };
        if data.len() as u64 > MAX_CONSTEVAL_ELEMENTS {
            return None;
        }
        let shape = t.known_dims()?;
        // A one-element tensor may be written with a bare scalar payload; that is the same data.
        if product(&shape)? != data.len() as u64 {
            return None;
        }
        Some(ConstValue {
            dtype: t.dtype,
            shape,
            data,
        })
    }
}

impl fmt::Display for ConstValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = match &self.data {
            ConstData::Ints(v) => v.iter().map(ToString::to_string).collect(),
            ConstData::Floats(v) => v.iter().map(ToString::to_string).collect(),
            ConstData::Bools(v) => v.iter().map(ToString::to_string).collect(),
            ConstData::Strings(v) => v.iter().map(|s| format!("{s:?}")).collect(),
        };
        if self.shape.is_empty() {
            return f.write_str(items.first().map_or("", String::as_str));
        }
        write!(f, "[{}]", items.join(", "))
    }
}

/// Number of elements of a shape, `None` on overflow.
pub fn product(shape: &[u64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d))
}

/// Value name → constant, for every value the pass could evaluate.
///
/// The values are held apart from the map that finds them: a hash table is up to half empty, and
/// its empty buckets are then the size of an index, not of a value (a 14k-op program has
/// thousands of small constants; BENCHMARKS.md, session 14).
#[derive(Clone, Debug, Default)]
pub struct ConstEnv {
    /// Each value's place in `values`, by name.
    index: FxHashMap<Name, u32>,
    /// The values, in the order they were evaluated.
    values: Vec<ConstValue>,
}

impl ConstEnv {
    /// The constant value of a named value.
    pub fn get(&self, name: &str) -> Option<&ConstValue> {
        let &at = self.index.get(name)?;
        self.values.get(at as usize)
    }

    /// Sets the value of `name` (replacing an earlier one).
    fn insert(&mut self, name: Name, value: ConstValue) {
        match self.index.entry(name) {
            std::collections::hash_map::Entry::Occupied(e) => {
                if let Some(slot) = self.values.get_mut(*e.get() as usize) {
                    *slot = value;
                }
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                // A function has fewer than 2^32 values: its ops are counted in `u32`.
                e.insert(self.values.len() as u32);
                self.values.push(value);
            }
        }
    }

    /// Number of evaluated values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when nothing was evaluated.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The constant value of one binding (a named value or an inline literal).
    pub fn arg(&self, arg: &Arg) -> Option<ConstValue> {
        match arg {
            Arg::Name(n) => self.get(n).cloned(),
            Arg::Value(lit) => ConstValue::from_literal(lit),
        }
    }

    /// The constant value bound to a single-binding parameter of `op`.
    pub fn param(&self, op: &Op, param: &str) -> Option<ConstValue> {
        self.arg(op.arg(param)?)
    }

    /// Like [`ConstEnv::param`], but a rank-1 value is resolved element by element: a `concat` of
    /// known and run-time pieces gives `Some` where the element is constant. `len` is the expected
    /// length (the rank of the sliced tensor).
    pub fn partial_ints(&self, f: &Function, op: &Op, param: &str, len: usize) -> Vec<Option<i64>> {
        partial_ints(self, f, op, param, len)
    }
}

/// Where constant values come from: the whole-function pass ([`ConstEnv`]), or a source that
/// answers the same for the values it is asked about.
pub(crate) trait ConstLookup {
    /// The constant value of one binding (a named value or an inline literal).
    fn arg(&self, arg: &Arg) -> Option<ConstValue>;
}

impl ConstLookup for ConstEnv {
    fn arg(&self, arg: &Arg) -> Option<ConstValue> {
        ConstEnv::arg(self, arg)
    }
}

/// [`ConstEnv::partial_ints`] over any source of constant values.
pub(crate) fn partial_ints(
    consts: &impl ConstLookup,
    f: &Function,
    op: &Op,
    param: &str,
    len: usize,
) -> Vec<Option<i64>> {
    let Some(arg) = op.arg(param) else {
        return vec![None; len];
    };
    let out = partial_arg(consts, f, arg, 0);
    if out.len() == len {
        out
    } else {
        vec![None; len]
    }
}

fn partial_arg(consts: &impl ConstLookup, f: &Function, arg: &Arg, depth: u32) -> Vec<Option<i64>> {
    if let Some(v) = consts.arg(arg) {
        if v.shape.len() <= 1 {
            if let Some(ints) = v.ints() {
                return ints.into_iter().map(Some).collect();
            }
        }
    }
    let Arg::Name(name) = arg else {
        return Vec::new();
    };
    let unknown_of_len = |name: &str| -> Vec<Option<i64>> {
        match f.value_type(name).and_then(ValueType::tensor) {
            Some(t) => match t.known_dims().as_deref() {
                Some([n]) if *n <= MAX_CONSTEVAL_ELEMENTS => vec![None; *n as usize],
                Some([]) => vec![None],
                _ => Vec::new(),
            },
            None => Vec::new(),
        }
    };
    if depth > 16 {
        return unknown_of_len(name);
    }
    let Some(def) = f.def(name) else {
        return Vec::new();
    };
    let Some(op) = f.op(def.node) else {
        return unknown_of_len(name);
    };
    match op.op_type.as_str() {
        "concat" => {
            let axis = op
                .arg("axis")
                .and_then(|a| consts.arg(a))
                .and_then(|a| a.as_int())
                .unwrap_or(0);
            let Some(values) = op.param("values") else {
                return unknown_of_len(name);
            };
            if axis != 0 && axis != -1 {
                return unknown_of_len(name);
            }
            let mut out = Vec::new();
            for a in &values.args {
                let piece = partial_arg(consts, f, a, depth + 1);
                if piece.is_empty() {
                    return unknown_of_len(name);
                }
                out.extend(piece);
            }
            out
        }
        "identity" | "cast" | "reshape" | "squeeze" | "expand_dims" => match op.arg("x") {
            Some(x) => {
                let inner = partial_arg(consts, f, x, depth + 1);
                let own = unknown_of_len(name);
                if inner.len() == own.len() {
                    inner
                } else {
                    own
                }
            }
            None => unknown_of_len(name),
        },
        _ => unknown_of_len(name),
    }
}

/// Evaluates every constant-foldable value of `f` in one pass over its ops in program order.
pub fn evaluate(f: &Function) -> ConstEnv {
    let mut env = ConstEnv::default();
    // Nearly every value it keeps is a `const`'s: the table is sized once for them.
    let consts = f
        .blocks
        .iter()
        .flat_map(|b| &b.ops)
        .filter(|&&id| f.op(id).is_some_and(|op| op.op_type == "const"))
        .count();
    env.index.reserve(consts);
    env.values.reserve_exact(consts);
    for (_, op) in f.ops() {
        // Every op the pass folds has one result.
        let (Some(out), Some(v)) = (op.outputs.first(), eval_op(f, &env, op)) else {
            continue;
        };
        if v.data.len() as u64 <= MAX_CONSTEVAL_ELEMENTS {
            env.insert(out.name.clone(), v);
        }
    }
    env
}

/// The value of `op`'s result, when it folds. `x` is looked up first where the op needs it, so
/// nothing else is copied for an op whose input is a run-time value.
fn eval_op(f: &Function, env: &ConstEnv, op: &Op) -> Option<ConstValue> {
    let x = || env.param(op, "x");
    match op.op_type.as_str() {
        "const" => op.attributes.get("val").and_then(ConstValue::from_literal),
        "identity" => x(),
        "add" | "sub" | "mul" | "floor_div" | "real_div" | "maximum" | "minimum" | "mod"
        | "equal" | "not_equal" | "less" | "less_equal" | "greater" | "greater_equal"
        | "logical_and" | "logical_or" => binary(&op.op_type, Some(x()?), env.param(op, "y")),
        "cast" => cast(
            Some(x()?),
            env.param(op, "dtype").as_ref().and_then(|d| d.as_str()),
        ),
        "reshape" => reshape(Some(x()?), env.param(op, "shape")),
        "expand_dims" => expand_dims(Some(x()?), env.param(op, "axes")),
        "squeeze" => squeeze(Some(x()?), env.param(op, "axes")),
        "shape" => shape_of(f, op),
        "concat" => concat(env, op),
        "slice_by_index" => slice_by_index(env, op),
        "fill" => fill(env.param(op, "shape"), env.param(op, "value")),
        "range_1d" => range_1d(
            env.param(op, "start"),
            env.param(op, "end"),
            env.param(op, "step"),
        ),
        _ => None,
    }
}

fn is_float_kind(d: &ConstData) -> bool {
    matches!(d, ConstData::Floats(_))
}

/// Row-major strides of a shape.
fn strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        let next = s.get(i + 1).copied().unwrap_or(1);
        let dim = shape.get(i + 1).copied().unwrap_or(1);
        if let Some(slot) = s.get_mut(i) {
            *slot = next.saturating_mul(dim);
        }
    }
    s
}

/// Numpy broadcasting of two shapes.
fn broadcast_shape(a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
    let rank = a.len().max(b.len());
    let mut out = vec![0u64; rank];
    for (i, slot) in out.iter_mut().enumerate() {
        let da = (i + a.len())
            .checked_sub(rank)
            .and_then(|j| a.get(j))
            .copied()
            .unwrap_or(1);
        let db = (i + b.len())
            .checked_sub(rank)
            .and_then(|j| b.get(j))
            .copied()
            .unwrap_or(1);
        *slot = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// For each flat index of `out`, the flat index into a broadcast operand of shape `src`.
fn broadcast_index(out: &[u64], src: &[u64]) -> Option<Vec<usize>> {
    let total = product(out)?;
    if total > MAX_CONSTEVAL_ELEMENTS {
        return None;
    }
    let off = out.len().checked_sub(src.len())?;
    let src_strides = strides(src);
    let out_strides = strides(out);
    let mut idx = Vec::with_capacity(total as usize);
    for flat in 0..total {
        let mut s = 0u64;
        for (axis, (&dim, &ost)) in out.iter().zip(&out_strides).enumerate() {
            let coord = (flat / ost.max(1)) % dim.max(1);
            if let Some(j) = axis.checked_sub(off) {
                let sdim = src.get(j).copied().unwrap_or(1);
                let sst = src_strides.get(j).copied().unwrap_or(1);
                if sdim != 1 {
                    s += coord * sst;
                }
            }
        }
        idx.push(s as usize);
    }
    Some(idx)
}

fn binary(op: &str, a: Option<ConstValue>, b: Option<ConstValue>) -> Option<ConstValue> {
    let (a, b) = (a?, b?);
    let shape = broadcast_shape(&a.shape, &b.shape)?;
    let ia = broadcast_index(&shape, &a.shape)?;
    let ib = broadcast_index(&shape, &b.shape)?;
    let compare = matches!(
        op,
        "equal" | "not_equal" | "less" | "less_equal" | "greater" | "greater_equal"
    );
    let logical = matches!(op, "logical_and" | "logical_or");
    if compare || logical {
        let (xa, xb) = (a.data.numbers()?, b.data.numbers()?);
        let mut out = Vec::with_capacity(ia.len());
        for (&i, &j) in ia.iter().zip(&ib) {
            let (x, y) = (*xa.get(i)?, *xb.get(j)?);
            out.push(match op {
                "equal" => x == y,
                "not_equal" => x != y,
                "less" => x < y,
                "less_equal" => x <= y,
                "greater" => x > y,
                "greater_equal" => x >= y,
                "logical_and" => x != 0.0 && y != 0.0,
                _ => x != 0.0 || y != 0.0,
            });
        }
        return Some(ConstValue {
            dtype: DType::Bool,
            shape,
            data: ConstData::Bools(out),
        });
    }
    let float = is_float_kind(&a.data) || is_float_kind(&b.data) || op == "real_div";
    if float {
        let (xa, xb) = (a.data.numbers()?, b.data.numbers()?);
        let mut out = Vec::with_capacity(ia.len());
        for (&i, &j) in ia.iter().zip(&ib) {
            let (x, y) = (*xa.get(i)?, *xb.get(j)?);
            out.push(match op {
                "add" => x + y,
                "sub" => x - y,
                "mul" => x * y,
                "floor_div" => (x / y).floor(),
                "real_div" => x / y,
                "maximum" => x.max(y),
                "minimum" => x.min(y),
                _ => x - y * (x / y).floor(),
            });
        }
        let dtype = if a.dtype.is_float() { a.dtype } else { b.dtype };
        let dtype = if dtype.is_float() { dtype } else { DType::Fp32 };
        return Some(ConstValue {
            dtype,
            shape,
            data: ConstData::Floats(out),
        });
    }
    let (xa, xb) = (a.data.ints()?, b.data.ints()?);
    let mut out = Vec::with_capacity(ia.len());
    for (&i, &j) in ia.iter().zip(&ib) {
        let (x, y) = (*xa.get(i)?, *xb.get(j)?);
        out.push(match op {
            "add" => x.checked_add(y)?,
            "sub" => x.checked_sub(y)?,
            "mul" => x.checked_mul(y)?,
            "floor_div" => x.checked_div_euclid(y).map(|q| {
                // Python floor division, not Euclidean division, for negative divisors.
                if y < 0 && x.checked_rem_euclid(y).unwrap_or(0) != 0 {
                    q - 1
                } else {
                    q
                }
            })?,
            "maximum" => x.max(y),
            "minimum" => x.min(y),
            _ => {
                let r = x.checked_rem(y)?;
                if r != 0 && (r < 0) != (y < 0) {
                    r + y
                } else {
                    r
                }
            }
        });
    }
    Some(ConstValue {
        dtype: if a.dtype == DType::Bool {
            b.dtype
        } else {
            a.dtype
        },
        shape,
        data: ConstData::Ints(out),
    })
}

fn cast(x: Option<ConstValue>, dtype: Option<&str>) -> Option<ConstValue> {
    let x = x?;
    let dtype = DType::from_text(dtype?)?;
    let data = if dtype.is_float() {
        ConstData::Floats(x.data.numbers()?)
    } else if dtype.is_int() {
        ConstData::Ints(
            x.data
                .numbers()?
                .iter()
                .map(|&v| v.trunc() as i64)
                .collect(),
        )
    } else if dtype == DType::Bool {
        ConstData::Bools(x.data.bools()?)
    } else {
        return None;
    };
    Some(ConstValue {
        dtype,
        shape: x.shape,
        data,
    })
}

fn reshape(x: Option<ConstValue>, shape: Option<ConstValue>) -> Option<ConstValue> {
    let x = x?;
    let want = shape?.ints()?;
    let total = x.data.len() as u64;
    let mut dims = Vec::with_capacity(want.len());
    let mut infer = None;
    for (i, &d) in want.iter().enumerate() {
        match d {
            -1 if infer.is_none() => {
                infer = Some(i);
                dims.push(1);
            }
            0 => dims.push(*x.shape.get(i)?),
            d if d > 0 => dims.push(d as u64),
            _ => return None,
        }
    }
    if let Some(i) = infer {
        let known = product(&dims)?;
        if known == 0 || total % known != 0 {
            return None;
        }
        *dims.get_mut(i)? = total / known;
    }
    (product(&dims)? == total).then_some(ConstValue {
        dtype: x.dtype,
        shape: dims,
        data: x.data,
    })
}

fn norm_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    (0..r).contains(&a).then_some(a as usize)
}

fn expand_dims(x: Option<ConstValue>, axes: Option<ConstValue>) -> Option<ConstValue> {
    let x = x?;
    let axes = axes?.ints()?;
    let out_rank = x.shape.len() + axes.len();
    let mut positions: Vec<usize> = axes
        .iter()
        .map(|&a| norm_axis(a, out_rank))
        .collect::<Option<_>>()?;
    positions.sort_unstable();
    positions.dedup();
    if positions.len() != axes.len() {
        return None;
    }
    let mut shape = Vec::with_capacity(out_rank);
    let mut src = x.shape.iter();
    for i in 0..out_rank {
        if positions.contains(&i) {
            shape.push(1);
        } else {
            shape.push(*src.next()?);
        }
    }
    Some(ConstValue { shape, ..x })
}

fn squeeze(x: Option<ConstValue>, axes: Option<ConstValue>) -> Option<ConstValue> {
    let x = x?;
    let rank = x.shape.len();
    let drop: Vec<usize> = match axes.and_then(|a| a.ints()) {
        Some(list) => list
            .iter()
            .map(|&a| norm_axis(a, rank))
            .collect::<Option<_>>()?,
        None => (0..rank).filter(|&i| x.shape.get(i) == Some(&1)).collect(),
    };
    let mut shape = Vec::with_capacity(rank);
    for (i, &d) in x.shape.iter().enumerate() {
        if drop.contains(&i) {
            if d != 1 {
                return None;
            }
        } else {
            shape.push(d);
        }
    }
    Some(ConstValue { shape, ..x })
}

fn shape_of(f: &Function, op: &Op) -> Option<ConstValue> {
    let t = match op.arg("x")? {
        Arg::Name(n) => f.value_type(n)?.tensor()?.clone(),
        Arg::Value(lit) => lit.ty.tensor()?.clone(),
    };
    let dims = t.known_dims()?;
    let dtype = op
        .outputs
        .first()
        .and_then(|o| o.ty.tensor())
        .map_or(DType::Int32, |t| t.dtype);
    Some(ConstValue {
        dtype,
        shape: vec![dims.len() as u64],
        data: ConstData::Ints(
            dims.iter()
                .map(|&d| i64::try_from(d).ok())
                .collect::<Option<_>>()?,
        ),
    })
}

fn concat(env: &ConstEnv, op: &Op) -> Option<ConstValue> {
    let values: Vec<ConstValue> = op
        .param("values")?
        .args
        .iter()
        .map(|a| env.arg(a))
        .collect::<Option<_>>()?;
    let first = values.first()?;
    let rank = first.shape.len();
    let axis = norm_axis(env.param(op, "axis")?.as_int()?, rank)?;
    if env
        .param(op, "interleave")
        .and_then(|v| v.data.bools())
        .is_some_and(|b| b.iter().any(|&x| x))
    {
        return None;
    }
    let mut shape = first.shape.clone();
    let mut axis_total = 0u64;
    for v in &values {
        if v.shape.len() != rank {
            return None;
        }
        for (i, (&a, &b)) in v.shape.iter().zip(&first.shape).enumerate() {
            if i != axis && a != b {
                return None;
            }
        }
        axis_total = axis_total.checked_add(*v.shape.get(axis)?)?;
    }
    *shape.get_mut(axis)? = axis_total;
    let outer: u64 = product(shape.get(..axis)?)?;
    let inner: u64 = product(shape.get(axis + 1..)?)?;
    let float = values.iter().any(|v| is_float_kind(&v.data));
    let mut ints = Vec::new();
    let mut floats = Vec::new();
    let mut bools = Vec::new();
    let all_bool = values.iter().all(|v| matches!(v.data, ConstData::Bools(_)));
    for o in 0..outer {
        for v in &values {
            let chunk = v.shape.get(axis)?.checked_mul(inner)?;
            let start = (o * chunk) as usize;
            let idx: Vec<usize> = (start..start + chunk as usize).collect();
            let part = v.data.take(&idx)?;
            if all_bool {
                bools.extend(part.bools()?);
            } else if float {
                floats.extend(part.numbers()?);
            } else {
                ints.extend(part.ints()?);
            }
        }
    }
    let data = if all_bool {
        ConstData::Bools(bools)
    } else if float {
        ConstData::Floats(floats)
    } else {
        ConstData::Ints(ints)
    };
    let dtype = values
        .iter()
        .find(|v| v.dtype.is_float())
        .map_or(first.dtype, |v| v.dtype);
    Some(ConstValue { dtype, shape, data })
}

/// One axis of a resolved Python-style slice: the indices it takes, in order.
pub(crate) fn slice_indices(
    dim: u64,
    begin: i64,
    end: i64,
    stride: i64,
    begin_mask: bool,
    end_mask: bool,
) -> Option<Vec<u64>> {
    let d = i64::try_from(dim).ok()?;
    if stride == 0 {
        return None;
    }
    let (start, stop) = if stride > 0 {
        let norm = |v: i64| {
            if v < 0 {
                (v + d).max(0)
            } else {
                v.min(d)
            }
        };
        (
            if begin_mask { 0 } else { norm(begin) },
            if end_mask { d } else { norm(end) },
        )
    } else {
        let norm = |v: i64| {
            if v < 0 {
                (v + d).max(-1)
            } else {
                v.min(d - 1)
            }
        };
        (
            if begin_mask { d - 1 } else { norm(begin) },
            if end_mask { -1 } else { norm(end) },
        )
    };
    let mut out = Vec::new();
    let mut i = start;
    while (stride > 0 && i < stop) || (stride < 0 && i > stop) {
        out.push(u64::try_from(i).ok()?);
        if out.len() as u64 > MAX_CONSTEVAL_ELEMENTS {
            return None;
        }
        i = i.checked_add(stride)?;
    }
    Some(out)
}

fn slice_by_index(env: &ConstEnv, op: &Op) -> Option<ConstValue> {
    let x = env.param(op, "x")?;
    let rank = x.shape.len();
    let begin = env.param(op, "begin")?.ints()?;
    let end = env.param(op, "end")?.ints()?;
    let stride = env
        .param(op, "stride")
        .and_then(|v| v.ints())
        .unwrap_or_else(|| vec![1; rank]);
    let mask = |name: &str| {
        env.param(op, name)
            .and_then(|v| v.data.bools())
            .unwrap_or_else(|| vec![false; rank])
    };
    let (bm, em, sm) = (mask("begin_mask"), mask("end_mask"), mask("squeeze_mask"));
    if [
        begin.len(),
        end.len(),
        stride.len(),
        bm.len(),
        em.len(),
        sm.len(),
    ]
    .iter()
    .any(|&l| l != rank)
    {
        return None;
    }
    let mut per_axis = Vec::with_capacity(rank);
    let mut shape = Vec::new();
    for i in 0..rank {
        let dim = *x.shape.get(i)?;
        let d = i64::try_from(dim).ok()?;
        if *sm.get(i)? {
            let b = *begin.get(i)?;
            let b = if b < 0 { b + d } else { b };
            if !(0..d).contains(&b) {
                return None;
            }
            per_axis.push(vec![b as u64]);
        } else {
            let idx = slice_indices(
                dim,
                *begin.get(i)?,
                *end.get(i)?,
                *stride.get(i)?,
                *bm.get(i)?,
                *em.get(i)?,
            )?;
            shape.push(idx.len() as u64);
            per_axis.push(idx);
        }
    }
    let st = strides(&x.shape);
    let mut flat = vec![0u64];
    for (axis, idx) in per_axis.iter().enumerate() {
        let s = *st.get(axis)?;
        let mut next = Vec::with_capacity(flat.len().checked_mul(idx.len())?);
        for &base in &flat {
            for &i in idx {
                next.push(base + i * s);
            }
        }
        if next.len() as u64 > MAX_CONSTEVAL_ELEMENTS {
            return None;
        }
        flat = next;
    }
    let flat: Vec<usize> = flat.into_iter().map(|v| v as usize).collect();
    Some(ConstValue {
        dtype: x.dtype,
        shape,
        data: x.data.take(&flat)?,
    })
}

fn fill(shape: Option<ConstValue>, value: Option<ConstValue>) -> Option<ConstValue> {
    let dims: Vec<u64> = shape?
        .ints()?
        .iter()
        .map(|&d| u64::try_from(d).ok())
        .collect::<Option<_>>()?;
    let n = product(&dims)?;
    if n > MAX_CONSTEVAL_ELEMENTS {
        return None;
    }
    let value = value.unwrap_or(ConstValue {
        dtype: DType::Fp32,
        shape: Vec::new(),
        data: ConstData::Floats(vec![0.0]),
    });
    let n = n as usize;
    let data = match &value.data {
        ConstData::Ints(v) => ConstData::Ints(vec![*v.first()?; n]),
        ConstData::Floats(v) => ConstData::Floats(vec![*v.first()?; n]),
        ConstData::Bools(v) => ConstData::Bools(vec![*v.first()?; n]),
        ConstData::Strings(_) => return None,
    };
    Some(ConstValue {
        dtype: value.dtype,
        shape: dims,
        data,
    })
}

fn range_1d(
    start: Option<ConstValue>,
    end: Option<ConstValue>,
    step: Option<ConstValue>,
) -> Option<ConstValue> {
    let (start, end, step) = (start?, end?, step?);
    let float = [&start, &end, &step].iter().any(|v| is_float_kind(&v.data));
    let (s, e, st) = (
        start.data.number(0)?,
        end.data.number(0)?,
        step.data.number(0)?,
    );
    if st == 0.0 || !s.is_finite() || !e.is_finite() || !st.is_finite() {
        return None;
    }
    let n = ((e - s) / st).ceil().max(0.0);
    if n > MAX_CONSTEVAL_ELEMENTS as f64 {
        return None;
    }
    let n = n as usize;
    let values: Vec<f64> = (0..n).map(|i| s + st * i as f64).collect();
    let data = if float {
        ConstData::Floats(values)
    } else {
        ConstData::Ints(values.iter().map(|&v| v as i64).collect())
    };
    Some(ConstValue {
        dtype: start.dtype,
        shape: vec![n as u64],
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testutil::*;

    #[test]
    fn folds_through_bindings_and_arithmetic() {
        let f = func(
            vec![input("x", tensor(DType::Fp16, &[1, 8, 4]))],
            vec![
                konst("a", ints(&[3], &[1, 2, 3])),
                konst("b", scalar_int(10)),
                op(
                    "add",
                    "c",
                    &[("x", "a"), ("y", "b")],
                    tensor(DType::Int32, &[3]),
                ),
                op("shape", "s", &[("x", "x")], tensor(DType::Int32, &[3])),
                op(
                    "mul",
                    "m",
                    &[("x", "s"), ("y", "c")],
                    tensor(DType::Int32, &[3]),
                ),
                konst("zero", scalar_int(0)),
                op_multi(
                    "concat",
                    "cat",
                    &[("values", &["a", "s"]), ("axis", &["zero"])],
                    tensor(DType::Int32, &[6]),
                ),
            ],
        );
        let env = evaluate(&f);
        assert_eq!(env.get("c").and_then(|v| v.ints()), Some(vec![11, 12, 13]));
        assert_eq!(env.get("s").and_then(|v| v.ints()), Some(vec![1, 8, 4]));
        assert_eq!(env.get("m").and_then(|v| v.ints()), Some(vec![11, 96, 52]));
        assert_eq!(
            env.get("cat").and_then(|v| v.ints()),
            Some(vec![1, 2, 3, 1, 8, 4])
        );
    }

    #[test]
    fn dynamic_shape_is_not_constant() {
        let mut t = tensor(DType::Fp16, &[1, 8]);
        if let ValueType::Tensor(tt) = &mut t {
            tt.shape = Some(vec![crate::ir::Dim::Known(1), crate::ir::Dim::Unknown]);
        }
        let f = func(
            vec![input("x", t)],
            vec![op("shape", "s", &[("x", "x")], tensor(DType::Int32, &[2]))],
        );
        assert!(evaluate(&f).get("s").is_none());
    }

    #[test]
    fn slices_follow_python_semantics() {
        assert_eq!(
            slice_indices(8, 0, -1, 1, false, false),
            Some((0..7).collect())
        );
        assert_eq!(
            slice_indices(8, 1, 0, 1, false, true),
            Some((1..8).collect())
        );
        assert_eq!(
            slice_indices(8, 0, 100, 3, false, false),
            Some(vec![0, 3, 6])
        );
        assert_eq!(
            slice_indices(4, -1, 0, -1, false, true),
            Some(vec![3, 2, 1, 0])
        );
        assert_eq!(slice_indices(4, 0, 4, 0, false, false), None);
    }

    #[test]
    fn floor_div_rounds_down() {
        let v = binary(
            "floor_div",
            Some(ConstValue::ints1(vec![-7, 7, 7])),
            Some(ConstValue::ints1(vec![2, -2, 2])),
        );
        assert_eq!(v.and_then(|v| v.ints()), Some(vec![-4, -4, 3]));
    }

    #[test]
    fn cast_reshape_fill_range() {
        let f = func(
            vec![],
            vec![
                konst("a", ints(&[4], &[1, 2, 3, 4])),
                konst("shp", ints(&[2], &[2, -1])),
                op(
                    "reshape",
                    "r",
                    &[("x", "a"), ("shape", "shp")],
                    tensor(DType::Int32, &[2, 2]),
                ),
                konst("d", string("fp16")),
                op(
                    "cast",
                    "c",
                    &[("x", "r"), ("dtype", "d")],
                    tensor(DType::Fp16, &[2, 2]),
                ),
                konst("s0", scalar_int(0)),
                konst("s1", scalar_int(5)),
                konst("st", scalar_int(2)),
                op(
                    "range_1d",
                    "rg",
                    &[("start", "s0"), ("end", "s1"), ("step", "st")],
                    tensor(DType::Int32, &[3]),
                ),
            ],
        );
        let env = evaluate(&f);
        let r = env.get("r").expect("reshape folds");
        assert_eq!(r.shape, vec![2, 2]);
        let c = env.get("c").expect("cast folds");
        assert_eq!(c.dtype, DType::Fp16);
        assert_eq!(c.data, ConstData::Floats(vec![1.0, 2.0, 3.0, 4.0]));
        assert_eq!(env.get("rg").and_then(|v| v.ints()), Some(vec![0, 2, 4]));
    }
}
