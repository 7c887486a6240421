//! Fixes: graph rewrites, write-back (protobuf / text) and atomic file replacement.
//!
//! The one fix is the one-row state pad of `state-full-extent-write` (HAZARDS.md H1):
//! [`plan::plan_pad`] computes the edits from the IR, [`apply`] applies them to the model on disk
//! (or only renders the diff) through the write-back of its container.

pub(crate) mod diff;
pub(crate) mod edit;
pub(crate) mod metadata_json;
pub mod plan;
pub mod proto_edit;
#[warn(missing_docs)]
pub mod run;
pub mod window;
pub mod write;

use std::fs;
use std::path::{Path, PathBuf};

use crate::finding::Applicability;
use crate::ir::render::render_to_string;
use crate::ir::{Model, ModelKind, Program};

pub use plan::{plan_pad, FixRefusal, PadPlan, PadRequest};
pub use write::{replace_atomically, WriteError};

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
    pub notes: Vec<String>,
}

impl FixOutcome {
    /// The least safe applicability among the applied plans (`None` when nothing was applied).
    pub fn applicability(&self) -> Option<Applicability> {
        self.applied.iter().map(|p| p.applicability).min()
    }
}

/// Why a fix run changed nothing on disk.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FixError {
    #[error("{}: {}", .1.display(), .0)]
    Refused(FixRefusal, PathBuf),
    #[error("{}: not fixed: {message}", path.display())]
    Unsupported { path: PathBuf, message: String },
    #[error("not fixed: {0}")]
    Write(#[from] WriteError),
    #[error("{}: internal error while fixing, nothing was written: {message}", path.display())]
    Internal { path: PathBuf, message: String },
}

/// The error for an input that is not an ML program (neural network, pipeline, …).
pub fn not_ml_program(path: &Path, what: &str) -> FixError {
    FixError::Unsupported {
        path: path.to_path_buf(),
        message: format!("{what} is not an ML program; only ML programs can be fixed"),
    }
}

/// Applies the pad of each requested state to `model`, per `mode`. All plans are computed before
/// anything is written; a refusal of any of them writes nothing. Idempotent: a state that no write
/// covers whole is left alone.
pub fn apply(
    model: &Model,
    requests: &[PadRequest],
    allow_unsafe: bool,
    mode: FixMode,
) -> Result<FixOutcome, FixError> {
    apply_with_writer(model, requests, allow_unsafe, mode, &mut |f, b| {
        std::io::Write::write_all(f, b)
    })
}

/// [`apply`] with the writer of staged files replaced (fault-injection tests).
pub fn apply_with_writer(
    model: &Model,
    requests: &[PadRequest],
    allow_unsafe: bool,
    mode: FixMode,
    writer: write::Writer<'_>,
) -> Result<FixOutcome, FixError> {
    let internal = |message: String| FixError::Internal {
        path: model.path.clone(),
        message,
    };
    let mut outcome = FixOutcome::default();
    let mut current: Program = model.program.clone();
    let mut text = None;
    for req in requests {
        let step = Model {
            program: current.clone(),
            ..model.clone()
        };
        let plan = plan_pad(&step, &req.state, req.axis)
            .map_err(|r| FixError::Refused(r, model.path.clone()))?;
        if plan.is_noop() {
            outcome.noops.push(plan);
            continue;
        }
        if plan.applicability == Applicability::Unsafe && !allow_unsafe {
            outcome.notes.push(format!(
                "state `{}`: the fix rewrites a whole-state write and is unsafe; pass --unsafe-fixes to apply it",
                plan.state
            ));
            outcome.held_back.push(plan);
            continue;
        }
        let (next, t) = edit::apply_to_program(&current, &plan).map_err(internal)?;
        current = next;
        text = Some(t);
        outcome.applied.push(plan);
    }
    let Some(after) = text else {
        return Ok(outcome);
    };
    let before = render_to_string(&model.program);
    outcome.diff = diff::unified(&before, &after, &model.source.name);
    outcome.after = Some(after.clone());

    let files = match model.kind {
        ModelKind::MlModelc | ModelKind::MilText => text_files(model, &after, &outcome)?,
        ModelKind::MlPackage | ModelKind::MlModel => protobuf_files(model, &after, &outcome)?,
    };
    if let (ModelKind::MlModelc | ModelKind::MilText, true) = (
        model.kind,
        model.source.is_file && *model.source.text != *before,
    ) {
        outcome.notes.push(format!(
            "{} was re-rendered in the compiler's layout",
            model.source.file.display()
        ));
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
    if coremldata.exists() {
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
        for plan in &outcome.applied {
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
fn protobuf_files(
    model: &Model,
    after: &str,
    outcome: &FixOutcome,
) -> Result<Vec<(PathBuf, Vec<u8>)>, FixError> {
    use crate::read::{limits, lower, proto};
    let file = &model.source.file;
    let internal = |message: String| FixError::Internal {
        path: file.clone(),
        message,
    };
    let original = limits::read_capped(file).map_err(|e| internal(e.to_string()))?;
    let mut spec = proto::decode_model(&original, file).map_err(|e| internal(e.to_string()))?;
    let mut desc = spec.description.clone();
    let mut desc_changed = 0;
    {
        let Some(proto::model::Type::MlProgram(program)) = spec.r#type.as_mut() else {
            return Err(not_ml_program(&model.path, "this model"));
        };
        for plan in &outcome.applied {
            proto_edit::pad_program(program, plan).map_err(&internal)?;
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
    let bytes = proto::encode_model_preserving(
        &original,
        desc.as_ref().filter(|_| desc_changed > 0),
        Some(program),
    )
    .map_err(|e| internal(e.to_string()))?;
    // The protobuf edit and the IR edit must agree before anything is written.
    let lowered = match lower::lower_bytes(bytes.clone().into(), file)
        .map_err(|e| internal(e.to_string()))?
    {
        lower::Lowered::Program(p) => p,
        lower::Lowered::NotMlProgram(what) => return Err(not_ml_program(&model.path, &what)),
    };
    if render_to_string(&lowered.program) != after {
        return Err(internal(
            "the edited protobuf does not lower to the program the plan describes".into(),
        ));
    }
    Ok(vec![(file.clone(), bytes)])
}
