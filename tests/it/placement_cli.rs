//! `coreml-lint check --placement` end to end: the table follows the findings, is labelled an
//! estimate, and leaves machine-readable stdout alone.

use crate::common;

use assert_cmd::Command;

fn row<'a>(out: &'a str, model: &str) -> Vec<&'a str> {
    out.lines()
        .find(|l| l.contains(model))
        .unwrap_or_else(|| panic!("no row for {model} in:\n{out}"))
        .split_whitespace()
        .collect()
}

#[test]
fn placement_table_after_the_findings() {
    let corpus = common::corpus();
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(common::repo())
        .args(["check", "--placement", "--exit-zero", "--quiet"])
        .arg(corpus.join("packages/fp32-compute-island.mlpackage"))
        .arg(corpus.join("packages/dynamic-shape-with-state.mlpackage"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("ESTIMATE") && stdout.contains("MLComputePlan"),
        "{stdout}"
    );
    // cast to fp32 and the fp32 softmax: CPU; the cast back to fp16: ANE.
    assert_eq!(
        row(&stdout, "fp32-compute-island")[1..],
        ["main", "3", "1", "2", "0", "0"]
    );
    // A flexible input with a state bars the function: every likely-ANE op is at risk.
    let dynamic = row(&stdout, "dynamic-shape-with-state.mlpackage");
    assert_eq!(dynamic[3], "0", "{dynamic:?}");
    assert_ne!(dynamic[5], "0", "{dynamic:?}");
}

#[test]
fn placement_goes_to_stderr_with_json() {
    let corpus = common::corpus();
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args([
            "check",
            "--placement",
            "--exit-zero",
            "--output-format",
            "json",
        ])
        .arg(corpus.join("packages/fp32-compute-island.mlpackage"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON");
    // One fp32 island, one finding (`origin:`).
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ESTIMATE"));
}
