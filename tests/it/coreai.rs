//! Core AI assets (`.aimodel`) end to end through the CLI: discovery, dump, JSON findings, and
//! damaged bytecode as an input error.

use crate::common;

use assert_cmd::Command;

fn bin() -> Command {
    Command::cargo_bin("coreml-lint").unwrap()
}

#[test]
fn dump_prints_the_inventory() {
    let asset = common::corpus().join("coreai/floor.aimodel");
    let out = bin().arg("dump").arg(&asset).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("bytecode: version 6, producer MLIR22.0.0git"),
        "{text}"
    );
    assert!(text.contains("aicode.primitive.floor_divide_v1"), "{text}");
    assert!(text.contains("producer: coreai-core 1.0.0b3"), "{text}");
}

#[test]
fn a_file_inside_the_bundle_checks_the_bundle_once() {
    let asset = common::corpus().join("coreai/argmax.aimodel");
    let out = bin()
        .args(["check", "--output-format", "json"])
        .arg(asset.join("main.mlirb"))
        .arg(&asset)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    let findings: Vec<&serde_json::Value> = v["diagnostics"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let argmax = findings
        .iter()
        .filter(|f| f["rule"] == "coreai-argmax")
        .count();
    assert_eq!(argmax, 1, "{text}");
    assert_eq!(findings[0]["path"], asset.display().to_string(), "{text}");
}

#[test]
fn damaged_bytecode_is_an_input_error_naming_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let asset = dir.path().join("bad.aimodel");
    common::copy_tree(&common::corpus().join("coreai/clean.aimodel"), &asset);
    let program = asset.join("main.mlirb");
    let mut bytes = std::fs::read(&program).unwrap();
    bytes.truncate(40);
    std::fs::write(&program, &bytes).unwrap();
    let out = bin().arg("check").arg(&asset).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("main.mlirb") && err.contains("at byte"),
        "{err}"
    );
}

/// Every Core AI asset needs iOS 27 / macOS 27: an older deployment target is `requires-newer-os`.
#[test]
fn a_core_ai_asset_needs_os_27() {
    // An fp16 program no other rule reports.
    let asset = common::corpus().join("coreai/programs/split.aimodel");
    let rules = |target: &str| {
        let out = bin()
            .args([
                "check",
                "--isolated",
                "--output-format",
                "json",
                "--target",
                target,
            ])
            .arg(&asset)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let found: Vec<(String, String)> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["rule"].as_str().unwrap().to_string(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        (out.status.code(), found)
    };
    let (code, found) = rules("ios26");
    assert_eq!(code, Some(1), "{found:?}");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "requires-newer-os");
    assert!(found[0].1.contains("iOS 27 / macOS 27"), "{found:?}");
    assert!(found[0].1.contains("Core AI"), "{found:?}");
    assert_eq!(rules("ios27"), (Some(0), vec![]));
    assert_eq!(rules("macos27").1, vec![]);
}
