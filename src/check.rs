//! The `check` pipeline, the one entry every front end calls (the CLI, the Python module):
//! paths → discover → read (in parallel) → lint → settings → fix → re-check → [`CheckOutcome`].
//!
//! [`check`] takes paths and [`CheckOptions`] and returns every model's outcome with its
//! diagnostics and what the fixes did. It prints nothing and never exits the process; bad
//! configuration and rule files are a [`CheckError`], unreadable models a
//! [`ModelOutcome::Failed`] among the others.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::config::{self, ConfigError, Overrides, Settings};
use crate::discover::{discover, Discovered};
use crate::finding::{Finding, Severity};
use crate::fix::run::{fix_models, FixOptions, FixRun};
use crate::ir::Model;
use crate::lint::Linter;
use crate::read::{read_model, ReadError, ReadOutcome};
use crate::rules::{LoadError, RuleInfo, RuleSet};

/// Which config file a check reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ConfigFile {
    /// The nearest `coreml-lint.yaml` in the first path's folder or above it (none is fine).
    #[default]
    Find,
    /// This file.
    Path(PathBuf),
    /// None: built-in defaults and the overrides only.
    Isolated,
}

/// How to check: config, rule selection, fixes.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Which config file to read.
    pub config: ConfigFile,
    /// Rule selection, fail level and rule folders given on top of the config (the CLI's flags).
    pub overrides: Overrides,
    /// Fixes to apply once the models are checked (`None`: report only). Fixed models are checked
    /// again and their outcome replaces the first one.
    pub fix: Option<FixOptions>,
    /// What to keep of each model (whole models are kept whenever fixes are asked for).
    pub keep: Keep,
}

/// Why a check could not start: the config or the rules did not load.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum CheckError {
    /// The config file could not be read or used.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(#[from] ConfigError),
    /// A rule file (built-in or from a rule folder) did not load.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Rules(#[from] LoadError),
}

/// Told how a check advances (a front end's progress line). Calls come from worker threads.
pub trait Observer: Sync {
    /// `models` were discovered; checking them starts.
    fn started(&self, _models: usize) {}
    /// One more model was checked (or failed).
    fn model_done(&self) {}
    /// Every model was checked (before fixes).
    fn finished(&self) {}
}

/// Observes nothing.
impl Observer for () {}

/// What a check produced.
#[derive(Debug)]
pub struct CheckOutcome {
    /// Every model's outcome, in discovery order; a fixed model's outcome is its re-check.
    pub run: CheckRun,
    /// What the fixes did, when fixes were asked for.
    pub fixes: Option<FixRun>,
    /// Every loaded rule, whether it ran or not (for SARIF and statistics).
    pub rules: Vec<RuleInfo>,
    /// The lowest severity the settings count as a failure.
    pub fail_on: Severity,
}

impl CheckOutcome {
    /// True when a model could not be read or a fix could not be written.
    pub fn has_errors(&self) -> bool {
        self.run
            .models
            .iter()
            .any(|m| matches!(m.outcome, ModelOutcome::Failed(_)))
            || self.fixes.as_ref().is_some_and(|f| f.failures > 0)
    }

    /// True when a finding is at or above the fail level.
    pub fn has_failing_findings(&self) -> bool {
        self.run.findings().any(|f| f.severity >= self.fail_on)
    }
}

/// Checks every model under `paths` (the current folder when empty): see the module docs.
pub fn check(paths: &[PathBuf], options: &CheckOptions) -> Result<CheckOutcome, CheckError> {
    check_observed(paths, options, &())
}

/// [`check`], telling `observer` how it advances.
pub fn check_observed(
    paths: &[PathBuf],
    options: &CheckOptions,
    observer: &dyn Observer,
) -> Result<CheckOutcome, CheckError> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let checker = Checker::new(&paths, options)?;
    Ok(checker.check(&paths, options.fix.as_ref(), options.keep, observer))
}

/// Resolved settings and loaded rules, ready to check any number of paths.
#[derive(Debug)]
pub struct Checker {
    settings: Settings,
    linter: Linter,
}

impl Checker {
    /// Reads the config (found from the first of `paths`) and loads the rules it names.
    pub fn new(paths: &[PathBuf], options: &CheckOptions) -> Result<Checker, CheckError> {
        let file = match &options.config {
            ConfigFile::Isolated => None,
            ConfigFile::Path(p) => Some(p.clone()),
            ConfigFile::Find => {
                config::find_upward(paths.first().map_or(Path::new("."), PathBuf::as_path))
            }
        };
        let file_options = match &file {
            Some(p) => Some((p.as_path(), config::load(p)?)),
            None => None,
        };
        let settings = Settings::resolve(file_options, options.overrides.clone())?;
        let rules = RuleSet::load(&settings.rule_dirs)?;
        Ok(Checker::with_rules(settings, rules))
    }

    /// A checker for these settings and rules (only the rules the settings enable run).
    pub fn with_rules(settings: Settings, rules: RuleSet) -> Checker {
        let linter = Linter::new(rules).restricted_to(|id| settings.is_enabled(id));
        Checker { settings, linter }
    }

    /// Checks `paths`, applies `fix` when given, re-checks what the fixes wrote.
    pub fn check(
        &self,
        paths: &[PathBuf],
        fix: Option<&FixOptions>,
        keep: Keep,
        observer: &dyn Observer,
    ) -> CheckOutcome {
        // Fixes read the graphs after the run.
        let keep = if fix.is_some() { Keep::Programs } else { keep };
        let found = discover(paths);
        observer.started(found.len());
        let mut run = self.run_discovered(found, &|| observer.model_done(), keep);
        observer.finished();
        let fixes = fix.map(|opts| {
            let fixed = fix_models(run.checked(), opts);
            if !fixed.written.is_empty() {
                // Re-check what was written, as ruff does, so the outcome reflects the fixed models.
                let rerun = self.run_discovered(discover(&fixed.written), &|| {}, Keep::Programs);
                run = merge_fixed(
                    std::mem::take(&mut run),
                    rerun,
                    &fixed.written,
                    &fixed.written_from,
                );
            }
            fixed
        });
        CheckOutcome {
            run,
            fixes,
            rules: self.linter.rule_infos(),
            fail_on: self.settings.fail_on,
        }
    }

    /// Reads every discovered model in parallel and lints each; results come back in discovery
    /// order whatever the scheduling, and one unreadable model does not stop the others.
    /// `on_done` is called once per model.
    pub(crate) fn run_discovered(
        &self,
        found: Vec<Result<Discovered, ReadError>>,
        on_done: &(dyn Fn() + Sync),
        keep: Keep,
    ) -> CheckRun {
        let started = Instant::now();
        let models: Vec<ModelResult> = found
            .into_par_iter()
            .map(|d| {
                let result = match d {
                    Err(e) => ModelResult {
                        path: e.path().to_path_buf(),
                        outcome: ModelOutcome::Failed(e),
                    },
                    Ok(d) => ModelResult {
                        outcome: self.check_one(&d, keep),
                        path: d.path,
                    },
                };
                on_done();
                result
            })
            .collect();
        CheckRun {
            models,
            elapsed: started.elapsed(),
        }
    }

    fn check_one(&self, d: &Discovered, keep: Keep) -> ModelOutcome {
        match read_model(d) {
            Ok(ReadOutcome::Model(mut model)) => {
                let mut findings = self.settings.apply(self.linter.lint(&model));
                findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
                if keep == Keep::Reports {
                    release_graphs(&mut model);
                }
                ModelOutcome::Checked { model, findings }
            }
            Ok(ReadOutcome::NotMlProgram { what, .. }) => ModelOutcome::Skipped(what),
            Err(e) => ModelOutcome::Failed(e),
        }
    }
}

/// What a run keeps of each checked model once it is linted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Keep {
    /// The whole model, graphs included (for fixes, SARIF fixes and the placement estimate).
    Programs,
    /// Everything but the functions' graphs: what reporters read (path, source text, findings).
    /// A folder of models then needs the memory of one model per thread, not of all of them.
    #[default]
    Reports,
}

/// Frees the functions of a linted model. They are dropped on a background thread: freeing a
/// large graph node by node costs as much as a tenth of its check.
fn release_graphs(model: &mut Model) {
    let functions = std::mem::take(&mut model.program.functions);
    rayon::spawn(move || drop(functions));
}

/// The run with each fixed model's result replaced by the result of re-checking what was written
/// for it (`written[i]` came from `written_from[i]`).
fn merge_fixed(
    mut run: CheckRun,
    rerun: CheckRun,
    written: &[PathBuf],
    written_from: &[PathBuf],
) -> CheckRun {
    let mut fresh: BTreeMap<PathBuf, ModelResult> = rerun
        .models
        .into_iter()
        .map(|m| (m.path.clone(), m))
        .collect();
    for m in &mut run.models {
        let Some(i) = written_from.iter().position(|p| *p == m.path) else {
            continue;
        };
        let new = written.get(i).and_then(|w| {
            let key = fresh.keys().find(|k| same_path(k, w)).cloned()?;
            fresh.remove(&key)
        });
        if let Some(new) = new {
            *m = new;
        }
    }
    run.elapsed += rerun.elapsed;
    run
}

/// Two spellings of one path (discovery drops `./` components).
fn same_path(a: &Path, b: &Path) -> bool {
    a == b
        || std::fs::canonicalize(a)
            .ok()
            .is_some_and(|x| std::fs::canonicalize(b).ok() == Some(x))
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

/// Every model a `check` read, in a deterministic order.
#[derive(Debug, Default)]
pub struct CheckRun {
    /// One result per discovered model, in discovery order.
    pub models: Vec<ModelResult>,
    /// Wall time of the reading and linting (and re-checking after fixes).
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

    /// Every checked model with its findings, in order.
    pub fn checked(&self) -> impl Iterator<Item = (&Model, &[Finding])> + '_ {
        self.models.iter().filter_map(|m| match &m.outcome {
            ModelOutcome::Checked { model, findings } => {
                Some((model.as_ref(), findings.as_slice()))
            }
            _ => None,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(keep: Keep) -> (usize, Vec<Finding>) {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/packages");
        let found = discover(&[corpus.join("state-dynamic-begin.mlpackage")]);
        let settings = Settings::resolve(None, Default::default()).expect("settings");
        let checker = Checker::with_rules(settings, RuleSet::builtin().expect("rules"));
        let run = checker.run_discovered(found, &|| {}, keep);
        match run.models.into_iter().next().map(|m| m.outcome) {
            Some(ModelOutcome::Checked { model, findings }) => {
                (model.program.functions.len(), findings)
            }
            _ => panic!("the corpus model was not checked"),
        }
    }

    #[test]
    fn a_report_only_run_releases_the_graphs_and_keeps_the_findings() {
        let (kept, with_graphs) = checked(Keep::Programs);
        let (released, without) = checked(Keep::Reports);
        assert!(kept > 0);
        assert_eq!(released, 0);
        assert!(!with_graphs.is_empty());
        assert_eq!(with_graphs, without);
    }
}
