//! Broken packages and bare `.mlmodel` files read through `read_model`: each gives a clear error
//! naming the file (or a "not an ML program" outcome), never a panic.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use coreml_lint::discover::Discovered;
use coreml_lint::ir::ModelKind;
use coreml_lint::read::proto::{self, model::Type};
use coreml_lint::read::{read_model, ReadError, ReadOutcome};
use prost::Message;

const MANIFEST: &str = r#"{
    "fileFormatVersion": "1.0.0",
    "itemInfoEntries": {
        "A": {"author": "com.apple.CoreML", "description": "CoreML Model Specification",
              "name": "model.mlmodel", "path": "com.apple.CoreML/model.mlmodel"},
        "B": {"author": "com.apple.CoreML", "description": "CoreML Model Weights",
              "name": "weights", "path": "com.apple.CoreML/weights"}
    },
    "rootModelIdentifier": "A"
}"#;

/// A one-op ML program (`y = relu(x)`), spec 9.
fn tiny_model() -> proto::Model {
    let fp16 = |dims: &[u64]| proto::ValueType {
        r#type: Some(proto::value_type::Type::TensorType(proto::TensorType {
            data_type: proto::DataType::Float16 as i32,
            rank: dims.len() as i64,
            dimensions: dims
                .iter()
                .map(|&size| proto::Dimension {
                    dimension: Some(proto::dimension::Dimension::Constant(
                        proto::dimension::ConstantDimension { size },
                    )),
                })
                .collect(),
            attributes: BTreeMap::new(),
        })),
    };
    let relu = proto::Operation {
        r#type: "relu".into(),
        inputs: BTreeMap::from([(
            "x".to_string(),
            proto::Argument {
                arguments: vec![proto::argument::Binding {
                    binding: Some(proto::argument::binding::Binding::Name("x".into())),
                }],
            },
        )]),
        outputs: vec![proto::NamedValueType {
            name: "y".into(),
            r#type: Some(fp16(&[1, 4])),
        }],
        ..Default::default()
    };
    let main = proto::Function {
        inputs: vec![proto::NamedValueType {
            name: "x".into(),
            r#type: Some(fp16(&[1, 4])),
        }],
        opset: "CoreML8".into(),
        block_specializations: BTreeMap::from([(
            "CoreML8".to_string(),
            proto::Block {
                outputs: vec!["y".into()],
                operations: vec![relu],
                ..Default::default()
            },
        )]),
        attributes: BTreeMap::new(),
    };
    proto::Model {
        specification_version: 9,
        description: Some(proto::ModelDescription::default()),
        is_updatable: false,
        r#type: Some(Type::MlProgram(proto::Program {
            version: 1,
            functions: BTreeMap::from([("main".to_string(), main)]),
            ..Default::default()
        })),
    }
}

/// A package holding `model_bytes` as its root model.
fn package(dir: &Path, manifest: &str, model_bytes: &[u8]) -> PathBuf {
    let pkg = dir.join("x.mlpackage");
    std::fs::create_dir_all(pkg.join("Data/com.apple.CoreML")).unwrap();
    std::fs::write(pkg.join("Manifest.json"), manifest).unwrap();
    std::fs::write(pkg.join("Data/com.apple.CoreML/model.mlmodel"), model_bytes).unwrap();
    pkg
}

fn read_pkg(pkg: &Path) -> Result<ReadOutcome, ReadError> {
    read_model(&Discovered {
        path: pkg.to_path_buf(),
        kind: ModelKind::MlPackage,
    })
}

#[test]
fn a_valid_tiny_package_reads() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path(), MANIFEST, &tiny_model().encode_to_vec());
    match read_pkg(&pkg) {
        Ok(ReadOutcome::Model(m)) => {
            assert_eq!(m.program.functions.len(), 1);
            assert_eq!(m.program.functions[0].op_count(), 1);
            assert_eq!(m.spec_version, Some(9));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn broken_manifests_are_manifest_errors() {
    let model = tiny_model().encode_to_vec();
    for manifest in [
        "not json",
        "[]",
        "{}",
        &MANIFEST.replace(
            "com.apple.CoreML/model.mlmodel",
            "com.apple.CoreML/missing.mlmodel",
        ),
        &MANIFEST.replace("com.apple.CoreML/model.mlmodel", "../../etc/passwd"),
        &MANIFEST.replace("com.apple.CoreML/model.mlmodel", "/etc/passwd"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let pkg = package(dir.path(), manifest, &model);
        match read_pkg(&pkg) {
            Err(e @ ReadError::Manifest { .. }) => {
                assert!(e.to_string().contains("Manifest.json"), "{e}")
            }
            other => panic!("{manifest}: {other:?}"),
        }
    }
}

#[test]
fn garbage_and_empty_model_files_are_protobuf_errors() {
    let mut state: u32 = 0x1234_5678;
    let mut garbage = Vec::with_capacity(4096);
    for _ in 0..4096 {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        garbage.push((state >> 24) as u8);
    }
    for bytes in [&garbage[..], b"", b"\x08\x09"] {
        let dir = tempfile::tempdir().unwrap();
        let pkg = package(dir.path(), MANIFEST, bytes);
        match read_pkg(&pkg) {
            Err(e @ ReadError::Protobuf { .. }) => {
                assert!(e.to_string().contains("model.mlmodel"), "{e}")
            }
            other => panic!("{} bytes: {other:?}", bytes.len()),
        }
    }
}

#[test]
fn truncated_models_never_panic() {
    // A real model when the shared folder is there, else the tiny one.
    let bytes = common::shared()
        .map(|s| {
            s.join("realworld/htdemucs-6s-mlpackage-ios18/htdemucs_6s.mlpackage/Data/com.apple.CoreML/model.mlmodel")
        })
        .filter(|p| p.is_file())
        .map(|p| std::fs::read(p).unwrap())
        .unwrap_or_else(|| tiny_model().encode_to_vec());
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path(), MANIFEST, b"");
    let file = pkg.join("Data/com.apple.CoreML/model.mlmodel");
    let steps = 60.min(bytes.len());
    let mut errors = 0;
    for i in 0..steps {
        let len = bytes.len() * i / steps;
        std::fs::write(&file, &bytes[..len]).unwrap();
        if let Err(e) = read_pkg(&pkg) {
            assert!(e.path().ends_with("model.mlmodel"), "{e}");
            errors += 1;
        }
    }
    assert!(
        errors > steps / 2,
        "{errors} of {steps} truncations detected"
    );
}

#[test]
fn bare_mlmodel_of_another_kind_is_not_an_ml_program() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("nn.mlmodel");
    let nn = proto::Model {
        specification_version: 4,
        r#type: Some(Type::NeuralNetwork(vec![0x0a, 0x00])),
        ..Default::default()
    };
    std::fs::write(&file, nn.encode_to_vec()).unwrap();
    match read_model(&Discovered {
        path: file.clone(),
        kind: ModelKind::MlModel,
    }) {
        Ok(ReadOutcome::NotMlProgram { path, what }) => {
            assert_eq!(path, file);
            assert_eq!(what, "a neural network");
        }
        other => panic!("{other:?}"),
    }
}
