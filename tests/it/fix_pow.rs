//! `pow-const-base-two`'s fix end to end (FIELD-HAZARDS-3.md C1): `--diff` shows the rewrite of
//! `pow(x = 2, y)` into `exp(mul(y, ln 2))` and writes nothing; `--fix` rewrites the converter-made
//! `.mlpackage` (protobuf) and a text `model.mil` in place (the text by span edits: every other
//! line stays), keeps the dtype of `y` for the `ln 2` constant, and the re-check finds no
//! `pow-const-base-two`; a second `--fix` changes nothing.

use crate::common;

use std::fs;
use std::path::Path;

use assert_cmd::Command;

fn bin() -> Command {
    Command::cargo_bin("coreml-lint").expect("binary built")
}

fn pow_findings(path: &Path) -> usize {
    let out = bin()
        .args([
            "check",
            "--select",
            "pow-const-base-two",
            "--output-format",
            "json",
        ])
        .arg(path)
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["diagnostics"].as_array().expect("diagnostics").len()
}

fn ops(model: &coreml_lint::ir::Model) -> Vec<(String, String)> {
    model.program.functions[0]
        .ops()
        .map(|(_, o)| (o.op_type.to_string(), o.display_name().to_string()))
        .collect()
}

#[test]
fn the_package_is_rewritten_and_rechecks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pow.mlpackage");
    common::copy_tree(
        &common::corpus().join("packages/pow-const-base-two.mlpackage"),
        &pkg,
    );
    let file = pkg.join("Data/com.apple.CoreML/model.mlmodel");
    let before = fs::read(&file).unwrap();
    assert_eq!(pow_findings(&pkg), 1);

    let diff = bin()
        .args(["check", "--select", "pow-const-base-two", "--diff"])
        .arg(&pkg)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&diff.stdout);
    assert!(text.contains("-            tensor<fp16, [1, 8]> var_7 = pow(x = var_6_to_fp16, y = linear_0_cast_fp16)"), "{text}");
    assert!(
        text.contains("+            fp16 op_7_cast_fp16_ln2 = const()"),
        "{text}"
    );
    assert!(
        text.contains("mul(x = linear_0_cast_fp16, y = op_7_cast_fp16_ln2)"),
        "{text}"
    );
    assert!(text.contains("+            tensor<fp16, [1, 8]> var_7 = exp(x = op_7_cast_fp16_y_ln2)[name = string(\"op_7_cast_fp16\")]"), "{text}");
    assert_eq!(fs::read(&file).unwrap(), before, "--diff writes nothing");

    let fixed = bin()
        .args(["check", "--select", "pow-const-base-two", "--fix"])
        .arg(&pkg)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&fixed.stderr);
    assert!(err.contains("rewrote `op_7_cast_fp16` as exp(mul(`linear_0_cast_fp16`, ln 2)) in `main` (fp16 ln 2)"), "{err}");
    assert_eq!(fixed.status.code(), Some(0), "fixed, nothing left: {err}");
    assert_eq!(pow_findings(&pkg), 0, "the re-check finds no pow of 2");

    let model = common::read(&pkg);
    let got = ops(&model);
    assert!(!got.iter().any(|(t, _)| t == "pow"), "{got:?}");
    assert!(
        got.contains(&("exp".into(), "op_7_cast_fp16".into())),
        "{got:?}"
    );
    // The constant base had no other reader: it is gone; ln 2 is an fp16 scalar (0x1.63p-1).
    assert!(!got.iter().any(|(_, n)| n == "op_6_to_fp16"), "{got:?}");
    let f = &model.program.functions[0];
    let ln2 = f
        .value_type("op_7_cast_fp16_ln2")
        .and_then(|t| t.tensor())
        .unwrap();
    assert_eq!(ln2.dtype, coreml_lint::ir::DType::Fp16);
    assert!(model.source.text.contains("val = fp16(0x1.63p-1)"));
    // The outputs keep their names and types.
    common::assert_outputs_unchanged(
        &common::read(&common::corpus().join("packages/pow-const-base-two.mlpackage")),
        &model,
    );

    let after = fs::read(&file).unwrap();
    let again = bin().args(["check", "--fix"]).arg(&pkg).output().unwrap();
    assert!(!String::from_utf8_lossy(&again.stderr).contains("rewrote"));
    assert_eq!(
        fs::read(&file).unwrap(),
        after,
        "a second --fix changes nothing"
    );
}

const TEXT: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp32, [1, 8]> h) {\n            fp32 two = const()[name = string(\"two\"), val = fp32(2)];\n            tensor<fp32, [1, 8]> p = pow(x = two, y = h)[name = string(\"p\")];\n            tensor<fp32, [1, 8]> q = relu(x = p)[name = string(\"q\")];\n            tensor<fp32, [1, 8]> r = pow(x = q, y = two)[name = string(\"r\")];\n        } -> (r);\n}\n";

#[test]
fn a_text_model_is_edited_in_place_keeping_every_other_line() {
    let dir = tempfile::tempdir().unwrap();
    let mil = dir.path().join("model.mil");
    fs::write(&mil, TEXT).unwrap();
    assert_eq!(
        pow_findings(&mil),
        1,
        "the square r = q ** 2 is not reported"
    );
    let out = bin()
        .args(["check", "--select", "pow-const-base-two", "--fix"])
        .arg(&mil)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rewrote `p` as exp(mul(`h`, ln 2)) in `main` (fp32 ln 2)"),
        "{err}"
    );
    assert!(
        !err.contains("re-rendered"),
        "span edits, not a re-render: {err}"
    );
    let fixed = fs::read_to_string(&mil).unwrap();
    let want = TEXT.replace(
        "            tensor<fp32, [1, 8]> p = pow(x = two, y = h)[name = string(\"p\")];\n",
        "            fp32 p_ln2 = const()[name = string(\"p_ln2\"), val = fp32(0x1.62e43p-1)];\n            tensor<fp32, [1, 8]> p_y_ln2 = mul(x = h, y = p_ln2)[name = string(\"p_y_ln2\")];\n            tensor<fp32, [1, 8]> p = exp(x = p_y_ln2)[name = string(\"p\")];\n",
    );
    // `two` is still read by the square: it stays.
    assert_eq!(fixed, want);
    assert_eq!(pow_findings(&mil), 0);
}

#[test]
fn a_base_that_broadcasts_the_exponent_offers_no_fix() {
    let dir = tempfile::tempdir().unwrap();
    let mil = dir.path().join("model.mil");
    let text = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 1]> h) {\n            tensor<fp16, [1, 4]> two = const()[name = string(\"two\"), val = tensor<fp16, [1, 4]>([2, 2, 2, 2])];\n            tensor<fp16, [1, 4]> p = pow(x = two, y = h)[name = string(\"p\")];\n        } -> (p);\n}\n";
    fs::write(&mil, text).unwrap();
    let out = bin()
        .args([
            "check",
            "--select",
            "pow-const-base-two",
            "--output-format",
            "json",
        ])
        .arg(&mil)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "pow-const-base-two");
    assert!(
        d["fix"].is_null(),
        "exp(mul(y, ln 2)) would not have the pow's shape: {d}"
    );
    let fixed = bin().args(["check", "--fix"]).arg(&mil).output().unwrap();
    assert_eq!(fixed.status.code(), Some(1));
    assert_eq!(fs::read_to_string(&mil).unwrap(), text);
}
