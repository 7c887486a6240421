//! Protobuf `Model` → IR [`Program`](crate::ir::Program) and [`ModelDesc`](crate::ir::ModelDesc).
//!
//! Every function of the `mlProgram` is lowered (in name order) to a [`FunctionSyntax`] and built
//! into a graph. Spans are left empty: the renderer assigns them when it prints the program.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

use std::path::Path;

use prost::bytes::Bytes;
use rayon::prelude::*;

use super::proto;
use super::wire::{self, Fault};
use super::ReadError;
use crate::ir::build::{BuildError, FunctionBuilder};
use crate::ir::Function;
use crate::ir::{
    DType, FeatureDesc, FeatureKind, Flexibility, FunctionDesc, ModelDesc, Name, Program, Span,
    SubModel,
};
use crate::limits;

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
    let mut outline = decode_outline(bytes.clone(), path)?;
    if outline.ml_program.is_none() {
        if let Some(pipeline) = outline.take_pipeline() {
            return lower_pipeline(pipeline, path);
        }
    }
    Ok(match lower_single(outline, &bytes, path)? {
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
            decode_outline(bytes.clone(), path).map_err(|e| e.in_sub_model(&sub_model))?;
        let nested = match outline.ml_program {
            None => outline.take_pipeline(),
            Some(_) => None,
        };
        match nested {
            Some(inner) => collect_stages(inner, at, path, out)?,
            None => {
                let content =
                    lower_single(outline, &bytes, path).map_err(|e| e.in_sub_model(&sub_model))?;
                out.push(LoweredStage { sub_model, content });
            }
        }
        at.pop();
    }
    Ok(())
}

/// Lowers a model that is not a pipeline.
fn lower_single(
    outline: proto::ModelOutline,
    bytes: &Bytes,
    path: &Path,
) -> Result<StageContent, ReadError> {
    let Some(program) = outline.ml_program else {
        return match proto::decode_model(bytes, path)?.r#type {
            Some(other) => Ok(StageContent::NotMlProgram(other.describe().to_string())),
            None => Err(ReadError::Protobuf {
                path: path.to_path_buf(),
                message: "the Model message names no model kind (empty, or not a Core ML model)"
                    .into(),
            }),
        };
    };
    let spec_version = i64::from(outline.specification_version);
    let attributes = wire::attributes(
        program.attributes.iter().map(|b| &b[..]),
        budget::PROGRAM_ATTRIBUTE,
    )
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
    Ok(StageContent::Program(Box::new(LoweredProgram {
        program: Program {
            // The text dialect the renderer prints: bare scalars from spec 9 (iOS 18) on.
            version: if spec_version >= 9 { "1.3" } else { "1.0" }.to_string(),
            attributes,
            functions,
        },
        description: lower_description(outline.description.as_ref()),
        spec_version,
    })))
}

// ---------------------------------------------------------------------------------------------
// Program structure
// ---------------------------------------------------------------------------------------------

/// Budgets (protobuf recursion levels left, see [`wire::RECURSION_LIMIT`]) of the fields of the
/// outline's undecoded parts, as prost counted them when it decoded the whole outline: a message
/// `d` levels below the `Model` has `RECURSION_LIMIT - d`.
mod budget {
    use super::wire::RECURSION_LIMIT;
    /// An entry of `Program.attributes` (Model → Program → entry).
    pub(super) const PROGRAM_ATTRIBUTE: u32 = RECURSION_LIMIT - 2;
    /// A `Function.inputs` item or `Function.attributes` entry (… → functions entry → Function →).
    pub(super) const FUNCTION_PART: u32 = RECURSION_LIMIT - 4;
    /// A `Block.inputs` item or `Block.attributes` entry (… → Function → blocks entry → Block →).
    pub(super) const BLOCK_PART: u32 = RECURSION_LIMIT - 6;
}

/// Decodes a `Model` outline and checks its undecoded MIL parts (parameters, attributes; not the
/// operations) as prost did when it decoded them with the outline.
fn decode_outline(bytes: Bytes, path: &Path) -> Result<proto::ModelOutline, ReadError> {
    let outline = proto::decode_outline(bytes, path)?;
    if let Some(program) = &outline.ml_program {
        check_outline(program).map_err(|e| ReadError::Protobuf {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    }
    Ok(outline)
}

fn check_outline(program: &proto::ProgramOutline) -> Result<(), wire::WireError> {
    use wire::Message;
    let all = |parts: &[Bytes], message: Message, budget: u32| {
        parts
            .iter()
            .try_for_each(|p| wire::validate(p, message, budget))
    };
    all(
        &program.attributes,
        Message::ValueEntry,
        budget::PROGRAM_ATTRIBUTE,
    )?;
    for f in program.functions.values() {
        all(&f.inputs, Message::NamedValueType, budget::FUNCTION_PART)?;
        for b in f.block_specializations.values() {
            all(&b.inputs, Message::NamedValueType, budget::BLOCK_PART)?;
            all(&b.attributes, Message::ValueEntry, budget::BLOCK_PART)?;
        }
        all(&f.attributes, Message::ValueEntry, budget::FUNCTION_PART)?;
    }
    Ok(())
}

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
    wire::check_attributes(block.attributes.iter().map(|b| &b[..]), budget::BLOCK_PART)?;
    let attributes = wire::attributes(f.attributes.iter().map(|b| &b[..]), budget::FUNCTION_PART)
        .map_err(|fault| fault.at("function attributes"))?;
    let mut graph = FunctionBuilder::new(
        name.to_string(),
        f.opset,
        attributes,
        Span::default(),
        (f.inputs.len() + block.inputs.len(), block.operations.len()),
    );
    let built = |e: BuildError| Fault::invalid(e.to_string());
    let inputs = f
        .inputs
        .iter()
        .map(|i| (i, budget::FUNCTION_PART))
        .chain(block.inputs.iter().map(|i| (i, budget::BLOCK_PART)));
    for (input, budget) in inputs {
        graph.input(wire::input(input, budget)?).map_err(built)?;
    }
    for (i, raw) in block.operations.iter().enumerate() {
        let op = wire::operation(raw).map_err(|fault| match fault {
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
    outputs
        .iter()
        .map(|o| wire::string(o).map(wire::ir_name))
        .collect()
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
    use crate::ir::literal::f16_to_f64;
    use crate::ir::{Arg, Op, Payload, TensorData};
    use prost::Message;
    use proto::fixtures::*;
    use proto::{argument::binding, immediate_value, value};
    use proto::{tensor_value as tv, DataType as D};
    use std::collections::BTreeMap;
    use wire::decode_bytes;

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

    /// A model whose function `main` has inputs `a` and `b` and the operations `ops`, each given
    /// as its encoded bytes: they can hold what an owned map or `String` cannot.
    fn model_with_ops(ops: &[Vec<u8>], outputs: &[&str]) -> Bytes {
        let input = |n: &str| -> Bytes {
            named(n, tensor_type(D::Float32, &[2]))
                .encode_to_vec()
                .into()
        };
        let block = proto::BlockOutline {
            inputs: vec![],
            outputs: outputs
                .iter()
                .map(|o| Bytes::copy_from_slice(o.as_bytes()))
                .collect(),
            operations: ops.iter().map(|o| o.clone().into()).collect(),
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

    #[test]
    fn map_entries_lower_in_key_order_and_the_last_of_equal_keys_wins() {
        let out = || vec![named("s", tensor_type(D::Float32, &[2]))];
        // Two encodings one after the other are one message, merged: in file order, inputs
        // x = a, y = a, x = b; attributes name = first, name = second; one output.
        let add = [
            op("add", "first", &[("x", "a"), ("y", "a")], out()).encode_to_vec(),
            op("add", "second", &[("x", "b")], vec![]).encode_to_vec(),
        ]
        .concat();
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

    /// `op`'s encoding with its one `r~` made `r` and a byte that is not UTF-8.
    fn with_bad_utf8(op: &proto::Operation) -> Vec<u8> {
        let mut bytes = op.encode_to_vec();
        let at = bytes.windows(2).position(|w| w == b"r~").expect("a marker");
        assert!(!bytes[at + 2..].windows(2).any(|w| w == b"r~"));
        bytes[at + 1] = 0xff;
        bytes
    }

    #[test]
    fn a_string_that_is_not_utf8_is_a_protobuf_error_naming_the_operation() {
        let t = || tensor_type(D::Float32, &[2]);
        let relu = op("relu", "r", &[("x", "a")], vec![named("r", t())]);
        let bad_type = op("r~", "s", &[("x", "a")], vec![named("s", t())]);
        let bad_output = op("relu", "s", &[("x", "a")], vec![named("r~", t())]);
        let bad_binding = op("relu", "s", &[("x", "r~")], vec![named("s", t())]);
        let bad_key = op("relu", "s", &[("r~", "a")], vec![named("s", t())]);
        for bad in [bad_type, bad_output, bad_binding, bad_key] {
            let ops = [relu.encode_to_vec(), with_bad_utf8(&bad)];
            match lower_bytes(model_with_ops(&ops, &["r"]), path()) {
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
