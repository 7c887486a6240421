use super::table::{opset_position, OpTable, OpsetPos, INFERENCE_YAML, OPS_YAML};

#[test]
fn embedded_tables_parse() {
    let t = OpTable::parse(OPS_YAML, INFERENCE_YAML).expect("tables parse");
    assert!(t.knows("slice_update") && t.knows("write_state") && t.knows("conv"));
    assert_eq!(t.first_opset("slice_update"), Some("ios18"));
    assert!(t.version("slice_update", 2).is_none());
    assert!(t.version("slice_update", 3).is_some());
}

#[test]
fn opsets_in_both_spellings() {
    assert_eq!(opset_position("ios17"), OpsetPos::Known(2));
    assert_eq!(opset_position("CoreML8"), OpsetPos::Known(3));
    assert_eq!(opset_position("CoreML9"), OpsetPos::NotDescribed);
    assert_eq!(opset_position("ios26"), OpsetPos::NotDescribed);
}

use std::path::Path;

use super::check::check_function;
use crate::read::miltext::parse_program;

/// The rules that fire on a one-function text program among the `mil-*` rules, which test the
/// op-set entities `check_function` describes.
fn kinds(opset: &str, sig: &str, body: &[&str]) -> Vec<String> {
    let text = format!(
        "program(1.3)\n{{\n    func main<{opset}>({sig}) {{\n{}\n        }} -> (y);\n}}\n",
        body.join("\n")
    );
    let program = parse_program(&text, Path::new("t.mil")).expect("parses");
    let f = &program.functions[0];
    let entities = crate::analysis::registry::ModelEntities {
        entities: check_function(
            OpTable::builtin(),
            f,
            None,
            true,
            &crate::analysis::entity::EveryEntity,
        ),
    };
    let model = crate::rules::testing::snippet_model("t.mil", &text).expect("parses");
    let mut rules = crate::rules::RuleSet::builtin().expect("built-ins load");
    rules.retain(|r| r.id.starts_with("mil-"));
    let mut ids: Vec<String> = crate::rules::match_model(&model, &rules, &entities)
        .into_iter()
        .map(|x| x.rule)
        .collect();
    ids.sort();
    ids
}

fn output_ok(sig: &str, line: &str) -> bool {
    kinds("ios18", sig, &[line]).is_empty()
}

#[test]
fn broadcast_shapes() {
    let sig = "tensor<fp16, [2, 1, 4]> a, tensor<fp16, [3, 1]> b";
    assert!(output_ok(
        sig,
        "tensor<fp16, [2, 3, 4]> y = mul(x = a, y = b);"
    ));
    assert!(!output_ok(
        sig,
        "tensor<fp16, [2, 3, 1]> y = mul(x = a, y = b);"
    ));
    assert!(output_ok(
        sig,
        "tensor<bool, [2, 3, 4]> y = less(x = a, y = b);"
    ));
    assert!(!output_ok(
        sig,
        "tensor<fp16, [2, 3, 4]> y = less(x = a, y = b);"
    ));
    // Unknown dimensions are never contradicted.
    let dynamic = "tensor<fp16, [?, 4]> a, tensor<fp16, [1, 4]> b";
    assert!(output_ok(
        dynamic,
        "tensor<fp16, [7, 4]> y = add(x = a, y = b);"
    ));
    // Incompatible inputs: no output type exists.
    let bad = "tensor<fp16, [1, 8]> a, tensor<fp16, [1, 4]> b";
    assert!(!output_ok(
        bad,
        "tensor<fp16, [1, 8]> y = add(x = a, y = b);"
    ));
}

#[test]
fn matmul_and_linear() {
    let sig = "tensor<fp16, [5, 2, 4]> a, tensor<fp16, [3, 4]> b";
    let mm = |t: &str, ty: &str| {
        format!(
            "{t} y = matmul(transpose_x = bool(false), transpose_y = bool({ty}), x = a, y = b);"
        )
    };
    assert!(output_ok(sig, &mm("tensor<fp16, [5, 2, 3]>", "true")));
    assert!(!output_ok(sig, &mm("tensor<fp16, [5, 2, 4]>", "true")));
    assert!(!output_ok(sig, &mm("tensor<fp16, [5, 2, 3]>", "false")));
    let v = "tensor<fp16, [4]> a, tensor<fp16, [4, 3]> b";
    assert!(output_ok(
        v,
        "tensor<fp16, [3]> y = matmul(transpose_x = bool(false), transpose_y = bool(false), x = a, y = b);"
    ));
    let w = "tensor<fp16, [6, 4]> w = const()[name = string(\"w\"), val = tensor<fp16, [6, 4]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];";
    let lin = |t: &str| {
        kinds(
            "ios18",
            "tensor<fp16, [2, 4]> x",
            &[w, &format!("{t} y = linear(weight = w, x = x);")],
        )
    };
    assert!(lin("tensor<fp16, [2, 6]>").is_empty());
    assert_eq!(lin("tensor<fp16, [2, 4]>"), ["mil-output-type"]);
    // The weight must be a compile-time constant.
    assert_eq!(
        kinds(
            "ios18",
            "tensor<fp16, [2, 4]> x, tensor<fp16, [6, 4]> w",
            &["tensor<fp16, [2, 6]> y = linear(weight = w, x = x);"]
        ),
        ["mil-param-not-const"]
    );
}

#[test]
fn shape_ops() {
    let sig = "tensor<fp16, [2, 3, 4]> x";
    assert!(output_ok(
        sig,
        "tensor<fp16, [6, 4]> y = reshape(shape = tensor<int32, [2]>([-1, 4]), x = x);"
    ));
    assert!(!output_ok(
        sig,
        "tensor<fp16, [4, 6]> y = reshape(shape = tensor<int32, [2]>([-1, 4]), x = x);"
    ));
    assert!(output_ok(
        sig,
        "tensor<fp16, [4, 2, 3]> y = transpose(perm = tensor<int32, [3]>([2, 0, 1]), x = x);"
    ));
    assert!(!output_ok(
        sig,
        "tensor<fp16, [2, 3, 4]> y = transpose(perm = tensor<int32, [3]>([2, 0, 1]), x = x);"
    ));
    let slice = |t: &str| {
        format!("{t} y = slice_by_index(begin = tensor<int32, [3]>([0, 1, -3]), end = tensor<int32, [3]>([1, 0, 4]), end_mask = tensor<bool, [3]>([false, true, false]), squeeze_mask = tensor<bool, [3]>([true, false, false]), stride = tensor<int32, [3]>([1, 1, 2]), x = x);")
    };
    assert!(output_ok(sig, &slice("tensor<fp16, [2, 2]>")));
    assert!(!output_ok(sig, &slice("tensor<fp16, [2, 3]>")));
    let g = "tensor<fp16, [10, 8]> t, tensor<int32, [2, 5]> i";
    assert!(output_ok(
        g,
        "tensor<fp16, [2, 5, 8]> y = gather(axis = int32(0), indices = i, x = t);"
    ));
    assert!(!output_ok(
        g,
        "tensor<fp16, [5, 8]> y = gather(axis = int32(0), indices = i, x = t);"
    ));
    assert!(output_ok(sig, "tensor<fp16, [2, 1, 4]> y = reduce_sum(axes = tensor<int32, [1]>([1]), keep_dims = bool(true), x = x);"));
    assert!(output_ok(
        sig,
        "tensor<fp16, [2, 4]> y = reduce_mean(axes = tensor<int32, [1]>([-2]), x = x);"
    ));
    assert!(output_ok(sig, "tensor<fp16, []> y = reduce_max(x = x);"));
    assert!(!output_ok(
        sig,
        "tensor<fp16, [2, 4]> y = reduce_max(x = x);"
    ));
    assert!(output_ok(
        sig,
        "tensor<int32, [2, 3, 4]> y = cast(dtype = string(\"int32\"), x = x);"
    ));
    assert!(!output_ok(
        sig,
        "tensor<fp32, [2, 3, 4]> y = cast(dtype = string(\"int32\"), x = x);"
    ));
    let cat = "tensor<fp16, [2, 3]> a, tensor<fp16, [2, 5]> b";
    assert!(output_ok(cat, "tensor<fp16, [2, 8]> y = concat(axis = int32(-1), interleave = bool(false), values = (a, b));"));
    assert!(!output_ok(cat, "tensor<fp16, [4, 3]> y = concat(axis = int32(0), interleave = bool(false), values = (a, b));"));
}

#[test]
fn state_ops_and_literals() {
    let sig = "state<tensor<fp16, [1, 4]>> s, tensor<fp16, [1, 4]> x";
    assert!(output_ok(
        sig,
        "tensor<fp16, [1, 4]> y = read_state(input = s);"
    ));
    assert!(!output_ok(
        sig,
        "tensor<fp16, [1, 5]> y = read_state(input = s);"
    ));
    assert_eq!(
        kinds(
            "ios18",
            sig,
            &["tensor<fp16, [1, 4]> y = read_state(input = x);"]
        ),
        ["mil-param-kind"]
    );
    assert_eq!(
        kinds(
            "ios18",
            "tensor<fp16, [1, 4]> x",
            &["tensor<fp16, [1, 4]> y = add(x = x, y = tensor<fp16, [1, 4]>([1, 2, 3]));"]
        ),
        ["mil-literal-elements"]
    );
    // A state declared in an older opset is `opset-too-old-for-states`' finding, not one per op.
    assert!(kinds(
        "ios17",
        sig,
        &["tensor<fp16, [1, 4]> y = read_state(input = s);"]
    )
    .is_empty());
}

#[test]
fn newer_opset_is_one_info_and_nothing_else() {
    let k = kinds(
        "CoreML9",
        "tensor<fp16, [1, 4]> x",
        &["tensor<fp16, [1, 9]> y = nonsense(q = x);"],
    );
    assert_eq!(k, ["mil-opset-not-checked"]);
}

#[test]
fn float_gather_indices_are_left_to_their_rule() {
    let sig = "tensor<fp16, [10, 8]> t, tensor<fp16, [5]> i";
    assert!(kinds(
        "ios17",
        sig,
        &["tensor<fp16, [5, 8]> y = gather(axis = int32(0), indices = i, x = t);"]
    )
    .is_empty());
    let b = "tensor<fp16, [10, 8]> t, tensor<bool, [5]> i";
    assert_eq!(
        kinds(
            "ios17",
            b,
            &["tensor<fp16, [5, 8]> y = gather(axis = int32(0), indices = i, x = t);"]
        ),
        ["mil-param-dtype"]
    );
}

#[test]
fn the_built_in_binary_form_builds_the_table_the_yaml_does() {
    let parsed = OpTable::parse(OPS_YAML, INFERENCE_YAML).expect("tables parse");
    assert!(parsed.op_names().count() > 100);
    assert_eq!(format!("{:?}", OpTable::builtin()), format!("{parsed:?}"));
}

use crate::analysis::entity::{EntityDemand, EveryEntity};
use crate::analysis::registry::ModelEntities;
use crate::rules::loader::load_rule_text;
use crate::rules::{match_model, RuleDemand, RuleSet};

/// One entity rule selecting `kind` by the properties `props` (YAML flow mapping entries).
fn entity_rule(kind: &str, props: &str) -> RuleSet {
    let body = format!(
        "id: r\ntitle: t\nseverity: info\nmatch: {{ kind: {kind}, {props} }}\nmessage: m\n"
    );
    let rule = load_rule_text("r.yaml", &body, None, false)
        .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)));
    RuleSet::from_rules(vec![rule]).expect("one rule")
}

/// The ops `rules` report in the text program `text`, its op-set entities described for the
/// rules' demand (each answer kept for equal facts within a function); the same as when every
/// entity is described whole.
fn reported(rules: &RuleSet, text: &str) -> Vec<String> {
    let model = crate::rules::testing::snippet_model("t.mil", text).expect("parses");
    let findings = |demand: &dyn EntityDemand| {
        let entities = ModelEntities {
            entities: super::opset_entities_with(&model, None, demand),
        };
        let mut ops: Vec<String> = match_model(&model, rules, &entities)
            .into_iter()
            .map(|f| f.op.unwrap_or_default())
            .collect();
        ops.sort();
        ops
    };
    let kept = findings(&RuleDemand::of(rules));
    assert_eq!(kept, findings(&EveryEntity), "{text}");
    kept
}

/// `rules` report the op whose output is `hit` (`n` times) and not the op whose output is `miss`
/// when both are in one function (`sig`, opset `opset`), in either order: two ops the kept
/// answers must tell apart.
fn tells_apart(rules: &RuleSet, opset: &str, sig: &str, hit: &str, miss: &str, n: usize) {
    let prelude = "tensor<fp16, [6, 4]> w = const()[name = string(\"w\"), val = tensor<fp16, [6, 4]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];";
    for (first, second) in [(hit, miss), (miss, hit)] {
        let text = format!(
            "program(1.3)\n{{\n    func main<{opset}>({sig}) {{\n        {prelude}\n        {first}\n        {second}\n    }} -> (a);\n}}\n"
        );
        assert_eq!(reported(rules, &text), vec!["hit"; n], "{text}");
    }
}

/// The op-set check keeps the demand's answer per facts of an entity (the op's table version,
/// the parameter, the bound value's type, state-ness, run-time dependence and type group, a
/// literal's counts, ...): two entities that differ in any one of them are answered apart.
#[test]
fn kept_answers_tell_apart_entities_that_differ_in_one_fact() {
    let sig = "tensor<fp16, [1, 4]> a, tensor<fp32, [1, 4]> b, state<tensor<fp16, [1, 4]>> s, tensor<fp16, [6, 4]> wi";
    let param = |props: &str| entity_rule("mil-parameter", props);
    let op = |props: &str| entity_rule("mil-op", props);
    let literal = |props: &str| entity_rule("mil-literal", props);
    let cases: &[(&str, RuleSet, &str, &str, usize)] = &[
        // A binding: its op type (the table version), ...
        (
            "op type",
            param("op-type: relu"),
            "tensor<fp16, [1, 4]> hit = relu(x = a);",
            "tensor<fp16, [1, 4]> miss = sigmoid(x = a);",
            1,
        ),
        // ... the parameter (one int32 literal: `keep_dims` takes bool, `axes` int32), ...
        (
            "parameter",
            param("dtype-accepted: false"),
            "tensor<fp16, [1, 4]> hit = reduce_mean(keep_dims = tensor<int32, [1]>([1]), x = a);",
            "tensor<fp16, [1]> miss = reduce_mean(axes = tensor<int32, [1]>([1]), x = a);",
            1,
        ),
        // ... the bound value's element type, ...
        (
            "dtype",
            param("dtype: fp32"),
            "tensor<fp32, [1, 4]> hit = relu(x = b);",
            "tensor<fp16, [1, 4]> miss = relu(x = a);",
            1,
        ),
        // ... one tensor or several, ...
        (
            "one binding",
            param("dtype: { present: true }"),
            "tensor<fp16, [1, 4]> hit = relu(x = a);",
            "tensor<fp16, [1, 4]> miss = relu(x = (a, a));",
            1,
        ),
        // ... a state or not, ...
        (
            "state",
            param("is-state: true"),
            "tensor<fp16, [1, 4]> hit = read_state(input = s);",
            "tensor<fp16, [1, 4]> miss = read_state(input = a);",
            1,
        ),
        // ... run-time data or a constant (a literal's is known at once, a named value's is
        // looked up only once a rule may select the binding whatever it is), ...
        (
            "run-time data",
            param("runtime-data: true, must-be-const: true"),
            "tensor<fp16, [1, 6]> hit = linear(weight = wi, x = a);",
            "tensor<fp16, [1, 6]> miss = linear(weight = tensor<fp16, [6, 4]>([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), x = a);",
            1,
        ),
        // ... and the element type of the first parameter of its type group.
        (
            "type group",
            param("group-dtype: fp32"),
            "tensor<fp32, [1, 4]> hit = add(x = b, y = a);",
            "tensor<fp16, [1, 4]> miss = add(x = a, y = a);",
            1,
        ),
        // A parameter left unbound: which one (`begin` is required, `stride` not), ...
        (
            "unbound parameter",
            param("bound: false, required: true"),
            "tensor<fp16, [1, 4]> hit = slice_by_index(end = tensor<int32, [2]>([1, 4]), x = a);",
            "tensor<fp16, [1, 4]> miss = slice_by_index(begin = tensor<int32, [2]>([0, 0]), end = tensor<int32, [2]>([1, 4]), x = a);",
            1,
        ),
        // ... and whether a misspelled binding stands for it.
        (
            "misspelled",
            param("bound: false, misspelled: false"),
            "tensor<fp16, [1, 4]> hit = add(x = a);",
            "tensor<fp16, [1, 4]> miss = add(x = a, yy = a);",
            1,
        ),
        // An op: its type, ...
        (
            "op's type",
            op("op-type: relu"),
            "tensor<fp16, [1, 4]> hit = relu(x = a);",
            "tensor<fp16, [1, 4]> miss = sigmoid(x = a);",
            1,
        ),
        // ... whether its declared output type agrees, ...
        (
            "output type",
            op("output-agrees: false"),
            "tensor<fp16, [1, 5]> hit = relu(x = a);",
            "tensor<fp16, [1, 4]> miss = relu(x = a);",
            1,
        ),
        // ... and whether the data it writes fits the state.
        (
            "state write",
            op("data-fits-state: false"),
            "write_state(data = b, input = s)[name = string(\"hit\")];",
            "write_state(data = a, input = s)[name = string(\"miss\")];",
            1,
        ),
        // A literal: its op's type, ...
        (
            "literal's op",
            literal("op-type: add"),
            "tensor<fp16, [1, 4]> hit = add(x = a, y = tensor<fp16, [1, 4]>([1, 2, 3, 4]));",
            "tensor<fp16, [1, 4]> miss = mul(x = a, y = tensor<fp16, [1, 4]>([1, 2, 3, 4]));",
            1,
        ),
        // ... its parameter (a rule tells parameters apart only by comparing them), ...
        (
            "literal's parameter",
            literal("op-type: { same-as: param }"),
            "tensor<fp16, [1, 4]> hit = add(add = tensor<fp16, [1, 4]>([1, 2, 3, 4]), x = a, y = a);",
            "tensor<fp16, [1, 4]> miss = add(mul = tensor<fp16, [1, 4]>([1, 2, 3, 4]), x = a, y = a);",
            1,
        ),
        // ... how many elements it lists ...
        (
            "elements",
            literal("elements: 3"),
            "tensor<fp16, [1, 3]> hit = add(x = a, y = tensor<fp16, [1, 3]>([1, 2, 3]));",
            "tensor<fp16, [1, 3]> miss = add(x = a, y = tensor<fp16, [1, 3]>([1, 2]));",
            1,
        ),
        // ... and how many its shape holds.
        (
            "shape elements",
            literal("shape-elements: 4"),
            "tensor<fp16, [1, 4]> hit = add(x = a, y = tensor<fp16, [1, 4]>([1, 2, 3]));",
            "tensor<fp16, [1, 3]> miss = add(x = a, y = tensor<fp16, [1, 3]>([1, 2, 3]));",
            1,
        ),
    ];
    for (what, rules, hit, miss, n) in cases {
        eprintln!("{what}");
        tells_apart(rules, "ios18", sig, hit, miss, *n);
    }
}

/// Answers are kept per function: the same op in functions of two opsets is answered by each
/// opset's version of it (`begin` takes int16 from ios17 on; `end` is int32 in both).
#[test]
fn kept_answers_are_per_function_and_opset() {
    let rules = entity_rule("mil-parameter", "dtype-accepted: false");
    let func = |name: &str, opset: &str, out: &str| {
        format!("    func {name}<{opset}>(tensor<fp16, [4]> x, tensor<int16, [1]> b, tensor<int32, [1]> e) {{\n        tensor<fp16, [1]> {out} = slice_by_index(begin = b, end = e, x = x);\n    }} -> ({out});\n")
    };
    let old = func("old", "ios15", "hit");
    let new = func("new", "ios17", "miss");
    for (first, second) in [(&old, &new), (&new, &old)] {
        let text = format!("program(1.3)\n{{\n{first}{second}}}\n");
        assert_eq!(reported(&rules, &text), ["hit"], "{text}");
    }
}
