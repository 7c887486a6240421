//! Builders for small functions in unit tests (before text MIL is at hand).

use crate::ir::build::{build_function, BlockSyntax, FunctionSyntax, InputSyntax, OpSyntax};
use crate::ir::{
    Arg, DType, Function, Literal, Output, Param, Payload, Span, TensorData, TensorType, ValueType,
};

pub fn tensor(dtype: DType, dims: &[u64]) -> ValueType {
    ValueType::Tensor(TensorType::fixed(dtype, dims))
}

pub fn state(dtype: DType, dims: &[u64]) -> ValueType {
    ValueType::State(Box::new(tensor(dtype, dims)))
}

pub fn ints(shape: &[u64], values: &[i64]) -> Literal {
    Literal {
        ty: tensor(DType::Int32, shape),
        payload: Payload::Tensor(TensorData::Ints(values.to_vec())),
    }
}

pub fn bools(values: &[bool]) -> Literal {
    Literal {
        ty: tensor(DType::Bool, &[values.len() as u64]),
        payload: Payload::Tensor(TensorData::Bools(values.to_vec())),
    }
}

pub fn scalar_int(v: i64) -> Literal {
    ints(&[], &[v])
}

pub fn string(s: &str) -> Literal {
    Literal {
        ty: ValueType::Tensor(TensorType::scalar(DType::String)),
        payload: Payload::Tensor(TensorData::Strings(vec![s.to_string()])),
    }
}

pub fn input(name: &str, ty: ValueType) -> InputSyntax {
    InputSyntax {
        name: name.into(),
        ty,
        span: Span::default(),
    }
}

pub fn konst(out: &str, val: Literal) -> OpSyntax {
    let mut attributes = crate::ir::Attributes::new();
    let ty = val.ty.clone();
    attributes.insert("val".into(), val);
    OpSyntax {
        op_type: "const".into(),
        name: Some(out.into()),
        inputs: Vec::new(),
        outputs: vec![Output {
            name: out.into(),
            ty,
        }],
        attributes,
        blocks: Vec::new(),
        span: Span::default(),
    }
}

pub fn op_multi(op_type: &str, out: &str, params: &[(&str, &[&str])], ty: ValueType) -> OpSyntax {
    OpSyntax {
        op_type: op_type.into(),
        name: Some(out.into()),
        inputs: params
            .iter()
            .map(|(p, names)| Param {
                name: (*p).into(),
                args: names.iter().map(|n| Arg::Name((*n).into())).collect(),
            })
            .collect(),
        outputs: vec![Output {
            name: out.into(),
            ty,
        }],
        attributes: crate::ir::Attributes::new(),
        blocks: Vec::new(),
        span: Span::default(),
    }
}

pub fn op(op_type: &str, out: &str, params: &[(&str, &str)], ty: ValueType) -> OpSyntax {
    let multi: Vec<(&str, Vec<&str>)> = params.iter().map(|(p, n)| (*p, vec![*n])).collect();
    let refs: Vec<(&str, &[&str])> = multi.iter().map(|(p, v)| (*p, v.as_slice())).collect();
    op_multi(op_type, out, &refs, ty)
}

/// An op without outputs (`write_state`), named `name`.
pub fn op0(op_type: &str, name: &str, params: &[(&str, &str)]) -> OpSyntax {
    let mut o = op(op_type, name, params, tensor(DType::Fp16, &[]));
    o.outputs.clear();
    o
}

pub fn func(inputs: Vec<InputSyntax>, ops: Vec<OpSyntax>) -> Function {
    func_named("main", inputs, ops)
}

pub fn func_named(name: &str, inputs: Vec<InputSyntax>, ops: Vec<OpSyntax>) -> Function {
    build_function(FunctionSyntax {
        name: name.to_string(),
        opset: "ios18".into(),
        attributes: Vec::new(),
        body: BlockSyntax {
            inputs,
            ops,
            outputs: Vec::new(),
            outputs_span: Span::default(),
        },
        span: Span::default(),
    })
    .expect("test functions are well formed")
}

/// Writes `dir/weights/weight.bin` with one record at offset 64 holding `payload` as storage dtype
/// `code` (payload at 128).
pub fn weight_file(dir: &std::path::Path, code: u32, payload: &[u8]) {
    let mut f = vec![0u8; 64];
    f[0] = 1;
    f[4] = 2;
    let mut rec = Vec::new();
    rec.extend_from_slice(&crate::read::blob::SENTINEL.to_le_bytes());
    rec.extend_from_slice(&code.to_le_bytes());
    rec.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    rec.extend_from_slice(&128u64.to_le_bytes());
    rec.resize(64, 0);
    f.extend(rec);
    f.extend_from_slice(payload);
    std::fs::create_dir_all(dir.join("weights")).unwrap();
    std::fs::write(dir.join("weights/weight.bin"), f).unwrap();
}
