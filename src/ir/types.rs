//! Element types, dimensions and value types shared by every reader and pass.

use std::fmt;

/// A MIL element type. Unknown proto enum numbers are kept, never rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`.
    Bool,
    /// `string` (text; not a numeric element).
    String,
    /// IEEE binary16 float.
    Fp16,
    /// IEEE binary32 float.
    Fp32,
    /// IEEE binary64 float.
    Fp64,
    /// bfloat16 (8-bit exponent, 7-bit mantissa).
    Bf16,
    /// 8-bit float, 4-bit exponent and 3-bit mantissa, finite (no infinities).
    Fp8E4M3Fn,
    /// 8-bit float, 5-bit exponent and 2-bit mantissa.
    Fp8E5M2,
    /// Signed 4-bit integer (packed two per byte in weight files).
    Int4,
    /// Signed 8-bit integer.
    Int8,
    /// Signed 16-bit integer.
    Int16,
    /// Signed 32-bit integer.
    Int32,
    /// Signed 64-bit integer.
    Int64,
    /// Unsigned 1-bit integer (palettization indices, packed).
    UInt1,
    /// Unsigned 2-bit integer (packed).
    UInt2,
    /// Unsigned 3-bit integer (packed).
    UInt3,
    /// Unsigned 4-bit integer (packed).
    UInt4,
    /// Unsigned 6-bit integer (packed).
    UInt6,
    /// Unsigned 8-bit integer.
    UInt8,
    /// Unsigned 16-bit integer.
    UInt16,
    /// Unsigned 32-bit integer.
    UInt32,
    /// Unsigned 64-bit integer.
    UInt64,
    /// A proto `DataType` number this version does not know.
    Unknown(i32),
}

const DTYPE_TABLE: &[(DType, &str, i32, Option<u32>)] = &[
    (DType::Bool, "bool", 1, Some(8)),
    (DType::String, "string", 2, None),
    (DType::Fp16, "fp16", 10, Some(16)),
    (DType::Fp32, "fp32", 11, Some(32)),
    (DType::Fp64, "fp64", 12, Some(64)),
    (DType::Bf16, "bf16", 13, Some(16)),
    (DType::Int8, "int8", 21, Some(8)),
    (DType::Int16, "int16", 22, Some(16)),
    (DType::Int32, "int32", 23, Some(32)),
    (DType::Int64, "int64", 24, Some(64)),
    (DType::Int4, "int4", 25, Some(4)),
    (DType::UInt8, "uint8", 31, Some(8)),
    (DType::UInt16, "uint16", 32, Some(16)),
    (DType::UInt32, "uint32", 33, Some(32)),
    (DType::UInt64, "uint64", 34, Some(64)),
    (DType::UInt4, "uint4", 35, Some(4)),
    (DType::UInt2, "uint2", 36, Some(2)),
    (DType::UInt1, "uint1", 37, Some(1)),
    (DType::UInt6, "uint6", 38, Some(6)),
    (DType::UInt3, "uint3", 39, Some(3)),
    (DType::Fp8E4M3Fn, "fp8e4m3fn", 40, Some(8)),
    (DType::Fp8E5M2, "fp8e5m2", 41, Some(8)),
];

impl DType {
    /// Parses a text-MIL element type name (`fp16`, `int32`, …).
    pub(crate) fn from_text(name: &str) -> Option<DType> {
        DTYPE_TABLE.iter().find(|e| e.1 == name).map(|e| e.0)
    }

    /// Maps a MIL.proto `DataType` number.
    pub(crate) fn from_proto(code: i32) -> DType {
        DTYPE_TABLE
            .iter()
            .find(|e| e.2 == code)
            .map(|e| e.0)
            .unwrap_or(DType::Unknown(code))
    }

    /// The MIL.proto `DataType` number.
    pub(crate) fn to_proto(self) -> i32 {
        match self {
            DType::Unknown(code) => code,
            other => DTYPE_TABLE
                .iter()
                .find(|e| e.0 == other)
                .map(|e| e.2)
                .unwrap_or(0),
        }
    }

    /// The text-MIL spelling of a known dtype (`None` for [`DType::Unknown`]).
    pub(crate) fn known_name(self) -> Option<&'static str> {
        DTYPE_TABLE.iter().find(|e| e.0 == self).map(|e| e.1)
    }

    /// The text-MIL spelling.
    pub fn text_name(self) -> String {
        match self {
            DType::Unknown(code) => format!("dtype{code}"),
            other => DTYPE_TABLE
                .iter()
                .find(|e| e.0 == other)
                .map(|e| e.1.to_string())
                .unwrap_or_default(),
        }
    }

    /// Storage width of one element in bits (`None` for strings).
    pub(crate) fn bits(self) -> Option<u32> {
        DTYPE_TABLE.iter().find(|e| e.0 == self).and_then(|e| e.3)
    }

    /// fp16, fp32, fp64, bf16 and the fp8 types.
    pub(crate) fn is_float(self) -> bool {
        matches!(
            self,
            DType::Fp16
                | DType::Fp32
                | DType::Fp64
                | DType::Bf16
                | DType::Fp8E4M3Fn
                | DType::Fp8E5M2
        )
    }

    /// Signed or unsigned integer of any width.
    pub(crate) fn is_int(self) -> bool {
        matches!(
            self,
            DType::Int4
                | DType::Int8
                | DType::Int16
                | DType::Int32
                | DType::Int64
                | DType::UInt1
                | DType::UInt2
                | DType::UInt3
                | DType::UInt4
                | DType::UInt6
                | DType::UInt8
                | DType::UInt16
                | DType::UInt32
                | DType::UInt64
        )
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text_name())
    }
}

/// One dimension of a tensor shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// A fixed size.
    Known(u64),
    /// `?` in text, `UnknownDimension` in proto.
    Unknown,
}

impl Dim {
    /// The size when fixed.
    pub(crate) fn known(self) -> Option<u64> {
        match self {
            Dim::Known(n) => Some(n),
            Dim::Unknown => None,
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Unknown => f.write_str("?"),
        }
    }
}

/// `tensor<dtype, shape>`; a scalar has an empty shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// The element type.
    pub dtype: DType,
    /// `None` when even the rank is unknown.
    pub shape: Option<Vec<Dim>>,
}

impl TensorType {
    /// A tensor type with a fully known shape.
    pub(crate) fn fixed(dtype: DType, dims: &[u64]) -> TensorType {
        TensorType {
            dtype,
            shape: Some(dims.iter().map(|&d| Dim::Known(d)).collect()),
        }
    }

    /// A rank-0 tensor.
    pub(crate) fn scalar(dtype: DType) -> TensorType {
        TensorType {
            dtype,
            shape: Some(Vec::new()),
        }
    }

    /// The rank when known.
    pub(crate) fn rank(&self) -> Option<usize> {
        self.shape.as_ref().map(Vec::len)
    }

    /// Every dimension when all are fixed.
    pub fn known_dims(&self) -> Option<Vec<u64>> {
        self.shape.as_ref()?.iter().map(|d| d.known()).collect()
    }

    /// Number of elements when the shape is fixed and the product does not overflow.
    pub(crate) fn element_count(&self) -> Option<u64> {
        self.known_dims()?
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
    }

    /// The shape as `[a, b, ?]` (`[*]` for an unknown rank).
    pub fn dims_text(&self) -> String {
        match &self.shape {
            None => "[*]".to_string(),
            Some(d) => format!(
                "[{}]",
                d.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// True when any dimension (or the rank) is unknown.
    pub(crate) fn is_dynamic(&self) -> bool {
        match &self.shape {
            None => true,
            Some(dims) => dims.iter().any(|d| matches!(d, Dim::Unknown)),
        }
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tensor<{}, ", self.dtype)?;
        match &self.shape {
            None => f.write_str("*")?,
            Some(dims) => {
                f.write_str("[")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{d}")?;
                }
                f.write_str("]")?;
            }
        }
        f.write_str(">")
    }
}

/// The type of a MIL value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// `tensor<dtype, shape>` (a scalar is a rank-0 tensor).
    Tensor(TensorType),
    /// `state<tensor<…>>`: a function input naming a persistent buffer.
    State(Box<ValueType>),
    /// `list<elem, len>`: a run-time list of values of one type.
    List {
        /// The type of every element.
        elem: Box<ValueType>,
        /// The length, `?` when it varies.
        len: Dim,
    },
    /// `(t0, t1, …)`: a fixed sequence of values of different types.
    Tuple(Vec<ValueType>),
    /// A Core AI ordering token (`!aicode.token_v1`): sequences state reads and writes, holds no data.
    Token,
    /// `dict<key, value>`.
    Dict {
        /// The type of the keys.
        key: Box<ValueType>,
        /// The type of the values.
        value: Box<ValueType>,
    },
}

impl ValueType {
    /// The tensor type itself, or the tensor a state wraps.
    pub fn tensor(&self) -> Option<&TensorType> {
        match self {
            ValueType::Tensor(t) => Some(t),
            ValueType::State(inner) => inner.tensor(),
            _ => None,
        }
    }

    /// True for `state<…>`.
    pub fn is_state(&self) -> bool {
        matches!(self, ValueType::State(_))
    }
}
