//! Snapshots of every built-in rule's rendered output (severity, location, message, help, fix
//! title and applicability, labels) on its own `tests:` cases, so that a change of wording or of
//! a fix plan shows up in review. Update with `INSTA_UPDATE=always cargo test --test it rule_snapshots`
//! (or `cargo insta review`), then read the diff.

use crate::common;

use std::fmt::Write as _;
use std::path::Path;

use coreml_lint::finding::Finding;
use coreml_lint::ir::Model;
use coreml_lint::lint::model_entities;
use coreml_lint::rules::schema::SerCase;
use coreml_lint::rules::testing::snippet_model;
use coreml_lint::rules::{match_model_for, Rule, RuleSet};

fn case_model(rule: &Rule, case: &SerCase, name: &str) -> Model {
    match (&case.mil, &case.model) {
        (Some(mil), _) => snippet_model(name, mil).expect("snippet parses"),
        (None, Some(rel)) => common::read(&common::repo().join("rules").join(rel)),
        (None, None) => panic!("{}: a case without a model", rule.id),
    }
}

/// Line and column (1-based) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, str::len) + 1;
    (line, col)
}

fn render(model: &Model, findings: &[Finding], out: &mut String) {
    let text = &model.source.text;
    for f in findings {
        let at = f.span.map(|s| line_col(text, s.start));
        let _ = writeln!(
            out,
            "  {}[{}] function={} op={} state={} at={}",
            f.severity,
            f.rule,
            f.function.as_deref().unwrap_or("-"),
            f.op.as_deref().unwrap_or("-"),
            f.state.as_deref().unwrap_or("-"),
            at.map_or("-".to_string(), |(l, c)| format!("{l}:{c}"))
        );
        let _ = writeln!(out, "    message: {}", f.message);
        if let Some(h) = &f.help {
            let _ = writeln!(out, "    help: {}", h.trim_end());
        }
        if let Some(fix) = &f.fix {
            let _ = writeln!(
                out,
                "    fix: {} ({:?}): {}",
                fix.kind, fix.applicability, fix.title
            );
        }
        for l in &f.labels {
            let (line, col) = line_col(text, l.span.start);
            let _ = writeln!(out, "    label {line}:{col}: {}", l.text);
        }
    }
}

#[test]
fn every_rule_renders_its_cases_as_snapshotted() {
    let rules = RuleSet::builtin().expect("built-in rules load");
    let mut covered = 0;
    for rule in rules.rules() {
        let single = RuleSet::from_rules(vec![rule.clone()]).expect("one rule");
        let mut out = String::new();
        for (list, cases) in [
            ("valid", &rule.tests().valid),
            ("invalid", &rule.tests().invalid),
        ] {
            for (i, case) in cases.iter().enumerate() {
                let name = format!("rules/{}.yaml#{list}[{i}]", rule.id);
                let model = case_model(rule, case, &name);
                let target = case.target.as_deref().map(|t| {
                    coreml_lint::rules::DeployTarget::parse(&[t]).expect("a known target")
                });
                let units = case
                    .compute_units
                    .as_deref()
                    .map_or_else(Default::default, |u| {
                        coreml_lint::rules::ComputeUnits::parse(u).expect("known compute units")
                    });
                let target = coreml_lint::rules::DeployTarget::with_units(target, units);
                let findings =
                    match_model_for(&model, &single, &model_entities(&model), target.as_ref());
                let _ = writeln!(
                    out,
                    "{list}[{i}]{}: {} finding(s)",
                    case.note
                        .as_deref()
                        .map_or(String::new(), |n| format!(" ({n})")),
                    findings.len()
                );
                render(&model, &findings, &mut out);
            }
        }
        if out.is_empty() {
            continue;
        }
        covered += 1;
        // Fixtures given by path show up in messages: keep the snapshot independent of the checkout.
        let out = out.replace(&common::repo().display().to_string(), "<repo>");
        insta::with_settings!({ snapshot_path => Path::new("snapshots/rules"), prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(rule.id.clone(), out);
        });
    }
    assert!(covered >= 20, "only {covered} rules have cases");
}
