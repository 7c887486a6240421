//! Renderers: human (miette), concise, JSON, SARIF, GitHub annotations. Each is a pure function of a
//! [`CheckRun`] whose findings are already sorted.

pub mod concise;
pub mod explain;
pub mod github;
pub mod human;
pub mod json;
pub mod placement;
pub mod progress;
pub mod sarif;
pub mod source;
pub mod statistics;

use std::path::PathBuf;
use std::time::Duration;

use crate::finding::{Finding, Severity};
use crate::ir::Model;
use crate::read::ReadError;

/// What reporters need to know about a rule (SARIF's `rules` array, `rule` explanations).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleInfo {
    pub id: String,
    pub title: String,
    pub default_severity: Option<Severity>,
    /// Other severities a finding can take (`severity-when:`), in the order they are tested.
    pub conditional_severities: Vec<Severity>,
    pub category: String,
    /// What it does (SARIF fullDescription).
    pub description: String,
    /// Why it matters, with the evidence.
    pub why: String,
    /// How to fix it.
    pub fix_text: String,
    /// An example (text MIL) of what fires.
    pub example: String,
    /// Where it was seen (chip + OS).
    pub seen_on: Vec<String>,
    pub references: Vec<String>,
    /// Name of the fix primitive, when the rule offers one.
    pub fix: Option<String>,
}

/// What happened to one discovered model.
#[derive(Debug)]
pub enum ModelOutcome {
    /// Read and checked.
    Checked {
        model: Box<Model>,
        findings: Vec<Finding>,
    },
    /// A model of a kind that is not checked (not an ML program).
    Skipped(String),
    /// Could not be read.
    Failed(ReadError),
}

/// One model's result.
#[derive(Debug)]
pub struct ModelResult {
    pub path: PathBuf,
    pub outcome: ModelOutcome,
}

/// Everything a `check` produced, in a deterministic order.
#[derive(Debug, Default)]
pub struct CheckRun {
    pub models: Vec<ModelResult>,
    pub elapsed: Duration,
}

/// Counts for the summary line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub checked: usize,
    pub skipped: usize,
    pub failed: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl CheckRun {
    /// Every finding of every checked model, in order.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> + '_ {
        self.models.iter().flat_map(|m| match &m.outcome {
            ModelOutcome::Checked { findings, .. } => findings.as_slice(),
            _ => &[],
        })
    }

    /// Every finding together with the model it is in.
    pub fn findings_with_models(&self) -> impl Iterator<Item = (&Model, &Finding)> + '_ {
        self.models.iter().flat_map(|m| match &m.outcome {
            ModelOutcome::Checked { model, findings } => findings
                .iter()
                .map(|f| (model.as_ref(), f))
                .collect::<Vec<_>>(),
            _ => Vec::new(),
        })
    }

    /// Models, findings and failures counted.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for m in &self.models {
            match &m.outcome {
                ModelOutcome::Checked { .. } => s.checked += 1,
                ModelOutcome::Skipped(_) => s.skipped += 1,
                ModelOutcome::Failed(_) => s.failed += 1,
            }
        }
        for f in self.findings() {
            match f.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Info => s.infos += 1,
            }
        }
        s
    }
}
