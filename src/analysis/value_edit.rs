//! Edits of constant values that a fix plan makes: a literal of an op changed in place (its
//! elements, and for the uint8 re-encoding its element type), and the payload of a weight-file
//! record changed the same way. One [`ValueChange`] says what happens to each element, so the IR,
//! the protobuf, the text and the weight file all apply the same arithmetic.

use std::path::PathBuf;
use std::sync::Arc;

use crate::ir::{BlobRef, DType, Literal, Name, Payload, TensorData, ValueType};
use crate::read::blob;

/// The finite sentinel a non-finite or out-of-fp16 mask element becomes (HF's own `-1e4`; exp of it
/// is 0 in fp16).
pub const MASK_SENTINEL: f64 = 1.0e4;

/// Largest finite fp16.
const FP16_MAX: f64 = 65504.0;

/// The weight file a fix adds records to (what coremltools writes).
pub const WEIGHT_PATH: &str = "@model_path/weights/weight.bin";

/// What a fix does to every element of a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueChange {
    /// int8 → uint8, 128 added to every element: `scale · (q − zp)` is unchanged when the data and
    /// the zero point both change (−128 becomes 0). On the bytes it flips the top bit.
    Int8ToUint8,
    /// −∞ and elements below −65504 become −1e4, +∞ and elements above 65504 become +1e4, NaN
    /// becomes 0; every other element is kept.
    FiniteSentinels,
    /// An immediate tensor becomes a BLOBFILE value naming the record at `offset` of
    /// `@model_path/weights/weight.bin` (a [`WeightAppend`] writes it); every element is kept.
    ToBlobFile {
        /// Offset of the new record (not of its payload).
        offset: u64,
    },
}

impl ValueChange {
    /// The element type after the change, or `None` when the change does not apply to `dtype`.
    pub fn dtype(self, dtype: DType) -> Option<DType> {
        match (self, dtype) {
            (ValueChange::Int8ToUint8, DType::Int8) => Some(DType::UInt8),
            (ValueChange::FiniteSentinels, DType::Fp16 | DType::Fp32) => Some(dtype),
            (ValueChange::ToBlobFile { .. }, _) => blob::storage_code(dtype).map(|_| dtype),
            _ => None,
        }
    }

    /// One element after the change.
    pub fn number(self, x: f64) -> f64 {
        match self {
            ValueChange::Int8ToUint8 => x + 128.0,
            ValueChange::FiniteSentinels if x.is_nan() => 0.0,
            ValueChange::FiniteSentinels if x < -FP16_MAX => -MASK_SENTINEL,
            ValueChange::FiniteSentinels if x > FP16_MAX => MASK_SENTINEL,
            ValueChange::FiniteSentinels | ValueChange::ToBlobFile { .. } => x,
        }
    }

    /// Whether the change alters the element `x`.
    pub fn alters(self, x: f64) -> bool {
        let y = self.number(x);
        !(y == x || (x.is_nan() && y.is_nan()))
    }

    /// Applies the change to little-endian elements of `dtype` in place; returns how many elements
    /// changed, or `None` when the bytes are not whole elements of a type the change applies to.
    pub fn bytes(self, dtype: DType, bytes: &mut [u8]) -> Option<usize> {
        self.dtype(dtype)?;
        if let ValueChange::ToBlobFile { .. } = self {
            // The elements move unchanged; no record is edited in place.
            return None;
        }
        let mut changed = 0;
        match dtype {
            DType::Int8 => {
                for b in bytes.iter_mut() {
                    *b ^= 0x80;
                }
                changed = bytes.len();
            }
            DType::Fp16 => {
                if bytes.len() % 2 != 0 {
                    return None;
                }
                for c in bytes.chunks_exact_mut(2) {
                    let x = half::f16::from_le_bytes([c[0], c[1]]).to_f64();
                    if self.alters(x) {
                        c.copy_from_slice(&half::f16::from_f64(self.number(x)).to_le_bytes());
                        changed += 1;
                    }
                }
            }
            DType::Fp32 => {
                if bytes.len() % 4 != 0 {
                    return None;
                }
                for c in bytes.chunks_exact_mut(4) {
                    let x = f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
                    if self.alters(x) {
                        c.copy_from_slice(&(self.number(x) as f32).to_le_bytes());
                        changed += 1;
                    }
                }
            }
            _ => return None,
        }
        Some(changed)
    }

    /// Applies the change to a literal: its element type and its immediate elements (a file-backed
    /// literal changes its type only; its record is a [`WeightEdit`]). Returns how many immediate
    /// elements changed, or `None` when the change does not apply.
    pub fn literal(self, lit: &mut Literal) -> Option<usize> {
        let ValueType::Tensor(t) = &mut lit.ty else {
            return None;
        };
        let dtype = t.dtype;
        t.dtype = self.dtype(dtype)?;
        if let ValueChange::ToBlobFile { offset } = self {
            let count = match &lit.payload {
                Payload::Tensor(d) => d.len().unwrap_or(0),
                _ => return None,
            };
            lit.payload = Payload::Blob(BlobRef {
                path: Name::from(WEIGHT_PATH),
                offset,
            });
            return Some(count);
        }
        match &mut lit.payload {
            Payload::Blob(_) => Some(0),
            Payload::Tensor(TensorData::Ints(v)) if dtype.is_int() => {
                v.iter_mut()
                    .for_each(|x| *x = self.number(*x as f64) as i64);
                Some(v.len())
            }
            Payload::Tensor(TensorData::Floats(v)) => {
                let n = v.iter().filter(|&&x| self.alters(x)).count();
                v.iter_mut().for_each(|x| *x = self.number(*x));
                Some(n)
            }
            Payload::Tensor(TensorData::Bytes(b)) => self.bytes(dtype, b),
            _ => None,
        }
    }
}

/// Where an op holds the literal a plan changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiteralSite {
    /// An attribute (`val` of a `const`, `quantized_data` of `constexpr_affine_dequantize`, …).
    Attribute(String),
    /// An inline argument: binding `position` of parameter `param`.
    Argument {
        /// The parameter.
        param: String,
        /// The binding's index within it.
        position: u32,
    },
}

/// The payload of one weight-file record changed in place (same size), its storage type with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightEdit {
    /// The weight file, as the model's reader resolved it (inside the package).
    pub file: PathBuf,
    /// The file as the program names it (`@model_path/weights/weight.bin`).
    pub written: String,
    /// Offset of the record (not of its payload).
    pub offset: u64,
    /// The element type the literals declare for it before the change.
    pub dtype: DType,
    /// What happens to its elements.
    pub change: ValueChange,
}

/// A record appended to a weight file: 64-byte metadata at `offset` (a multiple of 64, at or after
/// the file's end), its payload right after it, the header's count one higher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightAppend {
    /// The weight file, as the model's reader resolved it (inside the package).
    pub file: PathBuf,
    /// The file as the program names it (`@model_path/weights/weight.bin`).
    pub written: String,
    /// Offset of the new record (not of its payload).
    pub offset: u64,
    /// The element type the record stores.
    pub dtype: DType,
    /// The payload: the elements' little-endian bytes.
    pub bytes: Arc<[u8]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_to_uint8_keeps_every_difference() {
        let mut bytes: Vec<u8> = (i8::MIN..=i8::MAX).map(|v| v as u8).collect();
        let changed = ValueChange::Int8ToUint8.bytes(DType::Int8, &mut bytes);
        assert_eq!(changed, Some(256));
        for (i, &b) in bytes.iter().enumerate() {
            let q = i as i64 - 128;
            assert_eq!(i64::from(b), q + 128);
        }
    }

    #[test]
    fn sentinels_replace_only_what_fp16_cannot_hold() {
        let c = ValueChange::FiniteSentinels;
        assert_eq!(c.number(f64::NEG_INFINITY), -1e4);
        assert_eq!(c.number(f64::from(f32::MIN)), -1e4);
        assert_eq!(c.number(f64::INFINITY), 1e4);
        assert_eq!(c.number(f64::NAN), 0.0);
        assert_eq!(c.number(-65504.0), -65504.0);
        assert!(!c.alters(-3.5));
        let mut h: Vec<u8> = [0.0f32, f32::NEG_INFINITY, 2.0]
            .iter()
            .flat_map(|&x| half::f16::from_f32(x).to_le_bytes())
            .collect();
        assert_eq!(c.bytes(DType::Fp16, &mut h), Some(1));
        assert_eq!(half::f16::from_le_bytes([h[2], h[3]]).to_f64(), -1e4);
    }
}
