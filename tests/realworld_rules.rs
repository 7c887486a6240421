//! False-positive check: the node rules of issue 3 on the real-world models in `../shared/realworld`
//! (none has a state; none gathers with float indices).

mod common;

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

#[test]
fn realworld_models_give_no_findings_of_the_state_and_gather_rules() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let mut rules = RuleSet::builtin().expect("built-ins load");
    rules.retain(|r| RULES.contains(&r.id.as_str()));
    let mut checked = 0;
    let mut findings = Vec::new();
    for d in discover(&[shared.join("realworld")]).into_iter().flatten() {
        let Ok(ReadOutcome::Model(model)) = read_model(&d) else {
            continue;
        };
        checked += 1;
        findings.extend(check_model(&model, &rules, &[]));
    }
    println!("checked {checked} real-world models");
    assert!(checked > 0);
    assert!(findings.is_empty(), "{findings:#?}");
}
