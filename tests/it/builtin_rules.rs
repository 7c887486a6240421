//! Every built-in rule loads and passes its own `tests:` block.

use coreml_lint::lint::model_facts;
use coreml_lint::rules::{run_rule_tests_with, CaseStatus, RuleSet};

/// `fact:` rules whose facts need a weight file over 2 GiB: no committed fixture (a sparse file
/// in `src/analysis/blobs.rs` tests them).
const FACT_RULES_WITHOUT_CASES: &[&str] = &["blob-file-too-large", "blob-weights-too-large"];

#[test]
fn builtin_rules_pass_their_tests() {
    let rules = match RuleSet::builtin() {
        Ok(r) => r,
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    };
    assert!(!rules.rules().is_empty());
    let report = run_rule_tests_with(&rules, &model_facts);
    println!("{report}");
    let failures: Vec<String> = report
        .failures()
        .map(|c| {
            format!(
                "{} {:?}[{}] {}: {}",
                c.rule, c.kind, c.index, c.status, c.detail
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "failing rule tests:\n{}",
        failures.join("\n")
    );
    let mut untested = Vec::new();
    for rule in rules.rules() {
        let reported = report
            .cases
            .iter()
            .any(|c| c.rule == rule.id && c.status == CaseStatus::Reported);
        if !reported {
            untested.push(rule.id.as_str());
        }
    }
    assert_eq!(
        untested, FACT_RULES_WITHOUT_CASES,
        "rules with no passing invalid case"
    );
}
