//! The `check` pipeline: discover → read (in parallel) → analyse and match rules → settings → run.

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;

use crate::config::Settings;
use crate::discover::{discover, Discovered};
use crate::finding::Finding;
use crate::ir::Model;
use crate::read::{read_model, ReadError, ReadOutcome, Stage};
use crate::report::{CheckRun, ModelOutcome, ModelResult};

/// What a run keeps of each checked model once it is linted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The whole model, graphs included (for fixes, SARIF fixes and the placement estimate).
    Programs,
    /// Everything but the functions' graphs: what reporters read (path, source text, findings).
    /// A folder of models then needs the memory of one model per thread, not of all of them.
    Reports,
}

/// Discovers every model under `paths`, then [`run_discovered`], keeping whole models.
pub fn run<F>(paths: &[PathBuf], settings: &Settings, lint: F) -> CheckRun
where
    F: Fn(&Model) -> Vec<Finding> + Sync,
{
    run_discovered(discover(paths), settings, lint, &|| {}, Keep::Programs)
}

/// Reads every discovered model in parallel and runs `lint` on each; results come back in
/// discovery order whatever the scheduling, and one unreadable model does not stop the others.
/// A pipeline gives one result per sub-model, all with the pipeline's path.
/// `on_done` is called once per model (for progress).
pub fn run_discovered<F>(
    found: Vec<Result<Discovered, ReadError>>,
    settings: &Settings,
    lint: F,
    on_done: &(dyn Fn() + Sync),
    keep: Keep,
) -> CheckRun
where
    F: Fn(&Model) -> Vec<Finding> + Sync,
{
    let started = Instant::now();
    let checked = |mut model: Box<Model>| {
        let mut findings = settings.apply(lint(&model));
        findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        if keep == Keep::Reports {
            release_graphs(&mut model);
        }
        ModelOutcome::Checked { model, findings }
    };
    let models: Vec<Vec<ModelResult>> = found
        .into_par_iter()
        .map(|d| {
            let results = match d {
                Err(e) => vec![ModelResult {
                    path: e.path().to_path_buf(),
                    outcome: ModelOutcome::Failed(e),
                }],
                Ok(d) => {
                    let outcomes = match read_model(&d) {
                        Ok(ReadOutcome::Model(model)) => vec![checked(model)],
                        // Each sub-model is linted as a model of its own, in pipeline order.
                        Ok(ReadOutcome::Pipeline(stages)) => stages
                            .into_iter()
                            .map(|s| match s {
                                Stage::Program(model) => checked(model),
                                Stage::Other { sub_model, what } => {
                                    ModelOutcome::Skipped(format!("{sub_model}: {what}"))
                                }
                            })
                            .collect(),
                        Ok(ReadOutcome::NotMlProgram { what, .. }) => {
                            vec![ModelOutcome::Skipped(what)]
                        }
                        Err(e) => vec![ModelOutcome::Failed(e)],
                    };
                    outcomes
                        .into_iter()
                        .map(|outcome| ModelResult {
                            path: d.path.clone(),
                            outcome,
                        })
                        .collect()
                }
            };
            on_done();
            results
        })
        .collect();
    CheckRun {
        models: models.into_iter().flatten().collect(),
        elapsed: started.elapsed(),
    }
}

/// Frees the functions of a linted model. They are dropped on a background thread: freeing a
/// large graph node by node costs as much as a tenth of its check.
fn release_graphs(model: &mut Model) {
    let functions = std::mem::take(&mut model.program.functions);
    rayon::spawn(move || drop(functions));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::Linter;
    use crate::rules::RuleSet;

    fn checked(keep: Keep) -> (usize, Vec<Finding>) {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/packages");
        let found = discover(&[corpus.join("state-dynamic-begin.mlpackage")]);
        let settings = Settings::resolve(None, Default::default()).expect("settings");
        let linter = Linter::new(RuleSet::builtin().expect("rules"));
        let run = run_discovered(found, &settings, |m| linter.lint(m), &|| {}, keep);
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
