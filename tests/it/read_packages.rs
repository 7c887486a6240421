//! Every real-world `.mlpackage` in `../shared/realworld` reads through `read_model`, and what the
//! IR holds agrees with two independent sources: the protobuf itself (counted here, without the
//! lowering code) and, where the compiled twin exists, the op histogram Apple's compiler wrote into
//! its `metadata.json`.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use coreml_lint::fix::splice;
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

/// The bytes and decoded `Model` of each ML program in `bytes`: the model itself, or each
/// ML-program sub-model of a pipeline, with its position (empty for a model of its own).
fn program_protobufs(bytes: &[u8]) -> Vec<(Vec<usize>, Vec<u8>, proto::Model)> {
    fn walk(bytes: &[u8], at: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, Vec<u8>, proto::Model)>) {
        let model = proto::Model::decode(bytes).unwrap();
        match &model.r#type {
            Some(Type::MlProgram(_)) => out.push((at.clone(), bytes.to_vec(), model)),
            Some(t) if t.describe().contains("pipeline") => {
                // Sub-models in order, until the pipeline has no more.
                let mut i = 0;
                while let Ok(sub) = splice::sub_model_bytes(bytes, &[i]) {
                    at.push(i);
                    walk(sub, at, out);
                    at.pop();
                    i += 1;
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(bytes, &mut Vec::new(), &mut out);
    out
}

/// A pipeline's ML programs are checked stage by stage against their own sub-model protobufs.
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
    let mut pipelines = 0;
    for pkg in &packages {
        let (bytes, _) = protobuf_of(pkg);
        let expected_programs = program_protobufs(&bytes);
        let models = common::read_programs(pkg);
        assert_eq!(models.len(), expected_programs.len(), "{}", pkg.display());
        for (model, (position, _, spec)) in models.iter().zip(&expected_programs) {
            let what = format!("{} {position:?}", pkg.display());
            match &model.sub_model {
                Some(sub) => {
                    assert_eq!(&sub.position, position, "{what}");
                    pipelines += 1;
                }
                None => assert!(position.is_empty(), "{what}: sub-model lost"),
            }
            let expected = proto_histograms(spec);
            let names: Vec<&str> = model
                .program
                .functions
                .iter()
                .map(|f| f.name.as_str())
                .collect();
            assert_eq!(
                names,
                expected.keys().map(String::as_str).collect::<Vec<_>>(),
                "{what}"
            );
            for f in &model.program.functions {
                let mut got: BTreeMap<String, u64> = BTreeMap::new();
                for (_, op) in f.ops() {
                    *got.entry(op.op_type.to_string()).or_default() += 1;
                }
                assert_eq!(&got, &expected[&f.name], "{what} {}", f.name);
                assert_eq!(f.op_count() as u64, got.values().sum::<u64>(), "{what}");
                assert!(f.op_count() > 0, "{what}: empty function");
            }
            assert_eq!(
                model.spec_version,
                Some(i64::from(spec.specification_version)),
                "{what}"
            );
            let expected_version = if spec.specification_version >= 9 {
                "1.3"
            } else {
                "1.0"
            };
            assert_eq!(model.program.version, expected_version, "{what}");
            assert!(
                !model.description.top.inputs.is_empty()
                    && !model.description.top.outputs.is_empty(),
                "{what}: description lost its inputs/outputs"
            );
            eprintln!(
                "{what}: {} function(s), {} ops",
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
    assert!(
        pipelines > 0,
        "expected the real-world pipeline among the packages"
    );
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
                    *ours.entry(op.op_type.to_string()).or_default() += 1;
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
        let (bytes, _) = protobuf_of(&pkg);
        let same = splice::encode_model_preserving(&bytes, None, None).unwrap();
        assert_eq!(same, bytes, "{}", pkg.display());
        // A pipeline's ML programs are what the fixer re-encodes, one sub-model at a time.
        for (_, sub_bytes, spec) in program_protobufs(&bytes) {
            common::assert_reencodes_losslessly(&sub_bytes, &spec, &pkg);
        }
    }
}

/// Every compiled model's `metadata.json` parses; a compiled pipeline has none (its stages are
/// compiled one by one and carry their descriptions in `coremldata.bin`), so each of its
/// ML-program stages is read and must have a spec version and a description of its own.
#[test]
fn realworld_compiled_metadata_parses() {
    let Some(root) = realworld() else {
        eprintln!("note: ../shared/realworld not found; skipping");
        return;
    };
    let compiled = folders(&root, "mlmodelc");
    assert!(!compiled.is_empty());
    let mut stages = 0;
    for dir in compiled {
        if !dir.join("model.mil").exists() && dir.join("model0").is_dir() {
            for m in common::read_programs(&dir) {
                let sub = m.sub_model.as_ref().expect("a stage names its sub-model");
                assert!(
                    m.source
                        .file
                        .starts_with(dir.join(format!("model{}", sub.position[0]))),
                    "{}",
                    m.source.file.display()
                );
                assert!(
                    matches!(m.spec_version, Some(6..=10)),
                    "{sub}: spec {:?}",
                    m.spec_version
                );
                assert!(!m.description.top.inputs.is_empty(), "{sub}");
                assert!(!m.description.top.outputs.is_empty(), "{sub}");
                stages += 1;
            }
            continue;
        }
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
    assert!(stages > 0, "expected the compiled real-world pipeline");
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
    let mut rules = coreml_lint::rules::RuleSet::builtin().expect("built-ins load");
    rules.retain(|r| r.id.starts_with("mil-"));
    let entities = coreml_lint::lint::model_entities(&model);
    let mil = coreml_lint::rules::match_model(&model, &rules, &entities);
    assert!(mil.is_empty(), "{mil:?}");
}
