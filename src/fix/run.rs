//! `check --fix` / `--unsafe-fixes` / `--diff` / `--output`: applies the fixes the findings of a
//! check offer, model by model, and says what it did.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::PathBuf;

use super::{apply, moved_to, FixError, FixMode, PadRequest};
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

/// The fix primitive the pad belongs to (offered by `state-full-extent-write` and `state-blend-rmw`).
const PAD_STATE: &str = "pad-state";

/// Applies every offered fix of every checked model in `run`.
pub fn fix_run(run: &CheckRun, opts: &FixOptions) -> FixRun {
    let mut out = FixRun::default();
    for m in &run.models {
        let ModelOutcome::Checked { model, findings } = &m.outcome else {
            continue;
        };
        let requests = pad_requests(findings, opts.pad_axis);
        if requests.is_empty() {
            continue;
        }
        // A second sub-model of a pipeline already copied under --output is fixed in that copy.
        let copied = out
            .written_from
            .iter()
            .position(|p| *p == model.path)
            .and_then(|i| out.written.get(i))
            .filter(|_| opts.output.is_some() && !opts.diff_only)
            .map(|root| moved_to(model, root));
        let mode = match (&opts.output, opts.diff_only, copied.is_some()) {
            (_, true, _) => FixMode::DiffOnly,
            (Some(dir), false, false) => FixMode::Output(dir.clone()),
            (_, false, _) => FixMode::InPlace,
        };
        let target = copied.as_ref().unwrap_or(model);
        let who = match &model.sub_model {
            Some(sub) => format!("{} ({sub})", model.path.display()),
            None => model.path.display().to_string(),
        };
        match apply(target, &requests, opts.allow_unsafe, mode) {
            Ok(outcome) => {
                out.diff.push_str(&outcome.diff);
                for plan in &outcome.applied {
                    let verb = if opts.diff_only {
                        "would pad"
                    } else {
                        "padded"
                    };
                    out.messages.push(format!(
                        "{who}: {verb} state `{}` {:?} → {:?} on axis {}",
                        plan.state, plan.old_shape, plan.new_shape, plan.axis
                    ));
                }
                out.messages
                    .extend(outcome.notes.iter().map(|n| format!("{who}: {n}")));
                if let Some(root) = outcome.written {
                    if !out.written.contains(&root) {
                        out.written.push(root);
                        out.written_from.push(model.path.clone());
                    }
                }
            }
            Err(FixError::Refused(refusal, _)) => {
                out.messages.push(format!("{who}: not fixed: {refusal}"));
            }
            Err(e) => {
                if !matches!(e, FixError::Unsupported { .. }) {
                    out.failures += 1;
                }
                out.messages.push(match &model.sub_model {
                    Some(sub) => format!("{e} (in {sub})"),
                    None => e.to_string(),
                });
            }
        }
    }
    out
}

/// For each text model (`model.mil` on disk) with offered pad fixes, the whole fixed `model.mil`:
/// what SARIF's `fixes` carry as the replacement. Unsafe fixes are included (SARIF says which).
pub fn fixed_texts(run: &CheckRun, pad_axis: Option<usize>) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for m in &run.models {
        let ModelOutcome::Checked { model, findings } = &m.outcome else {
            continue;
        };
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

fn pad_requests(findings: &[crate::finding::Finding], pad_axis: Option<usize>) -> Vec<PadRequest> {
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
