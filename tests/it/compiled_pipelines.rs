//! Compiled pipelines (`X.mlmodelc/` with `model0/`, `model1/`, … and a pipeline
//! `coremldata.bin`): each ML-program stage is linted as the package pipeline's sub-model is, with
//! `@model_path` at the stage's folder; the other stages are named; `dump` prints each stage;
//! hostile layouts are read errors that name the file.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::cargo_bin("coreml-lint").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// `coreml-lint ARGS…`: (exit code, stdout, stderr).
fn run(args: &[&str], paths: &[&Path]) -> (i32, String, String) {
    let out = bin()
        .env("COLUMNS", "1000")
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

/// A `coremldata.bin` header in the layout Xcode writes (FORMAT.md §10): the `Model.Type` field
/// number, the header string, the specification version and an empty description.
fn header(tag: u32, string: &str, spec: u32) -> Vec<u8> {
    let mut out = vec![0u8; 0x24];
    out[..4].copy_from_slice(&tag.to_le_bytes());
    out[0x1C..0x24].copy_from_slice(&(string.len() as u64).to_le_bytes());
    out.extend_from_slice(string.as_bytes());
    out.extend_from_slice(&spec.to_le_bytes());
    out.resize(out.len() + 0x1C, 0);
    out.extend_from_slice(&0u64.to_le_bytes());
    out
}

/// A compiled pipeline in `dir`: stage 0 is a copy of the corpus folder `program` (an ML program
/// with its weights), stage 1 a non-maximum suppression model.
fn compiled_pipeline(dir: &Path, program: &str) -> PathBuf {
    let root = dir.join("p.mlmodelc");
    std::fs::create_dir_all(root.join("model1")).unwrap();
    common::copy_tree(&common::corpus().join(program), &root.join("model0"));
    pipeline_headers(&root);
    root
}

/// The `coremldata.bin` headers of a compiled pipeline at `root` whose stage 0 (`model0/`) is an
/// ML program and stage 1 (`model1/`) a non-maximum suppression model.
pub(crate) fn pipeline_headers(root: &Path) {
    std::fs::write(
        root.join("coremldata.bin"),
        header(202, "generic.model0v5.0.0generic.model1v1.0.0spec", 5),
    )
    .unwrap();
    std::fs::write(
        root.join("model0/coremldata.bin"),
        header(502, "generic", 7),
    )
    .unwrap();
    std::fs::write(root.join("model1/coremldata.bin"), header(610, "spec", 5)).unwrap();
}

/// (rule, sub-model position, function, op) of every diagnostic of a JSON report.
fn finding_keys(json: &str) -> BTreeSet<(String, String, String, String)> {
    let v: Value = serde_json::from_str(json).unwrap();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["sub_model"]["position"].to_string(),
                d["function"].as_str().unwrap_or("").to_string(),
                d["op"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn realworld_pipeline_gives_the_same_findings_in_both_forms() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let dir = shared.join("realworld/ultralytics-yolov8n-nms-pipeline");
    let (package, compiled) = (dir.join("yolov8n.mlpackage"), dir.join("yolov8n.mlmodelc"));
    // fp32-compute leaves coremltools' image preprocessing alone, so an iOS 15 target gives the
    // pipeline its finding: the palettized detector needs iOS 16.
    let json_of = |m: &Path| {
        run(
            &["check", "--output-format", "json", "--target", "ios15"],
            &[m],
        )
    };
    let (code_p, json_p, _) = json_of(&package);
    let (code_c, json_c, _) = json_of(&compiled);
    assert_eq!(code_p, code_c);
    let (from_package, from_compiled) = (finding_keys(&json_p), finding_keys(&json_c));
    assert!(
        !from_compiled.is_empty(),
        "the compiled pipeline was not linted"
    );
    assert_eq!(from_package, from_compiled);
    assert!(from_compiled.iter().all(|k| k.1 == "[0]"));
    let v: Value = serde_json::from_str(&json_c).unwrap();
    assert_eq!(v["summary"]["models_checked"], 1);

    let (_, human, _) = run(&["check", "--target", "ios15"], &[&compiled]);
    assert!(
        human.contains("[sub-model 0: main/model_model_1_conv_weight_to_fp16_palettized]"),
        "{human}"
    );
    assert!(
        human.contains("yolov8n.mlmodelc/model0/model.mil:"),
        "{human}"
    );
    assert!(
        human.contains(
            "yolov8n.mlmodelc: sub-model 1: a non-maximum suppression model: not an ML Program; read: its kind only (a compiled stage is only a coremldata.bin), so the class count comes from the detector's confidence output; checked with the program that feeds it"
        ),
        "{human}"
    );
}

#[test]
fn dump_prints_each_stage_of_a_compiled_pipeline() {
    let Some(shared) = common::shared() else {
        return;
    };
    let compiled = shared.join("realworld/ultralytics-yolov8n-nms-pipeline/yolov8n.mlmodelc");
    let (code, out, err) = run(&["dump"], &[&compiled]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("// sub-model 0\nprogram(1.0)"), "{out}");
    assert!(out.contains("constexpr_lut_to_dense"));
    assert!(
        err.contains("sub-model 1: a non-maximum suppression model"),
        "{err}"
    );
}

#[test]
fn model_path_of_a_stage_is_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = compiled_pipeline(dir.path(), "facts/blob-bad-references.mlmodelc");
    let (code, out, _) = run(&["check", "--output-format", "json"], &[&root]);
    assert_eq!(code, 1);
    let keys = finding_keys(&out);
    // The weights are found in model0/weights: the offsets into weight.bin are judged.
    assert!(
        keys.iter()
            .any(|k| k.0 == "blob-out-of-bounds" && k.1 == "[0]" && k.3 == "oob"),
        "{keys:?}"
    );

    // The same program as a model of its own gives the same findings, without the sub-model.
    let alone = common::corpus().join("facts/blob-bad-references.mlmodelc");
    let (_, out_alone, _) = run(&["check", "--output-format", "json"], &[&alone]);
    let strip =
        |k: &BTreeSet<(String, String, String, String)>| -> BTreeSet<(String, String, String)> {
            k.iter()
                .map(|(r, _, f, o)| (r.clone(), f.clone(), o.clone()))
                .collect()
        };
    // `esc` climbs out of the folder `@model_path` names: out of the package when that is the
    // package, into the pipeline (where nothing is) when it is a stage.
    let without_esc =
        |k: BTreeSet<(String, String, String)>| -> BTreeSet<(String, String, String)> {
            k.into_iter().filter(|k| k.2 != "esc").collect()
        };
    assert_eq!(
        without_esc(strip(&keys)),
        without_esc(strip(&finding_keys(&out_alone)))
    );
    assert!(keys.contains(&(
        "blob-missing-file".to_string(),
        "[0]".to_string(),
        "main".to_string(),
        "esc".to_string()
    )));

    let (_, text, _) = run(&["check"], &[&root]);
    assert!(
        text.contains("p.mlmodelc: sub-model 1: a non-maximum suppression model: not an ML Program; read: its kind only"),
        "{text}"
    );
}

#[test]
fn clean_stage_gives_no_findings() {
    let dir = tempfile::tempdir().unwrap();
    let root = compiled_pipeline(dir.path(), "facts/blob-clean.mlmodelc");
    let (code, out, err) = run(&["check", "--output-format", "json"], &[&root]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(finding_keys(&out).is_empty(), "{out}");
}

/// Builds a compiled pipeline, breaks it with `edit`, and expects exit 2 with `expected` in the
/// error, never a panic.
fn broken(edit: impl Fn(&Path), expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let root = compiled_pipeline(dir.path(), "facts/blob-clean.mlmodelc");
    edit(&root);
    for args in [&["check"][..], &["dump"][..]] {
        let (code, out, err) = run(args, &[&root]);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        let text = format!("{out}{err}");
        assert!(!text.contains("panicked"), "{text}");
        for e in expected {
            assert!(text.contains(e), "{args:?}: `{e}` not in: {text}");
        }
    }
}

#[test]
fn missing_stage_folder_is_an_error() {
    broken(
        |root| std::fs::remove_dir_all(root.join("model1")).unwrap(),
        &["p.mlmodelc/model1", "sub-model 1", "the folder is missing"],
    );
}

#[test]
fn stage_without_its_program_is_an_error() {
    broken(
        |root| std::fs::remove_file(root.join("model0/model.mil")).unwrap(),
        &["p.mlmodelc/model0", "model.mil is missing", "incomplete"],
    );
}

#[test]
fn truncated_pipeline_header_is_an_error() {
    for len in [2usize, 40] {
        broken(
            |root| {
                let data = root.join("coremldata.bin");
                let bytes = std::fs::read(&data).unwrap();
                std::fs::write(&data, &bytes[..len]).unwrap();
            },
            &["p.mlmodelc/coremldata.bin"],
        );
    }
}

#[cfg(unix)]
#[test]
fn stage_symlinked_out_of_the_package_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    common::copy_tree(
        &common::corpus().join("facts/blob-clean.mlmodelc"),
        &outside.path().join("stage"),
    );
    std::fs::write(
        outside.path().join("stage/coremldata.bin"),
        header(502, "generic", 7),
    )
    .unwrap();
    let target = outside.path().join("stage");
    broken(
        |root| {
            std::fs::remove_dir_all(root.join("model0")).unwrap();
            std::os::unix::fs::symlink(&target, root.join("model0")).unwrap();
        },
        &["p.mlmodelc/model0", "outside the package"],
    );
}

#[test]
fn compiled_program_without_model_mil_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("half.mlmodelc");
    common::copy_tree(&common::corpus().join("facts/blob-clean.mlmodelc"), &root);
    std::fs::remove_file(root.join("model.mil")).unwrap();
    std::fs::write(root.join("coremldata.bin"), header(502, "generic", 7)).unwrap();
    let (code, out, err) = run(&["check"], &[&root]);
    assert_eq!(code, 2, "{out}{err}");
    let text = format!("{out}{err}");
    assert!(text.contains("half.mlmodelc"), "{text}");
    assert!(text.contains("model.mil is missing"), "{text}");
    assert!(!text.contains("neural network"), "{text}");
}
