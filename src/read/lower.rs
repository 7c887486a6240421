//! Protobuf `Model` → IR [`Program`](crate::ir::Program) and [`ModelDesc`](crate::ir::ModelDesc).
//!
//! Every function of the `mlProgram` is lowered (in name order) and built into a graph, one
//! top-level operation at a time: `direct.rs` reads an operation's bytes straight into its syntax
//! (what converters write); any other operation is decoded by prost into `zero_copy` messages and
//! lowered here. Spans are left empty: the renderer assigns them when it prints the program.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

use std::path::Path;

use prost::bytes::Bytes;
use prost::Message;
use rayon::prelude::*;

use super::proto::{self, dimension, zero_copy as zc};
use super::ReadError;
use crate::ir::build::{BlockSyntax, BuildError, FunctionBuilder, InputSyntax, OpSyntax};
use crate::ir::literal::f16_to_f64;
use crate::ir::Function;
use crate::ir::{
    Arg, Attributes, BlobRef, DType, Dim, FeatureDesc, FeatureKind, Flexibility, FunctionDesc,
    Literal, ModelDesc, Name, Output, Param, Payload, Program, Span, SubModel, TensorData,
    TensorType, ValueType,
};
use crate::limits;

mod direct;

/// A lowered ML program.
#[derive(Debug)]
pub struct LoweredProgram {
    /// The `mlProgram` lowered to the IR.
    pub program: Program,
    /// The model's `ModelDescription` (interface and metadata), lowered.
    pub description: ModelDesc,
    /// `specificationVersion` of the `Model`; 0 when the protobuf leaves it unset.
    pub spec_version: i64,
}

/// The result of lowering a `Model`.
#[derive(Debug)]
pub enum Lowered {
    /// The model is a single ML program.
    Program(Box<LoweredProgram>),
    /// A pipeline (plain, classifier or regressor) holding at least one ML program: every
    /// sub-model in order, nested pipelines flattened.
    Pipeline(Vec<LoweredStage>),
    /// Not an ML program; the string names what it is (e.g. "a neural network").
    NotMlProgram(String),
}

/// One sub-model of a pipeline.
#[derive(Debug)]
pub struct LoweredStage {
    /// Where it sits in the pipeline.
    pub sub_model: SubModel,
    /// What it holds.
    pub content: StageContent,
    /// A non-maximum suppression stage's message, as read.
    pub(crate) nms: Option<super::nms::NmsFields>,
}

/// What a model that is not a pipeline holds.
#[derive(Debug)]
pub enum StageContent {
    /// An ML program.
    Program(Box<LoweredProgram>),
    /// Not an ML program; the string names what it is.
    NotMlProgram(String),
}

/// Decodes the `Model` protobuf in `bytes` (read from `path`) and lowers it. Functions are lowered
/// and built in parallel; each top-level operation is decoded, lowered and dropped in turn, so the
/// protobuf tree is never held whole. A pipeline's sub-models are lowered one after another.
pub fn lower_bytes(bytes: Bytes, path: &Path) -> Result<Lowered, ReadError> {
    let mut outline = proto::decode_outline(bytes.clone(), path)?;
    if outline.ml_program.is_none() {
        if let Some(pipeline) = outline.take_pipeline() {
            return lower_pipeline(pipeline, path);
        }
    }
    Ok(match lower_single(outline, &bytes, path)?.0 {
        StageContent::Program(p) => Lowered::Program(p),
        StageContent::NotMlProgram(what) => Lowered::NotMlProgram(what),
    })
}

fn lower_pipeline(pipeline: proto::PipelineOutline, path: &Path) -> Result<Lowered, ReadError> {
    let mut stages = Vec::new();
    collect_stages(pipeline, &mut Vec::new(), path, &mut stages)?;
    if stages
        .iter()
        .any(|s| matches!(s.content, StageContent::Program(_)))
    {
        return Ok(Lowered::Pipeline(stages));
    }
    let kinds: Vec<String> = stages
        .iter()
        .map(|s| match &s.content {
            StageContent::NotMlProgram(what) => what.clone(),
            StageContent::Program(_) => String::new(),
        })
        .collect();
    Ok(Lowered::NotMlProgram(if kinds.is_empty() {
        "a pipeline with no models".to_string()
    } else {
        format!("a pipeline with no ML program ({})", kinds.join(", "))
    }))
}

/// Appends the sub-models of `pipeline` (at nesting position `at`) to `out`, depth first.
fn collect_stages(
    pipeline: proto::PipelineOutline,
    at: &mut Vec<usize>,
    path: &Path,
    out: &mut Vec<LoweredStage>,
) -> Result<(), ReadError> {
    let refuse = |message: String| ReadError::Protobuf {
        path: path.to_path_buf(),
        message,
    };
    if at.len() >= limits::MAX_PIPELINE_NESTING {
        return Err(refuse(format!(
            "pipelines are nested deeper than {} levels",
            limits::MAX_PIPELINE_NESTING
        )));
    }
    if out.len() + pipeline.models.len() > limits::MAX_PIPELINE_MODELS {
        return Err(refuse(format!(
            "the pipeline holds more than {} models",
            limits::MAX_PIPELINE_MODELS
        )));
    }
    for (i, bytes) in pipeline.models.into_iter().enumerate() {
        at.push(i);
        let sub_model = SubModel {
            position: at.clone(),
            name: pipeline.names.get(i).filter(|n| !n.is_empty()).cloned(),
        };
        let mut outline =
            proto::decode_outline(bytes.clone(), path).map_err(|e| e.in_sub_model(&sub_model))?;
        let nested = match outline.ml_program {
            None => outline.take_pipeline(),
            Some(_) => None,
        };
        match nested {
            Some(inner) => collect_stages(inner, at, path, out)?,
            None => {
                let (content, nms) =
                    lower_single(outline, &bytes, path).map_err(|e| e.in_sub_model(&sub_model))?;
                out.push(LoweredStage {
                    sub_model,
                    content,
                    nms,
                });
            }
        }
        at.pop();
    }
    Ok(())
}

/// Lowers a model that is not a pipeline.
/// What the model in `bytes` holds; for a non-maximum suppression model, also what its message
/// says.
fn lower_single(
    outline: proto::ModelOutline,
    bytes: &Bytes,
    path: &Path,
) -> Result<(StageContent, Option<super::nms::NmsFields>), ReadError> {
    let Some(program) = outline.ml_program else {
        return match proto::decode_model(bytes, path)?.r#type {
            Some(other) => {
                let nms = match &other {
                    proto::model::Type::NonMaximumSuppression(raw) => super::nms::read_nms(raw),
                    _ => None,
                };
                Ok((
                    StageContent::NotMlProgram(other.describe().to_string()),
                    nms,
                ))
            }
            None => Err(ReadError::Protobuf {
                path: path.to_path_buf(),
                message: "the Model message names no model kind (empty, or not a Core ML model)"
                    .into(),
            }),
        };
    };
    let spec_version = i64::from(outline.specification_version);
    let attributes = lower_attributes(&program.attributes, 0)
        .map_err(|fault| fault.into_read_error(path, "program attributes"))?;
    let built: Vec<Result<Function, ReadError>> = program
        .functions
        .into_iter()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(name, f)| {
            lower_function(&name, f)
                .map_err(|fault| fault.into_read_error(path, &format!("function `{name}`")))
        })
        .collect();
    // The first error in name order, whatever the scheduling.
    let functions = built.into_iter().collect::<Result<Vec<_>, _>>()?;
    let program = LoweredProgram {
        program: Program {
            // The text dialect the renderer prints: bare scalars from spec 9 (iOS 18) on.
            version: if spec_version >= 9 { "1.3" } else { "1.0" }.to_string(),
            attributes,
            functions,
        },
        description: lower_description(outline.description.as_ref()),
        spec_version,
    };
    Ok((StageContent::Program(Box::new(program)), None))
}

/// Why a function could not be lowered.
#[derive(Debug)]
enum Fault {
    /// The bytes are not protobuf of the expected message (an operation that does not decode, a
    /// `string` field that is not UTF-8).
    Decode(String),
    /// The program is well-formed protobuf but not a valid program.
    Invalid(String),
}

impl Fault {
    fn invalid(message: impl Into<String>) -> Fault {
        Fault::Invalid(message.into())
    }

    /// The same fault, its message prefixed with where it is.
    fn at(self, place: impl std::fmt::Display) -> Fault {
        match self {
            Fault::Decode(m) => Fault::Decode(format!("{place}: {m}")),
            Fault::Invalid(m) => Fault::Invalid(format!("{place}: {m}")),
        }
    }

    fn into_read_error(self, path: &Path, place: &str) -> ReadError {
        match self {
            Fault::Decode(m) => ReadError::Protobuf {
                path: path.to_path_buf(),
                message: format!("{place}: {m}"),
            },
            Fault::Invalid(m) => ReadError::Program {
                path: path.to_path_buf(),
                message: format!("{place}: {m}"),
            },
        }
    }
}

impl From<String> for Fault {
    fn from(message: String) -> Fault {
        Fault::Invalid(message)
    }
}

/// A `string` field, which protobuf requires to be UTF-8 (an owned decode would refuse it).
fn text(bytes: &[u8]) -> Result<&str, Fault> {
    std::str::from_utf8(bytes).map_err(|e| {
        Fault::Decode(format!(
            "a string is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })
}

/// An entry of a protobuf `map<string, …>`.
trait MapEntry {
    fn key(&self) -> &[u8];
}

impl MapEntry for zc::ArgumentEntry {
    fn key(&self) -> &[u8] {
        &self.key
    }
}

impl MapEntry for zc::ValueEntry {
    fn key(&self) -> &[u8] {
        &self.key
    }
}

/// The entries of a map as the decoded map holds them: sorted by key (byte order, which is
/// `String` order), the last of equal keys winning.
fn map_entries<E: MapEntry>(entries: &[E]) -> MapEntries<'_, E> {
    let in_order = entries.windows(2).all(|w| match w {
        [a, b] => a.key() < b.key(),
        _ => true,
    });
    if in_order {
        return MapEntries::InOrder(entries.iter());
    }
    let mut sorted: Vec<&E> = entries.iter().collect();
    // Stable: equal keys stay in file order, so the last of each run is the last in the file.
    sorted.sort_by(|a, b| a.key().cmp(b.key()));
    let mut unique: Vec<&E> = Vec::with_capacity(sorted.len());
    for e in sorted {
        match unique.last_mut() {
            Some(last) if last.key() == e.key() => *last = e,
            _ => unique.push(e),
        }
    }
    MapEntries::Sorted(unique.into_iter())
}

/// What [`map_entries`] gives: the entries themselves when the file has them in key order
/// without repeats (what converters write), else a sorted copy of the references.
enum MapEntries<'a, E> {
    InOrder(std::slice::Iter<'a, E>),
    Sorted(std::vec::IntoIter<&'a E>),
}

impl<'a, E> Iterator for MapEntries<'a, E> {
    type Item = &'a E;

    fn next(&mut self) -> Option<&'a E> {
        match self {
            MapEntries::InOrder(entries) => entries.next(),
            MapEntries::Sorted(entries) => entries.next(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Program structure
// ---------------------------------------------------------------------------------------------

/// Lowers a function and builds its graph, one operation at a time: each is decoded, lowered and
/// added to the graph before the next is read.
fn lower_function(name: &str, f: proto::FunctionOutline) -> Result<Function, Fault> {
    let mut specs = f.block_specializations;
    let block = match specs.remove(&f.opset) {
        Some(b) => b,
        None if specs.len() == 1 => specs
            .into_values()
            .next()
            .ok_or_else(|| Fault::invalid(format!("has no block (opset `{}`)", f.opset)))?,
        None if specs.is_empty() => {
            return Err(Fault::invalid(format!(
                "has no block (opset `{}`)",
                f.opset
            )))
        }
        None => {
            return Err(Fault::invalid(format!(
                "has no block for its opset `{}` (blocks: {})",
                f.opset,
                specs.keys().cloned().collect::<Vec<_>>().join(", ")
            )))
        }
    };
    check_ignored_attributes(&block.attributes)?;
    let attributes =
        lower_attributes(&f.attributes, 0).map_err(|fault| fault.at("function attributes"))?;
    let mut graph = FunctionBuilder::new(
        name.to_string(),
        f.opset,
        attributes,
        Span::default(),
        (f.inputs.len() + block.inputs.len(), block.operations.len()),
    );
    let built = |e: BuildError| Fault::invalid(e.to_string());
    for input in f.inputs.iter().chain(&block.inputs) {
        graph.input(lower_input(input, 0)?).map_err(built)?;
    }
    let mut types = direct::TypeCache::default();
    for (i, raw) in block.operations.into_iter().enumerate() {
        if let Some(op) = direct::operation(&raw, &mut graph, &mut types) {
            graph.interned_op(op).map_err(built)?;
            continue;
        }
        let op = zc::Operation::decode(raw).map_err(|e| {
            Fault::Decode(format!(
                "operation {i}: {}",
                super::error::decode_error_text(&e)
            ))
        })?;
        let op = lower_op_in_context(&op, 0).map_err(|fault| match fault {
            Fault::Decode(m) => Fault::Decode(format!("operation {i}: {m}")),
            invalid => invalid,
        })?;
        graph.op(op).map_err(built)?;
    }
    graph
        .finish(block_outputs(&block.outputs)?, Span::default())
        .map_err(built)
}

fn block_outputs(outputs: &[Bytes]) -> Result<Vec<Name>, Fault> {
    outputs.iter().map(|o| text(o).map(Name::from)).collect()
}

fn lower_block(b: &zc::Block, depth: usize) -> Result<BlockSyntax, Fault> {
    if depth > limits::MAX_BLOCK_NESTING {
        return Err(Fault::invalid(format!(
            "blocks are nested deeper than {} levels",
            limits::MAX_BLOCK_NESTING
        )));
    }
    check_ignored_attributes(&b.attributes)?;
    let inputs = b
        .inputs
        .iter()
        .map(|i| lower_input(i, depth))
        .collect::<Result<Vec<_>, _>>()?;
    let ops = b
        .operations
        .iter()
        .map(|op| lower_op_in_context(op, depth))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(BlockSyntax {
        inputs,
        ops,
        outputs: block_outputs(&b.outputs)?,
        outputs_span: Span::default(),
    })
}

/// [`lower_op`], with the op named in its error.
fn lower_op_in_context(op: &zc::Operation, depth: usize) -> Result<OpSyntax, Fault> {
    lower_op(op, depth).map_err(|fault| {
        fault.at(format_args!(
            "op `{}` ({})",
            op_label(op),
            String::from_utf8_lossy(&op.r#type)
        ))
    })
}

/// The op's `name` attribute, else its first output, else its type (for messages only).
fn op_label(op: &zc::Operation) -> String {
    map_entries(&op.attributes)
        .find(|e| e.key() == b"name")
        .and_then(|e| lower_value(&e.value, 0).ok())
        .and_then(|l| l.as_str().map(str::to_string))
        .or_else(|| {
            op.outputs
                .first()
                .map(|o| String::from_utf8_lossy(&o.name).into_owned())
        })
        .unwrap_or_else(|| String::from_utf8_lossy(&op.r#type).into_owned())
}

fn lower_op(op: &zc::Operation, depth: usize) -> Result<OpSyntax, Fault> {
    let op_type = Name::from(text(&op.r#type)?);
    let mut name = None;
    let mut attributes = Attributes::new();
    for entry in map_entries(&op.attributes) {
        let key = text(&entry.key)?;
        let lit = lower_value(&entry.value, depth)
            .map_err(|fault| fault.at(format_args!("attribute `{key}`")))?;
        if key == "name" {
            if let Some(s) = lit.as_str() {
                name = Some(Name::from(s));
                continue;
            }
        }
        attributes.insert(key.into(), lit);
    }
    // Map order = parameters sorted by name, as the compiler prints them.
    let inputs = map_entries(&op.inputs)
        .map(|entry| {
            let key = text(&entry.key)?;
            let args = entry
                .value
                .arguments
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    match &b.binding {
                        Some(zc::argument::binding::Binding::Name(n)) => {
                            text(n).map(|n| Arg::Name(n.into()))
                        }
                        Some(zc::argument::binding::Binding::Value(v)) => {
                            lower_value(v, depth).map(|l| Arg::Value(Box::new(l)))
                        }
                        None => Err(Fault::invalid("binding is empty")),
                    }
                    .map_err(|fault| fault.at(format_args!("input `{key}` binding {i}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Param {
                name: key.into(),
                args,
            })
        })
        .collect::<Result<Vec<_>, Fault>>()?;
    let outputs = op
        .outputs
        .iter()
        .map(|o| {
            let name = text(&o.name)?;
            let ty = o
                .r#type
                .as_ref()
                .ok_or_else(|| Fault::invalid(format!("output `{name}` has no type")))
                .and_then(|t| lower_value_type(t, depth))
                .map_err(|fault| fault.at(format_args!("output `{name}`")))?;
            Ok(Output {
                name: name.into(),
                ty,
            })
        })
        .collect::<Result<Vec<_>, Fault>>()?;
    let blocks = op
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            lower_block(b, depth + 1).map_err(|fault| fault.at(format_args!("block {i}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(OpSyntax {
        op_type,
        name,
        inputs,
        outputs,
        attributes,
        blocks,
        span: Span::default(),
    })
}

fn lower_input(i: &zc::NamedValueType, depth: usize) -> Result<InputSyntax, Fault> {
    let name = text(&i.name)?;
    let ty = i
        .r#type
        .as_ref()
        .ok_or_else(|| Fault::invalid("has no type"))
        .and_then(|t| lower_value_type(t, depth))
        .map_err(|fault| fault.at(format_args!("input `{name}`")))?;
    Ok(InputSyntax {
        name: name.into(),
        ty,
        span: Span::default(),
    })
}

/// Attributes in key order.
fn lower_attributes(
    entries: &[zc::ValueEntry],
    depth: usize,
) -> Result<Vec<(String, Literal)>, Fault> {
    map_entries(entries)
        .map(|e| {
            let key = text(&e.key)?;
            lower_value(&e.value, depth)
                .map(|l| (key.to_string(), l))
                .map_err(|fault| fault.at(format_args!("`{key}`")))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Fields the IR does not keep: still protobuf, so their strings must be UTF-8
// ---------------------------------------------------------------------------------------------

fn check_ignored_attributes(entries: &[zc::ValueEntry]) -> Result<(), Fault> {
    entries.iter().try_for_each(|e| {
        text(&e.key)?;
        check_value_strings(&e.value)
    })
}

fn check_value_strings(v: &zc::Value) -> Result<(), Fault> {
    text(&v.doc_string)?;
    if let Some(t) = &v.r#type {
        check_type_strings(t)?;
    }
    let imm = match &v.value {
        Some(zc::value::Value::BlobFileValue(b)) => return text(&b.file_name).map(drop),
        Some(zc::value::Value::ImmediateValue(imm)) => imm,
        None => return Ok(()),
    };
    match &imm.value {
        Some(zc::immediate_value::Value::Tensor(zc::TensorValue {
            value: Some(zc::tensor_value::Value::Strings(s)),
        })) => s.values.iter().try_for_each(|s| text(s).map(drop)),
        Some(zc::immediate_value::Value::Tuple(t)) => {
            t.values.iter().try_for_each(check_value_strings)
        }
        Some(zc::immediate_value::Value::List(l)) => {
            l.values.iter().try_for_each(check_value_strings)
        }
        Some(zc::immediate_value::Value::Dictionary(d)) => d.values.iter().try_for_each(|kv| {
            kv.key
                .iter()
                .chain(&kv.value)
                .try_for_each(check_value_strings)
        }),
        Some(zc::immediate_value::Value::Tensor(_)) | None => Ok(()),
    }
}

fn check_type_strings(t: &zc::ValueType) -> Result<(), Fault> {
    use zc::value_type::Type;
    match &t.r#type {
        Some(Type::TensorType(t)) => check_ignored_attributes(&t.attributes),
        Some(Type::ListType(l)) => l.r#type.as_deref().map_or(Ok(()), check_type_strings),
        Some(Type::TupleType(t)) => t.types.iter().try_for_each(check_type_strings),
        Some(Type::DictionaryType(d)) => d
            .key_type
            .iter()
            .chain(&d.value_type)
            .try_for_each(|t| check_type_strings(t)),
        Some(Type::StateType(s)) => s.wrapped_type.as_deref().map_or(Ok(()), check_type_strings),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

fn check_depth(depth: usize) -> Result<(), Fault> {
    if depth > limits::MAX_NESTING {
        Err(Fault::invalid(format!(
            "types or values are nested deeper than {} levels",
            limits::MAX_NESTING
        )))
    } else {
        Ok(())
    }
}

fn lower_value_type(vt: &zc::ValueType, depth: usize) -> Result<ValueType, Fault> {
    use zc::value_type::Type;
    check_depth(depth)?;
    let boxed = |t: Option<&zc::ValueType>, what: &str| -> Result<Box<ValueType>, Fault> {
        let t = t.ok_or_else(|| Fault::invalid(format!("{what} is missing")))?;
        Ok(Box::new(lower_value_type(t, depth + 1)?))
    };
    match &vt.r#type {
        Some(Type::TensorType(t)) => lower_tensor_type(t).map(ValueType::Tensor),
        Some(Type::ListType(l)) => Ok(ValueType::List {
            elem: boxed(l.r#type.as_deref(), "list element type")?,
            len: match l.length.as_ref().map(lower_dim).transpose()? {
                Some(Some(d)) => d,
                _ => Dim::Unknown,
            },
        }),
        Some(Type::TupleType(t)) => t
            .types
            .iter()
            .map(|e| lower_value_type(e, depth + 1))
            .collect::<Result<Vec<_>, _>>()
            .map(ValueType::Tuple),
        Some(Type::DictionaryType(d)) => Ok(ValueType::Dict {
            key: boxed(d.key_type.as_deref(), "dictionary key type")?,
            value: boxed(d.value_type.as_deref(), "dictionary value type")?,
        }),
        Some(Type::StateType(s)) => Ok(ValueType::State(boxed(
            s.wrapped_type.as_deref(),
            "state's wrapped type",
        )?)),
        None => Err(Fault::invalid("a value type is empty")),
    }
}

/// One dimension; `Ok(None)` for a variadic unknown (an unknown number of dimensions).
fn lower_dim(d: &zc::Dimension) -> Result<Option<Dim>, Fault> {
    match &d.dimension {
        Some(dimension::Dimension::Constant(c)) => {
            if c.size > limits::MAX_DIM {
                Err(Fault::invalid(format!(
                    "dimension {} is larger than the 2^40 limit",
                    c.size
                )))
            } else {
                Ok(Some(Dim::Known(c.size)))
            }
        }
        Some(dimension::Dimension::Unknown(u)) if u.variadic => Ok(None),
        Some(dimension::Dimension::Unknown(_)) | None => Ok(Some(Dim::Unknown)),
    }
}

fn lower_tensor_type(t: &zc::TensorType) -> Result<TensorType, Fault> {
    check_ignored_attributes(&t.attributes)?;
    let dtype = DType::from_proto(t.data_type);
    if t.rank < 0 {
        return Ok(TensorType { dtype, shape: None });
    }
    let mut dims = Vec::with_capacity(t.dimensions.len());
    for d in &t.dimensions {
        match lower_dim(d)? {
            Some(dim) => dims.push(dim),
            None => return Ok(TensorType { dtype, shape: None }),
        }
    }
    if i64::try_from(dims.len()).ok() != Some(t.rank) {
        return Err(Fault::invalid(format!(
            "tensor type declares rank {} but lists {} dimensions",
            t.rank,
            dims.len()
        )));
    }
    Ok(TensorType {
        dtype,
        shape: Some(dims),
    })
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

fn lower_value(v: &zc::Value, depth: usize) -> Result<Literal, Fault> {
    let ty = v
        .r#type
        .as_ref()
        .ok_or_else(|| Fault::invalid("a value has no type"))
        .and_then(|t| lower_value_type(t, depth))?;
    let payload = lower_payload(v, &ty, depth)?;
    Ok(Literal { ty, payload })
}

/// The payload of `v`, whose type is `ty` (its own type when it has one).
fn lower_payload(v: &zc::Value, ty: &ValueType, depth: usize) -> Result<Payload, Fault> {
    check_depth(depth)?;
    text(&v.doc_string)?;
    let imm = match &v.value {
        Some(zc::value::Value::BlobFileValue(b)) => {
            return Ok(Payload::Blob(BlobRef {
                path: text(&b.file_name)?.into(),
                offset: b.offset,
            }))
        }
        Some(zc::value::Value::ImmediateValue(imm)) => imm,
        None => {
            return Err(Fault::invalid(
                "a value has neither an immediate value nor a blob reference",
            ))
        }
    };
    // Elements of containers carry their own type; fall back to the container's declaration.
    let element = |e: &zc::Value, declared: Option<&ValueType>| -> Result<Payload, Fault> {
        let own = e
            .r#type
            .as_ref()
            .map(|t| lower_value_type(t, depth + 1))
            .transpose()?;
        let ty = own
            .as_ref()
            .or(declared)
            .ok_or_else(|| Fault::invalid("a container element has no type"))?;
        lower_payload(e, ty, depth + 1)
    };
    match &imm.value {
        Some(zc::immediate_value::Value::Tensor(t)) => {
            let dtype = ty.tensor().map_or(DType::Unknown(0), |t| t.dtype);
            Ok(Payload::Tensor(tensor_data(
                t,
                dtype,
                limits::MAX_IMMEDIATE_ELEMENTS,
            )?))
        }
        Some(zc::immediate_value::Value::Tuple(t)) => {
            let declared = match ty {
                ValueType::Tuple(types) => types.as_slice(),
                _ => &[],
            };
            t.values
                .iter()
                .enumerate()
                .map(|(i, e)| element(e, declared.get(i)))
                .collect::<Result<Vec<_>, _>>()
                .map(Payload::Tuple)
        }
        Some(zc::immediate_value::Value::List(l)) => {
            let declared = match ty {
                ValueType::List { elem, .. } => Some(elem.as_ref()),
                _ => None,
            };
            l.values
                .iter()
                .map(|e| element(e, declared))
                .collect::<Result<Vec<_>, _>>()
                .map(Payload::List)
        }
        Some(zc::immediate_value::Value::Dictionary(d)) => {
            let (kt, vt) = match ty {
                ValueType::Dict { key, value } => (Some(key.as_ref()), Some(value.as_ref())),
                _ => (None, None),
            };
            d.values
                .iter()
                .map(|kv| {
                    let k = kv
                        .key
                        .as_ref()
                        .ok_or_else(|| Fault::invalid("a dictionary entry has no key"))?;
                    let v = kv
                        .value
                        .as_ref()
                        .ok_or_else(|| Fault::invalid("a dictionary entry has no value"))?;
                    Ok((element(k, kt)?, element(v, vt)?))
                })
                .collect::<Result<Vec<_>, Fault>>()
                .map(Payload::Dict)
        }
        None => Err(Fault::invalid("an immediate value is empty")),
    }
}

/// Decodes the elements of a `TensorValue` of element type `dtype`. Raw `bytes` are decoded for
/// byte-aligned numeric types when there are at most `max_elements` of them, else kept raw.
fn tensor_data(t: &zc::TensorValue, dtype: DType, max_elements: u64) -> Result<TensorData, Fault> {
    use zc::tensor_value::Value as V;
    Ok(match &t.value {
        Some(V::Floats(f)) => TensorData::Floats(f.values.iter().map(|&x| f64::from(x)).collect()),
        Some(V::Doubles(d)) => TensorData::Floats(d.values.clone()),
        Some(V::Ints(i)) => TensorData::Ints(i.values.iter().map(|&x| i64::from(x)).collect()),
        Some(V::LongInts(l)) => TensorData::Ints(l.values.clone()),
        Some(V::Bools(b)) => TensorData::Bools(b.values.clone()),
        Some(V::Strings(s)) => TensorData::Strings(
            s.values
                .iter()
                .map(|s| text(s).map(str::to_string))
                .collect::<Result<_, _>>()?,
        ),
        Some(V::Bytes(b)) => decode_bytes(&b.values, dtype, max_elements),
        None => empty_data(dtype),
    })
}

/// An empty element list of the kind `dtype` decodes to.
fn empty_data(dtype: DType) -> TensorData {
    match dtype {
        DType::Bool => TensorData::Bools(Vec::new()),
        DType::String => TensorData::Strings(Vec::new()),
        d if d.is_float() => TensorData::Floats(Vec::new()),
        d if d.is_int() => TensorData::Ints(Vec::new()),
        _ => TensorData::Bytes(Vec::new()),
    }
}

fn decode_bytes(bytes: &[u8], dtype: DType, max_elements: u64) -> TensorData {
    let width = match dtype {
        DType::Int8 | DType::UInt8 => 1,
        DType::Fp16 | DType::Bf16 | DType::Int16 | DType::UInt16 => 2,
        DType::Int32 | DType::UInt32 => 4,
        // Sub-byte, fp8, bool, 64-bit and unknown types stay raw.
        _ => return TensorData::Bytes(bytes.to_vec()),
    };
    let count = bytes.len() / width;
    if bytes.len() % width != 0 || count as u64 > max_elements {
        return TensorData::Bytes(bytes.to_vec());
    }
    let chunks = bytes.chunks_exact(width);
    let u16s = || {
        bytes.chunks_exact(2).map(|c| {
            u16::from_le_bytes([
                c.first().copied().unwrap_or(0),
                c.get(1).copied().unwrap_or(0),
            ])
        })
    };
    match dtype {
        DType::Fp16 => TensorData::Floats(u16s().map(f16_to_f64).collect()),
        DType::Bf16 => TensorData::Floats(
            u16s()
                .map(|b| f64::from(f32::from_bits(u32::from(b) << 16)))
                .collect(),
        ),
        DType::Int8 => TensorData::Ints(bytes.iter().map(|&b| i64::from(b as i8)).collect()),
        DType::UInt8 => TensorData::Ints(bytes.iter().map(|&b| i64::from(b)).collect()),
        DType::Int16 => TensorData::Ints(u16s().map(|b| i64::from(b as i16)).collect()),
        DType::UInt16 => TensorData::Ints(u16s().map(i64::from).collect()),
        DType::Int32 | DType::UInt32 => {
            let signed = dtype == DType::Int32;
            TensorData::Ints(
                chunks
                    .map(|c| {
                        let mut four = [0u8; 4];
                        four.copy_from_slice(c);
                        let bits = u32::from_le_bytes(four);
                        if signed {
                            i64::from(bits as i32)
                        } else {
                            i64::from(bits)
                        }
                    })
                    .collect(),
            )
        }
        _ => TensorData::Bytes(bytes.to_vec()),
    }
}

// ---------------------------------------------------------------------------------------------
// Model description
// ---------------------------------------------------------------------------------------------

pub(crate) fn lower_description(d: Option<&proto::ModelDescription>) -> ModelDesc {
    let Some(d) = d else {
        return ModelDesc::default();
    };
    let features = |v: &[proto::FeatureDescription]| v.iter().map(lower_feature).collect();
    ModelDesc {
        top: FunctionDesc {
            name: None,
            inputs: features(&d.input),
            outputs: features(&d.output),
            states: features(&d.state),
        },
        functions: d
            .functions
            .iter()
            .map(|f| FunctionDesc {
                name: Some(f.name.clone()),
                inputs: features(&f.input),
                outputs: features(&f.output),
                states: features(&f.state),
            })
            .collect(),
        default_function: Some(d.default_function_name.clone()).filter(|n| !n.is_empty()),
        user_defined: d
            .metadata
            .as_ref()
            .map(|m| {
                m.user_defined
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default(),
        op_histogram: None,
        coreai: None,
        nms: Vec::new(),
    }
}

/// An optional input's default value, as text (`0`, `0.5`).
fn default_text(v: &proto::array_feature_type::DefaultOptionalValue) -> String {
    use proto::array_feature_type::DefaultOptionalValue as D;
    match v {
        D::IntDefaultValue(n) => n.to_string(),
        D::FloatDefaultValue(x) => x.to_string(),
        D::DoubleDefaultValue(x) => x.to_string(),
    }
}

/// `ArrayFeatureType.ArrayDataType` → DType (`None` for invalid or unknown numbers).
fn array_dtype(code: i32) -> Option<DType> {
    use proto::ArrayDataType as A;
    Some(match A::try_from(code).ok()? {
        A::Float32 => DType::Fp32,
        A::Double => DType::Fp64,
        A::Int32 => DType::Int32,
        A::Float16 => DType::Fp16,
        A::Int8 => DType::Int8,
        A::InvalidArrayDataType => return None,
    })
}

fn lower_feature(f: &proto::FeatureDescription) -> FeatureDesc {
    use proto::array_feature_type::ShapeFlexibility;
    use proto::feature_type::Type;
    let kind = match f.r#type.as_ref().and_then(|t| t.r#type.as_ref()) {
        Some(Type::MultiArrayType(a)) => FeatureKind::Array {
            dtype: array_dtype(a.data_type),
            shape: a.shape.clone(),
            flexible: a.shape_flexibility.as_ref().map(|flex| match flex {
                ShapeFlexibility::EnumeratedShapes(e) => {
                    Flexibility::Enumerated(e.shapes.iter().map(|s| s.shape.clone()).collect())
                }
                ShapeFlexibility::ShapeRange(r) => Flexibility::Ranges(
                    r.size_ranges
                        .iter()
                        .map(|s| (s.lower_bound, s.upper_bound))
                        .collect(),
                ),
            }),
            default: a.default_optional_value.as_ref().map(default_text),
        },
        Some(Type::StateType(s)) => match &s.r#type {
            Some(proto::state_feature_type::Type::ArrayType(a)) => FeatureKind::State {
                dtype: array_dtype(a.data_type),
                shape: a.shape.clone(),
            },
            None => FeatureKind::State {
                dtype: None,
                shape: Vec::new(),
            },
        },
        Some(Type::ImageType(i)) => FeatureKind::Image {
            width: i.width,
            height: i.height,
        },
        Some(Type::Int64Type(_)) => FeatureKind::Int64,
        Some(Type::DoubleType(_)) => FeatureKind::Double,
        Some(Type::StringType(_)) => FeatureKind::String,
        Some(Type::DictionaryType(_)) => FeatureKind::Other("dictionary".into()),
        Some(Type::SequenceType(_)) => FeatureKind::Other("sequence".into()),
        None => FeatureKind::Other("no type".into()),
    };
    FeatureDesc {
        name: f.name.clone(),
        kind,
        optional: f.r#type.as_ref().is_some_and(|t| t.is_optional),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Op;
    use proto::fixtures::*;
    use proto::{argument::binding, immediate_value, value};
    use proto::{tensor_value as tv, DataType as D};
    use std::collections::BTreeMap;

    fn path() -> &'static Path {
        Path::new("m.mlpackage/Data/com.apple.CoreML/model.mlmodel")
    }

    /// Lowers `m` as the reader would: from its encoded bytes.
    fn lower_model(m: &proto::Model, path: &Path) -> Result<Lowered, ReadError> {
        lower_bytes(m.encode_to_vec().into(), path)
    }

    fn lowered(m: &proto::Model) -> LoweredProgram {
        match lower_model(m, path()) {
            Ok(Lowered::Program(p)) => *p,
            other => panic!("expected a program, got {other:?}"),
        }
    }

    fn program_error(m: &proto::Model) -> String {
        match lower_model(m, path()) {
            Err(e @ ReadError::Program { .. }) => {
                let msg = e.to_string();
                assert!(msg.contains("model.mlmodel"), "{msg}");
                msg
            }
            other => panic!("expected a program error, got {other:?}"),
        }
    }

    fn bytes_value(dtype: D, dims: &[u64], bytes: &[u8]) -> proto::Value {
        tensor_value(
            tensor_type(dtype, dims),
            tv::Value::Bytes(tv::RepeatedBytes {
                values: bytes.to_vec(),
            }),
        )
    }

    fn blob_value(dtype: D, dims: &[u64], offset: u64) -> proto::Value {
        proto::Value {
            doc_string: String::new(),
            r#type: Some(tensor_type(dtype, dims)),
            value: Some(value::Value::BlobFileValue(proto::BlobFileValue {
                file_name: "@model_path/weights/weight.bin".into(),
                offset,
            })),
        }
    }

    fn state_feature(name: &str, shape: &[i64]) -> proto::FeatureDescription {
        proto::FeatureDescription {
            name: name.into(),
            short_description: String::new(),
            r#type: Some(proto::FeatureType {
                r#type: Some(proto::feature_type::Type::StateType(
                    proto::StateFeatureType {
                        r#type: Some(proto::state_feature_type::Type::ArrayType(
                            proto::ArrayFeatureType {
                                shape: shape.to_vec(),
                                data_type: proto::ArrayDataType::Float16 as i32,
                                ..Default::default()
                            },
                        )),
                    },
                )),
                is_optional: false,
            }),
        }
    }

    fn array_feature(
        name: &str,
        dtype: proto::ArrayDataType,
        shape: &[i64],
    ) -> proto::FeatureDescription {
        proto::FeatureDescription {
            name: name.into(),
            short_description: String::new(),
            r#type: Some(proto::FeatureType {
                r#type: Some(proto::feature_type::Type::MultiArrayType(
                    proto::ArrayFeatureType {
                        shape: shape.to_vec(),
                        data_type: dtype as i32,
                        ..Default::default()
                    },
                )),
                is_optional: false,
            }),
        }
    }

    /// A KV-cache step: read_state → slice_update → write_state, plus consts of every encoding.
    fn stateful_function() -> proto::Function {
        let kv = [1, 4, 8];
        let mut update = op(
            "slice_update",
            "upd",
            &[("x", "old"), ("update", "row"), ("begin", "begin")],
            vec![named("new", tensor_type(D::Float16, &kv))],
        );
        update.inputs.insert(
            "end".into(),
            proto::Argument {
                arguments: vec![proto::argument::Binding {
                    binding: Some(binding::Binding::Value(ints_value(&[1, 4, 8]))),
                }],
            },
        );
        function(
            "CoreML8",
            vec![
                named("k_cache", state_type(D::Float16, &kv)),
                named("row", tensor_type(D::Float16, &[1, 4, 1])),
            ],
            vec![
                const_op("begin", ints_value(&[0, 0, 7])),
                // 1.0, -2.0, 0.5 in binary16.
                const_op(
                    "w16",
                    bytes_value(D::Float16, &[3], &[0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38]),
                ),
                const_op("w8", bytes_value(D::Int8, &[2], &[0xff, 0x01])),
                const_op("w4", bytes_value(D::Uint4, &[2], &[0x21])),
                const_op("wb", blob_value(D::Float16, &[64, 32], 64)),
                op(
                    "read_state",
                    "old_read",
                    &[("input", "k_cache")],
                    vec![named("old", tensor_type(D::Float16, &kv))],
                ),
                update,
                op(
                    "write_state",
                    "upd_write_state",
                    &[("input", "k_cache"), ("data", "new")],
                    vec![],
                ),
            ],
            &["new"],
        )
    }

    fn stateful_model(spec: i32) -> proto::Model {
        let mut m = ml_model(
            spec,
            vec![("main", stateful_function())],
            proto::ModelDescription {
                input: vec![array_feature(
                    "row",
                    proto::ArrayDataType::Float16,
                    &[1, 4, 1],
                )],
                output: vec![array_feature(
                    "new",
                    proto::ArrayDataType::Float16,
                    &[1, 4, 8],
                )],
                state: vec![state_feature("k_cache", &[1, 4, 8])],
                metadata: Some(proto::Metadata {
                    user_defined: BTreeMap::from([(
                        "com.github.apple.coremltools.version".to_string(),
                        "9.0".to_string(),
                    )]),
                    ..Default::default()
                }),
                ..Default::default()
            },
        );
        if let Some(proto::model::Type::MlProgram(p)) = &mut m.r#type {
            let s = tensor_type(D::String, &[]);
            let dict_ty = proto::ValueType {
                r#type: Some(proto::value_type::Type::DictionaryType(
                    proto::DictionaryType {
                        key_type: Some(Box::new(s.clone())),
                        value_type: Some(Box::new(s)),
                    },
                )),
            };
            p.attributes.insert(
                "buildInfo".into(),
                proto::Value {
                    doc_string: String::new(),
                    r#type: Some(dict_ty),
                    value: Some(value::Value::ImmediateValue(proto::ImmediateValue {
                        value: Some(immediate_value::Value::Dictionary(proto::DictionaryValue {
                            values: vec![proto::dictionary_value::KeyValuePair {
                                key: Some(string_value("coremltools-version")),
                                value: Some(string_value("9.0")),
                            }],
                        })),
                    })),
                },
            );
        }
        m
    }

    fn find_op<'a>(f: &'a Function, name: &str) -> &'a Op {
        f.ops()
            .map(|(_, o)| o)
            .find(|o| o.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no op named {name}"))
    }

    fn val(op: &Op) -> &TensorData {
        op.attributes["val"]
            .tensor_data()
            .expect("immediate tensor")
    }

    /// A function notes whether any of its names holds a line break (the line index then reads
    /// them), whichever kind of name it is; the index then places every op where the text does.
    #[test]
    fn a_name_with_a_line_break_is_noted_and_indexed_as_written() {
        let f16 = || tensor_type(D::Float16, &[1, 4]);
        let model = |input: &str, output: &str, op_type: &str, param: &str, key: &str| {
            let mut relu = op(op_type, "r", &[(param, input)], vec![named(output, f16())]);
            relu.attributes.insert(key.to_string(), string_value("v"));
            let tail = op("relu", "t", &[("x", output)], vec![named("z", f16())]);
            let f = function(
                "CoreML8",
                vec![named(input, f16())],
                vec![relu, tail],
                &["z"],
            );
            ml_model(9, vec![("main", f)], proto::ModelDescription::default())
        };
        let breaks = |m: &proto::Model| {
            let p = lowered(m);
            p.program.functions[0].names_hold_line_breaks
        };
        assert!(!breaks(&model("x", "y", "relu", "x", "note")));
        for m in [
            model("x\n", "y", "relu", "x", "note"),
            model("x", "y\n", "relu", "x", "note"),
            model("x", "y", "re\nlu", "x", "note"),
            model("x", "y", "relu", "x\n", "note"),
            model("x", "y", "relu", "x", "no\nte"),
        ] {
            assert!(breaks(&m));
            let mut rendered = lowered(&m).program;
            let mut indexed = rendered.clone();
            let text = crate::ir::render::render_program(&mut rendered);
            let index = crate::ir::render::index_program(&mut indexed);
            let spans = |p: &Program| -> Vec<Span> {
                p.functions[0].ops().map(|(_, op)| op.span).collect()
            };
            for (r, i) in spans(&rendered).iter().zip(spans(&indexed)) {
                assert_eq!(
                    index.line_col(i.start),
                    crate::ir::span::line_col(&text, r.start)
                );
            }
        }
    }

    #[test]
    fn stateful_program_lowers_completely() {
        let p = lowered(&stateful_model(9));
        assert_eq!(p.spec_version, 9);
        assert_eq!(p.program.version, "1.3");
        let f = p.program.function("main").expect("main");
        assert_eq!(f.opset, "CoreML8");
        assert_eq!(f.op_count(), 8);
        let inputs: Vec<_> = f
            .inputs()
            .map(|(_, i)| (i.name.as_str(), i.ty.is_state()))
            .collect();
        assert_eq!(inputs, vec![("k_cache", true), ("row", false)]);
        assert_eq!(val(find_op(f, "begin")), &TensorData::Ints(vec![0, 0, 7]));
        assert_eq!(
            val(find_op(f, "w16")),
            &TensorData::Floats(vec![1.0, -2.0, 0.5])
        );
        assert_eq!(val(find_op(f, "w8")), &TensorData::Ints(vec![-1, 1]));
        assert_eq!(val(find_op(f, "w4")), &TensorData::Bytes(vec![0x21]));
        let blob = find_op(f, "wb").attributes["val"].blob().expect("blob");
        assert_eq!(
            (blob.path.as_str(), blob.offset),
            ("@model_path/weights/weight.bin", 64)
        );
        assert!(!find_op(f, "w16").attributes.contains_key("name"));

        let upd = find_op(f, "upd");
        let keys: Vec<&str> = upd.inputs.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(keys, ["begin", "end", "update", "x"]);
        assert!(
            matches!(upd.arg("end"), Some(Arg::Value(l)) if l.tensor_data() == Some(&TensorData::Ints(vec![1, 4, 8])))
        );
        assert_eq!(upd.arg_name("x"), Some("old"));
        let (upd_id, _) = f
            .ops()
            .find(|(_, o)| o.name.as_deref() == Some("upd"))
            .unwrap();
        let read = f
            .producer(upd_id, "x")
            .and_then(|id| f.op(id))
            .expect("producer");
        assert_eq!(read.op_type, "read_state");
        assert!(find_op(f, "upd_write_state").outputs.is_empty());
        assert_eq!(f.outputs(), ["new".to_string()]);

        let build_info = &p.program.attributes;
        assert_eq!(build_info.len(), 1);
        assert_eq!(build_info[0].0, "buildInfo");
        match &build_info[0].1.payload {
            Payload::Dict(pairs) => assert_eq!(
                pairs,
                &vec![(
                    Payload::Tensor(TensorData::Strings(vec!["coremltools-version".into()])),
                    Payload::Tensor(TensorData::Strings(vec!["9.0".into()]))
                )]
            ),
            other => panic!("buildInfo is {other:?}"),
        }

        let d = &p.description;
        assert_eq!(
            d.top.states[0].kind,
            FeatureKind::State {
                dtype: Some(DType::Fp16),
                shape: vec![1, 4, 8]
            }
        );
        assert_eq!(d.top.inputs[0].name, "row");
        assert_eq!(d.top.outputs[0].name, "new");
        assert_eq!(
            d.user_defined,
            vec![("com.github.apple.coremltools.version".into(), "9.0".into())]
        );
        assert_eq!(d.default_function, None);
    }

    #[test]
    fn older_spec_renders_as_program_1_0() {
        assert_eq!(lowered(&stateful_model(8)).program.version, "1.0");
    }

    #[test]
    fn multifunction_model_keeps_every_function_and_description() {
        let desc = proto::ModelDescription {
            functions: vec![
                proto::FunctionDescription {
                    name: "infer".into(),
                    state: vec![state_feature("k_cache", &[1, 4, 8])],
                    input: vec![array_feature(
                        "row",
                        proto::ArrayDataType::Float16,
                        &[1, 4, 1],
                    )],
                    ..Default::default()
                },
                proto::FunctionDescription {
                    name: "prefill".into(),
                    state: vec![state_feature("k_cache", &[1, 4, 8])],
                    input: vec![array_feature(
                        "row",
                        proto::ArrayDataType::Int32,
                        &[1, 4, 1],
                    )],
                    ..Default::default()
                },
            ],
            default_function_name: "infer".into(),
            ..Default::default()
        };
        let m = ml_model(
            9,
            vec![
                ("prefill", stateful_function()),
                ("infer", stateful_function()),
            ],
            desc,
        );
        let p = lowered(&m);
        let names: Vec<&str> = p
            .program
            .functions
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(names, ["infer", "prefill"]);
        assert_eq!(p.description.default_function.as_deref(), Some("infer"));
        let prefill = p.description.for_function("prefill").expect("prefill desc");
        assert!(matches!(
            prefill.inputs[0].kind,
            FeatureKind::Array {
                dtype: Some(DType::Int32),
                ..
            }
        ));
        assert_eq!(prefill.states[0].name, "k_cache");
    }

    #[test]
    fn other_model_kinds_are_named_not_errors() {
        let nn = proto::Model {
            specification_version: 4,
            r#type: Some(proto::model::Type::NeuralNetwork(vec![])),
            ..Default::default()
        };
        assert!(
            matches!(lower_model(&nn, path()), Ok(Lowered::NotMlProgram(w)) if w == "a neural network")
        );
        let pipe = proto::Model {
            r#type: Some(proto::model::Type::Pipeline(proto::Pipeline::default())),
            ..Default::default()
        };
        assert!(
            matches!(lower_model(&pipe, path()), Ok(Lowered::NotMlProgram(w)) if w == "a pipeline with no models")
        );
        let nn_pipe = proto::Model {
            r#type: Some(proto::model::Type::Pipeline(proto::Pipeline {
                models: vec![nn.clone(), nn.clone()],
                names: vec![],
            })),
            ..Default::default()
        };
        assert!(matches!(
            lower_model(&nn_pipe, path()),
            Ok(Lowered::NotMlProgram(w)) if w == "a pipeline with no ML program (a neural network, a neural network)"
        ));
        // Survives a round trip through bytes, as a real file would.
        let back = proto::Model::decode(nn.encode_to_vec().as_slice()).unwrap();
        assert!(matches!(
            lower_model(&back, path()),
            Ok(Lowered::NotMlProgram(_))
        ));
        let empty = lower_model(&proto::Model::default(), path()).unwrap_err();
        assert!(matches!(empty, ReadError::Protobuf { .. }), "{empty}");
    }

    #[test]
    fn absurd_dimension_names_function_and_op() {
        let mut m = stateful_model(9);
        if let Some(proto::model::Type::MlProgram(p)) = &mut m.r#type {
            let f = p.functions.get_mut("main").unwrap();
            let block = f.block_specializations.get_mut("CoreML8").unwrap();
            block.operations[5].outputs[0].r#type = Some(tensor_type(D::Float16, &[1, 1 << 41, 8]));
        }
        let msg = program_error(&m);
        assert!(
            msg.contains("function `main`") && msg.contains("op `old_read`"),
            "{msg}"
        );
        assert!(msg.contains("2^40"), "{msg}");
    }

    #[test]
    fn undefined_names_map_to_program_errors() {
        let f = function(
            "CoreML7",
            vec![],
            vec![op(
                "relu",
                "r",
                &[("x", "ghost")],
                vec![named("y", tensor_type(D::Float32, &[1]))],
            )],
            &["y"],
        );
        let msg = program_error(&ml_model(8, vec![("main", f)], Default::default()));
        assert!(
            msg.contains("function `main`") && msg.contains("ghost"),
            "{msg}"
        );
    }

    #[test]
    fn block_is_chosen_by_opset_with_a_single_block_fallback() {
        let mut f = stateful_function();
        let block = f.block_specializations.remove("CoreML8").unwrap();
        f.block_specializations
            .insert("CoreML9".into(), block.clone());
        let p = lowered(&ml_model(9, vec![("main", f.clone())], Default::default()));
        assert_eq!(p.program.functions[0].op_count(), 8);

        f.block_specializations.insert("CoreML7".into(), block);
        let msg = program_error(&ml_model(9, vec![("main", f.clone())], Default::default()));
        assert!(msg.contains("no block for its opset `CoreML8`"), "{msg}");

        f.block_specializations.clear();
        assert!(
            program_error(&ml_model(9, vec![("main", f)], Default::default()))
                .contains("has no block")
        );
    }

    #[test]
    fn dynamic_shapes_and_rank_checks() {
        let t = |rank: i64, dims: Vec<proto::Dimension>| zc::TensorType {
            data_type: D::Float32 as i32,
            rank,
            dimensions: dims,
            attributes: vec![],
        };
        let unknown = |variadic| proto::Dimension {
            dimension: Some(dimension::Dimension::Unknown(dimension::UnknownDimension {
                variadic,
            })),
        };
        assert_eq!(lower_tensor_type(&t(-1, vec![])).unwrap().shape, None);
        assert_eq!(
            lower_tensor_type(&t(1, vec![unknown(true)])).unwrap().shape,
            None
        );
        assert_eq!(
            lower_tensor_type(&t(1, vec![unknown(false)]))
                .unwrap()
                .shape,
            Some(vec![Dim::Unknown])
        );
        assert_eq!(
            lower_tensor_type(&t(0, vec![])).unwrap().shape,
            Some(vec![])
        );
        assert!(matches!(
            lower_tensor_type(&t(3, vec![unknown(false)])),
            Err(Fault::Invalid(m)) if m.contains("rank 3")
        ));
        // An unknown dtype number is kept.
        let odd = zc::TensorType {
            data_type: 77,
            ..t(0, vec![])
        };
        assert_eq!(lower_tensor_type(&odd).unwrap().dtype, DType::Unknown(77));
    }

    #[test]
    fn nested_blocks_lower_and_excess_nesting_is_refused() {
        let scalar = tensor_type(D::Bool, &[]);
        let branch = |name: &str| proto::Block {
            inputs: vec![],
            outputs: vec![name.into()],
            operations: vec![op(
                "logical_not",
                name,
                &[("x", "p")],
                vec![named(name, scalar.clone())],
            )],
            attributes: BTreeMap::new(),
        };
        let mut cond = op(
            "cond",
            "c",
            &[("pred", "p")],
            vec![named("out", scalar.clone())],
        );
        cond.blocks = vec![branch("t"), branch("e")];
        let f = function(
            "CoreML8",
            vec![named("p", scalar.clone())],
            vec![cond],
            &["out"],
        );
        let p = lowered(&ml_model(9, vec![("main", f)], Default::default()));
        let func = &p.program.functions[0];
        assert_eq!(func.op_count(), 3);
        assert_eq!(func.blocks.len(), 3);

        let nested = |depth: usize| {
            let mut inner = proto::Block::default();
            for _ in 0..depth {
                let mut c = op("cond", "c", &[], vec![]);
                c.blocks = vec![inner];
                inner = proto::Block {
                    operations: vec![c],
                    ..Default::default()
                };
            }
            let mut f = function("CoreML8", vec![], vec![], &[]);
            f.block_specializations.insert("CoreML8".into(), inner);
            ml_model(9, vec![("main", f)], Default::default())
        };
        // Each level is two messages (operation, block); prost stops at 100 nested messages, so
        // from a file the decoder's limit is reached before MAX_BLOCK_NESTING.
        let deepest = lowered(&nested(40));
        assert_eq!(deepest.program.functions[0].op_count(), 40);
        let too_deep = lower_model(&nested(limits::MAX_BLOCK_NESTING + 1), path())
            .unwrap_err()
            .to_string();
        assert!(
            too_deep.contains("recursion limit") || too_deep.contains("nested deeper"),
            "{}",
            &too_deep[..too_deep.len().min(300)]
        );
    }

    #[test]
    fn missing_types_and_empty_values_are_errors() {
        let mut no_type = ints_value(&[1]);
        no_type.r#type = None;
        let f = function("CoreML8", vec![], vec![const_op("c", no_type)], &["c"]);
        let msg = program_error(&ml_model(9, vec![("main", f)], Default::default()));
        assert!(
            msg.contains("op `c` (const)") && msg.contains("no type"),
            "{msg}"
        );

        let mut empty = ints_value(&[1]);
        empty.value = None;
        let f = function("CoreML8", vec![], vec![const_op("c", empty)], &["c"]);
        assert!(
            program_error(&ml_model(9, vec![("main", f)], Default::default())).contains("neither")
        );
    }

    #[test]
    fn raw_bytes_decode_within_the_element_cap() {
        assert_eq!(
            decode_bytes(&[0; 8], DType::Fp16, 3),
            TensorData::Bytes(vec![0; 8])
        );
        assert_eq!(
            decode_bytes(&[0; 8], DType::Fp16, 4),
            TensorData::Floats(vec![0.0; 4])
        );
        assert_eq!(
            decode_bytes(&[0; 3], DType::Fp16, 4),
            TensorData::Bytes(vec![0; 3])
        );
        assert_eq!(
            decode_bytes(&[0xff, 0x80], DType::UInt8, 4),
            TensorData::Ints(vec![255, 128])
        );
        assert_eq!(
            decode_bytes(&[0xfe, 0xff, 0xff, 0xff], DType::Int32, 4),
            TensorData::Ints(vec![-2])
        );
        assert_eq!(
            decode_bytes(&[0x80, 0x3f], DType::Bf16, 4),
            TensorData::Floats(vec![1.0])
        );
        assert_eq!(
            decode_bytes(&[1, 2], DType::Fp8E4M3Fn, 4),
            TensorData::Bytes(vec![1, 2])
        );
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(f16_to_f64(0xfbff), -65504.0);
        assert_eq!(f16_to_f64(0x7c00), f64::INFINITY);
        assert!(f16_to_f64(0x7e00).is_nan());
        assert!(f16_to_f64(0x8000).is_sign_negative());
    }

    #[test]
    fn a_garbled_operation_is_a_protobuf_error_naming_its_function_and_index() {
        // The outline decodes (the op is only length-delimited bytes to it); the op itself does not.
        let garbled = proto::ModelOutline {
            specification_version: 9,
            description: None,
            ml_program: Some(proto::ProgramOutline {
                version: 1,
                functions: BTreeMap::from([(
                    "main".to_string(),
                    proto::FunctionOutline {
                        inputs: vec![],
                        opset: "CoreML8".into(),
                        block_specializations: BTreeMap::from([(
                            "CoreML8".to_string(),
                            proto::BlockOutline {
                                inputs: vec![],
                                outputs: vec![],
                                operations: vec![
                                    Bytes::new(),
                                    Bytes::from_static(&[0x0a, 0xff, 0xff, 0xff]),
                                ],
                                attributes: vec![],
                            },
                        )]),
                        attributes: vec![],
                    },
                )]),
                attributes: vec![],
            }),
            ..Default::default()
        };
        match lower_bytes(garbled.encode_to_vec().into(), path()) {
            Err(e @ ReadError::Protobuf { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("model.mlmodel") && msg.contains("function `main`: operation 1"),
                    "{msg}"
                );
            }
            other => panic!("expected a protobuf error, got {other:?}"),
        }
    }

    /// A model whose function `main` has inputs `a` and `b` and the operations `ops`, written as
    /// zero-copy messages: they can hold what an owned map or `String` cannot.
    fn model_with_ops(ops: &[zc::Operation], outputs: &[&str]) -> Bytes {
        let input = |n: &str| {
            zc::NamedValueType::decode(
                named(n, tensor_type(D::Float32, &[2]))
                    .encode_to_vec()
                    .as_slice(),
            )
            .unwrap()
        };
        let block = proto::BlockOutline {
            inputs: vec![],
            outputs: outputs
                .iter()
                .map(|o| Bytes::copy_from_slice(o.as_bytes()))
                .collect(),
            operations: ops.iter().map(|o| o.encode_to_vec().into()).collect(),
            attributes: vec![],
        };
        let function = proto::FunctionOutline {
            inputs: vec![input("a"), input("b")],
            opset: "CoreML8".into(),
            block_specializations: BTreeMap::from([("CoreML8".to_string(), block)]),
            attributes: vec![],
        };
        proto::ModelOutline {
            specification_version: 9,
            ml_program: Some(proto::ProgramOutline {
                version: 1,
                functions: BTreeMap::from([("main".to_string(), function)]),
                attributes: vec![],
            }),
            ..Default::default()
        }
        .encode_to_vec()
        .into()
    }

    fn zero_copy(op: &proto::Operation) -> zc::Operation {
        zc::Operation::decode(op.encode_to_vec().as_slice()).unwrap()
    }

    #[test]
    fn map_entries_lower_in_key_order_and_the_last_of_equal_keys_wins() {
        let out = || vec![named("s", tensor_type(D::Float32, &[2]))];
        // In file order: inputs x = a, y = a, x = b; attributes name = first, name = second.
        let mut add = zero_copy(&op("add", "first", &[("x", "a"), ("y", "a")], out()));
        let later = zero_copy(&op("add", "second", &[("x", "b")], out()));
        add.inputs.extend(later.inputs);
        add.attributes.extend(later.attributes);
        let p = match lower_bytes(model_with_ops(&[add], &["s"]), path()) {
            Ok(Lowered::Program(p)) => p,
            other => panic!("expected a program, got {other:?}"),
        };
        let op = find_op(&p.program.functions[0], "second");
        let params: Vec<&str> = op.inputs.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(params, ["x", "y"]);
        assert_eq!(op.arg_name("x"), Some("b"));
        assert_eq!(op.arg_name("y"), Some("a"));
    }

    #[test]
    fn a_string_that_is_not_utf8_is_a_protobuf_error_naming_the_operation() {
        let relu = zero_copy(&op(
            "relu",
            "r",
            &[("x", "a")],
            vec![named("r", tensor_type(D::Float32, &[2]))],
        ));
        let bad = Bytes::from_static(&[b'r', 0xff]);
        let mut bad_type = relu.clone();
        bad_type.r#type = bad.clone();
        let mut bad_output = relu.clone();
        bad_output.outputs[0].name = bad.clone();
        let mut bad_binding = relu.clone();
        bad_binding.inputs[0].value.arguments[0].binding =
            Some(zc::argument::binding::Binding::Name(bad.clone()));
        let mut bad_key = relu.clone();
        bad_key.inputs[0].key = bad;
        for op in [bad_type, bad_output, bad_binding, bad_key] {
            match lower_bytes(model_with_ops(&[relu.clone(), op], &["r"]), path()) {
                Err(e @ ReadError::Protobuf { .. }) => {
                    let msg = e.to_string();
                    assert!(
                        msg.contains("model.mlmodel")
                            && msg.contains("function `main`: operation 1")
                            && msg.contains("not UTF-8"),
                        "{msg}"
                    );
                }
                other => panic!("expected a protobuf error, got {other:?}"),
            }
        }
    }

    #[test]
    fn truncated_and_garbled_protobufs_never_panic() {
        let bytes = stateful_model(9).encode_to_vec();
        let mut decode_errors = 0;
        for len in 0..bytes.len() {
            // A cut on a field boundary decodes; lowering must then fail or succeed cleanly.
            if let Err(ReadError::Protobuf { .. }) =
                lower_bytes(Bytes::copy_from_slice(&bytes[..len]), path())
            {
                decode_errors += 1;
            }
        }
        assert!(
            decode_errors > bytes.len() / 2,
            "{decode_errors} of {}",
            bytes.len()
        );
        // Flip single bytes: every outcome is a value, never a panic.
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x5a;
            drop(lower_bytes(b.into(), path()));
        }
    }

    /// A one-op ML program (`relu` of an fp16 `[1, 4]`).
    fn tiny_program() -> proto::Model {
        let t = || tensor_type(D::Float16, &[1, 4]);
        ml_model(
            9,
            vec![(
                "main",
                function(
                    "CoreML8",
                    vec![named("x", t())],
                    vec![op("relu", "y", &[("x", "x")], vec![named("y", t())])],
                    &["y"],
                ),
            )],
            proto::ModelDescription::default(),
        )
    }

    /// `Pipeline` bytes of `models` (each already encoded) with `names`.
    fn pipeline_bytes(models: Vec<Vec<u8>>, names: &[&str]) -> Vec<u8> {
        proto::PipelineOutline {
            models: models.into_iter().map(Bytes::from).collect(),
            names: names.iter().map(|n| n.to_string()).collect(),
        }
        .encode_to_vec()
    }

    /// A `PipelineClassifier` / `PipelineRegressor` payload holding `pipeline`.
    fn held(pipeline: Vec<u8>) -> Vec<u8> {
        proto::PipelineHolderOutline {
            pipeline: Some(proto::PipelineOutline::decode(pipeline.as_slice()).unwrap()),
        }
        .encode_to_vec()
    }

    fn positions(stages: &[LoweredStage]) -> Vec<(Vec<usize>, Option<&str>, bool)> {
        stages
            .iter()
            .map(|s| {
                (
                    s.sub_model.position.clone(),
                    s.sub_model.name.as_deref(),
                    matches!(s.content, StageContent::Program(_)),
                )
            })
            .collect()
    }

    #[test]
    fn pipelines_of_every_kind_are_flattened_in_order() {
        use proto::model::Type;
        let nn = proto::Model {
            specification_version: 4,
            r#type: Some(Type::NeuralNetwork(vec![])),
            ..Default::default()
        };
        // regressor [nn, program], named
        let regressor = proto::Model {
            r#type: Some(Type::PipelineRegressor(held(pipeline_bytes(
                vec![nn.encode_to_vec(), tiny_program().encode_to_vec()],
                &["norm", "head"],
            )))),
            ..Default::default()
        };
        // classifier [program, regressor], unnamed
        let classifier = proto::Model {
            r#type: Some(Type::PipelineClassifier(held(pipeline_bytes(
                vec![tiny_program().encode_to_vec(), regressor.encode_to_vec()],
                &[],
            )))),
            ..Default::default()
        };
        let Ok(Lowered::Pipeline(stages)) = lower_model(&classifier, path()) else {
            panic!("not read as a pipeline")
        };
        assert_eq!(
            positions(&stages),
            vec![
                (vec![0], None, true),
                (vec![1, 0], Some("norm"), false),
                (vec![1, 1], Some("head"), true),
            ]
        );
        let StageContent::Program(p) = &stages[2].content else {
            unreachable!()
        };
        assert_eq!(p.program.functions[0].name, "main");
        // A plain pipeline holding that classifier.
        let plain = proto::Model {
            r#type: Some(Type::Pipeline(proto::Pipeline {
                models: vec![classifier],
                names: vec!["all".into()],
            })),
            ..Default::default()
        };
        let Ok(Lowered::Pipeline(stages)) = lower_model(&plain, path()) else {
            panic!("not read as a pipeline")
        };
        assert_eq!(stages[2].sub_model.position, vec![0, 1, 1]);
        assert_eq!(stages[2].sub_model.to_string(), "sub-model 0.1.1 \"head\"");
    }

    #[test]
    fn hostile_pipelines_are_read_errors_naming_the_sub_model() {
        use proto::model::Type;
        // A truncated sub-model.
        let mut sub = tiny_program().encode_to_vec();
        sub.truncate(sub.len() / 2);
        let pipeline = pipeline_bytes(vec![tiny_program().encode_to_vec(), sub], &[]);
        // `Model.pipeline` (field 202, length-delimited) holding it.
        let model = [&[0xd2u8, 0x0c][..], &encode_len(pipeline.len()), &pipeline].concat();
        let err = lower_bytes(model.into(), path()).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("sub-model 1") && msg.contains("model.mlmodel"),
            "{msg}"
        );

        // Pipelines nested far deeper than the limit: an error, not a stack overflow.
        let mut inner = tiny_program().encode_to_vec();
        for _ in 0..10_000 {
            let p = pipeline_bytes(vec![inner], &[]);
            inner = [&[0xd2u8, 0x0c][..], &encode_len(p.len()), &p].concat();
        }
        let msg = lower_bytes(inner.into(), path()).unwrap_err().to_string();
        assert!(msg.contains("nested deeper than"), "{msg}");

        // Too many sub-models.
        let nn = proto::Model {
            r#type: Some(Type::NeuralNetwork(vec![])),
            ..Default::default()
        }
        .encode_to_vec();
        let many = proto::Model {
            r#type: Some(Type::Pipeline(proto::Pipeline {
                models: vec![
                    proto::Model::decode(nn.as_slice()).unwrap();
                    limits::MAX_PIPELINE_MODELS + 1
                ],
                names: vec![],
            })),
            ..Default::default()
        };
        let msg = lower_model(&many, path()).unwrap_err().to_string();
        assert!(msg.contains("more than"), "{msg}");
    }

    /// A protobuf length prefix.
    fn encode_len(n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        prost::encoding::encode_varint(n as u64, &mut out);
        out
    }
}
