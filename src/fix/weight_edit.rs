//! The weight-file write-back: the [`WeightEdit`]s of the applied plans change record payloads in
//! place (same size, same offsets) and the records' storage type with them, so every other record
//! and the file's length stay as they were. The new file goes through the same atomic replace as
//! the program.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use crate::analysis::fix_plan::{PadPlan, WeightAppend, WeightEdit};
use crate::ir::Model;
use crate::read::blob::{self, BlobFile};

/// Files to write: each path with its new bytes.
pub(crate) type Files = Vec<(PathBuf, Vec<u8>)>;

/// The rewritten weight files of `plans` (each file once, each record edited once), with one line
/// per edited record for the diff: which record, its storage type, how many elements and bytes.
pub(crate) fn weight_files(model: &Model, plans: &[&PadPlan]) -> Result<(Files, String), String> {
    let mut by_file: BTreeMap<&PathBuf, BTreeMap<u64, &WeightEdit>> = BTreeMap::new();
    for e in plans.iter().flat_map(|p| p.weights.iter()) {
        let records = by_file.entry(&e.file).or_default();
        match records.get(&e.offset) {
            Some(prev) if *prev != e => {
                return Err(format!(
                    "two fixes change record {} of {} differently",
                    e.offset, e.written
                ))
            }
            _ => {
                records.insert(e.offset, e);
            }
        }
    }
    let mut files = Vec::new();
    let mut diff = String::new();
    for (path, records) in by_file {
        let mapped = BlobFile::open(path, &model.root)
            .map_err(|e| format!("{}: cannot open the weight file: {e}", path.display()))?;
        let mut bytes =
            std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let _ = writeln!(
            diff,
            "--- a/{0} (weights)\n+++ b/{0} (weights)",
            path.display()
        );
        for (&offset, e) in &records {
            let rec = mapped
                .record_at(offset)
                .map_err(|_| format!("{}: no record at offset {offset}", e.written))?;
            let code = blob::storage_code(e.dtype);
            if !rec.has_sentinel() || Some(rec.dtype_code) != code {
                return Err(format!(
                    "{}: the record at offset {offset} is not a {} record",
                    e.written, e.dtype
                ));
            }
            let new = e
                .change
                .dtype(e.dtype)
                .and_then(blob::storage_code)
                .ok_or_else(|| format!("{}: {} records cannot change", e.written, e.dtype))?;
            let start = usize::try_from(rec.data_offset).map_err(|_| "offset too large")?;
            let end = rec
                .payload_end()
                .and_then(|x| usize::try_from(x).ok())
                .filter(|&x| x <= bytes.len())
                .ok_or_else(|| format!("{}: the record at {offset} leaves the file", e.written))?;
            let payload = bytes.get_mut(start..end).ok_or("internal: payload range")?;
            let before = payload.to_vec();
            let elements = e.change.bytes(e.dtype, payload).ok_or_else(|| {
                format!(
                    "{}: the payload at {offset} is not whole elements",
                    e.written
                )
            })?;
            let changed = before
                .iter()
                .zip(payload.iter())
                .filter(|(a, b)| a != b)
                .count();
            let code_at = usize::try_from(offset + 4).map_err(|_| "offset too large")?;
            let field = bytes
                .get_mut(code_at..code_at + 4)
                .ok_or("internal: record range")?;
            field.copy_from_slice(&new.to_le_bytes());
            let storage = match e.change.dtype(e.dtype) {
                Some(d) if d != e.dtype => format!("storage {} → {d}", e.dtype),
                _ => format!("storage {}", e.dtype),
            };
            let _ = writeln!(
                diff,
                "@@ record at offset {offset} ({}): {storage}; {elements} element(s) changed, {changed} of {} payload bytes rewritten in place @@",
                e.written, rec.size
            );
        }
        files.push((path.clone(), bytes));
    }
    append_records(plans, &mut files, &mut diff)?;
    Ok((files, diff))
}

/// The 64-byte header of a weight file with no record yet, as coremltools' writer starts one
/// (FORMAT.md §4.2): count 0, version 2, reserved zeros.
fn new_file_header() -> Vec<u8> {
    let mut header = vec![0u8; blob::HEADER_BYTES as usize];
    if let Some(version) = header.get_mut(4..8) {
        version.copy_from_slice(&2u32.to_le_bytes());
    }
    header
}

/// Appends the records of the plans' [`WeightAppend`]s to their files (those already edited above,
/// else read from disk, else a new file: the header alone): zeros up to each record's offset, the
/// 64-byte metadata (sentinel, storage code, size, payload offset = record + 64, no padding bits,
/// reserved zeros), the payload; the header's count grows by the records added.
fn append_records(plans: &[&PadPlan], files: &mut Files, diff: &mut String) -> Result<(), String> {
    let mut by_file: BTreeMap<&PathBuf, Vec<&WeightAppend>> = BTreeMap::new();
    for a in plans.iter().flat_map(|p| p.appends.iter()) {
        by_file.entry(&a.file).or_default().push(a);
    }
    for (path, mut records) in by_file {
        records.sort_by_key(|a| a.offset);
        records.dedup_by_key(|a| a.offset);
        let fresh = !path.exists() && !files.iter().any(|(p, _)| p == path);
        let at = match files.iter().position(|(p, _)| p == path) {
            Some(i) => i,
            None => {
                let bytes = if fresh {
                    new_file_header()
                } else {
                    std::fs::read(path)
                        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?
                };
                files.push((path.clone(), bytes));
                files.len() - 1
            }
        };
        let bytes = &mut files.get_mut(at).ok_or("internal: file index")?.1;
        if bytes.len() < blob::HEADER_BYTES as usize {
            return Err(format!("{}: shorter than its header", path.display()));
        }
        let _ = if fresh {
            writeln!(
                diff,
                "--- /dev/null\n+++ b/{} (weights, a new file: header version 2)",
                path.display()
            )
        } else {
            writeln!(
                diff,
                "--- a/{0} (weights)\n+++ b/{0} (weights)",
                path.display()
            )
        };
        for a in &records {
            let offset = usize::try_from(a.offset).map_err(|_| "offset too large")?;
            if offset < bytes.len() || offset % 64 != 0 {
                return Err(format!(
                    "{}: a record cannot be added at {offset} (the file is {} bytes)",
                    a.written,
                    bytes.len()
                ));
            }
            let code = blob::storage_code(a.dtype)
                .ok_or_else(|| format!("{}: no weight file holds {}", a.written, a.dtype))?;
            bytes.resize(offset, 0);
            bytes.extend_from_slice(&blob::SENTINEL.to_le_bytes());
            bytes.extend_from_slice(&code.to_le_bytes());
            bytes.extend_from_slice(&(a.bytes.len() as u64).to_le_bytes());
            bytes.extend_from_slice(&(a.offset + 64).to_le_bytes());
            bytes.resize(offset + 64, 0);
            bytes.extend_from_slice(&a.bytes);
            let _ = writeln!(
                diff,
                "@@ record added at offset {offset} ({}): storage {}, {} payload bytes @@",
                a.written,
                a.dtype,
                a.bytes.len()
            );
        }
        let count = bytes
            .get(0..4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes)
            .ok_or("internal: header")?;
        let added = u32::try_from(records.len()).map_err(|_| "too many records")?;
        let new = count
            .checked_add(added)
            .ok_or("the header's record count overflows")?;
        bytes
            .get_mut(0..4)
            .ok_or("internal: header")?
            .copy_from_slice(&new.to_le_bytes());
    }
    Ok(())
}
