//! Reads one discovered model root into a [`Model`], whatever its container.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{limits, lower, manifest, metadata, miltext, ReadError};
use crate::discover::Discovered;
use crate::ir::{render, Model, ModelDesc, ModelKind, SourceText, SubModel};

/// What reading a model root gave.
#[derive(Debug)]
pub enum ReadOutcome {
    /// An ML program, ready for analysis.
    Model(Box<Model>),
    /// A pipeline holding at least one ML program: its sub-models in order (nested pipelines
    /// flattened), each ML program read as a model of its own.
    Pipeline(Vec<Stage>),
    /// A valid model of another kind (neural network, pipeline of those, …): reported, not checked.
    NotMlProgram {
        /// The model root (or bare file) as discovered.
        path: PathBuf,
        /// What kind of model it is, e.g. "a neural network".
        what: String,
    },
}

impl ReadOutcome {
    /// The ML programs read: the model itself, or every ML-program sub-model of a pipeline in
    /// order; none for a model of another kind.
    pub fn into_programs(self) -> Vec<Model> {
        match self {
            ReadOutcome::Model(m) => vec![*m],
            ReadOutcome::Pipeline(stages) => stages
                .into_iter()
                .filter_map(|s| match s {
                    Stage::Program(m) => Some(*m),
                    Stage::Other { .. } => None,
                })
                .collect(),
            ReadOutcome::NotMlProgram { .. } => Vec::new(),
        }
    }
}

/// One sub-model of a pipeline.
#[derive(Debug)]
pub enum Stage {
    /// An ML program; its [`Model::sub_model`] says where it sits.
    Program(Box<Model>),
    /// A model of another kind, named.
    Other {
        /// Where it sits in the pipeline.
        sub_model: SubModel,
        /// What kind of model it is, e.g. "a neural network".
        what: String,
    },
}

/// How a model is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Render a protobuf program as text MIL, giving its ops and inputs spans in that text (line
    /// numbers and source snippets). Without it the source text is empty and spans are zero:
    /// enough for reports that show no source (rendering is about a tenth of a large model's
    /// check).
    pub render: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions { render: true }
    }
}

/// Reads the model at `d`, a protobuf program rendered as text.
pub fn read_model(d: &Discovered) -> Result<ReadOutcome, ReadError> {
    read_model_with(d, ReadOptions::default())
}

/// Reads the model at `d`.
pub fn read_model_with(d: &Discovered, options: ReadOptions) -> Result<ReadOutcome, ReadError> {
    match d.kind {
        ModelKind::MlPackage => read_package(&d.path, options),
        ModelKind::MlModel => {
            let root = d.path.parent().map(Path::to_path_buf).unwrap_or_default();
            read_protobuf(
                &d.path,
                &d.path,
                ModelKind::MlModel,
                root.clone(),
                root,
                options,
            )
        }
        ModelKind::MlModelc => read_compiled(&d.path),
        ModelKind::AiModel => super::aimodel::read_aimodel(&d.path, options.render),
        ModelKind::MilText => {
            let root = d.path.parent().map(Path::to_path_buf).unwrap_or_default();
            read_text(
                &d.path,
                &d.path,
                ModelKind::MilText,
                ModelDesc::default(),
                None,
                root.clone(),
                root,
            )
        }
    }
}

fn read_package(pkg: &Path, options: ReadOptions) -> Result<ReadOutcome, ReadError> {
    let man = manifest::read_manifest(pkg)?;
    let model_path = man
        .root_model
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| pkg.to_path_buf());
    read_protobuf(
        pkg,
        &man.root_model,
        ModelKind::MlPackage,
        model_path,
        pkg.to_path_buf(),
        options,
    )
}

fn read_protobuf(
    root_path: &Path,
    file: &Path,
    kind: ModelKind,
    model_path: PathBuf,
    root: PathBuf,
    options: ReadOptions,
) -> Result<ReadOutcome, ReadError> {
    let bytes = limits::read_capped(file)?;
    let program_model = |lowered: lower::LoweredProgram, sub_model: Option<SubModel>| {
        let mut program = lowered.program;
        let text = if options.render {
            render::render_program(&mut program)
        } else {
            String::new()
        };
        let name = match &sub_model {
            Some(sub) => format!("{} (rendered, {sub})", root_path.display()),
            None => format!("{} (rendered)", root_path.display()),
        };
        Box::new(Model {
            path: root_path.to_path_buf(),
            kind,
            spec_version: Some(lowered.spec_version),
            description: lowered.description,
            program,
            source: SourceText {
                name,
                file: file.to_path_buf(),
                text: Arc::from(text),
                is_file: false,
            },
            model_path: model_path.clone(),
            root: root.clone(),
            sub_model,
        })
    };
    Ok(match lower::lower_bytes(bytes.into(), file)? {
        lower::Lowered::Program(p) => ReadOutcome::Model(program_model(*p, None)),
        lower::Lowered::Pipeline(stages) => ReadOutcome::Pipeline(
            stages
                .into_iter()
                .map(|s| match s.content {
                    lower::StageContent::Program(p) => {
                        Stage::Program(program_model(*p, Some(s.sub_model)))
                    }
                    lower::StageContent::NotMlProgram(what) => Stage::Other {
                        sub_model: s.sub_model,
                        what,
                    },
                })
                .collect(),
        ),
        lower::Lowered::NotMlProgram(what) => ReadOutcome::NotMlProgram {
            path: root_path.to_path_buf(),
            what,
        },
    })
}

fn read_compiled(dir: &Path) -> Result<ReadOutcome, ReadError> {
    let mil = dir.join("model.mil");
    if !mil.is_file() {
        let what = if dir.join("model.espresso.net").exists() || dir.join("model0").exists() {
            "a compiled neural network (no model.mil)".to_string()
        } else {
            return Err(ReadError::NotAModel {
                path: dir.to_path_buf(),
                message: "compiled model folder has no model.mil".into(),
            });
        };
        return Ok(ReadOutcome::NotMlProgram {
            path: dir.to_path_buf(),
            what,
        });
    }
    // Files of the folder are read only when they resolve inside it.
    let metadata_json = dir.join("metadata.json");
    limits::ensure_inside(&mil, dir)?;
    limits::ensure_inside(&metadata_json, dir)?;
    let meta = metadata::read_metadata(&metadata_json)?;
    let (desc, spec) = match meta {
        Some(m) => (m.description, m.spec_version),
        None => (ModelDesc::default(), None),
    };
    read_text(
        dir,
        &mil,
        ModelKind::MlModelc,
        desc,
        spec,
        dir.to_path_buf(),
        dir.to_path_buf(),
    )
}

fn read_text(
    root_path: &Path,
    file: &Path,
    kind: ModelKind,
    description: ModelDesc,
    spec_version: Option<i64>,
    model_path: PathBuf,
    root: PathBuf,
) -> Result<ReadOutcome, ReadError> {
    let bytes = limits::read_capped(file)?;
    let text = String::from_utf8(bytes).map_err(|e| ReadError::Program {
        path: file.to_path_buf(),
        message: format!(
            "model.mil is not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })?;
    let program = miltext::parse_program(&text, file)?;
    Ok(ReadOutcome::Model(Box::new(Model {
        path: root_path.to_path_buf(),
        kind,
        spec_version,
        description,
        program,
        source: SourceText {
            name: file.display().to_string(),
            file: file.to_path_buf(),
            text: Arc::from(text),
            is_file: true,
        },
        model_path,
        root,
        sub_model: None,
    })))
}
