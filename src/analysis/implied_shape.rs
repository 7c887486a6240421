//! The output shape an op's shape rule implies from its input shapes and constant parameters, for
//! ops that also carry the shape in a parameter a writer may have set to something else
//! (`conv_transpose`'s `output_shape`). Computed on demand for one op; nothing is cached.

use super::ConstEnv;
use crate::ir::{Arg, Function, Op, TensorType};

/// The implied output shape of `op`, when the op type has a shape rule here and every input it
/// needs is known: `conv_transpose` gives `[N, C_out, spatial…]` with, per spatial axis,
/// `(in − 1) · stride + dilation · (kernel − 1) + 1 − pad_begin − pad_end` (`valid`: no pads;
/// `same` / `same_lower`: `in · stride`).
pub fn implied_output_shape(f: &Function, consts: &ConstEnv, op: &Op) -> Option<Vec<i64>> {
    match op.op_type.as_str() {
        "conv_transpose" => conv_transpose(f, consts, op),
        _ => None,
    }
}

/// True when `shape` (a whole shape, or only the spatial axes) differs from `implied`.
pub fn differs(implied: &[i64], shape: &[i64]) -> bool {
    let compared = if shape.len() + 2 == implied.len() {
        &implied[2..]
    } else {
        implied
    };
    compared != shape
}

fn conv_transpose(f: &Function, consts: &ConstEnv, op: &Op) -> Option<Vec<i64>> {
    let x = known_dims(param_type(f, op, "x")?)?;
    let weight = known_dims(param_type(f, op, "weight")?)?;
    let spatial = x.len().checked_sub(2).filter(|&n| n > 0)?;
    if weight.len() != x.len() {
        return None;
    }
    let per_axis = |name: &str, default: i64, len: usize| -> Option<Vec<i64>> {
        match op.param(name) {
            None => Some(vec![default; len]),
            Some(_) => consts.param(op, name)?.ints().filter(|v| v.len() == len),
        }
    };
    let strides = per_axis("strides", 1, spatial)?;
    let dilations = per_axis("dilations", 1, spatial)?;
    let groups = match op.param("groups") {
        None => 1,
        Some(_) => consts.param(op, "groups")?.as_int()?,
    };
    let pad_type = match op.param("pad_type") {
        None => "valid".to_string(),
        Some(_) => consts.param(op, "pad_type")?.as_str()?.to_string(),
    };
    let pads = match pad_type.as_str() {
        "custom" => per_axis("pad", 0, 2 * spatial)?,
        "valid" | "same" | "same_lower" => vec![0; 2 * spatial],
        _ => return None,
    };
    let mut out = vec![x[0], weight[1].checked_mul(groups)?];
    for i in 0..spatial {
        let dim = if pad_type.starts_with("same") {
            x[2 + i].checked_mul(strides[i])?
        } else {
            let span = dilations[i].checked_mul(weight[2 + i].checked_sub(1)?)?;
            (x[2 + i] - 1)
                .checked_mul(strides[i])?
                .checked_add(span)?
                .checked_add(1)?
                .checked_sub(pads[2 * i])?
                .checked_sub(pads[2 * i + 1])?
        };
        out.push(dim);
    }
    Some(out)
}

fn param_type<'a>(f: &'a Function, op: &'a Op, name: &str) -> Option<&'a TensorType> {
    match op.arg(name)? {
        Arg::Name(n) => f.value_type(n)?.tensor(),
        Arg::Value(lit) => lit.ty.tensor(),
    }
}

fn known_dims(t: &TensorType) -> Option<Vec<i64>> {
    t.known_dims()?
        .into_iter()
        .map(|d| i64::try_from(d).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::consteval;
    use crate::read::miltext::parse_program;

    fn implied(body: &str) -> Option<Vec<i64>> {
        let text = format!(
            "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 32, 8, 32]> x) {{\n{body}\n    }} -> (y);\n}}\n"
        );
        let program = parse_program(&text, std::path::Path::new("t.mil")).expect("parses");
        let f = &program.functions[0];
        let consts = consteval::evaluate(f);
        let (_, op) = f.ops().find(|(_, o)| o.op_type == "conv_transpose")?;
        implied_output_shape(f, &consts, op)
    }

    const WEIGHT: &str = "tensor<fp16, [32, 16, 4, 3]> w = const()[name = string(\"w\"), val = tensor<fp16, [32, 16, 4, 3]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];";

    #[test]
    fn custom_pads_strides_and_dilations_give_the_implied_shape() {
        let got = implied(&format!(
            "{WEIGHT}\n tensor<fp16, [1, 32, 1, 1]> y = conv_transpose(x = x, weight = w, strides = tensor<int32, [2]>([2, 3]), dilations = tensor<int32, [2]>([1, 2]), pad_type = string(\"custom\"), pad = tensor<int32, [4]>([1, 0, 0, 2]), groups = int32(2))[name = string(\"y\")];"
        ));
        // H: 7·2 + 1·3 + 1 − 1 − 0 = 17; W: 31·3 + 2·2 + 1 − 0 − 2 = 96; C: 16 · 2 groups.
        assert_eq!(got, Some(vec![1, 32, 17, 96]));
    }

    #[test]
    fn defaults_are_valid_padding_and_unit_strides() {
        let got = implied(&format!(
            "{WEIGHT}\n tensor<fp16, [1, 16, 1, 1]> y = conv_transpose(x = x, weight = w)[name = string(\"y\")];"
        ));
        assert_eq!(got, Some(vec![1, 16, 11, 34]));
    }

    #[test]
    fn same_padding_multiplies_by_the_stride() {
        let got = implied(&format!(
            "{WEIGHT}\n tensor<fp16, [1, 16, 1, 1]> y = conv_transpose(x = x, weight = w, strides = tensor<int32, [2]>([4, 2]), pad_type = string(\"same\"))[name = string(\"y\")];"
        ));
        assert_eq!(got, Some(vec![1, 16, 32, 64]));
    }

    #[test]
    fn a_stride_of_the_wrong_length_or_another_op_has_no_implied_shape() {
        assert_eq!(
            implied(&format!(
                "{WEIGHT}\n tensor<int32, [2]> s = shape(x = x)[name = string(\"s\")];\n tensor<fp16, [1, 16, 1, 1]> y = conv_transpose(x = x, weight = w, strides = s)[name = string(\"y\")];"
            )),
            None,
            "a stride of the wrong length is not guessed at"
        );
        assert_eq!(
            implied("tensor<fp16, [1, 32, 8, 32]> y = relu(x = x)[name = string(\"y\")];"),
            None
        );
    }

    #[test]
    fn a_spatial_only_shape_is_compared_with_the_spatial_axes() {
        assert!(!differs(&[1, 32, 16, 64], &[16, 64]));
        assert!(!differs(&[1, 32, 16, 64], &[1, 32, 16, 64]));
        assert!(differs(&[1, 32, 16, 64], &[1, 32, 18, 66]));
        assert!(differs(&[1, 32, 16, 64], &[18, 64]));
    }
}
