//! A finding: what every rule produces and every reporter renders.

use std::fmt;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::fix_plan::PadPlan;
use crate::ir::{Span, SubModel};

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never fails a run by default.
    Info,
    /// Likely a problem on some devices.
    Warning,
    /// A model that fails or computes wrong results.
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

/// How safe a fix is to apply (defined beside the fix plans that carry one).
pub use crate::analysis::fix_plan::Applicability;

/// A fix a finding offers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FixOffer {
    /// The fix primitive (`pad-state`, …).
    pub kind: String,
    /// One line saying what applying it does.
    pub title: String,
    /// How safe the fix is to apply.
    pub applicability: Applicability,
    /// The plan `--fix` applies, exactly as offered (shared by every finding on the same state).
    #[serde(skip)]
    pub plan: Option<Arc<PadPlan>>,
}

/// A secondary location in the same source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where in the source text.
    pub span: Span,
    /// What the location shows.
    pub text: String,
}

/// What an origin finding stands for besides its own node: the other nodes of its region (rules
/// with `origin:`), in program order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Covered {
    /// Names of the other ops (and inputs) of the region.
    pub names: Vec<String>,
}

impl Covered {
    /// How many nodes the finding covers besides its own.
    pub fn count(&self) -> usize {
        self.names.len()
    }
}

/// One finding of one rule in one model.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The rule id.
    pub rule: String,
    /// Its severity after the settings.
    pub severity: Severity,
    /// The model root as discovered.
    pub path: PathBuf,
    /// The pipeline sub-model the finding is in (`None` for a model of its own).
    pub sub_model: Option<SubModel>,
    /// The function it is in, when it is about one.
    pub function: Option<String>,
    /// The op's `name` attribute (or its first output's name).
    pub op: Option<String>,
    /// The state it is about, if any.
    pub state: Option<String>,
    /// What is wrong, rendered from the rule's message.
    pub message: String,
    /// What to do, rendered from the rule's help.
    pub help: Option<String>,
    /// The fix the rule offers here, if any.
    pub fix: Option<FixOffer>,
    /// The primary location in the model's source text.
    pub span: Option<Span>,
    /// Secondary locations (the read, window and write of a state chain, …).
    pub labels: Vec<Label>,
    /// Program order of the op, for sorting.
    pub order: Option<u32>,
    /// The region an origin finding stands for (`None` for rules without `origin:`).
    pub covered: Option<Covered>,
    /// The file on disk the finding is about when it is not the program's (a Git LFS pointer in
    /// place of `metadata.json`): the file every format names, without a line.
    pub file: Option<PathBuf>,
}

impl Finding {
    /// The nodes this finding stands for: its own and the ones its region covers.
    pub fn ops_covered(&self) -> usize {
        1 + self.covered.as_ref().map_or(0, Covered::count)
    }
}

impl Finding {
    /// The key findings are sorted by: path, sub-model, function, op order, rule, op, state,
    /// message.
    pub fn sort_key(&self) -> impl Ord + '_ {
        (
            &self.path,
            &self.sub_model,
            &self.function,
            self.order.unwrap_or(u32::MAX),
            &self.rule,
            &self.op,
            &self.state,
            &self.message,
        )
    }
}

/// Labels further than this many lines from the primary one are left out of the snippet the
/// human report quotes (the message names them).
const SNIPPET_NEAR_LINES: usize = 20;
/// The most labels (the primary included) a snippet shows.
pub(crate) const SNIPPET_MAX_LABELS: usize = 5;

/// What the human report quotes of a finding whose spans (the primary first) are on the 0-based
/// lines `span_lines`: which spans it shows, and the lines from the first shown to the last.
/// `None` without a primary span. The report's snippet and the lines rendered for it (a protobuf
/// program's text is not kept) both follow it.
pub fn snippet_lines(span_lines: &[usize]) -> Option<(Vec<bool>, RangeInclusive<usize>)> {
    let &primary = span_lines.first()?;
    let mut n = 0;
    let shown: Vec<bool> = span_lines
        .iter()
        .map(|l| {
            let show = l.abs_diff(primary) <= SNIPPET_NEAR_LINES && n < SNIPPET_MAX_LABELS;
            n += usize::from(show);
            show
        })
        .collect();
    let lines = span_lines.iter().zip(&shown).filter(|(_, s)| **s);
    let first = lines.clone().map(|(l, _)| *l).min().unwrap_or(primary);
    let last = lines.map(|(l, _)| *l).max().unwrap_or(primary);
    Some((shown, first..=last))
}

#[cfg(test)]
impl Finding {
    /// A warning of `rule` in `path` with no location, for reporter tests.
    pub(crate) fn bare(rule: &str, path: &str) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Warning,
            path: path.into(),
            sub_model: None,
            function: None,
            op: None,
            state: None,
            message: String::new(),
            help: None,
            fix: None,
            span: None,
            labels: Vec::new(),
            order: None,
            covered: None,
            file: None,
        }
    }
}

/// What the findings of `function` flag for the placement estimate, by the lists of op table
/// `t` (its `op-risk-rules`, `op-cpu-rules` and `function-risk-rules`). An origin finding flags its op and
/// every op its region covers.
pub fn placement_flags(
    t: &crate::analysis::placement::OpTable,
    function: &str,
    findings: &[Finding],
) -> crate::analysis::placement::Flags {
    let mine: Vec<&Finding> = findings
        .iter()
        .filter(|x| x.function.as_deref() == Some(function))
        .collect();
    let listed = |list: &[String], rule: &str| list.iter().any(|r| r == rule);
    let function_risk = mine
        .iter()
        .find(|x| listed(&t.function_risk_rules, &x.rule))
        .map(|x| x.rule.clone());
    let ops_of = |list: &[String]| -> std::collections::BTreeMap<String, String> {
        let mut m = std::collections::BTreeMap::new();
        for x in mine.iter().filter(|x| listed(list, &x.rule)) {
            let names =
                x.op.iter()
                    .chain(x.covered.iter().flat_map(|c| c.names.iter()));
            for n in names {
                m.entry(n.clone()).or_insert_with(|| x.rule.clone());
            }
        }
        m
    };
    crate::analysis::placement::Flags {
        function_risk,
        op_risk: ops_of(&t.op_risk_rules),
        op_cpu: ops_of(&t.op_cpu_rules),
    }
}
