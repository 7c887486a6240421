//! Bundle-completeness facts (FIELD-HAZARDS A7): files of the package the reader found replaced by
//! Git LFS pointers, and `Manifest.json` items with nothing on disk. A weight file that is a
//! pointer is found by the blob checks (`analysis::blobs`), which then judge nothing else in it.

use std::path::{Path, PathBuf};

use super::facts::{Fact, FactKind};
use crate::ir::{BundleFaultKind, Model};

/// Fact kinds produced here (each is also a rule id), with the captures each carries.
pub const FACT_KINDS: &[FactKind] = &[
    FactKind::new("bundle-lfs-pointer", &["FILE", "WHAT"]),
    FactKind::new("bundle-manifest-missing-item", &["FILE", "ID", "ITEM"]),
];

/// The bundle facts of `model`. A missing manifest item that holds a weight file the program
/// references is left to `blob-missing-file`, which reports that file (one finding per cause).
pub fn bundle_facts(model: &Model) -> Vec<Fact> {
    let mut weight_files = None;
    model
        .bundle
        .iter()
        .filter_map(|fault| match &fault.kind {
            BundleFaultKind::LfsPointer => Some(lfs_pointer(&fault.file, what_file(&fault.file))),
            BundleFaultKind::ManifestItemMissing { id, item_path } => {
                let referenced = weight_files
                    .get_or_insert_with(|| super::blobs::weight_files(model))
                    .iter()
                    .any(|w: &PathBuf| w.starts_with(&fault.file));
                (!referenced).then(|| {
                    Fact::new("bundle-manifest-missing-item")
                        .with("FILE", fault.file.display())
                        .with("ID", id)
                        .with("ITEM", item_path)
                })
            }
        })
        .collect()
}

/// A `bundle-lfs-pointer` fact about `file`, which the model needs as `what`.
pub(crate) fn lfs_pointer(file: &Path, what: String) -> Fact {
    Fact::new("bundle-lfs-pointer")
        .with("FILE", file.display())
        .with("WHAT", what)
}

/// What a file of a bundle is, by its name.
fn what_file(file: &Path) -> String {
    match file.file_name().and_then(|n| n.to_str()) {
        Some("metadata.json") => "model's metadata.json (its inputs, outputs and version)".into(),
        Some("coremldata.bin") => "compiled model's coremldata.bin".into(),
        Some(other) => format!("file `{other}`"),
        None => "file".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::facts::tests::assert_registered;
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
    fn missing_item_of_a_model_without_weights_is_a_fact() {
        let dir = tempfile::tempdir().unwrap();
        let m = model_with(
            vec![missing_weights_item(dir.path())],
            NO_WEIGHTS,
            dir.path(),
        );
        let facts = bundle_facts(&m);
        assert_registered(&facts, FACT_KINDS);
        assert_eq!(facts.len(), 1);
        assert_eq!(facts[0].kind, "bundle-manifest-missing-item");
        assert_eq!(facts[0].captures["ITEM"], "com.apple.CoreML/weights");
    }

    #[test]
    fn missing_item_holding_referenced_weights_is_left_to_the_blob_rule() {
        let dir = tempfile::tempdir().unwrap();
        let m = model_with(vec![missing_weights_item(dir.path())], WEIGHTS, dir.path());
        assert!(bundle_facts(&m).is_empty());
    }

    #[test]
    fn pointer_in_place_of_metadata_is_a_fact() {
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
        let facts = bundle_facts(&m);
        assert_registered(&facts, FACT_KINDS);
        assert_eq!(facts[0].kind, "bundle-lfs-pointer");
        assert!(facts[0].captures["WHAT"].contains("metadata.json"));
        assert_eq!(facts[0].captures["FILE"], file.display().to_string());
    }
}
