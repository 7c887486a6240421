//! `check --write-baseline` / `--baseline` end to end on a zoo in a temporary folder: a fresh
//! baseline reports nothing; a new model's findings are the only ones reported; a fixed one is
//! named; an op that left the Neural Engine is a `placement-regression` finding; SARIF carries
//! `baselineState` and a `startLine` on every result; bad baseline files exit 2 naming the file.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::common;

/// A clean fp16 program: relu → sigmoid → tanh, every op likely on the ANE.
const FP16: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {\n            tensor<fp16, [1, 64]> a = relu(x = x)[name = string(\"a\")];\n            tensor<fp16, [1, 64]> s = sigmoid(x = a)[name = string(\"s\")];\n            tensor<fp16, [1, 64]> t = tanh(x = s)[name = string(\"t\")];\n        } -> (t);\n}\n";

/// The same program with the sigmoid computed in fp32 (cast in, cast out).
const FP32_SIGMOID: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {\n            string f32 = const()[name = string(\"f32\"), val = string(\"fp32\")];\n            string f16 = const()[name = string(\"f16\"), val = string(\"fp16\")];\n            tensor<fp16, [1, 64]> a = relu(x = x)[name = string(\"a\")];\n            tensor<fp32, [1, 64]> a32 = cast(dtype = f32, x = a)[name = string(\"a32\")];\n            tensor<fp32, [1, 64]> s = sigmoid(x = a32)[name = string(\"s\")];\n            tensor<fp16, [1, 64]> s16 = cast(dtype = f16, x = s)[name = string(\"s16\")];\n            tensor<fp16, [1, 64]> t = tanh(x = s16)[name = string(\"t\")];\n        } -> (t);\n}\n";

/// `<tmp>/Models/`: `head.mil` (clean), `island.mil` (an fp32 island: one warning) and two
/// packages with findings (`conv.mlpackage`: a kernel too wide; `state.mlpackage`: a dynamic
/// state write).
fn zoo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("Models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::write(models.join("head.mil"), FP16).unwrap();
    std::fs::write(models.join("island.mil"), FP32_SIGMOID).unwrap();
    let packages = common::corpus().join("packages");
    common::copy_tree(
        &packages.join("conv-kernel-width.mlpackage"),
        &models.join("conv.mlpackage"),
    );
    common::copy_tree(
        &packages.join("state-dynamic-begin.mlpackage"),
        &models.join("state.mlpackage"),
    );
    dir
}

/// `coreml-lint check --isolated ARGS` in `cwd`: exit code, stdout, stderr.
fn check(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(cwd)
        .arg("check")
        .arg("--isolated")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(cwd: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["--output-format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = check(cwd, &all);
    let doc = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, doc)
}

fn write_baseline(cwd: &Path, file: &str, paths: &[&str]) -> Value {
    let mut args = vec!["--write-baseline", file];
    args.extend_from_slice(paths);
    let (code, out, err) = check(cwd, &args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Wrote the baseline"), "{out}");
    serde_json::from_str(&std::fs::read_to_string(cwd.join(file)).unwrap()).unwrap()
}

fn rules_of(doc: &Value) -> Vec<(String, String)> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().to_string(),
                d["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every key and every string value in the document, recursively.
fn strings(v: &Value, keys: &mut Vec<String>, values: &mut Vec<String>) {
    match v {
        Value::String(s) => values.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, keys, values)),
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            keys.push(k.clone());
            strings(x, keys, values);
        }),
        _ => {}
    }
}

#[test]
fn a_fresh_baseline_reports_nothing_and_holds_no_lines_or_absolute_paths() {
    let zoo = zoo();
    let (code, before) = json(zoo.path(), &["--fail-on", "warning", "Models"]);
    assert_eq!(code, 1, "the zoo has warnings");
    let found = rules_of(&before).len();
    assert!(found >= 3, "{before}");
    let file = write_baseline(zoo.path(), "coreml-lint-baseline.json", &["Models"]);
    assert_eq!(file["version"], 1);
    let counted: u64 = file["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted as usize, found);
    let (mut keys, mut texts) = (Vec::new(), Vec::new());
    strings(&file, &mut keys, &mut texts);
    let root = zoo.path().display().to_string();
    for t in &texts {
        assert!(
            !t.starts_with('/') && !t.contains(&root),
            "absolute path `{t}`"
        );
    }
    for k in &keys {
        assert!(
            !["line", "column", "offset", "order", "span"]
                .iter()
                .any(|w| k.contains(w)),
            "a location key `{k}`"
        );
    }
    assert!(
        texts.contains(&"Models/conv.mlpackage".to_string()),
        "{file}"
    );
    // Each function's estimate, op by op.
    let head = file["placement"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["model"] == "Models/head.mil")
        .expect("head.mil's placement");
    // The ops off the ANE by name, the ANE ones counted and fingerprinted.
    assert_eq!(head["ane_ops"], 3);
    let prints =
        coreml_lint::baseline::ane_digest::decode(head["ane_digest"].as_str().unwrap()).unwrap();
    for op in ["a", "s", "t"] {
        assert!(
            coreml_lint::baseline::ane_digest::holds(&prints, op),
            "{op}"
        );
    }
    assert!(head.get("ane").is_none(), "{head}");
    // The schema in schemas/ describes it.
    let text =
        std::fs::read_to_string(common::repo().join("schemas/baseline.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .build(&schema)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&file)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // Written twice, byte for byte the same.
    let first = std::fs::read(zoo.path().join("coreml-lint-baseline.json")).unwrap();
    write_baseline(zoo.path(), "coreml-lint-baseline.json", &["Models"]);
    assert_eq!(
        first,
        std::fs::read(zoo.path().join("coreml-lint-baseline.json")).unwrap()
    );

    let (code, after) = json(
        zoo.path(),
        &[
            "--baseline",
            "coreml-lint-baseline.json",
            "--fail-on",
            "warning",
            "Models",
        ],
    );
    assert_eq!(code, 0, "{after}");
    assert_eq!(rules_of(&after), Vec::<(String, String)>::new());
    assert_eq!(after["baseline"]["new"], 0);
    assert_eq!(after["baseline"]["unchanged"].as_u64(), Some(found as u64));
    assert_eq!(after["baseline"]["fixed"], 0);
    let (code, out, _) = check(
        zoo.path(),
        &["--baseline", "coreml-lint-baseline.json", "Models"],
    );
    assert_eq!(code, 0);
    assert!(
        out.contains(&format!("0 new, {found} in the baseline (not shown)")),
        "{out}"
    );
}

#[test]
fn a_new_model_is_reported_and_a_fixed_one_is_named() {
    let zoo = zoo();
    write_baseline(zoo.path(), "b.json", &["Models"]);
    let models = zoo.path().join("Models");
    // A new model with an error, and a fixed one (the state model removed from the zoo; the fp32
    // island re-exported in fp16).
    common::copy_tree(
        &common::corpus().join("packages/state-full-extent-write.mlpackage"),
        &models.join("decoder.mlpackage"),
    );
    std::fs::remove_dir_all(models.join("state.mlpackage")).unwrap();
    std::fs::write(models.join("island.mil"), FP16).unwrap();
    let (code, doc) = json(zoo.path(), &["--baseline", "b.json", "Models"]);
    assert_eq!(code, 1, "{doc}");
    let reported = rules_of(&doc);
    assert!(!reported.is_empty());
    for (path, rule) in &reported {
        assert_eq!(
            path, "Models/decoder.mlpackage",
            "{rule} is not the new model's"
        );
    }
    assert_eq!(doc["baseline"]["new"].as_u64(), Some(reported.len() as u64));
    let fixed: Vec<(String, String)> = doc["baseline"]["fixed_findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["model"].as_str().unwrap().to_string(),
                e["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        fixed.contains(&(
            "Models/state.mlpackage".into(),
            "state-dynamic-begin".into()
        )),
        "{fixed:?}"
    );
    assert!(
        fixed.contains(&("Models/island.mil".into(), "fp32-compute".into())),
        "{fixed:?}"
    );
    let (_, out, _) = check(zoo.path(), &["--baseline", "b.json", "Models"]);
    assert!(
        out.contains(&format!(
            "Fixed since the baseline: {}; refresh it with --write-baseline",
            fixed.len()
        )),
        "{out}"
    );
    assert!(
        out.contains("state-dynamic-begin in Models/state.mlpackage"),
        "{out}"
    );
    // Checking one model (as pre-commit does) says nothing about the others.
    let (code, doc) = json(
        zoo.path(),
        &["--baseline", "b.json", "Models/conv.mlpackage"],
    );
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["baseline"]["fixed"], 0, "{doc}");
}

#[test]
fn a_sigmoid_moved_to_fp32_is_a_placement_regression_with_the_ane_share() {
    let zoo = zoo();
    write_baseline(zoo.path(), "b.json", &["Models"]);
    std::fs::write(zoo.path().join("Models/head.mil"), FP32_SIGMOID).unwrap();
    let (code, doc) = json(zoo.path(), &["--baseline", "b.json", "Models/head.mil"]);
    assert_eq!(code, 1, "{doc}");
    let regression: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "placement-regression")
        .collect();
    assert_eq!(regression.len(), 1, "{doc}");
    let r = regression[0];
    assert_eq!(r["op"], "s");
    assert_eq!(r["function"], "main");
    assert_eq!(r["severity"], "error");
    let message = r["message"].as_str().unwrap();
    for part in ["`s` (sigmoid)", "from likely ANE to likely CPU", "fp32"] {
        assert!(message.contains(part), "{message}");
    }
    assert_eq!(r["line"], 8, "at the sigmoid's line");
    let share = &doc["baseline"]["placement"][0];
    assert_eq!(share["then"], serde_json::json!({"ane": 3, "ops": 3}));
    assert_eq!(
        share["now"]["ane"], 3,
        "relu, tanh and the cast back: {share}"
    );
    let (_, out, _) = check(zoo.path(), &["--baseline", "b.json", "Models/head.mil"]);
    assert!(
        out.contains("ANE share of `main` in Models/head.mil: 3/3 ops (100%) at the baseline, 3/5 ops (60%) now"),
        "{out}"
    );
    // A rule like any other: --ignore drops it, the config re-levels it.
    let (_, doc) = json(
        zoo.path(),
        &[
            "--baseline",
            "b.json",
            "--ignore",
            "placement-regression",
            "Models/head.mil",
        ],
    );
    assert!(rules_of(&doc)
        .iter()
        .all(|(_, r)| r != "placement-regression"));
    assert_eq!(
        doc["baseline"]["placement"],
        serde_json::json!([]),
        "no share without a finding"
    );
    // An app that leaves the Neural Engine out has no ANE placement to regress.
    for units in ["cpu-and-gpu", "cpu-only"] {
        let (_, doc) = json(
            zoo.path(),
            &[
                "--baseline",
                "b.json",
                "--compute-units",
                units,
                "Models/head.mil",
            ],
        );
        assert!(
            rules_of(&doc)
                .iter()
                .all(|(_, r)| r != "placement-regression"),
            "{units}: {doc}"
        );
    }
    std::fs::write(
        zoo.path().join("coreml-lint.yaml"),
        "baseline: b.json\nseverity:\n  placement-regression: warning\n",
    )
    .unwrap();
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(zoo.path())
        .args(["check", "--output-format", "json", "Models/head.mil"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{doc}");
    let levels: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "placement-regression")
        .map(|d| &d["severity"])
        .collect();
    assert_eq!(
        levels,
        [&Value::from("warning")],
        "the config's baseline and severity"
    );
    // The rule explains itself.
    let explained = Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["rule", "placement-regression"])
        .output()
        .unwrap();
    assert!(explained.status.success());
    assert!(String::from_utf8_lossy(&explained.stdout).contains("--baseline"));
}

#[test]
fn sarif_marks_every_result_with_its_baseline_state_and_a_start_line() {
    let zoo = zoo();
    write_baseline(zoo.path(), "b.json", &["Models"]);
    let models = zoo.path().join("Models");
    common::copy_tree(
        &common::corpus().join("packages/state-full-extent-write.mlpackage"),
        &models.join("decoder.mlpackage"),
    );
    std::fs::remove_dir_all(models.join("state.mlpackage")).unwrap();
    let (code, out, err) = check(
        zoo.path(),
        &["--baseline", "b.json", "--output-format", "sarif", "Models"],
    );
    assert_eq!(code, 1, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    if let Some(schema) = common::sarif_validator() {
        assert!(schema.is_valid(&doc));
    }
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let mut states = std::collections::BTreeSet::new();
    for r in results {
        let state = r["baselineState"].as_str().expect("baselineState");
        states.insert(state.to_string());
        let at = &r["locations"][0]["physicalLocation"];
        let uri = at["artifactLocation"]["uri"].as_str().unwrap();
        assert!(!uri.starts_with('/') && !uri.contains(':'), "{uri}");
        assert!(at["region"]["startLine"].as_i64().is_some(), "{r}");
        match state {
            "unchanged" => assert_eq!(r["suppressions"][0]["kind"], "external"),
            "absent" => assert_eq!(r["kind"], "pass"),
            _ => assert!(r.get("suppressions").is_none()),
        }
        if uri.ends_with("model.mlmodel") {
            assert_eq!(at["region"]["startLine"], 1);
            assert_eq!(at["region"]["byteOffset"], 0);
        }
    }
    let want: std::collections::BTreeSet<String> =
        ["absent", "new", "unchanged"].map(String::from).into();
    assert_eq!(states, want);
}

#[test]
fn the_baseline_path_is_relative_to_the_folder_it_is_given_from() {
    let zoo = zoo();
    std::fs::create_dir(zoo.path().join("ci")).unwrap();
    // Written from the zoo's parent into a subfolder: its models are `../Models/…`.
    let parent = zoo.path().parent().unwrap();
    let name = zoo
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let file = format!("{name}/ci/b.json");
    let models = format!("{name}/Models");
    let written = write_baseline(parent, &file, &[&models]);
    assert!(
        written["findings"][0]["model"]
            .as_str()
            .unwrap()
            .starts_with("../Models/"),
        "{written}"
    );
    // Read from the zoo itself, with paths as given there.
    let (code, doc) = json(zoo.path(), &["--baseline", "ci/b.json", "Models"]);
    assert_eq!(code, 0, "{doc}");
    assert_eq!(doc["baseline"]["new"], 0);
    // A model gone from the checked folder: its findings are fixed, keyed `../Models/…`.
    std::fs::remove_dir_all(zoo.path().join("Models/state.mlpackage")).unwrap();
    let (_, doc) = json(zoo.path(), &["--baseline", "ci/b.json", "Models"]);
    assert_eq!(
        doc["baseline"]["fixed_findings"][0]["model"], "../Models/state.mlpackage",
        "{doc}"
    );
}

#[test]
fn a_bad_baseline_exits_2_naming_the_file() {
    let zoo = zoo();
    let cases: [(&str, Option<&str>, &str); 4] = [
        ("missing.json", None, "cannot read the baseline"),
        ("text.json", Some("not json"), "is not JSON"),
        (
            "v9.json",
            Some("{\"version\": 9, \"findings\": []}"),
            "version 9",
        ),
        (
            "digest.json",
            Some("{\"version\": 1, \"findings\": [], \"placement\": [{\"model\": \"m.mil\", \"function\": \"main\", \"ane_ops\": 2, \"ane_digest\": \"AAAAAQ\"}]}"),
            "an `ane_digest` that is not 2 fingerprints",
        ),
    ];
    for (name, text, want) in cases {
        if let Some(t) = text {
            std::fs::write(zoo.path().join(name), t).unwrap();
        }
        let (code, out, err) = check(zoo.path(), &["--baseline", name, "Models"]);
        assert_eq!(code, 2, "{name}: {out}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, _, err) = check(
        zoo.path(),
        &[
            "--baseline",
            "a.json",
            "--write-baseline",
            "b.json",
            "Models",
        ],
    );
    assert_eq!(code, 2, "{err}");
}

#[test]
fn fix_with_a_baseline_fixes_every_finding_and_names_what_it_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let model = PathBuf::from("decoder.mlmodelc");
    common::copy_tree(
        &common::corpus().join("compiled/mlmodelc-state-full-extent-write.mlmodelc"),
        &dir.path().join(&model),
    );
    write_baseline(dir.path(), "b.json", &["decoder.mlmodelc"]);
    let (code, out, err) = check(
        dir.path(),
        &["--baseline", "b.json", "--fix", "decoder.mlmodelc"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("Fixed since the baseline") && out.contains("state-full-extent-write"),
        "{out}\n{err}"
    );
}

#[test]
fn graph_draws_every_finding_whatever_the_config_baseline() {
    let zoo = zoo();
    std::fs::write(
        zoo.path().join("coreml-lint.yaml"),
        "baseline: missing.json\n",
    )
    .unwrap();
    let (code, _, err) = check(zoo.path(), &["Models/head.mil"]);
    assert_eq!(code, 0, "--isolated ignores the config: {err}");
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(zoo.path())
        .args(["graph", "Models/head.mil", "--format", "dot"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let checked = Command::cargo_bin("coreml-lint")
        .unwrap()
        .current_dir(zoo.path())
        .args(["check", "Models/head.mil"])
        .output()
        .unwrap();
    assert_eq!(
        checked.status.code(),
        Some(2),
        "check reads the config's baseline"
    );
    assert!(String::from_utf8_lossy(&checked.stderr).contains("missing.json"));
}

/// A baseline written before the digest (every ANE op by name) still reads and still pins
/// placement: the sigmoid that moved to fp32 is a regression against it.
#[test]
fn a_baseline_listing_ane_ops_by_name_still_pins_placement() {
    let zoo = zoo();
    let mut file = write_baseline(zoo.path(), "b.json", &["Models/head.mil"]);
    let head = &mut file["placement"][0];
    assert_eq!(head["ane_ops"], 3);
    *head = serde_json::json!({
        "model": "Models/head.mil", "sub_model": null, "function": "main",
        "ane": ["a", "s", "t"], "cpu": [], "at_risk": [], "unknown": []
    });
    std::fs::write(zoo.path().join("old.json"), file.to_string()).unwrap();
    std::fs::write(
        zoo.path().join("Models/head.mil"),
        FP16.replace(
            "tensor<fp16, [1, 64]> s = sigmoid",
            "tensor<fp32, [1, 64]> s = sigmoid",
        ),
    )
    .unwrap();
    let (code, doc) = json(zoo.path(), &["--baseline", "old.json", "Models/head.mil"]);
    assert_eq!(code, 1, "{doc}");
    let rules: Vec<String> = rules_of(&doc).into_iter().map(|(_, r)| r).collect();
    assert!(rules.contains(&"placement-regression".to_string()), "{doc}");
}

/// A baseline written when a Core AI asset's LFS pointer was `coreai-lfs-pointer`'s (the id
/// `rules/redirects.yaml` now sends to `bundle-lfs-pointer`) still holds that finding.
#[test]
fn a_baseline_entry_under_an_old_rule_id_still_holds_its_finding() {
    let zoo = zoo();
    common::copy_tree(
        &common::corpus().join("coreai/lfs-pointer.aimodel"),
        &zoo.path().join("Models/lfs.aimodel"),
    );
    let mut file = write_baseline(zoo.path(), "b.json", &["Models/lfs.aimodel"]);
    let entries = file["findings"].as_array_mut().unwrap();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["rule"], "bundle-lfs-pointer");
    entries[0]["rule"] = "coreai-lfs-pointer".into();
    std::fs::write(zoo.path().join("old.json"), file.to_string()).unwrap();
    let (code, doc) = json(
        zoo.path(),
        &["--baseline", "old.json", "Models/lfs.aimodel"],
    );
    assert_eq!(code, 0, "{doc}");
    assert!(rules_of(&doc).is_empty(), "{doc}");
    assert_eq!(doc["baseline"]["fixed"], 0, "{doc}");
    assert_eq!(doc["baseline"]["new"], 0, "{doc}");
}

/// The baseline of the real-world zoo (27 models, 84 findings) stays reviewable: at most
/// 150 KB (411 KB when every op was listed by name), and it still pins every op's placement.
#[test]
fn the_realworld_baseline_is_small_and_pins_placement() {
    let Some(shared) = common::shared() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.json");
    let (code, out, err) = check(
        dir.path(),
        &[
            "--write-baseline",
            file.to_str().unwrap(),
            shared.join("realworld").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    let size = std::fs::metadata(&file).unwrap().len();
    assert!(size <= 150_000, "{size} bytes");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let placed: u64 = doc["placement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let listed = ["cpu", "at_risk", "unknown"]
                .iter()
                .map(|k| p[k].as_array().unwrap().len() as u64)
                .sum::<u64>();
            let ane = p["ane_ops"].as_u64().unwrap();
            let prints = coreml_lint::baseline::ane_digest::decode(
                p["ane_digest"].as_str().unwrap_or_default(),
            )
            .unwrap();
            assert_eq!(prints.len() as u64, ane, "{}", p["model"]);
            listed + ane
        })
        .sum();
    assert!(placed > 5_000, "every counted op is recorded: {placed}");
}
