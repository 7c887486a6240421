//! Constant values: immediate tensors, blob references and containers.

use super::name::Name;
use super::types::ValueType;

/// Decoded elements of an immediate tensor, row-major.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorData {
    /// Integers of any width (bool excluded).
    Ints(Vec<i64>),
    /// Floating-point values (fp16 is widened).
    Floats(Vec<f64>),
    /// Booleans.
    Bools(Vec<bool>),
    /// Strings (`string` element type).
    Strings(Vec<String>),
    /// Raw little-endian element bytes, kept when the elements were not decoded.
    Bytes(Vec<u8>),
}

impl TensorData {
    /// Number of decoded elements (`None` for raw bytes).
    pub(crate) fn len(&self) -> Option<usize> {
        match self {
            TensorData::Ints(v) => Some(v.len()),
            TensorData::Floats(v) => Some(v.len()),
            TensorData::Bools(v) => Some(v.len()),
            TensorData::Strings(v) => Some(v.len()),
            TensorData::Bytes(_) => None,
        }
    }
}

/// `BLOBFILE(path = …, offset = …)`: a tensor stored in a weight file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlobRef {
    /// As written, e.g. `@model_path/weights/weight.bin`.
    pub path: Name,
    /// Offset of the blob's metadata record (not of its payload).
    pub offset: u64,
}

/// The value part of a literal, typed by the enclosing [`Literal::ty`].
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    /// Elements written in the program itself (an immediate value).
    Tensor(TensorData),
    /// A tensor whose elements are in a weight file.
    Blob(BlobRef),
    /// The members of a tuple, in order.
    Tuple(Vec<Payload>),
    /// The elements of a list, in order.
    List(Vec<Payload>),
    /// Key/value pairs in the order written.
    Dict(Vec<(Payload, Payload)>),
}

/// A typed constant: `tensor<int32, [2]>([1, 2])`, a BLOBFILE, a dict, …
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    /// The declared type (`tensor<int32, [2]>`).
    pub ty: ValueType,
    /// The value itself.
    pub payload: Payload,
}

impl Literal {
    /// The blob reference when this literal is file-backed.
    pub fn blob(&self) -> Option<&BlobRef> {
        match &self.payload {
            Payload::Blob(b) => Some(b),
            _ => None,
        }
    }

    /// Immediate tensor data, if any.
    pub(crate) fn tensor_data(&self) -> Option<&TensorData> {
        match &self.payload {
            Payload::Tensor(d) => Some(d),
            _ => None,
        }
    }

    /// A single string value (`string("x")`, `tensor<string, []>("x")`).
    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.payload {
            Payload::Tensor(TensorData::Strings(v)) if v.len() == 1 => {
                v.first().map(String::as_str)
            }
            _ => None,
        }
    }
}

/// IEEE binary16 → f64 (exact).
pub(crate) fn f16_to_f64(bits: u16) -> f64 {
    half::f16::from_bits(bits).to_f64()
}

#[cfg(test)]
mod tests {
    use super::f16_to_f64;

    /// IEEE 754 binary16 by its definition: (-1)^s × 2^(e-15) × (1 + f/1024), subnormals
    /// 2^-14 × f/1024.
    fn by_definition(bits: u16) -> f64 {
        let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
        let exp = i32::from((bits >> 10) & 0x1f);
        let frac = f64::from(bits & 0x3ff);
        match exp {
            0 => sign * frac / 1024.0 * 2f64.powi(-14),
            0x1f if frac == 0.0 => sign * f64::INFINITY,
            0x1f => f64::NAN,
            e => sign * (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
        }
    }

    #[test]
    fn every_f16_bit_pattern_widens_exactly() {
        for bits in 0..=u16::MAX {
            let (got, want) = (f16_to_f64(bits), by_definition(bits));
            if want.is_nan() {
                assert!(got.is_nan(), "{bits:#06x}");
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{bits:#06x}");
            }
        }
    }
}
