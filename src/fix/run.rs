//! `check --fix` / `--unsafe-fixes` / `--diff` / `--output`: applies the fixes the findings of
//! checked models offer, model by model, and says what it did.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::PathBuf;

use super::{apply, FixError, FixMode, PadRequest};
use crate::finding::Finding;
use crate::ir::Model;

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

/// The fix primitive the pad belongs to (offered by `state-full-extent-write` and `state-blend-rmw`).
const PAD_STATE: &str = "pad-state";

/// Applies every offered fix of each checked model (a model with its sorted findings).
pub fn fix_models<'a>(
    models: impl IntoIterator<Item = (&'a Model, &'a [Finding])>,
    opts: &FixOptions,
) -> FixRun {
    let mut out = FixRun::default();
    for (model, findings) in models {
        let requests = pad_requests(findings, opts.pad_axis);
        if requests.is_empty() {
            continue;
        }
        let mode = match (&opts.output, opts.diff_only) {
            (_, true) => FixMode::DiffOnly,
            (Some(dir), false) => FixMode::Output(dir.clone()),
            (None, false) => FixMode::InPlace,
        };
        match apply(model, &requests, opts.allow_unsafe, mode) {
            Ok(outcome) => {
                out.diff.push_str(&outcome.diff);
                for plan in &outcome.applied {
                    let verb = if opts.diff_only {
                        "would pad"
                    } else {
                        "padded"
                    };
                    out.messages.push(format!(
                        "{}: {verb} state `{}` {:?} → {:?} on axis {}",
                        model.path.display(),
                        plan.state,
                        plan.old_shape,
                        plan.new_shape,
                        plan.axis
                    ));
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

/// For each text model (`model.mil` on disk) with offered pad fixes, the whole fixed `model.mil`:
/// what SARIF's `fixes` carry as the replacement. Unsafe fixes are included (SARIF says which).
pub fn fixed_texts<'a>(
    models: impl IntoIterator<Item = (&'a Model, &'a [Finding])>,
    pad_axis: Option<usize>,
) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for (model, findings) in models {
        if !model.source.is_file {
            continue;
        }
        let requests = pad_requests(findings, pad_axis);
        if requests.is_empty() {
            continue;
        }
        if let Ok(outcome) = apply(model, &requests, true, FixMode::DiffOnly) {
            if let Some(after) = outcome.after {
                out.insert(model.source.file.clone(), after);
            }
        }
    }
    out
}

fn pad_requests(findings: &[Finding], pad_axis: Option<usize>) -> Vec<PadRequest> {
    let states: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.fix.as_ref().is_some_and(|x| x.kind == PAD_STATE))
        .filter_map(|f| f.state.as_deref())
        .collect();
    states
        .into_iter()
        .map(|s| PadRequest {
            state: s.to_string(),
            axis: pad_axis,
        })
        .collect()
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
