//! Every real-world `.mlpackage` in `../shared/realworld` reads through `read_model`, and what the
//! IR holds agrees with two independent sources: the protobuf itself (counted here, without the
//! lowering code) and, where the compiled twin exists, the op histogram Apple's compiler wrote into
//! its `metadata.json`.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use coreml_lint::read::metadata::read_metadata;
use coreml_lint::read::proto::{self, model::Type};
use prost::Message;
use walkdir::WalkDir;

fn realworld() -> Option<PathBuf> {
    let dir = common::shared()?.join("realworld");
    if dir.is_dir() {
        Some(dir)
    } else {
        None
    }
}

/// Folders under `root` with extension `ext`, sorted.
fn folders(root: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir() && e.path().extension().is_some_and(|x| x == ext))
        .map(|e| e.into_path())
        .collect();
    out.sort();
    out
}

fn protobuf_of(pkg: &Path) -> (Vec<u8>, proto::Model) {
    let file = pkg.join("Data/com.apple.CoreML/model.mlmodel");
    let bytes = std::fs::read(&file).unwrap();
    let model = proto::Model::decode(bytes.as_slice()).unwrap();
    (bytes, model)
}

/// Op types of a block and its nested blocks, counted straight from the protobuf.
fn count_ops(block: &proto::Block, into: &mut BTreeMap<String, u64>) {
    for op in &block.operations {
        *into.entry(op.r#type.clone()).or_default() += 1;
        for b in &op.blocks {
            count_ops(b, into);
        }
    }
}

/// Per function: op type → count, from the protobuf.
fn proto_histograms(model: &proto::Model) -> BTreeMap<String, BTreeMap<String, u64>> {
    let Some(Type::MlProgram(p)) = &model.r#type else {
        panic!("not an ML program");
    };
    p.functions
        .iter()
        .map(|(name, f)| {
            let block = f
                .block_specializations
                .get(&f.opset)
                .expect("coremltools writes the opset's block");
            let mut h = BTreeMap::new();
            count_ops(block, &mut h);
            (name.clone(), h)
        })
        .collect()
}

/// `Ios16.constexprLutToDense` / `SliceByIndex` → `constexpr_lut_to_dense` / `slice_by_index`.
fn histogram_key_to_op(key: &str) -> String {
    let bare = key.rsplit('.').next().unwrap_or(key);
    let mut out = String::new();
    for (i, c) in bare.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn realworld_packages_read_with_the_right_functions_and_ops() {
    let Some(root) = realworld() else {
        eprintln!("note: ../shared/realworld not found; skipping real-world package checks");
        return;
    };
    let packages = folders(&root, "mlpackage");
    assert!(
        !packages.is_empty(),
        "no .mlpackage under {}",
        root.display()
    );
    for pkg in &packages {
        let model = common::read(pkg);
        let (_, spec) = protobuf_of(pkg);
        let expected = proto_histograms(&spec);
        let names: Vec<&str> = model
            .program
            .functions
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(
            names,
            expected.keys().map(String::as_str).collect::<Vec<_>>(),
            "{}",
            pkg.display()
        );
        for f in &model.program.functions {
            let mut got: BTreeMap<String, u64> = BTreeMap::new();
            for (_, op) in f.ops() {
                *got.entry(op.op_type.clone()).or_default() += 1;
            }
            assert_eq!(&got, &expected[&f.name], "{} {}", pkg.display(), f.name);
            assert_eq!(
                f.op_count() as u64,
                got.values().sum::<u64>(),
                "{}",
                pkg.display()
            );
            assert!(f.op_count() > 0, "{}: empty function", pkg.display());
        }
        assert_eq!(
            model.spec_version,
            Some(i64::from(spec.specification_version))
        );
        let expected_version = if spec.specification_version >= 9 {
            "1.3"
        } else {
            "1.0"
        };
        assert_eq!(model.program.version, expected_version);
        assert!(
            !model.description.top.inputs.is_empty() && !model.description.top.outputs.is_empty(),
            "{}: description lost its inputs/outputs",
            pkg.display()
        );
        eprintln!(
            "{}: {} function(s), {} ops",
            pkg.display(),
            names.len(),
            model
                .program
                .functions
                .iter()
                .map(|f| f.op_count())
                .sum::<usize>()
        );
    }
}

#[test]
fn realworld_packages_match_their_compiled_histograms() {
    let Some(root) = realworld() else {
        eprintln!("note: ../shared/realworld not found; skipping");
        return;
    };
    let compiled = folders(&root, "mlmodelc");
    let mut compared = 0;
    for pkg in folders(&root, "mlpackage") {
        let stem = pkg.file_stem().unwrap().to_owned();
        let Some(twin) = compiled.iter().find(|c| c.file_stem() == Some(&stem)) else {
            continue;
        };
        let Some(meta) = read_metadata(&twin.join("metadata.json")).unwrap() else {
            continue;
        };
        let Some(hist) = meta.description.op_histogram else {
            continue;
        };
        let mut apple: BTreeMap<String, u64> = BTreeMap::new();
        for (k, n) in hist {
            *apple.entry(histogram_key_to_op(&k)).or_default() += n;
        }
        let model = common::read(&pkg);
        let mut ours: BTreeMap<String, u64> = BTreeMap::new();
        for f in &model.program.functions {
            for (_, op) in f.ops() {
                if op.op_type != "const" {
                    *ours.entry(op.op_type.clone()).or_default() += 1;
                }
            }
        }
        assert_eq!(ours, apple, "{} vs {}", pkg.display(), twin.display());
        compared += 1;
    }
    eprintln!("compared {compared} package(s) with compiled twins");
    assert!(
        compared > 0,
        "expected at least one package with a compiled twin"
    );
}

/// The wire splice keeps real files intact, and our structs model every field in the parts the
/// fixer replaces: re-encoding description and program gives payloads of the original length.
#[test]
fn realworld_packages_reencode_losslessly() {
    let Some(root) = realworld() else {
        eprintln!("note: ../shared/realworld not found; skipping");
        return;
    };
    for pkg in folders(&root, "mlpackage") {
        let (bytes, spec) = protobuf_of(&pkg);
        let same = proto::encode_model_preserving(&bytes, None, None).unwrap();
        assert_eq!(same, bytes, "{}", pkg.display());
        common::assert_reencodes_losslessly(&bytes, &spec, &pkg);
    }
}

#[test]
fn realworld_compiled_metadata_parses() {
    let Some(root) = realworld() else {
        eprintln!("note: ../shared/realworld not found; skipping");
        return;
    };
    let compiled = folders(&root, "mlmodelc");
    assert!(!compiled.is_empty());
    for dir in compiled {
        let meta = read_metadata(&dir.join("metadata.json"))
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("{}: no metadata.json", dir.display()));
        assert!(
            matches!(meta.spec_version, Some(6..=10)),
            "{}: spec {:?}",
            dir.display(),
            meta.spec_version
        );
        let d = &meta.description;
        assert!(!d.top.inputs.is_empty(), "{}", dir.display());
        assert!(!d.top.outputs.is_empty(), "{}", dir.display());
        let hist = d.op_histogram.as_ref().expect("histogram present");
        assert!(
            hist.iter().map(|(_, n)| n).sum::<u64>() > 0,
            "{}",
            dir.display()
        );
    }
}

/// A `torch.jit.script` loop with a branch, converted by coremltools 9.0 for iOS17
/// (tests/fixtures/control-flow/generate.py): its `cond` branches reuse value names, which MIL
/// scopes per block. It reads, and the op-set check finds nothing wrong with it.
#[test]
fn converter_made_control_flow_with_reused_names_reads() {
    let pkg = common::repo().join("tests/fixtures/control-flow/scripted-loop-ios17.mlpackage");
    let model = common::read(&pkg);
    let f = &model.program.functions[0];
    let types: Vec<&str> = f.ops().map(|(_, o)| o.op_type.as_str()).collect();
    assert!(
        types.contains(&"while_loop") && types.contains(&"cond"),
        "{types:?}"
    );
    let mil: Vec<_> = coreml_lint::analysis::opset::opset_facts(&model);
    assert!(mil.is_empty(), "{mil:?}");
}
