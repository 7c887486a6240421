//! Protobuf `Model` → IR [`Program`](crate::ir::Program) and [`ModelDesc`](crate::ir::ModelDesc).
//!
//! Every function of the `mlProgram` is lowered (in name order) to a [`FunctionSyntax`] and built
//! into a graph. Spans are left empty: the renderer assigns them when it prints the program.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::indexing_slicing))]

use std::collections::BTreeMap;
use std::path::Path;

use prost::bytes::Bytes;
use prost::Message;
use rayon::prelude::*;

use super::proto::{self, argument::binding, dimension, immediate_value, tensor_value, value};
use super::ReadError;
use crate::ir::build::{build_function, BlockSyntax, FunctionSyntax, InputSyntax, OpSyntax};
use crate::ir::literal::f16_to_f64;
use crate::ir::Function;
use crate::ir::{
    Arg, Attributes, BlobRef, DType, Dim, FeatureDesc, FeatureKind, Flexibility, FunctionDesc,
    Literal, ModelDesc, Output, Param, Payload, Program, Span, TensorData, TensorType, ValueType,
};
use crate::limits;

/// A lowered ML program.
#[derive(Debug)]
pub struct LoweredProgram {
    pub program: Program,
    pub description: ModelDesc,
    pub spec_version: i64,
}

/// The result of lowering a `Model`.
#[derive(Debug)]
pub enum Lowered {
    Program(Box<LoweredProgram>),
    /// Not an ML program; the string names what it is (e.g. "a neural network").
    NotMlProgram(String),
}

/// Decodes the `Model` protobuf in `bytes` (read from `path`) and lowers it. Functions are lowered
/// and built in parallel; each top-level operation is decoded, lowered and dropped in turn, so the
/// protobuf tree is never held whole.
pub fn lower_bytes(bytes: Bytes, path: &Path) -> Result<Lowered, ReadError> {
    let outline = proto::decode_outline(bytes.clone(), path)?;
    let Some(program) = outline.ml_program else {
        return match proto::decode_model(&bytes, path)?.r#type {
            Some(other) => Ok(Lowered::NotMlProgram(other.describe().to_string())),
            None => Err(ReadError::Protobuf {
                path: path.to_path_buf(),
                message: "the Model message names no model kind (empty, or not a Core ML model)"
                    .into(),
            }),
        };
    };
    let invalid = |message: String| ReadError::Program {
        path: path.to_path_buf(),
        message,
    };
    let spec_version = i64::from(outline.specification_version);
    let attributes = lower_attributes(&program.attributes, 0)
        .map_err(|m| invalid(format!("program attributes: {m}")))?;
    let built: Vec<Result<Function, ReadError>> = program
        .functions
        .into_iter()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(name, f)| {
            let syntax = lower_function(&name, f).map_err(|fault| match fault {
                Fault::Decode(m) => ReadError::Protobuf {
                    path: path.to_path_buf(),
                    message: format!("function `{name}`: {m}"),
                },
                Fault::Invalid(m) => invalid(format!("function `{name}`: {m}")),
            })?;
            build_function(syntax).map_err(|e| invalid(format!("function `{name}`: {e}")))
        })
        .collect();
    // The first error in name order, whatever the scheduling.
    let functions = built.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(Lowered::Program(Box::new(LoweredProgram {
        program: Program {
            // The text dialect the renderer prints: bare scalars from spec 9 (iOS 18) on.
            version: if spec_version >= 9 { "1.3" } else { "1.0" }.to_string(),
            attributes: attributes.into_iter().collect(),
            functions,
        },
        description: lower_description(outline.description.as_ref()),
        spec_version,
    })))
}

/// Why a function could not be lowered.
enum Fault {
    /// An operation's bytes are not a protobuf `Operation`.
    Decode(String),
    /// The program is well-formed protobuf but not a valid program.
    Invalid(String),
}

// ---------------------------------------------------------------------------------------------
// Program structure
// ---------------------------------------------------------------------------------------------

fn lower_function(name: &str, f: proto::FunctionOutline) -> Result<FunctionSyntax, Fault> {
    let mut specs = f.block_specializations;
    let block = match specs.remove(&f.opset) {
        Some(b) => b,
        None if specs.len() == 1 => specs
            .into_values()
            .next()
            .ok_or_else(|| Fault::Invalid(format!("has no block (opset `{}`)", f.opset)))?,
        None if specs.is_empty() => {
            return Err(Fault::Invalid(format!(
                "has no block (opset `{}`)",
                f.opset
            )))
        }
        None => {
            return Err(Fault::Invalid(format!(
                "has no block for its opset `{}` (blocks: {})",
                f.opset,
                specs.keys().cloned().collect::<Vec<_>>().join(", ")
            )))
        }
    };
    let inputs = f
        .inputs
        .iter()
        .chain(&block.inputs)
        .map(|i| lower_input(i, 0))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Fault::Invalid)?;
    let mut ops = Vec::with_capacity(block.operations.len());
    for (i, raw) in block.operations.into_iter().enumerate() {
        let op = proto::Operation::decode(raw)
            .map_err(|e| Fault::Decode(format!("operation {i}: {e}")))?;
        ops.push(lower_op_in_context(&op, 0).map_err(Fault::Invalid)?);
    }
    let attributes = lower_attributes(&f.attributes, 0)
        .map_err(|m| Fault::Invalid(format!("function attributes: {m}")))?;
    Ok(FunctionSyntax {
        name: name.to_string(),
        opset: f.opset,
        attributes: attributes.into_iter().collect(),
        body: BlockSyntax {
            inputs,
            ops,
            outputs: block.outputs,
            outputs_span: Span::default(),
        },
        span: Span::default(),
    })
}

fn lower_block(b: &proto::Block, depth: usize) -> Result<BlockSyntax, String> {
    if depth > limits::MAX_BLOCK_NESTING {
        return Err(format!(
            "blocks are nested deeper than {} levels",
            limits::MAX_BLOCK_NESTING
        ));
    }
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
        outputs: b.outputs.clone(),
        outputs_span: Span::default(),
    })
}

/// [`lower_op`], with the op named in its error.
fn lower_op_in_context(op: &proto::Operation, depth: usize) -> Result<OpSyntax, String> {
    lower_op(op, depth).map_err(|m| format!("op `{}` ({}): {m}", op_label(op), op.r#type))
}

/// The op's `name` attribute, else its first output, else its type (for messages only).
fn op_label(op: &proto::Operation) -> String {
    op.attributes
        .get("name")
        .and_then(|v| lower_value(v, 0).ok())
        .and_then(|l| l.as_str().map(str::to_string))
        .or_else(|| op.outputs.first().map(|o| o.name.clone()))
        .unwrap_or_else(|| op.r#type.clone())
}

fn lower_op(op: &proto::Operation, depth: usize) -> Result<OpSyntax, String> {
    let mut name = None;
    let mut attributes = Attributes::new();
    for (key, v) in &op.attributes {
        let lit = lower_value(v, depth).map_err(|m| format!("attribute `{key}`: {m}"))?;
        if key == "name" {
            if let Some(s) = lit.as_str() {
                name = Some(s.to_string());
                continue;
            }
        }
        attributes.insert(key.clone(), lit);
    }
    // BTreeMap iteration = parameters sorted by name, as the compiler prints them.
    let inputs = op
        .inputs
        .iter()
        .map(|(key, arg)| {
            let args = arg
                .arguments
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    match &b.binding {
                        Some(binding::Binding::Name(n)) => Ok(Arg::Name(n.clone())),
                        Some(binding::Binding::Value(v)) => {
                            lower_value(v, depth).map(|l| Arg::Value(Box::new(l)))
                        }
                        None => Err("binding is empty".to_string()),
                    }
                    .map_err(|m| format!("input `{key}` binding {i}: {m}"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Param {
                name: key.clone(),
                args,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let outputs = op
        .outputs
        .iter()
        .map(|o| {
            let ty = o
                .r#type
                .as_ref()
                .ok_or_else(|| format!("output `{}` has no type", o.name))
                .and_then(|t| lower_value_type(t, depth))
                .map_err(|m| format!("output `{}`: {m}", o.name))?;
            Ok(Output {
                name: o.name.clone(),
                ty,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let blocks = op
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| lower_block(b, depth + 1).map_err(|m| format!("block {i}: {m}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(OpSyntax {
        op_type: op.r#type.clone(),
        name,
        inputs,
        outputs,
        attributes,
        blocks,
        span: Span::default(),
    })
}

fn lower_input(i: &proto::NamedValueType, depth: usize) -> Result<InputSyntax, String> {
    let ty = i
        .r#type
        .as_ref()
        .ok_or_else(|| "has no type".to_string())
        .and_then(|t| lower_value_type(t, depth))
        .map_err(|m| format!("input `{}`: {m}", i.name))?;
    Ok(InputSyntax {
        name: i.name.clone(),
        ty,
        span: Span::default(),
    })
}

fn lower_attributes(
    attrs: &BTreeMap<String, proto::Value>,
    depth: usize,
) -> Result<BTreeMap<String, Literal>, String> {
    attrs
        .iter()
        .map(|(k, v)| {
            lower_value(v, depth)
                .map(|l| (k.clone(), l))
                .map_err(|m| format!("`{k}`: {m}"))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

fn check_depth(depth: usize) -> Result<(), String> {
    if depth > limits::MAX_NESTING {
        Err(format!(
            "types or values are nested deeper than {} levels",
            limits::MAX_NESTING
        ))
    } else {
        Ok(())
    }
}

fn lower_value_type(vt: &proto::ValueType, depth: usize) -> Result<ValueType, String> {
    use proto::value_type::Type;
    check_depth(depth)?;
    let boxed = |t: Option<&proto::ValueType>, what: &str| -> Result<Box<ValueType>, String> {
        let t = t.ok_or_else(|| format!("{what} is missing"))?;
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
        None => Err("a value type is empty".into()),
    }
}

/// One dimension; `Ok(None)` for a variadic unknown (an unknown number of dimensions).
fn lower_dim(d: &proto::Dimension) -> Result<Option<Dim>, String> {
    match &d.dimension {
        Some(dimension::Dimension::Constant(c)) => {
            if c.size > limits::MAX_DIM {
                Err(format!(
                    "dimension {} is larger than the 2^40 limit",
                    c.size
                ))
            } else {
                Ok(Some(Dim::Known(c.size)))
            }
        }
        Some(dimension::Dimension::Unknown(u)) if u.variadic => Ok(None),
        Some(dimension::Dimension::Unknown(_)) | None => Ok(Some(Dim::Unknown)),
    }
}

fn lower_tensor_type(t: &proto::TensorType) -> Result<TensorType, String> {
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
        return Err(format!(
            "tensor type declares rank {} but lists {} dimensions",
            t.rank,
            dims.len()
        ));
    }
    Ok(TensorType {
        dtype,
        shape: Some(dims),
    })
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

fn lower_value(v: &proto::Value, depth: usize) -> Result<Literal, String> {
    let ty = v
        .r#type
        .as_ref()
        .ok_or_else(|| "a value has no type".to_string())
        .and_then(|t| lower_value_type(t, depth))?;
    let payload = lower_payload(v, &ty, depth)?;
    Ok(Literal { ty, payload })
}

/// The payload of `v`, whose type is `ty` (its own type when it has one).
fn lower_payload(v: &proto::Value, ty: &ValueType, depth: usize) -> Result<Payload, String> {
    check_depth(depth)?;
    let imm = match &v.value {
        Some(value::Value::BlobFileValue(b)) => {
            return Ok(Payload::Blob(BlobRef {
                path: b.file_name.clone(),
                offset: b.offset,
            }))
        }
        Some(value::Value::ImmediateValue(imm)) => imm,
        None => return Err("a value has neither an immediate value nor a blob reference".into()),
    };
    // Elements of containers carry their own type; fall back to the container's declaration.
    let element = |e: &proto::Value, declared: Option<&ValueType>| -> Result<Payload, String> {
        let own = e
            .r#type
            .as_ref()
            .map(|t| lower_value_type(t, depth + 1))
            .transpose()?;
        let ty = own
            .as_ref()
            .or(declared)
            .ok_or_else(|| "a container element has no type".to_string())?;
        lower_payload(e, ty, depth + 1)
    };
    match &imm.value {
        Some(immediate_value::Value::Tensor(t)) => {
            let dtype = ty.tensor().map_or(DType::Unknown(0), |t| t.dtype);
            Ok(Payload::Tensor(tensor_data(
                t,
                dtype,
                limits::MAX_IMMEDIATE_ELEMENTS,
            )))
        }
        Some(immediate_value::Value::Tuple(t)) => {
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
        Some(immediate_value::Value::List(l)) => {
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
        Some(immediate_value::Value::Dictionary(d)) => {
            let (kt, vt) = match ty {
                ValueType::Dict { key, value } => (Some(key.as_ref()), Some(value.as_ref())),
                _ => (None, None),
            };
            d.values
                .iter()
                .map(|kv| {
                    let k = kv.key.as_ref().ok_or("a dictionary entry has no key")?;
                    let v = kv.value.as_ref().ok_or("a dictionary entry has no value")?;
                    Ok((element(k, kt)?, element(v, vt)?))
                })
                .collect::<Result<Vec<_>, String>>()
                .map(Payload::Dict)
        }
        None => Err("an immediate value is empty".into()),
    }
}

/// Decodes the elements of a `TensorValue` of element type `dtype`. Raw `bytes` are decoded for
/// byte-aligned numeric types when there are at most `max_elements` of them, else kept raw.
fn tensor_data(t: &proto::TensorValue, dtype: DType, max_elements: u64) -> TensorData {
    use tensor_value::Value as V;
    match &t.value {
        Some(V::Floats(f)) => TensorData::Floats(f.values.iter().map(|&x| f64::from(x)).collect()),
        Some(V::Doubles(d)) => TensorData::Floats(d.values.clone()),
        Some(V::Ints(i)) => TensorData::Ints(i.values.iter().map(|&x| i64::from(x)).collect()),
        Some(V::LongInts(l)) => TensorData::Ints(l.values.clone()),
        Some(V::Bools(b)) => TensorData::Bools(b.values.clone()),
        Some(V::Strings(s)) => TensorData::Strings(s.values.clone()),
        Some(V::Bytes(b)) => decode_bytes(&b.values, dtype, max_elements),
        None => empty_data(dtype),
    }
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

fn lower_description(d: Option<&proto::ModelDescription>) -> ModelDesc {
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
    use crate::ir::Op;
    use proto::fixtures::*;
    use proto::{tensor_value as tv, DataType as D};

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
            matches!(lower_model(&pipe, path()), Ok(Lowered::NotMlProgram(w)) if w == "a pipeline")
        );
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
        let t = |rank: i64, dims: Vec<proto::Dimension>| proto::TensorType {
            data_type: D::Float32 as i32,
            rank,
            dimensions: dims,
            attributes: BTreeMap::new(),
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
        assert!(lower_tensor_type(&t(3, vec![unknown(false)]))
            .unwrap_err()
            .contains("rank 3"));
        // An unknown dtype number is kept.
        let odd = proto::TensorType {
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
                                attributes: BTreeMap::new(),
                            },
                        )]),
                        attributes: BTreeMap::new(),
                    },
                )]),
                attributes: BTreeMap::new(),
            }),
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
}
