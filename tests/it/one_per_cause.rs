//! One finding per cause, end to end through the CLI: a missing weights folder, PyTorch's in-place
//! blend of a cache.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;

fn findings(path: &std::path::Path) -> Vec<Value> {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["check", "--isolated", "--output-format", "json"])
        .arg(path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_missing_weights_folder_is_one_finding() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.mlmodelc");
    std::fs::create_dir(&model).unwrap();
    let konst = |name: &str, file: &str| {
        format!(
            "            tensor<fp16, [1, 32]> {name} = const()[name = string(\"{name}\"), val = tensor<fp16, [1, 32]>(BLOBFILE(path = string(\"@model_path/weights/{file}\"), offset = uint64(64)))];\n"
        )
    };
    let mil = format!(
        "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 32]> x) {{\n{}{}{}            tensor<fp16, [1, 32]> s = add(x = a, y = b)[name = string(\"s\")];\n            tensor<fp16, [1, 32]> y = add(x = s, y = c)[name = string(\"y\")];\n        }} -> (y);\n}}\n",
        konst("a", "one.bin"),
        konst("b", "two.bin"),
        konst("c", "three.bin"),
    );
    std::fs::write(model.join("model.mil"), mil).unwrap();
    let found: Vec<Value> = findings(&model)
        .into_iter()
        .filter(|d| d["rule"] == "blob-missing-file")
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.contains("does not exist: it should hold 3 weight files"),
        "{message}"
    );
}

/// `k.mul_(0.5); k.add_(x)` (coremltools writes the state once per in-place op): at most 2
/// findings for the state; an accumulator updated the same way gets no KV-cache advice.
#[test]
fn an_in_place_blend_is_at_most_two_findings_per_state() {
    let packages = common::corpus().join("packages");
    let found = findings(&packages.join("torch-help-blend-inplace.mlpackage"));
    let on_state: Vec<&Value> = found.iter().filter(|d| d["state"] == "k_cache").collect();
    assert!(on_state.len() <= 2, "{on_state:#?}");
    let rules: Vec<&str> = on_state
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["state-blend-rmw", "state-full-extent-write"]);
    let acc = findings(&packages.join("torch-help-accumulator.mlpackage"));
    assert!(
        acc.iter().all(|d| d["rule"] != "state-blend-rmw"),
        "{acc:#?}"
    );
}
