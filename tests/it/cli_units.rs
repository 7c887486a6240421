//! `check --compute-units` and `compute-units:` in the config, end to end on the corpus: rules
//! about units the app does not use stay quiet, weight-file errors never do, help follows the
//! units, an unknown value is a usage error with a suggestion, and JSON / SARIF / the summary
//! carry the setting.

use crate::common;

use std::collections::BTreeSet;

use assert_cmd::Command;
use coreml_lint::rules::{RuleSet, Unit};
use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::cargo_bin("coreml-lint").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// The JSON document of `check --isolated <path> <args…>`.
fn check_json(path: &std::path::Path, args: &[&str]) -> Value {
    let out = bin()
        .args(["check", "--isolated", "--output-format", "json"])
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// (rule, path, function, op, message) of every diagnostic.
fn findings(v: &Value) -> BTreeSet<(String, String, String, String, String)> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("path"), s("function"), s("op"), s("message"))
        })
        .collect()
}

/// Built-in rules whose units are exactly `units`.
fn rules_only_for(units: &[Unit]) -> BTreeSet<String> {
    let want: BTreeSet<Unit> = units.iter().copied().collect();
    RuleSet::builtin()
        .unwrap()
        .rules()
        .iter()
        .filter(|r| r.applies_to.units.as_ref() == Some(&want))
        .map(|r| r.id.clone())
        .collect()
}

#[test]
fn each_setting_on_the_corpus() {
    let corpus = common::corpus();
    let default = check_json(&corpus, &[]);
    assert_eq!(default["compute_units"], "all");
    let all = findings(&default);
    let ane_only = rules_only_for(&[Unit::Ane]);
    let gpu_only = rules_only_for(&[Unit::Gpu]);
    let fired = |f: &BTreeSet<(String, String, String, String, String)>,
                 rules: &BTreeSet<String>| {
        // Core ML's settings: a Core AI asset only leaves units out for cpu-only
        // (`coreai_program_rules::core_ai_units_exclude_only_for_cpu_only`).
        f.iter()
            .filter(|x| rules.contains(&x.0) && !x.1.ends_with(".aimodel"))
            .map(|x| x.0.clone())
            .collect::<BTreeSet<_>>()
    };
    assert!(
        fired(&all, &ane_only).len() >= 10,
        "the corpus holds ANE-only hazards: {:?}",
        fired(&all, &ane_only)
    );
    assert!(!fired(&all, &gpu_only).is_empty(), "and GPU-only ones");
    // Weight-file findings: broken weights fail the load on every unit.
    let blob_errors: BTreeSet<_> = all
        .iter()
        .filter(|x| x.0.starts_with("blob-"))
        .cloned()
        .collect();
    assert!(blob_errors.len() >= 10, "{blob_errors:?}");

    assert_eq!(
        findings(&check_json(&corpus, &["--compute-units", "all"])),
        all,
        "`all` is the default"
    );
    for setting in ["cpu-only", "cpu-and-gpu", "cpu-and-ne"] {
        let v = check_json(&corpus, &["--compute-units", setting]);
        assert_eq!(v["compute_units"], setting);
        let got = findings(&v);
        assert!(
            got.is_subset(&all),
            "{setting}: a unit filter only removes findings"
        );
        assert!(
            blob_errors.is_subset(&got),
            "{setting}: every weight-file finding stays: {:?}",
            blob_errors.difference(&got).collect::<Vec<_>>()
        );
        let uses_ane = setting.ends_with("-ne");
        let uses_gpu = setting.ends_with("-gpu");
        assert_eq!(
            fired(&got, &ane_only).is_empty(),
            !uses_ane,
            "{setting}: ANE-only hazards {:?}",
            fired(&got, &ane_only)
        );
        assert_eq!(
            fired(&got, &gpu_only).is_empty(),
            !uses_gpu,
            "{setting}: GPU-only hazards {:?}",
            fired(&got, &gpu_only)
        );
        // Every finding of a rule that concerns the CPU (every setting has it) is still there.
        let cpu_rules: BTreeSet<String> = RuleSet::builtin()
            .unwrap()
            .rules()
            .iter()
            .filter(|r| {
                r.applies_to
                    .units
                    .as_ref()
                    .is_none_or(|u| u.contains(&Unit::Cpu))
            })
            .map(|r| r.id.clone())
            .collect();
        // (tensor-rank's rank-5 part concerns the Neural Engine only: `target: { units: ane }`.)
        let ane_part = |f: &(String, String, String, String, String)| {
            f.0 == "tensor-rank" && f.4.contains(" has rank 5 ")
        };
        for f in all
            .iter()
            .filter(|f| cpu_rules.contains(&f.0) && (uses_ane || !ane_part(f)))
        {
            assert!(
                got.iter()
                    .any(|g| (&g.0, &g.1, &g.2, &g.3) == (&f.0, &f.1, &f.2, &f.3)),
                "{setting}: {f:?} is gone"
            );
        }
    }
}

#[test]
fn help_follows_the_units() {
    let sdpa = common::corpus().join("packages/sdpa-fused-fp16.mlpackage");
    let help = |args: &[&str]| {
        let v = check_json(&sdpa, args);
        let d = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["rule"] == "sdpa-fused-fp16")
            .cloned()
            .unwrap_or_else(|| panic!("{args:?}: {v:#}"));
        d["help"].as_str().unwrap().to_string()
    };
    let ne = help(&["--compute-units", "cpu-and-ne"]);
    assert!(ne.starts_with("Make the converter decompose it"), "{ne}");
    let gpu = help(&["--compute-units", "cpu-and-gpu"]);
    assert!(
        gpu.starts_with("Keep it fused for a `.cpuAndGPU` app"),
        "{gpu}"
    );
    let all = help(&[]);
    assert!(
        all.contains("decompose and load with `.cpuAndNeuralEngine`")
            && all.contains("keep it and load with `.cpuAndGPU`"),
        "both, for `all`: {all}"
    );
    for text in [&ne, &gpu, &all] {
        assert!(text.len() <= 300, "{} characters: {text}", text.len());
    }
}

#[test]
fn an_unknown_setting_is_a_usage_error_with_a_suggestion() {
    let out = bin()
        .args(["check", "--isolated", "--compute-units", "cpu-and-nu"])
        .arg(common::corpus().join("packages/mlp-clean.mlpackage"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean `cpu-and-ne`?"), "{err}");
}

#[test]
fn the_config_names_the_units_and_the_command_line_overrides_it() {
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("m.mlpackage");
    common::copy_tree(
        &common::corpus().join("packages/state-blend-rmw.mlpackage"),
        &pkg,
    );
    let run = |args: &[&str]| {
        let out = bin()
            .args(["check", "--output-format", "json"])
            .args(args)
            .arg(&pkg)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, out, _) = run(&[]);
    assert_eq!(code, 1, "{out}");
    std::fs::write(
        tmp.path().join("coreml-lint.yaml"),
        "compute-units: cpu-and-gpu\n",
    )
    .unwrap();
    let (code, out, _) = run(&[]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["compute_units"], "cpu-and-gpu");
    assert_eq!(v["diagnostics"], serde_json::json!([]), "ANE-only hazards");
    assert_eq!(code, 0);
    let (code, out, _) = run(&["--compute-units", "cpu-and-ne"]);
    assert_eq!(code, 1, "the command line wins: {out}");
    std::fs::write(
        tmp.path().join("coreml-lint.yaml"),
        "compute-units: cpu-only-please\n",
    )
    .unwrap();
    let (code, _, err) = run(&[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("coreml-lint.yaml") && err.contains("`compute-units`: unknown compute units"),
        "{err}"
    );
}

#[test]
fn sarif_and_the_summary_carry_the_units() {
    let pkg = common::corpus().join("packages/state-blend-rmw.mlpackage");
    let out = bin()
        .args(["check", "--isolated", "--output-format", "sarif"])
        .args(["--compute-units", "cpu-only"])
        .arg(&pkg)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["runs"][0]["invocations"][0]["properties"]["computeUnits"],
        "cpu-only"
    );
    let human = |args: &[&str]| {
        let out = bin()
            .args(["check", "--isolated"])
            .args(args)
            .arg(&pkg)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let text = human(&["--compute-units", "cpu-only"]);
    assert!(
        text.contains("Checked 1 model for .cpuOnly (the CPU only) (0 skipped"),
        "{text}"
    );
    let text = human(&[]);
    assert!(
        text.contains("Checked 1 model (0 skipped"),
        "the default is not named: {text}"
    );
}

#[test]
fn rule_explanations_name_the_units_and_os_ranges() {
    let out = bin().args(["rule", "gpu-rnn-abort"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Applies to: the GPU; macOS 26.5–26.6"),
        "{text}"
    );
    let out = bin().args(["rule", "blob-bad-header"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Applies to: every compute unit"), "{text}");
}
