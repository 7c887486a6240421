//! `check --fix` / `--unsafe-fixes` / `--diff` / `--output`: applies the fixes the findings of a
//! check offer, model by model, and says what it did.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use super::{apply_plans, plan_requests, FixError, FixMode, PadPlan, PadRequest};
use crate::ir::Model;
use crate::report::{CheckRun, ModelOutcome};

/// How `check` was asked to fix.
#[derive(Clone, Debug, Default)]
pub struct FixOptions {
    pub allow_unsafe: bool,
    /// `--diff` without `--fix`: print what would change, write nothing.
    pub diff_only: bool,
    /// `--output DIR`: write fixed copies there.
    pub output: Option<PathBuf>,
    /// `--pad-axis`.
    pub pad_axis: Option<usize>,
}

/// What a fix pass did over a whole run.
#[derive(Debug, Default)]
pub struct FixRun {
    /// Unified diffs (for `--diff`), one after another.
    pub diff: String,
    /// One line per model fixed, held back, or refused.
    pub messages: Vec<String>,
    /// Roots of written models (the input in place, or the copy under `--output`).
    pub written: Vec<PathBuf>,
    /// The model each written root came from, in the same order.
    pub written_from: Vec<PathBuf>,
    /// Fixes that could not be written (I/O, internal): these make the exit code 2.
    pub failures: usize,
}

/// Applies every offered fix of every checked model in `run`.
pub fn fix_run(run: &CheckRun, opts: &FixOptions) -> FixRun {
    let mut out = FixRun::default();
    for m in &run.models {
        let ModelOutcome::Checked { model, findings } = &m.outcome else {
            continue;
        };
        let mode = match (&opts.output, opts.diff_only) {
            (_, true) => FixMode::DiffOnly,
            (Some(dir), false) => FixMode::Output(dir.clone()),
            (None, false) => FixMode::InPlace,
        };
        let applied = offered_plans(model, findings, opts.pad_axis).and_then(|plans| {
            match plans.is_empty() {
                true => Ok(None),
                false => apply_plans(model, &plans, opts.allow_unsafe, mode).map(Some),
            }
        });
        match applied {
            Ok(None) => {}
            Ok(Some(outcome)) => {
                out.diff.push_str(&outcome.diff);
                for plan in &outcome.applied {
                    let (pad, unwrap) = match opts.diff_only {
                        true => ("would pad", "would remove"),
                        false => ("padded", "removed"),
                    };
                    let path = model.path.display();
                    if !plan.unwrapped.is_empty() {
                        out.messages.push(format!(
                            "{path}: {unwrap} the full-window wrappers {} of state `{}`",
                            plan.unwrapped.join(", "),
                            plan.state
                        ));
                    }
                    if plan.pads() {
                        out.messages.push(format!(
                            "{path}: {pad} state `{}` {:?} → {:?} on axis {}",
                            plan.state, plan.old_shape, plan.new_shape, plan.axis
                        ));
                    }
                }
                out.messages.extend(
                    outcome
                        .notes
                        .iter()
                        .map(|n| format!("{}: {n}", model.path.display())),
                );
                if let Some(root) = outcome.written {
                    out.written.push(root);
                    out.written_from.push(model.path.clone());
                }
            }
            Err(FixError::Refused(refusal, path)) => {
                out.messages
                    .push(format!("{}: not fixed: {refusal}", path.display()));
            }
            Err(e @ FixError::Unsupported { .. }) => out.messages.push(e.to_string()),
            Err(e) => {
                out.failures += 1;
                out.messages.push(e.to_string());
            }
        }
    }
    out
}

/// For each text model (`model.mil` on disk) with offered state fixes, the whole fixed
/// `model.mil`: what SARIF's `fixes` carry as the replacement. Unsafe fixes are included (SARIF
/// says which).
pub fn fixed_texts(run: &CheckRun, pad_axis: Option<usize>) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for m in &run.models {
        let ModelOutcome::Checked { model, findings } = &m.outcome else {
            continue;
        };
        if !model.source.is_file {
            continue;
        }
        let Ok(plans) = offered_plans(model, findings, pad_axis) else {
            continue;
        };
        if plans.is_empty() {
            continue;
        }
        if let Ok(outcome) = apply_plans(model, &plans, true, FixMode::DiffOnly) {
            if let Some(after) = outcome.after {
                out.insert(model.source.file.clone(), after);
            }
        }
    }
    out
}

/// The plans the findings offer, one per state, exactly as offered; with `--pad-axis` the offered
/// states are planned again on that axis.
fn offered_plans(
    model: &Model,
    findings: &[crate::finding::Finding],
    pad_axis: Option<usize>,
) -> Result<Vec<PadPlan>, FixError> {
    let mut plans: BTreeMap<&str, &PadPlan> = BTreeMap::new();
    for f in findings {
        if let Some(plan) = f.fix.as_ref().and_then(|x| x.plan.as_deref()) {
            plans.entry(plan.state.as_str()).or_insert(plan);
        }
    }
    match pad_axis {
        None => Ok(plans.into_values().cloned().collect()),
        Some(axis) => {
            let requests: Vec<PadRequest> = plans
                .into_keys()
                .map(|s| PadRequest {
                    state: s.to_string(),
                    axis: Some(axis),
                })
                .collect();
            plan_requests(model, &requests)
        }
    }
}

impl FixRun {
    /// The messages as lines.
    pub fn render_messages(&self) -> String {
        let mut s = String::new();
        for m in &self.messages {
            let _ = writeln!(s, "{m}");
        }
        s
    }
}
