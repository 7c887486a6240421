//! Fixes: graph rewrites, write-back (protobuf / text) and atomic file replacement.
//!
//! The one fix is the state fix of `state-full-extent-write` (HAZARDS.md H1, H4b): remove
//! full-window wrappers, then pad the state one row. [`plan::plan_model`] computes each state's plan
//! once from the analysis; findings carry it; [`apply_plans`] applies exactly those plans to the model
//! on disk (or only renders the diff) through the write-back of its container.

pub(crate) mod diff;
pub(crate) mod edit;
pub(crate) mod manifest_edit;
pub(crate) mod metadata_json;
pub(crate) mod proto_edit;
pub mod run;
pub mod splice;
pub(crate) mod text_edit;
pub(crate) mod weight_edit;
pub(crate) mod write;

use std::fs;
use std::path::{Path, PathBuf};

use crate::finding::Applicability;
use crate::ir::render::render_to_string;
use crate::ir::{Model, ModelKind};

pub use crate::analysis::fix_plan::{
    plan_model, plan_pad, plan_state, FixRefusal, ModelPlans, PadPlan, PadRequest,
};
pub use write::WriteError;

/// Where the fixed model goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FixMode {
    /// Replace the model's files in place (atomically).
    InPlace,
    /// Copy the model into this folder first and fix the copy; the input is never touched.
    Output(PathBuf),
    /// Compute the diff only; write nothing.
    DiffOnly,
}

/// What a fix run did.
#[derive(Clone, Debug, Default)]
pub struct FixOutcome {
    /// Plans applied, in request order.
    pub applied: Vec<PadPlan>,
    /// Unsafe plans left out because unsafe fixes were not allowed.
    pub held_back: Vec<PadPlan>,
    /// Plans with nothing to do (the state is already padded).
    pub noops: Vec<PadPlan>,
    /// Unified diff of the text-MIL dump before → after (empty when nothing changed).
    pub diff: String,
    /// The text-MIL dump after the fix (`None` when nothing changed).
    pub after: Option<String>,
    /// The fixed model's root, when something was written.
    pub written: Option<PathBuf>,
    /// Files replaced.
    pub files: Vec<PathBuf>,
    /// One line each for the user: an unsafe plan held back, a text model re-rendered in the
    /// compiler's layout instead of edited in place.
    pub notes: Vec<String>,
}

/// Why a fix run changed nothing on disk.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FixError {
    /// The analysis refused a requested state (the reason, and the model's path).
    #[error("{}: {}", .1.display(), .0)]
    Refused(FixRefusal, PathBuf),
    /// The model is of a kind the fixer cannot edit (not an ML program, …).
    #[error("{}: not fixed: {message}", path.display())]
    Unsupported {
        /// The model.
        path: PathBuf,
        /// What cannot be fixed, and why.
        message: String,
    },
    /// Writing the fixed files failed; every original is unchanged.
    #[error("not fixed: {0}")]
    Write(#[from] WriteError),
    /// Re-reading, editing or re-encoding the model's protobuf failed, or the result does not lower
    /// to the edited program; caught before anything was written.
    #[error("{}: internal error while fixing, nothing was written: {message}", path.display())]
    Internal {
        /// The model.
        path: PathBuf,
        /// What did not check out.
        message: String,
    },
}

/// The error for an input that is not an ML program (neural network, pipeline, …).
pub(crate) fn not_ml_program(path: &Path, what: &str) -> FixError {
    FixError::Unsupported {
        path: path.to_path_buf(),
        message: format!("{what} is not an ML program; only ML programs can be fixed"),
    }
}

/// Plans the requested states of `model` (each on its requested axis). A refusal of any of them
/// refuses all.
pub(crate) fn plan_requests(
    model: &Model,
    requests: &[PadRequest],
) -> Result<Vec<PadPlan>, FixError> {
    let facts: Vec<_> = model
        .program
        .functions
        .iter()
        .map(crate::analysis::analyze)
        .collect();
    requests
        .iter()
        .map(|r| {
            plan_state(model, &facts, &r.state, r.axis)
                .map_err(|e| FixError::Refused(e, model.path.clone()))
        })
        .collect()
}

/// Plans and applies the fix of each requested state (see [`apply_plans`]).
pub fn apply(
    model: &Model,
    requests: &[PadRequest],
    allow_unsafe: bool,
    mode: FixMode,
) -> Result<FixOutcome, FixError> {
    let plans = plan_requests(model, requests)?;
    apply_plans(model, &plans, allow_unsafe, mode)
}

/// [`apply`] with the writer of staged files replaced (fault-injection tests).
pub fn apply_with_writer(
    model: &Model,
    requests: &[PadRequest],
    allow_unsafe: bool,
    mode: FixMode,
    writer: write::Writer<'_>,
) -> Result<FixOutcome, FixError> {
    let plans = plan_requests(model, requests)?;
    apply_plans_with_writer(model, &plans, allow_unsafe, mode, writer)
}

/// Applies `plans` (one per state, computed on `model`) per `mode`, all in one edit: nothing is
/// written unless every plan applies. Idempotent: a plan with nothing to do is left out.
pub fn apply_plans(
    model: &Model,
    plans: &[PadPlan],
    allow_unsafe: bool,
    mode: FixMode,
) -> Result<FixOutcome, FixError> {
    apply_plans_with_writer(model, plans, allow_unsafe, mode, &mut write::plain_write)
}

/// [`apply_plans`] with the writer of staged files replaced.
pub(crate) fn apply_plans_with_writer(
    model: &Model,
    plans: &[PadPlan],
    allow_unsafe: bool,
    mode: FixMode,
    writer: write::Writer<'_>,
) -> Result<FixOutcome, FixError> {
    let internal = |message: String| FixError::Internal {
        path: model.path.clone(),
        message,
    };
    let mut outcome = FixOutcome::default();
    for plan in plans {
        if plan.is_noop() {
            outcome.noops.push(plan.clone());
        } else if plan.applicability == Applicability::Unsafe && !allow_unsafe {
            outcome.notes.push(format!(
                "{}: the fix is unsafe; pass --unsafe-fixes to apply it",
                plan.subject()
            ));
            outcome.held_back.push(plan.clone());
        } else {
            outcome.applied.push(plan.clone());
        }
    }
    if outcome.applied.is_empty() {
        return Ok(outcome);
    }
    let refs: Vec<&PadPlan> = outcome.applied.iter().collect();
    let (edited, rendered) = edit::apply_to_program(&model.program, &refs).map_err(internal)?;
    let before = render_to_string(&model.program);
    let text_model = matches!(model.kind, ModelKind::MlModelc | ModelKind::MilText);
    let files = if text_model {
        let after = text_after(model, &refs, &edited, &rendered, &mut outcome.notes);
        let base = if model.source.is_file {
            &*model.source.text
        } else {
            before.as_str()
        };
        outcome.diff = diff::unified(base, &after, &model.source.name);
        outcome.after = Some(after.clone());
        text_files(model, &after, &outcome)?
    } else {
        outcome.diff = diff::unified(&before, &rendered, &model.source.name);
        outcome.after = Some(rendered.clone());
        protobuf_files(model, &rendered, &outcome)?
    };
    let (weights, weight_diff) = weight_edit::weight_files(model, &refs).map_err(internal)?;
    outcome.diff.push_str(&weight_diff);
    let mut files: Vec<(PathBuf, Vec<u8>)> = files.into_iter().chain(weights).collect();
    // A new weight file of a package is registered in its Manifest.json in the same swap.
    if let Some((manifest, diff)) =
        manifest_edit::register_weights(model, &files).map_err(|message| FixError::Unsupported {
            path: model.path.clone(),
            message,
        })?
    {
        outcome.diff.push_str(&diff);
        files.push(manifest);
    }
    // A copy under --output holds only what is inside the model's path: a file outside it (the
    // weights beside a bare `model.mil`) would be edited in the original.
    if let (FixMode::Output(_), Some((p, _))) = (
        &mode,
        files.iter().find(|(p, _)| !p.starts_with(&model.path)),
    ) {
        return Err(FixError::Unsupported {
            path: model.path.clone(),
            message: format!(
                "{} is outside the model, so --output cannot copy it; fix the model in place or give its folder",
                p.display()
            ),
        });
    }
    let root = match &mode {
        FixMode::DiffOnly => return Ok(outcome),
        FixMode::InPlace => {
            for (p, _) in &files {
                write::check_writable(p)?;
            }
            model.path.clone()
        }
        FixMode::Output(dir) => {
            let name = model
                .path
                .file_name()
                .ok_or_else(|| FixError::Unsupported {
                    path: model.path.clone(),
                    message: "the model path has no file name to copy under --output".into(),
                })?;
            let dst = dir.join(name);
            write::create_output_dir(dir)?;
            write::copy_model(&model.path, &dst)?;
            dst
        }
    };
    let targets: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .map(|(p, b)| (retarget(&p, &model.path, &root), b))
        .collect();
    // Several files of one package folder (model.mil + metadata.json) are swapped in together.
    let replaced = if targets.len() > 1 && root.is_dir() {
        write::replace_in_package(&root, &targets, writer)
    } else {
        write::replace_all(&targets, writer)
    };
    if let Err(e) = replaced {
        if matches!(mode, FixMode::Output(_)) {
            let _ = if root.is_dir() {
                fs::remove_dir_all(&root)
            } else {
                fs::remove_file(&root)
            };
        }
        return Err(e.into());
    }
    outcome.files = targets.into_iter().map(|(p, _)| p).collect();
    outcome.written = Some(root);
    Ok(outcome)
}

/// The fixed `model.mil` of a text model: span edits of the author's file when they read back as
/// the edited program, else the edited program in the compiler's layout (with a note).
fn text_after(
    model: &Model,
    plans: &[&PadPlan],
    edited: &crate::ir::Program,
    rendered: &str,
    notes: &mut Vec<String>,
) -> String {
    if model.source.is_file {
        let source = &*model.source.text;
        let edits = text_edit::edit_source(source, &model.program, plans, edited, rendered);
        let reads_back = |t: &str| {
            crate::read::miltext::parse_program(t, &model.source.file)
                .is_ok_and(|p| render_to_string(&p) == rendered)
        };
        match edits {
            Ok(t) if reads_back(&t) => return t,
            Ok(_) => notes.push(format!(
                "{}: the span edits did not read back as the fixed program; re-rendered in the compiler's layout",
                model.source.file.display()
            )),
            Err(e) => notes.push(format!(
                "{}: {e}; re-rendered in the compiler's layout",
                model.source.file.display()
            )),
        }
    }
    rendered.to_string()
}

/// `model` as read from its copy at `root` (a fixed copy written under `--output`).
pub(crate) fn moved_to(model: &Model, root: &Path) -> Model {
    let mut moved = model.clone();
    moved.path = root.to_path_buf();
    moved.source.file = retarget(&model.source.file, &model.path, root);
    moved.model_path = retarget(&model.model_path, &model.path, root);
    moved.root = retarget(&model.root, &model.path, root);
    moved
}

/// `path` (inside `from`) moved under `to`.
fn retarget(path: &Path, from: &Path, to: &Path) -> PathBuf {
    match path.strip_prefix(from) {
        Ok(rel) if rel.as_os_str().is_empty() => to.to_path_buf(),
        Ok(rel) => to.join(rel),
        Err(_) => path.to_path_buf(),
    }
}

/// The files of a text model to replace: `model.mil` and, for `.mlmodelc`, `metadata.json`.
fn text_files(
    model: &Model,
    mil: &str,
    outcome: &FixOutcome,
) -> Result<Vec<(PathBuf, Vec<u8>)>, FixError> {
    let mut files = vec![(model.source.file.clone(), mil.as_bytes().to_vec())];
    if model.kind != ModelKind::MlModelc {
        return Ok(files);
    }
    let coremldata = model.path.join("coremldata.bin");
    // An op fix changes neither the interface nor the state layout coremldata.bin describes.
    if coremldata.exists() && outcome.applied.iter().any(|p| p.rewrite.is_none()) {
        return Err(FixError::Unsupported {
            path: model.path.clone(),
            message: "coremldata.bin describes the model in an undocumented layout that cannot be kept consistent with a padded state; fix the .mlpackage and recompile it".into(),
        });
    }
    let meta_path = model.path.join("metadata.json");
    if meta_path.is_file() {
        let mut text = fs::read_to_string(&meta_path).map_err(|e| FixError::Unsupported {
            path: meta_path.clone(),
            message: format!("cannot read: {e}"),
        })?;
        let mut changed = false;
        for plan in outcome.applied.iter().filter(|p| p.pads()) {
            match metadata_json::pad_state_schema(
                &text,
                &plan.state,
                &plan.old_shape,
                &plan.new_shape,
            ) {
                Ok(Some(t)) => {
                    text = t;
                    changed = true;
                }
                Ok(None) => {}
                Err(message) => {
                    return Err(FixError::Unsupported {
                        path: meta_path.clone(),
                        message: format!("cannot update stateSchema: {message}"),
                    })
                }
            }
        }
        if changed {
            files.push((meta_path, text.into_bytes()));
        }
    }
    Ok(files)
}

/// The new `model.mlmodel`: the decoded protobuf edited by every applied plan, re-encoded keeping
/// every field the fix does not change, and checked to lower to the same program as the IR edit.
/// A pipeline sub-model is edited in place: every byte of the file outside it is kept.
fn protobuf_files(
    model: &Model,
    after: &str,
    outcome: &FixOutcome,
) -> Result<Vec<(PathBuf, Vec<u8>)>, FixError> {
    use crate::fix::splice;
    use crate::read::{limits, lower, proto};
    let file = &model.source.file;
    let internal = |message: String| FixError::Internal {
        path: file.clone(),
        message,
    };
    let position = model
        .sub_model
        .as_ref()
        .map_or(&[][..], |s| s.position.as_slice());
    let whole = limits::read_capped(file).map_err(|e| internal(e.to_string()))?;
    let original =
        splice::sub_model_bytes(&whole, position).map_err(|e| internal(e.to_string()))?;
    let mut spec = proto::decode_model(original, file).map_err(|e| internal(e.to_string()))?;
    let mut desc = spec.description.clone();
    let mut desc_changed = 0;
    {
        let Some(proto::model::Type::MlProgram(program)) = spec.r#type.as_mut() else {
            return Err(not_ml_program(&model.path, "this model"));
        };
        let refs: Vec<&PadPlan> = outcome.applied.iter().collect();
        proto_edit::pad_program(program, &refs).map_err(&internal)?;
        for plan in &outcome.applied {
            if let Some(d) = desc.as_mut() {
                desc_changed +=
                    proto_edit::pad_description(d, plan).map_err(|m| FixError::Unsupported {
                        path: file.clone(),
                        message: m,
                    })?;
            }
        }
    }
    let program = match &spec.r#type {
        Some(proto::model::Type::MlProgram(p)) => p,
        _ => return Err(not_ml_program(&model.path, "this model")),
    };
    let edited = splice::encode_model_preserving(
        original,
        desc.as_ref().filter(|_| desc_changed > 0),
        Some(program),
    )
    .map_err(|e| internal(e.to_string()))?;
    let bytes = splice::replace_sub_model(&whole, position, &edited)
        .map_err(|e| internal(e.to_string()))?;
    // The protobuf edit and the IR edit must agree before anything is written.
    let lowered = match lower::lower_bytes(bytes.clone().into(), file)
        .map_err(|e| internal(e.to_string()))?
    {
        lower::Lowered::Program(p) if model.sub_model.is_none() => Some(p),
        lower::Lowered::Pipeline(stages) => stages
            .into_iter()
            .find(|s| model.sub_model.as_ref() == Some(&s.sub_model))
            .and_then(|s| match s.content {
                lower::StageContent::Program(p) => Some(p),
                lower::StageContent::NotMlProgram(_) => None,
            }),
        lower::Lowered::NotMlProgram(what) => return Err(not_ml_program(&model.path, &what)),
        lower::Lowered::Program(_) => None,
    };
    if lowered.is_none_or(|p| render_to_string(&p.program) != after) {
        return Err(internal(
            "the edited protobuf does not lower to the program the plan describes".into(),
        ));
    }
    Ok(vec![(file.clone(), bytes)])
}
