//! Weight references and weight files (hazards H6 and H13), described as entities the `blob-*`
//! rules select.
//!
//! Each `BLOBFILE(path, offset)` literal in any op of any function (a `const`'s `val`, the attributes
//! of iOS16/17 `constexpr_*` ops, the inline inputs of iOS18 ones) is a `weight`: its path is
//! resolved against `@model_path`, and the record at its offset is read from the memory-mapped file
//! (sentinel, storage dtype, payload bounds, byte size). Each weight file is a `weight-file`, opened
//! once, its record chain walked once, which also gives its `weight-record`s (each referenced or
//! not), the `weight-overlap`s of their ranges and the model's `weights` in total. Payload bytes are
//! never read. Every entity, a sound one too, is described; the rules' YAML holds the conditions.
//! A weight is first described by its numbers and flags, and its texts (for messages) are written
//! only when a rule of the run may select it.
//!
//! Entities about one literal are located at its op; entities about a whole file at the first op that
//! references the file, so every entity has a function, an op and a span.
//!
//! Size independence: `tests::sparse_weight_file` writes a sparse weight file of any size with
//! `File::set_len` (one record at 64 whose payload fills the file); `huge_sparse_file_warns_on_size_and_is_not_read`
//! lints a 2 GiB one in milliseconds. A benchmark can lint the same graph against it and against a
//! small file and compare wall time and peak RSS; only the header and record pages are touched.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::entity::{
    kind_named, prop, Entity, EntityDemand, EntityKind, EveryEntity, Partial, PartialProp, Prop,
    PropType,
};
use super::weight_uses::{collect_uses, BlobUse};
use crate::ir::{Model, TensorType};
use crate::read::blob::{
    self, BlobFile, Location, OpenError, PathError, Record, Walk, WalkEnd, FORMAT_VERSION,
    HEADER_BYTES, RECORD_BYTES,
};

/// The entity kinds produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[
    EntityKind {
        name: "weight",
        doc: "a file-backed constant: one `BLOBFILE(path, offset)` literal of an op (a `const`'s \
              `val`, a `constexpr_*` attribute or input) and what the weight file holds at its offset",
        located_at: "its op",
        properties: &[
            prop("param", PropType::Text, "The attribute or input the literal is bound to (`val`, `indices`, …)."),
            prop("path", PropType::Text, "The path as the program writes it (`@model_path/weights/weight.bin`)."),
            prop("file", PropType::Text, "The weight file the path resolves to, or the written path when it does not resolve."),
            prop("file-readable", PropType::Bool, "The weight file opened, is no Git LFS pointer and has header version 2, so the record at the offset was read (the properties below are known only then)."),
            prop("offset", PropType::Int, "The offset the literal names, where its 64-byte metadata record should start."),
            prop("file-length", PropType::Int, "The weight file's length in bytes."),
            prop("record-end", PropType::Int, "Where the 64-byte record at the offset ends (offset + 64)."),
            prop("sentinel", PropType::Text, "The record's first four bytes in hex, `0xDEADBEEF` for a record (known when the record lies inside the file)."),
            prop("at-offset", PropType::Text, "What the file's layout holds at the offset, e.g. `offset 192 is inside the payload of the blob whose record is at 64`."),
            prop("suggestion", PropType::Text, "The offset probably meant (`did you mean 64?`), or that the program and the weight file must be exported together."),
            prop("tensor", PropType::Bool, "The literal is a tensor, with an element type and a shape."),
            prop("declared-dtype", PropType::Text, "The literal's declared element type (`fp16`)."),
            prop("declared-storage-code", PropType::Int, "The storage dtype code of the declared element type; unknown for a type no weight file can hold."),
            prop("declared-storage", PropType::Text, "The declared element type as a weight file stores it, e.g. `fp16 (storage code 1)` or `int64 (which no weight file can hold)`."),
            prop("storage-code", PropType::Int, "The record's storage dtype code (this and the record's other fields are known when the record has the sentinel)."),
            prop("storage-dtype", PropType::Text, "The record's storage dtype, e.g. `fp32 (storage code 2)` or `unknown storage code 99`."),
            prop("payload-offset", PropType::Int, "The record's payload offset."),
            prop("payload-size", PropType::Int, "The record's payload size in bytes."),
            prop("payload-end", PropType::Int, "Where the payload ends (payload offset + size, exact past 2^64)."),
            prop("padding-bits", PropType::Int, "The record's `padding_size_in_bits`."),
            prop("bounds-detail", PropType::Text, "Where the record or its payload leaves the file, in a sentence, when one of them does."),
            prop("alignment-detail", PropType::Text, "Which offset is not a multiple of 64 (the literal's, else the payload's) and what is there, in a sentence, when one is not."),
            prop("alignment-help", PropType::Text, "Where that misaligned data should start, when the offset or the payload offset is not a multiple of 64."),
            prop("dtype-bits", PropType::Int, "Bits per element of the declared type."),
            prop("shape-known", PropType::Bool, "Every dimension of the declared shape is known."),
            prop("expected-size", PropType::Int, "The bytes the declared shape and type take (sub-byte types packed and rounded up to whole bytes); unknown when the element count passes 2^64."),
            prop("expected-padding-bits", PropType::Int, "The unused bits in the last byte of a sub-byte payload of the declared shape."),
            prop("expected-bytes", PropType::Text, "The expected size for messages: the number, `more than 2^64 bytes` or `a non-empty payload`."),
            prop("size-detail", PropType::Text, "How the expected size is counted and what the record says, in a sentence, when the payload is empty or its size or padding disagrees."),
        ],
    },
    EntityKind {
        name: "weight-file",
        doc: "a weight file the program references (every `BLOBFILE` path resolving to it), or a \
              written path that resolves to no file",
        located_at: "the first op that references it",
        properties: &[
            prop("file", PropType::Text, "The resolved file, or the written path when it does not resolve."),
            prop("path", PropType::Text, "The path as its first reference writes it."),
            prop("references", PropType::Int, "How many literals reference it."),
            prop("status", PropType::Text, "`absolute`, `no-model-path` or `climbs-out` (the written path does not resolve), `escapes` (a symlink leads out of the package), `missing`, `in-missing-folder` (missing with its folder, which the folder's first missing file stands for), `not-a-file`, `unopenable`, `too-short` (under the 64-byte header), `lfs-pointer`, or `opened`."),
            prop("problem", PropType::Text, "What is wrong, in a sentence, when the path does not resolve, the file does not open or its header has another version."),
            prop("missing-folder", PropType::Text, "The folder that does not exist, when the file is missing with it."),
            prop("files-in-folder", PropType::Int, "For the first missing file of a missing folder: how many referenced weight files the folder should hold."),
            prop("length", PropType::Int, "The file's length in bytes (known when it opened or is too short)."),
            prop("length-text", PropType::Text, "The length for messages, e.g. `2.15 GB (2147483776 bytes)`."),
            prop("version", PropType::Int, "The header's storage format version (Core ML reads only 2)."),
            prop("header-count", PropType::Int, "The blob count the header states."),
            prop("records", PropType::Int, "How many records the chain from offset 64 holds (read for version 2 only)."),
            prop("chain-end", PropType::Text, "Why the chain ends: `end-of-file`, `truncated` (a partial record), `not-a-record`, `bad-payload` or `capped`."),
            prop("chain-detail", PropType::Text, "How the header's count and the chain disagree, in a sentence, when they do."),
        ],
    },
    EntityKind {
        name: "weight-record",
        doc: "a metadata record in the chain of a weight file of version 2",
        located_at: "the first op that references the file",
        properties: &[
            prop("file", PropType::Text, "The weight file."),
            prop("offset", PropType::Int, "The record's offset."),
            prop("size", PropType::Int, "Its payload size in bytes."),
            prop("storage-code", PropType::Int, "Its storage dtype code."),
            prop("storage-dtype", PropType::Text, "Its storage dtype, e.g. `fp16 (storage code 1)`."),
            prop("referenced", PropType::Bool, "Some literal of the program names its offset."),
        ],
    },
    EntityKind {
        name: "weight-overlap",
        doc: "two records of a weight file of version 2 whose ranges (a 64-byte metadata record or a \
              payload) share bytes, one per pair of records, as a sweep over the file's sorted ranges \
              finds them",
        located_at: "an op that references one of the two records, else the file's first",
        properties: &[
            prop("file", PropType::Text, "The weight file."),
            prop("offset", PropType::Int, "The lower record's offset."),
            prop("other", PropType::Int, "The higher record's offset."),
            prop("range-start", PropType::Int, "Where the range that starts first begins."),
            prop("range-end", PropType::Int, "Where the range that starts first ends (exclusive)."),
            prop("other-start", PropType::Int, "Where the other range begins."),
            prop("other-end", PropType::Int, "Where the other range ends (exclusive)."),
            prop("detail", PropType::Text, "Which ranges of which records, in a sentence."),
        ],
    },
    EntityKind {
        name: "weights",
        doc: "the model's weights: every weight file it references that opened, taken together",
        located_at: "the first op with a file-backed literal",
        properties: &[
            prop("total-bytes", PropType::Int, "The summed length of the weight files that opened and are no Git LFS pointers."),
            prop("total-text", PropType::Text, "The total for messages, e.g. `1.07 GB (1073741888 bytes)`."),
            prop("files", PropType::Int, "How many weight files that total counts."),
        ],
    },
];

/// The `weight` kind.
const WEIGHT: &EntityKind = const { kind_named(ENTITY_KINDS, "weight") };

/// The slot of the `weight` property `name`.
macro_rules! weight_slot {
    ($name:literal) => {
        const { WEIGHT.slot($name) }
    };
}

/// The `weight` properties set only once a rule of the run may select the weight (texts for
/// messages), as a mask of slots.
const WEIGHT_TEXTS: u64 = WEIGHT.slots(&[
    "declared-storage",
    "at-offset",
    "suggestion",
    "storage-dtype",
    "bounds-detail",
    "alignment-detail",
    "alignment-help",
    "expected-bytes",
    "size-detail",
]);

/// Starts describing the `weight` of `u` on `p`: the facts of its literal. `file`: the weight
/// file its path resolves to, or the written path when it does not resolve.
fn literal_facts<'a>(u: &'a BlobUse<'_>, file: &'a str, p: &mut Partial<'a>) {
    p.reset(WEIGHT);
    p.set(weight_slot!("param"), u.param)
        .set(weight_slot!("path"), &u.blob.path)
        .set(weight_slot!("file"), file)
        .set(weight_slot!("file-readable"), false)
        .set(weight_slot!("offset"), u.blob.offset);
    let tensor = u.literal.ty.tensor();
    p.set(weight_slot!("tensor"), tensor.is_some());
    if let Some(t) = tensor {
        p.set(weight_slot!("declared-dtype"), t.dtype);
        if let Some(code) = blob::storage_code(t.dtype) {
            p.set(weight_slot!("declared-storage-code"), code);
        }
        p.set(weight_slot!("shape-known"), !t.is_dynamic());
    }
}

/// The texts of a weight's literal, once the weight is wanted.
fn literal_texts(u: &BlobUse, e: &mut Entity) {
    let Some(t) = u.literal.ty.tensor() else {
        return;
    };
    let dtype = t.dtype;
    let storage = match blob::storage_code(dtype) {
        Some(code) => format!("{dtype} (storage code {code})"),
        None => format!("{dtype} (which no weight file can hold)"),
    };
    e.set("declared-storage", storage);
}

/// Makes the weight `p` describes whole when a rule of the run may select it, and keeps it when
/// one selects it: its location, the properties on `p`, then the texts `texts` sets.
fn make_weight(
    u: &BlobUse,
    p: &Partial<'_>,
    demand: &dyn EntityDemand,
    texts: impl FnOnce(&mut Entity),
    out: &mut Vec<Entity>,
) {
    if !demand.may_select(p, WEIGHT_TEXTS) {
        return;
    }
    let mut e = u.locate(Entity::new(WEIGHT));
    p.describe(&mut e);
    literal_texts(u, &mut e);
    texts(&mut e);
    if demand.selects(&e) {
        out.push(e);
    }
}

/// The weights of `uses`, whose file (`file`: resolved, or the written path) was not read.
fn unread_weights<'a>(
    uses: impl Iterator<Item = &'a BlobUse<'a>>,
    file: &str,
    demand: &dyn EntityDemand,
    out: &mut Vec<Entity>,
) {
    let mut p = Partial::new(WEIGHT);
    for u in uses {
        literal_facts(u, file, &mut p);
        make_weight(u, &p, demand, |_| {}, out);
    }
}

/// Every weight entity of a model: its weights, weight files, their records and overlaps, the
/// model's weights in total, and a `bundle-item` for a weight file that is a Git LFS pointer.
pub fn blob_entities(model: &Model) -> Vec<Entity> {
    blob_entities_with(model, &EveryEntity)
}

/// [`blob_entities`], keeping of the weights and weight records (one per constant, one per blob)
/// only those `demand` selects: a large model's healthy weights, which no rule selects, are most
/// of a check's entities.
pub fn blob_entities_with(model: &Model, demand: &dyn EntityDemand) -> Vec<Entity> {
    let uses = collect_uses(model);
    let mut out = Vec::new();
    let Some(first_use) = uses.first() else {
        return out;
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
        let Some(first) = idxs.first().and_then(|&i| uses.get(i)) else {
            continue;
        };
        match blob::resolve_blob_path(written, &model.model_path, &model.root) {
            Ok(path) => match groups.iter_mut().find(|g| g.0 == path) {
                Some(g) => g.1.extend(idxs),
                None => groups.push((path, idxs)),
            },
            Err(e) => {
                out.push(unresolved_file(first, &e, idxs.len()));
                let unread = idxs.iter().filter_map(|&i| uses.get(i));
                unread_weights(unread, written, demand, &mut out);
            }
        }
    }

    let mut total: u64 = 0;
    let mut files = 0usize;
    let first_file = out.len();
    for (path, mut idxs) in groups {
        idxs.sort_unstable();
        let group: Vec<&BlobUse> = idxs.iter().filter_map(|&i| uses.get(i)).collect();
        if let Some(len) = describe_file(&path, model, &group, demand, &mut out) {
            total = total.saturating_add(len);
            files += 1;
        }
    }
    out.push(
        first_use
            .locate(Entity::new(const { kind_named(ENTITY_KINDS, "weights") }))
            .with("total-bytes", total)
            .with("total-text", human_bytes(total))
            .with("files", files),
    );
    one_per_missing_folder(&mut out[first_file..]);
    out
}

/// A missing folder is one cause: its first missing file stands for every file of it the program
/// references (`files-in-folder`, the references summed, the folder named in `problem`); the others
/// become `in-missing-folder`.
fn one_per_missing_folder(entities: &mut [Entity]) {
    let text = |e: &Entity, key: &str| match e.get(key) {
        Some(Prop::Text(t)) => Some(t.to_string()),
        _ => None,
    };
    let int = |e: &Entity, key: &str| match e.get(key) {
        Some(Prop::Int(n)) => *n,
        _ => 0,
    };
    let mut folders: BTreeMap<String, (usize, usize, i128)> = BTreeMap::new();
    for (i, e) in entities.iter_mut().enumerate() {
        if e.kind != "weight-file" {
            continue;
        }
        let Some(folder) = text(e, "missing-folder") else {
            continue;
        };
        let refs = int(e, "references");
        match folders.get_mut(&folder) {
            Some((_, files, total)) => {
                *files += 1;
                *total += refs;
                e.set("status", "in-missing-folder");
            }
            None => {
                folders.insert(folder, (i, 1, refs));
            }
        }
    }
    for (folder, (i, files, refs)) in folders {
        let Some(e) = entities.get_mut(i) else {
            continue;
        };
        e.set("files-in-folder", files);
        if files > 1 {
            e.set("references", Prop::Int(refs));
            e.set(
                "problem",
                format!("the folder {folder} does not exist: it should hold {files} weight files"),
            );
        }
    }
}

/// The `weight-file` of a written path that does not resolve.
fn unresolved_file(u: &BlobUse, e: &PathError, refs: usize) -> Entity {
    let status = match e {
        PathError::Absolute => "absolute",
        PathError::ClimbsOut => "climbs-out",
        PathError::NoModelPath => "no-model-path",
    };
    u.locate(Entity::new(
        const { kind_named(ENTITY_KINDS, "weight-file") },
    ))
    .with("file", u.blob.path.as_str())
    .with("path", u.blob.path.as_str())
    .with("references", refs)
    .with("status", status)
    .with("problem", format!("`{}` {e}", u.blob.path))
}

/// Describes one weight file, every use of it (those `demand` selects), its records (likewise)
/// and their overlaps; returns its length when it opened (and is no LFS pointer).
fn describe_file(
    path: &Path,
    model: &Model,
    group: &[&BlobUse],
    demand: &dyn EntityDemand,
    out: &mut Vec<Entity>,
) -> Option<u64> {
    let first = group.first()?;
    let file_name = path.display().to_string();
    let mut wf = first
        .locate(Entity::new(
            const { kind_named(ENTITY_KINDS, "weight-file") },
        ))
        .with("file", file_name.as_str())
        .with("path", first.blob.path.as_str())
        .with("references", group.len());
    let unread = |out: &mut Vec<Entity>| {
        unread_weights(group.iter().copied(), &file_name, demand, out);
    };
    let file = match BlobFile::open(path, &model.root) {
        Ok(f) => f,
        Err(e) => {
            let status = match &e {
                OpenError::NotFound { .. } => "missing",
                OpenError::NotAFile { .. } => "not-a-file",
                OpenError::Escapes { .. } => "escapes",
                OpenError::TooShort { len } => {
                    wf.set("length", *len);
                    wf.set("length-text", human_bytes(*len));
                    "too-short"
                }
                OpenError::Io { .. } => "unopenable",
            };
            let folder = match &e {
                OpenError::NotFound {
                    folder_missing: Some(dir),
                } => Some(dir.display().to_string()),
                _ => None,
            };
            out.push(
                wf.with("status", status)
                    .with("problem", format!("{file_name}: {e}"))
                    .with_opt("missing-folder", folder),
            );
            unread(out);
            return None;
        }
    };
    if file.is_lfs_pointer() {
        // Nothing else in the file means anything: one bundle item, which says what to do.
        out.push(first.locate(super::bundle::lfs_pointer(
            path,
            format!(
                "weight file ({} constants use it, first `{}`)",
                group.len(),
                first.op.display_name()
            ),
        )));
        out.push(wf.with("status", "lfs-pointer"));
        unread(out);
        return None;
    }
    let len = file.len();
    let header = file.header();
    wf = wf
        .with("status", "opened")
        .with("length", len)
        .with("length-text", human_bytes(len))
        .with("version", header.version)
        .with("header-count", header.count);
    if header.version != FORMAT_VERSION {
        out.push(wf.with(
            "problem",
            format!(
                "{file_name}: storage format version is {}, Core ML reads only version {FORMAT_VERSION}",
                header.version
            ),
        ));
        unread(out);
        return Some(len);
    }

    let walk = file.walk();
    let chain_end = match walk.end {
        WalkEnd::EndOfFile => "end-of-file",
        WalkEnd::Truncated { .. } => "truncated",
        WalkEnd::NotARecord { .. } => "not-a-record",
        WalkEnd::BadPayload { .. } => "bad-payload",
        WalkEnd::Capped { .. } => "capped",
    };
    out.push(
        wf.with("records", walk.records.len())
            .with("chain-end", chain_end)
            .with_opt("chain-detail", count_problem(header.count, &walk)),
    );

    // Records that literals reference and that hold a sentinel, with the first use of each.
    let mut referenced: BTreeMap<u64, (Record, usize)> = BTreeMap::new();
    let mut referenced_offsets: BTreeSet<u64> = BTreeSet::new();
    let mut p = Partial::new(WEIGHT);
    for (i, u) in group.iter().enumerate() {
        referenced_offsets.insert(u.blob.offset);
        let rec = describe_use(u, &file, &walk, &file_name, &mut p, demand, out);
        if let Some(rec) = rec {
            referenced.entry(rec.offset).or_insert((rec, i));
        }
    }

    overlaps(&walk, &referenced, group, &file_name, out);

    const RECORD: &EntityKind = const { kind_named(ENTITY_KINDS, "weight-record") };
    const STORAGE_TEXT: u64 = RECORD.slots(&["storage-dtype"]);
    let mut p = Partial::new(RECORD);
    for rec in &walk.records {
        p.reset(RECORD);
        p.set(const { RECORD.slot("file") }, file_name.as_str())
            .set(const { RECORD.slot("offset") }, rec.offset)
            .set(const { RECORD.slot("size") }, rec.size)
            .set(const { RECORD.slot("storage-code") }, rec.dtype_code)
            .set(
                const { RECORD.slot("referenced") },
                referenced_offsets.contains(&rec.offset),
            );
        if !demand.may_select(&p, STORAGE_TEXT) {
            continue;
        }
        let mut record = first.locate(Entity::new(RECORD));
        p.describe(&mut record);
        record.set("storage-dtype", storage_name(rec.dtype_code));
        if demand.selects(&record) {
            out.push(record);
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

/// The `weight` of one use of a readable file, kept in `out` when a rule of the run selects it;
/// returns its record when that has a sentinel.
fn describe_use<'a>(
    u: &'a BlobUse<'_>,
    file: &BlobFile,
    walk: &Walk,
    file_name: &'a str,
    p: &mut Partial<'a>,
    demand: &dyn EntityDemand,
    out: &mut Vec<Entity>,
) -> Option<Record> {
    let off = u.blob.offset;
    let len = file.len();
    literal_facts(u, file_name, p);
    p.set(weight_slot!("file-readable"), true)
        .set(weight_slot!("file-length"), len)
        .set(
            weight_slot!("record-end"),
            PartialProp::Int(i128::from(off) + i128::from(RECORD_BYTES)),
        );
    let rec = file.record_at(off).ok();
    if let Some(rec) = &rec {
        let sentinel = if rec.has_sentinel() {
            PartialProp::from(SENTINEL_TEXT)
        } else {
            PartialProp::from(format!("0x{:08X}", rec.sentinel))
        };
        p.set(weight_slot!("sentinel"), sentinel);
        if rec.has_sentinel() {
            record_facts(u, rec, p);
        }
    }
    make_weight(
        u,
        p,
        demand,
        |e| use_texts(u, walk, len, rec.as_ref(), e),
        out,
    );
    rec.filter(Record::has_sentinel)
}

/// How the sentinel of a record reads as a property.
const SENTINEL_TEXT: &str = "0xDEADBEEF";

/// The fields of the record (with a sentinel) at a weight's offset, and the sizes its literal
/// expects, on `p`.
fn record_facts(u: &BlobUse, rec: &Record, p: &mut Partial<'_>) {
    p.set(weight_slot!("storage-code"), rec.dtype_code)
        .set(weight_slot!("payload-offset"), rec.data_offset)
        .set(weight_slot!("payload-size"), rec.size)
        .set(
            weight_slot!("payload-end"),
            PartialProp::Int(i128::from(rec.data_offset) + i128::from(rec.size)),
        )
        .set(weight_slot!("padding-bits"), rec.padding_bits);
    let Some(x) = ExpectedPayload::of(u) else {
        return;
    };
    p.set(weight_slot!("dtype-bits"), x.bits);
    if let Some(size) = x.size {
        p.set(weight_slot!("expected-size"), PartialProp::Int(size));
    }
    if let Some(pad) = x.padding(rec.size) {
        p.set(weight_slot!("expected-padding-bits"), PartialProp::Int(pad));
    }
}

/// What the literal of a weight expects of its payload.
struct ExpectedPayload<'a> {
    tensor: &'a TensorType,
    /// Bits per element.
    bits: u32,
    /// Elements; `None` for a dynamic shape or past 2^64.
    count: Option<u64>,
    /// Bytes (sub-byte types packed and rounded up), exact in i128: at most 2^64 elements of at
    /// most 64 bits.
    size: Option<i128>,
    /// The same when it fits in 64 bits.
    fits: Option<u64>,
}

impl ExpectedPayload<'_> {
    /// `None` when the literal is no tensor or its type has no bit width.
    fn of<'a>(u: &'a BlobUse<'_>) -> Option<ExpectedPayload<'a>> {
        let tensor = u.literal.ty.tensor()?;
        let bits = tensor.dtype.bits()?;
        let count = tensor.element_count();
        Some(ExpectedPayload {
            tensor,
            bits,
            count,
            size: count.map(|c| (i128::from(c) * i128::from(bits) + 7) / 8),
            fits: count.and_then(|c| blob::packed_bytes(c, bits)),
        })
    }

    /// The unused bits of the last byte of a sub-byte payload of `size` bytes, the expected
    /// (non-zero) size.
    fn padding(&self, size: u64) -> Option<i128> {
        let (count, expected) = (self.count?, self.fits?);
        // size == expected, so size·8 ≥ count·bits and the subtraction holds.
        (size != 0 && size == expected && self.bits < 8)
            .then(|| i128::from(expected) * 8 - i128::from(count) * i128::from(self.bits))
    }
}

/// The texts of a weight of a readable file (`len` bytes) once it is wanted: what is at its
/// offset, and where its record (`rec`, when it lies in the file) leaves the file, is misaligned
/// or disagrees with the literal's size, in sentences.
fn use_texts(u: &BlobUse, walk: &Walk, len: u64, rec: Option<&Record>, e: &mut Entity) {
    let off = u.blob.offset;
    let (there, suggestion) = describe_offset(walk, off);
    let Some(rec) = rec else {
        let end = off
            .checked_add(RECORD_BYTES)
            .map_or_else(|| "past 2^64".to_string(), |e| e.to_string());
        e.set(
            "bounds-detail",
            format!(
                "the file is {len} bytes; the 64-byte record at offset {off} would end at {end}"
            ),
        );
        e.set("at-offset", there);
        e.set("suggestion", suggestion);
        return;
    };
    if off % blob::ALIGNMENT != 0 {
        e.set(
            "alignment-detail",
            format!("offset {off} is not a multiple of 64; {there}"),
        );
        e.set("alignment-help", suggestion.as_str());
    }
    e.set("at-offset", there);
    e.set("suggestion", suggestion);
    if rec.has_sentinel() {
        record_texts(e, u, rec, len);
    }
}

/// The texts that explain the bounds, alignment and size of a weight's record (with a sentinel).
fn record_texts(e: &mut Entity, u: &BlobUse, rec: &Record, len: u64) {
    let off = rec.offset;
    let data = rec.data_offset;
    let record_end = off.saturating_add(RECORD_BYTES);
    e.set("storage-dtype", storage_name(rec.dtype_code));
    let bounds = match rec.payload_end() {
        None => Some(format!(
            "the record's payload offset {data} plus size {} overflows a 64-bit offset",
            rec.size
        )),
        Some(end) if end > len => Some(format!(
            "the record's payload {data}..{end} ends past the end of the file ({len} bytes)"
        )),
        Some(_) if data < record_end => Some(format!(
            "the record's payload starts at {data}, before the record itself ends ({off}..{record_end})"
        )),
        Some(_) => None,
    };
    if let Some(b) = bounds {
        e.set("bounds-detail", b);
    }
    if off % blob::ALIGNMENT == 0 && data % blob::ALIGNMENT != 0 {
        e.set(
            "alignment-detail",
            format!("the record's payload offset {data} is not a multiple of 64"),
        );
        e.set(
            "alignment-help",
            format!("writers put the payload right after the record, at {record_end}"),
        );
    }
    let Some(x) = ExpectedPayload::of(u) else {
        return;
    };
    let (tensor, bits) = (x.tensor, x.bits);
    let (count, expected, fits) = (x.count, x.size, x.fits);
    let shape = tensor.to_string();
    let (expected_bytes, detail) = match (count, expected, fits) {
        _ if rec.size == 0 => (
            fits.map_or_else(|| "a non-empty payload".to_string(), |b| b.to_string()),
            Some("the payload is empty; Core ML rejects a zero-length blob".to_string()),
        ),
        (None, _, _) if tensor.is_dynamic() => (String::new(), None),
        (None, _, _) => (
            "more than 2^64 bytes".to_string(),
            Some(format!(
                "{shape} holds more than 2^64 elements, more than any file can"
            )),
        ),
        (Some(count), _, None) => (
            "more than 2^64 bytes".to_string(),
            Some(format!(
                "{shape} holds {count} elements of {bits} bits, more than any file can"
            )),
        ),
        (Some(count), _, Some(expected)) => {
            let detail = if rec.size != expected {
                let how = if bits < 8 {
                    format!("{count} elements × {bits} bits, packed and rounded up to whole bytes")
                } else {
                    format!("{count} elements × {} bytes", bits / 8)
                };
                Some(format!(
                    "{shape} needs {expected} bytes ({how}); the record says {}",
                    rec.size
                ))
            } else if let Some(want_pad) = x.padding(rec.size) {
                (i128::from(rec.padding_bits) != want_pad).then(|| format!(
                    "the byte size is right but padding_size_in_bits is {}, expected {want_pad} for {count} elements of {bits} bits",
                    rec.padding_bits
                ))
            } else {
                None
            };
            (expected.to_string(), detail)
        }
    };
    if !expected_bytes.is_empty() {
        e.set("expected-bytes", expected_bytes);
    }
    if let Some(d) = detail {
        e.set("size-detail", d);
    }
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

/// A `weight-overlap` for each pair of records whose metadata or payload ranges share bytes.
fn overlaps(
    walk: &Walk,
    referenced: &BTreeMap<u64, (Record, usize)>,
    group: &[&BlobUse],
    file_name: &str,
    out: &mut Vec<Entity>,
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
                        out.push(
                            u.locate(Entity::new(const { kind_named(ENTITY_KINDS, "weight-overlap") }))
                                .with("file", file_name)
                                .with("offset", pair.0)
                                .with("other", pair.1)
                                .with("range-start", ws)
                                .with("range-end", we)
                                .with("other-start", start)
                                .with("other-end", end)
                                .with(
                                    "detail",
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
    use crate::analysis::entity::tests::assert_registered;
    use crate::analysis::registry::ModelEntities;
    use crate::finding::Finding;
    use crate::ir::build::{build_function, BlockSyntax, FunctionSyntax, OpSyntax};
    use crate::ir::{Arg, BlobRef, Literal};
    use crate::ir::{
        DType, ModelDesc, ModelKind, Output, Param, Payload, Program, SourceText, Span, TensorType,
        ValueType,
    };
    use crate::read::blob::SENTINEL;
    use crate::rules::{match_model, RuleSet};

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

        fn findings(&self, ops: Vec<OpSyntax>) -> Vec<Finding> {
            findings(&self.model(vec![("main", ops)]))
        }

        fn entities(&self, ops: Vec<OpSyntax>) -> Vec<Entity> {
            blob_entities(&self.model(vec![("main", ops)]))
        }
    }

    /// The built-in `blob-*` rules and `bundle-lfs-pointer`.
    fn blob_rules() -> &'static RuleSet {
        static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
        RULES.get_or_init(|| {
            let mut r = RuleSet::builtin().unwrap();
            r.retain(|x| x.id.starts_with("blob-") || x.id == "bundle-lfs-pointer");
            r
        })
    }

    /// The findings of the blob rules on `m`'s entities, by rule id (stable).
    pub(super) fn findings(m: &Model) -> Vec<Finding> {
        let entities = blob_entities(m);
        let kinds: Vec<EntityKind> = crate::analysis::registry::entity_kinds().copied().collect();
        assert_registered(&entities, &kinds);
        let mut f = match_model(m, blob_rules(), &ModelEntities { entities });
        f.sort_by(|a, b| a.rule.cmp(&b.rule));
        f
    }

    fn kinds(found: &[Finding]) -> Vec<&str> {
        found.iter().map(|f| f.rule.as_str()).collect()
    }

    fn help(f: &Finding) -> &str {
        f.help.as_deref().unwrap_or_default()
    }

    fn of<'e>(entities: &'e [Entity], kind: &str) -> Vec<&'e Entity> {
        entities.iter().filter(|e| e.kind == kind).collect()
    }

    fn get(e: &Entity, name: &str) -> String {
        e.get(name)
            .unwrap_or_else(|| panic!("{} has no {name}: {e:?}", e.kind))
            .to_string()
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
    fn clean_file_gives_no_findings() {
        let (bytes, offs) = two_blobs();
        assert_eq!(offs, vec![64, 2176]);
        let pkg = Pkg::new(Some(&bytes));
        assert_eq!(pkg.findings(clean_ops()), vec![]);
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
        assert_eq!(findings(&m), vec![]);
    }

    #[test]
    fn truncated_header_and_empty_file_are_bad_headers() {
        for (bytes, says) in [(&[2u8, 0, 0, 0, 2][..], "5 bytes"), (&[][..], "empty")] {
            let pkg = Pkg::new(Some(bytes));
            let found = pkg.findings(clean_ops());
            assert_eq!(kinds(&found), vec!["blob-bad-header"]);
            assert!(found[0].message.contains(says), "{found:?}");
            assert!(found[0].message.contains("(2 constants use it, first `a`)"));
            assert_eq!(found[0].op.as_deref(), Some("a"));
        }
    }

    #[test]
    fn version_other_than_2_is_a_bad_header() {
        let (mut bytes, _) = two_blobs();
        bytes[4] = 1;
        let found = Pkg::new(Some(&bytes)).findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-bad-header"]);
        assert!(found[0].message.contains("version is 1"));
    }

    #[test]
    fn offset_past_the_end_of_the_file_is_out_of_bounds() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let mut ops = clean_ops();
        ops.push(konst("far", DType::Fp16, &[3], W, 4096));
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-out-of-bounds"]);
        assert_eq!(found[0].op.as_deref(), Some("far"));
        assert!(found[0].message.contains("at offset 4096, outside"));
        assert!(help(&found[0]).starts_with("the weight file is 2246 bytes"));
    }

    #[test]
    fn offsets_near_u64_max_do_not_overflow() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        for off in [u64::MAX, u64::MAX - 10, u64::MAX - 63, u64::MAX - 64] {
            let mut ops = clean_ops();
            ops.push(konst("far", DType::Fp16, &[3], W, off));
            let found = pkg.findings(ops);
            assert_eq!(kinds(&found), vec!["blob-out-of-bounds"], "{off}");
        }
    }

    #[test]
    fn record_whose_payload_leaves_the_file_is_out_of_bounds() {
        let (mut bytes, _) = two_blobs();
        put(&mut bytes, 2176, &record(1, 6, u64::MAX - 2, 0));
        let found = Pkg::new(Some(&bytes)).findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-out-of-bounds"]);
        assert!(found[0].message.contains("overflows"), "{found:?}");
    }

    #[test]
    fn offset_into_a_payload_says_which_record_was_meant() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let mut ops = clean_ops();
        ops.push(konst("p", DType::Fp32, &[500], W, 192));
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-bad-sentinel"]);
        let f = &found[0];
        assert_eq!(f.op.as_deref(), Some("p"));
        assert!(
            f.message.ends_with(
                "where there is no blob record (found 0x00000000, expected 0xDEADBEEF): \
                 offset 192 is inside the payload of the blob whose record is at 64"
            ),
            "{f:?}"
        );
        assert!(help(f).starts_with("did you mean 64?;"));

        let mut ops = clean_ops();
        ops.push(konst("p", DType::Fp32, &[500], W, 128));
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-bad-sentinel"]);
        assert!(found[0].message.contains("start of the payload"));
        assert!(help(&found[0]).starts_with("did you mean 64?"));

        // Padding between the first payload (ends 2128) and the next record (2176).
        let mut ops = clean_ops();
        ops.push(konst("p", DType::Fp16, &[3], W, 2112));
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-bad-sentinel"]);
        assert!(help(&found[0]).starts_with("did you mean 64?"));
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
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-misaligned"]);
        assert!(found[0]
            .message
            .contains("zero padding after the payload of the blob whose record is at 64"));
        assert_eq!(help(&found[0]), "did you mean 256?");
    }

    #[test]
    fn misaligned_offset_is_reported_with_what_is_there() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let mut ops = clean_ops();
        ops.push(konst("m", DType::Fp32, &[500], W, 100));
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-misaligned"]);
        assert!(found[0]
            .message
            .contains(": offset 100 is not a multiple of 64"));
        assert!(found[0]
            .message
            .contains("36 bytes into the metadata record at 64"));
        assert!(help(&found[0]).starts_with("did you mean 64?"));
    }

    #[test]
    fn misaligned_payload_offset_is_reported() {
        let (mut bytes, _) = two_blobs();
        bytes.resize(2246 + 64, 0);
        put(&mut bytes, 2176, &record(1, 6, 2250, 0));
        let found = Pkg::new(Some(&bytes)).findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-misaligned"]);
        assert!(found[0].message.contains("payload offset 2250"));
    }

    #[test]
    fn dtype_mismatch_names_both_types() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let ops = vec![
            konst("a", DType::Fp16, &[1000], W, 64),
            konst("b", DType::Fp16, &[3], W, 2176),
        ];
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-dtype-mismatch"]);
        assert!(found[0]
            .message
            .contains("`a` is fp16 (storage code 1) but"));
        assert!(found[0].message.ends_with("holds fp32 (storage code 2)"));
        let ops = vec![
            konst("a", DType::Int64, &[250], W, 64),
            konst("b", DType::Fp16, &[3], W, 2176),
        ];
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-dtype-mismatch"]);
        assert!(found[0].message.contains("no weight file can hold"));
    }

    #[test]
    fn size_mismatch_counts_bytes() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let ops = vec![
            konst("a", DType::Fp32, &[2, 250], W, 64),
            konst("b", DType::Fp16, &[4], W, 2176),
        ];
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-size-mismatch"]);
        assert_eq!(found[0].op.as_deref(), Some("b"));
        assert!(found[0].message.contains("`b` needs 8 bytes"));
        assert!(found[0].message.contains("says 6:"));
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
        assert_eq!(pkg.findings(ok), vec![]);
        // uint4[6] also fits 3 bytes but with 0 padding bits: the record's padding says otherwise.
        let wrong_padding = vec![
            konst("u4", DType::UInt4, &[6], W, 64),
            konst("u3", DType::UInt3, &[7], W, 192),
        ];
        let found = pkg.findings(wrong_padding);
        assert_eq!(kinds(&found), vec!["blob-size-mismatch"]);
        assert!(found[0]
            .message
            .contains("padding_size_in_bits is 4, expected 0"));
        let wrong_size = vec![
            konst("u4", DType::UInt4, &[8], W, 64),
            konst("u3", DType::UInt3, &[7], W, 192),
        ];
        let found = pkg.findings(wrong_size);
        assert_eq!(kinds(&found), vec!["blob-size-mismatch"]);
        assert!(found[0].message.contains("`u4` needs 4 bytes"));
        assert!(found[0].message.contains("says 3:"));
    }

    #[test]
    fn element_count_past_2_64_is_a_size_mismatch_and_a_dynamic_shape_is_not() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(Some(&bytes));
        let ops = vec![
            konst("a", DType::Fp32, &[500], W, 64),
            konst("b", DType::Fp16, &[u64::MAX, 2], W, 2176),
        ];
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-size-mismatch"]);
        assert!(found[0].message.contains("needs more than 2^64 bytes"));
        assert!(found[0].message.contains("more than 2^64 elements"));
        // 2^63 fp32 elements: the count fits u64, the bytes do not.
        let ops = vec![
            konst("a", DType::Fp32, &[1 << 63], W, 64),
            konst("b", DType::Fp16, &[3], W, 2176),
        ];
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-size-mismatch"]);
        assert!(found[0]
            .message
            .contains("holds 9223372036854775808 elements of 32 bits"));
        // Rank unknown: no byte count to compare (a non-empty payload is fine).
        let mut dynamic = konst("b", DType::Fp16, &[3], W, 2176);
        let ty = ValueType::Tensor(TensorType {
            dtype: DType::Fp16,
            shape: None,
        });
        let mut lit = blob_lit(DType::Fp16, &[3], W, 2176);
        lit.ty = ty.clone();
        dynamic.attributes = crate::ir::Attributes::from([("val".to_string(), lit)]);
        dynamic.outputs[0].ty = ty;
        let found = pkg.findings(vec![konst("a", DType::Fp32, &[500], W, 64), dynamic]);
        assert_eq!(found, vec![]);
    }

    #[test]
    fn empty_payload_is_a_size_mismatch() {
        let (bytes, _) = weight_file(1, &[B(1, 0, 0)]);
        let found = Pkg::new(Some(&bytes)).findings(vec![konst("e", DType::Fp16, &[0], W, 64)]);
        assert_eq!(kinds(&found), vec!["blob-size-mismatch"]);
        assert!(found[0].message.contains("zero-length"));
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
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-path-escape"]);
        assert_eq!(found[0].op.as_deref(), Some("x"));
        assert!(found[0]
            .message
            .starts_with("weight file @model_path/../../etc/passwd is outside"));
        let mut ops = clean_ops();
        ops.push(konst("x", DType::Fp16, &[1], "/etc/passwd", 64));
        assert_eq!(kinds(&pkg.findings(ops)), vec!["blob-path-escape"]);
        let mut ops = clean_ops();
        ops.push(konst("x", DType::Fp16, &[1], "weights/weight.bin", 64));
        assert_eq!(kinds(&pkg.findings(ops)), vec!["blob-bad-path"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlink_out_of_the_package_is_refused() {
        let (bytes, _) = two_blobs();
        let pkg = Pkg::new(None);
        std::fs::write(pkg.outside().join("elsewhere.bin"), &bytes).unwrap();
        std::os::unix::fs::symlink("../../elsewhere.bin", pkg.root.join("weights/weight.bin"))
            .unwrap();
        let found = pkg.findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-path-escape"]);
        assert!(found[0].message.contains("symlink"));
        // A symlink that stays inside the package is followed.
        let pkg = Pkg::new(None);
        std::fs::write(pkg.root.join("real.bin"), &bytes).unwrap();
        std::os::unix::fs::symlink("../real.bin", pkg.root.join("weights/weight.bin")).unwrap();
        assert_eq!(pkg.findings(clean_ops()), vec![]);
    }

    #[test]
    fn folder_and_missing_files_are_reported_once_per_file() {
        let pkg = Pkg::new(None);
        std::fs::create_dir(pkg.root.join("weights/weight.bin")).unwrap();
        let found = pkg.findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-missing-file"]);
        assert!(found[0].message.contains("is a folder"));

        let pkg = Pkg::new(None);
        let found = pkg.findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-missing-file"]);
        assert!(found[0].message.contains("does not exist"));
        assert!(found[0].message.contains("(2 constants use it"));

        let pkg = Pkg::new(None);
        std::fs::remove_dir(pkg.root.join("weights")).unwrap();
        let found = pkg.findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-missing-file"]);
        assert!(found[0].message.contains("folder"), "{found:?}");
        assert!(found[0].message.contains("weights does not exist"));

        // A missing folder is one cause, whatever number of its files the program references.
        let pkg = Pkg::new(None);
        std::fs::remove_dir(pkg.root.join("weights")).unwrap();
        let ops = vec![
            konst("a", DType::Fp16, &[3], W, 64),
            konst("b", DType::Fp16, &[3], "@model_path/weights/other.bin", 64),
            konst("c", DType::Fp16, &[3], "@model_path/weights/third.bin", 64),
        ];
        let found = pkg.findings(ops);
        assert_eq!(kinds(&found), vec!["blob-missing-file"], "{found:?}");
        assert!(
            found[0]
                .message
                .contains("should hold 3 weight files (3 constants use it"),
            "{}",
            found[0].message
        );
        // A missing file beside others in a folder that exists is one finding per file.
        let pkg = Pkg::new(None);
        let ops = vec![
            konst("a", DType::Fp16, &[3], W, 64),
            konst("b", DType::Fp16, &[3], "@model_path/weights/other.bin", 64),
        ];
        assert_eq!(kinds(&pkg.findings(ops)).len(), 2);
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
        let found = Pkg::new(Some(&bytes)).findings(ops);
        assert_eq!(kinds(&found), vec!["blob-overlap"]);
        assert!(found[0]
            .message
            .contains("the blobs at 64 and 2176 overlap"));

        assert_eq!(found[0].op.as_deref(), Some("b"));
    }

    #[test]
    fn unreferenced_blob_is_reported() {
        let (bytes, _) = two_blobs();
        let found = Pkg::new(Some(&bytes)).findings(vec![konst("a", DType::Fp32, &[500], W, 64)]);
        assert_eq!(kinds(&found), vec!["blob-unreferenced"]);
        assert!(found[0]
            .message
            .contains("the blob at offset 2176 (fp16 (storage code 1), 6 bytes)"));
    }

    #[test]
    fn header_count_disagreeing_with_the_chain_is_reported() {
        let (bytes, _) = weight_file(3, &[B(2, 2000, 0), B(1, 6, 0)]);
        let found = Pkg::new(Some(&bytes)).findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-count-mismatch"]);
        assert!(
            help(&found[0]).starts_with("the header counts 3 blobs and the record chain holds 2")
        );

        let (bytes, _) = weight_file(1, &[B(2, 2000, 0), B(1, 6, 0)]);
        let found = Pkg::new(Some(&bytes)).findings(clean_ops());
        assert_eq!(kinds(&found), vec!["blob-count-mismatch"]);
        assert!(found[0].message.contains("appended"));
    }

    #[test]
    fn truncated_file_reports_the_lost_record_and_the_count() {
        let (mut bytes, _) = two_blobs();
        bytes.truncate(2200);
        let found = Pkg::new(Some(&bytes)).findings(clean_ops());
        assert_eq!(
            kinds(&found),
            vec!["blob-count-mismatch", "blob-out-of-bounds"]
        );
        assert!(found[0].message.contains("partial record at offset 2176"));
        assert_eq!(found[1].op.as_deref(), Some("b"));
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
        let found = findings(&m);
        assert_eq!(kinds(&found), vec!["blob-misaligned"]);
        let f = &found[0];
        assert_eq!(f.function.as_deref(), Some("second"));
        assert_eq!(f.op.as_deref(), Some("w"));
        assert_eq!(f.order, Some(0));
        assert_eq!(f.span, Some(Span::new(5, 9)));
        let entities = blob_entities(&m);
        let w = of(&entities, "weight")
            .into_iter()
            .find(|e| e.op.as_deref() == Some("w"))
            .unwrap();
        assert_eq!(get(w, "param"), "indices");
        assert!(f
            .message
            .contains("inside the payload of the blob whose record is at 64"));
    }

    #[test]
    fn sound_references_and_files_are_described_too() {
        let (bytes, _) = two_blobs();
        let entities = Pkg::new(Some(&bytes)).entities(clean_ops());
        let weights = of(&entities, "weight");
        assert_eq!(weights.len(), 2);
        for w in &weights {
            assert_eq!(w.get("file-readable"), Some(&Prop::Bool(true)));
            assert_eq!(get(w, "sentinel"), "0xDEADBEEF");
            assert_eq!(w.get("storage-code"), w.get("declared-storage-code"));
            assert_eq!(w.get("payload-size"), w.get("expected-size"));
            assert_eq!(w.get("bounds-detail"), None);
            assert_eq!(w.get("size-detail"), None);
        }
        assert_eq!(
            get(weights[0], "at-offset"),
            "offset 64 is the record at 64"
        );
        assert_eq!(get(weights[1], "declared-storage"), "fp16 (storage code 1)");
        let files = of(&entities, "weight-file");
        assert_eq!(files.len(), 1);
        let f = files[0];
        assert_eq!(f.op.as_deref(), Some("a"));
        assert_eq!(
            [
                "status",
                "version",
                "header-count",
                "records",
                "chain-end",
                "references"
            ]
            .map(|p| get(f, p)),
            ["opened", "2", "2", "2", "end-of-file", "2"]
        );
        assert_eq!(f.get("problem"), None);
        let records = of(&entities, "weight-record");
        assert_eq!(records.len(), 2);
        assert!(records
            .iter()
            .all(|r| r.get("referenced") == Some(&Prop::Bool(true))));
        assert!(of(&entities, "weight-overlap").is_empty());
        let total = of(&entities, "weights");
        assert_eq!(get(total[0], "total-bytes"), "2246");
        assert_eq!(get(total[0], "files"), "1");
        assert!(blob_entities(&Pkg::new(None).model(vec![("main", Vec::new())])).is_empty());
    }

    #[test]
    fn lfs_pointer_weight_file_is_a_bundle_item_and_nothing_else() {
        let pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n";
        let pkg = Pkg::new(Some(pointer));
        let found = pkg.findings(clean_ops());
        assert_eq!(kinds(&found), vec!["bundle-lfs-pointer"]);
        assert_eq!(found[0].op.as_deref(), Some("a"));
        assert!(found[0]
            .message
            .ends_with("is a Git LFS pointer, not the weight file (2 constants use it, first `a`): the LFS object was never fetched"));
        let entities = pkg.entities(clean_ops());
        assert_eq!(
            get(of(&entities, "weight-file")[0], "status"),
            "lfs-pointer"
        );
        assert!(of(&entities, "weight")
            .iter()
            .all(|w| w.get("file-readable") == Some(&Prop::Bool(false))));
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

    /// The findings of the scenarios above and of a 2 GiB file (for the rule-file test).
    pub(super) fn every_kind() -> Vec<Finding> {
        let mut out = Vec::new();
        for (_, bytes, ops) in scenarios() {
            out.extend(Pkg::new(bytes.as_deref()).findings(ops));
        }
        let pkg = Pkg::new(None);
        sparse_weight_file(&pkg.root.join("weights/weight.bin"), 1 << 31);
        out.extend(pkg.findings(vec![konst("big", DType::Fp16, &[32768, 32768], W, 64)]));
        out
    }

    /// The per-reference rules judge a reference in the order Core ML reads it and stop at its
    /// first problem: no op gets two of their findings.
    #[test]
    fn a_reference_gets_one_finding_for_its_first_problem() {
        const PER_REFERENCE: &[&str] = &[
            "blob-out-of-bounds",
            "blob-misaligned",
            "blob-bad-sentinel",
            "blob-dtype-mismatch",
            "blob-size-mismatch",
        ];
        let mut ops = 0;
        for (name, bytes, ops_of_main) in scenarios() {
            let mut seen = BTreeSet::new();
            for f in Pkg::new(bytes.as_deref()).findings(ops_of_main) {
                if PER_REFERENCE.contains(&f.rule.as_str()) {
                    let op = f.op.clone().unwrap();
                    assert!(seen.insert(op.clone()), "{name}: `{op}` twice");
                    ops += 1;
                }
            }
        }
        assert_eq!(ops, 5, "oob, mis, sen, dt and sz");
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

    /// With the run's rules' demand, a weight or weight record no rule selects is not kept (a large
    /// model's healthy weights are most of its entities; a weight is asked about by its numbers
    /// before its texts are written); the findings are the same.
    #[test]
    fn only_the_weights_and_records_a_rule_selects_are_kept() {
        let demand = crate::rules::RuleDemand::of(blob_rules());
        let findings_of = |m: &Model, entities: Vec<Entity>| {
            let mut f = match_model(m, blob_rules(), &ModelEntities { entities });
            f.sort_by(|a, b| (&a.rule, &a.op).cmp(&(&b.rule, &b.op)));
            f
        };
        let per_use = |e: &Entity| matches!(e.kind, "weight" | "weight-record");
        let (mut kept_uses, mut dropped) = (0, 0);
        for (name, bytes, ops) in scenarios() {
            let pkg = Pkg::new(bytes.as_deref());
            let m = pkg.model(vec![("main", ops)]);
            let every = blob_entities(&m);
            let kept = blob_entities_with(&m, &demand);
            assert_eq!(
                findings_of(&m, kept.clone()),
                findings_of(&m, every.clone()),
                "{name}"
            );
            for e in &every {
                match (per_use(e), kept.contains(e)) {
                    (false, keeps) => assert!(keeps, "{name}: a `{}` is always kept", e.kind),
                    (true, true) => {
                        assert!(demand.selects(e), "{name}");
                        kept_uses += 1;
                    }
                    (true, false) => {
                        assert!(!demand.selects(e), "{name}");
                        dropped += 1;
                    }
                }
            }
        }
        assert!(
            kept_uses > 0 && dropped > 0,
            "{kept_uses} kept, {dropped} dropped"
        );
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
        let found = pkg.findings(ops);
        assert_eq!(
            kinds(&found),
            vec!["blob-file-too-large", "blob-weights-too-large"]
        );
        assert!(found[0].message.contains("2147483776 bytes"));
        assert!(found[1].message.contains("in 1 file(s)"));
    }
}

/// The rule files `rules/blob-*.yaml` select the entities produced here: each is an entity rule
/// over a kind registered here, and some scenario makes each report. (The rule loader checks
/// each file's properties and placeholders against the registry.)
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod rule_file_tests {
    use std::collections::BTreeSet;

    use super::tests::every_kind;
    use super::ENTITY_KINDS;

    #[test]
    fn rule_files_select_the_entities() {
        let produced: BTreeSet<String> = every_kind().into_iter().map(|f| f.rule).collect();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        let mut files = BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let Some(id) = name
                .strip_suffix(".yaml")
                .filter(|n| n.starts_with("blob-"))
            else {
                continue;
            };
            files.insert(id.to_string());
            let path = dir.join(&name);
            let text = std::fs::read_to_string(&path).unwrap();
            let y: serde_yaml_bw::Value = serde_yaml_bw::from_str(&text).unwrap();
            assert_eq!(y["id"].as_str(), Some(id), "{}", path.display());
            let kind = y["match"]["kind"].as_str().unwrap_or_default();
            assert!(
                ENTITY_KINDS.iter().any(|k| k.name == kind),
                "{id}: kind `{kind}`"
            );
            assert!(produced.contains(id), "no test makes {id} report");
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
                    "{id}: {key}"
                );
            }
            assert!(y["references"].as_sequence().is_some_and(|r| !r.is_empty()));
        }
        assert_eq!(files.len(), 14, "{files:?}");
    }
}
