//! `--output-format concise`: one compiler-style line per finding,
//! `PATH[:LINE:COL]: error|warning|note: MESSAGE [rule-id]`, the form Xcode build phases, VS Code
//! problem matchers and Emacs' compilation mode read; then the summary line.
//!
//! PATH is always a file on disk: `model.mil` with the op's line and column for text models; for a
//! protobuf model (`.mlpackage`, `.mlmodel`) its `model.mlmodel` alone (`PATH: warning: …`), with
//! the pipeline sub-model, the function and the op named in the message, since a binary file has
//! no lines to point at. A read error whose position is known is at that line and column.

use std::fmt::Write;

use super::human::summary_line;
use super::location::place;
use super::model_text::terminal;
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::{Finding, Severity};
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
    let place = place(model, f);
    let file = place.file.display().to_string();
    let file = terminal(&file);
    let at = match place.text {
        Some((line, col)) => format!("{file}:{line}:{col}"),
        None => file.to_string(),
    };
    let mut message = terminal(&f.message).into_owned();
    if place.text.is_none() {
        let mut where_ = Vec::new();
        if let Some(sub) = &f.sub_model {
            where_.push(sub.to_string());
        }
        if let Some(func) = &f.function {
            where_.push(format!("function `{func}`"));
            if let Some(op) = &f.op {
                where_.push(format!("op `{op}`"));
            }
        }
        if !where_.is_empty() {
            let _ = write!(message, " ({})", terminal(&where_.join(", ")));
        }
    }
    format!("{at}: {}: {message} [{}]", level(f.severity), f.rule)
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
                let message = e.detail().replace('\n', " ");
                let message = terminal(&message);
                let file = e.path().display().to_string();
                let file = terminal(&file);
                let at = match e.position() {
                    Some((line, col)) => format!("{file}:{line}:{col}"),
                    None => file.into_owned(),
                };
                let _ = writeln!(out, "{at}: error: {message} [read]");
            }
            ModelOutcome::Skipped(_) => {}
        }
    }
    out.push_str(&summary_line(run));
    out
}
