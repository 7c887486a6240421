//! Constant evaluation of a `slice_update` window, enough for the pad fix.
//!
//! Resolves `begin`/`end`/`stride`/masks through inline literals and `const` ops, per axis, with the
//! Python-slice semantics of FORMAT.md §6.4. To be replaced by `analysis::state_writes` once it lands.

use crate::ir::render::unpack_bytes;
use crate::ir::{Arg, Function, Literal, NodeId, Op, TensorData};

/// One constant vector parameter of a slice op.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstParam {
    /// The parameter is not bound (default value applies).
    Absent,
    /// Bound to a constant; the elements as integers (booleans as 0/1).
    Const(Vec<i64>),
    /// Bound to something computed at run time.
    Dynamic,
}

impl ConstParam {
    fn at(&self, axis: usize) -> Option<Option<i64>> {
        match self {
            ConstParam::Absent => Some(None),
            ConstParam::Const(v) => v.get(axis).map(|x| Some(*x)),
            ConstParam::Dynamic => None,
        }
    }
}

/// The integers of a literal (booleans as 0/1), when it holds an immediate integer or bool tensor.
pub fn literal_ints(lit: &Literal) -> Option<Vec<i64>> {
    match lit.tensor_data()? {
        TensorData::Ints(v) => Some(v.clone()),
        TensorData::Bools(v) => Some(v.iter().map(|&b| i64::from(b)).collect()),
        TensorData::Bytes(b) => Some(unpack_bytes(lit.ty.tensor()?.dtype, b)),
        TensorData::Floats(_) | TensorData::Strings(_) => None,
    }
}

/// Evaluates parameter `param` of `op` to a constant vector when it is one.
pub fn const_param(f: &Function, op: &Op, param: &str) -> ConstParam {
    let Some(p) = op.param(param) else {
        return ConstParam::Absent;
    };
    let [arg] = p.args.as_slice() else {
        return ConstParam::Dynamic;
    };
    let lit = match arg {
        Arg::Value(lit) => Some(&**lit),
        Arg::Name(name) => f
            .def(name)
            .and_then(|d| f.op(d.node))
            .filter(|o| o.op_type == "const")
            .and_then(|o| o.attributes.get("val")),
    };
    match lit.and_then(literal_ints) {
        Some(v) => ConstParam::Const(v),
        None => ConstParam::Dynamic,
    }
}

/// The window parameters of a `slice_update` (or `slice_by_index`), unresolved.
#[derive(Clone, Debug, PartialEq)]
pub struct SliceParams {
    pub begin: ConstParam,
    pub end: ConstParam,
    pub stride: ConstParam,
    pub begin_mask: ConstParam,
    pub end_mask: ConstParam,
    pub squeeze_mask: ConstParam,
}

impl SliceParams {
    /// Reads the window parameters of op `id`.
    pub fn of(f: &Function, id: NodeId) -> Option<SliceParams> {
        let op = f.op(id)?;
        Some(SliceParams {
            begin: const_param(f, op, "begin"),
            end: const_param(f, op, "end"),
            stride: const_param(f, op, "stride"),
            begin_mask: const_param(f, op, "begin_mask"),
            end_mask: const_param(f, op, "end_mask"),
            squeeze_mask: const_param(f, op, "squeeze_mask"),
        })
    }

    /// The window on `axis` of a dimension of `dim` elements, when it is constant.
    pub fn axis(&self, axis: usize, dim: u64) -> Option<AxisWindow> {
        let begin = self.begin.at(axis)?;
        let end = self.end.at(axis)?;
        let stride = self.stride.at(axis)?.unwrap_or(1);
        let begin_mask = self.begin_mask.at(axis)?.unwrap_or(0) != 0;
        let end_mask = self.end_mask.at(axis)?.unwrap_or(0) != 0;
        let squeeze = self.squeeze_mask.at(axis)?.unwrap_or(0) != 0;
        // begin and end are required parameters: absent means we cannot say.
        Some(AxisWindow {
            begin: begin?,
            end: end?,
            stride,
            begin_mask,
            end_mask,
            squeeze,
            dim: i64::try_from(dim).ok()?,
        })
    }
}

/// The raw window parameters on one axis, with the axis size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisWindow {
    pub begin: i64,
    pub end: i64,
    pub stride: i64,
    pub begin_mask: bool,
    pub end_mask: bool,
    pub squeeze: bool,
    pub dim: i64,
}

impl AxisWindow {
    /// The resolved half-open range `[b, e)` for unit stride, `None` for other strides.
    pub fn resolved(&self) -> Option<(i64, i64)> {
        if self.stride != 1 && !self.squeeze {
            return None;
        }
        let clamp = |v: i64| {
            let v = if v < 0 { v.saturating_add(self.dim) } else { v };
            v.clamp(0, self.dim)
        };
        let b = if self.begin_mask {
            0
        } else {
            clamp(self.begin)
        };
        if self.squeeze {
            return Some((b, b.saturating_add(1).min(self.dim)));
        }
        let e = if self.end_mask {
            self.dim
        } else {
            clamp(self.end)
        };
        Some((b, e.max(b)))
    }

    /// True when the raw `begin` would name another row if the axis grew by one row (a negative
    /// index, or one clamped at the end).
    pub fn begin_depends_on_dim(&self) -> bool {
        !self.begin_mask && (self.begin < 0 || self.begin > self.dim)
    }

    /// True when the raw `end` would name another row if the axis grew by one row (`end_mask`, a
    /// negative index, or one clamped at the end).
    pub fn end_depends_on_dim(&self) -> bool {
        !self.squeeze && (self.end_mask || self.end < 0 || self.end > self.dim)
    }

    /// True when the raw parameters would name a different range if the axis grew by one row.
    pub fn depends_on_dim(&self) -> bool {
        self.begin_depends_on_dim() || self.end_depends_on_dim()
    }

    /// True when the window covers the whole axis.
    pub fn is_full(&self) -> bool {
        self.resolved() == Some((0, self.dim))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(begin: i64, end: i64, bm: bool, em: bool) -> AxisWindow {
        AxisWindow {
            begin,
            end,
            stride: 1,
            begin_mask: bm,
            end_mask: em,
            squeeze: false,
            dim: 8,
        }
    }

    #[test]
    fn resolution_follows_python_slices() {
        assert_eq!(w(0, 8, false, false).resolved(), Some((0, 8)));
        assert_eq!(w(3, -1, false, false).resolved(), Some((3, 7)));
        assert_eq!(w(-2, 0, false, true).resolved(), Some((6, 8)));
        assert_eq!(w(5, 99, true, false).resolved(), Some((0, 8)));
        assert!(w(0, 8, false, false).is_full());
        assert!(!w(0, 7, false, false).is_full());
    }

    #[test]
    fn masks_and_negatives_depend_on_the_dimension() {
        assert!(!w(0, 8, false, false).depends_on_dim());
        assert!(w(0, 0, false, true).depends_on_dim());
        assert!(w(0, -1, false, false).depends_on_dim());
        assert!(w(-8, 8, false, false).depends_on_dim());
        assert!(w(0, 9, false, false).depends_on_dim());
        assert!(!w(0, 8, true, false).depends_on_dim());
    }
}
