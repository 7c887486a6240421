//! A Core AI asset (`.aimodel`) and its files, described as entities from its inventory: bundle
//! integrity, metadata, and the op kinds and strings of its bytecode. Op kinds are exact (the
//! dialect section); absolute paths in the string table are how debug info shows.

use super::entity::{kind_named, prop, Entity, EntityKind, PropType};
use crate::ir::coreai::{AiAsset, AssetFile};
use crate::ir::Model;

/// The entity kinds produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[
    EntityKind {
        name: "coreai-asset",
        doc: "a Core AI asset (`.aimodel`): its metadata, its hash and what its bytecode uses",
        located_at: "the model",
        properties: &[
            prop("metadata-present", PropType::Bool, "metadata.json is in the asset (a file, not a pointer or a link)."),
            prop("has-producer", PropType::Bool, "metadata.json names a `producer`."),
            prop("hash-checked", PropType::Bool, "main.hash and main.mlirb are both there, so the stored hash was compared with the computed one."),
            prop("stored-hash", PropType::Text, "The SHA-256 main.hash holds."),
            prop("computed-hash", PropType::Text, "The SHA-256 of main.mlirb."),
            prop("bytecode-read", PropType::Bool, "main.mlirb was read (the properties below are known only then)."),
            prop("absolute-paths", PropType::Int, "How many strings of main.mlirb are absolute file paths (DEBUG-mode source locations)."),
            prop("absolute-path-example", PropType::Text, "The first of those paths."),
            prop("rounding-op-count", PropType::Int, "How many op kinds of the bytecode round: floor, ceil, trunc, round and floor_divide, in any version or broadcasting form."),
            prop("rounding-ops", PropType::Text, "Those op kinds, listed (`` `aicode.floor_v1`, `aicode.ceil_v1` ``)."),
            prop("argmax-op-count", PropType::Int, "How many argmax op kinds (any version) the bytecode uses."),
            prop("argmax-ops", PropType::Text, "Those op kinds, listed."),
        ],
    },
    EntityKind {
        name: "coreai-file",
        doc: "a file a Core AI asset consists of (main.mlirb, main.hash, metadata.json)",
        located_at: "the model",
        properties: &[
            prop("name", PropType::Text, "The file's name in the asset."),
            prop("status", PropType::Text, "`present`, `missing`, `not-a-file` (a folder or other non-file), `lfs-pointer` or `symlink`."),
            prop("link", PropType::Text, "Where a symlink points, as stored."),
        ],
    },
];

/// Op kinds (after `aicode.`, without the `_vN` version) that round to an integer.
const ROUNDING: &[&str] = &["floor", "ceil", "trunc", "round", "floor_divide"];

/// The Core AI asset of `model` and its files; none for a Core ML model.
pub fn coreai_entities(model: &Model) -> Vec<Entity> {
    let Some(asset) = model.description.coreai.as_deref() else {
        return Vec::new();
    };
    let mut out = files(asset);
    let mut a = Entity::new(const { kind_named(ENTITY_KINDS, "coreai-asset") })
        .with(
            "metadata-present",
            has_content(asset, crate::read::aimodel::METADATA),
        )
        .with("has-producer", asset.metadata_value("producer").is_some())
        .with("hash-checked", asset.hash.is_some())
        .with("bytecode-read", asset.bytecode.is_some());
    if let Some((stored, computed)) = &asset.hash {
        a.set("stored-hash", stored.as_str());
        a.set("computed-hash", computed.as_str());
    }
    if let Some(b) = &asset.bytecode {
        let paths: Vec<&String> = b.strings.iter().filter(|s| is_absolute_path(s)).collect();
        a.set("absolute-paths", paths.len());
        if let Some(first) = paths.first() {
            a.set("absolute-path-example", first.as_str());
        }
        let ops_where = |pred: &dyn Fn(&str) -> bool| -> Vec<String> {
            b.ops
                .iter()
                .filter(|op| pred(base_name(op)))
                .map(|op| format!("`{op}`"))
                .collect()
        };
        for (count, list, ops) in [
            (
                "rounding-op-count",
                "rounding-ops",
                ops_where(&|n| ROUNDING.contains(&n)),
            ),
            (
                "argmax-op-count",
                "argmax-ops",
                ops_where(&|n| n == "argmax"),
            ),
        ] {
            a.set(count, ops.len());
            a.set(list, ops.join(", "));
        }
    }
    out.push(a);
    out
}

fn has_content(asset: &AiAsset, name: &str) -> bool {
    asset
        .files
        .iter()
        .any(|(n, f)| n == name && matches!(f, AssetFile::Present(_)))
}

fn files(asset: &AiAsset) -> Vec<Entity> {
    asset
        .files
        .iter()
        .map(|(name, file)| {
            let e = Entity::new(const { kind_named(ENTITY_KINDS, "coreai-file") })
                .with("name", name.as_str());
            match file {
                AssetFile::Present(_) => e.with("status", "present"),
                AssetFile::Missing => e.with("status", "missing"),
                AssetFile::NotAFile => e.with("status", "not-a-file"),
                AssetFile::LfsPointer => e.with("status", "lfs-pointer"),
                AssetFile::Symlink(target) => {
                    e.with("status", "symlink").with("link", target.as_str())
                }
            }
        })
        .collect()
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

    /// Every corpus asset's entities are registered, and the corpus makes each `coreai-*`
    /// container rule (an entity rule; the program rules are node rules) report through its YAML.
    #[test]
    fn entities_are_registered_and_every_rule_reports() {
        use crate::analysis::registry::ModelEntities;
        use crate::read::{read_model, ReadOutcome};
        let mut rules = crate::rules::RuleSet::builtin().unwrap();
        rules.retain(|r| r.id.starts_with("coreai-") && r.is_entity_rule());
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/coreai");
        let mut reported = std::collections::BTreeSet::new();
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
            let entities = coreai_entities(&m);
            crate::analysis::entity::tests::assert_registered(&entities, ENTITY_KINDS);
            assert_eq!(
                entities.iter().filter(|e| e.kind == "coreai-asset").count(),
                1,
                "{}",
                path.display()
            );
            let found = crate::rules::match_model(&m, &rules, &ModelEntities { entities });
            if path.ends_with("clean.aimodel") {
                assert!(found.is_empty(), "{found:?}");
            }
            reported.extend(found.into_iter().map(|f| f.rule));
        }
        let ids: std::collections::BTreeSet<String> =
            rules.rules().iter().map(|r| r.id.clone()).collect();
        assert_eq!(ids.len(), 7);
        assert_eq!(reported, ids);
    }
}
