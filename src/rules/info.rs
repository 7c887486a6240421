//! A rule's metadata as front ends and reporters see it: what `rule ID` explains and SARIF lists.

use crate::finding::Severity;

/// What reporters need to know about a rule (SARIF's `rules` array, `rule` explanations).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleInfo {
    /// Rule id.
    pub id: String,
    /// One-line title.
    pub title: String,
    /// Default severity.
    pub default_severity: Option<Severity>,
    /// Other severities a finding can take (`severity-when:`), in the order they are tested.
    pub conditional_severities: Vec<Severity>,
    /// Group (`ane-compile`, `weights`, …).
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
    /// Links and citations.
    pub references: Vec<String>,
    /// Name of the fix primitive, when the rule offers one.
    pub fix: Option<String>,
    /// The runs the rule concerns (`applies-to:`), e.g. `the GPU; macOS 26.5–26.6`; empty: every
    /// run.
    pub applies_to: String,
    /// The nodes or entities the engine hands the rule (`Tested on:` of `rule ID`): its op
    /// types, or every op (the exception) and what its guard requires of one.
    pub tested_on: String,
}
