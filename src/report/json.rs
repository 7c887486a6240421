//! `--output-format json`: one JSON document on stdout.

use serde_json::{json, Value};

use super::location::place;
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::Finding;
use crate::ir::Model;
use crate::rules::DeployTarget;

/// How many covered op names a diagnostic lists (the count is always complete).
const COVERED_NAMES: usize = 10;

/// One element of `diagnostics`: the one definition of a diagnostic's fields, which the Python
/// API's `Diagnostic` exposes as its attributes and returns from `to_dict()`.
///
/// `file` is the file the finding is in (`model.mil`, or a package's binary `model.mlmodel`);
/// `line`/`column` (1-based, the column in bytes) are in that file and only for text;
/// `dump_line`/`dump_column` are in the program `coreml-lint dump PATH` prints, for a protobuf
/// program (`null` when the run did not render it).
pub fn finding(model: &Model, f: &Finding) -> Value {
    let place = place(model, f);
    json!({
        "rule": f.rule,
        "severity": f.severity,
        "path": f.path.display().to_string(),
        "file": place.file.display().to_string(),
        "line": place.text.map(|(line, _)| line),
        "column": place.text.map(|(_, column)| column),
        "dump_line": place.dump.map(|(line, _)| line),
        "dump_column": place.dump.map(|(_, column)| column),
        "sub_model": f.sub_model.as_ref().map(|s| json!({"position": s.position, "name": s.name})),
        "function": f.function,
        "op": f.op,
        "state": f.state,
        "message": f.message,
        "help": f.help,
        "fix": f.fix.as_ref().map(|x| {
            let mut fix = json!({"kind": x.kind, "title": x.title, "applicability": x.applicability});
            if let Some(r) = x.plan.as_ref().and_then(|p| p.rewrite.as_ref()) {
                fix["plan"] = json!({"function": r.function, "op": r.op, "rewrite": r.what});
            } else if let Some(p) = &x.plan {
                fix["plan"] = json!({
                    "state": p.state,
                    "axis": p.axis,
                    "shape": p.old_shape,
                    "fixed_shape": p.new_shape,
                    "removed_wrappers": p.unwrapped,
                });
            }
            fix
        }),
        "covered": f.covered.as_ref().map(|c| json!({"count": c.count(), "ops": c.names.iter().take(COVERED_NAMES).collect::<Vec<_>>()})),
    })
}

/// The run's deployment target: the tokens given, the minimum OS and the chip families.
pub fn target(t: &DeployTarget) -> Value {
    json!({
        "given": t.text(),
        "min_os": t.os.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "families": t.families.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

/// Renders the whole run as `{"version": 1, "target": …, "compute_units": "all", "diagnostics": [...], "errors": [...], "summary": {...}}`,
/// and `"baseline": {...}` when the run compared with or wrote a baseline (`report::baseline::json`).
pub fn render(run: &CheckRun) -> String {
    to_text(&document(run))
}

/// The document as pretty JSON with a final newline.
pub fn to_text(doc: &Value) -> String {
    let mut out = serde_json::to_string_pretty(doc).unwrap_or_default();
    out.push('\n');
    out
}

/// The whole run as one JSON value (`render` prints it; `--placement` adds a `placement` member).
pub fn document(run: &CheckRun) -> Value {
    let diagnostics: Vec<Value> = run
        .findings_with_models()
        .map(|(model, f)| finding(model, f))
        .collect();
    let errors: Vec<Value> = run
        .models
        .iter()
        .filter_map(|m| match &m.outcome {
            ModelOutcome::Failed(e) => {
                let at = e.position();
                Some(json!({
                    "path": m.path.display().to_string(),
                    "file": e.path().display().to_string(),
                    "line": at.map(|(line, _)| line),
                    "column": at.map(|(_, column)| column),
                    "message": e.to_string(),
                }))
            }
            _ => None,
        })
        .collect();
    let skipped: Vec<Value> = run
        .models
        .iter()
        .filter_map(|m| match &m.outcome {
            ModelOutcome::Skipped(why) => {
                Some(json!({"path": m.path.display().to_string(), "reason": why.to_string()}))
            }
            _ => None,
        })
        .collect();
    let s = run.summary();
    let mut doc = json!({
        "version": 1,
        "target": run.target.as_ref().map(target),
        "compute_units": run.compute_units.token(),
        "diagnostics": diagnostics,
        "errors": errors,
        "skipped": skipped,
        "summary": {
            "models_checked": s.checked,
            "models_skipped": s.skipped,
            "models_failed": s.failed,
            "errors": s.errors,
            "warnings": s.warnings,
            "infos": s.infos,
        },
    });
    // Only a run with a baseline has the member: the document of every other run is unchanged.
    if run.baseline.is_some() {
        doc["baseline"] = super::baseline::json(run);
    }
    doc
}
