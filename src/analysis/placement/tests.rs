use std::collections::BTreeSet;

use super::*;
use crate::rules::testing::snippet_model;

const MIL: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> x, state<tensor<fp16, [1, 257, 64]>> kv) {\n            tensor<fp16, [64, 64]> w = const()[name = string(\"w\"), val = tensor<fp16, [64, 64]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [1, 64]> h = linear(weight = w, x = x)[name = string(\"h\")];\n            tensor<fp16, [1, 257, 64]> r = read_state(input = kv)[name = string(\"r\")];\n            string d = const()[name = string(\"d\"), val = string(\"fp32\")];\n            tensor<fp32, [1, 64]> h32 = cast(dtype = d, x = h)[name = string(\"h32\")];\n            int32 ax = const()[name = string(\"ax\"), val = int32(-1)];\n            tensor<int32, [1]> am = reduce_argmax(axis = ax, x = h)[name = string(\"am\")];\n            tensor<fp16, [1, 64]> q = some_new_op(x = h)[name = string(\"q\")];\n            tensor<fp16, [1, 64]> s = softmax(axis = ax, x = q)[name = string(\"s\")];\n        } -> (h32, am, s, r);\n}\n";

fn counts(mil: &str, flags: &Flags) -> Counts {
    let m = snippet_model("m", mil).unwrap();
    place_function(OpTable::builtin(), &m.program.functions[0], flags).counts
}

fn op_risk(op: &str, rule: &str) -> Flags {
    Flags {
        op_risk: [(op.to_string(), rule.to_string())].into(),
        ..Flags::default()
    }
}

#[test]
fn builtin_table_parses_and_names_only_builtin_rules() {
    let t = OpTable::parse(table::OP_TABLE).expect("op table parses");
    assert!(has(&t.likely_ane, "read_state") && has(&t.likely_ane, "conv"));
    let rules = crate::rules::RuleSet::builtin().unwrap();
    for id in t
        .function_risk_rules
        .iter()
        .chain(&t.op_risk_rules)
        .chain(&t.op_cpu_rules)
    {
        assert!(
            rules.rules().iter().any(|r| &r.id == id),
            "{id} is not a rule"
        );
    }
    let ane: BTreeSet<&String> = t.likely_ane.iter().collect();
    for op in &t.likely_cpu {
        assert!(!ane.contains(op), "{op} is in both lists");
    }
}

#[test]
fn counts_follow_the_table_dtypes_and_flags() {
    let c = counts(MIL, &Flags::default());
    // linear, read_state, softmax: ANE; cast to fp32, argmax: CPU; some_new_op: unknown.
    assert_eq!((c.ane, c.cpu, c.at_risk, c.unknown), (3, 2, 0, 1), "{c:?}");
    let c = counts(MIL, &op_risk("h", "tensor-rank"));
    assert_eq!((c.ane, c.at_risk), (2, 1), "{c:?}");
    let risky = Flags {
        function_risk: Some("dynamic-shape-with-state".into()),
        ..Flags::default()
    };
    let c = counts(MIL, &risky);
    assert_eq!((c.ane, c.cpu, c.at_risk, c.unknown), (0, 2, 3, 1), "{c:?}");
}

#[test]
fn macs_by_device_and_boundaries() {
    let m = snippet_model("m", MIL).unwrap();
    let p = place_function(
        OpTable::builtin(),
        &m.program.functions[0],
        &Flags::default(),
    );
    let macs: Vec<Option<u64>> = p.ops.iter().map(|o| o.macs).collect();
    // linear 64·64, read_state 0, cast 0, argmax one per input element, some_new_op unknown,
    // softmax one per output element.
    assert_eq!(
        macs,
        [Some(64 * 64), Some(0), Some(0), Some(64), None, Some(64)]
    );
    assert_eq!(
        p.macs,
        Macs {
            ane: 64 * 64 + 64,
            cpu: 64,
            at_risk: 0,
            unknown: 0,
            unestimated_ops: 1,
        }
    );
    // linear (ANE) → cast and → argmax (CPU); linear → some_new_op is no ANE↔CPU edge.
    assert_eq!(p.boundaries, 2);
    let share = p.macs.ane_share().unwrap();
    assert!((share - 100.0 * 4160.0 / 4224.0).abs() < 1e-9, "{share}");
}

#[test]
fn gather_tail_on_the_output_path_is_cpu() {
    let mil = "program(1.3)\n{\n    func main<ios18>(tensor<int32, [8]> ids, tensor<fp16, [64, 32]> table) {\n            int32 ax = const()[name = string(\"ax\"), val = int32(0)];\n            tensor<fp16, [8, 32]> g = gather(axis = ax, indices = ids, x = table)[name = string(\"g\")];\n            tensor<fp16, [8, 32]> g2 = gather(axis = ax, indices = ids, x = table)[name = string(\"g2\")];\n            tensor<fp16, [8, 32]> r = relu(x = g2)[name = string(\"r\")];\n            tensor<int32, [2]> sh = const()[name = string(\"sh\"), val = tensor<int32, [2]>([4, 64])];\n            tensor<fp16, [4, 64]> y = reshape(shape = sh, x = g)[name = string(\"y\")];\n        } -> (y, r);\n}\n";
    let c = counts(mil, &Flags::default());
    // g (through reshape to an output): CPU; g2, relu, reshape: ANE.
    assert_eq!((c.ane, c.cpu), (3, 1), "{c:?}");
}

fn placed(mil: &str) -> Vec<(String, Likely, &'static str)> {
    let m = snippet_model("m", mil).unwrap();
    let f = &m.program.functions[0];
    place_function(OpTable::builtin(), f, &Flags::default())
        .ops
        .into_iter()
        .map(|o| {
            let op = f.op(o.node).unwrap();
            (
                op.display_name().to_string(),
                o.placement.likely,
                o.placement.reason.code(),
            )
        })
        .collect()
}

#[test]
fn a_constant_table_gathered_by_run_time_ids_is_cpu() {
    let mil = "program(1.3)\n{\n    func main<ios18>(tensor<int32, [8]> ids, tensor<fp16, [64, 32]> table) {\n            int32 ax = const()[name = string(\"ax\"), val = int32(0)];\n            tensor<fp16, [64, 32]> emb = const()[name = string(\"emb\"), val = tensor<fp16, [64, 32]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [8, 32]> lookup = gather(axis = ax, indices = ids, x = emb)[name = string(\"lookup\")];\n            tensor<fp16, [8, 32]> by_input = gather(axis = ax, indices = ids, x = table)[name = string(\"by_input\")];\n            tensor<int32, [2]> fixed = const()[name = string(\"fixed\"), val = tensor<int32, [2]>([1, 2])];\n            tensor<fp16, [2, 32]> by_const = gather(axis = ax, indices = fixed, x = emb)[name = string(\"by_const\")];\n            tensor<fp16, [8, 32]> y = add(x = lookup, y = by_input)[name = string(\"y\")];\n        } -> (y, by_const);\n}\n";
    let got = placed(mil);
    let get = |n: &str| got.iter().find(|(o, _, _)| o == n).cloned().unwrap();
    assert_eq!(get("lookup").1, Likely::Cpu, "{got:?}");
    assert_eq!(get("lookup").2, "embedding-lookup");
    // A table that is an input, or constant ids, is no embedding lookup.
    assert_eq!(get("by_input").1, Likely::Ane, "{got:?}");
    assert_ne!(get("by_const").2, "embedding-lookup", "{got:?}");
    assert_eq!(get("y").1, Likely::Ane);
}

#[test]
fn ops_reading_topk_indices_are_cpu_and_their_fp16_results_are_not_indices() {
    let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 32]> s, tensor<fp16, [1, 32, 16]> x) {\n            int32 k = const()[name = string(\"k\"), val = int32(4)];\n            int32 ax = const()[name = string(\"ax\"), val = int32(-1)];\n            tensor<fp16, [1, 4]> v, tensor<int32, [1, 4]> i = topk(axis = ax, k = k, x = s)[name = string(\"tk\")];\n            tensor<int32, [1]> ea = const()[name = string(\"ea\"), val = tensor<int32, [1]>([-1])];\n            tensor<int32, [1, 4, 1]> e = expand_dims(axes = ea, x = i)[name = string(\"e\")];\n            tensor<int32, [3]> reps = const()[name = string(\"reps\"), val = tensor<int32, [3]>([1, 1, 16])];\n            tensor<int32, [1, 4, 16]> t = tile(reps = reps, x = e)[name = string(\"t\")];\n            int32 one = const()[name = string(\"one\"), val = int32(1)];\n            tensor<fp16, [1, 4, 16]> g = gather_along_axis(axis = one, indices = t, x = x)[name = string(\"g\")];\n            tensor<fp16, [1, 4, 16]> r = relu(x = g)[name = string(\"r\")];\n            tensor<fp16, [1, 4]> w = relu(x = v)[name = string(\"w\")];\n        } -> (r, w);\n}\n";
    let got = placed(mil);
    let by: BTreeMap<&str, (Likely, &str)> =
        got.iter().map(|(o, l, r)| (o.as_str(), (*l, *r))).collect();
    assert_eq!(by["tk"], (Likely::Cpu, "cpu-op"));
    for op in ["e", "t", "g"] {
        assert_eq!(by[op], (Likely::Cpu, "index-consumer"), "{op}: {got:?}");
    }
    // The gathered values and the top-k values are data, not indices.
    assert_eq!(by["r"], (Likely::Ane, "ane-op"), "{got:?}");
    assert_eq!(by["w"], (Likely::Ane, "ane-op"), "{got:?}");
}

#[test]
fn a_tiny_program_stays_on_the_cpu() {
    let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [4, 4]> a, tensor<fp16, [4, 4]> b) {\n            tensor<fp16, [4, 4]> y = matmul(x = a, y = b)[name = string(\"y\")];\n        } -> (y);\n}\n";
    assert_eq!(
        placed(mil),
        [("y".to_string(), Likely::Cpu, "tiny-program")]
    );
    let three = mil.replace(
        "        } -> (y);",
        "            tensor<fp16, [4, 4]> z = relu(x = y)[name = string(\"z\")];\n            tensor<fp16, [4, 4]> w = relu(x = z)[name = string(\"w\")];\n        } -> (w);",
    );
    assert!(
        placed(&three).iter().all(|(_, l, _)| *l == Likely::Ane),
        "{:?}",
        placed(&three)
    );
}
