//! Applies a [`PadPlan`] to a decoded `Model` protobuf (the `.mlpackage` / `.mlmodel` write-back):
//! the program's state inputs, op output types, bindings and inserted ops, and the state features of
//! the model description. Everything else is left to `encode_model_preserving`.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::ir::{Literal, Payload, TensorData, TensorType, ValueType};
use crate::read::proto::{
    self, argument, dimension, feature_type, immediate_value, state_feature_type, tensor_value,
    value, value_type,
};

use crate::analysis::fix_plan::{
    Anchor, FunctionEdit, LiteralSite, NewOp, OpRef, PadPlan, ValueChange,
};

/// Applies `plans` (of distinct states, all computed on the same program) to every function they
/// name, in one pass: ops are named by their position in the original program. Nothing is checked
/// against the description here; see [`pad_description`].
pub(crate) fn pad_program(program: &mut proto::Program, plans: &[&PadPlan]) -> Result<(), String> {
    let mut names: Vec<&str> = plans
        .iter()
        .flat_map(|p| p.functions.iter().map(|fe| fe.function.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let f = program
            .functions
            .get_mut(name)
            .ok_or_else(|| format!("function `{name}` is not in the program"))?;
        let edits: Vec<(&PadPlan, &FunctionEdit)> = plans
            .iter()
            .flat_map(|plan| {
                plan.functions
                    .iter()
                    .filter(|fe| fe.function == name)
                    .map(move |fe| (*plan, fe))
            })
            .collect();
        edit_function(f, name, &edits)?;
    }
    Ok(())
}

fn edit_function(
    f: &mut proto::Function,
    name: &str,
    edits: &[(&PadPlan, &FunctionEdit)],
) -> Result<(), String> {
    for &(plan, _) in edits.iter().filter(|(p, _)| p.pads()) {
        let rows = plan.padded_rows()?;
        let input = f
            .inputs
            .iter_mut()
            .find(|i| i.name == plan.state)
            .ok_or_else(|| format!("function `{name}` has no input `{}`", plan.state))?;
        let wrapped = match input.r#type.as_mut().and_then(|t| t.r#type.as_mut()) {
            Some(value_type::Type::StateType(s)) => s
                .wrapped_type
                .as_mut()
                .and_then(|w| w.r#type.as_mut())
                .and_then(|t| match t {
                    value_type::Type::TensorType(t) => Some(t),
                    _ => None,
                }),
            _ => None,
        }
        .ok_or_else(|| format!("input `{}` is not a state of a tensor", plan.state))?;
        set_rows(wrapped, plan.axis, &plan.old_shape, rows)?;
    }
    let opset = f.opset.clone();
    let only = f.block_specializations.len() == 1;
    let body = match f.block_specializations.get_mut(&opset) {
        Some(b) => b,
        None if only => f
            .block_specializations
            .values_mut()
            .next()
            .ok_or("internal: no block")?,
        None => return Err(format!("function `{name}` has no block for its opset")),
    };
    // Program order as the IR numbers it: depth-first through nested blocks.
    let mut index_of: HashMap<u32, usize> = HashMap::new();
    let mut order: u32 = 0;
    for (i, op) in body.operations.iter().enumerate() {
        index_of.insert(order, i);
        order = order
            .checked_add(1 + nested_count(&op.blocks))
            .ok_or("too many ops")?;
    }
    let resolve = |r: &OpRef, ops: &[proto::Operation]| -> Result<usize, String> {
        let i = *index_of.get(&r.order).ok_or_else(|| {
            format!(
                "op #{} (`{}`) is not in the function body",
                r.order, r.label
            )
        })?;
        let op = ops.get(i).ok_or("internal: index out of range")?;
        if op.r#type != r.op_type || label(op) != r.label {
            return Err(format!(
                "op #{} is `{}` ({}), the plan expected `{}` ({})",
                r.order,
                label(op),
                op.r#type,
                r.label,
                r.op_type
            ));
        }
        Ok(i)
    };
    let mut before: HashMap<usize, Vec<proto::Operation>> = HashMap::new();
    let mut after: HashMap<usize, Vec<proto::Operation>> = HashMap::new();
    let mut removed: HashSet<usize> = HashSet::new();
    for &(plan, fe) in edits {
        for rn in &fe.renames {
            let i = resolve(&rn.op, &body.operations)?;
            let out = body
                .operations
                .get_mut(i)
                .and_then(|o| o.outputs.first_mut())
                .filter(|o| o.name == rn.from)
                .ok_or_else(|| format!("`{}` has no output `{}`", rn.op.label, rn.from))?;
            out.name = rn.to.clone();
        }
        if plan.pads() {
            let rows = plan.padded_rows()?;
            for op in &mut body.operations {
                for out in &mut op.outputs {
                    if fe.retype.contains(&out.name) {
                        let t = match out.r#type.as_mut().and_then(|t| t.r#type.as_mut()) {
                            Some(value_type::Type::TensorType(t)) => t,
                            _ => return Err(format!("`{}` is not a tensor", out.name)),
                        };
                        set_rows(t, plan.axis, &plan.old_shape, rows)?;
                    }
                }
            }
        }
        for rb in &fe.rebinds {
            let i = resolve(&rb.op, &body.operations)?;
            let op = body.operations.get_mut(i).ok_or("internal: index")?;
            let binding = op
                .inputs
                .get_mut(&rb.param)
                .and_then(|a| a.arguments.get_mut(rb.position as usize))
                .ok_or_else(|| format!("`{}` has no `{}` binding", rb.op.label, rb.param))?;
            let matches = match (&binding.binding, &rb.from) {
                (Some(argument::binding::Binding::Name(n)), Some(from)) => n == from,
                (Some(argument::binding::Binding::Value(_)), None) => true,
                _ => false,
            };
            if !matches {
                return Err(format!(
                    "`{}.{}` is not bound as the plan expected",
                    rb.op.label, rb.param
                ));
            }
            binding.binding = Some(argument::binding::Binding::Name(rb.to.clone()));
        }
        for le in &fe.literals {
            let i = resolve(&le.op, &body.operations)?;
            let op = body.operations.get_mut(i).ok_or("internal: index")?;
            let value = match &le.site {
                LiteralSite::Attribute(a) => op.attributes.get_mut(a),
                LiteralSite::Argument { param, position } => op
                    .inputs
                    .get_mut(param)
                    .and_then(|a| a.arguments.get_mut(*position as usize))
                    .and_then(|b| match &mut b.binding {
                        Some(argument::binding::Binding::Value(v)) => Some(v),
                        _ => None,
                    }),
            }
            .ok_or_else(|| format!("`{}` has no literal {:?}", le.op.label, le.site))?;
            change_value(value, le.change)
                .map_err(|m| format!("`{}` {:?}: {m}", le.op.label, le.site))?;
        }
        for r in &fe.removes {
            removed.insert(resolve(r, &body.operations)?);
        }
        for ins in &fe.inserts {
            let (i, list) = match &ins.anchor {
                Anchor::After(r) => (resolve(r, &body.operations)?, &mut after),
                Anchor::Before(r) => (resolve(r, &body.operations)?, &mut before),
            };
            list.entry(i).or_default().push(operation(&ins.op)?);
        }
    }
    let old = std::mem::take(&mut body.operations);
    for (i, op) in old.into_iter().enumerate() {
        body.operations
            .extend(before.remove(&i).unwrap_or_default());
        if !removed.contains(&i) {
            body.operations.push(op);
        }
        body.operations.extend(after.remove(&i).unwrap_or_default());
    }
    Ok(())
}

/// Applies `change` to a protobuf `Value`: its tensor type's element type and, when it is
/// immediate, its elements (a file-backed value's record is a weight edit).
fn change_value(v: &mut proto::Value, change: ValueChange) -> Result<(), String> {
    let t = match v.r#type.as_mut().and_then(|t| t.r#type.as_mut()) {
        Some(value_type::Type::TensorType(t)) => t,
        _ => return Err("not a tensor".into()),
    };
    let dtype = crate::ir::DType::from_proto(t.data_type);
    let new = change
        .dtype(dtype)
        .ok_or_else(|| format!("{dtype} values cannot change that way"))?;
    t.data_type = new.to_proto();
    if let ValueChange::ToBlobFile { offset } = change {
        if !matches!(&v.value, Some(value::Value::ImmediateValue(_))) {
            return Err("not an immediate value".into());
        }
        v.value = Some(value::Value::BlobFileValue(proto::BlobFileValue {
            file_name: crate::analysis::fix_plan::WEIGHT_PATH.into(),
            offset,
        }));
        return Ok(());
    }
    let tensor = match &mut v.value {
        Some(value::Value::BlobFileValue(_)) => return Ok(()),
        Some(value::Value::ImmediateValue(proto::ImmediateValue {
            value: Some(immediate_value::Value::Tensor(t)),
        })) => t,
        _ => return Err("not a tensor value".into()),
    };
    match &mut tensor.value {
        Some(tensor_value::Value::Bytes(b)) => {
            change
                .bytes(dtype, &mut b.values)
                .ok_or("the bytes are not whole elements")?;
        }
        Some(tensor_value::Value::Ints(i)) => {
            for x in &mut i.values {
                *x = change.number(f64::from(*x)) as i32;
            }
        }
        Some(tensor_value::Value::Floats(f)) => {
            for x in &mut f.values {
                *x = change.number(f64::from(*x)) as f32;
            }
        }
        Some(tensor_value::Value::Doubles(d)) => {
            for x in &mut d.values {
                *x = change.number(*x);
            }
        }
        _ => return Err("elements of an unexpected kind".into()),
    }
    Ok(())
}

fn nested_count(blocks: &[proto::Block]) -> u32 {
    blocks
        .iter()
        .flat_map(|b| b.operations.iter())
        .map(|op| 1u32.saturating_add(nested_count(&op.blocks)))
        .fold(0u32, u32::saturating_add)
}

/// The op's `name` attribute, else its first output's name, else its type (as the IR labels ops).
fn label(op: &proto::Operation) -> String {
    let name = op.attributes.get("name").and_then(|v| match &v.value {
        Some(value::Value::ImmediateValue(proto::ImmediateValue {
            value:
                Some(immediate_value::Value::Tensor(proto::TensorValue {
                    value: Some(tensor_value::Value::Strings(s)),
                })),
        })) if s.values.len() == 1 => s.values.first().cloned(),
        _ => None,
    });
    name.or_else(|| op.outputs.first().map(|o| o.name.clone()))
        .unwrap_or_else(|| op.r#type.clone())
}

fn set_rows(t: &mut proto::TensorType, axis: usize, old: &[u64], rows: u64) -> Result<(), String> {
    let dims: Option<Vec<u64>> = t
        .dimensions
        .iter()
        .map(|d| match &d.dimension {
            Some(dimension::Dimension::Constant(c)) => Some(c.size),
            _ => None,
        })
        .collect();
    if dims.as_deref() != Some(old) {
        return Err(format!(
            "a tensor has dimensions {dims:?}, the plan expected {old:?}"
        ));
    }
    let d = t.dimensions.get_mut(axis).ok_or("axis out of range")?;
    d.dimension = Some(dimension::Dimension::Constant(
        dimension::ConstantDimension { size: rows },
    ));
    Ok(())
}

fn tensor_type(t: &TensorType) -> Result<proto::TensorType, String> {
    let dims = t.shape.as_ref().ok_or("inserted op with an unknown rank")?;
    Ok(proto::TensorType {
        data_type: t.dtype.to_proto(),
        rank: dims.len() as i64,
        dimensions: dims
            .iter()
            .map(|d| proto::Dimension {
                dimension: Some(match d.known() {
                    Some(size) => {
                        dimension::Dimension::Constant(dimension::ConstantDimension { size })
                    }
                    None => dimension::Dimension::Unknown(dimension::UnknownDimension {
                        variadic: false,
                    }),
                }),
            })
            .collect(),
        attributes: BTreeMap::new(),
    })
}

fn value_type_of(t: &TensorType) -> Result<proto::ValueType, String> {
    Ok(proto::ValueType {
        r#type: Some(value_type::Type::TensorType(tensor_type(t)?)),
    })
}

fn immediate(t: &TensorType, v: tensor_value::Value) -> Result<proto::Value, String> {
    Ok(proto::Value {
        doc_string: String::new(),
        r#type: Some(value_type_of(t)?),
        value: Some(value::Value::ImmediateValue(proto::ImmediateValue {
            value: Some(immediate_value::Value::Tensor(proto::TensorValue {
                value: Some(v),
            })),
        })),
    })
}

/// The `Value` of an inserted const (small int32 / bool vectors, fp16 / fp32 numbers).
fn const_value(lit: &Literal) -> Result<proto::Value, String> {
    let t = match &lit.ty {
        ValueType::Tensor(t) => t,
        _ => return Err("inserted const is not a tensor".into()),
    };
    let v = match &lit.payload {
        Payload::Tensor(TensorData::Ints(v)) => {
            tensor_value::Value::Ints(tensor_value::RepeatedInts {
                values: v
                    .iter()
                    .map(|&x| i32::try_from(x).map_err(|_| format!("{x} does not fit int32")))
                    .collect::<Result<_, _>>()?,
            })
        }
        Payload::Tensor(TensorData::Bools(v)) => {
            tensor_value::Value::Bools(tensor_value::RepeatedBools { values: v.clone() })
        }
        Payload::Tensor(TensorData::Strings(v)) => {
            tensor_value::Value::Strings(tensor_value::RepeatedStrings { values: v.clone() })
        }
        // coremltools writes fp16 immediates as little-endian bytes, fp32 as floats.
        Payload::Tensor(TensorData::Floats(v)) if t.dtype == crate::ir::DType::Fp16 => {
            tensor_value::Value::Bytes(tensor_value::RepeatedBytes {
                values: v
                    .iter()
                    .flat_map(|&x| half::f16::from_f64(x).to_bits().to_le_bytes())
                    .collect(),
            })
        }
        Payload::Tensor(TensorData::Floats(v)) if t.dtype == crate::ir::DType::Fp32 => {
            tensor_value::Value::Floats(tensor_value::RepeatedFloats {
                values: v.iter().map(|&x| x as f32).collect(),
            })
        }
        _ => return Err("inserted const of an unexpected kind".into()),
    };
    immediate(t, v)
}

/// The protobuf form of an inserted op, as coremltools writes it (name attribute, const `val`).
fn operation(new: &NewOp) -> Result<proto::Operation, String> {
    let mut attributes = BTreeMap::new();
    attributes.insert(
        "name".to_string(),
        immediate(
            &TensorType::scalar(crate::ir::DType::String),
            tensor_value::Value::Strings(tensor_value::RepeatedStrings {
                values: vec![new.op_name.clone().unwrap_or_else(|| new.name.clone())],
            }),
        )?,
    );
    if let Some(v) = &new.value {
        attributes.insert("val".to_string(), const_value(v)?);
    }
    Ok(proto::Operation {
        r#type: new.op_type.clone(),
        inputs: new
            .inputs
            .iter()
            .map(|(p, v)| {
                (
                    p.clone(),
                    proto::Argument {
                        arguments: vec![argument::Binding {
                            binding: Some(argument::binding::Binding::Name(v.clone())),
                        }],
                    },
                )
            })
            .collect(),
        outputs: vec![proto::NamedValueType {
            name: new.name.clone(),
            r#type: Some(value_type_of(&new.output)?),
        }],
        blocks: Vec::new(),
        attributes,
    })
}

/// Pads the state's feature in the description (model level and every function). Returns how many
/// features were changed.
pub(crate) fn pad_description(
    desc: &mut proto::ModelDescription,
    plan: &PadPlan,
) -> Result<usize, String> {
    if !plan.pads() {
        return Ok(0);
    }
    let old: Vec<i64> = plan
        .old_shape
        .iter()
        .map(|&d| i64::try_from(d).map_err(|_| "dimension too large".to_string()))
        .collect::<Result<_, _>>()?;
    let new: Vec<i64> = plan
        .new_shape
        .iter()
        .map(|&d| i64::try_from(d).map_err(|_| "dimension too large".to_string()))
        .collect::<Result<_, _>>()?;
    let mut changed = 0;
    let mut fix = |features: &mut Vec<proto::FeatureDescription>| -> Result<(), String> {
        for f in features.iter_mut().filter(|f| f.name == plan.state) {
            let arr = match f.r#type.as_mut().and_then(|t| t.r#type.as_mut()) {
                Some(feature_type::Type::StateType(proto::StateFeatureType {
                    r#type: Some(state_feature_type::Type::ArrayType(a)),
                })) => a,
                _ => {
                    return Err(format!(
                        "the description of `{}` is not a state array",
                        f.name
                    ))
                }
            };
            if arr.shape != old {
                return Err(format!(
                    "the description gives `{}` shape {:?}, the program {:?}",
                    f.name, arr.shape, old
                ));
            }
            arr.shape = new.clone();
            changed += 1;
        }
        Ok(())
    };
    fix(&mut desc.state)?;
    for fd in &mut desc.functions {
        fix(&mut fd.state)?;
    }
    Ok(changed)
}
