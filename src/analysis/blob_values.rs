//! Values of small file-backed constants, read on demand from the model's weight files.
//!
//! A `BLOBFILE(path, offset)` literal is decoded only when a rule asks for its value (`const:` or
//! `value:` on it), its declared type has a static shape of at most
//! [`MAX_CONSTEVAL_ELEMENTS`] elements, its payload is at most [`MAX_BLOB_VALUE_BYTES`], and its
//! record agrees with the declared type (sentinel, storage dtype, byte size). Payloads go through
//! the memory-mapped [`BlobFile::payload`] with that cap: weight tensors are never paged in. Each
//! weight file is opened at most once per [`BlobValues`] (one per function); nothing outside the
//! package is opened (the checks of [`BlobFile::open`] apply). Anything that does not hold gives
//! "unknown", never an error: the `blob-*` rules report broken weight files.
//!
//! Value predicates need only a [`NumberSummary`] of a constant's elements: it is kept per record
//! (file, offset, declared type), so a record that many constants share is decoded once.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use rustc_hash::FxHashMap;

use super::consteval::{ConstData, ConstValue};
use crate::ir::{BlobRef, DType, Literal, Model, Name, TensorType, ValueType};
use crate::limits::{MAX_BLOB_VALUE_BYTES, MAX_CONSTEVAL_ELEMENTS};
use crate::read::blob::{self, BlobFile};

/// Reads small file-backed constants of one model. Files are opened once; values are decoded
/// on each request and not kept (holding every decoded table would cost more memory than decoding
/// again), only the summary of their numbers is.
pub struct BlobValues<'m> {
    model: &'m Model,
    files: RefCell<BTreeMap<PathBuf, Option<BlobFile>>>,
    /// By the literal's path, then by record: `None` when the record cannot be read as declared.
    summaries: RefCell<FxHashMap<Name, FxHashMap<RecordKey, Option<NumberSummary>>>>,
}

/// A record as a literal declares it: offset in the file, element type, element count.
type RecordKey = (u64, DType, u64);

/// What the `value:` predicates of rules ask of a constant's elements (`min`, `max`, `max-abs`,
/// `integral`, `nonfinite`), gathered in one pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NumberSummary {
    /// The number of elements.
    pub count: usize,
    /// Some element is infinite or NaN.
    pub nonfinite: bool,
    /// Every element is a whole number (an infinite or NaN one is not).
    pub integral: bool,
    /// The least element, NaN aside (+inf when there is none).
    pub min: f64,
    /// The greatest element, NaN aside (-inf when there is none).
    pub max: f64,
    /// The greatest magnitude, NaN aside (0 when there is none).
    pub max_abs: f64,
}

impl NumberSummary {
    /// The summary of `data`'s elements as numbers; `None` for strings.
    pub fn of(data: &ConstData) -> Option<NumberSummary> {
        if matches!(data, ConstData::Strings(_)) {
            return None;
        }
        let mut s = NumberSummary::empty(data.len());
        match data {
            ConstData::Floats(v) => v.iter().for_each(|&x| s.add(x)),
            _ => (0..s.count)
                .filter_map(|i| data.number(i))
                .for_each(|x| s.add(x)),
        }
        Some(s)
    }

    /// The summary of `count` elements before any is added.
    fn empty(count: usize) -> NumberSummary {
        NumberSummary {
            count,
            nonfinite: false,
            integral: true,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            max_abs: 0.0,
        }
    }

    fn add(&mut self, x: f64) {
        self.nonfinite |= !x.is_finite();
        // Once an element is not whole the others need not be tested (`fract` is a library call).
        self.integral = self.integral && x.fract() == 0.0;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
        self.max_abs = self.max_abs.max(x.abs());
    }
}

impl std::fmt::Debug for BlobValues<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobValues")
            .field("model", &self.model.path)
            .finish()
    }
}

impl<'m> BlobValues<'m> {
    /// A reader for `model`'s weight files; nothing is opened until a value is asked for.
    pub fn new(model: &'m Model) -> BlobValues<'m> {
        BlobValues {
            model,
            files: RefCell::new(BTreeMap::new()),
            summaries: RefCell::new(FxHashMap::default()),
        }
    }

    /// The decoded value of a file-backed literal, when it is small and its record is sound.
    pub fn value(&self, lit: &Literal) -> Option<ConstValue> {
        let b = lit.blob()?;
        // Weights are large: refused before any lookup.
        small_count(lit)?;
        self.read(lit, b)
    }

    /// The summary of the numbers of [`BlobValues::value`], decoded once per record.
    pub fn summary(&self, lit: &Literal) -> Option<NumberSummary> {
        let b = lit.blob()?;
        let count = small_count(lit)?;
        let ValueType::Tensor(t) = &lit.ty else {
            return None;
        };
        let key = (b.offset, t.dtype, count);
        if let Some(known) = self
            .summaries
            .borrow()
            .get(&b.path)
            .and_then(|m| m.get(&key))
        {
            return *known;
        }
        let summary = self.with_payload(lit, b, |t, _, payload| summarize(t.dtype, payload));
        self.summaries
            .borrow_mut()
            .entry(b.path.clone())
            .or_default()
            .insert(key, summary);
        summary
    }

    fn read(&self, lit: &Literal, b: &BlobRef) -> Option<ConstValue> {
        self.with_payload(lit, b, |t, shape, payload| {
            Some(ConstValue {
                dtype: t.dtype,
                shape,
                data: decode(t.dtype, payload)?,
            })
        })
    }

    /// `f` of the literal's tensor type, its shape and its record's payload, when the literal is
    /// small and its record is sound.
    fn with_payload<R>(
        &self,
        lit: &Literal,
        b: &BlobRef,
        f: impl FnOnce(&TensorType, Vec<u64>, &[u8]) -> Option<R>,
    ) -> Option<R> {
        let ValueType::Tensor(t) = &lit.ty else {
            return None;
        };
        let shape = t.known_dims()?;
        let count = t.element_count()?;
        if count > MAX_CONSTEVAL_ELEMENTS {
            return None;
        }
        let width = element_bytes(t.dtype)?;
        let bytes = count.checked_mul(width)?;
        if bytes > MAX_BLOB_VALUE_BYTES {
            return None;
        }
        let path =
            blob::resolve_blob_path(&b.path, &self.model.model_path, &self.model.root).ok()?;
        let mut files = self.files.borrow_mut();
        let file = files
            .entry(path.clone())
            .or_insert_with(|| BlobFile::open(&path, &self.model.root).ok())
            .as_ref()?;
        let rec = file.record_at(b.offset).ok()?;
        if !rec.has_sentinel()
            || blob::storage_dtype(rec.dtype_code) != Some(t.dtype)
            || rec.size != bytes
        {
            return None;
        }
        let payload = file.payload(&rec, MAX_BLOB_VALUE_BYTES)?;
        f(t, shape, payload)
    }
}

/// [`NumberSummary::of`] the values `bytes` hold as `d`, read in blocks: no decoded copy of
/// the whole record is made.
fn summarize(d: DType, bytes: &[u8]) -> Option<NumberSummary> {
    const BLOCK: usize = 256;
    let width = element_bytes(d)? as usize;
    if bytes.len() % width != 0 {
        return None;
    }
    if d == DType::Fp16 {
        if let Some(s) = summarize_halves(bytes) {
            return Some(s);
        }
    }
    let mut s = NumberSummary::empty(bytes.len() / width);
    let mut block = [0f64; BLOCK];
    for chunk in bytes.chunks(BLOCK * width) {
        let n = chunk.len() / width;
        match d {
            DType::Fp16 => {
                use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
                let mut bits = [0u16; BLOCK];
                for (b, w) in bits.iter_mut().zip(chunk.chunks_exact(2)) {
                    *b = u16::from_le_bytes([w[0], w[1]]);
                }
                // Vectorised where the CPU converts halves (F16C).
                bits[..n]
                    .reinterpret_cast::<half::f16>()
                    .convert_to_f64_slice(&mut block[..n]);
            }
            _ => {
                for (x, w) in block.iter_mut().zip(chunk.chunks_exact(width)) {
                    *x = element(d, w)?;
                }
            }
        }
        block[..n].iter().for_each(|&x| s.add(x));
    }
    Some(s)
}

/// [`summarize`] of fp16 values on their bits, with no conversion per element; `None` when a
/// bound is a zero (whose sign the fold over decoded values decides).
fn summarize_halves(bytes: &[u8]) -> Option<NumberSummary> {
    let half = |key: u16| {
        let h = if key & 0x8000 != 0 {
            key & 0x7FFF
        } else {
            !key
        };
        half::f16::from_bits(h).to_f64()
    };
    let halves = bytes
        .chunks_exact(2)
        .map(|w| u16::from_le_bytes([w[0], w[1]]));
    // Decided at the first fraction in most weights.
    let integral = halves.clone().all(|h| half_is_integral(h & 0x7FFF));
    // Without branches, so that it vectorises; NaN is left out of the bounds.
    let (mut nonfinite, mut min, mut max, mut max_magnitude) = (false, u16::MAX, 0u16, 0u16);
    for h in halves {
        let magnitude = h & 0x7FFF;
        let nan = magnitude > 0x7C00;
        // The bits as keys ordered as the values are: negatives complemented, positives offset.
        let key = h ^ (((h as i16 >> 15) as u16) | 0x8000);
        nonfinite |= magnitude >= 0x7C00;
        min = min.min(if nan { u16::MAX } else { key });
        max = max.max(if nan { 0 } else { key });
        max_magnitude = max_magnitude.max(if nan { 0 } else { magnitude });
    }
    // No number has the key u16::MAX (it is a NaN's).
    let numbers = min != u16::MAX;
    let (min, max) = if numbers {
        let zero = |k: u16| k == 0x7FFF || k == 0x8000;
        if zero(min) || zero(max) {
            return None;
        }
        (half(min), half(max))
    } else {
        (f64::INFINITY, f64::NEG_INFINITY)
    };
    Some(NumberSummary {
        count: bytes.len() / 2,
        nonfinite,
        integral,
        min,
        max,
        max_abs: half::f16::from_bits(max_magnitude).to_f64(),
    })
}

/// Whether the fp16 value of `magnitude` (its bits without the sign) is a whole number.
fn half_is_integral(magnitude: u16) -> bool {
    let exponent = magnitude >> 10;
    let fraction = magnitude & 0x3FF;
    match exponent {
        // Zero, or below 1.
        0 => fraction == 0,
        // Infinite or NaN.
        0x1F => false,
        // At least 1: whole when no fraction bit is below the binary point.
        e if e >= 25 => true,
        e if e < 15 => false,
        e => fraction & ((1 << (25 - e)) - 1) == 0,
    }
}

/// One element of `d` (not `fp16`) from its little-endian bytes.
fn element(d: DType, w: &[u8]) -> Option<f64> {
    Some(match (d, w) {
        (DType::Fp32, &[a, b, c, e]) => f64::from(f32::from_le_bytes([a, b, c, e])),
        (DType::Int8, &[a]) => f64::from(a as i8),
        (DType::UInt8, &[a]) => f64::from(a),
        (DType::Int16, &[a, b]) => f64::from(i16::from_le_bytes([a, b])),
        (DType::UInt16, &[a, b]) => f64::from(u16::from_le_bytes([a, b])),
        (DType::Int32, &[a, b, c, e]) => f64::from(i32::from_le_bytes([a, b, c, e])),
        (DType::UInt32, &[a, b, c, e]) => f64::from(u32::from_le_bytes([a, b, c, e])),
        _ => return None,
    })
}

/// The element count of a literal small enough to be decoded, known from its declared type.
fn small_count(lit: &Literal) -> Option<u64> {
    lit.ty
        .tensor()
        .and_then(|t| t.element_count())
        .filter(|&n| n <= MAX_CONSTEVAL_ELEMENTS)
}

/// Bytes per element of the dtypes decoded here.
fn element_bytes(d: DType) -> Option<u64> {
    match d {
        DType::Int8 | DType::UInt8 => Some(1),
        DType::Fp16 | DType::Int16 | DType::UInt16 => Some(2),
        DType::Fp32 | DType::Int32 | DType::UInt32 => Some(4),
        _ => None,
    }
}

fn decode(d: DType, bytes: &[u8]) -> Option<ConstData> {
    fn words<const N: usize, T>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Option<Vec<T>> {
        let words = bytes.chunks_exact(N);
        // An exact chunk always converts; the fallback is never taken.
        words
            .remainder()
            .is_empty()
            .then(|| words.map(|w| f(w.try_into().unwrap_or([0; N]))).collect())
    }
    Some(match d {
        DType::Fp16 => {
            use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
            let bits = words(bytes, u16::from_le_bytes)?;
            // Vectorised where the CPU converts halves (F16C).
            ConstData::Floats(bits.reinterpret_cast::<half::f16>().to_f64_vec())
        }
        DType::Fp32 => ConstData::Floats(words(bytes, |w| f64::from(f32::from_le_bytes(w)))?),
        DType::Int8 => ConstData::Ints(words(bytes, |[b]: [u8; 1]| i64::from(b as i8))?),
        DType::UInt8 => ConstData::Ints(words(bytes, |[b]: [u8; 1]| i64::from(b))?),
        DType::Int16 => ConstData::Ints(words(bytes, |w| i64::from(i16::from_le_bytes(w)))?),
        DType::UInt16 => ConstData::Ints(words(bytes, |w| i64::from(u16::from_le_bytes(w)))?),
        DType::Int32 => ConstData::Ints(words(bytes, |w| i64::from(i32::from_le_bytes(w)))?),
        DType::UInt32 => ConstData::Ints(words(bytes, |w| i64::from(u32::from_le_bytes(w)))?),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testutil::weight_file;
    use crate::ir::{Payload, TensorType};
    use crate::rules::testing::snippet_model;

    fn model_in(dir: &std::path::Path) -> Model {
        let mut m = snippet_model(
            "t.mil",
            "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [2]> x) {\n    } -> (x);\n}\n",
        )
        .unwrap();
        m.model_path = dir.to_path_buf();
        m.root = dir.to_path_buf();
        m
    }

    /// A model in `dir` whose weight file holds one fp16 record of `halves` at offset 64.
    fn fp16_record(dir: &std::path::Path, halves: &[u16]) -> Model {
        let payload: Vec<u8> = halves.iter().flat_map(|x| x.to_le_bytes()).collect();
        weight_file(dir, 1, &payload);
        model_in(dir)
    }

    fn blob_lit(dtype: DType, dims: &[u64]) -> Literal {
        Literal {
            ty: ValueType::Tensor(TensorType::fixed(dtype, dims)),
            payload: Payload::Blob(BlobRef {
                path: "@model_path/weights/weight.bin".into(),
                offset: 64,
            }),
        }
    }

    #[test]
    fn small_fp16_blob_is_decoded_with_its_infinities() {
        let dir = tempfile::tempdir().unwrap();
        // 1.0, -inf, NaN, 0.5
        let model = fp16_record(dir.path(), &[0x3c00, 0xfc00, 0x7e00, 0x3800]);
        let bv = BlobValues::new(&model);
        let v = bv.value(&blob_lit(DType::Fp16, &[2, 2])).unwrap();
        assert_eq!(v.shape, vec![2, 2]);
        let ConstData::Floats(x) = &v.data else {
            panic!("{v:?}")
        };
        assert_eq!(x[0], 1.0);
        assert_eq!(x[1], f64::NEG_INFINITY);
        assert!(x[2].is_nan());
        assert_eq!(x[3], 0.5);
    }

    #[test]
    fn mismatched_record_or_missing_file_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let model = model_in(dir.path());
        assert_eq!(
            BlobValues::new(&model).value(&blob_lit(DType::Fp16, &[2])),
            None
        );
        weight_file(dir.path(), 1, &[0, 0, 0, 0]);
        let bv = BlobValues::new(&model);
        assert_eq!(bv.value(&blob_lit(DType::Fp32, &[1])), None, "dtype");
        assert_eq!(bv.value(&blob_lit(DType::Fp16, &[3])), None, "size");
        assert!(bv.value(&blob_lit(DType::Fp16, &[2])).is_some());
    }

    #[test]
    fn a_shared_record_is_summarized_once() {
        let dir = tempfile::tempdir().unwrap();
        // 1.0, -inf, 2.5, -3.0
        let model = fp16_record(dir.path(), &[0x3c00, 0xfc00, 0x4100, 0xc200]);
        let bv = BlobValues::new(&model);
        let (flat, square) = (blob_lit(DType::Fp16, &[4]), blob_lit(DType::Fp16, &[2, 2]));
        let s = bv.summary(&flat).unwrap();
        assert_eq!(bv.summary(&square), Some(s), "same record, same elements");
        assert_eq!(
            bv.summaries.borrow()["@model_path/weights/weight.bin"].len(),
            1
        );
        assert_eq!(Some(s), NumberSummary::of(&bv.value(&flat).unwrap().data));
        assert_eq!((s.count, s.nonfinite, s.integral), (4, true, false));
        assert_eq!(
            (s.min, s.max, s.max_abs),
            (f64::NEG_INFINITY, 2.5, f64::INFINITY)
        );
        // A declared type the record does not hold is unknown, and remembered as such.
        assert_eq!(bv.summary(&blob_lit(DType::Fp32, &[2])), None);
        assert_eq!(bv.summary(&blob_lit(DType::Fp32, &[2])), None);
    }

    #[test]
    fn summary_leaves_nan_out_of_the_bounds_and_refuses_strings() {
        let s = NumberSummary::of(&ConstData::Floats(vec![f64::NAN, -2.0, 1.0])).unwrap();
        assert_eq!((s.min, s.max, s.max_abs), (-2.0, 1.0, 2.0));
        assert!(s.nonfinite && !s.integral);
        let ints = NumberSummary::of(&ConstData::Ints(vec![3, -4])).unwrap();
        assert!(ints.integral && !ints.nonfinite);
        assert_eq!(
            NumberSummary::of(&ConstData::Strings(vec!["a".into()])),
            None
        );
    }

    #[test]
    fn a_record_is_summarized_in_blocks_as_its_decoded_values_are() {
        // Over several blocks, with a partial last one, and every kind of element.
        let halves: Vec<u16> = (0..700u16)
            .map(|i| match i {
                5 => 0x7C00,   // +inf
                300 => 0xFC00, // -inf
                301 => 0x7E00, // NaN
                _ => i.wrapping_mul(0x9E37),
            })
            .collect();
        let fp16: Vec<u8> = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
        let fp32: Vec<u8> = (0..300)
            .flat_map(|i| (i as f32 * 0.5 - 40.0).to_le_bytes())
            .collect();
        let ints: Vec<u8> = (0..600u32)
            .flat_map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes())
            .collect();
        // Every fp16 value, then the zeros and NaN-only edges the bits decide differently.
        let every_half: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
        let halves_of =
            |hs: &[u16]| -> Vec<u8> { hs.iter().flat_map(|h| h.to_le_bytes()).collect() };
        let edges: Vec<Vec<u8>> = [
            &[0x0000, 0x3C00][..],
            &[0x8000, 0x3C00],
            &[0xBC00, 0x8000],
            &[0x8000, 0x0000],
            &[0x7E00, 0xFE01],
            &[0x7E00, 0x4A00, 0xFC00],
            &[0x4A00, 0x4A01, 0x6400, 0x6401, 0x0001, 0x3800],
            &[0x6400, 0x6800, 0x7BFF, 0xE400],
        ]
        .iter()
        .map(|hs| halves_of(hs))
        .collect();
        let mut cases = vec![
            (DType::Fp16, &every_half[..]),
            (DType::Fp16, &every_half[0x3C00 * 2..0x7C00 * 2]),
            (DType::Fp16, &every_half[0x6400 * 2..0x7C00 * 2]),
            (DType::Fp16, &every_half[0xBC00 * 2..0xFC00 * 2]),
        ];
        cases.extend(edges.iter().map(|e| (DType::Fp16, &e[..])));
        cases.extend([
            (DType::Fp16, &fp16[..]),
            (DType::Fp16, &fp16[..2 * 256]),
            (DType::Fp32, &fp32[..]),
            (DType::Int8, &ints[..]),
            (DType::UInt8, &ints[..]),
            (DType::Int16, &ints[..]),
            (DType::UInt16, &ints[..]),
            (DType::Int32, &ints[..]),
            (DType::UInt32, &ints[..]),
            (DType::Fp16, &[][..]),
        ]);
        for (d, bytes) in cases {
            let whole = decode(d, bytes).and_then(|data| NumberSummary::of(&data));
            let blocks = summarize(d, bytes);
            // Bit for bit: NaN-free bounds and flags alike.
            let bits = |s: Option<NumberSummary>| {
                s.map(|s| {
                    (
                        s.count,
                        s.nonfinite,
                        s.integral,
                        s.min.to_bits(),
                        s.max.to_bits(),
                        s.max_abs.to_bits(),
                    )
                })
            };
            assert!(whole.is_some(), "{d:?}");
            assert_eq!(
                bits(blocks),
                bits(whole),
                "{d:?} over {} bytes",
                bytes.len()
            );
        }
        // The bits decide but for a bound that is a zero.
        assert!(summarize_halves(&every_half).is_some());
        assert!(summarize_halves(&edges[6]).is_some_and(|s| !s.integral));
        assert!(summarize_halves(&edges[7]).is_some_and(|s| s.integral));
        assert!(summarize_halves(&edges[4]).is_some_and(|s| s.min == f64::INFINITY));
        assert_eq!(summarize_halves(&edges[0]), None);
        assert_eq!(summarize(DType::Fp16, &[0, 0, 0]), None, "a torn element");
        assert_eq!(summarize(DType::Bool, &[1]), None);
    }

    #[test]
    fn large_blobs_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        // Declares more elements than the cap: refused before the file is even opened.
        let model = model_in(dir.path());
        let bv = BlobValues::new(&model);
        assert_eq!(bv.value(&blob_lit(DType::Fp16, &[1 << 20])), None);
        assert!(bv.files.borrow().is_empty());
    }
}
