//! The `check` pipeline, the one entry every front end calls (the CLI, the Python module):
//! paths → discover → read (in parallel) → lint → settings → fix → re-check → [`CheckOutcome`].
//!
//! [`check`] takes paths and [`CheckOptions`] and returns every model's outcome with its
//! diagnostics and what the fixes did. It prints nothing and never exits the process; bad
//! configuration and rule files are a [`CheckError`], unreadable models a
//! [`ModelOutcome::Failed`] among the others.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::analysis::entity::Entity;
use crate::analysis::placement_regression::PLACEMENT_REGRESSION;
use crate::baseline::{self, BaselineError, BaselineFile, BaselineMode, BaselineOutcome, Keyer};
use crate::config::{self, ConfigError, Overrides, Settings};
use crate::discover::{discover, Discovered};
use crate::finding::{Finding, Severity};
use crate::fix::run::{fix_models, FixOptions, FixRun};
use crate::ir::Model;
use crate::lint::Linter;
use crate::read::{read_model_with, ReadError, ReadOptions, ReadOutcome, Stage};
use crate::rules::{CacheDir, LoadError, RuleInfo, RuleSet};
use crate::rules::{ComputeUnits, DeployTarget};

pub mod placement;
mod quote;

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
    /// Whether protobuf programs are rendered as text MIL for the report.
    pub rendering: Rendering,
    /// Compare with a baseline file or write one (`None`: the config's `baseline:`, if any).
    pub baseline: Option<BaselineMode>,
    /// Where rule folders' parses are kept between runs.
    pub cache: CacheDir,
}

/// Whether protobuf programs are rendered as text MIL (text models always have their text).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rendering {
    /// Rendered: findings carry spans into the text (line numbers, source snippets).
    #[default]
    Text,
    /// Not rendered: findings in protobuf programs carry no usable span and their model no
    /// source text. For reports that show no source of a protobuf program (JSON, SARIF, GitHub,
    /// concise, a summary line): rendering is about a tenth of a large model's check.
    Skip,
    /// Rendered for line numbers only: findings carry spans and their model where the rendered
    /// lines start, but not the text (JSON's `dump_line`; a large model's text is megabytes).
    Lines,
    /// [`Rendering::Lines`], then once a model is linted its findings' snippet lines rendered
    /// again (the human report: line numbers and source snippets without the whole text).
    Quoted,
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
    /// A rule id or prefix in the config or the overrides names no loaded rule.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Selector(#[from] config::selectors::UnknownSelector),
    /// The baseline file could not be read, used or written.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Baseline(#[from] BaselineError),
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
    let default = paths.is_empty();
    let paths = if default {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let checker = Checker::new(&paths, options)?;
    let mode = options
        .baseline
        .clone()
        .or_else(|| checker.settings.baseline.clone().map(BaselineMode::Compare));
    // A bad baseline stops the check before any model is read.
    let compared = match &mode {
        Some(BaselineMode::Compare(file)) => {
            let mut recorded = BaselineFile::read(file)?;
            recorded.redirect(checker.linter.rules().redirects());
            Some(recorded)
        }
        _ => None,
    };
    // The placement estimate a baseline records and compares reads the graphs.
    let keep = if mode.is_some() {
        Keep::Programs
    } else {
        options.keep
    };
    let mut outcome = checker.check(&paths, options.fix.as_ref(), keep, observer);
    if default {
        // Only a folder the user named must hold a model (ruff's rule for its inputs).
        let named_nothing =
            |m: &ModelResult| matches!(m.outcome, ModelOutcome::Failed(ReadError::NoModels { .. }));
        outcome.run.models.retain(|m| !named_nothing(m));
    }
    outcome.run.baseline = match (mode, compared) {
        (Some(BaselineMode::Write(file)), _) => {
            let recorded = baseline::record(outcome.run.checked(), &Keyer::new(&file))?;
            recorded.write(&file)?;
            Some(BaselineOutcome::Written(baseline::Written {
                findings: outcome.run.findings().count(),
                functions: recorded.placement.len(),
                file,
            }))
        }
        (Some(BaselineMode::Compare(file)), Some(recorded)) => {
            let models = outcome
                .run
                .models
                .iter_mut()
                .filter_map(|m| match &mut m.outcome {
                    ModelOutcome::Checked { model, findings } => Some((&**model, findings)),
                    _ => None,
                });
            Some(BaselineOutcome::Compared(baseline::compare(
                &recorded,
                &Keyer::new(&file),
                &file,
                models,
                &paths,
                &|model, facts| checker.regression_findings(model, facts),
            )?))
        }
        _ => None,
    };
    Ok(outcome)
}

/// Resolved settings and loaded rules, ready to check any number of paths.
#[derive(Debug)]
pub struct Checker {
    settings: Settings,
    linter: Linter,
    rendering: Rendering,
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
        let named = file_options.clone();
        let settings = Settings::resolve(file_options, options.overrides.clone())?;
        let rules = RuleSet::load_cached(&settings.rule_dirs, &options.cache)?;
        let ids: Vec<&str> = rules.rules().iter().map(|r| r.id.as_str()).collect();
        config::selectors::check(
            named.as_ref().map(|(p, o)| (*p, o)),
            &options.overrides,
            &ids,
            rules.redirects(),
        )?;
        Ok(Checker::with_rules(settings, rules).rendering(options.rendering))
    }

    /// A checker for these settings and rules (only the rules the settings enable run).
    /// Ids the settings name are read through the rules' redirects first.
    pub fn with_rules(mut settings: Settings, rules: RuleSet) -> Checker {
        settings.redirect(rules.redirects());
        let linter = Linter::new(rules)
            .restricted_to(|id| settings.is_enabled(id))
            .for_target(settings.target.clone())
            .for_units(settings.compute_units);
        Checker {
            settings,
            linter,
            rendering: Rendering::default(),
        }
    }

    /// The `placement-regression` findings of the `placement-change` entities `changes` in
    /// `model`, when the rule is enabled, after the settings (severity, ignores).
    fn regression_findings(&self, model: &Model, changes: Vec<Entity>) -> Vec<Finding> {
        let mut rules = self.linter.rules().clone();
        rules.retain(|r| r.id == PLACEMENT_REGRESSION);
        if rules.rules().is_empty() {
            return Vec::new();
        }
        // The run's target and units: `applies-to: { units: [ane] }` holds as for every rule.
        let run = DeployTarget::with_units(self.linter.target().cloned(), self.linter.units());
        self.settings.apply(crate::rules::match_model_for(
            model,
            &rules,
            &crate::analysis::registry::ModelEntities { entities: changes },
            run.as_ref(),
        ))
    }

    /// This checker, rendering protobuf programs or not.
    pub fn rendering(mut self, rendering: Rendering) -> Checker {
        self.rendering = rendering;
        self
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
        // One model's graphs are not freed early: it is the whole run's memory anyway, and a free on
        // a background thread that may or may not finish before the process exits would make the
        // run's cost vary (`bench/instructions.sh` counts it).
        let keep = if found.len() == 1 {
            Keep::Programs
        } else {
            keep
        };
        let models: Vec<Vec<ModelResult>> = found
            .into_par_iter()
            .map(|d| {
                let results = match d {
                    Err(e) => vec![ModelResult {
                        path: e.path().to_path_buf(),
                        outcome: ModelOutcome::Failed(e),
                    }],
                    Ok(d) => self
                        .check_one(&d, keep)
                        .into_iter()
                        .map(|outcome| ModelResult {
                            path: d.path.clone(),
                            outcome,
                        })
                        .collect(),
                };
                on_done();
                results
            })
            .collect();
        CheckRun {
            models: models.into_iter().flatten().collect(),
            elapsed: started.elapsed(),
            target: self.linter.target().cloned(),
            baseline: None,
            compute_units: self.linter.units(),
        }
    }

    /// The outcomes of one discovered model: one, or one per sub-model of a pipeline (in
    /// pipeline order, each linted as a model of its own).
    fn check_one(&self, d: &Discovered, keep: Keep) -> Vec<ModelOutcome> {
        let checked = |mut model: Box<Model>| {
            let mut findings = self.settings.apply(self.linter.lint(&model));
            findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            if self.rendering == Rendering::Quoted {
                quote::quote_snippet_lines(&mut model, &mut findings);
            }
            if keep == Keep::Reports {
                release_graphs(&mut model);
            }
            ModelOutcome::Checked { model, findings }
        };
        let read = ReadOptions {
            render: self.rendering != Rendering::Skip,
            keep_text: self.rendering == Rendering::Text,
            note_unsafe: self.rendering == Rendering::Quoted,
        };
        match read_model_with(d, read) {
            Ok(ReadOutcome::Model(model)) => vec![checked(model)],
            Ok(ReadOutcome::Pipeline(stages)) => stages
                .into_iter()
                .map(|s| match s {
                    Stage::Program(model) => checked(model),
                    Stage::Other {
                        sub_model,
                        what,
                        read,
                    } => ModelOutcome::Skipped(Skip {
                        what: format!("{sub_model}: {what}"),
                        read,
                    }),
                })
                .collect(),
            Ok(ReadOutcome::NotMlProgram { what, .. }) => {
                vec![ModelOutcome::Skipped(Skip { what, read: None })]
            }
            Err(e) => vec![ModelOutcome::Failed(e)],
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

/// The run with each fixed model's results replaced by the results of re-checking what was
/// written for it (`written[i]` came from `written_from[i]`); the results of a pipeline's
/// sub-models are replaced together.
fn merge_fixed(
    run: CheckRun,
    rerun: CheckRun,
    written: &[PathBuf],
    written_from: &[PathBuf],
) -> CheckRun {
    let mut fresh: Vec<Option<ModelResult>> = rerun.models.into_iter().map(Some).collect();
    let mut replaced: Vec<PathBuf> = Vec::new();
    let mut models = Vec::with_capacity(run.models.len());
    for m in run.models {
        let Some(w) = written_from
            .iter()
            .position(|p| *p == m.path)
            .and_then(|i| written.get(i))
        else {
            models.push(m);
            continue;
        };
        if replaced.contains(&m.path) {
            continue;
        }
        let new: Vec<ModelResult> = fresh
            .iter_mut()
            .filter(|r| r.as_ref().is_some_and(|r| same_path(&r.path, w)))
            .filter_map(Option::take)
            .collect();
        if new.is_empty() {
            models.push(m);
        } else {
            replaced.push(m.path.clone());
            models.extend(new);
        }
    }
    CheckRun {
        models,
        elapsed: run.elapsed + rerun.elapsed,
        target: run.target,
        baseline: None,
        compute_units: run.compute_units,
    }
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
        /// The model as read (its graphs released unless [`Keep::Programs`]).
        model: Box<Model>,
        /// Its findings after the settings, sorted.
        findings: Vec<Finding>,
    },
    /// A model of a kind that is not checked (not an ML program).
    Skipped(Skip),
    /// Could not be read.
    Failed(ReadError),
}

/// A model, or a pipeline's stage, without an ML program.
#[derive(Debug)]
pub struct Skip {
    /// What it is, e.g. `sub-model 1: a non-maximum suppression model` (what `Display` shows).
    pub what: String,
    /// What was read from it (a non-maximum suppression stage's labels and inputs), when anything
    /// was: the rules then check it with the program it follows.
    pub read: Option<String>,
}

impl Skip {
    /// The line of the list of models without a program, e.g. `…: not an ML Program, not checked`.
    pub fn note(&self) -> String {
        match &self.read {
            None => format!("{}: not an ML Program, not checked", self.what),
            Some(read) => format!(
                "{}: not an ML Program; {read}; checked with the program that feeds it",
                self.what
            ),
        }
    }
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.what)
    }
}

/// One model's result.
#[derive(Debug)]
pub struct ModelResult {
    /// The model root as discovered.
    pub path: PathBuf,
    /// What happened to it.
    pub outcome: ModelOutcome,
}

/// Every model a `check` read, in a deterministic order.
#[derive(Debug, Default)]
pub struct CheckRun {
    /// One result per discovered model, in discovery order.
    pub models: Vec<ModelResult>,
    /// Wall time of the reading and linting (and re-checking after fixes).
    pub elapsed: Duration,
    /// The deployment target the rules checked for (`None`: every family, any OS).
    pub target: Option<DeployTarget>,
    /// What the baseline did: the comparison (the findings above are then only the new ones) or
    /// the file written.
    pub baseline: Option<BaselineOutcome>,
    /// The compute units the rules checked for.
    pub compute_units: ComputeUnits,
}

/// Counts for the summary line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Models read and checked.
    pub checked: usize,
    /// Models and pipeline sub-models skipped (not ML programs): one per entry of the list of
    /// what was not checked.
    pub skipped: usize,
    /// Models that could not be read.
    pub failed: usize,
    /// Findings of severity error.
    pub errors: usize,
    /// Findings of severity warning.
    pub warnings: usize,
    /// Findings of severity info.
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
        // The sub-models of one pipeline are consecutive results with one path: one model.
        for group in self.models.chunk_by(|a, b| a.path == b.path) {
            let count =
                |f: fn(&ModelOutcome) -> bool| group.iter().filter(|m| f(&m.outcome)).count();
            s.failed += count(|o| matches!(o, ModelOutcome::Failed(_)));
            // Every entry of the list of what was not checked: a model, or a pipeline's stage.
            s.skipped += count(|o| matches!(o, ModelOutcome::Skipped(_)));
            if count(|o| matches!(o, ModelOutcome::Checked { .. })) > 0 {
                s.checked += 1;
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

    /// The first model's function count and findings, checked alone or beside another model.
    fn checked(keep: Keep, alone: bool) -> (usize, Vec<Finding>) {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/packages");
        let mut paths = vec![corpus.join("state-dynamic-begin.mlpackage")];
        if !alone {
            paths.push(corpus.join("state-full-extent-write.mlpackage"));
        }
        let found = discover(&paths);
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
    fn a_report_only_run_of_several_models_releases_the_graphs_and_keeps_the_findings() {
        let (kept, with_graphs) = checked(Keep::Programs, false);
        let (released, without) = checked(Keep::Reports, false);
        assert!(kept > 0);
        assert_eq!(released, 0);
        assert!(!with_graphs.is_empty());
        assert_eq!(with_graphs, without);
        // One model alone keeps its graphs, which are the whole run's memory anyway.
        let (alone, findings) = checked(Keep::Reports, true);
        assert_eq!(alone, kept);
        assert_eq!(findings, with_graphs);
    }

    /// corpus/ checked with the built-in rules, its graphs released, protobuf programs rendered as asked.
    fn corpus_run(rendering: Rendering) -> CheckRun {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let settings = Settings::resolve(None, Default::default()).expect("settings");
        Checker::with_rules(settings, RuleSet::builtin().expect("rules"))
            .rendering(rendering)
            .run_discovered(
                discover(std::slice::from_ref(&corpus)),
                &|| {},
                Keep::Reports,
            )
    }

    #[test]
    fn skipping_the_rendering_leaves_every_report_that_shows_no_text_unchanged() {
        let (rendered, mut skipped) = (corpus_run(Rendering::Text), corpus_run(Rendering::Skip));
        skipped.elapsed = rendered.elapsed;
        assert!(rendered.findings().count() > 20);
        // JSON differs only in the lines of the rendered text (`dump_line`, `dump_column`).
        let json = |run: &CheckRun, keep_dump: bool| {
            let mut doc: serde_json::Value =
                serde_json::from_str(&crate::report::json::render(run)).expect("JSON");
            let mut dumped = 0;
            for d in doc["diagnostics"].as_array_mut().into_iter().flatten() {
                for key in ["dump_line", "dump_column"] {
                    dumped += usize::from(!d[key].is_null());
                    if !keep_dump {
                        d[key] = serde_json::Value::Null;
                    }
                }
            }
            (doc, dumped)
        };
        let ((rendered_json, dumped), (skipped_json, none)) =
            (json(&rendered, false), json(&skipped, true));
        assert!(dumped > 20, "rendered packages have dump lines");
        assert_eq!(none, 0);
        assert_eq!(rendered_json, skipped_json);
        assert_eq!(
            crate::report::concise::render(&rendered),
            crate::report::concise::render(&skipped)
        );
        let base = std::path::Path::new(".");
        assert_eq!(
            crate::report::github::render(&rendered, base),
            crate::report::github::render(&skipped, base)
        );
        let mut packages = 0;
        for (a, b) in rendered.models.iter().zip(&skipped.models) {
            if let (
                ModelOutcome::Checked { model: a, .. },
                ModelOutcome::Checked { model: b, .. },
            ) = (&a.outcome, &b.outcome)
            {
                assert_eq!(a.source.is_file, b.source.is_file);
                if a.source.is_file {
                    assert_eq!(a.source.text, b.source.text);
                } else {
                    packages += 1;
                    assert!(!a.source.text.is_empty() && b.source.text.is_empty());
                }
            }
        }
        assert!(packages > 10, "the corpus has packages");
    }

    #[test]
    fn json_from_the_line_index_is_json_from_the_text() {
        let (text, mut lines) = (corpus_run(Rendering::Text), corpus_run(Rendering::Lines));
        lines.elapsed = text.elapsed;
        let json = crate::report::json::render(&text);
        assert!(json.contains("\"dump_line\": "), "packages have dump lines");
        assert_eq!(json, crate::report::json::render(&lines));
        let mut indexed = 0;
        for m in &lines.models {
            if let ModelOutcome::Checked { model, .. } = &m.outcome {
                if model.source.lines.is_some() {
                    indexed += 1;
                    assert!(model.source.text.is_empty(), "{}", model.path.display());
                }
            }
        }
        assert!(
            indexed > 10,
            "the corpus's packages are indexed, not rendered"
        );
    }

    #[test]
    fn human_output_from_the_quoted_lines_is_human_output_from_the_text() {
        let (text, mut quoted) = (corpus_run(Rendering::Text), corpus_run(Rendering::Quoted));
        quoted.elapsed = text.elapsed;
        let opts = crate::report::human::HumanOptions {
            width: Some(100),
            ..Default::default()
        };
        let human = crate::report::human::render(&text, opts);
        assert!(human.contains("coreml-lint dump"), "packages are quoted");
        assert_eq!(human, crate::report::human::render(&quoted, opts));
        let mut quoting = 0;
        for m in &quoted.models {
            if let ModelOutcome::Checked { model, findings } = &m.outcome {
                if let Some(lines) = &model.source.lines {
                    assert!(model.source.text.is_empty(), "{}", model.path.display());
                    if findings.iter().any(|f| f.span.is_some()) {
                        quoting += 1;
                        assert!(!lines.quoted.is_empty(), "{}", model.path.display());
                        assert!(lines.quoted.len() < lines.index.count());
                    }
                }
            }
        }
        assert!(quoting > 5, "the corpus's packages quote lines: {quoting}");
    }

    /// A folder with a user rule `no-relu` (renamed from `old-relu`) and a model with a relu.
    fn renamed_rule_fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let rules = dir.path().join("rules");
        std::fs::create_dir(&rules).expect("rules folder");
        std::fs::write(
            rules.join("no-relu.yaml"),
            "id: no-relu\ntitle: t\nseverity: error\nmatch: { op: relu }\nmessage: \"`{OP}`\"\n",
        )
        .expect("rule");
        std::fs::write(rules.join("redirects.yaml"), "old-relu: no-relu\n").expect("redirects");
        let model = dir.path().join("model.mil");
        std::fs::write(
            &model,
            "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 4]> x) {\n            tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n",
        )
        .expect("model");
        (dir, rules, model)
    }

    fn rules_found(model: &Path, overrides: Overrides) -> Vec<String> {
        let options = CheckOptions {
            config: ConfigFile::Isolated,
            overrides,
            ..CheckOptions::default()
        };
        let outcome = check(&[model.to_path_buf()], &options).expect("check runs");
        outcome.run.findings().map(|f| f.rule.clone()).collect()
    }

    #[test]
    fn select_and_ignore_follow_redirects() {
        let (_dir, rules, model) = renamed_rule_fixture();
        let selected = rules_found(
            &model,
            Overrides {
                select: Some(vec!["old-relu".into()]),
                rules: vec![rules.clone()],
                ..Overrides::default()
            },
        );
        assert_eq!(selected, vec!["no-relu".to_string()]);
        let ignored = rules_found(
            &model,
            Overrides {
                ignore: vec!["old-relu".into()],
                rules: vec![rules],
                ..Overrides::default()
            },
        );
        assert!(!ignored.contains(&"no-relu".to_string()), "{ignored:?}");
    }

    #[test]
    fn a_bad_rule_folder_is_an_error_not_a_panic() {
        let options = CheckOptions {
            config: ConfigFile::Isolated,
            overrides: Overrides {
                rules: vec![PathBuf::from("/nonexistent/rules")],
                ..Overrides::default()
            },
            ..CheckOptions::default()
        };
        assert!(matches!(
            check(&[PathBuf::from(".")], &options),
            Err(CheckError::Rules(_))
        ));
    }
}
