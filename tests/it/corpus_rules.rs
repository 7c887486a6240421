//! Every built-in rule on the hazard corpus, with the model-level facts (`lint::model_entities`): every
//! expected finding appears exactly once, and nothing else fires. Every model must read.

use crate::common;

use std::collections::BTreeSet;

use coreml_lint::discover::discover;
use coreml_lint::lint::model_entities;
use coreml_lint::read::read_model;
use coreml_lint::rules::{match_model_for, DeployTarget, RuleSet};

type Key = (
    String,
    Option<Vec<usize>>,
    Option<String>,
    Option<String>,
    Option<String>,
);

#[test]
fn corpus_findings_of_every_builtin_rule() {
    let rules = RuleSet::builtin().expect("built-ins load");
    let ids: BTreeSet<String> = rules.rules().iter().map(|r| r.id.clone()).collect();
    let mut fired: BTreeSet<String> = BTreeSet::new();
    let corpus = common::corpus();
    let (mut checked, mut unreadable) = (0, Vec::new());
    let mut mismatches = Vec::new();
    for (_, v) in common::expected_records() {
        let rel = v["path"].as_str().expect("path");
        let path = corpus.join(rel);
        let s = |x: &serde_json::Value| x.as_str().map(str::to_string);
        let want: BTreeSet<Key> = v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                (
                    s(&f["rule"]).unwrap_or_default(),
                    serde_json::from_value(f["sub_model"].clone()).expect("sub_model"),
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
        let models = match read_model(&d) {
            Ok(outcome) => outcome.into_programs(),
            Err(e) => {
                unreadable.push(format!("{rel}: {e}"));
                continue;
            }
        };
        assert!(!models.is_empty(), "{rel}: no ML program");
        checked += 1;
        for w in &want {
            assert!(ids.contains(&w.0), "{rel}: expects unknown rule {}", w.0);
            fired.insert(w.0.clone());
        }
        // A record may name the deployment target its findings are for (`--target` tokens).
        let target = v["target"]
            .as_str()
            .map(|t| DeployTarget::parse(&[t]).unwrap_or_else(|e| panic!("{rel}: {e}")));
        let got: Vec<Key> = models
            .iter()
            .flat_map(|model| {
                match_model_for(model, &rules, &model_entities(model), target.as_ref())
            })
            .map(|f| {
                (
                    f.rule.clone(),
                    f.sub_model.map(|s| s.position),
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
    println!("checked {checked} models");
    assert!(unreadable.is_empty(), "{unreadable:#?}");
    assert!(checked >= 48, "every corpus model");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // Every rule has a corpus model that triggers it, except these: fact rules about broken weight
    // files (covered by the fixtures of src/analysis/blobs.rs), io-last-axis-alignment (info),
    // which no converter-made corpus model shows, the `mil-*` op-set rules, which no valid
    // program may trigger (their own tests and tests/it/opset_rules.rs cover them), and
    // `placement-regression`, which only a comparison with a baseline reports (tests/it/baseline.rs).
    let uncovered: Vec<&str> = ids
        .iter()
        .filter(|id| !fired.contains(*id))
        .map(String::as_str)
        .collect();
    let mut allowed: Vec<&str> = ids
        .iter()
        .map(String::as_str)
        .filter(|id| {
            id.starts_with("blob-")
                || id.starts_with("mil-")
                || *id == "io-last-axis-alignment"
                || *id == "placement-regression"
        })
        .collect();
    allowed.retain(|id| uncovered.contains(id));
    assert_eq!(uncovered, allowed, "rules no corpus model triggers");
}
