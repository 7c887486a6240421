//! The one oracle of the built-in rules' `tests:` cases. Each case runs once (through the `expect:`
//! runner `coreml-lint test-rules` uses); its snapshot line says how it met its list's expectation
//! (`validated`, `reported`, or `missing` / `noisy` / `error` with why), followed by the rendered
//! findings (severity, location, message, help, fix title and applicability, labels), so that a
//! change of wording or of a fix plan shows up in review. The test fails when a case fails or a
//! snapshot changed. Update with `INSTA_UPDATE=always cargo test --test it rule_snapshots` (or
//! `cargo insta review`), then read the diff.

use crate::common;

use std::fmt::Write as _;
use std::path::Path;

use coreml_lint::finding::Finding;
use coreml_lint::lint::model_entities;
use coreml_lint::rules::schema::{SerCase, SerExpect};
use coreml_lint::rules::{run_rule_cases_with, CaseKind, CaseRun, CaseStatus, Rule, RuleSet};

/// Rules with no case a rule test can run: the blob size rules need a weight file over 2 GiB (a
/// sparse file in `src/analysis/blobs.rs` tests them); `placement-regression`'s entities come from
/// comparing a run with a baseline file (`tests/it/baseline.rs` tests it); the `nms-*` rules'
/// entities exist only in a pipeline, which a rule case cannot give (`tests/it/catalog4_io.rs`
/// and the corpus records test them).
const RULES_WITHOUT_CASES: &[&str] = &[
    "blob-file-too-large",
    "blob-weights-too-large",
    "nms-class-count",
    "nms-stage-inputs",
    "placement-regression",
];

/// Line and column (1-based) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, str::len) + 1;
    (line, col)
}

fn render(text: &str, findings: &[Finding], out: &mut String) {
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

/// One `expect:` entry as `function=… op=… state=…`, with only the fields it gives.
fn expected(e: &SerExpect) -> String {
    let fields = [
        ("function", &e.function),
        ("op", &e.op),
        ("state", &e.state),
    ];
    let given: Vec<String> = fields
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={v}")))
        .collect();
    if given.is_empty() {
        "any".to_string()
    } else {
        given.join(" ")
    }
}

/// The case's status line: how it met its expectation, then why when it did not.
fn status_line(run: &CaseRun, case: &SerCase, out: &mut String) {
    let r = &run.result;
    let list = match r.kind {
        CaseKind::Valid => "valid",
        CaseKind::Invalid => "invalid",
    };
    let note = r
        .note
        .as_deref()
        .map_or(String::new(), |n| format!(" ({n})"));
    let _ = write!(out, "{list}[{}]{note}: {}", r.index, r.status);
    if r.status != CaseStatus::Error && !(r.kind == CaseKind::Valid && run.findings.is_empty()) {
        let _ = write!(out, " — {} finding(s)", run.findings.len());
    }
    if r.kind == CaseKind::Invalid && r.status != CaseStatus::Error {
        let wanted: Vec<String> = case.expect.iter().map(expected).collect();
        if !wanted.is_empty() {
            let mark = if r.status.passed() { "✓" } else { "✗" };
            let _ = write!(out, ", expected {} {mark}", wanted.join("; "));
        }
    }
    let _ = writeln!(out);
    if !r.status.passed() {
        let _ = writeln!(out, "  ✗ {}", r.detail);
    }
}

fn case_of(rule: &Rule, run: &CaseRun) -> SerCase {
    let list = match run.result.kind {
        CaseKind::Valid => &rule.tests().valid,
        CaseKind::Invalid => &rule.tests().invalid,
    };
    list[run.result.index].clone()
}

#[test]
fn every_rule_passes_its_cases_as_snapshotted() {
    let rules = RuleSet::builtin().expect("built-in rules load");
    assert!(!rules.rules().is_empty());
    let mut snapshots = Vec::new();
    let mut failures = Vec::new();
    let mut untested = Vec::new();
    for rule in rules.rules() {
        let mut out = String::new();
        let mut reported = false;
        for run in run_rule_cases_with(rule, &model_entities) {
            let case = case_of(rule, &run);
            status_line(&run, &case, &mut out);
            if let Some(model) = &run.model {
                render(&model.source.text, &run.findings, &mut out);
            }
            let r = &run.result;
            reported |= r.status == CaseStatus::Reported;
            if !r.status.passed() {
                failures.push(format!(
                    "{} {:?}[{}] {}: {}",
                    r.rule, r.kind, r.index, r.status, r.detail
                ));
            }
        }
        if !reported {
            untested.push(rule.id.as_str());
        }
        if !out.is_empty() {
            // Fixtures given by path show up in messages: keep the snapshot independent of the checkout.
            let out = out.replace(&common::repo().display().to_string(), "<repo>");
            snapshots.push((rule.id.clone(), out));
        }
    }
    assert!(
        failures.is_empty(),
        "failing rule tests:\n{}",
        failures.join("\n")
    );
    assert_eq!(
        untested, RULES_WITHOUT_CASES,
        "rules with no passing invalid case"
    );
    assert!(
        snapshots.len() >= 20,
        "only {} rules have cases",
        snapshots.len()
    );
    for (id, out) in snapshots {
        insta::with_settings!({ snapshot_path => Path::new("snapshots/rules"), prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(id, out);
        });
    }
}

/// A rule whose cases are swapped: its valid snippet has the lstm, its invalid one does not.
const SWAPPED_RULE: &str = r#"id: no-lstm
title: No LSTM
severity: warning
match: { op: lstm }
message: "`{OP}` is an lstm"
tests:
  valid:
    - mil: |
        program(1.3)
        {
            func main<ios18>(tensor<fp16, [1, 4]> x) {
                    tensor<fp16, [1, 4]> y = lstm(x = x)[name = string("l")];
                } -> (y);
        }
  invalid:
    - note: no lstm here
      mil: |
        program(1.3)
        {
            func main<ios18>(tensor<fp16, [1, 4]> x) {
                    tensor<fp16, [1, 4]> y = relu(x = x)[name = string("y")];
                } -> (y);
        }
      expect: [{ op: l }]
    - mil: |
        progrm(1.3)
"#;

#[test]
fn failing_cases_say_why_in_their_status_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("no-lstm.yaml"), SWAPPED_RULE).expect("writable");
    let rules = RuleSet::load_dirs_only(&[dir.path().to_path_buf()]).expect("loads");
    let rule = rules.get("no-lstm").expect("the rule");
    let mut out = String::new();
    for run in run_rule_cases_with(rule, &model_entities) {
        status_line(&run, &case_of(rule, &run), &mut out);
    }
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(lines[0], "valid[0]: noisy — 1 finding(s)");
    assert!(
        lines[1].starts_with("  ✗ fired: {function: main, op: l"),
        "{out}"
    );
    assert_eq!(
        lines[2],
        "invalid[0] (no lstm here): missing — 0 finding(s), expected op=l ✗"
    );
    assert_eq!(lines[3], "  ✗ no finding");
    assert_eq!(lines[4], "invalid[1]: error");
    assert!(lines[5].starts_with("  ✗ snippet does not parse"), "{out}");
}
