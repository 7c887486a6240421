//! Weight-blob facts (hazards H6 and H13): every file-backed literal checked against its weight file.
//!
//! Each `BLOBFILE(path, offset)` literal in any op of any function (a `const`'s `val`, the attributes
//! of iOS16/17 `constexpr_*` ops, the inline inputs of iOS18 ones) is resolved against
//! `@model_path`, and its record is read from the memory-mapped file: in bounds, 64-aligned, sentinel,
//! storage dtype, payload bounds and byte size. Each weight file is opened once and its record chain
//! walked once, which also gives overlapping payloads, blobs no literal references, a header count that
//! disagrees with the chain, and the size warnings. Payload bytes are never read.
//!
//! The fact kinds are rule ids (`rules/blob-*.yaml`). Facts about one literal name its op; facts about
//! a whole file (missing, bad header, overlap, unreferenced blobs, size) name the first op that
//! references the file, so every fact has a function, an op and a span.
//!
//! Size independence: `tests::sparse_weight_file` writes a sparse weight file of any size with
//! `File::set_len` (one record at 64 whose payload fills the file); `huge_sparse_file_warns_on_size_and_is_not_read`
//! lints a 2 GiB one in milliseconds. A benchmark can lint the same graph against it and against a
//! small file and compare wall time and peak RSS; only the header and record pages are touched.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::facts::{Fact, FactKind};
use crate::ir::{Arg, BlobRef, Literal, Model, Op};
use crate::read::blob::{
    self, BlobFile, Location, OpenError, PathError, Record, Walk, WalkEnd, FORMAT_VERSION,
    HEADER_BYTES, RECORD_BYTES,
};

/// A weight file larger than this failed at predict time on iPhone (H13, coremltools#1807).
pub const FILE_WARN_BYTES: u64 = 1 << 31;
/// Total weights above this are over the iPhone ANE budget (H13).
pub const TOTAL_WARN_BYTES: u64 = 1 << 30;

/// What the facts about one `BLOBFILE` reference carry.
const REFERENCE_CAPTURES: &[&str] = &["DETAIL", "FILE", "PARAM", "PATH", "REFS"];

/// Fact kinds produced here (each is also a rule id), with the captures each carries.
pub const FACT_KINDS: &[FactKind] = &[
    FactKind::new("blob-missing-file", REFERENCE_CAPTURES),
    FactKind::new("blob-path-escape", REFERENCE_CAPTURES),
    FactKind::new("blob-bad-path", REFERENCE_CAPTURES),
    FactKind::new("blob-bad-header", REFERENCE_CAPTURES),
    FactKind::new(
        "blob-count-mismatch",
        &["DETAIL", "EXPECTED", "FILE", "FOUND", "PARAM", "PATH"],
    ),
    FactKind::new(
        "blob-out-of-bounds",
        &["DETAIL", "FILE", "FILE_LEN", "OFFSET", "PARAM", "PATH"],
    ),
    FactKind::new(
        "blob-misaligned",
        &["DETAIL", "FILE", "OFFSET", "PARAM", "PATH", "SUGGESTION"],
    ),
    FactKind::new(
        "blob-bad-sentinel",
        &[
            "DETAIL",
            "FILE",
            "FOUND",
            "OFFSET",
            "PARAM",
            "PATH",
            "SUGGESTION",
        ],
    ),
    FactKind::new(
        "blob-dtype-mismatch",
        &["EXPECTED", "FILE", "FOUND", "OFFSET", "PARAM", "PATH"],
    ),
    FactKind::new(
        "blob-size-mismatch",
        &[
            "DETAIL", "EXPECTED", "FILE", "FOUND", "OFFSET", "PARAM", "PATH",
        ],
    ),
    FactKind::new(
        "blob-overlap",
        &["DETAIL", "FILE", "OFFSET", "OTHER", "PARAM", "PATH"],
    ),
    FactKind::new(
        "blob-unreferenced",
        &["DTYPE", "FILE", "OFFSET", "PARAM", "PATH", "SIZE"],
    ),
    FactKind::new("blob-file-too-large", &["FILE", "PARAM", "PATH", "SIZE"]),
    FactKind::new(
        "blob-weights-too-large",
        &["FILES", "PARAM", "PATH", "SIZE"],
    ),
];

/// A file-backed literal and the op holding it.
struct BlobUse<'m> {
    function: &'m str,
    op: &'m Op,
    /// The attribute or input the literal is bound to (`val`, `indices`, …).
    param: &'m str,
    literal: &'m Literal,
    blob: &'m BlobRef,
}

impl BlobUse<'_> {
    /// A fact located at this use's op.
    fn fact(&self, kind: &str) -> Fact {
        let mut f = Fact::new(kind)
            .with("PATH", &self.blob.path)
            .with("PARAM", self.param);
        f.function = Some(self.function.to_string());
        f.op = Some(self.op.display_name().to_string());
        f.op_order = Some(self.op.order);
        f.span = Some(self.op.span);
        f
    }
}

/// Every file-backed literal of the model, in function then program order.
fn collect_uses(model: &Model) -> Vec<BlobUse<'_>> {
    let mut uses = Vec::new();
    for func in &model.program.functions {
        for (_, op) in func.ops() {
            for p in &op.inputs {
                for arg in &p.args {
                    if let Arg::Value(lit) = arg {
                        if let Some(blob) = lit.blob() {
                            uses.push(BlobUse {
                                function: &func.name,
                                op,
                                param: &p.name,
                                literal: lit,
                                blob,
                            });
                        }
                    }
                }
            }
            for (name, lit) in &op.attributes {
                if let Some(blob) = lit.blob() {
                    uses.push(BlobUse {
                        function: &func.name,
                        op,
                        param: name,
                        literal: lit,
                        blob,
                    });
                }
            }
        }
    }
    uses
}

/// The weight files the program references, resolved (those whose paths resolve).
pub(crate) fn weight_files(model: &Model) -> BTreeSet<PathBuf> {
    let written: BTreeSet<&str> = collect_uses(model)
        .iter()
        .map(|u| u.blob.path.as_str())
        .collect();
    written
        .into_iter()
        .filter_map(|w| blob::resolve_blob_path(w, &model.model_path, &model.root).ok())
        .collect()
}

/// All weight-blob facts of a model.
pub fn blob_facts(model: &Model) -> Vec<Fact> {
    let uses = collect_uses(model);
    let mut facts = Vec::new();
    let Some(first_use) = uses.first() else {
        return facts;
    };

    // Resolve each written path once, then group the uses by the file they resolve to.
    let mut by_written: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut written_order: Vec<&str> = Vec::new();
    for (i, u) in uses.iter().enumerate() {
        let entry = by_written.entry(u.blob.path.as_str()).or_default();
        if entry.is_empty() {
            written_order.push(u.blob.path.as_str());
        }
        entry.push(i);
    }
    let mut groups: Vec<(PathBuf, Vec<usize>)> = Vec::new();
    for written in written_order {
        let idxs = by_written.remove(written).unwrap_or_default();
        let Some(&first) = idxs.first() else { continue };
        match blob::resolve_blob_path(written, &model.model_path, &model.root) {
            Ok(path) => match groups.iter_mut().find(|g| g.0 == path) {
                Some(g) => g.1.extend(idxs),
                None => groups.push((path, idxs)),
            },
            Err(e) => {
                if let Some(u) = uses.get(first) {
                    facts.push(path_fact(u, &e, idxs.len()));
                }
            }
        }
    }

    let mut total: u64 = 0;
    let mut files = 0usize;
    for (path, mut idxs) in groups {
        idxs.sort_unstable();
        let group: Vec<&BlobUse> = idxs.iter().filter_map(|&i| uses.get(i)).collect();
        if let Some(len) = check_file(&path, model, &group, &mut facts) {
            total = total.saturating_add(len);
            files += 1;
        }
    }
    if total > TOTAL_WARN_BYTES {
        facts.push(
            first_use
                .fact("blob-weights-too-large")
                .with("SIZE", human_bytes(total))
                .with("FILES", files),
        );
    }
    facts
}

fn path_fact(u: &BlobUse, e: &PathError, refs: usize) -> Fact {
    let kind = match e {
        PathError::Absolute | PathError::ClimbsOut => "blob-path-escape",
        PathError::NoModelPath => "blob-bad-path",
    };
    u.fact(kind)
        .with("FILE", &u.blob.path)
        .with("DETAIL", format!("`{}` {e}", u.blob.path))
        .with("REFS", refs)
}

/// Checks one weight file and every use of it; returns its length when it could be opened.
fn check_file(
    path: &Path,
    model: &Model,
    group: &[&BlobUse],
    facts: &mut Vec<Fact>,
) -> Option<u64> {
    let first = group.first()?;
    let file_name = path.display().to_string();
    let file = match BlobFile::open(path, &model.root) {
        Ok(f) => f,
        Err(e) => {
            let kind = match e {
                OpenError::Escapes { .. } => "blob-path-escape",
                OpenError::TooShort { .. } => "blob-bad-header",
                _ => "blob-missing-file",
            };
            facts.push(
                first
                    .fact(kind)
                    .with("FILE", &file_name)
                    .with("DETAIL", format!("{file_name}: {e}"))
                    .with("REFS", group.len()),
            );
            return None;
        }
    };
    if file.is_lfs_pointer() {
        // Nothing else in the file means anything: one finding, says what to do.
        // Read as a bundle item by `lint::model_entities` (the blob entities are next).
        let mut fact = Fact::new("bundle-lfs-pointer")
            .with("FILE", path.display())
            .with(
                "WHAT",
                format!(
                    "weight file ({} constants use it, first `{}`)",
                    group.len(),
                    first.op.display_name()
                ),
            );
        fact.function = Some(first.function.to_string());
        fact.op = Some(first.op.display_name().to_string());
        fact.op_order = Some(first.op.order);
        fact.span = Some(first.op.span);
        facts.push(fact);
        return None;
    }
    let len = file.len();
    let header = file.header();
    if header.version != FORMAT_VERSION {
        facts.push(
            first
                .fact("blob-bad-header")
                .with("FILE", &file_name)
                .with(
                    "DETAIL",
                    format!(
                        "{file_name}: storage format version is {}, Core ML reads only version {FORMAT_VERSION}",
                        header.version
                    ),
                )
                .with("REFS", group.len()),
        );
        return Some(len);
    }
    if len > FILE_WARN_BYTES {
        facts.push(
            first
                .fact("blob-file-too-large")
                .with("FILE", &file_name)
                .with("SIZE", human_bytes(len)),
        );
    }

    let walk = file.walk();
    if let Some(detail) = count_problem(header.count, &walk) {
        facts.push(
            first
                .fact("blob-count-mismatch")
                .with("FILE", &file_name)
                .with("EXPECTED", header.count)
                .with("FOUND", walk.records.len())
                .with("DETAIL", detail),
        );
    }

    // Records that literals reference and that hold a sentinel, with the first use of each.
    let mut referenced: BTreeMap<u64, (Record, usize)> = BTreeMap::new();
    let mut referenced_offsets: BTreeSet<u64> = BTreeSet::new();
    for (i, u) in group.iter().enumerate() {
        referenced_offsets.insert(u.blob.offset);
        let (fact, rec) = check_use(u, &file, &walk, &file_name);
        facts.extend(fact);
        if let Some(rec) = rec {
            referenced.entry(rec.offset).or_insert((rec, i));
        }
    }

    overlap_facts(&walk, &referenced, group, &file_name, facts);

    for rec in &walk.records {
        if !referenced_offsets.contains(&rec.offset) {
            facts.push(
                first
                    .fact("blob-unreferenced")
                    .with("FILE", &file_name)
                    .with("OFFSET", rec.offset)
                    .with("SIZE", rec.size)
                    .with("DTYPE", storage_name(rec.dtype_code)),
            );
        }
    }
    Some(len)
}

/// Why the header's blob count disagrees with the chain, if it does.
fn count_problem(count: u32, walk: &Walk) -> Option<String> {
    let found = walk.records.len();
    let count_usize = usize::try_from(count).unwrap_or(usize::MAX);
    if found == count_usize {
        return None;
    }
    if found > count_usize {
        return Some(format!(
            "the header says {count} blobs but {found} records follow one another (blobs appended without updating the count?)"
        ));
    }
    let why = match &walk.end {
        WalkEnd::EndOfFile => "the file ends there".to_string(),
        WalkEnd::Truncated { at } => {
            format!("the file ends at a partial record at offset {at} (truncated?)")
        }
        WalkEnd::NotARecord { at, found } => {
            format!("offset {at} holds 0x{found:08X}, not a record")
        }
        WalkEnd::BadPayload { at } => {
            format!("the payload of the record at {at} does not fit in the file")
        }
        WalkEnd::Capped { at } => format!("stopped following the chain at offset {at}"),
    };
    Some(format!(
        "the header says {count} blobs but the record chain holds {found}: {why}"
    ))
}

/// Checks one use; returns its fact (at most one) and its record when that has a sentinel.
fn check_use(
    u: &BlobUse,
    file: &BlobFile,
    walk: &Walk,
    file_name: &str,
) -> (Option<Fact>, Option<Record>) {
    let off = u.blob.offset;
    let len = file.len();
    let base = |kind: &str| u.fact(kind).with("FILE", file_name).with("OFFSET", off);
    let rec = match file.record_at(off) {
        Ok(r) => r,
        Err(_) => {
            let end = off
                .checked_add(RECORD_BYTES)
                .map_or_else(|| "past 2^64".to_string(), |e| e.to_string());
            let detail = format!(
                "the file is {len} bytes; the 64-byte record at offset {off} would end at {end}"
            );
            return (
                Some(
                    base("blob-out-of-bounds")
                        .with("FILE_LEN", len)
                        .with("DETAIL", detail),
                ),
                None,
            );
        }
    };
    let (there, suggestion) = describe_offset(walk, off);
    if off % blob::ALIGNMENT != 0 {
        let fact = base("blob-misaligned")
            .with(
                "DETAIL",
                format!("offset {off} is not a multiple of 64; {there}"),
            )
            .with("SUGGESTION", suggestion);
        return (Some(fact), rec.has_sentinel().then_some(rec));
    }
    if !rec.has_sentinel() {
        let fact = base("blob-bad-sentinel")
            .with("FOUND", format!("0x{:08X}", rec.sentinel))
            .with("DETAIL", there)
            .with("SUGGESTION", suggestion);
        return (Some(fact), None);
    }
    (check_record(u, &rec, len, file_name), Some(rec))
}

/// Checks a record that has a sentinel against the literal: dtype, payload bounds, byte size.
fn check_record(u: &BlobUse, rec: &Record, len: u64, file_name: &str) -> Option<Fact> {
    let off = rec.offset;
    let base = |kind: &str| u.fact(kind).with("FILE", file_name).with("OFFSET", off);
    let tensor = u.literal.ty.tensor()?;
    let dtype = tensor.dtype;
    let found_dtype = storage_name(rec.dtype_code);
    match blob::storage_code(dtype) {
        Some(code) if code == rec.dtype_code => {}
        Some(code) => {
            return Some(
                base("blob-dtype-mismatch")
                    .with("EXPECTED", format!("{dtype} (storage code {code})"))
                    .with("FOUND", found_dtype),
            )
        }
        None => {
            return Some(
                base("blob-dtype-mismatch")
                    .with(
                        "EXPECTED",
                        format!("{dtype} (which no weight file can hold)"),
                    )
                    .with("FOUND", found_dtype),
            )
        }
    }

    let out_of_bounds = |detail: String| {
        Some(
            base("blob-out-of-bounds")
                .with("FILE_LEN", len)
                .with("DETAIL", detail),
        )
    };
    let data = rec.data_offset;
    let Some(end) = rec.payload_end() else {
        return out_of_bounds(format!(
            "the record's payload offset {data} plus size {} overflows a 64-bit offset",
            rec.size
        ));
    };
    if end > len {
        return out_of_bounds(format!(
            "the record's payload {data}..{end} ends past the end of the file ({len} bytes)"
        ));
    }
    let record_end = off.saturating_add(RECORD_BYTES);
    if data < record_end {
        return out_of_bounds(format!(
            "the record's payload starts at {data}, before the record itself ends ({off}..{record_end})"
        ));
    }
    if data % blob::ALIGNMENT != 0 {
        return Some(
            base("blob-misaligned")
                .with(
                    "DETAIL",
                    format!("the record's payload offset {data} is not a multiple of 64"),
                )
                .with(
                    "SUGGESTION",
                    format!("writers put the payload right after the record, at {record_end}"),
                ),
        );
    }

    let size_fact = |expected: String, detail: String| {
        Some(
            base("blob-size-mismatch")
                .with("EXPECTED", expected)
                .with("FOUND", rec.size)
                .with("DETAIL", detail),
        )
    };
    let count = tensor.element_count();
    let bits = dtype.bits()?;
    let expected = count.map(|c| (c, blob::packed_bytes(c, bits)));
    if rec.size == 0 {
        let want = match expected {
            Some((_, Some(b))) => b.to_string(),
            _ => "a non-empty payload".to_string(),
        };
        return size_fact(
            want,
            "the payload is empty; Core ML rejects a zero-length blob".to_string(),
        );
    }
    let shape = tensor.to_string();
    let Some((count, expected)) = expected else {
        // A fully known shape whose element count overflows u64 matches no payload.
        return (!tensor.is_dynamic()).then(|| {
            base("blob-size-mismatch")
                .with("EXPECTED", "more than 2^64 bytes")
                .with("FOUND", rec.size)
                .with(
                    "DETAIL",
                    format!("{shape} holds more than 2^64 elements, more than any file can"),
                )
        });
    };
    let Some(expected) = expected else {
        return size_fact(
            "more than 2^64 bytes".to_string(),
            format!("{shape} holds {count} elements of {bits} bits, more than any file can"),
        );
    };
    if rec.size != expected {
        let how = if bits < 8 {
            format!("{count} elements × {bits} bits, packed and rounded up to whole bytes")
        } else {
            format!("{count} elements × {} bytes", bits / 8)
        };
        return size_fact(
            expected.to_string(),
            format!(
                "{shape} needs {expected} bytes ({how}); the record says {}",
                rec.size
            ),
        );
    }
    if bits < 8 {
        // size == packed_bytes(count, bits), so size·8 ≥ count·bits and the subtraction holds.
        let want_pad = expected
            .checked_mul(8)
            .and_then(|b| b.checked_sub(count.checked_mul(u64::from(bits))?));
        if let Some(want_pad) = want_pad {
            if rec.padding_bits != want_pad {
                return size_fact(
                    expected.to_string(),
                    format!(
                        "the byte size is right but padding_size_in_bits is {}, expected {want_pad} for {count} elements of {bits} bits",
                        rec.padding_bits
                    ),
                );
            }
        }
    }
    None
}

/// What is at `offset` instead of a record, and which offset was probably meant.
fn describe_offset(walk: &Walk, offset: u64) -> (String, String) {
    let generic =
        "the program and the weight file do not match; re-export them together".to_string();
    let meant = |r: u64| format!("did you mean {r}?");
    match walk.locate(offset) {
        Location::FileHeader => (
            format!("offset {offset} is inside the 64-byte file header"),
            if walk.record(HEADER_BYTES).is_some() {
                meant(HEADER_BYTES)
            } else {
                generic
            },
        ),
        Location::RecordStart { record } => (format!("offset {offset} is the record at {record}"), generic),
        Location::InsideRecord { record } => (
            format!(
                "offset {offset} is {} bytes into the metadata record at {record}",
                offset - record
            ),
            meant(record),
        ),
        Location::InsidePayload { record } => {
            let at_start = walk.record(record).is_some_and(|r| r.data_offset == offset);
            let what = if at_start {
                format!("offset {offset} is the start of the payload of the blob whose record is at {record} (offsets name the record, not the data)")
            } else {
                format!("offset {offset} is inside the payload of the blob whose record is at {record}")
            };
            (what, meant(record))
        }
        Location::Padding { after, next } => (
            format!("offset {offset} is in the zero padding after the payload of the blob whose record is at {after}"),
            if walk.record(next).is_some() {
                meant(next)
            } else {
                generic
            },
        ),
        Location::BeyondChain { last } => {
            let stop = match &walk.end {
                WalkEnd::EndOfFile => None,
                WalkEnd::Truncated { at }
                | WalkEnd::NotARecord { at, .. }
                | WalkEnd::BadPayload { at }
                | WalkEnd::Capped { at } => Some(*at),
            };
            let what = match (stop, last) {
                (Some(at), _) if offset >= at => format!(
                    "offset {offset} is past offset {at}, where the record chain stops holding together"
                ),
                (_, Some(r)) => format!("offset {offset} is past the last blob, whose record is at {r}"),
                (_, None) => format!("offset {offset} is not near any blob record"),
            };
            (what, generic)
        }
    }
}

/// Overlapping metadata or payload ranges of different records.
fn overlap_facts(
    walk: &Walk,
    referenced: &BTreeMap<u64, (Record, usize)>,
    group: &[&BlobUse],
    file_name: &str,
    facts: &mut Vec<Fact>,
) {
    let mut records: BTreeMap<u64, Record> = walk.records.iter().map(|r| (r.offset, *r)).collect();
    for (off, (rec, _)) in referenced {
        records.entry(*off).or_insert(*rec);
    }
    // (start, end, owner record, what)
    let mut ranges: Vec<(u64, u64, u64, &'static str)> = Vec::with_capacity(records.len() * 2);
    for r in records.values() {
        ranges.push((
            r.offset,
            r.offset.saturating_add(RECORD_BYTES),
            r.offset,
            "metadata record",
        ));
        if r.size > 0 {
            if let Some(end) = r.payload_end() {
                ranges.push((r.data_offset, end, r.offset, "payload"));
            }
        }
    }
    ranges.sort_unstable();
    let mut reported: BTreeSet<(u64, u64)> = BTreeSet::new();
    let mut widest: Option<(u64, u64, u64, &str)> = None;
    for &(start, end, owner, what) in &ranges {
        if let Some((ws, we, wo, wwhat)) = widest {
            if start < we && wo != owner {
                let pair = (wo.min(owner), wo.max(owner));
                if reported.insert(pair) {
                    let anchor = referenced
                        .get(&owner)
                        .or_else(|| referenced.get(&wo))
                        .and_then(|(_, i)| group.get(*i))
                        .or_else(|| group.first());
                    if let Some(u) = anchor {
                        facts.push(
                            u.fact("blob-overlap")
                                .with("FILE", file_name)
                                .with("OFFSET", pair.0)
                                .with("OTHER", pair.1)
                                .with(
                                    "DETAIL",
                                    format!(
                                        "the {wwhat} {ws}..{we} of the blob at {wo} overlaps the {what} {start}..{end} of the blob at {owner}"
                                    ),
                                ),
                        );
                    }
                }
            }
            if end <= we {
                continue;
            }
        }
        widest = Some((start, end, owner, what));
    }
}

/// `fp16 (storage code 1)`, or `unknown storage code 99`.
fn storage_name(code: u32) -> String {
    match blob::storage_dtype(code) {
        Some(dt) => format!("{dt} (storage code {code})"),
        None => format!("unknown storage code {code}"),
    }
}

/// `2.15 GB (2147483712 bytes)`.
fn human_bytes(n: u64) -> String {
    format!("{:.2} GB ({n} bytes)", n as f64 / 1e9)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use super::*;
    use crate::ir::build::{build_function, BlockSyntax, FunctionSyntax, OpSyntax};
    use crate::ir::{
        DType, ModelDesc, ModelKind, Output, Param, Payload, Program, SourceText, Span, TensorType,
        ValueType,
    };
    use crate::read::blob::SENTINEL;

    const W: &str = "@model_path/weights/weight.bin";

    /// One blob of a test weight file: storage code, payload size, padding bits.
    #[derive(Clone, Copy)]
    struct B(u32, u64, u64);

    /// Writes header + records + zero payloads the way the reference writer lays them out; returns
    /// the bytes and the record offsets.
    fn weight_file(count: u32, blobs: &[B]) -> (Vec<u8>, Vec<u64>) {
        let mut f = vec![0u8; 64];
        f[0..4].copy_from_slice(&count.to_le_bytes());
        f[4..8].copy_from_slice(&2u32.to_le_bytes());
        let mut offsets = Vec::new();
        for (i, b) in blobs.iter().enumerate() {
            if i > 0 {
                f.resize(f.len().div_ceil(64) * 64, 0);
            }
            let at = f.len() as u64;
            offsets.push(at);
            f.extend(record(b.0, b.1, at + 64, b.2));
            f.resize(f.len() + b.1 as usize, 0);
        }
        (f, offsets)
    }

    fn record(dtype: u32, size: u64, data: u64, padding: u64) -> Vec<u8> {
        let mut r = Vec::with_capacity(64);
        r.extend_from_slice(&SENTINEL.to_le_bytes());
        r.extend_from_slice(&dtype.to_le_bytes());
        r.extend_from_slice(&size.to_le_bytes());
        r.extend_from_slice(&data.to_le_bytes());
        r.extend_from_slice(&padding.to_le_bytes());
        r.resize(64, 0);
        r
    }

    fn put(bytes: &mut [u8], at: usize, rec: &[u8]) {
        bytes[at..at + rec.len()].copy_from_slice(rec);
    }

    fn blob_lit(dtype: DType, dims: &[u64], path: &str, offset: u64) -> Literal {
        Literal {
            ty: ValueType::Tensor(TensorType::fixed(dtype, dims)),
            payload: Payload::Blob(BlobRef {
                path: path.into(),
                offset,
            }),
        }
    }

    /// `name = const()[val = BLOBFILE(path, offset)]`.
    fn konst(name: &str, dtype: DType, dims: &[u64], path: &str, offset: u64) -> OpSyntax {
        let lit = blob_lit(dtype, dims, path, offset);
        OpSyntax {
            op_type: "const".into(),
            name: Some(name.into()),
            inputs: Vec::new(),
            outputs: vec![Output {
                name: name.into(),
                ty: lit.ty.clone(),
            }],
            attributes: crate::ir::Attributes::from([("val".to_string(), lit)]),
            blocks: Vec::new(),
            span: Span::new(name.len(), 2 * name.len()),
        }
    }

    struct Pkg {
        _dir: tempfile::TempDir,
        /// The `.mlmodelc` folder (root and `@model_path`).
        root: PathBuf,
    }

    impl Pkg {
        /// An `.mlmodelc` folder with `weights/weight.bin` holding `bytes` (no file when `None`).
        fn new(bytes: Option<&[u8]>) -> Pkg {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("m.mlmodelc");
            std::fs::create_dir_all(root.join("weights")).unwrap();
            if let Some(b) = bytes {
                std::fs::write(root.join("weights/weight.bin"), b).unwrap();
            }
            Pkg { _dir: dir, root }
        }

        fn outside(&self) -> &Path {
            self._dir.path()
        }

        fn model(&self, functions: Vec<(&str, Vec<OpSyntax>)>) -> Model {
            let functions = functions
                .into_iter()
                .map(|(name, ops)| {
                    build_function(FunctionSyntax {
                        name: name.into(),
                        opset: "ios18".into(),
                        attributes: Vec::new(),
                        body: BlockSyntax {
                            ops,
                            ..BlockSyntax::default()
                        },
                        span: Span::default(),
                    })
                    .unwrap()
                })
                .collect();
            Model {
                path: self.root.clone(),
                kind: ModelKind::MlModelc,
                spec_version: None,
                description: ModelDesc::default(),
                program: Program {
                    version: "1.3".into(),
                    attributes: Vec::new(),
                    functions,
                },
                source: SourceText {
                    name: "model.mil".into(),
                    file: self.root.join("model.mil"),
                    text: Arc::from(""),
                    is_file: true,
                    lines: None,
                },
                model_path: self.root.clone(),
                root: self.root.clone(),
                sub_model: None,
                bundle: Vec::new(),
            }
        }

        fn facts(&self, ops: Vec<OpSyntax>) -> Vec<Fact> {
            blob_facts(&self.model(vec![("main", ops)]))
        }
    }

    fn kinds(facts: &[Fact]) -> Vec<&str> {
        facts.iter().map(|f| f.kind.as_str()).collect()
    }

    fn cap<'f>(f: &'f Fact, key: &str) -> &'f str {
        f.captures
            .get(key)
            .unwrap_or_else(|| panic!("{} has no {key}: {f:?}", f.kind))
    }

    /// fp32[500] at 64 (payload 128..2128) and fp16[3] at 2176.
    fn two_blobs() -> (Vec<u8>, Vec<u64>) {
        weight_file(2, &[B(2, 2000, 0), B(1, 6, 0)])
    }

    fn clean_ops() -> Vec<OpSyntax> {
        vec![
            konst("a", DType::Fp32, &[500], W, 64),
            konst("b", DType::Fp16, &[3], W, 2176),
        ]
    }

    #[test]
    fn clean_file_gives_no_facts() {
        let (bytes, offs) = two_blobs();
        assert_eq!(offs, vec![64, 2176]);
        let pkg = Pkg::new(Some(&bytes));
        assert_eq!(pkg.facts(clean_ops()), vec![]);
    }

    #[test]
    fn shared_offsets_within_and_across_functions_are_fine() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let mut main = clean_ops();
        main.push(konst("a2", DType::Fp32, &[500], W, 64));
        let other = vec![
            konst("a", DType::Fp32, &[500], W, 64),
            konst(
                "b",
                DType::Fp16,
                &[3],
                "@model_path/weights/./weight.bin",
                2176,
            ),
        ];
        let m = pkg.model(vec![("main", main), ("other", other)]);
        assert_eq!(blob_facts(&m), vec![]);
    }

    #[test]
    fn truncated_header_and_empty_file_are_bad_headers() {
        for (bytes, says) in [(&[2u8, 0, 0, 0, 2][..], "5 bytes"), (&[][..], "empty")] {
            let pkg = Pkg::new(Some(bytes));
            let facts = pkg.facts(clean_ops());
            assert_eq!(kinds(&facts), vec!["blob-bad-header"]);
            assert!(cap(&facts[0], "DETAIL").contains(says), "{facts:?}");
            assert_eq!(cap(&facts[0], "REFS"), "2");
            assert_eq!(facts[0].op.as_deref(), Some("a"));
        }
    }

    #[test]
    fn version_other_than_2_is_a_bad_header() {
        let (mut bytes, _) = two_blobs();
        bytes[4] = 1;
        let facts = Pkg::new(Some(&bytes)).facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-bad-header"]);
        assert!(cap(&facts[0], "DETAIL").contains("version is 1"));
    }

    #[test]
    fn offset_past_the_end_of_the_file_is_out_of_bounds() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let mut ops = clean_ops();
        ops.push(konst("far", DType::Fp16, &[3], W, 4096));
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-out-of-bounds"]);
        assert_eq!(facts[0].op.as_deref(), Some("far"));
        assert_eq!(cap(&facts[0], "OFFSET"), "4096");
        assert_eq!(cap(&facts[0], "FILE_LEN"), "2246");
    }

    #[test]
    fn offsets_near_u64_max_do_not_overflow() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        for off in [u64::MAX, u64::MAX - 10, u64::MAX - 63, u64::MAX - 64] {
            let mut ops = clean_ops();
            ops.push(konst("far", DType::Fp16, &[3], W, off));
            let facts = pkg.facts(ops);
            assert_eq!(kinds(&facts), vec!["blob-out-of-bounds"], "{off}");
        }
    }

    #[test]
    fn record_whose_payload_leaves_the_file_is_out_of_bounds() {
        let (mut bytes, _) = two_blobs();
        put(&mut bytes, 2176, &record(1, 6, u64::MAX - 2, 0));
        let facts = Pkg::new(Some(&bytes)).facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-out-of-bounds"]);
        assert!(cap(&facts[0], "DETAIL").contains("overflows"), "{facts:?}");
    }

    #[test]
    fn offset_into_a_payload_says_which_record_was_meant() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let mut ops = clean_ops();
        ops.push(konst("p", DType::Fp32, &[500], W, 192));
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-bad-sentinel"]);
        let f = &facts[0];
        assert_eq!(f.op.as_deref(), Some("p"));
        assert_eq!(
            cap(f, "DETAIL"),
            "offset 192 is inside the payload of the blob whose record is at 64"
        );
        assert_eq!(cap(f, "SUGGESTION"), "did you mean 64?");
        assert_eq!(cap(f, "FOUND"), "0x00000000");

        let mut ops = clean_ops();
        ops.push(konst("p", DType::Fp32, &[500], W, 128));
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-bad-sentinel"]);
        assert!(cap(&facts[0], "DETAIL").contains("start of the payload"));
        assert_eq!(cap(&facts[0], "SUGGESTION"), "did you mean 64?");

        // Padding between the first payload (ends 2128) and the next record (2176).
        let mut ops = clean_ops();
        ops.push(konst("p", DType::Fp16, &[3], W, 2112));
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-bad-sentinel"]);
        assert_eq!(cap(&facts[0], "SUGGESTION"), "did you mean 64?");
    }

    #[test]
    fn offset_in_the_padding_suggests_the_next_record() {
        // fp16[33] at 64 (payload 128..194), next record at 256. Padding holds no aligned offset.
        let (bytes, offs) = weight_file(2, &[B(1, 66, 0), B(1, 6, 0)]);
        assert_eq!(offs, vec![64, 256]);
        let pkg = Pkg::new(Some(&bytes));
        let ops = vec![
            konst("a", DType::Fp16, &[33], W, 64),
            konst("b", DType::Fp16, &[3], W, 256),
            konst("c", DType::Fp16, &[3], W, 200),
        ];
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-misaligned"]);
        assert!(cap(&facts[0], "DETAIL")
            .contains("zero padding after the payload of the blob whose record is at 64"));
        assert_eq!(cap(&facts[0], "SUGGESTION"), "did you mean 256?");
    }

    #[test]
    fn misaligned_offset_is_reported_with_what_is_there() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let mut ops = clean_ops();
        ops.push(konst("m", DType::Fp32, &[500], W, 100));
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-misaligned"]);
        assert!(cap(&facts[0], "DETAIL").starts_with("offset 100 is not a multiple of 64"));
        assert!(cap(&facts[0], "DETAIL").contains("36 bytes into the metadata record at 64"));
        assert_eq!(cap(&facts[0], "SUGGESTION"), "did you mean 64?");
    }

    #[test]
    fn misaligned_payload_offset_is_reported() {
        let (mut bytes, _) = two_blobs();
        bytes.resize(2246 + 64, 0);
        put(&mut bytes, 2176, &record(1, 6, 2250, 0));
        let facts = Pkg::new(Some(&bytes)).facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-misaligned"]);
        assert!(cap(&facts[0], "DETAIL").contains("payload offset 2250"));
    }

    #[test]
    fn dtype_mismatch_names_both_types() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let ops = vec![
            konst("a", DType::Fp16, &[1000], W, 64),
            konst("b", DType::Fp16, &[3], W, 2176),
        ];
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-dtype-mismatch"]);
        assert_eq!(cap(&facts[0], "EXPECTED"), "fp16 (storage code 1)");
        assert_eq!(cap(&facts[0], "FOUND"), "fp32 (storage code 2)");
        let ops = vec![
            konst("a", DType::Int64, &[250], W, 64),
            konst("b", DType::Fp16, &[3], W, 2176),
        ];
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-dtype-mismatch"]);
        assert!(cap(&facts[0], "EXPECTED").contains("no weight file can hold"));
    }

    #[test]
    fn size_mismatch_counts_bytes() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let ops = vec![
            konst("a", DType::Fp32, &[2, 250], W, 64),
            konst("b", DType::Fp16, &[4], W, 2176),
        ];
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-size-mismatch"]);
        assert_eq!(facts[0].op.as_deref(), Some("b"));
        assert_eq!(cap(&facts[0], "EXPECTED"), "8");
        assert_eq!(cap(&facts[0], "FOUND"), "6");
    }

    #[test]
    fn sub_byte_sizes_are_packed() {
        // uint4[5] = 20 bits = 3 bytes with 4 padding bits; uint3[7] = 21 bits = 3 bytes, 3 padding.
        let (bytes, _) = weight_file(2, &[B(11, 3, 4), B(12, 3, 3)]);
        let pkg = Pkg::new(Some(&bytes));
        let ok = vec![
            konst("u4", DType::UInt4, &[5], W, 64),
            konst("u3", DType::UInt3, &[7], W, 192),
        ];
        assert_eq!(pkg.facts(ok), vec![]);
        // uint4[6] also fits 3 bytes but with 0 padding bits: the record's padding says otherwise.
        let wrong_padding = vec![
            konst("u4", DType::UInt4, &[6], W, 64),
            konst("u3", DType::UInt3, &[7], W, 192),
        ];
        let facts = pkg.facts(wrong_padding);
        assert_eq!(kinds(&facts), vec!["blob-size-mismatch"]);
        assert!(cap(&facts[0], "DETAIL").contains("padding_size_in_bits is 4, expected 0"));
        let wrong_size = vec![
            konst("u4", DType::UInt4, &[8], W, 64),
            konst("u3", DType::UInt3, &[7], W, 192),
        ];
        let facts = pkg.facts(wrong_size);
        assert_eq!(kinds(&facts), vec!["blob-size-mismatch"]);
        assert_eq!(cap(&facts[0], "EXPECTED"), "4");
        assert_eq!(cap(&facts[0], "FOUND"), "3");
    }

    #[test]
    fn empty_payload_is_a_size_mismatch() {
        let (bytes, _) = weight_file(1, &[B(1, 0, 0)]);
        let facts = Pkg::new(Some(&bytes)).facts(vec![konst("e", DType::Fp16, &[0], W, 64)]);
        assert_eq!(kinds(&facts), vec!["blob-size-mismatch"]);
        assert!(cap(&facts[0], "DETAIL").contains("zero-length"));
    }

    #[test]
    fn climbing_path_is_refused_without_opening() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        // A valid weight file sits where the path leads: it must not be read.
        std::fs::create_dir_all(pkg.outside().join("etc")).unwrap();
        std::fs::write(pkg.outside().join("etc/passwd"), &bytes).unwrap();
        let mut ops = clean_ops();
        ops.push(konst(
            "x",
            DType::Fp16,
            &[1],
            "@model_path/../../etc/passwd",
            64,
        ));
        let facts = pkg.facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-path-escape"]);
        assert_eq!(facts[0].op.as_deref(), Some("x"));
        assert_eq!(cap(&facts[0], "FILE"), "@model_path/../../etc/passwd");
        let mut ops = clean_ops();
        ops.push(konst("x", DType::Fp16, &[1], "/etc/passwd", 64));
        assert_eq!(kinds(&pkg.facts(ops)), vec!["blob-path-escape"]);
        let mut ops = clean_ops();
        ops.push(konst("x", DType::Fp16, &[1], "weights/weight.bin", 64));
        assert_eq!(kinds(&pkg.facts(ops)), vec!["blob-bad-path"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlink_out_of_the_package_is_refused() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(None);
        std::fs::write(pkg.outside().join("elsewhere.bin"), &bytes).unwrap();
        std::os::unix::fs::symlink("../../elsewhere.bin", pkg.root.join("weights/weight.bin"))
            .unwrap();
        let facts = pkg.facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-path-escape"]);
        assert!(cap(&facts[0], "DETAIL").contains("symlink"));
        // A symlink that stays inside the package is followed.
        let pkg = Pkg::new(None);
        std::fs::write(pkg.root.join("real.bin"), &bytes).unwrap();
        std::os::unix::fs::symlink("../real.bin", pkg.root.join("weights/weight.bin")).unwrap();
        assert_eq!(pkg.facts(clean_ops()), vec![]);
    }

    #[test]
    fn folder_and_missing_files_are_reported_once_per_file() {
        let pkg = Pkg::new(None);
        std::fs::create_dir(pkg.root.join("weights/weight.bin")).unwrap();
        let facts = pkg.facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-missing-file"]);
        assert!(cap(&facts[0], "DETAIL").contains("is a folder"));

        let pkg = Pkg::new(None);
        let facts = pkg.facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-missing-file"]);
        assert!(cap(&facts[0], "DETAIL").contains("does not exist"));
        assert_eq!(cap(&facts[0], "REFS"), "2");

        let pkg = Pkg::new(None);
        std::fs::remove_dir(pkg.root.join("weights")).unwrap();
        let facts = pkg.facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-missing-file"]);
        assert!(cap(&facts[0], "DETAIL").contains("folder"), "{facts:?}");
        assert!(cap(&facts[0], "DETAIL").contains("weights does not exist"));
    }

    #[test]
    fn overlapping_records_are_reported() {
        // The record at 64 claims 4000 bytes (128..4128), covering a record written at 2176.
        let (mut bytes, _) = weight_file(1, &[B(1, 4000, 0)]);
        put(&mut bytes, 2176, &record(1, 6, 2240, 0));
        let ops = vec![
            konst("a", DType::Fp16, &[2000], W, 64),
            konst("b", DType::Fp16, &[3], W, 2176),
        ];
        let facts = Pkg::new(Some(&bytes)).facts(ops);
        assert_eq!(kinds(&facts), vec!["blob-overlap"]);
        assert_eq!(cap(&facts[0], "OFFSET"), "64");
        assert_eq!(cap(&facts[0], "OTHER"), "2176");
        assert_eq!(facts[0].op.as_deref(), Some("b"));
    }

    #[test]
    fn unreferenced_blob_is_reported() {
        let (bytes, _) = two_blobs();
        let facts = Pkg::new(Some(&bytes)).facts(vec![konst("a", DType::Fp32, &[500], W, 64)]);
        assert_eq!(kinds(&facts), vec!["blob-unreferenced"]);
        assert_eq!(cap(&facts[0], "OFFSET"), "2176");
        assert_eq!(cap(&facts[0], "DTYPE"), "fp16 (storage code 1)");
    }

    #[test]
    fn header_count_disagreeing_with_the_chain_is_reported() {
        let (bytes, _) = weight_file(3, &[B(2, 2000, 0), B(1, 6, 0)]);
        let facts = Pkg::new(Some(&bytes)).facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-count-mismatch"]);
        assert_eq!(cap(&facts[0], "EXPECTED"), "3");
        assert_eq!(cap(&facts[0], "FOUND"), "2");
        let (bytes, _) = weight_file(1, &[B(2, 2000, 0), B(1, 6, 0)]);
        let facts = Pkg::new(Some(&bytes)).facts(clean_ops());
        assert_eq!(kinds(&facts), vec!["blob-count-mismatch"]);
        assert!(cap(&facts[0], "DETAIL").contains("appended"));
    }

    #[test]
    fn truncated_file_reports_the_lost_record_and_the_count() {
        let (mut bytes, _) = two_blobs();
        bytes.truncate(2200);
        let facts = Pkg::new(Some(&bytes)).facts(clean_ops());
        assert_eq!(
            kinds(&facts),
            vec!["blob-count-mismatch", "blob-out-of-bounds"]
        );
        assert!(cap(&facts[0], "DETAIL").contains("partial record at offset 2176"));
        assert_eq!(facts[1].op.as_deref(), Some("b"));
    }

    #[test]
    fn ios18_constexpr_inputs_and_second_functions_are_checked() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let lut = OpSyntax {
            op_type: "constexpr_lut_to_dense".into(),
            name: Some("w".into()),
            inputs: vec![Param {
                name: "indices".into(),
                args: vec![Arg::Value(Box::new(blob_lit(DType::UInt4, &[4], W, 1000)))],
            }],
            outputs: vec![Output {
                name: "w".into(),
                ty: ValueType::Tensor(TensorType::fixed(DType::Fp16, &[4])),
            }],
            attributes: crate::ir::Attributes::new(),
            blocks: Vec::new(),
            span: Span::new(5, 9),
        };
        let m = pkg.model(vec![("main", clean_ops()), ("second", vec![lut])]);
        let facts = blob_facts(&m);
        assert_eq!(kinds(&facts), vec!["blob-misaligned"]);
        let f = &facts[0];
        assert_eq!(f.function.as_deref(), Some("second"));
        assert_eq!(f.op.as_deref(), Some("w"));
        assert_eq!(f.op_order, Some(0));
        assert_eq!(f.span, Some(Span::new(5, 9)));
        assert_eq!(cap(f, "PARAM"), "indices");
        assert!(cap(f, "DETAIL").contains("inside the payload of the blob whose record is at 64"));
    }

    /// A fixture name, the weight file's bytes (no file when `None`) and the ops of `main`.
    type Scenario = (&'static str, Option<Vec<u8>>, Vec<OpSyntax>);

    /// The scenarios above that together produce every kind but the two size warnings: (fixture
    /// name, weight file bytes or none, ops of `main`). Also written to `corpus/facts/` as rule
    /// fixtures (see `fixtures_are_current`).
    pub(super) fn scenarios() -> Vec<Scenario> {
        let (bytes, _) = two_blobs();
        let mut ops = clean_ops();
        ops.extend([
            konst("oob", DType::Fp16, &[3], W, 1 << 20),
            konst("mis", DType::Fp16, &[3], W, 100),
            konst("sen", DType::Fp16, &[3], W, 192),
            konst("dt", DType::Fp32, &[3], W, 2176),
            konst("sz", DType::Fp16, &[4], W, 2176),
            konst("esc", DType::Fp16, &[1], "@model_path/../x", 64),
            konst("rel", DType::Fp16, &[1], "weights/weight.bin", 64),
            konst(
                "miss",
                DType::Fp16,
                &[1],
                "@model_path/weights/other.bin",
                64,
            ),
        ]);
        let (mut overlapping, _) = weight_file(3, &[B(1, 4000, 0)]);
        put(&mut overlapping, 2176, &record(1, 6, 2240, 0));
        vec![
            ("blob-clean", Some(bytes.clone()), clean_ops()),
            ("blob-bad-references", Some(bytes.clone()), ops),
            (
                "blob-unreferenced",
                Some(bytes),
                vec![konst("a", DType::Fp32, &[500], W, 64)],
            ),
            (
                "blob-overlap",
                Some(overlapping),
                vec![
                    konst("a", DType::Fp16, &[2000], W, 64),
                    konst("b", DType::Fp16, &[3], W, 2176),
                ],
            ),
            ("blob-empty-file", Some(Vec::new()), clean_ops()),
        ]
    }

    /// Facts of every kind, from the scenarios above (for the rule-file test).
    pub(super) fn every_kind() -> Vec<Fact> {
        let mut out = Vec::new();
        for (_, bytes, ops) in scenarios() {
            out.extend(Pkg::new(bytes.as_deref()).facts(ops));
        }
        let pkg = Pkg::new(None);
        sparse_weight_file(&pkg.root.join("weights/weight.bin"), 1 << 31);
        out.extend(pkg.facts(vec![konst("big", DType::Fp16, &[32768, 32768], W, 64)]));
        out
    }

    /// `corpus/facts/<name>.mlmodelc` of each scenario: `model.mil` (rendered) and the weight file.
    fn fixture_files(
        name: &str,
        bytes: Option<Vec<u8>>,
        ops: Vec<OpSyntax>,
    ) -> Vec<(PathBuf, Vec<u8>)> {
        let pkg = Pkg::new(None);
        let model = pkg.model(vec![("main", ops)]);
        let dir = PathBuf::from(format!("{name}.mlmodelc"));
        let mut files = vec![(
            dir.join("model.mil"),
            crate::ir::render::render_to_string(&model.program).into_bytes(),
        )];
        if let Some(b) = bytes {
            files.push((dir.join("weights/weight.bin"), b));
        }
        files
    }

    /// The committed fixtures are what the scenarios give. To rewrite them:
    /// `COREML_LINT_WRITE_FIXTURES=1 cargo test --lib fixtures_are_current`.
    #[test]
    fn fixtures_are_current() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/facts");
        let write = std::env::var_os("COREML_LINT_WRITE_FIXTURES").is_some();
        for (name, bytes, ops) in scenarios() {
            for (rel, want) in fixture_files(name, bytes, ops) {
                let path = root.join(&rel);
                if write {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, &want).unwrap();
                }
                let have =
                    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(have == want, "{} is stale", path.display());
            }
        }
    }

    /// A weight file of `len` bytes whose single fp16 blob at 64 fills it; sparse, so it costs no
    /// disk. Also the fixture for a size-independence benchmark: lint it and a small file with the
    /// same graph and compare time and peak RSS.
    pub(crate) fn sparse_weight_file(path: &Path, payload: u64) {
        let (head, _) = weight_file(1, &[B(1, 0, 0)]);
        let mut head = head;
        put(&mut head, 64, &record(1, payload, 128, 0));
        std::fs::write(path, &head).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.set_len(128 + payload).unwrap();
    }

    #[test]
    fn huge_sparse_file_warns_on_size_and_is_not_read() {
        let pkg = Pkg::new(None);
        let payload = 1u64 << 31; // fp16[32768, 32768]
        sparse_weight_file(&pkg.root.join("weights/weight.bin"), payload);
        let ops = vec![konst("big", DType::Fp16, &[32768, 32768], W, 64)];
        let facts = pkg.facts(ops);
        assert_eq!(
            kinds(&facts),
            vec!["blob-file-too-large", "blob-weights-too-large"]
        );
        assert!(cap(&facts[0], "SIZE").contains("2147483776 bytes"));
        assert_eq!(cap(&facts[1], "FILES"), "1");
    }
}

/// The facts agree with the registry and the rule files `rules/blob-*.yaml`: every fact carries the
/// captures registered for its kind, every kind is produced, one rule file per kind. (The rule loader
/// checks each file's placeholders against the registry.)
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod rule_file_tests {
    use std::collections::BTreeSet;

    use super::tests::every_kind;
    use super::FACT_KINDS;
    use crate::analysis::facts::tests::assert_registered;

    #[test]
    fn rule_files_match_the_facts() {
        let facts = every_kind();
        assert_registered(&facts, FACT_KINDS);
        let produced: BTreeSet<&str> = facts.iter().map(|f| f.kind.as_str()).collect();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        for kind in FACT_KINDS.iter().map(|k| k.name) {
            assert!(produced.contains(kind), "no test produces {kind}");
            let path = dir.join(format!("{kind}.yaml"));
            let text = std::fs::read_to_string(&path).unwrap();
            let y: serde_yaml_bw::Value = serde_yaml_bw::from_str(&text).unwrap();
            assert_eq!(y["id"].as_str(), Some(kind), "{}", path.display());
            assert_eq!(y["match"]["fact"].as_str(), Some(kind));
            assert_eq!(y["category"].as_str(), Some("weights"));
            assert!(matches!(
                y["severity"].as_str(),
                Some("error" | "warning" | "info")
            ));
            for key in [
                "title",
                "description",
                "why",
                "example",
                "fix-safety",
                "message",
                "help",
            ] {
                assert!(
                    y[key].as_str().is_some_and(|s| !s.trim().is_empty()),
                    "{kind}: {key}"
                );
            }
            assert!(y["references"].as_sequence().is_some_and(|r| !r.is_empty()));
        }
        let files: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.strip_prefix("blob-")
                    .and_then(|n| n.strip_suffix(".yaml"))
                    .map(|n| format!("blob-{n}"))
            })
            .collect();
        let kinds: BTreeSet<String> = FACT_KINDS.iter().map(|k| k.name.to_string()).collect();
        assert_eq!(files, kinds);
    }
}
