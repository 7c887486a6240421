//! `check --fix` / `--unsafe-fixes` / `--diff` / `--output`: applies the fixes the findings of
//! checked models offer, model by model, and says what it did.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use super::{apply_plans, moved_to, plan_requests, FixError, FixMode, PadPlan, PadRequest};
use crate::finding::Finding;
use crate::ir::Model;

/// How `check` was asked to fix.
#[derive(Clone, Debug, Default)]
pub struct FixOptions {
    /// `--unsafe-fixes`: apply unsafe fixes too.
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
    /// Rule id → findings whose fix was applied (or, with `diff_only`, would be).
    pub fixed: BTreeMap<String, usize>,
    /// Models with at least one fix applied.
    pub models_fixed: usize,
    /// Only a diff was made: nothing was written.
    pub diff_only: bool,
}

/// Applies every offered fix of each checked model (a model with its sorted findings).
pub(crate) fn fix_models<'a>(
    models: impl IntoIterator<Item = (&'a Model, &'a [Finding])>,
    opts: &FixOptions,
) -> FixRun {
    let mut out = FixRun {
        diff_only: opts.diff_only,
        ..FixRun::default()
    };
    for (model, findings) in models {
        let plans = offered_plans(model, findings, opts.pad_axis);
        if plans.as_ref().is_ok_and(Vec::is_empty) {
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
        match plans.and_then(|plans| apply_plans(target, &plans, opts.allow_unsafe, mode)) {
            Ok(outcome) => {
                out.diff.push_str(&outcome.diff);
                out.models_fixed += usize::from(!outcome.applied.is_empty());
                for plan in &outcome.applied {
                    for f in findings.iter().filter(|f| offers(f, &plan.key())) {
                        *out.fixed.entry(f.rule.clone()).or_default() += 1;
                    }
                }
                for plan in &outcome.applied {
                    if let Some(r) = &plan.rewrite {
                        let verb = if opts.diff_only {
                            "would rewrite"
                        } else {
                            "rewrote"
                        };
                        out.messages.push(format!("{who}: {verb} {}", r.what));
                        continue;
                    }
                    let (pad, unwrap) = match opts.diff_only {
                        true => ("would pad", "would remove"),
                        false => ("padded", "removed"),
                    };
                    if !plan.unwrapped.is_empty() {
                        out.messages.push(format!(
                            "{who}: {unwrap} the full-window wrappers {} of state `{}`",
                            plan.unwrapped.join(", "),
                            plan.state
                        ));
                    }
                    if plan.pads() {
                        out.messages.push(format!(
                            "{who}: {pad} state `{}` {:?} → {:?} on axis {}",
                            plan.state, plan.old_shape, plan.new_shape, plan.axis
                        ));
                    }
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

/// Whether the finding offers the fix whose plan has `key` (a state, or an op rewrite's op).
fn offers(f: &Finding, key: &str) -> bool {
    f.fix
        .as_ref()
        .and_then(|x| x.plan.as_deref())
        .is_some_and(|p| p.key() == key)
}

/// For each text model (`model.mil` on disk) with offered pad fixes, the whole fixed `model.mil`:
/// what SARIF's `fixes` carry as the replacement. Unsafe fixes are included (SARIF says which);
/// fixes that also edit a weight file are left out (the text alone would not match its weights).
pub fn fixed_texts<'a>(
    models: impl IntoIterator<Item = (&'a Model, &'a [Finding])>,
    pad_axis: Option<usize>,
) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for (model, findings) in models {
        if !model.source.is_file {
            continue;
        }
        let Ok(mut plans) = offered_plans(model, findings, pad_axis) else {
            continue;
        };
        // A plan that also edits a weight file is not one replacement of `model.mil`.
        plans.retain(|p| p.weights.is_empty());
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
    findings: &[Finding],
    pad_axis: Option<usize>,
) -> Result<Vec<PadPlan>, FixError> {
    let mut plans: BTreeMap<String, &PadPlan> = BTreeMap::new();
    for f in findings {
        if let Some(plan) = f.fix.as_ref().and_then(|x| x.plan.as_deref()) {
            plans.entry(plan.key()).or_insert(plan);
        }
    }
    match pad_axis {
        None => Ok(plans.into_values().cloned().collect()),
        Some(axis) => {
            // Op rewrites keep their plan; the states are planned again on the requested axis.
            let (rewrites, states): (Vec<&PadPlan>, Vec<&PadPlan>) =
                plans.into_values().partition(|p| p.rewrite.is_some());
            let requests: Vec<PadRequest> = states
                .into_iter()
                .map(|p| PadRequest {
                    state: p.state.clone(),
                    axis: Some(axis),
                })
                .collect();
            let mut out = plan_requests(model, &requests)?;
            out.extend(rewrites.into_iter().cloned());
            Ok(out)
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
        if let Some(summary) = self.summary() {
            let _ = writeln!(s, "{summary}");
        }
        s
    }

    /// `Fixed 2 findings in 1 model (state-full-extent-write: 2)`, or `Would fix …` for a diff;
    /// `None` when nothing was fixed.
    pub fn summary(&self) -> Option<String> {
        let total: usize = self.fixed.values().sum();
        if total == 0 {
            return None;
        }
        let plural = |n: usize, word: &str| match n {
            1 => format!("1 {word}"),
            n => format!("{n} {word}s"),
        };
        let per_rule: Vec<String> = self
            .fixed
            .iter()
            .map(|(r, n)| format!("{r}: {n}"))
            .collect();
        Some(format!(
            "{} {} in {} ({})",
            if self.diff_only { "Would fix" } else { "Fixed" },
            plural(total, "finding"),
            plural(self.models_fixed, "model"),
            per_rule.join(", ")
        ))
    }
}
