//! Every built-in rule loads and passes its own `tests:` block.

use coreml_lint::rules::{run_rule_tests_with, CaseStatus, RuleSet};

#[test]
fn builtin_rules_pass_their_tests() {
    let rules = match RuleSet::builtin() {
        Ok(r) => r,
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    };
    assert!(!rules.rules().is_empty());
    // `fact:` rules are tested with the facts their producers compute, as `test-rules` does.
    let report = run_rule_tests_with(&rules, &coreml_lint::lint::model_facts);
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
    // `fact:` rules are tested with the facts their producer computes (see their own tests).
    for rule in rules.rules().iter().filter(|r| !r.is_fact_rule()) {
        assert!(
            report
                .cases
                .iter()
                .any(|c| c.rule == rule.id && c.status == CaseStatus::Reported),
            "{} has no passing invalid case",
            rule.id
        );
    }
}
