//! Integer value ranges: for every integer (or bool) value of a function, an interval its elements
//! lie in when the function is given valid inputs (and for a float value used as indices, the
//! interval valid inputs give it). The dims of a flexible input are those its model description
//! allows (ranged or enumerated shapes), else `[0, 2^31 − 1]`.
//!
//! Two passes. Forward, in program order, what a value can hold: constants, the dtype's bounds for
//! function inputs and unknown results, shapes (`≥ 0`), `range_1d`, index outputs (`reduce_argmax`,
//! `argsort`, `topk`: `[0, D − 1]`), interval arithmetic (`add`, `sub`, `mul`, `floor_div`, `mod`,
//! `maximum`, `minimum`, `clip`), `select` and `concat` (the union), `cast` (kept when it fits the new
//! type, else that type's bounds) and ops that move elements (`reshape`, `gather` of a table, …).
//! Backward, in reverse program order, what a value must hold for the inputs to be valid (an
//! assumption, not a proof): the `indices` of a `gather` / `gather_along_axis` into an axis of
//! length L are in `[0, L − 1]`; the `begin` / `end` of a slice of a state read are in `[0, N]` on a
//! state axis of length N (the cache position); these constraints flow back through casts, reshapes,
//! `concat` (element by element), `add` / `sub`, and the negative-index guard
//! `select(x >= 0, x, x + L)` that coremltools writes before every gather it converts from torch
//! (torch's `embedding` and `index_select` take no negative indices, so valid ids pass it
//! unchanged). Then forward again, each value narrowed by what valid inputs give it. Linear in the
//! number of ops.

use std::fmt;

use rustc_hash::FxHashMap;

use super::consteval::{ConstData, ConstEnv, ConstValue};
use crate::ir::{
    Arg, DType, FeatureKind, Flexibility, Function, Literal, Model, Name, Node, Op, ValueType,
};

/// A closed interval of integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// The smallest value (included).
    pub min: i64,
    /// The largest value (included).
    pub max: i64,
}

impl Interval {
    /// `[min, max]` (callers keep `min <= max`).
    pub fn new(min: i64, max: i64) -> Interval {
        Interval { min, max }
    }

    /// The values an element of `dtype` can hold (`None` for floats and strings).
    pub fn of_dtype(dtype: DType) -> Option<Interval> {
        let (min, max) = match dtype {
            DType::Bool | DType::UInt1 => (0, 1),
            DType::UInt2 => (0, 3),
            DType::UInt3 => (0, 7),
            DType::UInt4 => (0, 15),
            DType::UInt6 => (0, 63),
            DType::UInt8 => (0, u8::MAX.into()),
            DType::UInt16 => (0, u16::MAX.into()),
            DType::UInt32 => (0, u32::MAX.into()),
            DType::UInt64 => (0, i64::MAX),
            DType::Int4 => (-8, 7),
            DType::Int8 => (i8::MIN.into(), i8::MAX.into()),
            DType::Int16 => (i16::MIN.into(), i16::MAX.into()),
            DType::Int32 => (i32::MIN.into(), i32::MAX.into()),
            DType::Int64 => (i64::MIN, i64::MAX),
            _ => return None,
        };
        Some(Interval { min, max })
    }

    fn from_i128(min: i128, max: i128) -> Interval {
        let clamp = |v: i128| v.clamp(i64::MIN.into(), i64::MAX.into()) as i64;
        Interval {
            min: clamp(min),
            max: clamp(max),
        }
    }

    /// The smallest interval holding both.
    pub fn hull(self, o: Interval) -> Interval {
        Interval::new(self.min.min(o.min), self.max.max(o.max))
    }

    /// The common part, if any.
    pub fn meet(self, o: Interval) -> Option<Interval> {
        let (min, max) = (self.min.max(o.min), self.max.min(o.max));
        (min <= max).then_some(Interval { min, max })
    }

    /// True when every value of `self` is in `o`.
    pub fn within(self, o: Interval) -> bool {
        self.min >= o.min && self.max <= o.max
    }

    fn add(self, o: Interval) -> Interval {
        Interval::from_i128(
            i128::from(self.min) + i128::from(o.min),
            i128::from(self.max) + i128::from(o.max),
        )
    }

    fn sub(self, o: Interval) -> Interval {
        Interval::from_i128(
            i128::from(self.min) - i128::from(o.max),
            i128::from(self.max) - i128::from(o.min),
        )
    }

    fn mul(self, o: Interval) -> Interval {
        let c = [
            i128::from(self.min) * i128::from(o.min),
            i128::from(self.min) * i128::from(o.max),
            i128::from(self.max) * i128::from(o.min),
            i128::from(self.max) * i128::from(o.max),
        ];
        Interval::from_i128(
            c.iter().copied().min().unwrap_or(0),
            c.iter().copied().max().unwrap_or(0),
        )
    }

    /// Floor division by a divisor that is strictly positive or strictly negative.
    fn floor_div(self, o: Interval) -> Option<Interval> {
        if o.min <= 0 && o.max >= 0 {
            return None;
        }
        let c = [
            self.min.div_euclid_floor(o.min),
            self.min.div_euclid_floor(o.max),
            self.max.div_euclid_floor(o.min),
            self.max.div_euclid_floor(o.max),
        ];
        Some(Interval::new(
            c.iter().copied().min()?,
            c.iter().copied().max()?,
        ))
    }
}

/// `floor(a / b)` for `b != 0`, saturating.
trait FloorDiv {
    fn div_euclid_floor(self, b: i64) -> i64;
}

impl FloorDiv for i64 {
    fn div_euclid_floor(self, b: i64) -> i64 {
        let (a, b) = (i128::from(self), i128::from(b));
        let q = a / b;
        let q = if (a % b != 0) && ((a < 0) != (b < 0)) {
            q - 1
        } else {
            q
        };
        q.clamp(i64::MIN.into(), i64::MAX.into()) as i64
    }
}

/// Writes a bound, with the common type limits by name (`2^31-1`).
fn bound(f: &mut fmt::Formatter<'_>, v: i64) -> fmt::Result {
    match v {
        v if v == i64::from(i32::MAX) => f.write_str("2^31-1"),
        v if v == i64::from(i32::MIN) => f.write_str("-2^31"),
        i64::MAX => f.write_str("2^63-1"),
        i64::MIN => f.write_str("-2^63"),
        v => write!(f, "{v}"),
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        bound(f, self.min)?;
        f.write_str(", ")?;
        bound(f, self.max)?;
        f.write_str("]")
    }
}

/// Value name → range, for the integer and bool values of a function.
#[derive(Clone, Debug, Default)]
pub struct RangeMap {
    values: FxHashMap<Name, Interval>,
}

impl RangeMap {
    /// The range of a named value (`None`: not an integer value).
    pub fn get(&self, name: &str) -> Option<Interval> {
        self.values.get(name).copied()
    }

    /// The range of one binding: a named value, or an inline integer literal's elements.
    pub fn arg(&self, arg: &Arg) -> Option<Interval> {
        match arg {
            Arg::Name(n) => self.get(n),
            Arg::Value(lit) => literal_range(lit),
        }
    }
}

/// The range of an inline literal's elements (its dtype's when they are not known).
pub fn literal_range(lit: &Literal) -> Option<Interval> {
    let t = lit.ty.tensor()?;
    ConstValue::from_literal(lit)
        .and_then(|c| const_range(&c))
        .or_else(|| Interval::of_dtype(t.dtype))
}

fn const_range(c: &ConstValue) -> Option<Interval> {
    match &c.data {
        ConstData::Ints(v) => Some(Interval::new(*v.iter().min()?, *v.iter().max()?)),
        ConstData::Bools(v) => {
            let (lo, hi) = (v.iter().all(|&b| b), v.iter().any(|&b| b));
            (!v.is_empty()).then(|| Interval::new(i64::from(lo), i64::from(hi)))
        }
        _ => None,
    }
}

/// The bounds the model description puts on the dims of a function's inputs (ranged or
/// enumerated shapes): input name → per axis `[lower, upper]`.
#[derive(Clone, Debug, Default)]
pub struct InputDims {
    inputs: FxHashMap<String, Vec<Interval>>,
    /// Value name → an upper bound on every unknown dim of it, for values computed from bounded
    /// inputs by ops whose output axes are never longer than an axis of their inputs.
    unknown_max: FxHashMap<String, i64>,
}

/// Ops each of whose output axes is at most as long as some axis of an input (element-wise ops,
/// casts, `linear`, `matmul`, gathers, slices, reductions, permutations): an unknown output dim is
/// bounded by the longest input axis. `concat`, `tile`, `reshape` and the like are not.
const NON_GROWING: &[&str] = &[
    "cast",
    "identity",
    "relu",
    "gelu",
    "silu",
    "sigmoid",
    "tanh",
    "exp",
    "sqrt",
    "rsqrt",
    "erf",
    "add",
    "sub",
    "mul",
    "real_div",
    "pow",
    "maximum",
    "minimum",
    "select",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "equal",
    "not_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "linear",
    "matmul",
    "gather",
    "gather_along_axis",
    "softmax",
    "layer_norm",
    "rms_norm",
    "transpose",
    "expand_dims",
    "squeeze",
    "slice_by_index",
    "slice_by_size",
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "clip",
    "abs",
    "neg",
    "floor",
    "round",
    "sin",
    "cos",
];

/// For every value with an unknown dim computed from the bounded inputs `inputs` by
/// [`NON_GROWING`] ops: the longest any of its axes can be (one pass in program order; nothing
/// when no input is flexible).
fn unknown_dim_bounds(
    f: &Function,
    inputs: &FxHashMap<String, Vec<Interval>>,
) -> FxHashMap<String, i64> {
    let mut out: FxHashMap<String, i64> = FxHashMap::default();
    if inputs.is_empty() {
        return out;
    }
    for (name, dims) in inputs {
        out.insert(name.clone(), dims.iter().map(|d| d.max).max().unwrap_or(0));
    }
    let longest = |ty: Option<&ValueType>| -> Option<i64> {
        let shape = ty?.tensor()?.shape.clone()?;
        shape
            .iter()
            .map(|d| d.known().and_then(|n| i64::try_from(n).ok()))
            .collect::<Option<Vec<_>>>()
            .map(|v| v.into_iter().max().unwrap_or(1))
    };
    for (_, op) in f.ops() {
        if !NON_GROWING.contains(&op.op_type.as_str()) {
            continue;
        }
        let mut bound: Option<i64> = Some(0);
        for p in &op.inputs {
            for a in &p.args {
                let b = match a {
                    Arg::Name(n) => out
                        .get(n.as_str())
                        .copied()
                        .or_else(|| longest(f.value_type(n))),
                    Arg::Value(l) => longest(Some(&l.ty)),
                };
                bound = match (bound, b) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    _ => None,
                };
            }
        }
        let Some(bound) = bound else {
            continue;
        };
        for o in &op.outputs {
            let unknown =
                o.ty.tensor()
                    .and_then(|t| t.shape.as_ref())
                    .is_some_and(|s| s.iter().any(|d| d.known().is_none()));
            if unknown {
                out.insert(o.name.to_string(), bound);
            }
        }
    }
    out
}

impl InputDims {
    /// The bounds `model`'s description gives the inputs of `f`.
    pub fn of(model: &Model, f: &Function) -> InputDims {
        let mut inputs = FxHashMap::default();
        let Some(desc) = model.description.for_function(&f.name) else {
            return InputDims::default();
        };
        for i in &desc.inputs {
            let FeatureKind::Array {
                flexible: Some(flex),
                ..
            } = &i.kind
            else {
                continue;
            };
            let dims: Option<Vec<Interval>> = match flex {
                Flexibility::Ranges(r) => Some(
                    r.iter()
                        .map(|&(lo, hi)| {
                            let lo = i64::try_from(lo).unwrap_or(i64::MAX);
                            let hi = if hi < 0 { i32::MAX.into() } else { hi };
                            Interval::new(lo.min(hi), hi)
                        })
                        .collect(),
                ),
                Flexibility::Enumerated(shapes) => {
                    let rank = shapes.first().map_or(0, Vec::len);
                    (0..rank)
                        .map(|a| {
                            shapes
                                .iter()
                                .map(|s| s.get(a).map(|&d| Interval::new(d, d)))
                                .collect::<Option<Vec<_>>>()?
                                .into_iter()
                                .reduce(Interval::hull)
                        })
                        .collect()
                }
            };
            if let Some(d) = dims {
                inputs.insert(i.name.clone(), d);
            }
        }
        let unknown_max = unknown_dim_bounds(f, &inputs);
        InputDims {
            inputs,
            unknown_max,
        }
    }
}

/// Computes the range of every integer value of `f` (flexible input dims unbounded).
pub fn analyze(f: &Function, consts: &ConstEnv) -> RangeMap {
    analyze_with(f, consts, &InputDims::default())
}

/// Computes the range of every integer value of `f`; `dims` bounds its inputs' flexible dims.
pub fn analyze_with(f: &Function, consts: &ConstEnv, dims: &InputDims) -> RangeMap {
    // What values can hold, what valid inputs need, then what values hold given those needs.
    let none = FxHashMap::default();
    let fwd = forward(f, consts, dims, &none);
    let need = backward(f, consts, &fwd);
    RangeMap {
        values: forward(f, consts, dims, &need),
    }
}

fn int_dtype(ty: Option<&ValueType>) -> Option<Interval> {
    Interval::of_dtype(ty?.tensor()?.dtype)
}

struct Fwd<'a> {
    f: &'a Function,
    consts: &'a ConstEnv,
    dims: &'a InputDims,
    map: FxHashMap<Name, Interval>,
}

impl Fwd<'_> {
    fn arg(&self, arg: &Arg) -> Option<Interval> {
        match arg {
            Arg::Name(n) => self.map.get(n).copied(),
            Arg::Value(lit) => literal_range(lit),
        }
    }

    fn param(&self, op: &Op, name: &str) -> Option<Interval> {
        self.arg(op.arg(name)?)
    }

    /// The union of every binding of every listed parameter.
    fn union(&self, op: &Op, names: &[&str]) -> Option<Interval> {
        let mut out: Option<Interval> = None;
        for n in names {
            for a in op.param(n)?.args.iter() {
                let r = self.arg(a)?;
                out = Some(out.map_or(r, |o| o.hull(r)));
            }
        }
        out
    }

    /// The length of the axis `op`'s constant `axis` names on parameter `of`.
    fn axis_len(&self, op: &Op, of: &str) -> Option<i64> {
        axis_len(self.f, self.consts, op, of)
    }

    /// What `op`'s first output can hold, before it is clamped to the output's dtype.
    fn result(&self, op: &Op) -> Option<Interval> {
        let p = |n: &str| self.param(op, n);
        match op.op_type.as_str() {
            "add" => Some(p("x")?.add(p("y")?)),
            "sub" => Some(p("x")?.sub(p("y")?)),
            "mul" => Some(p("x")?.mul(p("y")?)),
            "floor_div" => p("x")?.floor_div(p("y")?),
            "mod" => {
                let y = p("y")?;
                let x = p("x")?;
                if y.min > 0 {
                    let hi = y.max - 1;
                    Some(if x.min >= 0 {
                        Interval::new(0, x.max.min(hi))
                    } else {
                        Interval::new(0, hi)
                    })
                } else {
                    None
                }
            }
            "maximum" => {
                let (x, y) = (p("x")?, p("y")?);
                Some(Interval::new(x.min.max(y.min), x.max.max(y.max)))
            }
            "minimum" => {
                let (x, y) = (p("x")?, p("y")?);
                Some(Interval::new(x.min.min(y.min), x.max.min(y.max)))
            }
            "clip" => {
                let (x, lo, hi) = (p("x")?, p("alpha")?, p("beta")?);
                let min = x.min.clamp(lo.min, hi.max.max(lo.min));
                let max = x.max.clamp(lo.min, hi.max.max(lo.min));
                Some(Interval::new(min.min(max), max))
            }
            "select" => Some(p("a")?.hull(p("b")?)),
            "concat" => self.union(op, &["values"]),
            "cast" | "identity" | "reshape" | "expand_dims" | "squeeze" | "transpose"
            | "slice_by_index" | "slice_by_size" | "gather" | "gather_along_axis" | "gather_nd"
            | "tile" | "split" | "reduce_max" | "reduce_min" | "pad" | "reverse" | "flatten2d"
            | "sliding_windows" => p("x"),
            "fill" => p("value"),
            "range_1d" => {
                let (start, end, step) = (p("start")?, p("end")?, p("step")?);
                if step.min > 0 {
                    Some(Interval::new(start.min, start.max.max(end.max - 1)))
                } else if step.max < 0 {
                    Some(Interval::new(start.min.min(end.min + 1), start.max))
                } else {
                    None
                }
            }
            "shape" => {
                let x = op.arg_name("x")?;
                let dims = self.f.value_type(x)?.tensor()?.shape.clone()?;
                let described = self.dims.inputs.get(x).filter(|d| d.len() == dims.len());
                let computed = self.dims.unknown_max.get(x).copied();
                let mut r: Option<Interval> = None;
                for (axis, d) in dims.into_iter().enumerate() {
                    let i = match (d.known(), described, computed) {
                        (Some(n), ..) => Interval::new(n as i64, n as i64),
                        (None, Some(b), _) => b[axis],
                        (None, None, Some(max)) => Interval::new(0, max),
                        (None, None, None) => Interval::new(0, i32::MAX.into()),
                    };
                    r = Some(r.map_or(i, |o| o.hull(i)));
                }
                r
            }
            "reduce_argmax" | "reduce_argmin" | "argsort" => {
                let d = self.axis_len(op, "x")?;
                Some(Interval::new(0, d - 1))
            }
            _ => None,
        }
    }
}

/// The dimension of `op`'s parameter `of` at the constant `axis` (negative counts from the end).
fn axis_len(f: &Function, consts: &ConstEnv, op: &Op, of: &str) -> Option<i64> {
    let axis = consts.param(op, "axis")?.as_int()?;
    let dims = match op.arg(of)? {
        Arg::Name(n) => f.value_type(n)?.tensor()?.shape.clone()?,
        Arg::Value(l) => l.ty.tensor()?.shape.clone()?,
    };
    let i = if axis < 0 {
        dims.len() as i64 + axis
    } else {
        axis
    };
    let d = dims.get(usize::try_from(i).ok()?)?.known()?;
    i64::try_from(d).ok().filter(|&d| d > 0)
}

/// What every value can hold, each narrowed by what `need` says valid inputs give it.
fn forward(
    f: &Function,
    consts: &ConstEnv,
    dims: &InputDims,
    need: &FxHashMap<Name, Interval>,
) -> FxHashMap<Name, Interval> {
    let mut fw = Fwd {
        f,
        consts,
        dims,
        map: FxHashMap::default(),
    };
    let narrowed = |name: &Name, r: Interval| {
        need.get(name.as_str())
            .and_then(|n| r.meet(*n))
            .unwrap_or(r)
    };
    // A float value has a range only when valid inputs bound it (it indexes an axis).
    let float_need = |name: &Name, ty: &ValueType| {
        ty.tensor()
            .filter(|t| t.dtype.is_float())
            .and_then(|_| need.get(name.as_str()).copied())
    };
    for (_, inp) in f.inputs() {
        if let Some(r) = int_dtype(Some(&inp.ty)) {
            fw.map.insert(inp.name.clone(), narrowed(&inp.name, r));
        } else if let Some(r) = float_need(&inp.name, &inp.ty) {
            fw.map.insert(inp.name.clone(), r);
        }
    }
    for block in f.blocks.iter().skip(1) {
        for &id in &block.inputs {
            if let Some(Node::Input(inp)) = f.node(id) {
                if let Some(r) = int_dtype(Some(&inp.ty)) {
                    fw.map.insert(inp.name.clone(), narrowed(&inp.name, r));
                }
            }
        }
    }
    for (_, op) in f.ops() {
        let result = fw.result(op);
        for (i, out) in op.outputs.iter().enumerate() {
            let Some(dtype) = int_dtype(Some(&out.ty)) else {
                if let Some(r) = float_need(&out.name, &out.ty) {
                    fw.map.insert(out.name.clone(), r);
                }
                continue;
            };
            let known = consts.get(&out.name).and_then(const_range);
            let computed = match (op.op_type.as_str(), i) {
                // topk's second output holds indices into the axis.
                ("topk", 1) => fw.axis_len(op, "x").map(|d| Interval::new(0, d - 1)),
                ("topk", _) => fw.param(op, "x"),
                (_, 0) | ("split", _) => result,
                _ => None,
            };
            // A result that does not fit the output's type wraps: anything of that type.
            let r = known
                .or_else(|| computed.filter(|c| c.within(dtype)))
                .unwrap_or(dtype);
            fw.map.insert(out.name.clone(), narrowed(&out.name, r));
        }
    }
    fw.map
}

struct Bwd<'a> {
    f: &'a Function,
    consts: &'a ConstEnv,
    fwd: &'a FxHashMap<Name, Interval>,
    need: FxHashMap<Name, Interval>,
}

impl Bwd<'_> {
    /// Adds a constraint on a binding (a named value; literals need none).
    fn demand(&mut self, arg: &Arg, r: Interval) {
        let Arg::Name(n) = arg else { return };
        let numeric = self
            .f
            .value_type(n)
            .and_then(ValueType::tensor)
            .is_some_and(|t| t.dtype.is_float() || Interval::of_dtype(t.dtype).is_some());
        if !numeric {
            return;
        }
        let merged = match self.need.get(n.as_str()) {
            Some(prev) => prev.meet(r).unwrap_or(*prev),
            None => r,
        };
        self.need.insert(n.clone(), merged);
    }

    fn fwd_of(&self, arg: &Arg) -> Option<Interval> {
        match arg {
            Arg::Name(n) => self.fwd.get(n.as_str()).copied(),
            Arg::Value(lit) => literal_range(lit),
        }
    }

    /// Constraints on a rank-1 binding per element (`begin` / `end` of a slice): a `concat` of
    /// pieces gives each piece the constraints of its own elements; anything else gets their hull.
    fn demand_elements(&mut self, arg: &Arg, per: &[Option<Interval>]) {
        let hull = |s: &[Option<Interval>]| -> Option<Interval> {
            s.iter()
                .copied()
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .reduce(Interval::hull)
        };
        if let Arg::Name(n) = arg {
            if let Some(op) = self.f.def(n).and_then(|d| self.f.op(d.node)) {
                if op.op_type == "concat"
                    && self.consts.param(op, "axis").and_then(|a| a.as_int()) == Some(0)
                {
                    if let Some(pieces) = op.param("values") {
                        let lens: Option<Vec<usize>> =
                            pieces.args.iter().map(|a| piece_len(self.f, a)).collect();
                        if let Some(lens) = lens.filter(|l| l.iter().sum::<usize>() == per.len()) {
                            let mut at = 0;
                            for (a, len) in pieces.args.iter().zip(lens) {
                                if let Some(r) = hull(&per[at..at + len]) {
                                    self.demand(a, r);
                                }
                                at += len;
                            }
                            return;
                        }
                    }
                }
            }
        }
        if let Some(r) = hull(per) {
            self.demand(arg, r);
        }
    }

    fn op(&mut self, op: &Op) {
        match op.op_type.as_str() {
            "gather" | "gather_along_axis" => {
                if let (Some(l), Some(i)) =
                    (axis_len(self.f, self.consts, op, "x"), op.arg("indices"))
                {
                    self.demand(i, Interval::new(0, l - 1));
                }
            }
            "slice_update" | "slice_by_index" if reads_state(self.f, op) => {
                if let Some(dims) = op
                    .arg("x")
                    .and_then(|x| match x {
                        Arg::Name(n) => self.f.value_type(n),
                        Arg::Value(_) => None,
                    })
                    .and_then(|t| t.tensor()?.shape.clone())
                {
                    let per: Vec<Option<Interval>> = dims
                        .iter()
                        .map(|d| d.known().map(|n| Interval::new(0, n as i64)))
                        .collect();
                    for p in ["begin", "end"] {
                        if let Some(a) = op.arg(p) {
                            self.demand_elements(a, &per);
                        }
                    }
                }
            }
            _ => {}
        }
        let Some(out) = op.outputs.first() else {
            return;
        };
        let Some(need) = self.need.get(out.name.as_str()).copied() else {
            return;
        };
        match op.op_type.as_str() {
            "cast" | "identity" | "reshape" | "expand_dims" | "squeeze" | "transpose" | "tile"
            | "flatten2d" => {
                if let Some(x) = op.arg("x") {
                    self.demand(x, need);
                }
            }
            "concat" => {
                if let Some(p) = op.param("values") {
                    for a in p.args.clone() {
                        self.demand(&a, need);
                    }
                }
            }
            "add" | "sub" => {
                let (Some(x), Some(y)) = (op.arg("x"), op.arg("y")) else {
                    return;
                };
                if let Some(ry) = self.fwd_of(y) {
                    let rx = if op.op_type == "add" {
                        need.sub(ry)
                    } else {
                        need.add(ry)
                    };
                    self.demand(x, rx);
                }
                if let Some(rx) = self.fwd_of(x) {
                    let ry = if op.op_type == "add" {
                        need.sub(rx)
                    } else {
                        rx.sub(need)
                    };
                    self.demand(y, ry);
                }
            }
            "select" => {
                // Valid indices are non-negative already, so the guard passes them on unchanged.
                if let Some(x) = negative_index_guard(self.f, self.consts, op) {
                    self.demand(&Arg::Name(x), need);
                }
            }
            _ => {}
        }
    }
}

/// The number of elements of a rank-0 or rank-1 piece of a `concat`.
fn piece_len(f: &Function, a: &Arg) -> Option<usize> {
    let t = match a {
        Arg::Name(n) => f.value_type(n)?.tensor()?.clone(),
        Arg::Value(l) => l.ty.tensor()?.clone(),
    };
    let dims = t.known_dims()?;
    match dims.as_slice() {
        [] => Some(1),
        [n] => usize::try_from(*n).ok(),
        _ => None,
    }
}

/// True when `op`'s `x` is a state's content: a `read_state`, or a slice or update of one.
fn reads_state(f: &Function, op: &Op) -> bool {
    let mut name = match op.arg_name("x") {
        Some(n) => n,
        None => return false,
    };
    for _ in 0..8 {
        let Some(p) = f.def(name).and_then(|d| f.op(d.node)) else {
            return f.value_type(name).is_some_and(ValueType::is_state);
        };
        match p.op_type.as_str() {
            "read_state" => return true,
            "slice_by_index" | "slice_update" | "identity" | "cast" => match p.arg_name("x") {
                Some(n) => name = n,
                None => return false,
            },
            _ => return false,
        }
    }
    false
}

/// `select(cond = greater_equal(x, 0), a = x, b = add(x, L))` (what coremltools puts before every
/// gather it converts from torch, `embedding` included): `x`.
fn negative_index_guard(f: &Function, consts: &ConstEnv, op: &Op) -> Option<Name> {
    let producer = |p: &str| {
        let n = op.arg_name(p)?;
        f.op(f.def(n)?.node)
    };
    let x = op.arg_name("a")?;
    let cond = producer("cond")?;
    if cond.op_type != "greater_equal"
        || cond.arg_name("x") != Some(x)
        || consts.param(cond, "y").and_then(|c| c.as_int()) != Some(0)
    {
        return None;
    }
    let b = producer("b")?;
    if b.op_type != "add" {
        return None;
    }
    let other = if b.arg_name("x") == Some(x) {
        "y"
    } else if b.arg_name("y") == Some(x) {
        "x"
    } else {
        return None;
    };
    consts.param(b, other)?.as_int()?;
    Some(Name::from(x))
}

fn backward(
    f: &Function,
    consts: &ConstEnv,
    fwd: &FxHashMap<Name, Interval>,
) -> FxHashMap<Name, Interval> {
    let mut bw = Bwd {
        f,
        consts,
        fwd,
        need: FxHashMap::default(),
    };
    let ops: Vec<&Op> = f.ops().map(|(_, op)| op).collect();
    for op in ops.into_iter().rev() {
        bw.op(op);
    }
    bw.need
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::consteval;
    use crate::read::miltext::parse_program;

    fn ranges(src: &str) -> RangeMap {
        let p = parse_program(src, std::path::Path::new("t.mil")).expect("parses");
        let f = &p.functions[0];
        analyze(f, &consteval::evaluate(f))
    }

    fn prog(inputs: &str, body: &str) -> String {
        format!("program(1.3)\n{{\n    func main<ios18>({inputs}) {{\n{body}\n    }} -> (y);\n}}\n")
    }

    #[test]
    fn token_ids_into_a_table_are_within_its_rows() {
        let r = ranges(&prog(
            "tensor<int32, [1, 4]> ids",
            r#"            tensor<fp16, [1000, 8]> t = const()[name = string("t"), val = tensor<fp16, [1000, 8]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            string u = const()[name = string("u"), val = string("uint16")];
            tensor<uint16, [1, 4]> i16 = cast(dtype = u, x = ids)[name = string("c")];
            int32 ax = const()[name = string("ax"), val = int32(0)];
            tensor<fp16, [1, 4, 8]> y = gather(axis = ax, indices = i16, x = t)[name = string("g")];"#,
        ));
        assert_eq!(r.get("ids"), Some(Interval::new(0, 999)));
        assert_eq!(r.get("i16"), Some(Interval::new(0, 999)));
    }

    #[test]
    fn valid_ids_pass_the_negative_index_guard_unchanged() {
        let r = ranges(&prog(
            "tensor<int32, [4]> ids",
            r#"            tensor<fp16, [64, 8]> t = const()[name = string("t"), val = tensor<fp16, [64, 8]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            int32 zero = const()[name = string("zero"), val = int32(0)];
            int32 rows = const()[name = string("rows"), val = int32(64)];
            tensor<bool, [4]> ge = greater_equal(x = ids, y = zero)[name = string("ge")];
            tensor<int32, [4]> w = add(x = ids, y = rows)[name = string("w")];
            tensor<int32, [4]> idx = select(a = ids, b = w, cond = ge)[name = string("idx")];
            int32 ax = const()[name = string("ax"), val = int32(0)];
            tensor<fp16, [4, 8]> y = gather(axis = ax, indices = idx, x = t)[name = string("g")];"#,
        ));
        assert_eq!(r.get("ids"), Some(Interval::new(0, 63)));
        assert_eq!(r.get("idx"), Some(Interval::new(0, 63)));
        assert_eq!(r.get("ge"), Some(Interval::new(0, 1)));
    }

    #[test]
    fn arithmetic_range_and_argmax() {
        let r = ranges(&prog(
            "tensor<fp16, [1, 50]> logits",
            r#"            int32 s = const()[name = string("s"), val = int32(0)];
            int32 e = const()[name = string("e"), val = int32(64)];
            int32 one = const()[name = string("one"), val = int32(1)];
            tensor<int32, [?]> p = range_1d(start = s, end = e, step = one)[name = string("p")];
            tensor<int32, [?]> q = add(x = p, y = e)[name = string("q")];
            tensor<int32, [?]> h = floor_div(x = q, y = e)[name = string("h")];
            int32 last = const()[name = string("last"), val = int32(-1)];
            tensor<int32, [1]> y = reduce_argmax(axis = last, x = logits)[name = string("y")];"#,
        ));
        assert_eq!(r.get("p"), Some(Interval::new(0, 63)));
        assert_eq!(r.get("q"), Some(Interval::new(64, 127)));
        assert_eq!(r.get("h"), Some(Interval::new(1, 1)));
        assert_eq!(r.get("y"), Some(Interval::new(0, 49)));
        assert_eq!(r.get("logits"), None);
    }

    #[test]
    fn float_indices_get_the_range_of_the_axis_they_index() {
        let r = ranges(&prog(
            "tensor<fp16, [8]> pos",
            r#"            tensor<fp16, [4096, 8]> t = const()[name = string("t"), val = tensor<fp16, [4096, 8]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            string d = const()[name = string("d"), val = string("int32")];
            tensor<int32, [8]> i = cast(dtype = d, x = pos)[name = string("c")];
            int32 ax = const()[name = string("ax"), val = int32(0)];
            tensor<fp16, [8, 8]> y = gather(axis = ax, indices = i, x = t)[name = string("g")];"#,
        ));
        assert_eq!(r.get("i"), Some(Interval::new(0, 4095)));
        assert_eq!(r.get("pos"), Some(Interval::new(0, 4095)));
        assert_eq!(r.get("y"), None);
    }

    #[test]
    fn a_position_into_a_state_axis() {
        let r = ranges(&prog(
            "state<tensor<fp16, [1, 256, 8]>> k, tensor<int32, [1]> pos, tensor<fp16, [1, 1, 8]> v",
            r#"            tensor<fp16, [1, 256, 8]> old = read_state(input = k)[name = string("r")];
            tensor<int32, [1]> z = const()[name = string("z"), val = tensor<int32, [1]>([0])];
            tensor<int32, [1]> one = const()[name = string("one"), val = tensor<int32, [1]>([1])];
            tensor<int32, [1]> end = add(x = pos, y = one)[name = string("end1")];
            int32 ax = const()[name = string("ax"), val = int32(0)];
            bool f = const()[name = string("f"), val = bool(false)];
            tensor<int32, [3]> b = concat(axis = ax, interleave = f, values = (z, pos, z))[name = string("b")];
            tensor<int32, [1]> e8 = const()[name = string("e8"), val = tensor<int32, [1]>([8])];
            tensor<int32, [3]> e = concat(axis = ax, interleave = f, values = (one, end, e8))[name = string("e")];
            tensor<fp16, [1, 256, 8]> y = slice_update(begin = b, end = e, update = v, x = old)[name = string("u")];"#,
        ));
        assert_eq!(r.get("pos"), Some(Interval::new(0, 255)));
        assert_eq!(r.get("end"), Some(Interval::new(1, 256)));
    }

    #[test]
    fn the_shape_of_a_ranged_input_is_within_the_description() {
        let src = prog(
            "tensor<fp16, [1, ?]> audio",
            r#"            tensor<int32, [2]> y = shape(x = audio)[name = string("s")];"#,
        );
        let p = parse_program(&src, std::path::Path::new("t.mil")).expect("parses");
        let f = &p.functions[0];
        let consts = consteval::evaluate(f);
        assert_eq!(
            analyze(f, &consts).get("y"),
            Some(Interval::new(0, i32::MAX.into()))
        );
        let dims = InputDims {
            inputs: [(
                "audio".to_string(),
                vec![Interval::new(1, 1), Interval::new(1, 32000)],
            )]
            .into_iter()
            .collect(),
            ..InputDims::default()
        };
        assert_eq!(
            analyze_with(f, &consts, &dims).get("y"),
            Some(Interval::new(1, 32000))
        );
    }

    /// coremltools' `shape(linear_0)` of `[1, ?, 64]`, the `?` from ids bounded to RangeDim 1…256:
    /// within the longest axis its inputs can have, not 2^31 − 1.
    #[test]
    fn the_shape_of_a_value_computed_from_a_ranged_input_is_bounded() {
        let src = prog(
            "tensor<int32, [1, ?]> ids",
            r#"            tensor<fp16, [64, 64]> w = const()[name = string("w"), val = tensor<fp16, [64, 64]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            string d16 = const()[name = string("d16"), val = string("fp16")];
            tensor<fp16, [1, ?]> h = cast(dtype = d16, x = ids)[name = string("h")];
            tensor<int32, [1]> ax = const()[name = string("ax"), val = tensor<int32, [1]>([-1])];
            tensor<fp16, [1, ?, 1]> e = expand_dims(axes = ax, x = h)[name = string("e")];
            tensor<fp16, [1, ?, 64]> l = linear(weight = w, x = e)[name = string("l")];
            tensor<int32, [3]> y = shape(x = l)[name = string("s")];
            int32 a0 = const()[name = string("a0"), val = int32(1)];
            bool il = const()[name = string("il"), val = bool(false)];
            tensor<fp16, [1, ?, 64]> c = concat(axis = a0, interleave = il, values = (l, l))[name = string("c")];
            tensor<int32, [3]> z = shape(x = c)[name = string("t")];"#,
        );
        let p = parse_program(&src, std::path::Path::new("t.mil")).expect("parses");
        let f = &p.functions[0];
        let consts = consteval::evaluate(f);
        let mut inputs = FxHashMap::default();
        inputs.insert(
            "ids".to_string(),
            vec![Interval::new(1, 1), Interval::new(1, 256)],
        );
        let dims = InputDims {
            unknown_max: unknown_dim_bounds(f, &inputs),
            inputs,
        };
        let r = analyze_with(f, &consts, &dims);
        assert_eq!(r.get("y"), Some(Interval::new(0, 256)));
        assert_eq!(
            r.get("z"),
            Some(Interval::new(0, i32::MAX.into())),
            "a concat may grow an axis"
        );
    }

    #[test]
    fn a_narrowing_cast_of_data_keeps_the_dtype_range() {
        let r = ranges(&prog(
            "tensor<int32, [4]> codes",
            r#"            string d = const()[name = string("d"), val = string("int16")];
            tensor<int16, [4]> y = cast(dtype = d, x = codes)[name = string("c")];"#,
        ));
        assert_eq!(r.get("codes"), Interval::of_dtype(DType::Int32));
        assert_eq!(r.get("y"), Interval::of_dtype(DType::Int16));
        assert_eq!(
            r.get("codes").map(|i| i.to_string()).as_deref(),
            Some("[-2^31, 2^31-1]")
        );
    }
}
