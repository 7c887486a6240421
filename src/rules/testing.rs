//! Runs the `tests:` block of rules (as `ast-grep test` does): every `valid` snippet must give no
//! finding of the rule, every `invalid` snippet must give exactly the expected findings.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::engine::match_model_for;
use super::loader::{Rule, RuleSet};
use super::schema::{SerCase, SerExpect};
use super::target::DeployTarget;
use super::units::ComputeUnits;
use crate::analysis::registry::ModelEntities;
use crate::discover::discover;
use crate::finding::Finding;
use crate::ir::{Model, ModelDesc, ModelKind, SourceText};
use crate::read::miltext::parse_program;
use crate::read::{read_model, ReadOutcome};

/// Which list a case is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaseKind {
    /// A case from the rule's `valid:` list: it must produce no finding of the rule.
    Valid,
    /// A case from the rule's `invalid:` list: it must produce the expected findings.
    Invalid,
}

/// Outcome of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaseStatus {
    /// A valid snippet gave no finding.
    Validated,
    /// An invalid snippet gave exactly the expected findings.
    Reported,
    /// An invalid snippet missed some expected finding (or gave none).
    Missing,
    /// A valid snippet gave a finding, or an invalid one gave unexpected extra findings.
    Noisy,
    /// The snippet itself does not parse.
    Error,
}

impl CaseStatus {
    /// True for the passing statuses.
    pub fn passed(self) -> bool {
        matches!(self, CaseStatus::Validated | CaseStatus::Reported)
    }
}

impl fmt::Display for CaseStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CaseStatus::Validated => "validated",
            CaseStatus::Reported => "reported",
            CaseStatus::Missing => "missing",
            CaseStatus::Noisy => "noisy",
            CaseStatus::Error => "error",
        })
    }
}

/// One case's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseResult {
    /// Id of the rule the case belongs to.
    pub rule: String,
    /// Which of the rule's lists the case is in.
    pub kind: CaseKind,
    /// Position in its list (0-based).
    pub index: usize,
    /// How the case's findings compared with what its list expects.
    pub status: CaseStatus,
    /// What went wrong, or the findings summary.
    pub detail: String,
    /// The case's `note:` from the rule file, if it has one.
    pub note: Option<String>,
}

/// Results of every case of every rule, in rule order then valid before invalid.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestReport {
    /// One result per case.
    pub cases: Vec<CaseResult>,
}

impl TestReport {
    /// True when every case passed.
    pub fn passed(&self) -> bool {
        self.cases.iter().all(|c| c.status.passed())
    }

    /// The cases that did not pass.
    pub fn failures(&self) -> impl Iterator<Item = &CaseResult> + '_ {
        self.cases.iter().filter(|c| !c.status.passed())
    }

    /// Number of cases with `status`.
    pub fn count(&self, status: CaseStatus) -> usize {
        self.cases.iter().filter(|c| c.status == status).count()
    }
}

impl fmt::Display for TestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.cases {
            let kind = match c.kind {
                CaseKind::Valid => "valid",
                CaseKind::Invalid => "invalid",
            };
            write!(
                f,
                "{:<10} {} {kind}[{}]",
                c.status.to_string(),
                c.rule,
                c.index
            )?;
            if let Some(n) = &c.note {
                write!(f, " ({n})")?;
            }
            if !c.status.passed() {
                write!(f, ": {}", c.detail)?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "{} validated, {} reported, {} missing, {} noisy, {} error",
            self.count(CaseStatus::Validated),
            self.count(CaseStatus::Reported),
            self.count(CaseStatus::Missing),
            self.count(CaseStatus::Noisy),
            self.count(CaseStatus::Error)
        )
    }
}

/// One case run: its result and, when its model could be read, that model and the rule's findings
/// on it (what the built-in rules' snapshot test renders).
#[derive(Debug)]
pub struct CaseRun {
    /// How the case compared with what its list expects.
    pub result: CaseResult,
    /// The case's model, unless it could not be read (`CaseStatus::Error`).
    pub model: Option<Model>,
    /// The rule's findings on the model.
    pub findings: Vec<Finding>,
}

/// Runs every rule's tests with no model-level facts.
pub fn run_rule_tests(rules: &RuleSet) -> TestReport {
    run_rule_tests_with(rules, &|_| ModelEntities::default())
}

/// Runs every rule's tests; `facts` computes the model-level facts of each snippet's model.
pub fn run_rule_tests_with(rules: &RuleSet, facts: &dyn Fn(&Model) -> ModelEntities) -> TestReport {
    let mut report = TestReport::default();
    for rule in rules.rules() {
        report.cases.extend(
            run_rule_cases_with(rule, facts)
                .into_iter()
                .map(|run| run.result),
        );
    }
    report
}

/// Runs one rule's cases, valid before invalid, each once, keeping each case's model and findings.
pub fn run_rule_cases_with(rule: &Rule, facts: &dyn Fn(&Model) -> ModelEntities) -> Vec<CaseRun> {
    let Ok(single) = RuleSet::from_rules(vec![rule.clone()]) else {
        return Vec::new();
    };
    let mut runs = Vec::new();
    for (kind, list) in [
        (CaseKind::Valid, &rule.tests().valid),
        (CaseKind::Invalid, &rule.tests().invalid),
    ] {
        for (index, case) in list.iter().enumerate() {
            runs.push(run_case(rule, &single, kind, index, case, facts));
        }
    }
    runs
}

/// The model a snippet stands for.
pub fn snippet_model(name: &str, mil: &str) -> Result<Model, String> {
    let path = PathBuf::from(name);
    let program = parse_program(mil, &path).map_err(|e| {
        let mut s = e.to_string();
        if let crate::read::ReadError::MilSyntax(m) = &e {
            s = format!("{}:{}: {}", m.line, m.column, m.message);
        }
        s
    })?;
    Ok(Model {
        path: path.clone(),
        kind: ModelKind::MilText,
        spec_version: None,
        description: ModelDesc::default(),
        program,
        source: SourceText {
            name: name.to_string(),
            file: path.clone(),
            text: Arc::from(mil),
            is_file: true,
            lines: None,
        },
        model_path: Path::new(".").to_path_buf(),
        root: Path::new(".").to_path_buf(),
        sub_model: None,
        bundle: Vec::new(),
    })
}

/// The folder a rule's `model:` paths are relative to: the rule file's folder; for built-ins, the
/// source tree's `rules/` (fixtures are not embedded in the binary).
fn rule_folder(rule: &Rule) -> PathBuf {
    let dir = rule
        .source
        .path
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    if rule.source.builtin {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)
    } else {
        dir
    }
}

/// The model a `model:` case names, read as `check` reads it.
fn fixture_model(rule: &Rule, rel: &str) -> Result<Model, String> {
    let path = rule_folder(rule).join(rel);
    let found = discover(std::slice::from_ref(&path));
    let [one] = found.as_slice() else {
        return Err(format!(
            "{}: not one model ({} found)",
            path.display(),
            found.len()
        ));
    };
    let discovered = one.as_ref().map_err(ToString::to_string)?;
    match read_model(discovered) {
        Ok(ReadOutcome::Model(m)) => Ok(*m),
        Ok(ReadOutcome::Pipeline(_)) => Err(format!(
            "{}: a pipeline; give one of its ML programs as a model of its own",
            path.display()
        )),
        Ok(ReadOutcome::NotMlProgram { what, .. }) => {
            Err(format!("{}: {what}, not an ML program", path.display()))
        }
        Err(e) => Err(e.to_string()),
    }
}

fn describe(f: &Finding) -> String {
    format!(
        "{{function: {}, op: {}, state: {}}}",
        f.function.as_deref().unwrap_or("-"),
        f.op.as_deref().unwrap_or("-"),
        f.state.as_deref().unwrap_or("-")
    )
}

fn expect_matches(e: &SerExpect, f: &Finding) -> bool {
    let ok = |want: &Option<String>, got: &Option<String>| {
        want.as_ref().is_none_or(|w| got.as_ref() == Some(w))
    };
    ok(&e.op, &f.op) && ok(&e.state, &f.state) && ok(&e.function, &f.function)
}

fn run_case(
    rule: &Rule,
    single: &RuleSet,
    kind: CaseKind,
    index: usize,
    case: &SerCase,
    facts: &dyn Fn(&Model) -> ModelEntities,
) -> CaseRun {
    let label = match kind {
        CaseKind::Valid => "valid",
        CaseKind::Invalid => "invalid",
    };
    let name = format!("{}#{label}[{index}]", rule.source.path.display());
    let result = |status: CaseStatus, detail: String| CaseResult {
        rule: rule.id.clone(),
        kind,
        index,
        status,
        detail,
        note: case.note.clone(),
    };
    let unread = |status: CaseStatus, detail: String| CaseRun {
        result: result(status, detail),
        model: None,
        findings: Vec::new(),
    };
    let model = match (&case.mil, &case.model) {
        (Some(mil), _) => {
            snippet_model(&name, mil).map_err(|e| format!("snippet does not parse: {e}"))
        }
        (None, Some(path)) => fixture_model(rule, path),
        (None, None) => Err("the case gives neither `mil:` nor `model:`".to_string()),
    };
    let model = match model {
        Ok(m) => m,
        Err(e) => return unread(CaseStatus::Error, e),
    };
    let target = match case.target.as_deref().map(|t| DeployTarget::parse(&[t])) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => return unread(CaseStatus::Error, e.to_string()),
    };
    let units = match case.compute_units.as_deref().map(ComputeUnits::parse) {
        None => ComputeUnits::default(),
        Some(Ok(u)) => u,
        Some(Err(e)) => return unread(CaseStatus::Error, e.to_string()),
    };
    let target = DeployTarget::with_units(target, units);
    let findings = match_model_for(&model, single, &facts(&model), target.as_ref());
    let result = compare(kind, case, &findings, result);
    CaseRun {
        result,
        model: Some(model),
        findings,
    }
}

/// How a case's findings compare with what its list (and its `expect:`) asks for.
fn compare(
    kind: CaseKind,
    case: &SerCase,
    findings: &[Finding],
    result: impl Fn(CaseStatus, String) -> CaseResult,
) -> CaseResult {
    let got: Vec<String> = findings.iter().map(describe).collect();
    match kind {
        CaseKind::Valid => {
            if findings.is_empty() {
                result(CaseStatus::Validated, String::new())
            } else {
                result(CaseStatus::Noisy, format!("fired: {}", got.join(", ")))
            }
        }
        CaseKind::Invalid => {
            if findings.is_empty() {
                return result(CaseStatus::Missing, "no finding".to_string());
            }
            if case.expect.is_empty() {
                return result(CaseStatus::Reported, got.join(", "));
            }
            let mut used = vec![false; findings.len()];
            let mut missing = Vec::new();
            for e in &case.expect {
                let hit = findings
                    .iter()
                    .enumerate()
                    .find(|(i, f)| !used.get(*i).copied().unwrap_or(true) && expect_matches(e, f));
                match hit {
                    Some((i, _)) => {
                        if let Some(u) = used.get_mut(i) {
                            *u = true;
                        }
                    }
                    None => missing.push(format!(
                        "{{function: {}, op: {}, state: {}}}",
                        e.function.as_deref().unwrap_or("*"),
                        e.op.as_deref().unwrap_or("*"),
                        e.state.as_deref().unwrap_or("*")
                    )),
                }
            }
            if !missing.is_empty() {
                return result(
                    CaseStatus::Missing,
                    format!("expected {} but got {}", missing.join(", "), got.join(", ")),
                );
            }
            let extra: Vec<String> = findings
                .iter()
                .zip(&used)
                .filter(|(_, &u)| !u)
                .map(|(f, _)| describe(f))
                .collect();
            if extra.is_empty() {
                result(CaseStatus::Reported, got.join(", "))
            } else {
                result(
                    CaseStatus::Noisy,
                    format!("unexpected extra findings: {}", extra.join(", ")),
                )
            }
        }
    }
}
