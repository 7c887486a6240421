//! The MIL op-set check (`rules/opset/`, `rules/mil-*.yaml`): no `mil-*` finding on any corpus model
//! (written by coremltools) or real-world model (written by Apple's compiler and coremltools), every
//! rule's valid twin clean of every `mil-*` finding, and each invalid snippet reported by its own
//! rule only, on the op's line, from the command line.

use crate::common;

use std::collections::BTreeSet;
use std::process::Command;

use coreml_lint::analysis::opset::ENTITY_KINDS;
use coreml_lint::finding::Finding;
use coreml_lint::ir::Model;
use coreml_lint::lint::model_entities;
use coreml_lint::rules::testing::snippet_model;
use coreml_lint::rules::{match_model, RuleSet};

/// The built-in `mil-*` rules.
fn mil_rules() -> RuleSet {
    let mut rules = RuleSet::builtin().expect("built-ins load");
    rules.retain(|r| r.id.starts_with("mil-"));
    rules
}

/// The findings of the `mil-*` rules in `m`.
fn mil_findings(m: &Model, rules: &RuleSet) -> Vec<Finding> {
    match_model(m, rules, &model_entities(m))
}

/// (models read, ops in them) after asserting that none has an op-set finding.
fn assert_no_opset_facts(root: &std::path::Path) -> (usize, usize) {
    let rules = mil_rules();
    let mut models = 0;
    let mut ops = 0;
    let mut bad = Vec::new();
    for m in common::once::models_under(root) {
        models += 1;
        ops += m
            .program
            .functions
            .iter()
            .map(|f| f.op_count())
            .sum::<usize>();
        for x in mil_findings(m, &rules) {
            // A function at an opset newer than the table (the iOS26 corpus packages) is only
            // noted as not checked.
            if x.rule == "mil-opset-not-checked" && is_ios26_fixture(&m.path) {
                continue;
            }
            bad.push(format!(
                "{}: {} at {:?}: {}",
                m.path.display(),
                x.rule,
                x.op,
                x.message
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "op-set facts on real programs:\n{}",
        bad.join("\n")
    );
    (models, ops)
}

/// The corpus packages converted for an iOS26 target (`corpus/generate_field_quant.py`).
fn is_ios26_fixture(path: &std::path::Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("lut-scale-wrapper-ios26"))
}

#[test]
fn corpus_models_have_no_opset_findings() {
    let (models, ops) = assert_no_opset_facts(&common::corpus());
    assert!(models >= 50, "only {models} corpus models read");
    assert!(ops > 1000, "only {ops} ops checked");
}

#[test]
fn realworld_models_have_no_opset_findings() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let (models, ops) = assert_no_opset_facts(&shared.join("realworld"));
    assert!(models >= 20, "only {models} real-world models read");
    assert!(ops > 10_000, "only {ops} ops checked");
}

/// Each `mil-*` rule's valid snippets give no `mil-*` finding of any rule; each invalid one gives
/// findings of its own rule only. Every `mil-*` rule selects an op-set entity.
#[test]
fn mil_rule_snippets_are_clean_twins() {
    let rules = mil_rules();
    let kinds: BTreeSet<&str> = ENTITY_KINDS.iter().map(|k| k.name).collect();
    assert_eq!(rules.rules().len(), 13);
    for rule in rules.rules() {
        let text = &rule.source.text;
        let kind = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("kind: "))
            .unwrap_or_else(|| panic!("{}: no `kind:`", rule.id));
        assert!(kinds.contains(kind), "{}: kind {kind}", rule.id);
    }
    for rule in rules.rules() {
        assert!(!rule.tests().valid.is_empty() && !rule.tests().invalid.is_empty());
        for case in &rule.tests().valid {
            let m = snippet_model("valid.mil", case.mil.as_deref().expect("a text case"))
                .expect("parses");
            let kinds: Vec<String> = mil_findings(&m, &rules)
                .into_iter()
                .map(|x| x.rule)
                .collect();
            assert!(
                kinds.is_empty(),
                "{} valid {:?}: {kinds:?}",
                rule.id,
                case.note
            );
        }
        for case in &rule.tests().invalid {
            let m = snippet_model("invalid.mil", case.mil.as_deref().expect("a text case"))
                .expect("parses");
            let kinds: BTreeSet<String> = mil_findings(&m, &rules)
                .into_iter()
                .map(|x| x.rule)
                .collect();
            assert_eq!(
                kinds,
                BTreeSet::from([rule.id.clone()]),
                "{} invalid {:?}",
                rule.id,
                case.note
            );
        }
    }
}

#[test]
fn cli_reports_each_defect_on_its_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("hand.mil");
    let text = "program(1.3)
{
    func main<ios17>(tensor<fp16, [1, 8]> a, tensor<fp16, [2, 4]> b, tensor<fp16, [1, 2]> p) {
            tensor<fp16, [1, 8]> r = relu6x(x = a)[name = string(\"r\")];
            tensor<fp16, [1, 4]> s = add(x = a, y = a)[name = string(\"s\")];
            tensor<fp16, [2, 4]> u = slice_update(begin = tensor<int32, [2]>([0, 0]), end = tensor<int32, [2]>([1, 2]), update = p, x = b)[name = string(\"u\")];
            tensor<fp16, [2, 4]> v = identity(x = b, y = b)[name = string(\"v\")];
        } -> (r, s, u, v);
}
";
    std::fs::write(&path, text).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_coreml-lint"))
        .args(["check", "--select", "mil", "--output-format", "concise"])
        .arg(&path)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for (line, rule) in [
        (4, "mil-unknown-op"),
        (5, "mil-output-type"),
        (6, "mil-op-too-new"),
        (7, "mil-unknown-param"),
    ] {
        assert!(
            stdout.contains(&format!("hand.mil:{line}:13")) && stdout.contains(rule),
            "{rule} on line {line}:\n{stdout}"
        );
    }
    assert!(stdout.contains("did you mean `relu6`?"), "{stdout}");
    assert_eq!(stdout.matches(": error: ").count(), 4, "{stdout}");
    assert_eq!(stdout.matches("[mil-").count(), 4, "{stdout}");
}
