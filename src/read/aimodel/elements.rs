//! The elements of a Core AI constant: an inline `dense_elements` (coreai-core's encoding of each
//! element type, `docs/coreai-bytecode.md`) or a `dense_resource` blob, decoded into
//! [`TensorData`], and as `dump` shows them.

use crate::ir::{DType, TensorData};

/// How an inline `dense_elements` stores one element of `dtype`: its bytes, or for the sub-byte
/// integers their bits (coreai-core writes `ui1` packed 8 to a byte, lowest bit first, and the
/// other sub-byte types one to a byte, in its low bits).
pub enum Storage {
    /// Little-endian, this many bytes each.
    Bytes(usize),
    /// One to a byte, in its low `bits` (two's complement when `signed`).
    Bits {
        /// The element's width.
        bits: u32,
        /// Sign-extended from its top bit.
        signed: bool,
    },
    /// Eight to a byte, lowest bit first.
    PackedBits,
}

/// How `dtype` is stored inline; `None` for a type not decoded.
pub fn storage(dtype: DType) -> Option<Storage> {
    Some(match dtype {
        DType::Bool | DType::Int8 | DType::UInt8 => Storage::Bytes(1),
        DType::Fp16 | DType::Bf16 | DType::Int16 | DType::UInt16 => Storage::Bytes(2),
        DType::Fp32 | DType::Int32 | DType::UInt32 => Storage::Bytes(4),
        DType::Fp64 | DType::Int64 | DType::UInt64 => Storage::Bytes(8),
        DType::Int4 => Storage::Bits {
            bits: 4,
            signed: true,
        },
        DType::UInt2 => Storage::Bits {
            bits: 2,
            signed: false,
        },
        DType::UInt3 => Storage::Bits {
            bits: 3,
            signed: false,
        },
        DType::UInt4 => Storage::Bits {
            bits: 4,
            signed: false,
        },
        DType::UInt6 => Storage::Bits {
            bits: 6,
            signed: false,
        },
        DType::UInt1 => Storage::PackedBits,
        _ => return None,
    })
}

/// The elements of an inline `dense_elements` of `dtype`, little-endian; a splat holds one
/// element for all `count`.
pub fn decode_elements(
    dtype: DType,
    bytes: &[u8],
    splat: bool,
    count: usize,
) -> Option<TensorData> {
    let stored = if splat { 1 } else { count };
    let data = match storage(dtype)? {
        Storage::Bytes(width) => {
            if bytes.len() != stored * width {
                return None;
            }
            decode_words(dtype, bytes, width)?
        }
        Storage::Bits { bits, signed } => {
            if bytes.len() != stored {
                return None;
            }
            let mask = (1u8 << bits) - 1;
            let shift = 64 - bits;
            TensorData::Ints(
                bytes
                    .iter()
                    .map(|&b| match signed {
                        true => ((i64::from(b & mask)) << shift) >> shift,
                        false => i64::from(b & mask),
                    })
                    .collect(),
            )
        }
        Storage::PackedBits => {
            if bytes.len() != stored.div_ceil(8) {
                return None;
            }
            TensorData::Ints(
                (0..stored)
                    .map(|i| i64::from((bytes[i / 8] >> (i % 8)) & 1))
                    .collect(),
            )
        }
    };
    Some(if splat { splat_to(data, count) } else { data })
}

/// Elements `width` bytes wide, little-endian (a resource blob's, or an inline constant's).
pub fn decode_words(dtype: DType, bytes: &[u8], width: usize) -> Option<TensorData> {
    let chunks = bytes.chunks_exact(width);
    let word = |c: &[u8]| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    };
    Some(match dtype {
        DType::Fp16 => TensorData::Floats(
            chunks
                .map(|c| crate::ir::literal::f16_to_f64(word(c) as u16))
                .collect(),
        ),
        DType::Bf16 => TensorData::Floats(
            chunks
                .map(|c| f64::from(f32::from_bits((word(c) as u32) << 16)))
                .collect(),
        ),
        DType::Fp32 => TensorData::Floats(
            chunks
                .map(|c| f64::from(f32::from_bits(word(c) as u32)))
                .collect(),
        ),
        DType::Fp64 => TensorData::Floats(chunks.map(|c| f64::from_bits(word(c))).collect()),
        DType::Bool => TensorData::Bools(chunks.map(|c| c[0] != 0).collect()),
        DType::UInt64 => TensorData::Ints(
            chunks
                .map(|c| i64::try_from(word(c)).ok())
                .collect::<Option<Vec<_>>>()?,
        ),
        _ => {
            let shift = 64 - 8 * width as u32;
            let signed = matches!(
                dtype,
                DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64
            );
            TensorData::Ints(
                chunks
                    .map(|c| match signed {
                        true => ((word(c) << shift) as i64) >> shift,
                        false => word(c) as i64,
                    })
                    .collect(),
            )
        }
    })
}

/// One element repeated `count` times.
fn splat_to(data: TensorData, count: usize) -> TensorData {
    match data {
        TensorData::Floats(v) => TensorData::Floats(vec![v[0]; count]),
        TensorData::Ints(v) => TensorData::Ints(vec![v[0]; count]),
        TensorData::Bools(v) => TensorData::Bools(vec![v[0]; count]),
        other => other,
    }
}

/// How many elements of a long constant `dump` shows.
const SHOWN_ELEMENTS: usize = 8;

/// A constant's elements as `dump` prints them: all of up to 8, else the first 8 and the count.
pub fn values_text(data: &TensorData) -> Option<String> {
    let items: Vec<String> = match data {
        TensorData::Ints(v) => v
            .iter()
            .take(SHOWN_ELEMENTS + 1)
            .map(i64::to_string)
            .collect(),
        TensorData::Floats(v) => v
            .iter()
            .take(SHOWN_ELEMENTS + 1)
            .map(|x| format!("{x}"))
            .collect(),
        TensorData::Bools(v) => v
            .iter()
            .take(SHOWN_ELEMENTS + 1)
            .map(bool::to_string)
            .collect(),
        _ => return None,
    };
    let total = data.len()?;
    Some(match total > SHOWN_ELEMENTS {
        false => format!("[{}]", items.join(", ")),
        true => format!(
            "[{}, …] ({total} elements)",
            items[..SHOWN_ELEMENTS].join(", ")
        ),
    })
}
