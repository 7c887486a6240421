//! Renderers: human (miette), concise, JSON, SARIF, GitHub annotations. Each is a pure function of a
//! [`CheckRun`](crate::check::CheckRun) whose findings are already sorted.

pub mod baseline;
pub mod concise;
pub mod explain;
pub mod github;
pub mod graph;
pub mod html;
pub mod human;
pub mod json;
pub mod location;
pub mod model_text;
pub mod pictures;
pub mod placement;
pub mod progress;
pub mod sarif;
pub(crate) mod snippet;
pub(crate) mod source;
pub mod statistics;

use crate::finding::Finding;

/// Where in its model a finding is, as ` [main/op]`, ` [sub-model 1 "dec": main/op]` or
/// ` [sub-model 1]`; empty when the finding names neither a sub-model nor a function.
pub(crate) fn scope(f: &Finding) -> String {
    let mut inner = String::new();
    if let Some(func) = &f.function {
        inner.push_str(func);
        if let Some(op) = &f.op {
            inner.push('/');
            inner.push_str(op);
        }
    }
    match (&f.sub_model, inner.is_empty()) {
        (Some(sub), true) => format!(" [{sub}]"),
        (Some(sub), false) => format!(" [{sub}: {inner}]"),
        (None, false) => format!(" [{inner}]"),
        (None, true) => String::new(),
    }
}
