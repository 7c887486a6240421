//! Reads one discovered model root into a [`Model`], whatever its container.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::coremldata::{self, CompiledHeader};
use super::nms::NmsFields;
use super::outcome::{ReadOutcome, Stage};
use super::{lfs, limits, lower, manifest, metadata, miltext, ReadError};
use crate::discover::Discovered;
use crate::ir::rendered_lines::RenderedLines;
use crate::ir::{
    render, BundleFault, BundleFaultKind, Model, ModelDesc, ModelKind, NmsStage, SourceText,
    SubModel,
};

/// How a model is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Render a protobuf program as text MIL, giving its ops and inputs spans in that text (line
    /// numbers and source snippets). Without it the source text is empty and spans are zero:
    /// enough for reports that show no source (rendering is about a tenth of a large model's
    /// check).
    pub render: bool,
    /// With `render`: keep the rendered text (else only where its lines start, for line numbers).
    pub keep_text: bool,
    /// With `render` and not `keep_text`: note whether the text holds a character a terminal is
    /// shown escaped, for a report that will quote some of its lines (`render::quote_lines`).
    pub note_unsafe: bool,
}

impl Default for ReadOptions {
    fn default() -> ReadOptions {
        ReadOptions {
            render: true,
            keep_text: true,
            note_unsafe: false,
        }
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
            .map(ReadOutcome::Model)
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
    let mut outcome = read_protobuf(
        pkg,
        &man.root_model,
        ModelKind::MlPackage,
        model_path,
        pkg.to_path_buf(),
        options,
    )?;
    let faults = man
        .missing_items
        .into_iter()
        .map(|item| BundleFault {
            kind: BundleFaultKind::ManifestItemMissing {
                id: item.id,
                item_path: item.path,
            },
            file: item.resolved,
        })
        .collect();
    attach_faults(&mut outcome, faults);
    Ok(outcome)
}

/// Gives the package's faults to the model, or to a pipeline's first ML program (so each is
/// reported once); a model that is not checked drops them.
fn attach_faults(outcome: &mut ReadOutcome, faults: Vec<BundleFault>) {
    let first = match outcome {
        ReadOutcome::Model(m) => Some(m),
        ReadOutcome::Pipeline(stages) => stages.iter_mut().find_map(|s| match s {
            Stage::Program(m) => Some(m),
            Stage::Other { .. } => None,
        }),
        ReadOutcome::NotMlProgram { .. } => None,
    };
    if let Some(m) = first {
        m.bundle.extend(faults);
    }
}

fn read_protobuf(
    root_path: &Path,
    file: &Path,
    kind: ModelKind,
    model_path: PathBuf,
    root: PathBuf,
    options: ReadOptions,
) -> Result<ReadOutcome, ReadError> {
    let bytes = read_program_file(file)?;
    let program_model = |lowered: lower::LoweredProgram, sub_model: Option<SubModel>| {
        let mut program = lowered.program;
        let (text, lines) = match (options.render, options.keep_text, options.note_unsafe) {
            (true, true, _) => (render::render_program(&mut program), None),
            (true, false, false) => (
                String::new(),
                Some(Arc::new(RenderedLines::new(render::index_program(
                    &mut program,
                )))),
            ),
            (true, false, true) => (
                String::new(),
                Some(Arc::new(render::index_program_for_quotes(&mut program))),
            ),
            (false, _, _) => (String::new(), None),
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
                lines,
            },
            model_path: model_path.clone(),
            root: root.clone(),
            sub_model,
            bundle: Vec::new(),
        })
    };
    Ok(match lower::lower_bytes(bytes.into(), file)? {
        lower::Lowered::Program(p) => ReadOutcome::Model(program_model(*p, None)),
        lower::Lowered::Pipeline(stages) => {
            let mut nms = Vec::new();
            let mut out = Vec::new();
            for s in stages {
                out.push(match s.content {
                    lower::StageContent::Program(p) => {
                        Stage::Program(program_model(*p, Some(s.sub_model)))
                    }
                    lower::StageContent::NotMlProgram(what) => {
                        let read = s.nms.as_ref().map(NmsFields::summary);
                        if let Some(f) = s.nms {
                            nms.push((out.len(), nms_stage(&s.sub_model, Some(f))));
                        }
                        Stage::Other {
                            sub_model: s.sub_model,
                            what,
                            read,
                        }
                    }
                });
            }
            attach_nms(&mut out, nms);
            ReadOutcome::Pipeline(out)
        }
        lower::Lowered::NotMlProgram(what) => ReadOutcome::NotMlProgram {
            path: root_path.to_path_buf(),
            what,
        },
    })
}

/// Reads the file a program is in, refusing a Git LFS pointer in its place.
fn read_program_file(file: &Path) -> Result<Vec<u8>, ReadError> {
    let bytes = limits::read_capped(file)?;
    if lfs::is_pointer(&bytes) {
        return Err(ReadError::LfsPointer {
            size: bytes.len() as u64,
            path: file.to_path_buf(),
        });
    }
    Ok(bytes)
}
fn read_compiled(dir: &Path) -> Result<ReadOutcome, ReadError> {
    let data = dir.join("coremldata.bin");
    if dir.join("model.mil").exists() {
        // The header only adds a description metadata.json may lack; it is not needed to read.
        let mut faults = Vec::new();
        let header = match read_header(&data, dir) {
            Ok(h) => h,
            Err(ReadError::LfsPointer { path, .. }) => {
                faults.push(BundleFault {
                    kind: BundleFaultKind::LfsPointer,
                    file: path,
                });
                None
            }
            Err(_) => None,
        };
        let mut model = read_program_folder(dir, dir, header.as_ref(), None)?;
        model.bundle.splice(0..0, faults);
        return Ok(ReadOutcome::Model(model));
    }
    let Some(header) = read_header(&data, dir)? else {
        if dir.join("model.espresso.net").exists() {
            return Ok(ReadOutcome::NotMlProgram {
                path: dir.to_path_buf(),
                what: "a compiled neural network (no model.mil)".into(),
            });
        }
        return Err(ReadError::NotAModel {
            path: dir.to_path_buf(),
            message: "compiled model folder has no model.mil (and no coremldata.bin saying what it holds)".into(),
        });
    };
    if header.is_pipeline() {
        let mut stages = Vec::new();
        read_stages(dir, dir, &header, &data, &mut Vec::new(), &mut stages)?;
        let nms: Vec<(usize, NmsStage)> = stages
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Stage::Other {
                    sub_model, what, ..
                } if what == NMS_KIND => Some((i, nms_stage(sub_model, None))),
                _ => None,
            })
            .collect();
        attach_nms(&mut stages, nms);
        if stages.iter().any(|s| matches!(s, Stage::Program(_))) {
            return Ok(ReadOutcome::Pipeline(stages));
        }
        let kinds: Vec<&str> = stages
            .iter()
            .filter_map(|s| match s {
                Stage::Other { what, .. } => Some(what.as_str()),
                Stage::Program(_) => None,
            })
            .collect();
        return Ok(ReadOutcome::NotMlProgram {
            path: dir.to_path_buf(),
            what: format!("a pipeline with no ML program ({})", kinds.join(", ")),
        });
    }
    if header.tag == coremldata::ML_PROGRAM {
        return Err(missing_program(dir, None));
    }
    Ok(ReadOutcome::NotMlProgram {
        path: dir.to_path_buf(),
        what: known_kind(&header, &data)?.to_string(),
    })
}

/// What `coremldata::kind_of_tag` calls a non-maximum suppression stage (`Model` field 610).
const NMS_KIND: &str = "a non-maximum suppression model";

/// The NMS stage at `sub_model`, with its message's fields when they were read.
fn nms_stage(sub_model: &SubModel, fields: Option<NmsFields>) -> NmsStage {
    match fields {
        Some(f) => NmsStage {
            sub_model: sub_model.clone(),
            confidence_input: Some(f.confidence_input),
            coordinates_input: Some(f.coordinates_input),
            labels: Some(f.labels),
            label_kind: f.label_kind.to_string(),
        },
        None => NmsStage {
            sub_model: sub_model.clone(),
            confidence_input: None,
            coordinates_input: None,
            labels: None,
            label_kind: String::new(),
        },
    }
}

/// Gives each NMS stage (at its index in `stages`) to the ML-program stage that feeds it: the one
/// whose program returns the stage's confidence input, else the nearest program stage before it
/// (a compiled stage names no input; an input no stage writes is then reported there), else the
/// first program stage.
fn attach_nms(stages: &mut [Stage], nms: Vec<(usize, NmsStage)>) {
    for (at, n) in nms {
        let returns = |m: &Model, name: &str| {
            m.program
                .functions
                .iter()
                .any(|f| f.outputs().iter().any(|o| o.as_str() == name))
        };
        let programs: Vec<usize> = stages
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Stage::Program(_)))
            .map(|(i, _)| i)
            .collect();
        let by_name = n.confidence_input.as_deref().and_then(|c| {
            programs
                .iter()
                .copied()
                .find(|&i| matches!(stages.get(i), Some(Stage::Program(m)) if returns(m, c)))
        });
        let before = programs.iter().copied().rfind(|&i| i < at);
        let Some(target) = by_name.or(before).or(programs.first().copied()) else {
            continue;
        };
        if let Some(Stage::Program(m)) = stages.get_mut(target) {
            m.description.nms.push(n);
        }
    }
}

/// The error for an ML-program folder without its program (an incomplete download or copy).
fn missing_program(folder: &Path, sub_model: Option<&SubModel>) -> ReadError {
    let at = sub_model.map(|s| format!("{s}: ")).unwrap_or_default();
    ReadError::Compiled {
        path: folder.to_path_buf(),
        message: format!(
            "{at}coremldata.bin says this is an ML program, but model.mil is missing: the compiled \
             model is incomplete (a partial download or copy); download or compile it again"
        ),
    }
}

/// What kind of model a header names; an error when the tag is not a model kind at all.
fn known_kind(header: &CompiledHeader, data: &Path) -> Result<&'static str, ReadError> {
    header.kind().ok_or_else(|| ReadError::Compiled {
        path: data.to_path_buf(),
        message: format!(
            "starts with {}, which is not a Core ML model kind: the file is damaged or not \
             written by the Core ML compiler",
            header.tag
        ),
    })
}

/// The header of the `coremldata.bin` at `path`, `None` when there is none; a Git LFS pointer in
/// its place is an error.
fn read_header(path: &Path, root: &Path) -> Result<Option<CompiledHeader>, ReadError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReadError::io(path, &e)),
        Ok(_) => {}
    }
    let bytes = limits::read_capped_inside(path, root)?;
    if lfs::is_pointer(&bytes) {
        return Err(ReadError::LfsPointer {
            size: bytes.len() as u64,
            path: path.to_path_buf(),
        });
    }
    coremldata::parse(&bytes, path).map(Some)
}

/// Appends the stages of the compiled pipeline in `dir` (its header read from `data`) to `out`,
/// depth first; `root` is the discovered `.mlmodelc`.
fn read_stages(
    root: &Path,
    dir: &Path,
    header: &CompiledHeader,
    data: &Path,
    at: &mut Vec<usize>,
    out: &mut Vec<Stage>,
) -> Result<(), ReadError> {
    if at.len() >= crate::limits::MAX_PIPELINE_NESTING {
        return Err(ReadError::Compiled {
            path: dir.to_path_buf(),
            message: format!(
                "pipelines are nested deeper than {} levels",
                crate::limits::MAX_PIPELINE_NESTING
            ),
        });
    }
    let count = header.stage_count(data)?;
    if out.len() + count > crate::limits::MAX_PIPELINE_MODELS {
        return Err(ReadError::Compiled {
            path: data.to_path_buf(),
            message: format!(
                "the pipeline holds more than {} models",
                crate::limits::MAX_PIPELINE_MODELS
            ),
        });
    }
    for i in 0..count {
        at.push(i);
        let sub_model = SubModel {
            position: at.clone(),
            name: None,
        };
        let folder = stage_folder(dir, root, i, &sub_model)?;
        let stage_data = folder.join("coremldata.bin");
        let has_program = folder.join("model.mil").exists();
        match read_header(&stage_data, root)? {
            Some(h) if h.is_pipeline() => read_stages(root, &folder, &h, &stage_data, at, out)?,
            Some(h) if h.tag == coremldata::ML_PROGRAM => {
                if !has_program {
                    return Err(missing_program(&folder, Some(&sub_model)));
                }
                let model = read_program_folder(&folder, root, Some(&h), Some(sub_model))?;
                out.push(Stage::Program(model));
            }
            Some(h) => {
                let what = known_kind(&h, &stage_data)?;
                out.push(Stage::Other {
                    read: (what == NMS_KIND).then(|| {
                        "read: its kind only (a compiled stage is only a coremldata.bin), so the \
                         class count comes from the detector's confidence output"
                            .to_string()
                    }),
                    what: what.to_string(),
                    sub_model,
                })
            }
            None if has_program => {
                let model = read_program_folder(&folder, root, None, Some(sub_model))?;
                out.push(Stage::Program(model));
            }
            None => {
                return Err(ReadError::Compiled {
                    path: folder,
                    message: format!(
                        "{sub_model}: the stage folder has no coremldata.bin: the compiled \
                         pipeline is incomplete; download or compile it again"
                    ),
                })
            }
        }
        at.pop();
    }
    Ok(())
}

/// `dir/model<i>`, a folder inside `root`.
fn stage_folder(
    dir: &Path,
    root: &Path,
    i: usize,
    sub_model: &SubModel,
) -> Result<PathBuf, ReadError> {
    let folder = dir.join(format!("model{i}"));
    let incomplete = |what: &str| ReadError::Compiled {
        path: folder.clone(),
        message: format!(
            "{sub_model}: the pipeline's coremldata.bin names stage `model{i}`, but {what}: the \
             compiled pipeline is incomplete; download or compile it again"
        ),
    };
    match std::fs::metadata(&folder) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(incomplete("the folder is missing"))
        }
        Err(e) => Err(ReadError::io(&folder, &e)),
        Ok(m) if !m.is_dir() => Err(incomplete("it is not a folder")),
        Ok(_) => {
            limits::ensure_inside(&folder, root)?;
            Ok(folder)
        }
    }
}

/// Reads the `model.mil` of `folder` (a compiled model, or one stage of a compiled pipeline in
/// `root`): its description from `metadata.json`, else from the `coremldata.bin` header.
fn read_program_folder(
    folder: &Path,
    root: &Path,
    header: Option<&CompiledHeader>,
    sub_model: Option<SubModel>,
) -> Result<Box<Model>, ReadError> {
    // Files of the folder are read only when they resolve inside the package.
    let mil = folder.join("model.mil");
    let metadata_json = folder.join("metadata.json");
    limits::ensure_inside(&mil, root)?;
    limits::ensure_inside(&metadata_json, root)?;
    let mut bundle = Vec::new();
    let meta = if lfs::is_pointer_file(&metadata_json) {
        bundle.push(BundleFault {
            kind: BundleFaultKind::LfsPointer,
            file: metadata_json,
        });
        None
    } else {
        metadata::read_metadata(&metadata_json)?
    };
    let (description, spec_version) = match (meta, header) {
        (Some(m), _) => (m.description, m.spec_version),
        (None, Some(h)) => (h.description.clone().unwrap_or_default(), h.spec_version),
        (None, None) => (ModelDesc::default(), None),
    };
    let mut model = read_text(
        root,
        &mil,
        ModelKind::MlModelc,
        description,
        spec_version,
        folder.to_path_buf(),
        root.to_path_buf(),
    )?;
    model.sub_model = sub_model;
    model.bundle = bundle;
    Ok(model)
}

fn read_text(
    root_path: &Path,
    file: &Path,
    kind: ModelKind,
    description: ModelDesc,
    spec_version: Option<i64>,
    model_path: PathBuf,
    root: PathBuf,
) -> Result<Box<Model>, ReadError> {
    let bytes = read_program_file(file)?;
    let text = String::from_utf8(bytes).map_err(|e| ReadError::Program {
        path: file.to_path_buf(),
        message: format!(
            "model.mil is not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })?;
    let program = miltext::parse_program(&text, file)?;
    Ok(Box::new(Model {
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
            lines: None,
        },
        model_path,
        root,
        sub_model: None,
        bundle: Vec::new(),
    }))
}
