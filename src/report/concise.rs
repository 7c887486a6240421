//! `--output-format concise`: one compiler-style line per finding,
//! `PATH:LINE:COL: error|warning|note: MESSAGE [rule-id]`, the form Xcode build phases, VS Code
//! problem matchers and Emacs' compilation mode read; then the summary line.
//!
//! PATH is always a file on disk: the `model.mil` line of the op for text models; for a protobuf
//! model (`.mlpackage`, `.mlmodel`) its `model.mlmodel` at 1:1, with the pipeline sub-model, the
//! function and the op named in the message since the file has no lines to point at.

use std::fmt::Write;

use super::human::summary_line;
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::{Finding, Severity};
use crate::ir::span::line_col;
use crate::ir::Model;

/// The word compilers use for a severity.
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn line(model: &Model, f: &Finding) -> String {
    let file = model.source.file.display();
    match f.span {
        Some(span) if model.source.is_file => {
            let (line, col) = line_col(&model.source.text, span.start);
            format!(
                "{file}:{line}:{col}: {}: {} [{}]",
                level(f.severity),
                f.message,
                f.rule
            )
        }
        _ => {
            let mut place = Vec::new();
            if let Some(sub) = &f.sub_model {
                place.push(sub.to_string());
            }
            if let Some(func) = &f.function {
                place.push(format!("function `{func}`"));
                if let Some(op) = &f.op {
                    place.push(format!("op `{op}`"));
                }
            }
            let mut message = f.message.clone();
            if !place.is_empty() {
                let _ = write!(message, " ({})", place.join(", "));
            }
            format!("{file}:1:1: {}: {message} [{}]", level(f.severity), f.rule)
        }
    }
}

/// Renders every finding and read error, one line each, then the summary.
pub fn render(run: &CheckRun) -> String {
    let mut out = String::new();
    for m in &run.models {
        match &m.outcome {
            ModelOutcome::Checked { model, findings } => {
                for f in findings {
                    out.push_str(&line(model, f));
                    out.push('\n');
                }
            }
            ModelOutcome::Failed(e) => {
                // The message may span lines; the tools read the first.
                let message = e.to_string().replace('\n', " ");
                let _ = writeln!(out, "{}:1:1: error: {message} [read]", e.path().display());
            }
            ModelOutcome::Skipped(_) => {}
        }
    }
    out.push_str(&summary_line(run));
    out
}
