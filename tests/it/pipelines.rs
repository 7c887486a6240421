//! Pipelines end to end from the command line: every ML-program sub-model is linted and named in
//! every output format, `dump` prints each sub-model, `--fix` pads a state inside a sub-model and
//! keeps every other file byte-identical (or refuses, saying why), pipelines of other kinds are
//! skipped, and hostile pipelines are read errors.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use coreml_lint::fix::splice;
use coreml_lint::read::proto;
use prost::Message;
use serde_json::Value;

const NAMED: &str = "packages/pipeline-state-full-extent-write.mlpackage";
const TWO_STAGES: &str = "packages/pipeline-regressor-state-full-extent-write.mlpackage";
const MODEL_FILE: &str = "Data/com.apple.CoreML/model.mlmodel";

fn bin() -> Command {
    let mut c = Command::cargo_bin("coreml-lint").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn corpus(rel: &str) -> PathBuf {
    common::corpus().join(rel)
}

/// `coreml-lint check --output-format FORMAT paths…`: (exit code, stdout, stderr).
fn check(format: &str, args: &[&str], paths: &[&Path]) -> (i32, String, String) {
    let out = bin()
        .env("COLUMNS", "1000")
        .args(["check", "--output-format", format])
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A writable copy of a corpus package in `dir`.
fn copy(rel: &str, dir: &Path) -> PathBuf {
    let src = corpus(rel);
    let dst = dir.join(src.file_name().unwrap());
    common::copy_tree(&src, &dst);
    dst
}

/// The state shapes of the program of sub-model `at` in the package at `root`.
fn state_shapes(root: &Path, at: &[usize]) -> Vec<(String, Vec<i64>)> {
    let bytes = std::fs::read(root.join(MODEL_FILE)).unwrap();
    let sub = splice::sub_model_bytes(&bytes, at).unwrap();
    let spec = proto::Model::decode(sub).unwrap();
    let desc = spec.description.unwrap_or_default();
    desc.state
        .iter()
        .map(|f| {
            let Some(proto::feature_type::Type::StateType(s)) =
                f.r#type.as_ref().and_then(|t| t.r#type.as_ref())
            else {
                panic!("`{}` is not a state", f.name)
            };
            let Some(proto::state_feature_type::Type::ArrayType(a)) = &s.r#type else {
                panic!("`{}` wraps no array", f.name)
            };
            (f.name.clone(), a.shape.clone())
        })
        .collect()
}

#[test]
fn every_output_format_names_the_sub_model() {
    let pkg = corpus(NAMED);
    let (code, out, _) = check("json", &[], &[&pkg]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "state-full-extent-write");
    assert_eq!(d["sub_model"]["position"], serde_json::json!([1]));
    assert_eq!(d["sub_model"]["name"], "decode");
    assert_eq!(v["summary"]["models_checked"], 1);

    let (_, out, _) = check("sarif", &[], &[&pkg]);
    let sarif: Value = serde_json::from_str(&out).unwrap();
    if let Some(validator) = common::sarif_validator() {
        assert!(validator.is_valid(&sarif), "SARIF does not validate");
    }
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(
        result["properties"]["subModel"]["position"],
        serde_json::json!([1])
    );
    let logical = result["locations"][0]["logicalLocations"]
        .as_array()
        .unwrap();
    let module = logical.iter().find(|l| l["kind"] == "module").unwrap();
    assert_eq!(module["name"], "sub-model 1 \"decode\"");
    assert!(logical
        .iter()
        .any(|l| l["fullyQualifiedName"] == "sub-model 1 \"decode\"/main"));

    for (format, expected) in [
        ("human", "[sub-model 1 \"decode\": main/"),
        ("concise", "(sub-model 1 \"decode\", function `main`, op `"),
        ("github", "[sub-model 1 \"decode\": main/"),
    ] {
        let (code, out, _) = check(format, &[], &[&pkg]);
        assert_eq!(code, 1, "{format}");
        assert!(out.contains(expected), "{format}:\n{out}");
    }
    let (_, out, _) = check("human", &[], &[&pkg]);
    assert!(out.contains(", sub-model 1 \"decode\":"), "{out}");
    assert!(out.contains("Checked 1 model "), "{out}");

    // The same finding in different sub-models is told apart everywhere, fingerprints included.
    let (_, out, _) = check("sarif", &[], &[&corpus(TWO_STAGES)]);
    let sarif: Value = serde_json::from_str(&out).unwrap();
    let prints: Vec<&Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["partialFingerprints"])
        .collect();
    assert_eq!(prints.len(), 2);
    assert_ne!(prints[0], prints[1]);
}

#[test]
fn clean_twins_pass() {
    let twins: Vec<PathBuf> = std::fs::read_dir(corpus("packages"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with("pipeline-") && n.ends_with("-clean.mlpackage")
        })
        .collect();
    assert!(twins.len() >= 6, "{twins:?}");
    let paths: Vec<&Path> = twins.iter().map(PathBuf::as_path).collect();
    let (code, out, _) = check("concise", &[], &paths);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("Checked "), "{out}");
}

#[test]
fn dump_prints_every_sub_model() {
    let out = bin().arg("dump").arg(corpus(NAMED)).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let zero = text
        .find("// sub-model 0 \"embed\"\n")
        .expect("heading of sub-model 0");
    let one = text
        .find("// sub-model 1 \"decode\"\n")
        .expect("heading of sub-model 1");
    assert!(zero < one);
    assert_eq!(text.matches("program(1.3)").count(), 2);
    assert!(text[one..].contains("state<tensor<fp16, [2, 2, 256, 32]>> kv_cache"));
}

#[test]
fn fix_in_place_pads_the_sub_model_and_keeps_every_other_byte() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = copy(NAMED, dir.path());
    let before = common::files(&pkg);
    let original = std::fs::read(pkg.join(MODEL_FILE)).unwrap();
    let (code, out, err) = check("concise", &["--fix"], &[&pkg]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains(
            "(sub-model 1 \"decode\"): padded state `kv_cache` [2, 2, 256, 32] → [2, 2, 257, 32]"
        ),
        "{err}"
    );
    let after = common::files(&pkg);
    assert_eq!(before.len(), after.len());
    for ((p, a), (q, b)) in before.iter().zip(&after) {
        assert_eq!(p, q);
        if p != Path::new(MODEL_FILE) {
            assert_eq!(a, b, "{} changed", p.display());
        }
    }
    // Inside model.mlmodel only sub-model 1 changed.
    let fixed = std::fs::read(pkg.join(MODEL_FILE)).unwrap();
    assert_eq!(
        splice::sub_model_bytes(&fixed, &[0]).unwrap(),
        splice::sub_model_bytes(&original, &[0]).unwrap()
    );
    assert_eq!(
        state_shapes(&pkg, &[1]),
        [("kv_cache".to_string(), vec![2, 2, 257, 32])]
    );
    // Fixing again changes nothing.
    let (code, _, _) = check("concise", &["--fix"], &[&pkg]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read(pkg.join(MODEL_FILE)).unwrap(), fixed);
}

#[test]
fn fix_output_pads_two_sub_models_of_one_package() {
    let dir = tempfile::tempdir().unwrap();
    let src = corpus(TWO_STAGES);
    let before = common::files(&src);
    let out_dir = dir.path().join("fixed");
    std::fs::create_dir(&out_dir).unwrap();
    let (code, out, err) = check(
        "json",
        &["--fix", "--output", out_dir.to_str().unwrap()],
        &[&src],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["summary"]["models_checked"], 1);
    assert_eq!(common::files(&src), before, "the input was modified");
    let fixed = out_dir.join(src.file_name().unwrap());
    assert_eq!(
        state_shapes(&fixed, &[0]),
        [("kv_cache".to_string(), vec![2, 2, 257, 32])]
    );
    assert_eq!(
        state_shapes(&fixed, &[1]),
        [
            ("k_cache".to_string(), vec![1, 2, 257, 32]),
            ("v_cache".to_string(), vec![1, 2, 257, 32])
        ]
    );
    for (rel, bytes) in before {
        if rel != Path::new(MODEL_FILE) {
            assert_eq!(
                std::fs::read(fixed.join(&rel)).unwrap(),
                bytes,
                "{}",
                rel.display()
            );
        }
    }
}

#[test]
fn a_refused_fix_names_the_sub_model_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = copy(NAMED, dir.path());
    let before = common::files(&pkg);
    let (code, _, err) = check("concise", &["--fix", "--pad-axis", "7"], &[&pkg]);
    assert_eq!(code, 1);
    assert!(
        err.contains("(sub-model 1 \"decode\"): not fixed: cannot pad state `kv_cache`"),
        "{err}"
    );
    assert_eq!(common::files(&pkg), before);
}

/// Replaces the package's `model.mlmodel`.
fn write_model(pkg: &Path, bytes: &[u8]) {
    std::fs::write(pkg.join(MODEL_FILE), bytes).unwrap();
}

fn neural_network() -> proto::Model {
    proto::Model {
        specification_version: 4,
        r#type: Some(proto::model::Type::NeuralNetwork(vec![])),
        ..Default::default()
    }
}

#[test]
fn pipelines_of_other_kinds_are_skipped_and_mixed_ones_lint_their_programs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("nn-pipeline.mlmodel");
    let nn_pipeline = proto::Model {
        specification_version: 4,
        r#type: Some(proto::model::Type::Pipeline(proto::Pipeline {
            models: vec![neural_network(), neural_network()],
            names: vec![],
        })),
        ..Default::default()
    };
    std::fs::write(&file, nn_pipeline.encode_to_vec()).unwrap();
    let (code, out, _) = check("json", &[], &[&file]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["models_skipped"], 1);
    assert_eq!(v["summary"]["models_checked"], 0);
    assert!(v["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("a pipeline with no ML program"));

    // A neural network first, the hazardous ML program second.
    let pkg = copy(NAMED, dir.path());
    let bytes = std::fs::read(pkg.join(MODEL_FILE)).unwrap();
    let mixed = splice::replace_sub_model(&bytes, &[0], &neural_network().encode_to_vec()).unwrap();
    write_model(&pkg, &mixed);
    let (code, out, _) = check("json", &[], &[&pkg]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["diagnostics"][0]["sub_model"]["position"],
        serde_json::json!([1])
    );
    assert_eq!(
        v["skipped"][0]["reason"],
        "sub-model 0 \"embed\": a neural network"
    );
    assert_eq!(v["summary"]["models_checked"], 1);
    // The count agrees with the list of what was not checked: the skipped stage is one entry.
    assert_eq!(v["summary"]["models_skipped"], 1);
    assert_eq!(v["skipped"].as_array().unwrap().len(), 1);
    let (_, human, _) = check("human", &[], &[&pkg]);
    assert!(
        human.contains("Checked 1 model (1 skipped, 0 unreadable)"),
        "{human}"
    );
}

#[test]
fn hostile_pipelines_are_clear_read_errors() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = copy(NAMED, dir.path());
    let bytes = std::fs::read(pkg.join(MODEL_FILE)).unwrap();

    // A truncated sub-model.
    let sub = splice::sub_model_bytes(&bytes, &[1]).unwrap();
    let truncated = splice::replace_sub_model(&bytes, &[1], &sub[..sub.len() / 3]).unwrap();
    write_model(&pkg, &truncated);
    let (code, out, _) = check("concise", &[], &[&pkg]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("sub-model 1 \"decode\""), "{out}");
    assert!(out.contains("model.mlmodel"), "{out}");
    let out = bin().arg("dump").arg(&pkg).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    // Pipelines nested 5000 deep.
    let mut nested = sub.to_vec();
    for _ in 0..5000 {
        let pipeline = proto::Pipeline {
            models: vec![],
            names: vec![],
        };
        let mut p = pipeline.encode_to_vec();
        prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, &mut p);
        prost::encoding::encode_varint(nested.len() as u64, &mut p);
        p.extend_from_slice(&nested);
        let mut m = Vec::new();
        prost::encoding::encode_key(202, prost::encoding::WireType::LengthDelimited, &mut m);
        prost::encoding::encode_varint(p.len() as u64, &mut m);
        m.extend_from_slice(&p);
        nested = m;
    }
    write_model(&pkg, &nested);
    let (code, out, _) = check("concise", &[], &[&pkg]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("nested deeper than"), "{out}");

    // A sub-model's weight file is missing: reported on that sub-model, as for a plain package.
    let pkg = copy(NAMED, &dir.path().join("w"));
    std::fs::remove_file(pkg.join("Data/com.apple.CoreML/weights/1-weight.bin")).unwrap();
    let (code, out, _) = check("json", &[], &[&pkg]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    let missing: Vec<&Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "blob-missing-file")
        .collect();
    assert_eq!(missing.len(), 1, "{v}");
    assert_eq!(missing[0]["sub_model"]["position"], serde_json::json!([1]));
    assert!(missing[0]["message"]
        .as_str()
        .unwrap()
        .contains("1-weight.bin"));
}

/// yolov8n's pipelines (`../shared/realworld`, compiled and as a package) each hold a
/// non-maximum-suppression stage the linter does not check: the summary's skipped count agrees
/// with the list of what was not checked in the human report, JSON and the HTML page.
#[test]
fn the_realworld_skipped_count_agrees_with_its_list_in_every_format() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = shared.join("realworld/ultralytics-yolov8n-nms-pipeline");
    let (code, human, err) = check("human", &["--isolated"], &[&dir]);
    assert_eq!(code, 0, "{err}");
    let listed = human
        .lines()
        .filter(|l| l.contains("a non-maximum suppression model: not an ML Program; read: "))
        .count();
    assert_eq!(listed, 2, "{human}");
    assert!(
        human.contains("Checked 2 models (2 skipped, 0 unreadable)"),
        "{human}"
    );
    let (_, json, _) = check("json", &["--isolated"], &[&dir]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["summary"]["models_skipped"], 2);
    assert_eq!(v["skipped"].as_array().unwrap().len(), 2);
    let (_, html, _) = check("html", &["--isolated"], &[&dir]);
    assert!(html.contains("<li><b>2</b> skipped</li>"));
    let not_checked = &html[html.find("<ul class=\"failed\">").expect("Not checked")..];
    let not_checked = &not_checked[..not_checked.find("</ul>").unwrap()];
    assert_eq!(
        not_checked
            .matches("skipped: sub-model 1: a non-maximum suppression model")
            .count(),
        2,
        "{not_checked}"
    );
}
