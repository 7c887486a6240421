//! `coreml-lint check --placement` end to end: the table follows the findings, is labelled an
//! estimate, names the CPU ops, and is a member of the JSON document (one record per op).

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
    // One boundary (the fp32 softmax into the cast back); the casts do no arithmetic, so the
    // softmax is all the compute, on the CPU.
    assert_eq!(
        row(&stdout, "fp32-compute-island")[1..],
        ["main", "3", "1", "2", "0", "0", "1", "0", "%"]
    );
    assert!(
        stdout.contains("ANE compute: the likely-ANE share"),
        "{stdout}"
    );
    // A flexible input with a state bars the function: every likely-ANE op is at risk.
    let dynamic = row(&stdout, "dynamic-shape-with-state.mlpackage");
    assert_eq!(dynamic[3], "0", "{dynamic:?}");
    assert_ne!(dynamic[5], "0", "{dynamic:?}");
}

fn placement_json(paths: &[&str]) -> serde_json::Value {
    placement_json_units(paths, "all")
}

fn placement_json_units(paths: &[&str], units: &str) -> serde_json::Value {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(common::repo())
        .args([
            "check",
            "--placement",
            "--exit-zero",
            "--output-format",
            "json",
            "--compute-units",
            units,
        ])
        .args(paths)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("ESTIMATE"),
        "the estimate is in the document, not on stderr"
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON document")
}

/// (op, op_type, device, reason) of every op the JSON estimate lists for `path`.
fn ops_of<'a>(v: &'a serde_json::Value, path: &str) -> Vec<[&'a str; 4]> {
    v["placement"]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["path"].as_str().is_some_and(|p| p.ends_with(path)))
        .map(|o| ["op", "op_type", "device", "reason"].map(|k| o[k].as_str().unwrap_or_default()))
        .collect()
}

#[test]
fn placement_is_a_member_of_the_json_document() {
    let v = placement_json(&["corpus/packages/fp32-compute-island.mlpackage"]);
    // One fp32 island, one finding (`origin:`); the findings are unchanged by --placement.
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(1));
    let f = &v["placement"]["functions"][0];
    assert_eq!(
        (
            f["function"].as_str(),
            f["ops"].as_u64(),
            f["ane"].as_u64(),
            f["cpu"].as_u64()
        ),
        (Some("main"), Some(3), Some(1), Some(2)),
        "{f}"
    );
    let ops = ops_of(&v, "fp32-compute-island.mlpackage");
    assert_eq!(ops.len(), 3, "{ops:?}");
    assert!(
        ops.iter().all(|o| o[2] != "ane" || o[3] == "ane-op"),
        "{ops:?}"
    );
    assert!(
        ops.iter().any(|o| o[2] == "cpu" && o[3] == "dtype"),
        "{ops:?}"
    );
}

/// Converter-made (tests/fixtures/placement/generate.py): the CPU set is the `topk` and the ops that
/// read its indices, as MLComputePlan measured on RF-DETR (FIELD-HAZARDS.md A5).
#[test]
fn topk_index_consumers_are_cpu_in_a_converted_detector_head() {
    let v = placement_json(&["tests/fixtures/placement/topk-gather.mlpackage"]);
    let ops = ops_of(&v, "topk-gather.mlpackage");
    let cpu: Vec<(&str, &str)> = ops
        .iter()
        .filter(|o| o[2] == "cpu")
        .map(|o| (o[1], o[3]))
        .collect();
    assert_eq!(
        cpu,
        [
            ("topk", "cpu-op"),
            ("cast", "index-consumer"),
            ("expand_dims", "index-consumer"),
            ("tile", "index-consumer"),
            ("cast", "index-consumer"),
            ("gather_along_axis", "index-consumer"),
        ],
        "{ops:?}"
    );
    // The projection of the gathered features is data again.
    assert!(
        ops.iter()
            .filter(|o| o[1] == "linear")
            .all(|o| o[2] == "ane"),
        "{ops:?}"
    );
}

#[test]
fn a_converted_token_embedding_is_cpu_and_named_in_the_text() {
    let v = placement_json(&["tests/fixtures/placement/embedding.mlpackage"]);
    let ops = ops_of(&v, "embedding.mlpackage");
    let gathers: Vec<_> = ops.iter().filter(|o| o[1] == "gather").collect();
    assert_eq!(gathers.len(), 1, "{ops:?}");
    assert_eq!(gathers[0][2..], ["cpu", "embedding-lookup"]);
    assert!(
        ops.iter().any(|o| o[1] == "linear" && o[2] == "ane"),
        "{ops:?}"
    );

    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(common::repo())
        .args(["check", "--placement", "--exit-zero", "--quiet"])
        .arg("tests/fixtures/placement/embedding.mlpackage")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let named = format!("gather `{}`", gathers[0][0]);
    let line = text
        .lines()
        .find(|l| l.contains("embedding lookup"))
        .unwrap_or_else(|| panic!("no embedding line in:\n{text}"));
    assert!(line.contains(&named), "{line}");
}

/// Every op of the YOLOv8 pipeline has a cost, the functions their compute by device and the
/// ANE↔CPU boundaries, and the text table shows the ANE share.
#[test]
fn the_yolov8_pipeline_is_weighted_by_compute() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = shared.join("realworld/ultralytics-yolov8n-nms-pipeline");
    let v = placement_json(&[dir.to_str().unwrap()]);
    assert_matches_the_schema(&v["placement"]);
    let ops = v["placement"]["ops"].as_array().unwrap();
    assert!(ops.len() > 300, "{} ops", ops.len());
    let missing: Vec<&serde_json::Value> = ops.iter().filter(|o| !o["macs"].is_u64()).collect();
    assert!(missing.is_empty(), "ops without macs: {missing:?}");
    let total: u64 = ops.iter().map(|o| o["macs"].as_u64().unwrap()).sum();
    // YOLOv8n at 640×640 is about 4.4 GMACs (8.7 GFLOPs); the package and the compiled copy.
    assert!((8_000_000_000..10_000_000_000).contains(&total), "{total}");
    let conv = ops.iter().find(|o| o["op_type"] == "conv").unwrap();
    assert!(conv["macs"].as_u64().unwrap() > 0, "{conv}");
    for f in v["placement"]["functions"].as_array().unwrap() {
        let m = &f["macs"];
        let sum: u64 = ["ane", "cpu", "at_risk", "unknown"]
            .iter()
            .map(|k| m[k].as_u64().unwrap_or_else(|| panic!("{k} in {f}")))
            .sum();
        let own: u64 = ops
            .iter()
            .filter(|o| o["path"] == f["path"] && o["function"] == f["function"])
            .map(|o| o["macs"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, own, "{f}");
        assert!(
            m["ane"].as_u64().unwrap() > m["cpu"].as_u64().unwrap(),
            "{f}"
        );
        assert_eq!(f["unestimated_ops"].as_u64(), Some(0), "{f}");
        // The fp32 input scaling and the casts to fp32 at the outputs are CPU: edges cross.
        assert!(f["boundaries"].as_u64().unwrap() >= 1, "{f}");
    }
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(common::repo())
        .args(["check", "--placement", "--exit-zero", "--quiet"])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let row = row(&stdout, "yolov8n.mlpackage");
    assert_eq!(row[row.len() - 2..], ["99", "%"], "{row:?}");
}

/// `schemas/placement.schema.json` accepts what `--placement` writes and refuses a stray key.
fn assert_matches_the_schema(placement: &serde_json::Value) {
    let text =
        std::fs::read_to_string(common::repo().join("schemas/placement.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let v = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .build(&schema)
        .unwrap();
    let errors: Vec<String> = v.iter_errors(placement).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut stray = placement.clone();
    stray["functions"][0]["mac"] = serde_json::json!(1);
    assert!(!v.is_valid(&stray), "a misspelt key passes the schema");
}

#[test]
fn the_placement_member_matches_its_schema_on_the_corpus() {
    let v = placement_json(&["corpus"]);
    assert_matches_the_schema(&v["placement"]);
}

/// Every `ane-compile` rule (the Neural Engine does not compile what it reports) moves the op or
/// function it reports out of `likely ANE`: it is in one of the op table's rule lists.
#[test]
fn every_ane_compile_rule_reaches_the_estimate() {
    let t = coreml_lint::analysis::placement::OpTable::builtin();
    let listed: Vec<&String> = t
        .op_risk_rules
        .iter()
        .chain(&t.op_cpu_rules)
        .chain(&t.function_risk_rules)
        .collect();
    let rules = coreml_lint::rules::RuleSet::builtin().unwrap();
    let missing: Vec<&str> = rules
        .rules()
        .iter()
        .filter(|r| r.category == "ane-compile" && !listed.contains(&&r.id))
        .map(|r| r.id.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "not in rules/placement/op-table.yaml: {missing:?}"
    );
}

/// A conv `conv-kernel-width` reports is at risk, not likely ANE.
#[test]
fn a_conv_a_rule_reports_is_not_likely_ane() {
    let dir = tempfile::tempdir().unwrap();
    let mil = dir.path().join("model.mil");
    std::fs::write(
        &mil,
        "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 1, 1600]> x) {\n            \
         tensor<fp16, [1, 1, 16]> w = const()[name = string(\"w\"), val = tensor<fp16, [1, 1, 16]>([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])];\n            \
         tensor<fp16, [1, 1, 1585]> c = conv(x = x, weight = w)[name = string(\"c\")];\n            \
         tensor<fp16, [1, 1, 1585]> r = relu(x = c)[name = string(\"r\")];\n            \
         tensor<fp16, [1, 1, 1585]> y = tanh(x = r)[name = string(\"y\")];\n        } -> (y);\n}\n",
    )
    .unwrap();
    let v = placement_json(&[mil.to_str().unwrap()]);
    let ops = ops_of(&v, mil.to_str().unwrap());
    assert_eq!(
        ops,
        [
            ["c", "conv", "at-risk", "op-finding"],
            ["r", "relu", "ane", "ane-op"],
            ["y", "tanh", "ane", "ane-op"]
        ],
        "{v}"
    );
}

/// `--placement` follows `--compute-units`: without the Neural Engine there is no ANE estimate,
/// and the text says so; with it, the table is there.
#[test]
fn placement_follows_the_compute_units() {
    let corpus = common::corpus();
    let run = |units: &str| {
        let out = Command::cargo_bin("coreml-lint")
            .unwrap()
            .args([
                "check",
                "--placement",
                "--exit-zero",
                "--quiet",
                "--compute-units",
                units,
            ])
            .arg(corpus.join("packages/fp32-compute-island.mlpackage"))
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    for units in ["cpu-and-gpu", "cpu-only"] {
        let out = run(units);
        assert!(!out.contains("fp32-compute-island.mlpackage  "), "{out}");
        assert!(
            out.contains(&format!(
                "`--compute-units {units}` leaves the Neural Engine out: 1 model not estimated"
            )),
            "{out}"
        );
    }
    let out = run("cpu-and-ne");
    assert!(out.contains("fp32-compute-island"), "{out}");
    assert!(!out.contains("leaves the Neural Engine out"), "{out}");
    let v = placement_json_units(
        &["corpus/packages/fp32-compute-island.mlpackage"],
        "cpu-and-gpu",
    );
    assert_eq!(v["placement"]["functions"], serde_json::json!([]), "{v}");
    assert!(
        v["placement"]["note"]
            .as_str()
            .unwrap()
            .contains("leaves the Neural Engine out"),
        "{v}"
    );
}

/// Ops whose cost is unknown (flexible shapes) are named: the ANE share carries a `*` and the
/// text says how many ops it leaves out.
#[test]
fn the_share_says_what_it_could_not_estimate() {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["check", "--placement", "--exit-zero", "--quiet"])
        .arg(common::corpus().join("packages/flexible-input-shape.mlpackage"))
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let row = row(&out, "flexible-input-shape.mlpackage");
    assert!(row.last().unwrap().ends_with('*'), "{row:?}\n{out}");
    assert!(
        out.contains("leaves out the ops whose cost is unknown") && out.contains("`main` of "),
        "{out}"
    );
}
