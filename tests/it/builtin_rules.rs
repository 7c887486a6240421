//! Every built-in rule loads and passes its own `tests:` block.

use coreml_lint::lint::model_entities;
use coreml_lint::rules::{run_rule_tests_with, CaseStatus, RuleSet};

/// `fact:` rules with no case a rule test can run: the blob size rules need a weight file over
/// 2 GiB (a sparse file in `src/analysis/blobs.rs` tests them); `placement-regression`'s facts
/// come from comparing a run with a baseline file (`tests/it/baseline.rs` tests it).
const FACT_RULES_WITHOUT_CASES: &[&str] = &[
    "blob-file-too-large",
    "blob-weights-too-large",
    "placement-regression",
];

#[test]
fn builtin_rules_pass_their_tests() {
    let rules = match RuleSet::builtin() {
        Ok(r) => r,
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    };
    assert!(!rules.rules().is_empty());
    let report = run_rule_tests_with(&rules, &model_entities);
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

/// The most characters a rendered help may have: a sentence or two that says what to change; the
/// evidence belongs in `why` / `description` (`coreml-lint rule ID`).
const MAX_HELP_CHARS: usize = 300;

#[test]
fn every_help_is_a_sentence_or_two() {
    use coreml_lint::check::{check, CheckOptions, ConfigFile};
    let rules = RuleSet::builtin().expect("rules");
    let mut long = Vec::new();
    for rule in rules.rules() {
        let help = rule.help_text.as_deref().unwrap_or_default();
        if help.chars().count() > MAX_HELP_CHARS {
            long.push(format!(
                "{} (template, {} chars)",
                rule.id,
                help.chars().count()
            ));
        }
    }
    let mut paths = vec![crate::common::corpus()];
    paths.extend(crate::common::shared().map(|s| s.join("realworld")));
    let options = CheckOptions {
        config: ConfigFile::Isolated,
        ..CheckOptions::default()
    };
    let outcome = check(&paths, &options).expect("check runs");
    let mut rendered = 0;
    for f in outcome.run.findings() {
        let help = f.help.as_deref().unwrap_or_default();
        rendered += usize::from(!help.is_empty());
        if help.chars().count() > MAX_HELP_CHARS {
            long.push(format!(
                "{} at {} ({} chars): {help}",
                f.rule,
                f.path.display(),
                help.chars().count()
            ));
        }
    }
    assert!(
        rendered > 50,
        "the corpus gives findings with help: {rendered}"
    );
    assert!(
        long.is_empty(),
        "helps over {MAX_HELP_CHARS} characters:\n{}",
        long.join("\n")
    );
}
