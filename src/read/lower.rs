//! Protobuf `Model` → IR [`Program`](crate::ir::Program) and [`ModelDesc`](crate::ir::ModelDesc).
//!
//! Every function of the `mlProgram` is lowered (in name order) to a [`FunctionSyntax`] and built
//! into a graph. Spans are left empty: the renderer assigns them when it prints the program.

use std::collections::BTreeMap;
use std::path::Path;

use super::proto::{self, argument::binding, dimension, immediate_value, tensor_value, value};
use super::{limits, ReadError};
use crate::ir::build::{build_function, BlockSyntax, FunctionSyntax, InputSyntax, OpSyntax};
use crate::ir::{
    Arg, BlobRef, DType, Dim, FeatureDesc, FeatureKind, Flexibility, FunctionDesc, Literal,
    ModelDesc, Output, Param, Payload, Program, Span, TensorData, TensorType, ValueType,
};

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

/// Lowers a decoded `Model`.
pub fn lower_model(model: &proto::Model, path: &Path) -> Result<Lowered, ReadError> {
    let program = match &model.r#type {
        Some(proto::model::Type::MlProgram(p)) => p,
        Some(other) => return Ok(Lowered::NotMlProgram(other.describe().to_string())),
        None => {
            return Err(ReadError::Protobuf {
                path: path.to_path_buf(),
                message: "the Model message names no model kind (empty, or not a Core ML model)"
                    .into(),
            })
        }
    };
    let err = |message: String| ReadError::Program {
        path: path.to_path_buf(),
        message,
    };
    let spec_version = i64::from(model.specification_version);
    let mut functions = Vec::with_capacity(program.functions.len());
    for (name, f) in &program.functions {
        let syntax = lower_function(name, f).map_err(|m| err(format!("function `{name}`: {m}")))?;
        let built = build_function(syntax).map_err(|e| err(format!("function `{name}`: {e}")))?;
        functions.push(built);
    }
    let attributes = lower_attributes(&program.attributes, 0)
        .map_err(|m| err(format!("program attributes: {m}")))?;
    Ok(Lowered::Program(Box::new(LoweredProgram {
        program: Program {
            // The text dialect the renderer prints: bare scalars from spec 9 (iOS 18) on.
            version: if spec_version >= 9 { "1.3" } else { "1.0" }.to_string(),
            attributes: attributes.into_iter().collect(),
            functions,
        },
        description: lower_description(model.description.as_ref()),
        spec_version,
    })))
}

// ---------------------------------------------------------------------------------------------
// Program structure
// ---------------------------------------------------------------------------------------------

fn lower_function(name: &str, f: &proto::Function) -> Result<FunctionSyntax, String> {
    let specs = &f.block_specializations;
    let block = match specs.get(&f.opset) {
        Some(b) => b,
        None => match specs.values().collect::<Vec<_>>().as_slice() {
            [only] => *only,
            [] => return Err(format!("has no block (opset `{}`)", f.opset)),
            _ => {
                return Err(format!(
                    "has no block for its opset `{}` (blocks: {})",
                    f.opset,
                    specs.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
            }
        },
    };
    let mut inputs = f
        .inputs
        .iter()
        .map(|i| lower_input(i, 0))
        .collect::<Result<Vec<_>, _>>()?;
    let mut body = lower_block(block, 0)?;
    inputs.append(&mut body.inputs);
    body.inputs = inputs;
    let attributes =
        lower_attributes(&f.attributes, 0).map_err(|m| format!("function attributes: {m}"))?;
    Ok(FunctionSyntax {
        name: name.to_string(),
        opset: f.opset.clone(),
        attributes: attributes.into_iter().collect(),
        body,
        span: Span::default(),
    })
}

fn lower_block(b: &proto::Block, depth: usize) -> Result<BlockSyntax, String> {
    if depth > limits::MAX_NESTING {
        return Err(format!(
            "blocks are nested deeper than {} levels",
            limits::MAX_NESTING
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
        .map(|op| {
            lower_op(op, depth).map_err(|m| format!("op `{}` ({}): {m}", op_label(op), op.r#type))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(BlockSyntax {
        inputs,
        ops,
        outputs: b.outputs.clone(),
        outputs_span: Span::default(),
    })
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
    let mut attributes = BTreeMap::new();
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
                        Some(binding::Binding::Value(v)) => lower_value(v, depth).map(Arg::Value),
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

/// IEEE binary16 → f64 (exact).
fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        0x1f if frac == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
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
