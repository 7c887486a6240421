//! The built-in rules of issue 3 on the hazard corpus: every expected finding of these rules appears
//! exactly once, and nothing else of theirs fires. Packages are checked once the protobuf reader
//! reads them; the text-MIL `.mlmodelc` fixtures must read now.

mod common;

use std::collections::BTreeSet;

use coreml_lint::discover::discover;
use coreml_lint::read::{read_model, ReadOutcome};
use coreml_lint::rules::{check_model, RuleSet};

const RULES: &[&str] = &[
    "state-full-extent-write",
    "state-blend-rmw",
    "state-multiple-writes",
    "state-dynamic-begin",
    "gather-float-indices",
    "fp16-integer-precision",
];

type Key = (String, Option<String>, Option<String>, Option<String>);

#[test]
fn corpus_findings_of_the_state_and_gather_rules() {
    let mut rules = RuleSet::builtin().expect("built-ins load");
    rules.retain(|r| RULES.contains(&r.id.as_str()));
    assert_eq!(rules.rules().len(), RULES.len());
    let corpus = common::corpus();
    let mut expected_files: Vec<_> = std::fs::read_dir(corpus.join("expected"))
        .expect("corpus/expected exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    expected_files.sort();
    let (mut checked, mut unreadable) = (0, Vec::new());
    let mut mismatches = Vec::new();
    for file in expected_files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        let rel = v["path"].as_str().expect("path");
        let path = corpus.join(rel);
        let s = |x: &serde_json::Value| x.as_str().map(str::to_string);
        let want: BTreeSet<Key> = v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| RULES.contains(&f["rule"].as_str().unwrap_or("")))
            .map(|f| {
                (
                    s(&f["rule"]).unwrap_or_default(),
                    s(&f["function"]),
                    s(&f["op"]),
                    s(&f["state"]),
                )
            })
            .collect();
        let d = match discover(std::slice::from_ref(&path)).into_iter().next() {
            Some(Ok(d)) => d,
            other => panic!("{rel}: not discovered: {other:?}"),
        };
        let model = match read_model(&d) {
            Ok(ReadOutcome::Model(m)) => m,
            Ok(ReadOutcome::NotMlProgram { what, .. }) => panic!("{rel}: {what}"),
            Err(e) => {
                assert!(
                    v["kind"] != "mlmodelc",
                    "{rel}: compiled fixtures must read: {e}"
                );
                unreadable.push(rel.to_string());
                continue;
            }
        };
        checked += 1;
        let findings = check_model(&model, &rules, &[]);
        let got: Vec<Key> = findings
            .iter()
            .map(|f| {
                (
                    f.rule.clone(),
                    f.function.clone(),
                    f.op.clone(),
                    f.state.clone(),
                )
            })
            .collect();
        let got_set: BTreeSet<Key> = got.iter().cloned().collect();
        if got_set != want || got.len() != got_set.len() {
            mismatches.push(format!("{rel}:\n  want {want:?}\n  got  {got:?}"));
        }
    }
    println!("checked {checked} models; not readable yet: {unreadable:?}");
    assert!(checked >= 5, "the compiled fixtures at least");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
