//! Builders for hand-made protobuf programs, shared by the read layer's tests (and the splice's).

use std::collections::BTreeMap;

use super::*;
fn dim(size: u64) -> Dimension {
    Dimension {
        dimension: Some(dimension::Dimension::Constant(
            dimension::ConstantDimension { size },
        )),
    }
}

/// `tensor<dtype, dims>`.
pub(crate) fn tensor_type(dtype: DataType, dims: &[u64]) -> ValueType {
    ValueType {
        r#type: Some(value_type::Type::TensorType(TensorType {
            data_type: dtype as i32,
            rank: dims.len() as i64,
            dimensions: dims.iter().map(|&d| dim(d)).collect(),
            attributes: BTreeMap::new(),
        })),
    }
}

/// `state<tensor<dtype, dims>>`.
pub(crate) fn state_type(dtype: DataType, dims: &[u64]) -> ValueType {
    ValueType {
        r#type: Some(value_type::Type::StateType(StateType {
            wrapped_type: Some(Box::new(tensor_type(dtype, dims))),
        })),
    }
}

/// An immediate tensor value of type `ty`.
pub(crate) fn tensor_value(ty: ValueType, v: tensor_value::Value) -> Value {
    Value {
        doc_string: String::new(),
        r#type: Some(ty),
        value: Some(value::Value::ImmediateValue(ImmediateValue {
            value: Some(immediate_value::Value::Tensor(TensorValue {
                value: Some(v),
            })),
        })),
    }
}

/// A string scalar.
pub(crate) fn string_value(s: &str) -> Value {
    tensor_value(
        tensor_type(DataType::String, &[]),
        tensor_value::Value::Strings(tensor_value::RepeatedStrings {
            values: vec![s.to_string()],
        }),
    )
}

/// An int32 tensor.
pub(crate) fn ints_value(v: &[i32]) -> Value {
    tensor_value(
        tensor_type(DataType::Int32, &[v.len() as u64]),
        tensor_value::Value::Ints(tensor_value::RepeatedInts { values: v.to_vec() }),
    )
}

/// A named, typed value.
pub(crate) fn named(name: &str, ty: ValueType) -> NamedValueType {
    NamedValueType {
        name: name.into(),
        r#type: Some(ty),
    }
}

/// An op with `name` attribute `name`, inputs bound by value name.
pub(crate) fn op(
    op_type: &str,
    name: &str,
    inputs: &[(&str, &str)],
    outputs: Vec<NamedValueType>,
) -> Operation {
    Operation {
        r#type: op_type.into(),
        inputs: inputs
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    Argument {
                        arguments: vec![argument::Binding {
                            binding: Some(argument::binding::Binding::Name(v.to_string())),
                        }],
                    },
                )
            })
            .collect(),
        outputs,
        blocks: vec![],
        attributes: BTreeMap::from([("name".to_string(), string_value(name))]),
    }
}

/// A `const` op holding `val`.
pub(crate) fn const_op(out: &str, val: Value) -> Operation {
    let ty = val.r#type.clone().unwrap_or_default();
    let mut o = op("const", out, &[], vec![named(out, ty)]);
    o.attributes.insert("val".into(), val);
    o
}

/// A function whose only block is keyed by its opset.
pub(crate) fn function(
    opset: &str,
    inputs: Vec<NamedValueType>,
    ops: Vec<Operation>,
    outputs: &[&str],
) -> Function {
    Function {
        inputs,
        opset: opset.into(),
        block_specializations: BTreeMap::from([(
            opset.to_string(),
            Block {
                inputs: vec![],
                outputs: outputs.iter().map(|s| s.to_string()).collect(),
                operations: ops,
                attributes: BTreeMap::new(),
            },
        )]),
        attributes: BTreeMap::new(),
    }
}

/// An ML program model.
pub(crate) fn ml_model(
    spec: i32,
    functions: Vec<(&str, Function)>,
    description: ModelDescription,
) -> Model {
    Model {
        specification_version: spec,
        description: Some(description),
        is_updatable: false,
        r#type: Some(model::Type::MlProgram(Program {
            version: 1,
            functions: functions
                .into_iter()
                .map(|(n, f)| (n.to_string(), f))
                .collect(),
            doc_string: String::new(),
            attributes: BTreeMap::new(),
        })),
    }
}

/// A one-function ML program model (a relu) with a description.
pub(crate) fn sample_model() -> Model {
    let op = Operation {
        r#type: "relu".into(),
        inputs: BTreeMap::from([(
            "x".to_string(),
            Argument {
                arguments: vec![argument::Binding {
                    binding: Some(argument::binding::Binding::Name("x".into())),
                }],
            },
        )]),
        outputs: vec![NamedValueType {
            name: "y".into(),
            r#type: Some(tensor_type(DataType::Float16, &[1, 4])),
        }],
        blocks: vec![],
        attributes: BTreeMap::from([("name".to_string(), string_value("relu_0"))]),
    };
    let func = Function {
        inputs: vec![NamedValueType {
            name: "x".into(),
            r#type: Some(tensor_type(DataType::Float16, &[1, 4])),
        }],
        opset: "CoreML8".into(),
        block_specializations: BTreeMap::from([(
            "CoreML8".to_string(),
            Block {
                inputs: vec![],
                outputs: vec!["y".into()],
                operations: vec![op],
                attributes: BTreeMap::new(),
            },
        )]),
        attributes: BTreeMap::new(),
    };
    Model {
        specification_version: 9,
        description: Some(ModelDescription {
            metadata: Some(Metadata {
                author: "me".into(),
                ..Metadata::default()
            }),
            ..ModelDescription::default()
        }),
        is_updatable: false,
        r#type: Some(model::Type::MlProgram(Program {
            version: 1,
            functions: BTreeMap::from([("main".to_string(), func)]),
            doc_string: String::new(),
            attributes: BTreeMap::new(),
        })),
    }
}
