//! What the baseline did, as the human report's last lines (and stderr for the other text
//! formats) and the JSON document's `baseline` member.

use std::fmt::Write;

use serde_json::{json, Value};

use crate::baseline::{BaselineOutcome, Entry};
use crate::check::CheckRun;

/// How many fixed keys the summary names before "… and N more".
const FIXED_NAMED: usize = 10;

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// `fp32-compute in Models/A.mlpackage [main/h]`, and `(2)` when the key counts several.
fn entry_text(e: &Entry) -> String {
    let mut at = String::new();
    if let Some(sub) = &e.sub_model {
        let _ = write!(at, "sub-model {sub}");
    }
    if let Some(func) = &e.function {
        if !at.is_empty() {
            at.push_str(": ");
        }
        at.push_str(func);
        if let Some(op) = &e.op {
            let _ = write!(at, "/{op}");
        }
    }
    if let Some(state) = &e.state {
        let _ = write!(at, "{}state {state}", if at.is_empty() { "" } else { ", " });
    }
    let scope = if at.is_empty() {
        String::new()
    } else {
        format!(" [{at}]")
    };
    let count = if e.count > 1 {
        format!(" ({})", e.count)
    } else {
        String::new()
    };
    format!("{} in {}{scope}{count}", e.rule, e.model)
}

/// The baseline's lines of the summary (nothing without a baseline), names shown escaped.
pub fn summary(run: &CheckRun) -> String {
    let mut out = String::new();
    match &run.baseline {
        None => {}
        Some(BaselineOutcome::Written(w)) => {
            let _ = writeln!(
                out,
                "Wrote the baseline {}: {}, the placement of {}",
                w.file.display(),
                plural(w.findings, "finding"),
                plural(w.functions, "function")
            );
        }
        Some(BaselineOutcome::Compared(c)) => {
            let _ = writeln!(
                out,
                "Baseline {}: {} new, {} in the baseline (not shown)",
                c.file.display(),
                c.new,
                c.unchanged.len()
            );
            for s in &c.placement {
                let sub = s
                    .sub_model
                    .as_ref()
                    .map(|s| format!(", {s}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "ANE share of `{}` in {}{sub}: {} at the baseline, {} now",
                    s.function,
                    s.path.display(),
                    s.then,
                    s.now
                );
            }
            if !c.fixed.is_empty() {
                let _ = writeln!(
                    out,
                    "Fixed since the baseline: {}; refresh it with --write-baseline",
                    c.fixed_count()
                );
                for e in c.fixed.iter().take(FIXED_NAMED) {
                    let _ = writeln!(out, "  {}", entry_text(e));
                }
                if c.fixed.len() > FIXED_NAMED {
                    let _ = writeln!(out, "  … and {} more", c.fixed.len() - FIXED_NAMED);
                }
            }
        }
    }
    // The file's paths and the model's names, for the terminal.
    super::model_text::terminal_lines(&out).into_owned()
}

/// The JSON document's `baseline` member (`null` without a baseline).
pub fn json(run: &CheckRun) -> Value {
    match &run.baseline {
        None => Value::Null,
        Some(BaselineOutcome::Written(w)) => json!({
            "file": w.file.display().to_string(),
            "written": true,
            "findings": w.findings,
            "functions": w.functions,
        }),
        Some(BaselineOutcome::Compared(c)) => json!({
            "file": c.file.display().to_string(),
            "written": false,
            "new": c.new,
            "unchanged": c.unchanged.len(),
            "fixed": c.fixed_count(),
            "fixed_findings": c.fixed.iter().map(|e| json!({
                "model": e.model,
                "sub_model": e.sub_model,
                "function": e.function,
                "op": e.op,
                "state": e.state,
                "rule": e.rule,
                "count": e.count,
            })).collect::<Vec<_>>(),
            "placement": c.placement.iter().map(|s| json!({
                "path": s.path.display().to_string(),
                "sub_model": s.sub_model.as_ref().map(|x| json!({"position": x.position, "name": x.name})),
                "function": s.function,
                "then": {"ane": s.then.ane, "ops": s.then.ops},
                "now": {"ane": s.now.ane, "ops": s.now.ops},
            })).collect::<Vec<_>>(),
        }),
    }
}
