//! The rule language's reach, continued (issue 42): comparisons between captures (`compare:`),
//! `name:` in one predicate language (the op, a value, an entity), entity rules that use `utils:`
//! fragments, and `help-when:` entries that choose an entity rule's help by the entity.

use crate::rule_reach::refused;
use coreml_lint::analysis::entity::Entity;
use coreml_lint::lint::model_entities;
use coreml_lint::rules::testing::snippet_model;
use coreml_lint::rules::{load_rule_text, match_model, RuleSet};

/// Gathers from a [4, 3] table along axis 0, with constant indices that stay in it and that leave
/// it.
const GATHERS: &str = r#"program(1.0)
{
    func main<ios17>(tensor<fp16, [4, 3]> x) {
            tensor<int32, [2]> inside = const()[name = string("inside"), val = tensor<int32, [2]>([0, 3])];
            tensor<int32, [2]> past = const()[name = string("past"), val = tensor<int32, [2]>([1, 4])];
            tensor<fp16, [2, 3]> kv_ok = gather(x = x, indices = inside, axis = int32(0), batch_dims = int32(0), validate_indices = bool(false))[name = string("kv_ok")];
            tensor<fp16, [2, 3]> kv_past = gather(x = x, indices = past, axis = int32(0), batch_dims = int32(0), validate_indices = bool(false))[name = string("kv_past")];
            tensor<fp16, [2, 3]> y = add(x = kv_ok, y = kv_past)[name = string("y")];
        } -> (y);
}"#;

fn load(body: &str) -> RuleSet {
    match load_rule_text("r.yaml", body, Some("r"), false) {
        Ok(r) => RuleSet::from_rules(vec![r]).expect("one rule"),
        Err(e) => panic!("{body}: {:?}", miette::Report::new(e)),
    }
}

fn rule(matcher: &str) -> String {
    format!("id: r\ntitle: t\nseverity: info\nmatch:\n{matcher}message: m\n")
}

fn ops_of(mil: &str, body: &str) -> Vec<String> {
    let model = snippet_model("t.mil", mil).expect("parses");
    match_model(&model, &load(body), &model_entities(&model))
        .into_iter()
        .filter_map(|f| f.op)
        .collect()
}

#[test]
fn compare_reads_another_captures_numbers() {
    let past = rule(
        "  op: gather\n  param:\n    x: { capture: $X }\n    indices: { capture: $I }\n  compare:\n    $I.value.max: { min: $X.dim.0 }\n",
    );
    assert_eq!(ops_of(GATHERS, &past), ["kv_past"]);
    // The same comparison the other way, and with a number beside it.
    let inside = rule(
        "  op: gather\n  param:\n    x: { capture: $X }\n    indices: { capture: $I }\n  compare:\n    $I.value.max: { below: $X.dim.0, min: 3 }\n",
    );
    assert_eq!(ops_of(GATHERS, &inside), ["kv_ok"]);
    // A captured op stands for its first output; several keys must all hold.
    let both = rule(
        "  op: gather\n  capture: $G\n  param:\n    x: { capture: $X }\n  compare:\n    $G.dim.1: { equals: $X.dim.-1 }\n    $G.rank: 2\n",
    );
    assert_eq!(ops_of(GATHERS, &both), ["kv_ok", "kv_past"]);
    // A captured op's value is its first output's: a constant's elements, known.
    let const_op = rule(
        "  op: const\n  capture: $C\n  name: \"^(inside|past)$\"\n  compare:\n    $C.value.max: { min: 4 }\n",
    );
    assert_eq!(ops_of(GATHERS, &const_op), ["past"]);
    // An unknown number (an input's constant value) never compares.
    let unknown = rule(
        "  op: gather\n  param:\n    x: { capture: $X }\n    indices: { capture: $I }\n  compare:\n    $X.value.max: { min: 0 }\n",
    );
    assert!(ops_of(GATHERS, &unknown).is_empty());
}

#[test]
fn compare_names_only_captures_every_match_binds_at_the_top() {
    let body = rule("  op: gather\n  param:\n    x: { capture: $X }\n  compare:\n    $Y.rank: 2\n");
    let (msg, labels) = refused(&body);
    assert!(
        msg.contains("`$Y` is not a capture every match binds (known: $X)"),
        "{msg}"
    );
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert_eq!(labels[0].1, body.find("$Y.rank").unwrap(), "at the key");
    let body =
        rule("  op: gather\n  param:\n    x: { capture: $X }\n  compare:\n    $X.width: 2\n");
    let (msg, _) = refused(&body);
    assert!(msg.contains("name a number of `$X` after the dot"), "{msg}");
    assert!(msg.contains("`dim.<axis>`"), "{msg}");
    let body = rule("  op: gather\n  param:\n    x: { capture: $X }\n  compare:\n    $X.rank: { min: $X.height }\n");
    let (msg, labels) = refused(&body);
    assert!(msg.contains("`$X.height`: name a number"), "{msg}");
    assert_eq!(labels.len(), 1, "once: {labels:?}");
    let body = rule("  op: gather\n  any:\n    - param: { x: { capture: $X } }\n      compare: { $X.rank: 2 }\n");
    let (msg, _) = refused(&body);
    assert!(
        msg.contains("`compare:` goes at the top of `match`"),
        "{msg}"
    );
    // A capture's number in a value's count says where such comparisons go.
    let body = rule("  op: gather\n  param:\n    x: { capture: $X }\n    indices: { dim: { 0: { below: $X.dim.0 } } }\n");
    let (msg, _) = refused(&body);
    assert!(
        msg.contains("compare captures' numbers under `compare:`"),
        "{msg}"
    );
}

#[test]
fn name_takes_the_text_forms_at_the_op_in_a_value_and_in_utils() {
    for name in ["\"^kv_p\"", "{ regex: \"^kv_p\" }"] {
        let body = rule(&format!("  op: gather\n  name: {name}\n"));
        assert_eq!(ops_of(GATHERS, &body), ["kv_past"], "{name}");
    }
    // A value's name (a parameter's binding).
    let body = rule("  op: gather\n  param: { indices: { name: { regex: \"^ins\" } } }\n");
    assert_eq!(ops_of(GATHERS, &body), ["kv_ok"]);
    let body = format!(
        "{}utils:\n  reads-kv: {{ param: {{ '*': {{ name: \"^kv_\" }} }} }}\n",
        rule("  op: add\n  matches: reads-kv\n")
    );
    assert_eq!(ops_of(GATHERS, &body), ["y"]);
    let body = rule("  op: gather\n  name: { regex: \"kv_(\" }\n");
    let (msg, _) = refused(&body);
    assert!(msg.contains("bad regular expression"), "{msg}");
    let body = rule("  op: gather\n  name: { regexp: \"kv\" }\n");
    let (msg, labels) = refused(&body);
    assert!(
        msg.contains("`name:` takes a regular expression in quotes"),
        "{msg}"
    );
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert_eq!(labels[0].1, body.find("name").unwrap(), "at `name`");
    let body = rule("  op: gather\n  fed-by: { op: const, stop-by: 3 }\n");
    let (msg, labels) = refused(&body);
    assert!(msg.contains("`neighbor`, `end` or a rule object"), "{msg}");
    assert_eq!(labels[0].1, body.find("stop-by").unwrap(), "at `stop-by`");
}

fn features() -> Vec<Entity> {
    let feature = |name: &str, metadata: bool| {
        Entity::new(
            coreml_lint::analysis::registry::entity_kind("description-feature")
                .expect("registered"),
        )
        .with("role", "output")
        .with("name", name)
        .with("from-metadata", metadata)
    };
    vec![feature("logits", false), feature("kv_out", true)]
}

/// The messages of an entity rule's findings on [`features`].
fn entity_messages(body: &str) -> Vec<String> {
    entity_findings(body)
        .into_iter()
        .map(|f| f.message)
        .collect()
}

fn entity_findings(body: &str) -> Vec<coreml_lint::finding::Finding> {
    let model = snippet_model("t.mil", GATHERS).expect("parses");
    let mut entities = model_entities(&model);
    entities.entities = features();
    match_model(&model, &load(body), &entities)
}

#[test]
fn an_entity_name_takes_a_word_or_a_regex() {
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { kind: description-feature, capture: $F, name: { regex: \"^kv_\" } }\nmessage: \"{F.name}\"\n";
    assert_eq!(entity_messages(body), ["kv_out"]);
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { kind: description-feature, capture: $F, name: logits }\nmessage: \"{F.name}\"\n";
    assert_eq!(entity_messages(body), ["logits"]);
    // A kind without a `name` property says so.
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { kind: weights, name: x }\nmessage: m\n";
    let (msg, _) = refused(body);
    assert!(
        msg.contains("`name` is not a property of `weights` entities"),
        "{msg}"
    );
}

#[test]
fn entity_rules_use_utils_fragments() {
    let body = "id: r\ntitle: t\nseverity: info\nutils:\n  compiled: { from-metadata: true }\n  compiled-kv: { matches: compiled, name: { regex: \"^kv\" } }\nmatch: { kind: description-feature, capture: $F, matches: compiled-kv }\nmessage: \"{F.name}\"\n";
    assert_eq!(entity_messages(body), ["kv_out"]);
    let body = "id: r\ntitle: t\nseverity: info\nutils:\n  compiled: { not: { matches: compiled } }\nmatch: { kind: description-feature, matches: compiled }\nmessage: m\n";
    let (msg, _) = refused(body);
    assert!(msg.contains("fragment `compiled` uses itself"), "{msg}");
    let body = "id: r\ntitle: t\nseverity: info\nutils:\n  compiled: { from-metadata: true }\nmatch: { kind: description-feature, matches: compild }\nmessage: m\n";
    let (msg, _) = refused(body);
    assert!(
        msg.contains("no match fragment `compild`; did you mean `compiled`?"),
        "{msg}"
    );
    // The shared weight fragments select weight references only.
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { kind: description-feature, matches: weight-record-in-file }\nmessage: m\n";
    let (_, labels) = refused(body);
    assert!(
        labels.iter().any(|(l, _)| l
            .contains("`file-readable` is not a property of `description-feature` entities")),
        "{labels:?}"
    );
}

#[test]
fn help_when_chooses_an_entity_rules_help_by_the_entity() {
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { kind: description-feature, capture: $F }\nmessage: \"{F.name}\"\nhelp: \"edit {F.name}\"\nhelp-when:\n  - match: { from-metadata: true }\n    help: \"recompile {F.name}\"\n";
    let helps: Vec<(String, Option<String>)> = entity_findings(body)
        .into_iter()
        .map(|f| (f.message, f.help))
        .collect();
    assert_eq!(
        helps,
        [
            ("kv_out".to_string(), Some("recompile kv_out".to_string())),
            ("logits".to_string(), Some("edit logits".to_string())),
        ]
    );
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { kind: description-feature }\nmessage: m\nhelp: h\nhelp-when:\n  - match: { op: relu }\n    help: x\n";
    let (msg, labels) = refused(body);
    assert!(
        msg.contains("`op:` applies to the ops and inputs of a function, not to `description-feature` entities"),
        "{msg}"
    );
    assert_eq!(labels[0].1, body.rfind("op").unwrap(), "{labels:?}");
}

#[test]
fn flexibility_of_a_static_value_names_its_one_shape() {
    let model = snippet_model("t.mil", GATHERS).expect("parses");
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { op: add, output: { capture: $Y } }\nmessage: \"{Y.flexibility}\"\n";
    let messages: Vec<String> = match_model(&model, &load(body), &model_entities(&model))
        .into_iter()
        .map(|f| f.message)
        .collect();
    assert_eq!(messages, ["the one shape [2, 3]"]);
    let dynamic = GATHERS.replace("tensor<fp16, [2, 3]> y", "tensor<fp16, [?, 3]> y");
    let model = snippet_model("t.mil", &dynamic).expect("parses");
    let messages: Vec<String> = match_model(&model, &load(body), &model_entities(&model))
        .into_iter()
        .map(|f| f.message)
        .collect();
    assert_eq!(messages, ["unknown dimensions in the program"]);
}

#[test]
fn a_value_of_the_wrong_form_says_what_its_key_takes_at_the_key() {
    for (written, key, says) in [
        ("output: { dtype: 3 }", "dtype", "a word or a list of words"),
        (
            "attr: { axis: { value: { equals: { a: 1 } } } }",
            "value",
            "a boolean, a number, a text in quotes, or a list of them",
        ),
        (
            "output: { dynamic: \"yes\" }",
            "dynamic",
            "expected a boolean",
        ),
        (
            "output: { rank: \"two\" }",
            "rank",
            "is not a count: a count is a whole number",
        ),
        (
            "output: { dim: { 0: { same-as: dim.1 } } }",
            "dim",
            "write `same-as: dim.1` as `equals: dim.1`",
        ),
    ] {
        let body = rule(&format!("  op: relu\n  {written}\n"));
        let (msg, labels) = refused(&body);
        assert!(msg.contains(says), "{written}: {msg}");
        assert!(!msg.contains("untagged enum"), "{written}: {msg}");
        assert_eq!(labels.len(), 1, "{written}: once: {labels:?}");
        assert_eq!(
            labels[0].1,
            body.find(&format!("{key}:")).unwrap(),
            "{written}: at `{key}`"
        );
    }
}

/// The `blob-*` rules' matches as written before they shared `utils:` fragments: rules written so
/// still load, and select what the built-in rules select now.
const OLD_BLOB_RULES: &[(&str, &str)] = &[
    (
        "blob-bad-sentinel",
        "  file-readable: true\n  record-end: { max: file-length }\n  offset: { multiple-of: 64 }\n  not: { sentinel: \"0xDEADBEEF\" }\n",
    ),
    (
        "blob-dtype-mismatch",
        "  file-readable: true\n  record-end: { max: file-length }\n  offset: { multiple-of: 64 }\n  sentinel: \"0xDEADBEEF\"\n  tensor: true\n  not: { declared-storage-code: { same-as: storage-code } }\n",
    ),
    (
        "blob-misaligned",
        "  file-readable: true\n  record-end: { max: file-length }\n  any:\n    - offset: { not-multiple-of: 64 }\n    - sentinel: \"0xDEADBEEF\"\n      tensor: true\n      declared-storage-code: { same-as: storage-code }\n      payload-end: { max: file-length }\n      payload-offset: { min: record-end, not-multiple-of: 64 }\n",
    ),
    (
        "blob-out-of-bounds",
        "  file-readable: true\n  any:\n    - record-end: { above: file-length }\n    - record-end: { max: file-length }\n      offset: { multiple-of: 64 }\n      sentinel: \"0xDEADBEEF\"\n      tensor: true\n      declared-storage-code: { same-as: storage-code }\n      any:\n        - payload-end: { above: file-length }\n        - payload-offset: { below: record-end }\n",
    ),
    (
        "blob-size-mismatch",
        "  file-readable: true\n  record-end: { max: file-length }\n  offset: { multiple-of: 64 }\n  sentinel: \"0xDEADBEEF\"\n  tensor: true\n  declared-storage-code: { same-as: storage-code }\n  payload-end: { max: file-length }\n  payload-offset: { min: record-end, multiple-of: 64 }\n  dtype-bits: { min: 1 }\n  any:\n    - payload-size: 0\n    - shape-known: true\n      not: { payload-size: { same-as: expected-size } }\n    - dtype-bits: { below: 8 }\n      payload-size: { same-as: expected-size }\n      not: { padding-bits: { same-as: expected-padding-bits } }\n",
    ),
];

#[test]
fn blob_rules_written_without_fragments_load_and_select_the_same() {
    let dir = tempfile::tempdir().unwrap();
    for (id, body) in OLD_BLOB_RULES {
        let text = format!(
            "id: old-{id}\ntitle: t\nseverity: error\nmatch:\n  kind: weight\n  capture: $W\n{body}message: \"`{{OP}}` {{W.offset}} {{W.file}}\"\n"
        );
        std::fs::write(dir.path().join(format!("old-{id}.yaml")), text).unwrap();
    }
    let out = assert_cmd::Command::cargo_bin("coreml-lint")
        .unwrap()
        .args(["check", "--output-format", "json", "--rules"])
        .arg(dir.path())
        .arg(crate::common::corpus().join("facts"))
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    let at = |rule: &str| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == rule)
            .map(|d| (d["path"].to_string(), d["op"].to_string()))
            .collect();
        v.sort();
        v
    };
    for (id, _) in OLD_BLOB_RULES {
        let now = at(id);
        assert!(!now.is_empty(), "{id} reports on corpus/facts");
        assert_eq!(at(&format!("old-{id}")), now, "{id}");
    }
}

/// A rule written for the `signature-difference` entities (gone: the description's features are
/// entities of their own) is told what replaced them, at the kind.
#[test]
fn a_rule_on_the_gone_signature_difference_is_told_what_replaced_it() {
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { kind: signature-difference, capture: $D }\nmessage: \"{D.detail}\"\n";
    let (msg, labels) = refused(body);
    assert!(
        msg.contains("`signature-difference` is gone")
            && msg.contains("`description-feature`")
            && msg.contains("`description-function`"),
        "{msg}"
    );
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert_eq!(labels[0].1, body.find("kind").unwrap());
}
