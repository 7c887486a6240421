//! Bundle items (FIELD-HAZARDS A7): files of the package or Core AI asset the reader found
//! replaced by Git LFS pointers, and `Manifest.json` items with nothing on disk. A weight file that
//! is a pointer is found by the blob checks (`analysis::blobs`), which describe it as a bundle item
//! too and then judge nothing else in it.

use std::path::{Path, PathBuf};

use super::entity::{kind_named, prop, Entity, EntityKind, PropType};
use crate::ir::{BundleFaultKind, Model, ModelKind};
use crate::read::aimodel;

/// The entity kind produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[EntityKind {
    name: "bundle-item",
    doc: "a file of the model's folder (a Core ML package or compiled model, a Core AI asset) \
          that the reader found wanting: a Git LFS pointer, or a `Manifest.json` item with \
          nothing on disk",
    located_at: "the model (a weight file: the first op that reads it)",
    properties: &[
        prop("file", PropType::Text, "the file's path"),
        prop(
            "what",
            PropType::Text,
            "what the model needs the file for, e.g. `model's metadata.json (its inputs, outputs and version)`, `Core AI program (its graphs and weights)`",
        ),
        prop("lfs-pointer", PropType::Bool, "the file is a Git LFS pointer"),
        prop(
            "missing",
            PropType::Bool,
            "`Manifest.json` lists the item and nothing is on disk",
        ),
        prop("id", PropType::Text, "the missing item's identifier in `Manifest.json`"),
        prop("item", PropType::Text, "the missing item's path in `Manifest.json`"),
        prop(
            "holds-program-weights",
            PropType::Bool,
            "the item is (or holds) a weight file the program references",
        ),
    ],
}];

/// The bundle items of `model` the reader found wanting.
pub fn bundle_entities(model: &Model) -> Vec<Entity> {
    let mut weight_files = None;
    model
        .bundle
        .iter()
        .map(|fault| match &fault.kind {
            BundleFaultKind::LfsPointer => {
                // Reported at the pointer file itself (`metadata.json`), not at the program.
                let mut e = lfs_pointer(&fault.file, what_file(model, &fault.file));
                e.file = Some(fault.file.clone());
                e
            }
            BundleFaultKind::ManifestItemMissing { id, item_path } => {
                let referenced = weight_files
                    .get_or_insert_with(|| super::weight_uses::weight_files(model))
                    .iter()
                    .any(|w: &PathBuf| w.starts_with(&fault.file));
                Entity::new(const { kind_named(ENTITY_KINDS, "bundle-item") })
                    .with("file", fault.file.display().to_string())
                    .with("what", what_file(model, &fault.file))
                    .with("lfs-pointer", false)
                    .with("missing", true)
                    .with("id", id.as_str())
                    .with("item", item_path.as_str())
                    .with("holds-program-weights", referenced)
            }
        })
        .collect()
}

/// The bundle item `file`, a Git LFS pointer, which the model needs as `what`.
pub(crate) fn lfs_pointer(file: &Path, what: String) -> Entity {
    Entity::new(const { kind_named(ENTITY_KINDS, "bundle-item") })
        .with("file", file.display().to_string())
        .with("what", what)
        .with("lfs-pointer", true)
        .with("missing", false)
}

/// What a file of `model`'s bundle is, by its name.
fn what_file(model: &Model, file: &Path) -> String {
    let core_ai = model.kind == ModelKind::AiModel;
    match (core_ai, file.file_name().and_then(|n| n.to_str())) {
        (true, Some(aimodel::PROGRAM)) => "Core AI program (its graphs and weights)".into(),
        (true, Some(aimodel::HASH)) => "program's SHA-256".into(),
        (true, Some(aimodel::METADATA)) => {
            "asset's metadata.json (its producer and version)".into()
        }
        (false, Some("metadata.json")) => {
            "model's metadata.json (its inputs, outputs and version)".into()
        }
        (false, Some("coremldata.bin")) => "compiled model's coremldata.bin".into(),
        (_, Some(other)) => format!("file `{other}`"),
        (_, None) => "file".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::entity::tests::assert_registered;
    use crate::analysis::entity::Prop;
    use crate::ir::BundleFault;

    fn model_with(faults: Vec<BundleFault>, mil: &str, dir: &Path) -> Model {
        let file = dir.join("model.mil");
        crate::ir::Model {
            path: dir.to_path_buf(),
            kind: crate::ir::ModelKind::MlModelc,
            spec_version: None,
            description: Default::default(),
            program: crate::read::miltext::parse_program(mil, &file).expect("parses"),
            source: crate::ir::SourceText {
                name: "model.mil".into(),
                file,
                text: std::sync::Arc::from(mil),
                is_file: true,
                lines: None,
            },
            model_path: dir.to_path_buf(),
            root: dir.to_path_buf(),
            sub_model: None,
            bundle: faults,
        }
    }

    const NO_WEIGHTS: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 3]> x) {\n            tensor<fp16, [1, 3]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";

    const WEIGHTS: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 3]> x) {\n            tensor<fp16, [1, 3]> w = const()[name = string(\"w\"), val = tensor<fp16, [1, 3]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [1, 3]> y = add(x = x, y = w)[name = string(\"y\")];\n        } -> (y);\n}\n";

    fn missing_weights_item(dir: &Path) -> BundleFault {
        BundleFault {
            kind: BundleFaultKind::ManifestItemMissing {
                id: "757FC236".into(),
                item_path: "com.apple.CoreML/weights".into(),
            },
            file: dir.join("weights"),
        }
    }

    #[test]
    fn missing_item_of_a_model_without_weights_is_an_item() {
        let dir = tempfile::tempdir().unwrap();
        let m = model_with(
            vec![missing_weights_item(dir.path())],
            NO_WEIGHTS,
            dir.path(),
        );
        let items = bundle_entities(&m);
        assert_registered(&items, ENTITY_KINDS);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].get("missing"), Some(&Prop::Bool(true)));
        assert_eq!(
            items[0].get("holds-program-weights"),
            Some(&Prop::Bool(false))
        );
        assert_eq!(
            items[0].get("item"),
            Some(&Prop::from("com.apple.CoreML/weights"))
        );
    }

    #[test]
    fn missing_item_holding_referenced_weights_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let m = model_with(vec![missing_weights_item(dir.path())], WEIGHTS, dir.path());
        let items = bundle_entities(&m);
        assert_eq!(
            items[0].get("holds-program-weights"),
            Some(&Prop::Bool(true))
        );
    }

    #[test]
    fn pointer_in_place_of_metadata_is_an_item() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("metadata.json");
        let m = model_with(
            vec![BundleFault {
                kind: BundleFaultKind::LfsPointer,
                file: file.clone(),
            }],
            NO_WEIGHTS,
            dir.path(),
        );
        let items = bundle_entities(&m);
        assert_registered(&items, ENTITY_KINDS);
        assert_eq!(items[0].get("lfs-pointer"), Some(&Prop::Bool(true)));
        assert!(items[0]
            .get("what")
            .unwrap()
            .to_string()
            .contains("metadata.json"));
        assert_eq!(
            items[0].get("file"),
            Some(&Prop::from(file.display().to_string()))
        );
    }
}
