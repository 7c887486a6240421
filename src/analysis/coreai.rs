//! Facts about a Core AI asset (`.aimodel`) from its inventory: bundle integrity, metadata and
//! the op kinds and strings of its bytecode. Op kinds are exact (the dialect section); "debug info"
//! is a heuristic over the string table (absolute paths).

use super::facts::{Fact, FactKind};
use crate::ir::coreai::{AiAsset, AssetFile};
use crate::ir::Model;

/// Kinds this module emits.
pub const FACT_KINDS: &[FactKind] = &[
    FactKind::new("coreai-hash-mismatch", &["STORED", "COMPUTED"]),
    FactKind::new("coreai-lfs-pointer", &["FILE"]),
    FactKind::new("coreai-missing-file", &["FILE"]),
    FactKind::new("coreai-symlink", &["FILE", "LINK"]),
    FactKind::new("coreai-no-producer", &[]),
    FactKind::new("coreai-debug-info", &["COUNT", "EXAMPLE"]),
    FactKind::new("coreai-gpu-rounding", &["OPS"]),
    FactKind::new("coreai-argmax", &["OPS"]),
];

/// Op kinds (after `aicode.`, without the `_vN` version) that the GPU delegate computes wrongly.
const ROUNDING: &[&str] = &["floor", "ceil", "trunc", "round", "floor_divide"];

/// Every Core AI fact about `model`; none for a Core ML model.
pub fn coreai_facts(model: &Model) -> Vec<Fact> {
    let Some(asset) = model.description.coreai.as_deref() else {
        return Vec::new();
    };
    let mut out = file_facts(asset);
    if asset.metadata_value("producer").is_none()
        && has_content(asset, crate::read::aimodel::METADATA)
    {
        out.push(Fact::new("coreai-no-producer"));
    }
    if let Some((stored, computed)) = &asset.hash {
        if stored != computed {
            out.push(
                Fact::new("coreai-hash-mismatch")
                    .with("STORED", stored)
                    .with("COMPUTED", computed),
            );
        }
    }
    let Some(b) = &asset.bytecode else {
        return out;
    };
    let paths: Vec<&String> = b.strings.iter().filter(|s| is_absolute_path(s)).collect();
    if let Some(first) = paths.first() {
        out.push(
            Fact::new("coreai-debug-info")
                .with("COUNT", paths.len())
                .with("EXAMPLE", first),
        );
    }
    let ops_where = |pred: &dyn Fn(&str) -> bool| -> Vec<String> {
        b.ops
            .iter()
            .filter(|op| pred(base_name(op)))
            .map(|op| format!("`{op}`"))
            .collect()
    };
    for (kind, ops) in [
        ("coreai-gpu-rounding", ops_where(&|n| ROUNDING.contains(&n))),
        ("coreai-argmax", ops_where(&|n| n == "argmax")),
    ] {
        if !ops.is_empty() {
            out.push(Fact::new(kind).with("OPS", ops.join(", ")));
        }
    }
    out
}

fn has_content(asset: &AiAsset, name: &str) -> bool {
    asset
        .files
        .iter()
        .any(|(n, f)| n == name && matches!(f, AssetFile::Present(_)))
}

fn file_facts(asset: &AiAsset) -> Vec<Fact> {
    let mut out = Vec::new();
    for (name, file) in &asset.files {
        match file {
            AssetFile::Present(_) => {}
            AssetFile::Missing | AssetFile::NotAFile => {
                out.push(Fact::new("coreai-missing-file").with("FILE", name))
            }
            AssetFile::LfsPointer => out.push(Fact::new("coreai-lfs-pointer").with("FILE", name)),
            AssetFile::Symlink(target) => out.push(
                Fact::new("coreai-symlink")
                    .with("FILE", name)
                    .with("LINK", target),
            ),
        }
    }
    out
}

/// `aicode.primitive.floor_divide_v1` → `floor_divide`; `aicode.broadcasting_floor_divide_v1` →
/// `floor_divide` too (the composite wraps the primitive and is one problem).
fn base_name(op: &str) -> &str {
    let last = op.rsplit('.').next().unwrap_or(op);
    let unversioned = match last.rfind("_v") {
        Some(i) if last[i + 2..].chars().all(|c| c.is_ascii_digit()) && i + 2 < last.len() => {
            &last[..i]
        }
        _ => last,
    };
    unversioned
        .strip_prefix("broadcasting_")
        .unwrap_or(unversioned)
}

/// A Unix path with at least two components from the root, or a Windows drive path.
fn is_absolute_path(s: &str) -> bool {
    let unix = s.starts_with('/') && s[1..].contains('/') && !s.contains(char::is_whitespace);
    let b = s.as_bytes();
    let windows = b.len() > 3 && b[0].is_ascii_alphabetic() && &b[1..3] == b":\\";
    unix || windows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_base_names() {
        assert_eq!(
            base_name("aicode.primitive.floor_divide_v1"),
            "floor_divide"
        );
        assert_eq!(
            base_name("aicode.broadcasting_floor_divide_v1"),
            "floor_divide"
        );
        assert_eq!(base_name("aicode.argmax_v1"), "argmax");
        assert_eq!(base_name("aicode.metal.metal4_kernel_v1"), "metal4_kernel");
        assert_eq!(base_name("aicode.primitive.reshape_v2"), "reshape");
        assert_eq!(base_name("aicode.serialization.asset"), "asset");
    }

    #[test]
    fn absolute_paths() {
        assert!(is_absolute_path("/Users/me/src/model.py"));
        assert!(is_absolute_path("C:\\Users\\me\\model.py"));
        assert!(!is_absolute_path("aicode.name"));
        assert!(!is_absolute_path("/"));
        assert!(!is_absolute_path("a/b"));
    }

    #[test]
    fn facts_carry_their_registered_captures() {
        use crate::read::{read_model, ReadOutcome};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/coreai");
        let mut kinds = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("aimodel") {
                continue;
            }
            let d = crate::discover::Discovered {
                path: path.clone(),
                kind: crate::ir::ModelKind::AiModel,
            };
            let Ok(ReadOutcome::Model(m)) = read_model(&d) else {
                panic!("{} does not read", path.display());
            };
            let facts = coreai_facts(&m);
            crate::analysis::facts::tests::assert_registered(&facts, FACT_KINDS);
            kinds.extend(facts.into_iter().map(|f| f.kind));
        }
        for k in [
            "coreai-hash-mismatch",
            "coreai-debug-info",
            "coreai-gpu-rounding",
            "coreai-argmax",
        ] {
            assert!(kinds.contains(k), "no corpus asset gives {k}: {kinds:?}");
        }
    }
}
