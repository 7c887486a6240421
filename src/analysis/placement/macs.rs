//! How much work one op does, in multiply-accumulates (MACs), from the shapes of its values: the
//! weight the placement estimate gives each op. The op table says which formula an op type takes
//! (`macs:` in `rules/placement/op-table.yaml`); docs/rule-language.md ("Likely placement") states
//! each formula. `None` when the op type is in no family, or a shape the formula needs is not fixed.

use crate::analysis::consteval::{product, ConstValue};
use crate::ir::{Arg, Function, Op};

use super::table::{MacFamilies, MacFamily};

/// The MACs of `op` in `f`; `None` when unknown.
pub fn estimate(families: &MacFamilies, f: &Function, op: &Op) -> Option<u64> {
    let family = families.of(&op.op_type)?;
    let out = || output_dims(op);
    let arg = |name: &str| op.arg_name(name).and_then(|n| dims_of(f, n));
    match family {
        MacFamily::DataMovement => Some(0),
        MacFamily::Elementwise => product(&out()?),
        MacFamily::Reduction => product(&arg("x")?),
        MacFamily::Conv => {
            let w = arg("weight")?;
            mul(product(&out()?)?, product(w.get(1..)?)?)
        }
        MacFamily::ConvTranspose => {
            let w = arg("weight")?;
            mul(product(&arg("x")?)?, product(w.get(1..)?)?)
        }
        MacFamily::Linear => {
            let x = arg("x")?;
            mul(product(&out()?)?, *x.last()?)
        }
        MacFamily::Matmul => {
            let x = arg("x")?;
            let transposed = const_param(f, op, "transpose_x")
                .and_then(|v| v.data.bools())
                .is_some_and(|b| b.first() == Some(&true));
            let k = match (x.len(), transposed) {
                (0, _) => return None,
                (1, _) | (_, false) => *x.last()?,
                (n, true) => *x.get(n - 2)?,
            };
            mul(product(&out()?)?, k)
        }
        MacFamily::Attention => {
            let (q, k, v) = (arg("query")?, arg("key")?, arg("value")?);
            let (l, e) = last_two(&q)?;
            let (s, _) = last_two(&k)?;
            let ev = *v.last()?;
            let batch = product(q.get(..q.len() - 2)?)?;
            // Q·Kᵀ and the weights · V: two matmuls.
            mul(mul(mul(batch, l)?, s)?, e.checked_add(ev)?)
        }
        MacFamily::Pooling => {
            let kernel = const_param(f, op, "kernel_sizes")?.ints()?;
            let window: Option<u64> = kernel
                .iter()
                .try_fold(1u64, |a, &k| a.checked_mul(u64::try_from(k).ok()?));
            mul(product(&out()?)?, window?)
        }
        MacFamily::Einsum => einsum(f, op),
        MacFamily::Recurrent => {
            // x [T, B, I]; each step multiplies the input by W_ih and the state by W_hh.
            let x = arg("x")?;
            let steps = mul(*x.first()?, *x.get(1)?)?;
            let per_step =
                product(&arg("weight_ih")?)?.checked_add(product(&arg("weight_hh")?)?)?;
            let directions = if op.param("weight_ih_back").is_some() {
                2
            } else {
                1
            };
            mul(mul(steps, per_step)?, directions)
        }
    }
}

fn mul(a: u64, b: u64) -> Option<u64> {
    a.checked_mul(b)
}

fn last_two(dims: &[u64]) -> Option<(u64, u64)> {
    match dims {
        [.., a, b] => Some((*a, *b)),
        _ => None,
    }
}

fn output_dims(op: &Op) -> Option<Vec<u64>> {
    op.outputs.first()?.ty.tensor()?.known_dims()
}

fn dims_of(f: &Function, value: &str) -> Option<Vec<u64>> {
    f.value_type(value)?.tensor()?.known_dims()
}

/// The constant bound to `param`: an inline literal or a `const` op's value.
fn const_param(f: &Function, op: &Op, param: &str) -> Option<ConstValue> {
    match op.arg(param)? {
        Arg::Value(lit) => ConstValue::from_literal(lit),
        Arg::Name(n) => {
            let def = f.op(f.def(n)?.node)?;
            (def.op_type == "const")
                .then(|| def.attributes.get("val"))
                .flatten()
                .and_then(ConstValue::from_literal)
        }
    }
}

/// An `einsum` multiplies once for every combination of its indices: the product of the sizes of
/// every distinct letter of the equation's operands.
fn einsum(f: &Function, op: &Op) -> Option<u64> {
    let equation = const_param(f, op, "equation")?;
    let (operands, _) = equation.as_str()?.split_once("->")?;
    let values = op.param("values")?;
    let terms: Vec<&str> = operands.split(',').map(str::trim).collect();
    if terms.len() != values.args.len() {
        return None;
    }
    let mut sizes: Vec<(char, u64)> = Vec::new();
    for (term, value) in terms.iter().zip(&values.args) {
        let Arg::Name(name) = value else {
            return None;
        };
        let dims = dims_of(f, name)?;
        if term.chars().count() != dims.len() || !term.chars().all(char::is_alphabetic) {
            return None;
        }
        for (c, d) in term.chars().zip(dims) {
            match sizes.iter().find(|(x, _)| *x == c) {
                Some(&(_, known)) if known != d && known != 1 && d != 1 => return None,
                Some(_) => {
                    if let Some(entry) = sizes.iter_mut().find(|(x, _)| *x == c) {
                        entry.1 = entry.1.max(d);
                    }
                }
                None => sizes.push((c, d)),
            }
        }
    }
    sizes.iter().try_fold(1u64, |a, &(_, d)| a.checked_mul(d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::placement::table::OpTable;
    use crate::rules::testing::snippet_model;

    fn macs_of(mil_body: &str, inputs: &str, outputs: &str) -> Vec<(String, Option<u64>)> {
        let mil = format!(
            "program(1.3)\n{{\n    func main<ios18>({inputs}) {{\n{mil_body}        }} -> ({outputs});\n}}\n"
        );
        let m = snippet_model("m", &mil).unwrap();
        let f = &m.program.functions[0];
        f.ops()
            .filter(|(_, o)| o.op_type != "const")
            .map(|(_, o)| {
                (
                    o.display_name().to_string(),
                    estimate(&OpTable::builtin().macs, f, o),
                )
            })
            .collect()
    }

    #[test]
    fn conv_counts_output_elements_times_the_filter_window() {
        let body = "            tensor<fp16, [8, 2, 3, 3]> w = const()[name = string(\"w\"), val = tensor<fp16, [8, 2, 3, 3]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            string pt = const()[name = string(\"pt\"), val = string(\"same\")];\n            tensor<int32, [2]> st = const()[name = string(\"st\"), val = tensor<int32, [2]>([1, 1])];\n            tensor<int32, [4]> pd = const()[name = string(\"pd\"), val = tensor<int32, [4]>([1, 1, 1, 1])];\n            int32 g = const()[name = string(\"g\"), val = int32(2)];\n            tensor<fp16, [1, 8, 16, 16]> y = conv(dilations = st, groups = g, pad = pd, pad_type = pt, strides = st, weight = w, x = x)[name = string(\"y\")];\n            tensor<fp16, [1, 8, 16, 16]> s = silu(x = y)[name = string(\"s\")];\n            tensor<int32, [2]> ks = const()[name = string(\"ks\"), val = tensor<int32, [2]>([2, 2])];\n            tensor<int32, [2]> s2 = const()[name = string(\"s2\"), val = tensor<int32, [2]>([2, 2])];\n            tensor<int32, [4]> p0 = const()[name = string(\"p0\"), val = tensor<int32, [4]>([0, 0, 0, 0])];\n            string vt = const()[name = string(\"vt\"), val = string(\"valid\")];\n            bool cm = const()[name = string(\"cm\"), val = bool(false)];\n            tensor<fp16, [1, 8, 8, 8]> p = max_pool(ceil_mode = cm, kernel_sizes = ks, pad = p0, pad_type = vt, strides = s2, x = s)[name = string(\"p\")];\n            tensor<int32, [2]> sh = const()[name = string(\"sh\"), val = tensor<int32, [2]>([8, 64])];\n            tensor<fp16, [8, 64]> r = reshape(shape = sh, x = p)[name = string(\"r\")];\n";
        let got = macs_of(body, "tensor<fp16, [1, 4, 16, 16]> x", "r");
        // conv: N·C_out·H_out·W_out · (C_in/groups)·kH·kW = 1·8·16·16 · 2·3·3.
        assert_eq!(
            got,
            [
                ("y".to_string(), Some(8 * 16 * 16 * 18)),
                ("s".to_string(), Some(8 * 16 * 16)),
                ("p".to_string(), Some(8 * 8 * 8 * 4)),
                ("r".to_string(), Some(0)),
            ]
        );
    }

    #[test]
    fn matmul_linear_attention_and_einsum() {
        let body = "            bool f = const()[name = string(\"f\"), val = bool(false)];\n            bool t = const()[name = string(\"t\"), val = bool(true)];\n            tensor<fp16, [2, 4, 6]> m = matmul(transpose_x = f, transpose_y = f, x = a, y = b)[name = string(\"m\")];\n            tensor<fp16, [2, 4, 6]> mt = matmul(transpose_x = t, transpose_y = f, x = at, y = b)[name = string(\"mt\")];\n            tensor<fp16, [6, 3]> w = const()[name = string(\"w\"), val = tensor<fp16, [6, 3]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [2, 4, 3]> l = linear(weight = w, x = m)[name = string(\"l\")];\n            tensor<fp16, [2, 4, 7]> s = scaled_dot_product_attention(key = k, query = q, value = v)[name = string(\"s\")];\n            string eq = const()[name = string(\"eq\"), val = string(\"bij,bjk->bik\")];\n            tensor<fp16, [2, 4, 6]> e = einsum(equation = eq, values = (a, b))[name = string(\"e\")];\n            tensor<fp16, [?, 4, 6]> d = matmul(transpose_x = f, transpose_y = f, x = dyn, y = b)[name = string(\"d\")];\n";
        let inputs = "tensor<fp16, [2, 4, 5]> a, tensor<fp16, [2, 5, 4]> at, tensor<fp16, [2, 5, 6]> b, tensor<fp16, [2, 4, 8]> q, tensor<fp16, [2, 9, 8]> k, tensor<fp16, [2, 9, 7]> v, tensor<fp16, [?, 4, 5]> dyn";
        let got = macs_of(body, inputs, "l, mt, s, e, d");
        assert_eq!(
            got,
            [
                ("m".to_string(), Some(2 * 4 * 6 * 5)),
                ("mt".to_string(), Some(2 * 4 * 6 * 5)),
                ("l".to_string(), Some(2 * 4 * 3 * 6)),
                // Q·Kᵀ: 2·4·9·8, weights·V: 2·4·9·7.
                ("s".to_string(), Some(2 * 4 * 9 * (8 + 7))),
                ("e".to_string(), Some(2 * 4 * 5 * 6)),
                // A dynamic dimension: unknown, not 0.
                ("d".to_string(), None),
            ]
        );
    }

    #[test]
    fn an_lstm_multiplies_its_gate_weights_once_per_step() {
        let body = "            tensor<fp16, [64, 8]> wi = const()[name = string(\"wi\"), val = tensor<fp16, [64, 8]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [64, 16]> wh = const()[name = string(\"wh\"), val = tensor<fp16, [64, 16]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(2048)))];\n            tensor<fp16, [5, 1, 16]> y, tensor<fp16, [1, 16]> h, tensor<fp16, [1, 16]> c = lstm(initial_c = c0, initial_h = h0, weight_hh = wh, weight_ih = wi, x = x)[name = string(\"l\")];\n            tensor<fp16, [5, 1, 16]> bi, tensor<fp16, [1, 32]> bh, tensor<fp16, [1, 32]> bc = lstm(initial_c = c0, initial_h = h0, weight_hh = wh, weight_hh_back = wh, weight_ih = wi, weight_ih_back = wi, x = x)[name = string(\"b\")];\n";
        let got = macs_of(
            body,
            "tensor<fp16, [5, 1, 8]> x, tensor<fp16, [1, 16]> h0, tensor<fp16, [1, 16]> c0",
            "y, bi",
        );
        // 5 steps · (64·8 + 64·16), twice for the bidirectional one.
        assert_eq!(
            got,
            [
                ("l".to_string(), Some(5 * (512 + 1024))),
                ("b".to_string(), Some(2 * 5 * (512 + 1024))),
            ]
        );
    }

    #[test]
    fn every_likely_ane_type_has_exactly_one_family() {
        let t = OpTable::builtin();
        let mut seen = std::collections::BTreeSet::new();
        for (op, _) in t.macs.all() {
            assert!(seen.insert(op), "{op} is in two families");
        }
        for op in &t.likely_ane {
            assert!(seen.contains(op.as_str()), "{op} has no cost formula");
        }
    }
}
