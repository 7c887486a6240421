//! The file-backed literals of a model (`BLOBFILE(path, offset)` in any op of any function) and
//! the weight files they reference: what the weight checks (`analysis::blobs`) and the bundle
//! items (`analysis::bundle`) both read.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::entity::Entity;
use crate::ir::{Arg, BlobRef, Literal, Model, Op};
use crate::read::blob;

/// A file-backed literal and the op holding it.
pub(crate) struct BlobUse<'m> {
    pub(crate) function: &'m str,
    pub(crate) op: &'m Op,
    /// The attribute or input the literal is bound to (`val`, `indices`, …).
    pub(crate) param: &'m str,
    pub(crate) literal: &'m Literal,
    pub(crate) blob: &'m BlobRef,
}

impl BlobUse<'_> {
    /// `e` located at this use's op.
    pub(crate) fn locate(&self, mut e: Entity) -> Entity {
        e.function = Some(self.function.to_string());
        e.op = Some(self.op.display_name().to_string());
        e.op_order = Some(self.op.order);
        e.span = Some(self.op.span);
        e
    }
}

/// Every file-backed literal of the model, in function then program order.
pub(crate) fn collect_uses(model: &Model) -> Vec<BlobUse<'_>> {
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
