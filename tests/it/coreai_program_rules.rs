//! Which rules concern a Core AI program (`applies-to: { programs: … }`), end to end: the clean
//! coreai-torch bundles give no finding for any compute-unit setting, every Core AI hazard is still
//! reported, Core ML's preferences are not Core AI's (only cpu-only excludes units there), and no
//! help on a `.aimodel` names a coremltools API.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;

const UNITS: [&str; 4] = ["all", "cpu-and-ne", "cpu-and-gpu", "cpu-only"];

/// `(exit code, findings)` of `check --isolated --output-format json` on `paths` with `args`.
fn check(paths: &[std::path::PathBuf], args: &[&str]) -> (Option<i32>, Vec<Value>) {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["check", "--isolated", "--output-format", "json"])
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    let found = v["diagnostics"].as_array().cloned().unwrap_or_default();
    (out.status.code(), found)
}

fn rules_of(found: &[Value]) -> Vec<String> {
    found
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn clean_core_ai_bundles_get_no_finding_for_any_units() {
    let corpus = common::corpus().join("coreai");
    // fp32 (coreai-torch's default: `clean`), an fp32 decoder with fp32 KV states, an fp16 decoder,
    // an fp16 program with an fp32 softmax, a split, KV states of 1024 positions in Apple's rank-5
    // iOS layout, a padded convolution and a dynamic-width expand/squeeze: each a valid bundle.
    let clean: Vec<_> = [
        "clean.aimodel",
        "programs/decoder-fp32.aimodel",
        "programs/decoder.aimodel",
        "programs/fp32-island.aimodel",
        "programs/split.aimodel",
        "programs/kv1024-ios.aimodel",
        "programs/conv.aimodel",
    ]
    .iter()
    .map(|p| corpus.join(p))
    .collect();
    for units in UNITS {
        let (code, found) = check(&clean, &["--compute-units", units]);
        assert_eq!(code, Some(0), "{units}: {found:#?}");
        assert!(found.is_empty(), "{units}: {found:#?}");
    }
}

#[test]
fn every_core_ai_hazard_is_still_reported() {
    let corpus = common::corpus().join("coreai");
    for (asset, rule) in [
        ("argmax.aimodel", "coreai-argmax"),
        ("debug.aimodel", "coreai-debug-info"),
        ("floor.aimodel", "coreai-gpu-rounding"),
        ("hash-mismatch.aimodel", "coreai-hash-mismatch"),
        ("lfs-pointer.aimodel", "bundle-lfs-pointer"),
        ("missing-hash.aimodel", "coreai-missing-file"),
        ("no-producer.aimodel", "coreai-no-producer"),
        ("symlink.aimodel", "coreai-symlink"),
        ("programs/kv2048.aimodel", "coreai-kv-state-length"),
        ("programs/kv2048-ios.aimodel", "coreai-kv-state-length"),
        ("programs/logits1000.aimodel", "coreai-logits-alignment"),
        ("programs/metal-kernel.aimodel", "coreai-metal-kernel"),
        ("programs/split-zero.aimodel", "zero-sized-dim"),
    ] {
        let (_, found) = check(&[corpus.join(asset)], &[]);
        let rules = rules_of(&found);
        assert!(rules.iter().all(|r| r == rule), "{asset}: {rules:?}");
        assert!(!rules.is_empty(), "{asset}: no `{rule}`");
    }
}

/// The KV-length hazard is a GPU decode's (apple/coreai-models#124): reported, in both KV layouts,
/// for every unit setting that allows the GPU (on Core AI, every one but cpu-only), on each state.
#[test]
fn kv_state_length_is_a_gpu_hazard_in_both_layouts() {
    let dir = common::corpus().join("coreai/programs");
    for (asset, shape) in [
        ("kv2048.aimodel", "[1, 2, 2048, 8]"),
        ("kv2048-ios.aimodel", "[2, 1, 16, 1, 2048]"),
    ] {
        for units in ["all", "cpu-and-ne", "cpu-and-gpu"] {
            let (_, found) = check(&[dir.join(asset)], &["--compute-units", units]);
            let states: Vec<&str> = found
                .iter()
                .filter(|d| d["rule"] == "coreai-kv-state-length")
                .map(|d| d["message"].as_str().unwrap())
                .collect();
            assert_eq!(states.len(), 2, "{asset} {units}: {found:#?}");
            for (m, name) in states.iter().zip(["k_cache", "v_cache"]) {
                assert!(
                    m.starts_with(&format!("state `{name}` {shape} of `decode`")),
                    "{m}"
                );
            }
        }
        let (_, found) = check(&[dir.join(asset)], &["--compute-units", "cpu-only"]);
        assert!(found.is_empty(), "{asset} cpu-only: {found:#?}");
    }
}

/// Core AI has no CPU+ANE-only mode: preferring the Neural Engine still lets the runtime fall back
/// to the GPU, so a GPU hazard stays; only cpu-only excludes it. A Core ML model under
/// `cpu-and-ne` does exclude the GPU.
#[test]
fn core_ai_units_exclude_only_for_cpu_only() {
    let floor = common::corpus().join("coreai/floor.aimodel");
    for units in ["all", "cpu-and-ne", "cpu-and-gpu"] {
        let (_, found) = check(std::slice::from_ref(&floor), &["--compute-units", units]);
        assert_eq!(rules_of(&found), ["coreai-gpu-rounding"], "{units}");
    }
    let (_, found) = check(&[floor], &["--compute-units", "cpu-only"]);
    assert!(found.is_empty(), "{found:#?}");
}

/// Core ML's facts stay off Core AI programs: an fp32 program, fp32 states, dynamic shapes and an
/// old deployment target are reported on a Core ML model with Core ML's help, and a Core AI asset
/// gets neither those findings nor a coremltools API in any help.
#[test]
fn no_help_on_a_core_ai_asset_names_a_coremltools_api() {
    let corpus = common::corpus().join("coreai");
    let mut helps = 0;
    for units in UNITS {
        for target in [None, Some("ios26")] {
            let mut args = vec!["--compute-units", units];
            if let Some(t) = target {
                args.extend(["--target", t]);
            }
            let (_, found) = check(std::slice::from_ref(&corpus), &args);
            for d in &found {
                let rule = d["rule"].as_str().unwrap();
                assert!(
                    !["fp32-compute", "state-not-fp16", "flexible-input-shape"].contains(&rule),
                    "a Core ML fact on a Core AI asset: {d:#}"
                );
                let help = d["help"].as_str().unwrap_or_default();
                for api in [
                    "ct.",
                    "coremltools",
                    "compute_precision",
                    "minimum_deployment_target",
                    "MLComputePlan",
                    "reshapeFrequency",
                ] {
                    assert!(!help.contains(api), "`{api}` in the help of {d:#}");
                }
                helps += usize::from(!help.is_empty());
            }
        }
    }
    assert!(helps > 40, "{helps} helps read");
    // The same target on a Core ML model names the coremltools option.
    let (_, found) = check(
        &[common::corpus().join("packages/state-blend-rmw-clean.mlpackage")],
        &["--target", "ios15"],
    );
    let newer: Vec<&Value> = found
        .iter()
        .filter(|d| d["rule"] == "requires-newer-os")
        .collect();
    assert!(
        newer.iter().all(|d| d["help"]
            .as_str()
            .is_some_and(|h| h.contains("minimum_deployment_target"))),
        "{newer:#?}"
    );
}
