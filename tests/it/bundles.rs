//! Bundle completeness (FIELD-HAZARDS A7) from the command line: a Git LFS pointer in place of a
//! file the program cannot be read without is a read error naming the file (exit 2); in place of
//! any other file it is one `bundle-lfs-pointer` finding and no other finding about that file; a
//! Manifest item missing on disk is `bundle-manifest-missing-item`. A Core AI asset is read the
//! same way: each pointer among its files is one `bundle-lfs-pointer` finding, whose old id
//! `coreai-lfs-pointer` still selects it.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const POINTER: &str = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 3228992\n";

/// `coreml-lint check --output-format FORMAT path`: (exit code, stdout, stderr).
fn check(format: &str, path: &Path) -> (i32, String, String) {
    check_with(format, path, &[])
}

/// `coreml-lint check --output-format FORMAT [args] path`: (exit code, stdout, stderr).
fn check_with(format: &str, path: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["check", "--output-format", format])
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A writable copy of the corpus model `rel` in `dir`.
fn copy(rel: &str, dir: &Path) -> PathBuf {
    let src = common::corpus().join(rel);
    let dst = dir.join(src.file_name().unwrap());
    common::copy_tree(&src, &dst);
    dst
}

fn rules_of(json: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(json).unwrap();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn pointer_in_place_of_the_program_is_a_read_error() {
    for (model, file) in [
        (
            "packages/mlp-clean.mlpackage",
            "Data/com.apple.CoreML/model.mlmodel",
        ),
        ("packages/mlp-clean.mlpackage", "Manifest.json"),
        ("compiled/mlmodelc-mlp-blobfile-clean.mlmodelc", "model.mil"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = copy(model, dir.path());
        std::fs::write(root.join(file), POINTER).unwrap();
        let (code, out, err) = check("human", &root);
        assert_eq!(code, 2, "{file}: {out}{err}");
        let text = format!("{out}{err}");
        assert!(text.contains(file), "{file}: {text}");
        assert!(text.contains("Git LFS pointer"), "{file}: {text}");
        assert!(text.contains("git lfs pull"), "{file}: {text}");
        assert!(!text.contains("storage format version"), "{text}");
    }
}

#[test]
fn pointer_weight_file_is_one_finding_and_no_blob_finding() {
    let pkg = common::corpus().join("bundles/bundle-lfs-pointer-weights.mlpackage");
    let (code, out, _) = check("json", &pkg);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&out), vec!["bundle-lfs-pointer"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let message = v["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("weights/weight.bin"), "{message}");
    assert!(
        message.contains("weight file (4 constants use it"),
        "{message}"
    );

    // The clean twin (the package it was copied from) gives nothing.
    let (code, out, _) = check(
        "json",
        &common::corpus().join("packages/mlp-clean.mlpackage"),
    );
    assert_eq!(code, 0);
    assert!(rules_of(&out).is_empty());

    let (_, sarif, _) = check("sarif", &pkg);
    let s: Value = serde_json::from_str(&sarif).unwrap();
    assert_eq!(s["runs"][0]["results"][0]["ruleId"], "bundle-lfs-pointer");
}

#[test]
fn pointer_metadata_and_coremldata_are_findings() {
    let dir = tempfile::tempdir().unwrap();
    let root = copy("compiled/mlmodelc-mlp-blobfile-clean.mlmodelc", dir.path());
    std::fs::write(root.join("coremldata.bin"), POINTER).unwrap();
    std::fs::write(root.join("metadata.json"), POINTER).unwrap();
    let (code, out, err) = check("json", &root);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        rules_of(&out),
        vec!["bundle-lfs-pointer", "bundle-lfs-pointer"]
    );
    assert!(
        out.contains("coremldata.bin") && out.contains("metadata.json"),
        "{out}"
    );
    // Each is reported at the pointer file itself, in every format; never at `model.mil`.
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut files: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert!(d["line"].is_null(), "{d}");
            d["file"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    files.sort();
    assert_eq!(files, ["coremldata.bin", "metadata.json"]);
    let (_, concise, _) = check("concise", &root);
    let (_, github, _) = check("github", &root);
    let (_, human, _) = check("human", &root);
    for (format, text) in [
        ("concise", &concise),
        ("github", &github),
        ("human", &human),
    ] {
        assert!(!text.contains("model.mil"), "{format}: {text}");
    }
    assert!(
        concise.contains(".mlmodelc/metadata.json: error:")
            && concise.contains(".mlmodelc/coremldata.bin: error:"),
        "{concise}"
    );
    assert!(
        github.contains(".mlmodelc/metadata.json,title="),
        "{github}"
    );
    assert!(human.contains("metadata.json:"), "{human}");
}

/// Every file of a Core AI asset that is a pointer is one finding of the one LFS rule, at the
/// pointer file, saying what the file is; nothing else is reported about it, and the rule's old
/// id for the Core AI case selects and ignores it.
#[test]
fn pointers_in_a_core_ai_asset_are_one_finding_each() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["main.mlirb"], &["not the Core AI program"]),
        (&["main.hash"], &["not the program's SHA-256"]),
        (&["metadata.json"], &["not the asset's metadata.json"]),
        (
            &["main.mlirb", "main.hash", "metadata.json"],
            &[
                "not the Core AI program",
                "not the program's SHA-256",
                "not the asset's metadata.json",
            ],
        ),
    ];
    for (files, whats) in cases {
        let dir = tempfile::tempdir().unwrap();
        let root = copy("coreai/clean.aimodel", dir.path());
        for file in *files {
            std::fs::write(root.join(file), POINTER).unwrap();
        }
        let (code, out, _) = check("json", &root);
        assert_eq!(code, 1, "{files:?}: {out}");
        assert_eq!(rules_of(&out), vec!["bundle-lfs-pointer"; files.len()]);
        let v: Value = serde_json::from_str(&out).unwrap();
        let diags = v["diagnostics"].as_array().unwrap();
        for (file, what) in files.iter().zip(*whats) {
            let d = diags
                .iter()
                .find(|d| {
                    d["file"]
                        .as_str()
                        .unwrap()
                        .ends_with(&format!(".aimodel/{file}"))
                })
                .unwrap_or_else(|| panic!("{file}: {out}"));
            let message = d["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("{file} is a Git LFS pointer, {what}")),
                "{message}"
            );
            assert!(d["help"].as_str().unwrap().contains("git lfs pull"), "{d}");
        }
        let (_, selected, _) = check_with("json", &root, &["--select", "coreai-lfs-pointer"]);
        assert_eq!(rules_of(&selected), rules_of(&out), "{files:?}");
        let (code, ignored, _) = check_with("json", &root, &["--ignore", "coreai-lfs-pointer"]);
        assert_eq!((code, rules_of(&ignored)), (0, vec![]), "{files:?}");
    }
    // The old id explains the rule that reports it now.
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["rule", "coreai-lfs-pointer"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("bundle-lfs-pointer"), "{text}");
}

#[test]
fn missing_manifest_item_is_reported_once() {
    let pkg = common::corpus().join("bundles/bundle-manifest-missing-item.mlpackage");
    let (code, out, _) = check("json", &pkg);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&out), vec!["bundle-manifest-missing-item"]);
    assert!(out.contains("com.apple.CoreML/weights"), "{out}");
    let clean = common::corpus().join("bundles/bundle-no-weights-clean.mlpackage");
    let (code, out, _) = check("json", &clean);
    assert_eq!(code, 0, "{out}");

    // With weights the program references, the missing folder is blob-missing-file's alone.
    let dir = tempfile::tempdir().unwrap();
    let root = copy("packages/mlp-clean.mlpackage", dir.path());
    std::fs::remove_dir_all(root.join("Data/com.apple.CoreML/weights")).unwrap();
    let (code, out, _) = check("json", &root);
    assert_eq!(code, 1);
    assert_eq!(rules_of(&out), vec!["blob-missing-file"]);
}

/// The real-world folders whose weights were left out on purpose (INDEX.md) are told apart from
/// pointers: their weights are missing, not LFS pointers, and no Manifest item is reported twice.
#[test]
fn realworld_absent_weights_are_missing_files_not_pointers() {
    let Some(shared) = common::shared() else {
        return;
    };
    let root = shared.join("realworld");
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["check", "--output-format", "json"])
        .arg(&root)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(!diags
        .iter()
        .any(|d| d["rule"].as_str().unwrap().starts_with("bundle-")));
    let missing = diags
        .iter()
        .filter(|d| d["rule"] == "blob-missing-file")
        .count();
    assert_eq!(missing, 13, "one per model whose weights were left out");
    assert_eq!(v["summary"]["models_failed"], 0);
}
