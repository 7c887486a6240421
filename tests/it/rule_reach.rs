//! The rule language's reach (issue 42): counts that compare a value's numbers with each other,
//! one form for every number, errors that say what a count is and point at the key, and integer
//! `dim` keys in `utils:`.

use std::path::Path;

use assert_cmd::Command;

use crate::common;
use coreml_lint::lint::model_entities;
use coreml_lint::rules::testing::snippet_model;
use coreml_lint::rules::{load_rule_text, match_model, LoadError, RuleSet};

/// Weights of each shape, each an output a rule may test.
const SHAPES: &str = r#"program(1.0)
{
    func main<ios17>(tensor<fp16, [3, 3]> a, tensor<fp16, [64, 32]> b) {
            tensor<fp16, [3, 3]> square = relu(x = a)[name = string("square")];
            tensor<fp16, [64, 32]> tall = relu(x = b)[name = string("tall")];
            tensor<fp16, [1, 3, 3]> cube = expand_dims(axes = tensor<int32, [1]>([0]), x = square)[name = string("cube")];
        } -> (square, tall, cube);
}"#;

fn rule(matcher: &str) -> RuleSet {
    let yaml = format!("id: t\ntitle: t\nseverity: info\nmatch: {matcher}\nmessage: m\n");
    match load_rule_text("t.yaml", &yaml, None, false) {
        Ok(r) => RuleSet::from_rules(vec![r]).expect("one rule"),
        Err(e) => panic!("{matcher}: {:?}", miette::Report::new(e)),
    }
}

fn ops(matcher: &str) -> Vec<String> {
    let model = snippet_model("t.mil", SHAPES).expect("parses");
    let rules = rule(matcher);
    match_model(&model, &rules, &model_entities(&model))
        .into_iter()
        .filter_map(|f| f.op)
        .collect()
}

/// The message and the labels' offsets of a rule that must not load.
pub(crate) fn refused(body: &str) -> (String, Vec<(String, usize)>) {
    match load_rule_text("r.yaml", body, Some("r"), false) {
        Ok(_) => panic!("should not load:\n{body}"),
        Err(LoadError::Invalid(e)) => (
            e.message.clone(),
            e.labels
                .iter()
                .map(|l| (l.label().unwrap_or("").to_string(), l.offset()))
                .collect(),
        ),
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

#[test]
fn a_value_count_compares_with_another_number_of_the_value() {
    assert_eq!(
        ops("{ output: { rank: 2, dim: { 0: { equals: dim.1 } } } }"),
        ["square"]
    );
    assert_eq!(
        ops("{ output: { dim: { -2: { equals: dim.-1 } } } }"),
        ["square", "cube"]
    );
    assert_eq!(
        ops("{ output: { dim: { 0: { above: dim.1 } } } }"),
        ["tall"]
    );
    assert_eq!(
        ops("{ output: { last-dim: { below: max-dim } } }"),
        ["tall"]
    );
    assert_eq!(
        ops("{ output: { elements: { equals: 9 }, rank: { min: 2, below: 3 } } }"),
        ["square"]
    );
    assert_eq!(
        ops("{ output: { max-dim: { multiple-of: last-dim } } }"),
        ["square", "tall", "cube"]
    );
    assert_eq!(
        ops("{ output: { dim: { 0: { not-multiple-of: dim.1 } } } }"),
        ["cube"]
    );
    // An axis the value lacks is unknown: no comparison with it holds.
    assert!(ops("{ output: { dim: { 0: { equals: dim.5 } } } }").is_empty());
}

#[test]
fn the_same_count_form_holds_at_the_op_level() {
    let matcher = "{ op: expand_dims, blocked-axes: { of: x, over: x, count: { equals: 0 } } }";
    assert_eq!(ops(matcher), ["cube"]);
    let matcher = "{ op: expand_dims, blocked-axes: { of: x, over: x, count: { above: 0 } } }";
    assert!(ops(matcher).is_empty());
}

#[test]
fn a_count_written_wrongly_says_what_a_count_is_at_its_key_once() {
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  output: { dim: { 0: { same-as: 1 } } }\nmessage: m\n";
    let (msg, labels) = refused(body);
    assert!(
        msg.contains("`same-as` is not a comparison of a count: a count is a whole number, or `{ min, max, above, below, equals, multiple-of, not-multiple-of }`"),
        "{msg}"
    );
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert_eq!(
        labels[0].1,
        body.find("dim").unwrap(),
        "at `dim`, not `output`"
    );
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  output:\n    rank: [2]\nmessage: m\n";
    let (msg, labels) = refused(body);
    assert!(
        msg.contains("is not a count: a count is a whole number"),
        "{msg}"
    );
    assert_eq!(labels[0].1, body.find("rank").unwrap());
}

#[test]
fn a_bound_names_only_what_is_there() {
    // Another number of a value is no bound outside a value.
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  peers:\n    match: { op: relu }\n    count: { equals: rank }\nmessage: m\n";
    let (msg, labels) = refused(body);
    assert!(
        msg.contains("`rank` is a number of a value: here `equals` takes a number"),
        "{msg}"
    );
    assert_eq!(labels.len(), 1, "{labels:?}");
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  output:\n    dim: { 0: { equals: width } }\nmessage: m\n";
    let (msg, _) = refused(body);
    assert!(msg.contains("`width` is not a count bound"), "{msg}");
    assert!(msg.contains("`dim.<axis>`"), "{msg}");
}

#[test]
fn entity_numbers_take_equals_with_a_number_or_a_property() {
    let model = snippet_model("t.mil", SHAPES).expect("parses");
    let mut entities = model_entities(&model);
    let item = |offset: u64, size: u64| {
        coreml_lint::analysis::entity::Entity::new(
            coreml_lint::analysis::registry::entity_kind("weight-record").expect("registered"),
        )
        .with("offset", offset)
        .with("size", size)
    };
    entities.entities = vec![item(8, 8), item(16, 8)];
    let r = rule("{ kind: weight-record, offset: { equals: size } }");
    assert_eq!(match_model(&model, &r, &entities).len(), 1);
    let r = rule("{ kind: weight-record, offset: { equals: 16, multiple-of: size } }");
    assert_eq!(match_model(&model, &r, &entities).len(), 1);
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

const SQUARE_TESTS: &str = r#"tests:
  valid:
    - mil: |
        program(1.0)
        {
            func main<ios17>(tensor<fp16, [2, 3]> x) {
                    tensor<fp16, [2, 3]> y = relu(x = x)[name = string("y")];
                } -> (y);
        }
  invalid:
    - mil: |
        program(1.0)
        {
            func main<ios17>(tensor<fp16, [3, 3]> x) {
                    tensor<fp16, [3, 3]> y = relu(x = x)[name = string("y")];
                } -> (y);
        }
"#;

#[test]
fn integer_dim_keys_work_in_utils_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "utils.yaml",
        "three-rows:\n  output: { dim: { 0: 3 } }\n",
    );
    let local = format!(
        "id: square-local\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  all: [{{ matches: three-rows }}, {{ matches: square }}]\nutils:\n  square:\n    output: {{ dim: {{ 0: {{ equals: dim.1 }}, 1: 3 }} }}\nmessage: m\n{SQUARE_TESTS}"
    );
    write(dir.path(), "square-local.yaml", &local);
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .env("NO_COLOR", "1")
        .arg("test-rules")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("1 validated, 1 reported, 0 missing, 0 noisy, 0 error"),
        "{stdout}"
    );
}

#[test]
fn a_wrong_count_fails_check_with_exit_2_and_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "bad.yaml",
        "id: bad\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  output: { dim: { 0: { same-as: 1 } } }\nmessage: m\n",
    );
    let out = Command::cargo_bin("coreml-lint")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(["check", "--rules"])
        .arg(dir.path())
        .arg(common::corpus().join("packages/description-output-no-shape.mlpackage"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("bad.yaml:6:13"), "{stderr}");
    assert!(stderr.contains("a count is a whole number"), "{stderr}");
    assert!(!stderr.contains("untagged enum"), "{stderr}");
}

#[test]
fn composites_combine_value_objects_inside_output_and_param() {
    assert_eq!(
        ops("{ output: { any: [{ dim: { 0: 64 } }, { rank: 3 }] } }"),
        ["tall", "cube"]
    );
    assert_eq!(
        ops("{ output: { rank: 2, not: { dim: { 0: { equals: dim.1 } } } } }"),
        ["tall"]
    );
    assert_eq!(
        ops("{ param: { x: { all: [{ rank: 2 }, { last-dim: 3 }], capture: $X } } }"),
        ["square", "cube"]
    );
    // A capture inside `all:` binds; inside `any:` / `not:` it is refused where it is written.
    let r = rule("{ op: relu, output: { all: [{ capture: $Y }] } }");
    assert_eq!(r.rules().len(), 1);
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  output:\n    any:\n      - { rank: 2, capture: $Y }\n      - { rank: 3 }\nmessage: m\n";
    let (msg, labels) = refused(body);
    assert!(
        msg.contains("`$Y` is captured inside `any:`: capture the value beside `any:` instead"),
        "{msg}"
    );
    assert_eq!(labels.len(), 1, "{labels:?}");
}

#[test]
fn entity_text_takes_a_regex() {
    let model = snippet_model("t.mil", SHAPES).expect("parses");
    let mut entities = model_entities(&model);
    let feature = |ty: &str| {
        coreml_lint::analysis::entity::Entity::new(
            coreml_lint::analysis::registry::entity_kind("description-feature")
                .expect("registered"),
        )
        .with("role", "output")
        .with("program-type", ty)
    };
    entities.entities = vec![
        feature("tensor<fp16, [1, ?]>"),
        feature("tensor<fp32, [1, 8]>"),
    ];
    let r = rule("{ kind: description-feature, program-type: { regex: \"^tensor<fp16, \" } }");
    assert_eq!(match_model(&model, &r, &entities).len(), 1);
    let r = rule("{ kind: description-feature, not: { program-type: { regex: \"\\\\?\" } } }");
    assert_eq!(match_model(&model, &r, &entities).len(), 1);
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  kind: description-feature\n  role: { regex: \"kv_(\" }\nmessage: m\n";
    let (msg, _) = refused(body);
    assert!(msg.contains("`kv_(` is not a regular expression"), "{msg}");
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  kind: description-feature\n  rank: { regex: \"1\" }\nmessage: m\n";
    let (msg, _) = refused(body);
    assert!(
        msg.contains("`regex:` stands alone, on a text property"),
        "{msg}"
    );
}

#[test]
fn an_unbound_capture_is_said_once_per_template() {
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\nmessage: \"`{Y}` is {Y.shape}\"\nhelp: \"see {Y}\"\n";
    let (msg, labels) = refused(body);
    let said = |key: &str| {
        labels
            .iter()
            .filter(|(t, at)| t.contains("`{Y}` is not bound") && *at == body.find(key).unwrap())
            .count()
    };
    assert_eq!((said("message"), said("help")), (1, 1), "{msg} {labels:?}");
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { kind: description-feature }\nmessage: \"{F.name} {F.type}\"\n";
    let (msg, labels) = refused(body);
    assert_eq!(labels.len(), 1, "{msg} {labels:?}");
}
