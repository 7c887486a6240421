//! Where a model's ops hold literals (attributes and inline arguments), and which of them are
//! file-backed: what the value-editing fix plans name, and how they check that a weight-file record
//! they change is read by no literal they leave alone.

use std::path::{Path, PathBuf};

use super::fix_plan::{op_ref, LiteralEdit, LiteralSite, ValueChange, WeightEdit};
use crate::ir::{Arg, DType, Function, Literal, Model, NodeId};
use crate::limits::MAX_BLOB_VALUE_BYTES;
use crate::read::blob::{self, BlobFile};

/// The literal at `site` of the op at `node`.
pub(crate) fn literal_at<'f>(
    f: &'f Function,
    node: NodeId,
    site: &LiteralSite,
) -> Option<&'f Literal> {
    let op = f.op(node)?;
    match site {
        LiteralSite::Attribute(a) => op.attributes.get(a),
        LiteralSite::Argument { param, position } => match op
            .param(param)
            .and_then(|p| p.args.get(*position as usize))?
        {
            Arg::Value(v) => Some(v),
            Arg::Name(_) => None,
        },
    }
}

/// Every literal site of `f`'s ops: (op, site, literal).
pub(crate) fn sites(f: &Function) -> Vec<(NodeId, LiteralSite, &Literal)> {
    let mut out = Vec::new();
    for (id, op) in f.ops() {
        for (k, v) in op.attributes.iter() {
            out.push((id, LiteralSite::Attribute(k.to_string()), v));
        }
        for p in &op.inputs {
            for (i, a) in p.args.iter().enumerate() {
                if let Arg::Value(v) = a {
                    out.push((
                        id,
                        LiteralSite::Argument {
                            param: p.name.to_string(),
                            position: i as u32,
                        },
                        &**v,
                    ));
                }
            }
        }
    }
    out
}

/// The weight file and record a file-backed literal names, resolved inside the package.
pub(crate) fn record_of(model: &Model, lit: &Literal) -> Option<(PathBuf, u64)> {
    let b = lit.blob()?;
    let path = blob::resolve_blob_path(&b.path, &model.model_path, &model.root).ok()?;
    Some((path, b.offset))
}

/// The edits that apply `change` to the literal at `site` of `node` in `f`: the literal itself and,
/// when it is file-backed, its record.
pub(crate) fn edit_literal(
    model: &Model,
    f: &Function,
    node: NodeId,
    site: LiteralSite,
    change: ValueChange,
) -> Result<(LiteralEdit, Option<WeightEdit>), String> {
    let op = op_ref(f, node).ok_or("internal: op vanished")?;
    let lit =
        literal_at(f, node, &site).ok_or_else(|| format!("`{}` has no such literal", op.label))?;
    let dtype = lit
        .ty
        .tensor()
        .map(|t| t.dtype)
        .ok_or_else(|| format!("a literal of `{}` is not a tensor", op.label))?;
    if change.dtype(dtype).is_none() {
        return Err(format!("a literal of `{}` is {dtype}", op.label));
    }
    let weight = match lit.blob() {
        None => None,
        Some(b) => {
            let (file, offset) = record_of(model, lit).ok_or_else(|| {
                format!(
                    "the weight path `{}` does not resolve inside the package",
                    b.path
                )
            })?;
            check_record(model, &file, offset, dtype, change)
                .map_err(|why| format!("`{}`'s weight record at {offset}: {why}", op.label))?;
            Some(WeightEdit {
                file,
                written: b.path.to_string(),
                offset,
                dtype,
                change,
            })
        }
    };
    Ok((LiteralEdit { op, site, change }, weight))
}

/// Checks that the record at `offset` of `file` holds `dtype` elements inside the file (what the
/// `blob-*` rules check), and, when its payload is small enough to read, that `change` alters it.
fn check_record(
    model: &Model,
    file: &Path,
    offset: u64,
    dtype: DType,
    change: ValueChange,
) -> Result<(), String> {
    let blob = BlobFile::open(file, &model.root).map_err(|e| e.to_string())?;
    let rec = blob
        .record_at(offset)
        .map_err(|_| "there is no record there".to_string())?;
    if !rec.has_sentinel() || Some(rec.dtype_code) != blob::storage_code(dtype) {
        return Err(format!("it does not hold {dtype} data"));
    }
    if rec.payload_end().is_none_or(|end| end > blob.len()) {
        return Err("its payload leaves the file".into());
    }
    if let Some(payload) = blob.payload(&rec, MAX_BLOB_VALUE_BYTES) {
        let mut copy = payload.to_vec();
        match change.bytes(dtype, &mut copy) {
            Some(0) => return Err("the fix would change none of its elements".into()),
            None => return Err("its payload is not whole elements".into()),
            Some(_) => {}
        }
    }
    Ok(())
}

/// Refuses when a record that `weights` change is also read by a literal of the model that
/// `edited` does not list (by function name and op order): that literal would change too.
pub(crate) fn records_not_shared(
    model: &Model,
    weights: &[WeightEdit],
    edited: &[(String, LiteralEdit)],
) -> Result<(), String> {
    if weights.is_empty() {
        return Ok(());
    }
    for f in &model.program.functions {
        for (id, site, lit) in sites(f) {
            let Some(rec) = record_of(model, lit) else {
                continue;
            };
            if !weights.iter().any(|w| w.file == rec.0 && w.offset == rec.1) {
                continue;
            }
            let order = f.op(id).map(|o| o.order);
            let listed = edited
                .iter()
                .any(|(func, e)| *func == f.name && Some(e.op.order) == order && e.site == site);
            if !listed {
                return Err(format!(
                    "weight record {} of {} is also read by `{}` in `{}`, which the fix does not change",
                    rec.1,
                    rec.0.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                    f.op(id).map_or("?", |o| o.display_name()),
                    f.name
                ));
            }
        }
    }
    Ok(())
}
