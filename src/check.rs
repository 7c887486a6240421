//! The `check` pipeline: discover → read (in parallel) → analyse and match rules → settings → run.

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;

use crate::config::Settings;
use crate::discover::{discover, Discovered};
use crate::finding::Finding;
use crate::ir::Model;
use crate::read::{read_model, ReadError, ReadOutcome};
use crate::report::{CheckRun, ModelOutcome, ModelResult};

/// Discovers every model under `paths`, then [`run_discovered`].
pub fn run<F>(paths: &[PathBuf], settings: &Settings, lint: F) -> CheckRun
where
    F: Fn(&Model) -> Vec<Finding> + Sync,
{
    run_discovered(discover(paths), settings, lint, &|| {})
}

/// Reads every discovered model in parallel and runs `lint` on each; results come back in
/// discovery order whatever the scheduling, and one unreadable model does not stop the others.
/// `on_done` is called once per model (for progress).
pub fn run_discovered<F>(
    found: Vec<Result<Discovered, ReadError>>,
    settings: &Settings,
    lint: F,
    on_done: &(dyn Fn() + Sync),
) -> CheckRun
where
    F: Fn(&Model) -> Vec<Finding> + Sync,
{
    let started = Instant::now();
    let models: Vec<ModelResult> = found
        .into_par_iter()
        .map(|d| {
            let result = match d {
                Err(e) => ModelResult {
                    path: e.path().to_path_buf(),
                    outcome: ModelOutcome::Failed(e),
                },
                Ok(d) => {
                    let outcome = match read_model(&d) {
                        Ok(ReadOutcome::Model(model)) => {
                            let mut findings = settings.apply(lint(&model));
                            findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
                            ModelOutcome::Checked { model, findings }
                        }
                        Ok(ReadOutcome::NotMlProgram { what, .. }) => ModelOutcome::Skipped(what),
                        Err(e) => ModelOutcome::Failed(e),
                    };
                    ModelResult {
                        path: d.path,
                        outcome,
                    }
                }
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
