//! Catalog 4's G1, G4 and G6 (issue 47, FIELD-HAZARDS-4.md) end to end through the CLI on the
//! converter-made fixtures of `corpus/generate_catalog4_ops.py`: each rule reports its fixture once
//! per cause and not its twins (clamped, shifted and fp32 forms; batch 9; strides 4 and 6), only
//! when the compute units include the unit the hazard is about, in every output format;
//! `check --fix` rewrites fp16 softplus, Mish, logsumexp and log_softmax into their shifted forms
//! and the re-check finds nothing; a stride-5 conv is at risk in the placement estimate. The
//! numeric equality of the rewrite (fp32, and fp16 rounding where the original overflows) and
//! coremltools' load are `ci/stable-fix-crosscheck.sh`'s.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const G1: &str = "ane-fp16-exp-overflow";
const G4: &str = "gpu-attention-batch";
const G6: &str = "conv-stride-ane-compile";
const G6_SLOW: &str = "conv-stride-slow-compile";
const RULES: &str =
    "ane-fp16-exp-overflow,gpu-attention-batch,conv-stride-ane-compile,conv-stride-slow-compile";

fn bin() -> Command {
    let mut c = Command::cargo_bin("coreml-lint").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// `check --isolated --select <the four rules> --output-format <format> <fixture>`.
fn check_as(name: &str, format: &str) -> std::process::Output {
    bin()
        .args([
            "check",
            "--isolated",
            "--select",
            RULES,
            "--output-format",
            format,
        ])
        .arg(pkg(name))
        .output()
        .unwrap()
}

fn pkg(name: &str) -> PathBuf {
    common::corpus().join(format!("packages/torch-cat4-{name}.mlpackage"))
}

/// (rule, op, severity) of each finding of the four rules on `path` with `units`.
fn found(path: &Path, units: &str) -> Vec<(String, String, String)> {
    let out = bin()
        .args(["check", "--isolated", "--output-format", "json"])
        .args(["--select", RULES, "--compute-units", units])
        .arg(path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("rule"), s("op"), s("severity"))
        })
        .collect()
}

fn one(rule: &str, op: &str, severity: &str) -> Vec<(String, String, String)> {
    vec![(rule.into(), op.into(), severity.into())]
}

/// A fixture, the rule's one finding on it (rule, op, severity), the units that include the
/// hazard's unit, the units that do not.
type Reported = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Units,
    Units,
);
type Units = &'static [&'static str];

const REPORTED: &[Reported] = &[
    (
        "softplus",
        G1,
        "op_4_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu", "cpu-only"],
    ),
    (
        "softplus-beta",
        G1,
        "softplus_0_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
    // Mish: one finding, at the softplus (not one for the softplus and one for the Mish).
    (
        "mish",
        G1,
        "softplus_0_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
    (
        "logsumexp",
        G1,
        "op_5_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
    (
        "log-softmax",
        G1,
        "op_4_softmax_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
    (
        "logcumsumexp",
        G1,
        "exp_0_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
    (
        "logcumsumexp-shifted",
        G1,
        "op_8_cast_fp16",
        "info",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
    (
        "sdpa-batch10",
        G4,
        "op_9_cast_fp16",
        "warning",
        &["all", "cpu-and-gpu"],
        &["cpu-and-ne", "cpu-only"],
    ),
    (
        "attention-batch10",
        G4,
        "op_13_cast_fp16",
        "warning",
        &["all", "cpu-and-gpu"],
        &["cpu-and-ne"],
    ),
    (
        "conv-stride5",
        G6,
        "op_14_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu", "cpu-only"],
    ),
    (
        "conv-stride2x7",
        G6,
        "op_15_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
    (
        "conv1d-stride5",
        G6,
        "op_14_cast_fp16",
        "warning",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
    (
        "conv-stride10",
        G6_SLOW,
        "op_14_cast_fp16",
        "info",
        &["all", "cpu-and-ne"],
        &["cpu-and-gpu"],
    ),
];

/// Twins that differ from a reported fixture only in the hazardous property.
const TWINS: &[&str] = &[
    "softplus-clamped-clean",
    "softplus-minimum-clean",
    "softplus-stable-clean",
    "mish-stable-clean",
    "logsumexp-shifted-clean",
    "log-softmax-shifted-clean",
    "softplus-fp32",
    "mish-fp32",
    "logsumexp-fp32",
    "log-softmax-fp32",
    "logcumsumexp-fp32",
    "sdpa-batch9-clean",
    "attention-batch9-clean",
    "conv-stride4-clean",
    "conv-stride6-clean",
];

#[test]
fn each_fixture_once_with_the_units_and_never_its_twins() {
    for (name, rule, op, severity, with, without) in REPORTED {
        let path = pkg(name);
        for units in *with {
            assert_eq!(
                found(&path, units),
                one(rule, op, severity),
                "{name} with {units}"
            );
        }
        for units in *without {
            assert_eq!(found(&path, units), vec![], "{name} with {units}");
        }
    }
    for name in TWINS {
        for units in ["all", "cpu-and-ne", "cpu-and-gpu"] {
            assert_eq!(found(&pkg(name), units), vec![], "{name} with {units}");
        }
    }
}

/// What each output format says of one finding: its rule and op in every one of them.
#[test]
fn every_output_format_carries_the_finding() {
    for (name, rule, op) in [
        ("mish", G1, "softplus_0_cast_fp16"),
        ("attention-batch10", G4, "op_13_cast_fp16"),
        ("conv-stride2x7", G6, "op_15_cast_fp16"),
    ] {
        for format in ["human", "concise", "json", "sarif", "github", "html"] {
            let out = check_as(name, format);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {format}: a warning fails no run"
            );
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.contains(rule) && text.contains(op),
                "{name} {format}: {text}"
            );
            if format == "json" {
                let v: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(v["diagnostics"].as_array().unwrap().len(), 1, "{name}");
            }
            if format == "sarif" {
                let v: Value = serde_json::from_str(&text).unwrap();
                let results = v["runs"][0]["results"].as_array().unwrap();
                assert_eq!(results.len(), 1, "{name}: {text}");
                assert_eq!(results[0]["ruleId"], rule);
            }
        }
    }
    // The messages read as the hazard: Mish named once, the stride, the batch.
    let concise = |name: &str| {
        let out = check_as(name, "concise");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mish = concise("mish");
    assert!(
        mish.contains("it starts a Mish (softplus → tanh → mul)"),
        "{mish}"
    );
    assert_eq!(mish.matches("[ane-fp16-exp-overflow]").count(), 1, "{mish}");
    assert!(concise("conv-stride2x7").contains("strides [2, 7]"));
    assert!(concise("sdpa-batch10").contains("[10, 2, 32, 32]"));
}

fn fix_copy(name: &str, dir: &Path) -> PathBuf {
    let to = dir.join(format!("{name}.mlpackage"));
    common::copy_tree(&pkg(name), &to);
    let out = bin()
        .args(["check", "--isolated", "--select", G1, "--fix"])
        .arg(&to)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{name}: fixed, nothing left: {err}"
    );
    assert!(err.contains("rewrote"), "{name}: {err}");
    to
}

fn op_types(path: &Path) -> Vec<String> {
    let model = common::read(path);
    model.program.functions[0]
        .ops()
        .map(|(_, o)| o.op_type.to_string())
        .collect()
}

#[test]
fn fix_rewrites_the_four_fixable_forms_and_rechecks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "softplus",
            "softplus",
            &["relu", "abs", "mul", "exp", "log", "add"],
        ),
        ("softplus-beta", "softplus", &["relu", "abs", "exp", "log"]),
        ("mish", "softplus", &["relu", "abs", "exp", "log", "tanh"]),
        (
            "logsumexp",
            "reduce_log_sum_exp",
            &["reduce_max", "sub", "exp", "reduce_sum", "log", "add"],
        ),
        (
            "log-softmax",
            "softmax",
            &["reduce_max", "sub", "exp", "reduce_sum", "log"],
        ),
    ];
    for (name, gone, present) in cases {
        let fixed = fix_copy(name, dir.path());
        for units in ["all", "cpu-and-ne"] {
            assert_eq!(found(&fixed, units), vec![], "{name}: re-check");
        }
        // Every rule: nothing new either.
        let all = bin()
            .args(["check", "--isolated"])
            .arg(&fixed)
            .output()
            .unwrap();
        let before = bin()
            .args(["check", "--isolated"])
            .arg(pkg(name))
            .output()
            .unwrap();
        assert!(
            all.status.code() <= before.status.code(),
            "{name}: {}",
            String::from_utf8_lossy(&all.stdout)
        );
        let types = op_types(&fixed);
        assert!(!types.iter().any(|t| t == gone), "{name}: {types:?}");
        for t in *present {
            assert!(types.iter().any(|x| x == t), "{name}: no {t} in {types:?}");
        }
        // The outputs keep their names and types.
        common::assert_outputs_unchanged(&common::read(&pkg(name)), &common::read(&fixed));
        // A second --fix changes nothing.
        let file = fixed.join("Data/com.apple.CoreML/model.mlmodel");
        let after = fs::read(&file).unwrap();
        let again = bin()
            .args(["check", "--isolated", "--fix"])
            .arg(&fixed)
            .output()
            .unwrap();
        assert!(!String::from_utf8_lossy(&again.stderr).contains("rewrote"));
        assert_eq!(fs::read(&file).unwrap(), after, "{name}: a second --fix");
    }
    // The Mish's tanh reads the rewritten softplus under its old name.
    let mish = common::read(&dir.path().join("mish.mlpackage"));
    let f = &mish.program.functions[0];
    let tanh = f.ops().find(|(_, o)| o.op_type == "tanh").unwrap().1;
    let add = f
        .ops()
        .find(|(_, o)| o.display_name() == "softplus_0_cast_fp16")
        .unwrap()
        .1;
    assert_eq!(add.op_type, "add");
    assert!(matches!(
        tanh.arg("x"),
        Some(coreml_lint::ir::Arg::Name(n)) if **n == *add.outputs[0].name
    ));
}

#[test]
fn logcumsumexp_is_not_offered_a_fix_and_the_fix_title_says_rounding() {
    let out = bin()
        .args(["check", "--isolated", "--select", G1, "--diff"])
        .arg(pkg("logcumsumexp"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("+++"), "no rewrite: {text}");
    let json = bin()
        .args([
            "check",
            "--isolated",
            "--select",
            G1,
            "--output-format",
            "json",
        ])
        .arg(pkg("softplus"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    let fix = &v["diagnostics"][0]["fix"];
    let title = fix["title"].as_str().unwrap_or_default();
    assert!(
        title.contains("change only by rounding where the original was finite"),
        "{v}"
    );
}

#[test]
fn a_text_program_is_rewritten_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let mil = dir.path().join("model.mil");
    let text = "program(1.3)\n{\n    func main<ios18>(tensor<fp32, [2, 8]> x) {\n            tensor<fp32, [2]> y = reduce_log_sum_exp(axes = tensor<int32, [1]>([1]), keep_dims = bool(false), x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";
    fs::write(&mil, text.replace("fp32", "fp16")).unwrap();
    let out = bin()
        .args(["check", "--isolated", "--select", G1, "--fix"])
        .arg(&mil)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let fixed = fs::read_to_string(&mil).unwrap();
    assert!(!fixed.contains("reduce_log_sum_exp"), "{fixed}");
    assert!(fixed.contains("reduce_max("), "{fixed}");
    assert!(
        fixed.contains("tensor<fp16, [2]> y = add("),
        "the last op keeps the output: {fixed}"
    );
    // fp32 compute is not reported (the rule concerns fp16).
    fs::write(&mil, text).unwrap();
    assert_eq!(found(&mil, "all"), vec![]);
}

/// `--placement`: a stride-5 conv is at risk (a program of more than `tiny-program-ops` ops), a
/// stride-6 one likely ANE.
#[test]
fn placement_marks_a_stride_5_conv_at_risk() {
    let dir = tempfile::tempdir().unwrap();
    let program = |stride: u32| {
        let n = (64 - 3) / stride + 1;
        format!(
            "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 1, 64, 64]> x) {{\n            tensor<fp16, [1, 1, 64, 64]> r = relu(x = x)[name = string(\"r\")];\n            tensor<fp16, [1, 1, 64, 64]> s = sigmoid(x = r)[name = string(\"s\")];\n            tensor<fp16, [8, 1, 3, 3]> w = const()[name = string(\"w\"), val = tensor<fp16, [8, 1, 3, 3]>([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])];\n            tensor<fp16, [1, 8, {n}, {n}]> y = conv(strides = tensor<int32, [2]>([{stride}, {stride}]), weight = w, x = s)[name = string(\"c\")];\n        }} -> (y);\n}}\n"
        )
    };
    for (stride, device) in [(5, "at-risk"), (6, "ane")] {
        let mil = dir.path().join(format!("stride{stride}.mil"));
        fs::write(&mil, program(stride)).unwrap();
        let out = bin()
            .args([
                "check",
                "--isolated",
                "--placement",
                "--output-format",
                "json",
            ])
            .arg(&mil)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let conv = v["placement"]["ops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["op"] == "c")
            .cloned()
            .unwrap_or_else(|| panic!("{v}"));
        assert_eq!(conv["device"], device, "stride {stride}: {conv}");
    }
}

/// `compute-units:` in the config scopes the rules as `--compute-units` does: a `.cpuAndGPU`
/// app gets G4 and not G1, a `.cpuAndNeuralEngine` app G1 and not G4.
#[test]
fn the_config_scopes_the_units() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["softplus", "sdpa-batch10"] {
        common::copy_tree(&pkg(name), &tmp.path().join(format!("{name}.mlpackage")));
    }
    let rules = |units: &str| {
        fs::write(
            tmp.path().join("coreml-lint.yaml"),
            format!("compute-units: {units}\n"),
        )
        .unwrap();
        let out = bin()
            .args(["check", "--select", RULES, "--output-format", "json"])
            .arg(tmp.path())
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["compute_units"], units);
        let mut got: Vec<String> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["rule"].as_str().unwrap().to_string())
            .collect();
        got.sort();
        got
    };
    assert_eq!(rules("cpu-and-gpu"), [G4]);
    assert_eq!(rules("cpu-and-ne"), [G1]);
    assert_eq!(rules("all"), [G1, G4]);
    assert!(rules("cpu-only").is_empty());
}
