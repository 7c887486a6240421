//! `check --target` and `target:` in the config, end to end: the OS comparison of
//! `requires-newer-os`, per-family limits, the Mac-only severity, usage errors, and the target in
//! JSON and SARIF.

use crate::common;

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::cargo_bin("coreml-lint").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn corpus(rel: &str) -> PathBuf {
    common::corpus().join(rel)
}

/// Exit code and JSON document of `check --isolated <model> <args…>`.
fn check(model: &str, args: &[&str]) -> (i32, Value) {
    let out = bin()
        .args(["check", "--isolated", "--output-format", "json"])
        .args(args)
        .arg(corpus(model))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), v)
}

fn diagnostics<'a>(v: &'a Value, rule: &str) -> Vec<&'a Value> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == rule)
        .collect()
}

#[test]
fn ios17_target_flags_the_ios18_model_and_not_the_ios17_one() {
    let new = "packages/requires-newer-os.mlpackage";
    let (code, v) = check(new, &["--target", "ios17"]);
    let found = diagnostics(&v, "requires-newer-os");
    assert_eq!(found.len(), 1, "{v:#}");
    assert_eq!(code, 1, "an error");
    let d = found[0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["op"].as_str().map(|s| !s.is_empty()), Some(true));
    let message = d["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the model needs iOS 18 / macOS 15 (opset CoreML8, first op `scaled_dot_product_attention`"
        ),
        "{message}"
    );
    assert!(
        message.ends_with("the target's minimum is iOS 17"),
        "{message}"
    );
    assert_eq!(v["target"]["given"], "ios17");
    assert_eq!(v["target"]["min_os"], serde_json::json!(["iOS 17"]));

    let (code, v) = check(
        "packages/requires-newer-os-clean.mlpackage",
        &["--target", "ios17"],
    );
    assert!(diagnostics(&v, "requires-newer-os").is_empty(), "{v:#}");
    assert_eq!(code, 0);
    // Without a target, and on an iOS 18 target, nothing to report.
    let (_, v) = check(new, &[]);
    assert!(diagnostics(&v, "requires-newer-os").is_empty());
    assert_eq!(v["target"], Value::Null);
    let (_, v) = check(new, &["--target", "ios18,macos15"]);
    assert!(diagnostics(&v, "requires-newer-os").is_empty());
    // macOS 14 is iOS 17's generation.
    let (_, v) = check(new, &["--target", "macos14"]);
    assert_eq!(diagnostics(&v, "requires-newer-os").len(), 1);
}

#[test]
fn family_limits_follow_the_target() {
    let wide = "packages/tensor-dim-limit-wide.mlpackage";
    let (_, v) = check(wide, &[]);
    let d = diagnostics(&v, "tensor-dim-limit");
    assert_eq!(d.len(), 1);
    let m = d[0]["message"].as_str().unwrap();
    assert!(m.contains("[H=1, W=20000]"), "{m}");
    assert!(
        m.contains("on A12–A15 (iPhone XS–14) and M1–M3"),
        "without a target every older family: {m}"
    );
    let (_, v) = check(wide, &["--target", "iphone"]);
    let m = diagnostics(&v, "tensor-dim-limit")[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(m.contains("on A12–A15 (iPhone XS–14) ("), "{m}");
    let (_, v) = check(wide, &["--target", "a17,m4"]);
    assert!(diagnostics(&v, "tensor-dim-limit").is_empty(), "{v:#}");

    let conv = "packages/conv-kernel-width-15.mlpackage";
    assert_eq!(
        diagnostics(&check(conv, &[]).1, "conv-kernel-width").len(),
        1
    );
    assert_eq!(
        diagnostics(&check(conv, &["--target", "a15"]).1, "conv-kernel-width").len(),
        1
    );
    assert!(diagnostics(&check(conv, &["--target", "a18"]).1, "conv-kernel-width").is_empty());
}

#[test]
fn flexible_inputs_are_an_info_on_a_mac_only_target() {
    let range = "packages/flexible-input-shape.mlpackage";
    let sev = |args: &[&str]| {
        let (_, v) = check(range, args);
        let d = diagnostics(&v, "flexible-input-shape");
        assert_eq!(d.len(), 1, "{v:#}");
        d[0]["severity"].as_str().unwrap().to_string()
    };
    assert_eq!(sev(&[]), "warning");
    assert_eq!(sev(&["--target", "iphone"]), "warning");
    assert_eq!(
        sev(&["--target", "ios17,macos14"]),
        "warning",
        "iPhone and Mac"
    );
    assert_eq!(
        sev(&["--target", "ios17,mac"]),
        "info",
        "the families named win"
    );
    assert_eq!(sev(&["--target", "macos14"]), "info");
    assert_eq!(sev(&["--target", "m1,m4"]), "info");
    let (_, v) = check("packages/flexible-input-shape-enumerated.mlpackage", &[]);
    let m = diagnostics(&v, "flexible-input-shape")[0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        m.contains("3 enumerated shapes: [1, 8, 32], [1, 16, 32], [1, 32, 32]"),
        "{m}"
    );
}

#[test]
fn unknown_target_tokens_are_usage_errors() {
    let out = bin()
        .args(["check", "--isolated", "--target", "ios17,a21"])
        .arg(corpus("packages/requires-newer-os.mlpackage"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown target `a21`"), "{err}");
    let out = bin()
        .args(["check", "--isolated", "--target", "iphnoe"])
        .arg(corpus("packages/requires-newer-os.mlpackage"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `iphone`?"));
}

#[test]
fn config_target_and_sarif() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("coreml-lint.yaml");
    std::fs::write(&config, "target: [ios17]\n").unwrap();
    let out = bin()
        .args(["check", "--output-format", "sarif", "--config"])
        .arg(&config)
        .arg(corpus("packages/requires-newer-os.mlpackage"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &v["runs"][0];
    assert_eq!(
        run["invocations"][0]["properties"]["target"]["given"],
        "ios17"
    );
    let rules: Vec<&str> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(rules.contains(&"requires-newer-os"), "{rules:?}");
    // --target replaces the config's.
    let out = bin()
        .args([
            "check",
            "--output-format",
            "json",
            "--target",
            "ios18",
            "--config",
        ])
        .arg(&config)
        .arg(corpus("packages/requires-newer-os.mlpackage"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(diagnostics(&v, "requires-newer-os").is_empty());
    // A bad token in the config names the file.
    std::fs::write(&config, "target: ios71\n").unwrap();
    let out = bin()
        .args(["check", "--config"])
        .arg(&config)
        .arg(corpus("packages/requires-newer-os.mlpackage"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("coreml-lint.yaml") && err.contains("unknown target `ios71`"),
        "{err}"
    );
}
