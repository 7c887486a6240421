use std::path::Path;

use super::parse_program;
use crate::ir::compare::same_program;
use crate::ir::render::render_to_string;
use crate::ir::{Arg, DType, Dim, Payload, TensorData, ValueType};
use crate::read::ReadError;

fn parse(text: &str) -> crate::ir::Program {
    match parse_program(text, Path::new("t/model.mil")) {
        Ok(p) => p,
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    }
}

fn parse_err(text: &str) -> (String, usize, usize) {
    match parse_program(text, Path::new("t/model.mil")) {
        Err(ReadError::MilSyntax(e)) => (e.message.clone(), e.line, e.column),
        Err(other) => panic!("unexpected error kind: {other}"),
        Ok(_) => panic!("parsed: {text}"),
    }
}

fn round_trip(text: &str) {
    let a = parse(text);
    let rendered = render_to_string(&a);
    let b = parse(&rendered);
    if let Err(e) = same_program(&a, &b) {
        panic!("round trip changed the graph: {e}\n{rendered}");
    }
}

const STATEFUL: &str = r#"program(1.3)
[buildInfo = dict<string, string>({{"coremltools-version", "9.0"}})]
{
    func main<ios18>(state<tensor<fp16, [1, 8, 4]>> s, tensor<fp16, [1, 1, 4]> u) {
            tensor<int32, [3]> b = const()[name = string("b"), val = tensor<int32, [3]>([0, 7, 0])];
            tensor<int32, [3]> e = const()[name = string("e"), val = tensor<int32, [3]>([1, 8, 4])];
            tensor<fp16, [1, 8, 4]> old = read_state(input = s)[name = string("old")];
            tensor<fp16, [1, 8, 4]> new = slice_update(begin = b, end = e, update = u, x = old)[name = string("upd")];
            write_state(data = new, input = s)[name = string("w")];
            tensor<fp16, [1, 8, 4]> again = read_state(input = s)[name = string("again")];
        } -> (again);
}"#;

#[test]
fn stateful_program_1_3() {
    let p = parse(STATEFUL);
    assert_eq!(p.version, "1.3");
    let f = &p.functions[0];
    assert_eq!(f.opset, "ios18");
    let (_, s) = f.inputs().next().unwrap();
    assert!(
        matches!(&s.ty, ValueType::State(inner) if inner.tensor().unwrap().known_dims() == Some(vec![1, 8, 4]))
    );
    let ops: Vec<_> = f.ops().map(|(_, o)| o.op_type.clone()).collect();
    assert_eq!(
        ops,
        [
            "const",
            "const",
            "read_state",
            "slice_update",
            "write_state",
            "read_state"
        ]
    );
    let (w_id, w) = f.ops().find(|(_, o)| o.op_type == "write_state").unwrap();
    assert!(w.outputs.is_empty());
    assert_eq!(w.name.as_deref(), Some("w"));
    let data = f.producer(w_id, "data").unwrap();
    assert_eq!(f.op(data).unwrap().name.as_deref(), Some("upd"));
    let (_, b) = f.ops().next().unwrap();
    assert_eq!(
        b.attributes["val"].tensor_data(),
        Some(&TensorData::Ints(vec![0, 7, 0]))
    );
    // Spans cover the statement text.
    assert!(
        STATEFUL[w.span.start..w.span.end()].starts_with("write_state(")
            && STATEFUL[w.span.start..w.span.end()].ends_with(';')
    );
    round_trip(STATEFUL);
}

#[test]
fn program_1_0_with_tensor_scalars_and_blobs() {
    let text = r#"program(1.0)
[buildInfo = dict<tensor<string, []>, tensor<string, []>>({{"coremlc-version", "3402.4.1"}})]
{
    func main<ios16>(tensor<fp16, [1, 10]> x) {
            tensor<int32, []> ax = const()[name = tensor<string, []>("ax"), val = tensor<int32, []>(0)];
            tensor<fp16, [10, 10]> w = const()[name = tensor<string, []>("w"), val = tensor<fp16, [10, 10]>(BLOBFILE(path = tensor<string, []>("@model_path/weights/weight.bin"), offset = tensor<uint64, []>(64)))];
            tensor<fp16, [2]> c = const()[name = tensor<string, []>("c"), val = tensor<fp16, [2]>([-0x1.388p+13, inf])];
            tensor<fp16, [1, 10]> y = matmul(transpose_x = tensor<bool, []>(false), transpose_y = tensor<bool, []>(true), x = x, y = w)[name = tensor<string, []>("mm")];
        } -> (y);
}"#;
    let p = parse(text);
    let f = &p.functions[0];
    let (_, w) = f.ops().nth(1).unwrap();
    let blob = w.attributes["val"].blob().unwrap();
    assert_eq!(
        (blob.path.as_str(), blob.offset),
        ("@model_path/weights/weight.bin", 64)
    );
    let (_, c) = f.ops().nth(2).unwrap();
    assert_eq!(
        c.attributes["val"].tensor_data(),
        Some(&TensorData::Floats(vec![-10000.0, f64::INFINITY]))
    );
    let (_, mm) = f.ops().nth(3).unwrap();
    assert!(
        matches!(mm.arg("transpose_y"), Some(Arg::Value(l)) if l.tensor_data() == Some(&TensorData::Bools(vec![true])))
    );
    round_trip(text);
}

#[test]
fn multi_results_tuples_constexpr_and_flexible_shapes() {
    let text = r#"program(1.0)
[buildInfo = dict<tensor<string, []>, tensor<string, []>>({{"a", "b"}})]
{
    func main<ios16>(tensor<fp16, [1, ?, ?]> x) [FlexibleShapeInformation = tuple<tuple<tensor<string, []>, dict<tensor<string, []>, tensor<int32, [?]>>>, tuple<tensor<string, []>, dict<tensor<string, []>, list<tensor<int32, [2]>, ?>>>>((("DefaultShapes", {{"x", [1, 1, 1]}}), ("RangeDims", {{"x", [[1, 1], [1, 2048], [1, 2048]]}})))] {
            tensor<int32, []> ax = const()[name = tensor<string, []>("ax"), val = tensor<int32, []>(1)];
            tensor<fp16, [1, ?, ?]> a, tensor<fp16, [1, ?, ?]> b = split(axis = ax, num_splits = ax, x = x)[name = tensor<string, []>("sp")];
            tensor<bool, []> il = const()[name = tensor<string, []>("il"), val = tensor<bool, []>(false)];
            tensor<fp16, [1, ?, ?]> c = concat(axis = ax, interleave = il, values = (a, b))[name = tensor<string, []>("cc")];
            tensor<fp16, [4, 4]> lut = constexpr_lut_to_dense()[indices = tensor<uint8, [8]>(BLOBFILE(path = tensor<string, []>("@model_path/weights/weight.bin"), offset = tensor<uint64, []>(64))), lut = tensor<fp16, [16]>(BLOBFILE(path = tensor<string, []>("@model_path/weights/weight.bin"), offset = tensor<uint64, []>(192))), name = tensor<string, []>("l"), shape = tensor<uint32, [2]>([4, 4])];
        } -> (c, lut);
}"#;
    let p = parse(text);
    let f = &p.functions[0];
    assert_eq!(f.attributes.len(), 1);
    let (_, sp) = f.ops().nth(1).unwrap();
    assert_eq!(sp.outputs.len(), 2);
    let (cc_id, cc) = f.ops().nth(3).unwrap();
    assert_eq!(cc.param("values").unwrap().args.len(), 2);
    assert_eq!(
        f.producers(cc_id)
            .iter()
            .filter(|(_, e)| e.param == "values")
            .count(),
        2
    );
    let (_, lut) = f.ops().nth(4).unwrap();
    assert!(lut.inputs.is_empty());
    assert!(lut.attributes["indices"].blob().is_some());
    assert_eq!(
        lut.attributes["shape"].tensor_data(),
        Some(&TensorData::Ints(vec![4, 4]))
    );
    let (_, x) = f.inputs().next().unwrap();
    assert_eq!(
        x.ty.tensor().unwrap().shape.as_ref().unwrap()[1],
        Dim::Unknown
    );
    round_trip(text);
}

#[test]
fn result_less_and_parenthesised_results_and_ios18_constexpr_inputs() {
    let text = r#"program(1.3)
{
    func main<CoreML8>(tensor<fp16, [4]> x) {
            tensor<fp16, [4]> w = constexpr_blockwise_shift_scale(data = tensor<int4, [4]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(128))), scale = tensor<fp16, [1]>([0x1p+0]))[name = string("w")];
            (tensor<fp16, [2]> a, tensor<fp16, [2]> b) = split(num_splits = int32(2), x = w);
            tensor<fp16, [2]> y = add(x = a, y = b);
        } -> (y);
}"#;
    let p = parse(text);
    let f = &p.functions[0];
    let (_, w) = f.ops().next().unwrap();
    assert!(
        matches!(w.arg("data"), Some(Arg::Value(l)) if l.blob().map(|b| b.offset) == Some(128))
    );
    let (_, add) = f.ops().nth(2).unwrap();
    assert_eq!(add.name, None);
    assert_eq!(add.display_name(), "y");
    round_trip(text);
}

#[test]
fn two_functions_and_nested_blocks() {
    let text = r#"program(1.3)
{
    func infer<ios18>(tensor<bool, []> p, tensor<fp16, [2]> x) {
            tensor<fp16, [2]> r = cond(pred = p) {
                    tensor<fp16, [2]> t = relu(x = x);
                } -> (t) {
                    tensor<fp16, [2]> u = sigmoid(x = x);
                } -> (u);
        } -> (r);
    func prefill<ios18>(tensor<fp16, [2]> x) {
            tensor<fp16, [2]> y = relu(x = x);
        } -> (y);
}"#;
    let p = parse(text);
    assert_eq!(p.functions.len(), 2);
    let f = &p.functions[0];
    assert_eq!(f.op_count(), 3);
    let (_, c) = f.ops().next().unwrap();
    assert_eq!(c.blocks.len(), 2);
    round_trip(text);
}

/// coremltools names the constants of each branch of a converted `cond` alike: sibling blocks may
/// reuse a name, each use resolves to its own block's value, and a block's values are not visible
/// after it.
#[test]
fn sibling_blocks_may_reuse_a_name() {
    let text = r#"program(1.3)
{
    func main<ios17>(tensor<bool, []> p, tensor<fp16, [2]> x) {
            tensor<fp16, [2]> r = cond(pred = p) {
                    tensor<fp16, [2]> c = const()[name = string("c"), val = tensor<fp16, [2]>([0x1p+0, 0x1p+0])];
                    tensor<fp16, [2]> t = add(x = x, y = c);
                } -> (t) {
                    tensor<fp16, [2]> c = const()[name = string("c"), val = tensor<fp16, [2]>([0x1p+1, 0x1p+1])];
                    tensor<fp16, [2]> u = mul(x = x, y = c);
                } -> (u);
        } -> (r);
}"#;
    let p = parse(text);
    let f = &p.functions[0];
    let consts: Vec<_> = f
        .ops()
        .filter(|(_, o)| o.op_type == "const")
        .map(|(id, _)| id)
        .collect();
    assert_eq!(consts.len(), 2);
    for (op, want) in [("add", consts[0]), ("mul", consts[1])] {
        let (id, _) = f.ops().find(|(_, o)| o.op_type == op).unwrap();
        let from_c: Vec<_> = f
            .producers(id)
            .into_iter()
            .filter(|(_, e)| e.param == "y")
            .map(|(n, _)| n)
            .collect();
        assert_eq!(from_c, vec![want], "`{op}` reads its own block's `c`");
    }
    round_trip(text);
    // Still an error: a name used after the block that defined it, and a name defined twice in
    // one scope chain.
    let (msg, ..) = parse_err(&text.replace("} -> (r);", "} -> (c);"));
    assert!(
        msg.contains("`c` is not defined") || msg.contains("block output `c`"),
        "{msg}"
    );
    let (msg, ..) = parse_err(&text.replace(
        "tensor<fp16, [2]> u = mul(x = x, y = c);",
        "tensor<fp16, [2]> x = mul(x = x, y = c);",
    ));
    assert!(msg.contains("`x` is defined twice"), "{msg}");
}

#[test]
fn syntax_errors_have_line_and_column() {
    let (msg, line, col) = parse_err("program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1]> x) {\n        tensor<fp16, [1]> y = relu(x = x)\n    } -> (y);\n}");
    assert!(msg.contains("expected `;`"), "{msg}");
    assert_eq!((line, col), (5, 5));
    let (msg, ..) = parse_err("program(1.3)\n{\n func main<ios18>(tensor<fp16, [1]> x) {\n tensor<fp16, [1]> y = relu(x = z);\n } -> (y);\n}");
    assert!(msg.contains("`z` is used by `y` but not defined"), "{msg}");
    let (msg, ..) = parse_err("program(1.3)\n{\n func main<ios18>(tensor<fp16, [1]> x) {\n tensor<fp16, [1]> x = relu(x = x);\n } -> (x);\n}");
    assert!(msg.contains("defined twice"), "{msg}");
    let (msg, ..) = parse_err("program(1.3)\n{\n func main<ios18>(tensor<fp16, [4294967296, 4294967296, 2199023255553]> x) {\n } -> (x);\n}");
    assert!(msg.contains("larger than 2^40"), "{msg}");
    let (msg, ..) =
        parse_err("program(1.3)\n{\n func main<ios18>(tensor<fp99, [1]> x) {\n } -> (x);\n}");
    assert!(msg.contains("unknown element type"), "{msg}");
    let (msg, ..) = parse_err("garbage");
    assert!(msg.contains("expected `program`"), "{msg}");
    let (msg, ..) = parse_err("");
    assert!(msg.contains("end of file"), "{msg}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!(
        "program(1.3)\n{{\n func main<ios18>() [a = tensor<int32, [1]>({}1{})] {{\n }} -> ();\n}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let (msg, ..) = parse_err(&deep);
    assert!(msg.contains("nesting deeper"), "{msg}");
    let types = format!(
        "program(1.3)\n{{\n func main<ios18>({}fp16{} x) {{\n }} -> ();\n}}",
        "state<".repeat(100_000),
        ">".repeat(100_000)
    );
    let (msg, ..) = parse_err(&types);
    assert!(msg.contains("nesting deeper"), "{msg}");
}

#[test]
fn sub_byte_and_strings_render_back() {
    let text = r#"program(1.3)
{
    func main<ios18>() {
            tensor<string, [2]> s = const()[name = string("s"), val = tensor<string, [2]>(["a\"b", "c"])];
            tensor<uint4, [3]> q = const()[name = string("q"), val = tensor<uint4, [3]>([1, 15, 7])];
        } -> (s, q);
}"#;
    let p = parse(text);
    let (_, s) = p.functions[0].ops().next().unwrap();
    assert_eq!(
        s.attributes["val"].tensor_data(),
        Some(&TensorData::Strings(vec!["a\"b".into(), "c".into()]))
    );
    let (_, q) = p.functions[0].ops().nth(1).unwrap();
    assert_eq!(q.attributes["val"].ty.tensor().unwrap().dtype, DType::UInt4);
    assert!(matches!(
        q.attributes["val"].payload,
        Payload::Tensor(TensorData::Ints(_))
    ));
    round_trip(text);
}

#[test]
fn deeply_nested_blocks_are_an_error() {
    let mut body = String::from("tensor<fp16, [2]> t0 = relu(x = x);");
    for i in 1..=200 {
        body = format!("tensor<fp16, [2]> t{i} = cond(pred = p) {{ {body} }} -> (t{}) {{ {body_else} }} -> (x);", i - 1, body_else = "");
    }
    let text = format!("program(1.3)\n{{\n func main<ios18>(tensor<bool, []> p, tensor<fp16, [2]> x) {{ {body} }} -> (x);\n}}");
    let (msg, ..) = parse_err(&text);
    assert!(msg.contains("blocks nested deeper"), "{msg}");
}

#[test]
fn a_printed_program_is_named_as_such_with_how_to_save_one() {
    let printed = "main[CoreML8](%x: (1, 4, fp32)(Tensor)) {\n  block0() {\n    %relu_0: (1, 4, fp32)(Tensor) = relu(x=%x, name=\"relu_0\")\n  } -> (%relu_0)\n}\n";
    for text in [
        printed,
        &format!("\n  {printed}"),
        "main(%x: (1, 4, fp32)(Tensor)) {\n}\n",
    ] {
        match parse_program(text, Path::new("t/model.mil")) {
            Err(ReadError::MilSyntax(e)) => {
                assert!(
                    e.message.contains("printed by coremltools"),
                    "{}",
                    e.message
                );
                let help = e.help.as_deref().unwrap_or_default();
                assert!(
                    help.contains(".save(") && help.contains("coreml-lint dump"),
                    "{help}"
                );
            }
            other => panic!("not a printed-program error: {:?}", other.map(|_| ())),
        }
    }
    let (message, _, _) = parse_err("program(1.3)\n{\n  %\n}");
    assert!(message.contains("unexpected character"), "{message}");
}
