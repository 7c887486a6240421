//! A finding: what every rule produces and every reporter renders.

use std::fmt;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ir::Span;

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// How safe a fix is to apply (ruff's ordering: `DisplayOnly < Unsafe < Safe`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    DisplayOnly,
    Unsafe,
    Safe,
}

/// A fix a finding offers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FixOffer {
    /// The fix primitive (`pad-state`, …).
    pub kind: String,
    /// One line saying what applying it does.
    pub title: String,
    pub applicability: Applicability,
}

/// A secondary location in the same source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub text: String,
}

/// One finding of one rule in one model.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    /// The model root as discovered.
    pub path: PathBuf,
    pub function: Option<String>,
    /// The op's `name` attribute (or its first output's name).
    pub op: Option<String>,
    pub state: Option<String>,
    pub message: String,
    pub help: Option<String>,
    pub fix: Option<FixOffer>,
    /// The primary location in the model's source text.
    pub span: Option<Span>,
    pub labels: Vec<Label>,
    /// Program order of the op, for sorting.
    pub order: Option<u32>,
}

impl Finding {
    /// The key findings are sorted by: path, function, op order, rule, op, state, message.
    pub fn sort_key(&self) -> impl Ord + '_ {
        (
            &self.path,
            &self.function,
            self.order.unwrap_or(u32::MAX),
            &self.rule,
            &self.op,
            &self.state,
            &self.message,
        )
    }
}

#[cfg(test)]
impl Finding {
    /// A warning of `rule` in `path` with no location, for reporter tests.
    pub(crate) fn bare(rule: &str, path: &str) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Warning,
            path: path.into(),
            function: None,
            op: None,
            state: None,
            message: String::new(),
            help: None,
            fix: None,
            span: None,
            labels: Vec::new(),
            order: None,
        }
    }
}
