//! The description rules (`description-signature-mismatch`, `description-signature-mismatch-functions`,
//! `description-output-no-shape`, `state-shape-mismatch`) on programs whose model description is
//! edited in memory: each disagreement is reported once, with its own message, and what Core ML
//! accepts is not reported. The rules decide and word everything here; the analysis only describes
//! the two sides (`description-feature`, `description-function`).

use coreml_lint::ir::{
    DType, FeatureDesc, FeatureKind, Flexibility, FunctionDesc, Model, ModelDesc, ModelKind,
};
use coreml_lint::lint::model_entities;
use coreml_lint::rules::testing::snippet_model;
use coreml_lint::rules::{match_model, RuleSet};

const ONE: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, ?, 64]> x, state<tensor<fp16, [2, 257, 32]>> kv) {\n            tensor<fp16, [2, 257, 32]> r = read_state(input = kv)[name = string(\"r\")];\n            tensor<fp16, [1, ?, 64]> y = relu(x = x)[name = string(\"y\")];\n        } -> (r, y);\n}\n";

const STATIC: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> t) {\n            tensor<fp16, [1, 64]> u = relu(x = t)[name = string(\"u\")];\n        } -> (u);\n}\n";

const TWO: &str = "program(1.3)\n{\n    func infer<ios18>(state<tensor<fp16, [2, 257, 32]>> kv) {\n            tensor<fp16, [2, 257, 32]> r = read_state(input = kv)[name = string(\"r\")];\n        } -> (r);\n    func prefill<ios18>(state<tensor<fp16, [2, 257, 32]>> kv) {\n            tensor<fp16, [2, 257, 32]> r = read_state(input = kv)[name = string(\"r\")];\n        } -> (r);\n}\n";

fn array(name: &str, dtype: DType, shape: &[i64], flexible: Option<Flexibility>) -> FeatureDesc {
    FeatureDesc {
        name: name.into(),
        kind: FeatureKind::Array {
            dtype: Some(dtype),
            shape: shape.to_vec(),
            flexible,
            default: None,
        },
        optional: false,
    }
}

fn state(name: &str, shape: &[i64]) -> FeatureDesc {
    FeatureDesc {
        name: name.into(),
        kind: FeatureKind::State {
            dtype: Some(DType::Fp16),
            shape: shape.to_vec(),
        },
        optional: false,
    }
}

/// `x` with the ranges `[1, 1...64, 64]`: it covers the program's `[1, ?, 64]`.
fn flexible_x() -> FeatureDesc {
    let ranges = Flexibility::Ranges(vec![(1, 1), (1, 64), (64, 64)]);
    array("x", DType::Fp16, &[1, 8, 64], Some(ranges))
}

/// A description of `ONE` that agrees with it; `y`'s run-time axis is described as 8.
fn agreeing() -> FunctionDesc {
    FunctionDesc {
        inputs: vec![flexible_x()],
        states: vec![state("kv", &[2, 257, 32])],
        outputs: vec![
            array("r", DType::Fp16, &[2, 257, 32], None),
            array("y", DType::Fp16, &[1, 8, 64], None),
        ],
        ..FunctionDesc::default()
    }
}

fn model(kind: ModelKind, mil: &str, desc: ModelDesc) -> Model {
    let mut m = snippet_model("t.mlpackage", mil).unwrap();
    m.kind = kind;
    m.description = desc;
    m
}

fn single(mil: &str, top: FunctionDesc) -> Model {
    let desc = ModelDesc {
        top,
        ..ModelDesc::default()
    };
    model(ModelKind::MlPackage, mil, desc)
}

/// Each finding of the description rules as `rule function/state: message`.
fn findings(m: &Model) -> Vec<String> {
    let mut rules = RuleSet::builtin().expect("built-ins load");
    rules.retain(|r| r.id.starts_with("description-") || r.id == "state-shape-mismatch");
    match_model(m, &rules, &model_entities(m))
        .into_iter()
        .map(|f| {
            format!(
                "{} {}/{}: {}",
                f.rule,
                f.function.as_deref().unwrap_or("-"),
                f.state.as_deref().unwrap_or("-"),
                f.message
            )
        })
        .collect()
}

const SIG: &str = "description-signature-mismatch";

#[test]
fn an_agreeing_description_gives_nothing() {
    assert_eq!(findings(&single(ONE, agreeing())), Vec::<String>::new());
}

#[test]
fn a_state_edited_in_the_description_only() {
    let mut d = agreeing();
    d.states = vec![state("kv", &[2, 256, 32])];
    assert_eq!(
        findings(&single(ONE, d)),
        [format!("{SIG} main/kv: state `kv`: shape [2, 256, 32] in the description, [2, 257, 32] in the program (axis 1)")]
    );
}

#[test]
fn a_fixed_description_of_a_flexible_input() {
    let mut d = agreeing();
    d.inputs = vec![array("x", DType::Fp16, &[1, 8, 64], None)];
    assert_eq!(
        findings(&single(ONE, d.clone())),
        [format!("{SIG} main/-: input `x`: shape [1, 8, 64] in the description, [1, ?, 64] in the program (axis 1: one size in the description, unknown in the program)")]
    );
    // The element type differs too: one finding, both types.
    d.inputs = vec![array("x", DType::Fp32, &[1, 8, 64], None)];
    assert_eq!(
        findings(&single(ONE, d.clone())),
        [format!("{SIG} main/-: input `x` is fp32 [1, 8, 64] in the description but tensor<fp16, [1, ?, 64]> in the program")]
    );
    // The element type alone.
    d.inputs = vec![FeatureDesc {
        kind: FeatureKind::Array {
            dtype: Some(DType::Fp32),
            shape: vec![1, 8, 64],
            flexible: Some(Flexibility::Ranges(vec![(1, 1), (1, -1), (64, 64)])),
            default: None,
        },
        ..flexible_x()
    }];
    assert_eq!(
        findings(&single(ONE, d)),
        [format!("{SIG} main/-: input `x` is fp32 in the description but tensor<fp16, [1, ?, 64]> in the program")]
    );
}

#[test]
fn ranges_and_enumerated_shapes_against_a_static_input() {
    let t = |flexible| array("t", DType::Fp16, &[1, 64], Some(flexible));
    let u = array("u", DType::Fp16, &[1, 64], None);
    let with = |input| FunctionDesc {
        inputs: vec![input],
        outputs: vec![u.clone()],
        ..FunctionDesc::default()
    };
    let covered = [
        Flexibility::Ranges(vec![(1, 1), (1, -1)]),
        Flexibility::Ranges(vec![(1, 1), (64, 64)]),
        Flexibility::Enumerated(vec![vec![1, 64]]),
    ];
    for flexible in covered {
        let got = findings(&single(STATIC, with(t(flexible.clone()))));
        assert!(got.is_empty(), "{flexible:?}: {got:?}");
    }
    assert_eq!(
        findings(&single(STATIC, with(t(Flexibility::Ranges(vec![(1, 1), (1, 32)]))))),
        [format!("{SIG} main/-: input `t`: shape [1, 1...32] in the description, [1, 64] in the program (axis 1)")]
    );
    let two = Flexibility::Enumerated(vec![vec![1, 64], vec![1, 128]]);
    assert_eq!(
        findings(&single(STATIC, with(t(two)))),
        [format!("{SIG} main/-: input `t`: shape [1, 64] | [1, 128] in the description, [1, 64] in the program (axis 1)")]
    );
    let rank3 = Flexibility::Ranges(vec![(1, 1), (1, 64), (1, 1)]);
    assert_eq!(
        findings(&single(STATIC, with(t(rank3)))),
        [format!("{SIG} main/-: input `t`: shape [1, 1...64, 1] in the description, [1, 64] in the program (rank differs)")]
    );
}

#[test]
fn features_on_one_side_only() {
    let mut d = agreeing();
    d.inputs.push(array("mask", DType::Fp16, &[1], None));
    d.outputs.retain(|o| o.name != "r");
    d.states.clear();
    assert_eq!(
        findings(&single(ONE, d)),
        [
            format!("{SIG} main/-: described input `mask` is not in the program's signature"),
            format!("{SIG} main/-: program output `r` is not in the description"),
            format!("{SIG} main/kv: program state `kv` is not in the description"),
        ]
    );
}

#[test]
fn a_feature_described_in_the_other_role_is_reported_once_there() {
    let mut d = agreeing();
    d.states.clear();
    d.inputs.push(array("kv", DType::Fp16, &[2, 257, 32], None));
    assert_eq!(
        findings(&single(ONE, d)),
        [format!(
            "{SIG} main/kv: `kv` is described as an input but is a state in the program"
        )]
    );
    let mut d = agreeing();
    d.inputs.clear();
    d.states.push(state("x", &[1, 8, 64]));
    assert_eq!(
        findings(&single(ONE, d)),
        [format!(
            "{SIG} main/-: `x` is described as a state but is an input in the program"
        )]
    );
}

#[test]
fn what_core_ml_accepts_is_not_reported() {
    // `y`'s axis 1 is known only at run time: its described 8 is not a mismatch; an output
    // described without a shape is description-output-no-shape's (not reported: `y` is dynamic).
    let mut d = agreeing();
    d.outputs[1] = array("y", DType::Fp16, &[], None);
    assert_eq!(findings(&single(ONE, d)), Vec::<String>::new());
    // `r` is static: the missing shape is reported once, by description-output-no-shape.
    let mut d = agreeing();
    d.outputs[0] = array("r", DType::Fp16, &[], None);
    let got = findings(&single(ONE, d));
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("description-output-no-shape main/-"),
        "{got:?}"
    );
}

#[test]
fn image_inputs_and_classifier_outputs() {
    let mil = "program(1.0)\n{\n    func main<ios16>(tensor<fp32, [1, 3, 224, 224]> image) {\n            tensor<fp32, [1, 10]> p = relu(x = image)[name = string(\"p\")];\n        } -> (p);\n}\n";
    let image = |width| FeatureDesc {
        name: "image".into(),
        kind: FeatureKind::Image { width, height: 224 },
        optional: false,
    };
    let label = FeatureDesc {
        name: "classLabel".into(),
        kind: FeatureKind::String,
        optional: false,
    };
    let desc = |width| FunctionDesc {
        inputs: vec![image(width)],
        outputs: vec![label.clone()],
        ..FunctionDesc::default()
    };
    // A classifier describes its label, not the program's `p`.
    assert_eq!(findings(&single(mil, desc(224))), Vec::<String>::new());
    assert_eq!(
        findings(&single(mil, desc(200))),
        [format!("{SIG} main/-: input `image` is a 200×224 image in the description but tensor<fp32, [1, 3, 224, 224]> in the program")]
    );
    let int_image = mil.replace(
        "tensor<fp32, [1, 3, 224, 224]>",
        "tensor<int32, [1, 3, 224, 224]>",
    );
    assert_eq!(
        findings(&single(&int_image, desc(224))),
        [format!("{SIG} main/-: input `image` is an image in the description but tensor<int32, [1, 3, 224, 224]> in the program")]
    );
}

fn per_function(names: &[&str], default: Option<&str>) -> ModelDesc {
    let one = |name: &str| FunctionDesc {
        name: Some(name.into()),
        states: vec![state("kv", &[2, 257, 32])],
        outputs: vec![array("r", DType::Fp16, &[2, 257, 32], None)],
        ..FunctionDesc::default()
    };
    ModelDesc {
        functions: names.iter().map(|n| one(n)).collect(),
        default_function: default.map(str::to_string),
        ..ModelDesc::default()
    }
}

const FUN: &str = "description-signature-mismatch-functions";

#[test]
fn functions_and_their_descriptions() {
    let package = |d| model(ModelKind::MlPackage, TWO, d);
    let agree = per_function(&["infer", "prefill"], Some("infer"));
    assert_eq!(findings(&package(agree)), Vec::<String>::new());
    // A default that names nothing, a function without its description, a description of a
    // function the program lacks (its features are not compared with anything).
    assert_eq!(
        findings(&package(per_function(&["infer", "extra"], Some("decode")))),
        [
            format!("{FUN} -/-: defaultFunctionName `decode` names no function of the program"),
            format!(
                "{FUN} -/-: the description describes function `extra`, which the program lacks"
            ),
            format!("{FUN} prefill/-: function `prefill` has no FunctionDescription"),
        ]
    );
    assert_eq!(
        findings(&package(per_function(&["infer", "prefill", "decode"], Some("decode")))),
        [format!("{FUN} -/-: defaultFunctionName `decode` names a function the description describes and the program lacks")]
    );
    // Model-level facts are reported at the first function.
    assert_eq!(
        findings(&package(per_function(&["infer", "prefill"], None))),
        [format!(
            "{FUN} infer/-: the description lists functions but no defaultFunctionName"
        )]
    );
    let mut both = per_function(&["infer", "prefill"], Some("infer"));
    both.top.outputs = vec![array("r", DType::Fp16, &[2, 257, 32], None)];
    assert_eq!(
        findings(&package(both)),
        [format!("{FUN} infer/-: the description has per-function descriptions and also model-level inputs, outputs or states")]
    );
}

#[test]
fn several_functions_and_one_description() {
    // The model-level description describes the first function (no `main`): `infer` agrees with
    // it, `prefill` has none.
    let mut d = per_function(&["infer"], None);
    d.top = d.functions.remove(0);
    d.top.name = None;
    let m = model(ModelKind::MlPackage, TWO, d.clone());
    assert_eq!(
        findings(&m),
        [format!("{FUN} prefill/-: function `prefill` has no description: the program has 2 functions (`infer`, `prefill`) but the description has no per-function descriptions")]
    );
    d.default_function = Some("infer".into());
    let m = model(ModelKind::MlPackage, TWO, d);
    assert!(findings(&m).contains(&format!(
        "{FUN} infer/-: defaultFunctionName is `infer` but the description lists no functions"
    )));
}

#[test]
fn a_compiled_model_compares_metadata_json_and_text_mil_nothing() {
    let mut d = agreeing();
    d.states = vec![state("kv", &[2, 256, 32])];
    let desc = ModelDesc {
        top: d,
        ..ModelDesc::default()
    };
    let compiled = model(ModelKind::MlModelc, ONE, desc.clone());
    assert_eq!(
        findings(&compiled),
        [format!("{SIG} main/kv: state `kv`: shape [2, 256, 32] in the description, [2, 257, 32] in the program (axis 1)")]
    );
    let mut rules = RuleSet::builtin().expect("built-ins load");
    rules.retain(|r| r.id == SIG);
    let help = match_model(&compiled, &rules, &model_entities(&compiled))[0]
        .help
        .clone()
        .unwrap_or_default();
    assert!(
        help.contains("metadata.json comes from its source package"),
        "{help}"
    );
    assert!(findings(&model(ModelKind::MilText, ONE, desc)).is_empty());
    // A compiled model without metadata.json: no description, nothing to compare.
    assert!(findings(&model(ModelKind::MlModelc, ONE, ModelDesc::default())).is_empty());
}

/// The rules of `coreml-lint check --output-format json ARGS` on the two description fixtures.
fn cli_rules(args: &[&str]) -> Vec<String> {
    let corpus = crate::common::corpus();
    let out = assert_cmd::Command::cargo_bin("coreml-lint")
        .unwrap()
        .args([
            "check",
            "--isolated",
            "--exit-zero",
            "--output-format",
            "json",
        ])
        .args(args)
        .arg(corpus.join("packages/description-signature-mismatch.mlpackage"))
        .arg(corpus.join("packages/description-signature-mismatch-functions.mlpackage"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut rules: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect();
    rules.sort();
    rules
}

/// `description-signature-mismatch`, which reported the function-level cases too, still selects
/// and ignores them: `description-signature-mismatch-functions` starts with its id.
#[test]
fn the_old_id_selects_and_ignores_both_rules() {
    let both = [SIG, FUN, FUN].map(String::from).to_vec();
    assert_eq!(cli_rules(&[]), both);
    assert_eq!(cli_rules(&["--select", SIG]), both);
    assert_eq!(cli_rules(&["--ignore", SIG]), Vec::<String>::new());
    assert_eq!(cli_rules(&["--select", FUN]), [FUN, FUN]);
}
