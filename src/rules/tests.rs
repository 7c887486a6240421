//! Engine, loader and runner tests over text-MIL snippets.

use std::path::PathBuf;

use super::testing::snippet_model;
use super::*;
use crate::analysis::registry::ModelEntities;
use crate::finding::{Applicability, Finding, Severity};

/// A decode step over `kv_cache [4, 2, rows, 32]` writing `[0, 256)` on axis 2.
fn decode(rows: u64) -> String {
    format!(
        r#"program(1.3)
{{
    func main<ios18>(state<tensor<fp16, [4, 2, {rows}, 32]>> kv_cache, tensor<fp16, [4, 2, 256, 32]> u) {{
            tensor<int32, [4]> b = const()[name = string("b"), val = tensor<int32, [4]>([0, 0, 0, 0])];
            tensor<int32, [4]> e = const()[name = string("e"), val = tensor<int32, [4]>([4, 2, 256, 32])];
            tensor<fp16, [4, 2, {rows}, 32]> old = read_state(input = kv_cache)[name = string("old")];
            tensor<fp16, [4, 2, {rows}, 32]> new = slice_update(begin = b, end = e, update = u, x = old)[name = string("new")];
            write_state(data = new, input = kv_cache)[name = string("kv_write")];
        }} -> ();
}}"#
    )
}

fn builtin() -> RuleSet {
    match RuleSet::builtin() {
        Ok(r) => r,
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    }
}

fn only(rules: &RuleSet, id: &str) -> RuleSet {
    let mut r = rules.clone();
    r.retain(|x| x.id == id);
    assert_eq!(r.rules().len(), 1, "rule {id} exists");
    r
}

fn check(mil: &str, rules: &RuleSet) -> Vec<Finding> {
    let model = snippet_model("test.mil", mil).expect("snippet parses");
    match_model(&model, rules, &ModelEntities::default())
}

#[test]
fn full_extent_finding_says_what_to_do() {
    let rules = only(&builtin(), "state-full-extent-write");
    let mil = decode(256);
    let findings = check(&mil, &rules);
    let [f] = findings.as_slice() else {
        panic!("one finding expected, got {findings:?}")
    };
    assert_eq!(f.rule, "state-full-extent-write");
    assert_eq!(f.function.as_deref(), Some("main"));
    assert_eq!(f.op.as_deref(), Some("kv_write"));
    assert_eq!(f.state.as_deref(), Some("kv_cache"));
    assert!(
        f.message
            .contains("`kv_write` writes the whole of state `kv_cache` [4, 2, 256, 32]"),
        "{}",
        f.message
    );
    let help = f.help.as_deref().unwrap_or_default();
    assert!(
        help.contains(
            "allocate `kv_cache` as [4, 2, 257, 32] (one more row on axis 2) and keep every window"
        ),
        "{help}"
    );
    assert!(help.chars().count() <= 300, "{help}");
    // The layout and the evidence are in the rule's `why` (`coreml-lint rule ID`), not the help.
    let why = &rules.rules()[0].info().why;
    assert!(why.contains("`[0, N)` of an `N + 1`-row state"), "{why}");
    assert!(why.contains("coreml-lint check --fix"));
    assert!(why.contains("E5RT"));
    assert!(why.contains("MLComputePlan"));
    let fix = f.fix.as_ref().expect("pad-state offered");
    assert_eq!(fix.kind, "pad-state");
    assert_eq!(fix.applicability, Applicability::Safe);
    assert!(fix.title.contains("[4, 2, 257, 32]"), "{}", fix.title);
    // Primary span on the write; labels on the read and the slice_update.
    let span = f.span.expect("span");
    assert!(mil[span.start..span.end()].starts_with("write_state("));
    let labelled: Vec<&str> = f
        .labels
        .iter()
        .map(|l| {
            mil[l.span.start..l.span.end()]
                .split('=')
                .nth(1)
                .unwrap_or("")
                .trim()
        })
        .collect();
    assert!(
        labelled.iter().any(|t| t.starts_with("read_state(")),
        "{labelled:?}"
    );
    assert!(
        labelled.iter().any(|t| t.starts_with("slice_update(")),
        "{labelled:?}"
    );
    assert_eq!(f.order, Some(4));

    assert!(check(&decode(257), &rules).is_empty());
}

#[test]
fn blend_fix_is_offered_only_for_a_whole_state_write() {
    let rules = only(&builtin(), "state-blend-rmw");
    let test = |i: usize| {
        let rule = rules.get("state-blend-rmw").expect("rule");
        let case = rule.tests().invalid.get(i).expect("case");
        check(case.mil.as_deref().expect("a mil case"), &rules)
    };
    let whole = test(0);
    assert_eq!(whole.len(), 1);
    assert_eq!(
        whole[0].fix.as_ref().map(|f| f.applicability),
        Some(Applicability::Safe),
        "the rewrite into [0, N) of the padded state is exact"
    );
    assert!(whole[0].fix.as_ref().is_some_and(|f| f.plan.is_some()));
    // `keep = 1 - mask` does not read the state; `old * keep` and the `add` do.
    assert!(
        whole[0].message.contains("(`kept` (mul), `new` (add))"),
        "{}",
        whole[0].message
    );
    let padded = test(1);
    assert_eq!(padded.len(), 1);
    assert!(padded[0].fix.is_none(), "already padded: no pad offered");
}

fn write_rule(dir: &std::path::Path, id: &str, body: &str) -> PathBuf {
    let p = dir.join(format!("{id}.yaml"));
    std::fs::write(&p, body).expect("temp dir is writable");
    p
}

const LSTM_RULE: &str = r#"id: no-lstm
title: No LSTM
severity: warning
match:
  op: lstm
  output: { capture: $Y }
message: "`{OP}` is an lstm producing `{Y}` {Y.shape} in `{FUNCTION}`"
tests:
  valid:
    - mil: |
        program(1.3)
        {
            func main<ios18>(tensor<fp16, [1, 4]> x) {
                    tensor<fp16, [1, 4]> y = relu(x = x)[name = string("y")];
                } -> (y);
        }
  invalid:
    - mil: |
        program(1.3)
        {
            func main<ios18>(tensor<fp16, [1, 4]> x) {
                    tensor<fp16, [1, 4]> y = lstm(x = x)[name = string("l")];
                } -> (y);
        }
      expect: [{ op: l }]
"#;

#[test]
fn a_user_rule_in_yaml_only_works_end_to_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_rule(dir.path(), "no-lstm", LSTM_RULE);
    let rules = RuleSet::load(&[dir.path().to_path_buf()]).expect("loads");
    assert!(rules.get("no-lstm").is_some());
    assert!(rules.get("state-full-extent-write").is_some());
    let user = RuleSet::load_dirs_only(&[dir.path().to_path_buf()]).expect("loads");
    let report = run_rule_tests(&user);
    assert!(report.passed(), "{report}");
    assert_eq!(report.count(CaseStatus::Reported), 1);
    let rule = user.get("no-lstm").expect("rule");
    let findings = check(
        rule.tests().invalid[0].mil.as_deref().expect("a mil case"),
        &user,
    );
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].message,
        "`l` is an lstm producing `y` [1, 4] in `main`"
    );
    assert_eq!(findings[0].state, None);
}

#[test]
fn a_rule_folder_loads_the_same_through_the_cache_of_parses() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_rule(dir.path(), "no-lstm", LSTM_RULE);
    write_rule(dir.path(), "redirects", "old-no-lstm: no-lstm\n");
    let cache = tempfile::tempdir().expect("tempdir");
    let dirs = [dir.path().to_path_buf()];
    let shown = |set: &RuleSet| {
        let rule = set.get("no-lstm").expect("the rule");
        (
            format!("{:?}", rule.info()),
            format!("{:?}", rule.tests()),
            format!("{:?}", rule.target),
            set.resolve("old-no-lstm").to_string(),
        )
    };
    let uncached = shown(&RuleSet::load(&dirs).expect("loads"));
    let cached = CacheDir::Dir(cache.path().to_path_buf());
    let first = shown(&RuleSet::load_cached(&dirs, &cached).expect("loads"));
    let file = std::fs::read_dir(cache.path())
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with("rule-parses-"))
        .expect("the cache file");
    let written = std::fs::metadata(file.path()).unwrap().len();
    let second = shown(&RuleSet::load_cached(&dirs, &cached).expect("loads"));
    assert_eq!(first, uncached);
    assert_eq!(second, uncached);
    // The rule and the redirects were kept; the second load, all read from the file, wrote
    // nothing new.
    assert!(written > LSTM_RULE.len() as u64);
    assert_eq!(std::fs::metadata(file.path()).unwrap().len(), written);
}

#[test]
fn runner_reports_missing_noisy_and_broken_cases() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The tests are swapped: the valid case fires, the invalid one does not.
    let swapped = LSTM_RULE
        .replace("relu(x = x)", "TMP(x = x)")
        .replace("lstm(x = x)", "relu(x = x)")
        .replace("TMP(x = x)", "lstm(x = x)");
    write_rule(dir.path(), "no-lstm", &swapped);
    let bad_snippet = LSTM_RULE
        .replace("id: no-lstm", "id: broken")
        .replace("program(1.3)", "progrm(1.3)");
    write_rule(dir.path(), "broken", &bad_snippet);
    let rules = RuleSet::load_dirs_only(&[dir.path().to_path_buf()]).expect("loads");
    let report = run_rule_tests(&rules);
    let status = |rule: &str, kind: CaseKind| {
        report
            .cases
            .iter()
            .find(|c| c.rule == rule && c.kind == kind)
            .map(|c| c.status)
    };
    assert_eq!(status("no-lstm", CaseKind::Valid), Some(CaseStatus::Noisy));
    assert_eq!(
        status("no-lstm", CaseKind::Invalid),
        Some(CaseStatus::Missing)
    );
    assert_eq!(status("broken", CaseKind::Valid), Some(CaseStatus::Error));
    assert!(!report.passed());
}

#[test]
fn extra_findings_in_an_invalid_case_are_noisy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let two = LSTM_RULE.replace(
        "                    tensor<fp16, [1, 4]> y = lstm(x = x)[name = string(\"l\")];",
        "                    tensor<fp16, [1, 4]> z = lstm(x = x)[name = string(\"l\")];\n                    tensor<fp16, [1, 4]> y = lstm(x = z)[name = string(\"l2\")];",
    );
    assert_ne!(two, LSTM_RULE);
    write_rule(dir.path(), "no-lstm", &two);
    let rules = RuleSet::load_dirs_only(&[dir.path().to_path_buf()]).expect("loads");
    let report = run_rule_tests(&rules);
    let inv = report
        .cases
        .iter()
        .find(|c| c.kind == CaseKind::Invalid)
        .expect("invalid case");
    assert_eq!(inv.status, CaseStatus::Noisy, "{}", inv.detail);
}

fn load_error(id: &str, body: &str) -> (String, Vec<(String, usize)>) {
    match load_rule_text(&format!("{id}.yaml"), body, Some(id), false) {
        Ok(_) => panic!("rule {id} should not load"),
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

/// A parser's error says what a rule file holds, not our type names, and leaves the place to its
/// label (which points at the key when the error names one).
#[test]
fn parse_errors_name_no_internal_type_and_leave_the_place_to_the_label() {
    let body =
        "id: r\ntitle: t\nseverity: warning\nmatch:\n  op: softmax\n  inside: 7\nmessage: m\n";
    let (msg, labels) = load_error("r", body);
    assert_eq!(
        msg,
        "match.inside: invalid type: integer `7`, expected a rule object (a map of keys)"
    );
    assert_eq!(labels[0].1, body.find('7').expect("value"));
    // A form's error is labelled at its key, not at the line serde stopped at.
    let body = "id: r\ntitle: t\nseverity: warning\nmatch:\n  op: softmax\n  name: { regex: 5 }\nmessage: m\n";
    let (msg, labels) = load_error("r", body);
    assert!(!msg.contains(" at line "), "{msg}");
    assert!(msg.contains("`name:` takes a regular expression"), "{msg}");
    assert_eq!(labels[0].1, body.find("name").expect("key"));
}

const BASE: &str = "id: r\ntitle: t\nseverity: warning\nmatch:\n  state-write:\n    state: $S\n    full: true\nmessage: \"MSG\"\n";

#[test]
fn unbound_placeholders_fail_at_load_with_a_label_on_the_key() {
    let body = BASE.replace("MSG", "{W} of {S}");
    let (msg, labels) = load_error("r", &body);
    assert!(msg.contains("`{W}` is not bound"), "{msg}");
    assert_eq!(labels.len(), 1);
    assert_eq!(labels[0].1, body.find("message").expect("key"));
}

#[test]
fn unknown_accessors_fail_at_load() {
    let body = BASE.replace("MSG", "{S.nope}");
    let (msg, _) = load_error("r", &body);
    assert!(msg.contains("unknown accessor"), "{msg}");
    assert!(
        msg.contains("S.padded_shape"),
        "lists the known ones: {msg}"
    );
}

#[test]
fn unknown_keys_and_bad_yaml_are_located() {
    let body = BASE.replace("    full: true\n", "    full: true\n    fulll: true\n");
    let (msg, labels) = load_error("r", &body);
    assert!(msg.contains("fulll"), "{msg}");
    let at = labels[0].1;
    let line = body[..at].matches('\n').count() + 1;
    assert_eq!(line, 8, "label on the unknown key's line: {msg}");

    let (msg, labels) = load_error("r", "id: r\nmatch: [\n");
    assert!(!msg.is_empty());
    assert!(labels[0].1 > 0);
}

#[test]
fn semantic_errors_are_collected_and_located() {
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  not:\n    op: relu\nmessage: \"{X}\"\nfix: frobnicate\n";
    let (msg, labels) = load_error("r", body);
    assert!(msg.contains("3 problems"), "{msg}");
    let texts: Vec<&str> = labels.iter().map(|(t, _)| t.as_str()).collect();
    assert!(
        texts.iter().any(|t| t.contains("positive matcher")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("`{X}` is not bound")),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("frobnicate")), "{texts:?}");
    let fix_label = labels
        .iter()
        .find(|(t, _)| t.contains("frobnicate"))
        .expect("fix label");
    assert_eq!(fix_label.1, body.find("fix").expect("key"));

    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  function:\n    opset: macos14\nmessage: m\n";
    let (msg, labels) = load_error("r", body);
    assert!(msg.contains("unknown opset `macos14`"), "{msg}");
    assert_eq!(labels[0].1, body.find("opset").expect("key"));
}

/// The keys of a value, a state write, a function, the model, the target, the peers and the op
/// are properties of that entity: a misspelt one is an error at its key, naming the entity and the
/// closest property; a property of the wrong form is one too.
#[test]
fn misspelt_properties_name_their_entity_and_the_closest_property() {
    for (object, key, says) in [
        (
            "output:
    dtyp: fp16",
            "dtyp",
            "`dtyp` is not a property of values; did you mean `dtype`?",
        ),
        (
            "param:
    x:
      rnk: 2",
            "rnk",
            "`rnk` is not a property of values; did you mean `rank`?",
        ),
        (
            "state-write:
    ful: true",
            "ful",
            "`ful` is not a property of state writes; did you mean `full`?",
        ),
        (
            "function:
    opst: ios17",
            "opst",
            "`opst` is not a property of functions; did you mean `opset`?",
        ),
        (
            "model:
    spec-verson: 9",
            "spec-verson",
            "`spec-verson` is not a property of models; did you mean `spec-version`?",
        ),
        (
            "target:
    os-befor: ios18",
            "os-befor",
            "`os-befor` is not a property of the deployment target; did you mean `os-before`?",
        ),
        (
            "peers:
    match: { op: relu }
    cont: 2",
            "cont",
            "`cont` is not a property of peers; did you mean `count`?",
        ),
        (
            "axis-dimm: { of: x, axis: axis, size: 2 }",
            "axis-dimm",
            "unknown key `axis-dimm`; did you mean `axis-dim`?",
        ),
        (
            "output:
    rank: many",
            "rank",
            "`\"many\"` is not a count: a count is a whole number, or `{ min, max, above, below, equals, multiple-of, not-multiple-of }`",
        ),
    ] {
        let body = format!(
            "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  {object}\nmessage: m\n"
        );
        let (msg, labels) = load_error("r", &body);
        assert!(
            labels.iter().any(|(t, _)| t.contains(says)),
            "{object}: {msg} {labels:?}"
        );
        let at = labels.iter().find(|(t, _)| t.contains(says)).map(|l| l.1);
        assert_eq!(at, body.find(key), "{object}: the label is at `{key}`");
    }
    // `opset:` is a property of the op, with `op:`.
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  opset: ios17\n  input: { state: true }\nmessage: m\n";
    let (msg, _) = load_error("r", body);
    assert!(msg.contains("goes with `op:`"), "{msg}");
}

#[test]
fn ids_must_match_file_names_and_be_unique() {
    let (msg, _) = load_error("other", &BASE.replace("MSG", "{S}"));
    assert!(msg.contains("file name"), "{msg}");

    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    write_rule(a.path(), "no-lstm", LSTM_RULE);
    write_rule(b.path(), "no-lstm", LSTM_RULE);
    let err = RuleSet::load(&[a.path().to_path_buf(), b.path().to_path_buf()])
        .expect_err("duplicate ids");
    assert!(matches!(err, LoadError::Duplicate { .. }), "{err:?}");
    // a user rule may not take a built-in id either
    let c = tempfile::tempdir().expect("tempdir");
    write_rule(
        c.path(),
        "gather-float-indices",
        &LSTM_RULE.replace("id: no-lstm", "id: gather-float-indices"),
    );
    assert!(RuleSet::load(&[c.path().to_path_buf()]).is_err());
}

#[test]
fn fix_needs_a_state_capture() {
    let body =
        "id: r\ntitle: t\nseverity: info\nmatch:\n  op: relu\nmessage: \"{OP}\"\nfix: pad-state\n";
    let (msg, _) = load_error("r", body);
    assert!(msg.contains("needs the match to capture"), "{msg}");
}

#[test]
fn redirects_resolve_old_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_rule(dir.path(), "no-lstm", LSTM_RULE);
    std::fs::write(dir.path().join("redirects.yaml"), "old-lstm: no-lstm\n").expect("write");
    let rules = RuleSet::load_dirs_only(&[dir.path().to_path_buf()]).expect("loads");
    assert_eq!(
        rules.get("old-lstm").map(|r| r.id.as_str()),
        Some("no-lstm")
    );
}

#[test]
fn unknown_keys_of_node_rules_are_refused_with_the_closest_key() {
    let body = "id: r\ntitle: t\nseverity: error\nmatch: { op: relu, ouptut: { dtype: fp16 } }\nmessage: m\n";
    let (msg, labels) = load_error("r", body);
    assert!(msg.contains("unknown key `ouptut`"), "{msg}");
    assert!(msg.contains("did you mean `output`?"), "{msg}");
    assert_eq!(labels.len(), 1);
    // `fact:` is gone: model-level rules name an entity kind.
    let body = "id: r\ntitle: t\nseverity: error\nmatch: { fact: blob-overlap }\nmessage: m\n";
    let (msg, _) = load_error("r", body);
    assert!(msg.contains("`fact:` is gone"), "{msg}");
}

#[test]
fn relations_walk_producers_and_consumers_with_captures() {
    let body = r#"id: r
title: t
severity: info
match:
  op: write_state
  fed-by:
    op: slice_update
    capture: $SU
    fed-by:
      op: read_state
      capture: $R
      via: x
  feeds:
    op: nothing
    not: { op: nothing }
message: "{SU} {R}"
"#;
    // `feeds` can never match: the whole rule must not fire.
    let rule = load_rule_text("r.yaml", body, None, false).expect("loads");
    let rules = RuleSet::from_rules(vec![rule]).expect("set");
    assert!(check(&decode(256), &rules).is_empty());

    let body = body.replace("  feeds:\n    op: nothing\n    not: { op: nothing }\n", "");
    let rule = load_rule_text("r.yaml", &body, None, false).expect("loads");
    let rules = RuleSet::from_rules(vec![rule]).expect("set");
    let f = check(&decode(256), &rules);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].message, "new old");

    // stop-by: end reaches the read through the slice_update; neighbor does not.
    for (stop, hits) in [("end", 1), ("neighbor", 0)] {
        let body = format!(
            "id: r\ntitle: t\nseverity: info\nmatch:\n  op: write_state\n  fed-by:\n    op: read_state\n    stop-by: {stop}\nmessage: m\n"
        );
        let rule = load_rule_text("r.yaml", &body, None, false).expect("loads");
        let rules = RuleSet::from_rules(vec![rule]).expect("set");
        assert_eq!(check(&decode(256), &rules).len(), hits, "stop-by {stop}");
    }
}

#[test]
fn value_predicates_and_opsets() {
    let rule = |m: &str| {
        let body = format!("id: r\ntitle: t\nseverity: info\nmatch:\n{m}\nmessage: m\n");
        let rule = load_rule_text("r.yaml", &body, None, false)
            .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)));
        RuleSet::from_rules(vec![rule]).expect("set")
    };
    let mil = decode(256);
    let count = |m: &str| check(&mil, &rule(m)).len();
    assert_eq!(
        count("  op: const\n  output: { value: { equals: [4, 2, 256, 32] } }"),
        1
    );
    assert_eq!(
        count("  op: const\n  output: { value: { max: { min: 256 } } }"),
        1
    );
    assert_eq!(
        count("  op: const\n  output: { value: { max: { min: 257 } } }"),
        0
    );
    assert_eq!(count("  op: slice_update\n  opset: { min: ios18 }"), 1);
    assert_eq!(count("  op: slice_update\n  opset: ios17"), 0);
    assert_eq!(count("  input: { state: true, shape: [4, 2, 256, _] }"), 1);
    assert_eq!(
        count("  input: { state: false, last-dim: { multiple-of: 32 } }"),
        1
    );
    assert_eq!(count("  input: { last-dim: { not-multiple-of: 32 } }"), 0);
    assert_eq!(
        count("  op: slice_update\n  param: { begin: { const: true, runtime: false } }"),
        1
    );
    assert_eq!(
        count("  op: slice_update\n  param: { x: { producer: { op: read_state } } }"),
        1
    );
    assert_eq!(count("  name: ^kv_\n  op: write_state"), 1);
    assert_eq!(
        count("  function: { states: 1, max-state-dim: { min: 256 } }\n  op: write_state"),
        1
    );
    assert_eq!(
        count("  any:\n    - op: relu\n    - state-write: { kind: slice-update, partial-axes: 0 }"),
        1
    );
}

#[test]
fn issue_9_shapes_are_expressible() {
    let rule = |m: &str| {
        let body =
            format!("id: r\ntitle: t\nseverity: warning\nmatch:\n{m}\nmessage: \"{{OP}}\"\n");
        let rule = load_rule_text("r.yaml", &body, None, false)
            .unwrap_or_else(|e| panic!("{:?}", miette::Report::new(e)));
        RuleSet::from_rules(vec![rule]).expect("set")
    };
    // state-last-axis-alignment: a state input, reported with its state and no op
    let align = rule("  input: { state: true, last-dim: { not-multiple-of: 32 } }");
    assert!(check(&decode(256), &align).is_empty());
    let mil40 = decode(256).replace("32]>> kv_cache", "40]>> kv_cache");
    let f = check(&mil40, &align);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].state.as_deref(), Some("kv_cache"));
    assert_eq!(f[0].op, None);
    assert_eq!(f[0].message, "kv_cache");
    // dynamic-shape-with-state: a flexible non-state input in a function with a state
    let dynamic =
        rule("  input: { state: false, dynamic: true }\n  function: { states: { min: 1 } }");
    assert!(check(&decode(256), &dynamic).is_empty());
    let flex = decode(256).replace(
        "tensor<fp16, [4, 2, 256, 32]> u)",
        "tensor<fp16, [4, 2, 256, 32]> u, tensor<fp16, [1, ?]> t)",
    );
    assert_eq!(check(&flex, &dynamic).len(), 1);
    // tensor-rank / fp32-compute: non-const ops by output
    let rank = rule("  output: { rank: { min: 4 } }\n  not: { op: const }");
    let names: Vec<Option<String>> = check(&decode(256), &rank)
        .into_iter()
        .map(|f| f.op)
        .collect();
    assert_eq!(
        names,
        vec![Some("old".to_string()), Some("new".to_string())]
    );
    // opset-too-old-for-states
    let old = rule("  input: { state: true }\n  function: { opset: { max: ios17 } }");
    assert!(check(&decode(256), &old).is_empty());
    assert_eq!(
        check(&decode(256).replace("main<ios18>", "main<ios17>"), &old).len(),
        1
    );
}

// ---- primitives added for the ANE-readiness rules (issue 9) ----

fn user_rule(yaml: &str) -> RuleSet {
    match load_rule_text("t.yaml", yaml, None, false) {
        Ok(r) => RuleSet::from_rules(vec![r]).expect("one rule"),
        Err(e) => panic!("{:?}", miette::Report::new(e)),
    }
}

const RANKS: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 4, 8, 8]> x) {
            tensor<int32, [6]> s6 = const()[name = string("s6"), val = tensor<int32, [6]>([1, 2, 2, 4, 8, 2])];
            tensor<fp16, [1, 2, 2, 4, 8, 2]> r6 = reshape(shape = s6, x = x)[name = string("r6")];
            tensor<int32, [5]> s5 = const()[name = string("s5"), val = tensor<int32, [5]>([1, 4, 4, 8, 2])];
            tensor<fp16, [1, 4, 4, 8, 2]> r5 = reshape(shape = s5, x = r6)[name = string("r5")];
            tensor<fp16, [1, 4, 4, 8, 2]> y = add(x = r5, y = fp16(nan))[name = string("y")];
        } -> (y);
}"#;

#[test]
fn severity_when_picks_the_first_matching_severity() {
    let rules = only(&builtin(), "tensor-rank");
    let findings = check(RANKS, &rules);
    let sev: Vec<(Option<&str>, Severity)> = findings
        .iter()
        .map(|f| (f.op.as_deref(), f.severity))
        .collect();
    // r6, r5 and y are one region (`origin:`), reported at r6; rank 6 makes it an error.
    assert_eq!(sev, vec![(Some("r6"), Severity::Error)]);
    let rule = rules.rules()[0].info();
    assert_eq!(rule.default_severity, Some(Severity::Warning));
}

#[test]
fn severity_when_is_refused_on_entity_rules() {
    let err = load_rule_text(
        "t.yaml",
        "id: t\ntitle: t\nseverity: error\nmatch: { kind: description-feature }\nmessage: m\nseverity-when:\n  - severity: warning\n    match: { op: relu }\n",
        None,
        false,
    )
    .expect_err("refused");
    assert!(format!("{err}").contains("severity-when"), "{err}");
}

#[test]
fn dim_inline_wildcard_param_and_function_output() {
    // `dim` by axis, negative from the end.
    let r = user_rule("id: t\ntitle: t\nseverity: info\nmatch: { output: { dim: { -1: 2, 1: 4 } } }\nmessage: m\n");
    let ops: Vec<_> = check(RANKS, &r).into_iter().filter_map(|f| f.op).collect();
    assert_eq!(ops, ["r5", "y"]);
    // `param: { '*': … }` over every parameter, `inline` only for literal bindings.
    let r = user_rule("id: t\ntitle: t\nseverity: info\nmatch: { param: { '*': { inline: true, value: { nonfinite: true } } } }\nmessage: m\n");
    let ops: Vec<_> = check(RANKS, &r).into_iter().filter_map(|f| f.op).collect();
    assert_eq!(ops, ["y"]);
    let r = user_rule("id: t\ntitle: t\nseverity: info\nmatch: { param: { '*': { inline: false, rank: 6 } } }\nmessage: m\n");
    let ops: Vec<_> = check(RANKS, &r).into_iter().filter_map(|f| f.op).collect();
    assert_eq!(ops, ["r5"], "r5 reads r6 by name");
    // `function-output`.
    let r = user_rule("id: t\ntitle: t\nseverity: info\nmatch: { output: { function-output: true } }\nmessage: m\n");
    let ops: Vec<_> = check(RANKS, &r).into_iter().filter_map(|f| f.op).collect();
    assert_eq!(ops, ["y"]);
}

#[test]
fn model_spec_version_matches_known_versions_only() {
    let r = user_rule("id: t\ntitle: t\nseverity: info\nmatch: { op: relu, model: { spec-version: { max: 8 } } }\nmessage: m\n");
    let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [2]> x) {\n            tensor<fp16, [2]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";
    let mut model = snippet_model("t.mil", mil).unwrap();
    assert!(
        match_model(&model, &r, &ModelEntities::default()).is_empty(),
        "no spec version"
    );
    model.spec_version = Some(8);
    assert_eq!(match_model(&model, &r, &ModelEntities::default()).len(), 1);
    model.spec_version = Some(9);
    assert!(match_model(&model, &r, &ModelEntities::default()).is_empty());
    // The built-in rule reads the spec version too.
    let rules = only(&builtin(), "opset-too-old-for-states");
    let mil = "program(1.3)\n{\n    func main<ios18>(state<tensor<fp16, [1, 257, 32]>> kv) {\n            tensor<fp16, [1, 257, 32]> r = read_state(input = kv)[name = string(\"r\")];\n        } -> (r);\n}\n";
    let mut model = snippet_model("t.mil", mil).unwrap();
    model.spec_version = Some(9);
    assert!(match_model(&model, &rules, &ModelEntities::default()).is_empty());
    model.spec_version = Some(8);
    let f = match_model(&model, &rules, &ModelEntities::default());
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].state.as_deref(), Some("kv"));
}

#[test]
fn small_blob_constants_have_values_for_value_predicates() {
    let dir = tempfile::tempdir().unwrap();
    // One fp16 record at 64: [0, -inf, -inf, 0].
    let payload: Vec<u8> = [0u16, 0xfc00, 0xfc00, 0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    crate::analysis::testutil::weight_file(dir.path(), 1, &payload);
    let mil = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 4]> s) {
            tensor<fp16, [1, 4]> mask = const()[name = string("mask"), val = tensor<fp16, [1, 4]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            tensor<fp16, [1, 4]> y = add(x = s, y = mask)[name = string("y")];
        } -> (y);
}"#;
    let mut model = snippet_model("t.mil", mil).unwrap();
    let rules = only(&builtin(), "mask-nonfinite-const");
    assert!(
        match_model(&model, &rules, &ModelEntities::default()).is_empty(),
        "the weight file is not found from `.`"
    );
    model.model_path = dir.path().to_path_buf();
    model.root = dir.path().to_path_buf();
    let f = match_model(&model, &rules, &ModelEntities::default());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].op.as_deref(), Some("mask"));
}

#[test]
fn all_members_may_be_negative_when_one_is_positive() {
    // reshapes that do not feed another reshape: only r5 (r6 feeds r5).
    let r = user_rule(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  all:\n    - op: reshape\n    - not: { feeds: { op: reshape } }\nmessage: m\n",
    );
    let ops: Vec<_> = check(RANKS, &r).into_iter().filter_map(|f| f.op).collect();
    assert_eq!(ops, ["r5"]);
    // A list of exclusions alone would match everything else.
    let err = load_rule_text(
        "t.yaml",
        "id: t\ntitle: t\nseverity: info\nmatch:\n  all:\n    - not: { op: reshape }\n    - not: { op: add }\nmessage: m\n",
        None,
        false,
    )
    .expect_err("refused");
    assert!(
        format!("{:?}", miette::Report::new(err)).contains("at least one positive member"),
        "refused for the wrong reason"
    );
}

#[test]
fn wrapped_write_names_the_wrapper_and_offers_the_unwrap() {
    let rules = only(&builtin(), "state-full-extent-write");
    let rule = rules.get("state-full-extent-write").expect("rule");
    let case = rule.tests().invalid.last().expect("the wrapper case");
    let findings = check(case.mil.as_deref().expect("a text case"), &rules);
    let [f] = findings.as_slice() else {
        panic!("one finding expected, got {findings:?}")
    };
    assert!(
        f.message
            .contains("the full-window slice_update `new` passes `inner` on unchanged"),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("[0, 2) × [0, 256) × [0, 4)"),
        "{}",
        f.message
    );
    let fix = f.fix.as_ref().expect("the unwrap is offered");
    let plan = fix.plan.as_ref().expect("with its plan");
    assert_eq!(
        plan.new_shape, plan.old_shape,
        "a hand-padded cache keeps its rows"
    );
    assert_eq!(plan.unwrapped, ["main/new"]);
    assert_eq!(fix.applicability, Applicability::Safe);
    assert!(
        fix.title.contains("keeps its shape [2, 257, 4]"),
        "{}",
        fix.title
    );
}
const RELU_OR_LUT: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 4]> x) {\n            tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];\n            tensor<fp16, [1, 4]> z = sigmoid(x = y)[name = string(\"z\")];\n        } -> (z);\n}\n";

#[test]
fn matches_names_a_shared_or_a_local_fragment() {
    // Shared (rules/utils.yaml): `weight-op` never matches a relu.
    let body = "id: r\ntitle: t\nseverity: info\nmatch:\n  op: [relu, sigmoid]\n  not: { matches: weight-op }\nmessage: \"{OP}\"\n";
    let rule = load_rule_text("r.yaml", body, Some("r"), false).expect("loads");
    let rules = RuleSet::from_rules(vec![rule]).expect("set");
    assert_eq!(check(RELU_OR_LUT, &rules).len(), 2);
    // A rule's own `utils:` shadow the shared ones, and may capture.
    let body = "id: r\ntitle: t\nseverity: info\nutils:\n  weight-op: { op: relu, capture: $R }\nmatch: { matches: weight-op }\nmessage: \"{R}\"\n";
    let rule = load_rule_text("r.yaml", body, Some("r"), false).expect("loads");
    let rules = RuleSet::from_rules(vec![rule]).expect("set");
    let found = check(RELU_OR_LUT, &rules);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].message, "y");
}

#[test]
fn fragments_are_checked_at_load() {
    let body = "id: r\ntitle: t\nseverity: info\nmatch: { matches: weight-opp }\nmessage: m\n";
    let (msg, _) = load_error("r", body);
    assert!(
        msg.contains("no match fragment `weight-opp`; did you mean `weight-op`?"),
        "{msg}"
    );
    let body = "id: r\ntitle: t\nseverity: info\nutils:\n  a: { matches: b }\n  b: { op: relu, not: { matches: a } }\nmatch: { matches: a }\nmessage: m\n";
    let (msg, _) = load_error("r", body);
    assert!(
        msg.contains("fragment `a` uses itself (a → b → a)"),
        "{msg}"
    );
}

#[test]
fn a_rule_folder_may_share_fragments() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("utils.yaml"),
        "act: { op: [relu, sigmoid] }\n",
    )
    .expect("write");
    write_rule(
        dir.path(),
        "no-act",
        "id: no-act\ntitle: t\nseverity: info\nmatch: { matches: act }\nmessage: \"{OP}\"\n",
    );
    let rules = RuleSet::load_dirs_only(&[dir.path().to_path_buf()]).expect("loads");
    assert_eq!(check(RELU_OR_LUT, &rules).len(), 2);
}

/// `softmax` over x `[1, 20000]`, its axis a constant `ax`.
fn softmax_over(axis: i32) -> String {
    format!(
        "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 20000]> x) {{\n            int32 ax = const()[name = string(\"ax\"), val = int32({axis})];\n            tensor<fp16, [1, 20000]> y = softmax(axis = ax, x = x)[name = string(\"sm\")];\n        }} -> (y);\n}}\n"
    )
}

#[test]
fn axis_dim_reads_the_axis_from_the_op() {
    let mut body = String::from(
        "id: softmax-long-axis\ntitle: t\nseverity: warning\nmatch:\n  op: softmax\n  axis-dim: { of: x, axis: axis, size: { min: 16385 } }\nmessage: \"`{OP}` is a softmax over an axis longer than 16384\"\ntests:\n  valid:\n",
    );
    for (list, axis) in [("valid", 0), ("invalid", -1), ("invalid", 1)] {
        if list == "invalid" && !body.contains("invalid:") {
            body.push_str("  invalid:\n");
        }
        body.push_str("    - mil: |\n");
        for line in softmax_over(axis).lines() {
            body.push_str(&format!("        {line}\n"));
        }
        if list == "invalid" {
            body.push_str("      expect: [{ op: sm }]\n");
        }
    }
    let rule = load_rule_text(
        "softmax-long-axis.yaml",
        &body,
        Some("softmax-long-axis"),
        false,
    )
    .expect("loads");
    let rules = RuleSet::from_rules(vec![rule]).expect("set");
    let report = run_rule_tests(&rules);
    assert!(report.passed(), "{report}");
    assert_eq!(report.count(CaseStatus::Validated), 1);
    assert_eq!(report.count(CaseStatus::Reported), 2);
    // An axis out of range matches nothing.
    assert!(check(&softmax_over(2), &rules).is_empty());
}

#[test]
fn node_kind_matchers_leave_out_only_alternatives_that_cannot_hold() {
    let rules = only(&builtin(), "tensor-dim-limit");
    let m = rules.rules()[0].node_matchers.as_ref().unwrap();
    // The `any:` alternatives the matcher keeps, counted through `all:` and nested `any:` (the
    // rule's fragments are compiled in place).
    fn alternatives(m: &matcher::Matcher) -> usize {
        match m {
            matcher::Matcher::Origin(p) => alternatives(p),
            matcher::Matcher::Any(list) => list.iter().map(alternatives).sum(),
            matcher::Matcher::All(list) => list.iter().map(alternatives).max().unwrap_or(1),
            _ => 1,
        }
    }
    // Per family group, three `output:` alternatives over 16384 and one over 65536 for ops; as
    // many `input:` ones for function inputs.
    assert_eq!((alternatives(&m.ops), alternatives(&m.inputs)), (4, 4));
    // An input and the ops it feeds are one region, found at the input.
    let mil = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 20000, 2]> x) {
            tensor<fp16, [1, 20000, 2]> y = exp(x = x)[name = string("y")];
            tensor<fp16, [1, 20000, 2]> z = exp(x = y)[name = string("z")];
        } -> (z);
}"#;
    let found = check(mil, &rules);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        found[0].op, None,
        "the region starts at the input: {found:#?}"
    );
}

// ---- peers:, reasons:, implied-shape:, unequal-pairs (field hazards A3, A8) ----

const RELUS: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 64]> x, tensor<fp16, [1, 8]> s) {
            tensor<fp16, [1, 64]> a = relu(x = x)[name = string("a")];
            tensor<fp16, [1, 8]> b = relu(x = s)[name = string("b")];
            tensor<fp16, [1, 64]> c = relu(x = a)[name = string("c")];
            tensor<fp16, [1, 64]> d = relu(x = c)[name = string("d")];
        } -> (d, b);
}"#;

fn messages(mil: &str, rules: &RuleSet) -> Vec<(String, String)> {
    check(mil, rules)
        .into_iter()
        .map(|f| (f.op.unwrap_or_default(), f.message))
        .collect()
}

#[test]
fn peers_count_the_function_ops_and_place_the_node_among_them() {
    let wide = "{ op: relu, output: { last-dim: 64 } }";
    let r = user_rule(&format!(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  peers: {{ match: {wide}, count: {{ min: 3 }}, nth: 1, capture: $P }}\nmessage: \"{{P.nth}} of {{P.count}}, others {{P}}\"\n"
    ));
    assert_eq!(
        messages(RELUS, &r),
        [("a".to_string(), "1 of 3, others `c`, `d`".to_string())],
        "only the first wide relu; b is not a peer"
    );
    // A node that is not a peer has no position: `nth` never holds for it, `count` still does.
    let r = user_rule(&format!(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  output: {{ last-dim: 8 }}\n  peers: {{ match: {wide}, count: 3, capture: $P }}\nmessage: \"{{P.count}} others {{P.others}} at {{P.nth}}\"\n"
    ));
    assert_eq!(
        messages(RELUS, &r),
        [("b".to_string(), "3 others `a`, `c`, `d` at ?".to_string())]
    );
    let r = user_rule(&format!(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  peers: {{ match: {wide}, count: {{ min: 4 }} }}\nmessage: m\n"
    ));
    assert!(check(RELUS, &r).is_empty(), "three peers are not four");
}

#[test]
fn reasons_name_every_entry_that_holds_in_one_finding() {
    let r = user_rule(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  reasons:\n    capture: $WHY\n    of:\n      - match: { output: { last-dim: 64, capture: $Y } }\n        text: \"{Y} is wide\"\n      - match: { param: { x: { function-output: false, producer: { op: relu } } } }\n        text: \"`{OP}` follows a relu\"\nmessage: \"{WHY} ({WHY.count})\"\n",
    );
    assert_eq!(
        messages(RELUS, &r),
        [
            ("a".to_string(), "a is wide (1)".to_string()),
            (
                "c".to_string(),
                "c is wide; `c` follows a relu (2)".to_string()
            ),
            (
                "d".to_string(),
                "d is wide; `d` follows a relu (2)".to_string()
            ),
        ],
        "b holds neither entry"
    );
    // An entry's text sees only its own captures.
    let err = load_rule_text(
        "t.yaml",
        "id: t\ntitle: t\nseverity: info\nmatch:\n  op: relu\n  output: { capture: $Y }\n  reasons:\n    capture: $WHY\n    of:\n      - match: { op: relu }\n        text: \"{Y}\"\nmessage: \"{WHY}\"\n",
        None,
        false,
    )
    .expect_err("refused");
    assert!(format!("{:?}", miette::Report::new(err)).contains("`{Y}` is not bound"));
}

const DECONVS: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 32, 8, 32]> x) {
            tensor<fp16, [32, 16, 4, 4]> w = const()[name = string("w"), val = tensor<fp16, [32, 16, 4, 4]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            tensor<fp16, [1, 16, 16, 64]> agrees = conv_transpose(x = x, weight = w, strides = tensor<int32, [2]>([2, 2]), pad_type = string("custom"), pad = tensor<int32, [4]>([1, 1, 1, 1]), output_shape = tensor<int32, [4]>([1, 16, 16, 64]))[name = string("agrees")];
            tensor<fp16, [1, 16, 17, 64]> taller = conv_transpose(x = x, weight = w, strides = tensor<int32, [2]>([2, 2]), pad_type = string("custom"), pad = tensor<int32, [4]>([0, 1, 1, 1]), output_shape = tensor<int32, [2]>([18, 64]))[name = string("taller")];
            tensor<fp16, [1, 16, 11, 35]> none = conv_transpose(x = x, weight = w)[name = string("none")];
        } -> (agrees, taller, none);
}"#;

#[test]
fn implied_shape_is_computed_and_compared_with_a_stated_shape() {
    let r = user_rule(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  op: conv_transpose\n  implied-shape: { capture: $I }\nmessage: \"{I}\"\n",
    );
    assert_eq!(
        messages(DECONVS, &r),
        [
            ("agrees".to_string(), "[1, 16, 16, 64]".to_string()),
            ("taller".to_string(), "[1, 16, 17, 64]".to_string()),
            ("none".to_string(), "[1, 16, 11, 35]".to_string()),
        ]
    );
    let r = user_rule(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  op: conv_transpose\n  implied-shape: { differs-from: output_shape, capture: $I }\nmessage: \"{I.value}\"\n",
    );
    assert_eq!(
        messages(DECONVS, &r),
        [("taller".to_string(), "[1, 16, 17, 64]".to_string())],
        "a spatial-only [18, 64] differs; an agreeing or absent output_shape does not"
    );
}

#[test]
fn unequal_pairs_read_pads_as_begin_end_pairs() {
    let r = user_rule(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  param: { pad: { value: { unequal-pairs: true } } }\nmessage: m\n",
    );
    let ops: Vec<_> = check(DECONVS, &r)
        .into_iter()
        .filter_map(|f| f.op)
        .collect();
    assert_eq!(ops, ["taller"]);
    let r = user_rule(
        "id: t\ntitle: t\nseverity: info\nmatch:\n  param: { pad: { value: { unequal-pairs: false } } }\nmessage: m\n",
    );
    let ops: Vec<_> = check(DECONVS, &r)
        .into_iter()
        .filter_map(|f| f.op)
        .collect();
    assert_eq!(ops, ["agrees"]);
}

/// A linear reading a blockwise-quantized weight `data` [64, 64] with `scale` of shape `scale`.
fn blockwise_linear(scale: &str) -> String {
    format!(
        "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {{\n            tensor<fp16, [64, 64]> w = constexpr_blockwise_shift_scale(data = tensor<int8, [64, 64]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64))), scale = tensor<fp16, {scale}>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(4224))))[name = string(\"w\")];\n            tensor<fp16, [1, 64]> y = linear(weight = w, x = x)[name = string(\"y\")];\n        }} -> (y);\n}}\n"
    )
}

fn blocked_axes_rule(except: &str, count: &str) -> RuleSet {
    let body = format!(
        "id: blocked\ntitle: t\nseverity: warning\nmatch:\n  op: constexpr_blockwise_shift_scale\n  blocked-axes: {{ of: scale, over: data, except: {except}, count: {count} }}\nmessage: \"`{{OP}}` is blocked\"\n"
    );
    let rule = load_rule_text("blocked.yaml", &body, Some("blocked"), false).expect("loads");
    RuleSet::from_rules(vec![rule]).expect("set")
}

#[test]
fn blocked_axes_counts_the_axes_a_parameter_splits_into_blocks() {
    let fires = |except: &str, count: &str, scale: &str| {
        !check(&blockwise_linear(scale), &blocked_axes_rule(except, count)).is_empty()
    };
    // Blocks along the input axis (1), not along the output axis (0).
    assert!(fires("[0]", "{ min: 1 }", "[64, 4]"));
    assert!(fires("[]", "1", "[64, 4]"));
    assert!(!fires("[1]", "{ min: 1 }", "[64, 4]"));
    assert!(
        !fires("[-1]", "{ min: 1 }", "[64, 4]"),
        "negative axes count from the end"
    );
    // Per channel (64 of 64), per tensor (1) and a size-1 block axis are no blocks.
    assert!(!fires("[]", "{ min: 1 }", "[64, 1]"));
    assert!(!fires("[]", "{ min: 1 }", "[1, 64]"));
    assert!(!fires("[]", "{ min: 1 }", "[1, 1]"));
    // Blocks along both axes count twice; without `except` the output axis counts.
    assert!(fires("[]", "2", "[16, 4]"));
    assert!(!fires("[0]", "2", "[16, 4]"));
    assert!(fires("[]", "0", "[64, 1]"));
    // Shapes of different ranks are not compared.
    assert!(!fires("[]", "0", "[64]"));
}

#[test]
fn stop_by_may_be_a_negation_that_walks_only_through_the_named_ops() {
    let body = "id: through-casts\ntitle: t\nseverity: warning\nmatch:\n  op: relu\n  feeds:\n    op: exp\n    stop-by: { not: { op: cast } }\nmessage: \"`{OP}` reaches an exp through casts\"\n";
    let rule = load_rule_text("through-casts.yaml", body, Some("through-casts"), false)
        .expect("`not:` alone loads as stop-by");
    let rules = RuleSet::from_rules(vec![rule]).expect("set");
    let chain = |middle: &str| {
        format!(
            "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [4]> x) {{\n            tensor<fp16, [4]> r = relu(x = x)[name = string(\"r\")];\n            string t = const()[name = string(\"t\"), val = string(\"fp32\")];\n            tensor<fp32, [4]> c = cast(dtype = t, x = r)[name = string(\"c\")];\n            tensor<fp32, [4]> m = {middle}(x = c)[name = string(\"m\")];\n            tensor<fp32, [4]> e = exp(x = m)[name = string(\"e\")];\n        }} -> (e);\n}}\n"
        )
    };
    // relu -> cast -> identity -> exp: the walk stops at the identity (not a cast).
    assert!(check(&chain("identity"), &rules).is_empty());
    // relu -> cast -> exp: reached through the cast.
    let direct = chain("identity").replace("exp(x = m)", "exp(x = c)");
    assert_eq!(check(&direct, &rules).len(), 1);
}

#[test]
fn state_write_first_keeps_the_first_matching_write_of_each_state() {
    // Write 1 has a constant begin, writes 2 and 3 a run-time one: `first` keeps write 2 only.
    let mil = r#"program(1.3)
{
    func main<ios18>(state<tensor<fp16, [4, 8]> > s, tensor<int32, [2]> pos, tensor<fp16, [1, 8]> u) {
            tensor<int32, [2]> c = const()[name = string("c"), val = tensor<int32, [2]>([0, 0])];
            tensor<int32, [2]> len = const()[name = string("len"), val = tensor<int32, [2]>([1, 8])];
            tensor<int32, [2]> ce = add(x = c, y = len)[name = string("ce")];
            tensor<int32, [2]> pe = add(x = pos, y = len)[name = string("pe")];
            tensor<fp16, [4, 8]> o1 = read_state(input = s)[name = string("o1")];
            tensor<fp16, [4, 8]> n1 = slice_update(begin = c, end = ce, update = u, x = o1)[name = string("n1")];
            write_state(data = n1, input = s)[name = string("w1")];
            tensor<fp16, [4, 8]> o2 = read_state(input = s)[name = string("o2")];
            tensor<fp16, [4, 8]> n2 = slice_update(begin = pos, end = pe, update = u, x = o2)[name = string("n2")];
            write_state(data = n2, input = s)[name = string("w2")];
            tensor<fp16, [4, 8]> o3 = read_state(input = s)[name = string("o3")];
            tensor<fp16, [4, 8]> n3 = slice_update(begin = pos, end = pe, update = u, x = o3)[name = string("n3")];
            write_state(data = n3, input = s)[name = string("w3")];
        } -> ();
}"#;
    let ops = |first: &str| {
        let body = format!(
            "id: r\ntitle: t\nseverity: info\nmatch:\n  state-write: {{ state: $S, runtime-begin: true{first} }}\nmessage: m\n"
        );
        let rule = load_rule_text("r.yaml", &body, None, false).expect("loads");
        let rules = RuleSet::from_rules(vec![rule]).expect("set");
        check(mil, &rules)
            .into_iter()
            .map(|f| f.op.unwrap_or_default())
            .collect::<Vec<_>>()
    };
    assert_eq!(ops(""), ["w2", "w3"]);
    assert_eq!(ops(", first: true"), ["w2"]);
    assert_eq!(ops(", first: false"), ["w3"]);
}

#[test]
fn target_key_tests_families_and_the_minimum_os() {
    use crate::rules::{match_model_for, DeployTarget};
    let r = user_rule("id: t\ntitle: t\nseverity: info\nmatch: { op: relu, target: { families: [a12, a13, a14, a15] } }\nmessage: \"on {TARGET}\"\n");
    let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [2]> x) {\n            tensor<fp16, [2]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";
    let model = snippet_model("t.mil", mil).unwrap();
    let on = |t: Option<&str>| {
        let t = t.map(|t| DeployTarget::parse(&[t]).unwrap());
        match_model_for(&model, &r, &ModelEntities::default(), t.as_ref())
            .into_iter()
            .map(|f| f.message)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        on(None),
        ["on A12–A15 (iPhone XS–14)"],
        "no target: it holds"
    );
    assert_eq!(
        on(Some("a14,a17")),
        ["on A14 (iPhone 12)"],
        "the families it applies to"
    );
    assert!(on(Some("a17,m1")).is_empty());
    assert_eq!(on(Some("ios17")).len(), 1, "iOS implies the A-series");
    assert!(on(Some("macos14")).is_empty(), "macOS implies the M-series");
    // only-families: never without families; os-before: never without an OS.
    let r = user_rule("id: t\ntitle: t\nseverity: info\nmatch: { op: relu, target: { only-families: [mac], os-before: required } }\nmessage: \"{TARGET.os}\"\n");
    let on = |t: Option<&str>| {
        let t = t.map(|t| DeployTarget::parse(&[t]).unwrap());
        match_model_for(&model, &r, &ModelEntities::default(), t.as_ref()).len()
    };
    assert_eq!(on(None), 0);
    assert_eq!(
        on(Some("macos14")),
        1,
        "macOS 14 is before the function's iOS18 opset"
    );
    assert_eq!(on(Some("macos15")), 0);
    assert_eq!(on(Some("macos14,a17")), 0, "not Mac-only");
    // Unknown families and conditions fail to load.
    for bad in ["families: [a21]", "os-before: ios99", "{}"] {
        let text = format!(
            "id: t\ntitle: t\nseverity: info\nmatch: {{ op: relu, target: {bad} }}\nmessage: m\n"
        );
        assert!(
            load_rule_text("t.yaml", &text, None, false).is_err(),
            "{bad}"
        );
    }
}

/// An entity rule over bundle items: properties select, captures fill the message, and every
/// property, predicate and placeholder is checked at load.
#[test]
fn entity_rules_select_by_typed_properties() {
    use crate::analysis::bundle::lfs_pointer;
    let body = r#"
id: pointer
title: t
severity: error
match: { kind: bundle-item, capture: $B, lfs-pointer: true, file: { same-as: file } }
message: "{B.file} is a pointer, not the {B.what} (at {OP})"
"#;
    let rule = load_rule_text("pointer.yaml", body, Some("pointer"), false).expect("loads");
    let rules = RuleSet::from_rules(vec![rule]).expect("set");
    let model = snippet_model("m.mil", &decode(257)).expect("parses");
    let mut pointer = lfs_pointer(
        std::path::Path::new("m/weights/weight.bin"),
        "weight file".into(),
    );
    pointer.op = Some("w".into());
    let missing = crate::analysis::entity::Entity::new(&crate::analysis::bundle::ENTITY_KINDS[0])
        .with("lfs-pointer", false)
        .with("missing", true);
    let entities = ModelEntities {
        entities: vec![pointer, missing],
    };
    let findings = match_model(&model, &rules, &entities);
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].message,
        "m/weights/weight.bin is a pointer, not the weight file (at w)"
    );
    assert_eq!(findings[0].op.as_deref(), Some("w"));

    let refused = |from: &str, to: &str, says: &str| {
        let text = body.replace(from, to);
        let err = load_rule_text("pointer.yaml", &text, Some("pointer"), false)
            .expect_err(&format!("`{to}` loads"));
        let all = format!("{err:?}");
        assert!(all.contains(says), "{to}: {all}");
    };
    refused(
        "kind: bundle-item",
        "kind: bundle-itme",
        "did you mean `bundle-item`?",
    );
    refused(
        "lfs-pointer: true",
        "lfs-pointr: true",
        "did you mean `lfs-pointer`?",
    );
    refused("lfs-pointer: true", "lfs-pointer: 3", "boolean property");
    refused("lfs-pointer: true", "what: 3", "text property");
    refused(
        "{ same-as: file }",
        "{ same-as: lfs-pointer }",
        "a boolean one",
    );
    refused("{B.what}", "{B.wht}", "did you mean `what`?");
    refused("{B.what}", "{C.what}", "not bound");
    refused(
        "lfs-pointer: true",
        "lfs-pointer: true, op: relu",
        "applies to the ops",
    );
}

/// An entity kind for the tests of entity rules: two numbers and a text.
static PROBE: crate::analysis::entity::EntityKind = crate::analysis::entity::EntityKind {
    name: "probe",
    doc: "",
    located_at: "",
    properties: &[
        crate::analysis::entity::prop("end", crate::analysis::entity::PropType::Int, ""),
        crate::analysis::entity::prop("length", crate::analysis::entity::PropType::Int, ""),
        crate::analysis::entity::prop("word", crate::analysis::entity::PropType::Text, ""),
    ],
};

/// Number properties take bounds that may name another number property of the entity.
#[test]
fn entity_number_predicates_compare_properties() {
    use crate::analysis::entity::{Entity, Prop};
    use crate::rules::entity_rule::EntityCompiler;
    const KIND: &crate::analysis::entity::EntityKind = &PROBE;
    let test = |yaml: &str, e: &Entity| -> Result<bool, String> {
        let r: crate::rules::schema::SerRule =
            serde_yaml_bw::from_str(yaml).map_err(|e| e.to_string())?;
        let mut c = EntityCompiler::new("match", KIND, Default::default());
        let rule = c.rule(&r);
        if !c.errors.is_empty() {
            return Err(format!("{:?}", c.errors));
        }
        Ok(rule.test.matches(e))
    };
    let past = Entity::new(KIND)
        .with("end", 120u64)
        .with("length", 100u64)
        .with("word", "a");
    let inside = Entity::new(KIND).with("end", 100u64).with("length", 100u64);
    assert_eq!(test("end: { above: length }", &past), Ok(true));
    assert_eq!(test("end: { above: length }", &inside), Ok(false));
    assert_eq!(
        test("end: { max: length, multiple-of: 50 }", &inside),
        Ok(true)
    );
    assert_eq!(test("end: { not-multiple-of: 64 }", &past), Ok(true));
    assert_eq!(test("word: [b, a]", &past), Ok(true));
    assert_eq!(
        test("word: a", &inside),
        Ok(false),
        "a missing property is unknown"
    );
    assert_eq!(test("not: { word: a }", &inside), Ok(true));
    assert_eq!(test("any: [{ end: 1 }, { end: 120 }]", &past), Ok(true));
    assert!(test("end: { above: word }", &past)
        .unwrap_err()
        .contains("text property"));
    assert!(test("end: { abov: 3 }", &past)
        .unwrap_err()
        .contains("did you mean `above`?"));
    assert!(test("end: { multiple-of: 0 }", &past)
        .unwrap_err()
        .contains("must not be 0"));
    // Numbers past 64 bits, and a remainder by -1 (which overflows at `i64::MIN` in 64 bits).
    let huge = Entity::new(KIND)
        .with("end", Prop::Int(i128::from(u64::MAX) * 64))
        .with("length", Prop::Int(i128::from(i64::MIN)));
    assert_eq!(test("end: { multiple-of: 64 }", &huge), Ok(true));
    assert_eq!(test("end: { not-multiple-of: 128 }", &huge), Ok(true));
    assert_eq!(
        test("end: { above: 18446744073709551615 }", &huge),
        Ok(true)
    );
    assert_eq!(test("length: { multiple-of: -1 }", &huge), Ok(true));
    assert_eq!(test("length: { below: end }", &huge), Ok(true));
}

/// An entity test is compiled with the members of each `all:`/`any:` smallest first (a defect's
/// test before the long conditions it comes with), and answers as written.
#[test]
fn entity_tests_are_ordered_smallest_first_with_the_same_answers() {
    use crate::analysis::entity::Entity;
    use crate::rules::entity_rule::{EntityCompiler, EntityTest};
    const KIND: &crate::analysis::entity::EntityKind = &PROBE;
    let yaml = "all: [{ end: { min: 1 }, length: { min: 1 }, word: [a, b, c] }, { any: [{ all: [{ length: 4 }, { word: b }] }, { word: c }] }, { end: 7 }]";
    let r: crate::rules::schema::SerRule = serde_yaml_bw::from_str(yaml).expect("yaml");
    let mut c = EntityCompiler::new("match", KIND, Default::default());
    let rule = c.rule(&r);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    let EntityTest::All(members) = &rule.test else {
        panic!("a conjunction: {:?}", rule.test)
    };
    assert!(matches!(members[0], EntityTest::Prop(..)), "{members:?}");
    let Some(EntityTest::Any(alternatives)) = members.last() else {
        panic!("the `any` last: {members:?}")
    };
    assert!(
        matches!(alternatives[0], EntityTest::Prop(..)),
        "{alternatives:?}"
    );
    for (end, length, word, expected) in [
        (7, 4, "b", true),
        (7, 1, "c", true),
        (7, 4, "a", false),
        (3, 4, "b", false),
        (7, 0, "c", false),
        (7, 1, "b", false),
    ] {
        let e = Entity::new(KIND)
            .with("end", end as u64)
            .with("length", length as u64)
            .with("word", word);
        let written = end >= 1
            && length >= 1
            && ["a", "b", "c"].contains(&word)
            && ((length == 4 && word == "b") || word == "c")
            && end == 7;
        assert_eq!(written, expected);
        assert_eq!(rule.test.matches(&e), expected, "{end} {length} {word}");
    }
}

#[test]
fn model_converter_version_reads_the_metadata_version_range() {
    let r = user_rule("id: t\ntitle: t\nseverity: info\nmatch: { op: relu, model: { converter-version: { min: \"9.0\", before: \"9.0.1\" } } }\nmessage: m\n");
    let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [2]> x) {\n            tensor<fp16, [2]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";
    let mut model = snippet_model("t.mil", mil).unwrap();
    assert!(
        match_model(&model, &r, &ModelEntities::default()).is_empty(),
        "no metadata"
    );
    let key = "com.github.apple.coremltools.version".to_string();
    for (version, hits) in [
        ("9.0", 1),
        ("9.0.0", 1),
        ("9.0b1", 1),
        ("8.3.0", 0),
        ("9.0.1", 0),
        ("9.1", 0),
        ("dev", 0),
    ] {
        model.description.user_defined = vec![(key.clone(), version.to_string())];
        assert_eq!(
            match_model(&model, &r, &ModelEntities::default()).len(),
            hits,
            "version {version}"
        );
    }
    // Another key does not count.
    model.description.user_defined =
        vec![("com.github.apple.coremltools.source".into(), "9.0".into())];
    assert!(match_model(&model, &r, &ModelEntities::default()).is_empty());
    // A version that does not parse fails to load, naming the key.
    let bad = load_rule_text("t.yaml", "id: t\ntitle: t\nseverity: info\nmatch: { op: relu, model: { converter-version: { min: nine } } }\nmessage: m\n", None, false);
    let err = format!("{:?}", miette::Report::new(bad.expect_err("refused")));
    assert!(err.contains("not a dotted version"), "{err}");
}

fn rule_from(yaml: &str) -> Result<RuleSet, String> {
    load_rule_text("t.yaml", yaml, None, false)
        .map(|r| RuleSet::from_rules(vec![r]).expect("one rule"))
        .map_err(|e| format!("{:?}", miette::Report::new(e)))
}

/// Token ids into a `rows`-row table, narrowed to `dtype`, and a second gather of the same ids.
fn lookup(rows: u64, dtype: &str) -> String {
    format!(
        r#"program(1.3)
{{
    func main<ios18>(tensor<int32, [1, 8]> ids) {{
            tensor<fp16, [{rows}, 4]> t = const()[name = string("t"), val = tensor<fp16, [{rows}, 4]>(BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
            string d = const()[name = string("d"), val = string("{dtype}")];
            tensor<{dtype}, [1, 8]> n = cast(dtype = d, x = ids)[name = string("n")];
            int32 ax = const()[name = string("ax"), val = int32(0)];
            tensor<fp16, [1, 8, 4]> y = gather(axis = ax, indices = n, x = t)[name = string("y")];
            tensor<fp16, [1, 8, 4]> z = gather(axis = ax, indices = n, x = t)[name = string("z")];
        }} -> (y, z);
}}"#
    )
}

#[test]
fn range_tests_the_ends_of_a_value_range_and_prints_it() {
    let rules = rule_from(
        r#"
id: wide-ids
title: ids past 1000
severity: info
match:
  op: cast
  param: { x: { range: { min: { min: 0 }, max: { min: 1000 } }, capture: $X } }
message: "`{X}` is in {X.range}"
"#,
    )
    .expect("loads");
    let f = check(&lookup(4096, "uint16"), &rules);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].message, "`ids` is in [0, 4095]");
    assert!(check(&lookup(512, "uint16"), &rules).is_empty());
}

#[test]
fn group_by_makes_matches_that_share_a_value_one_finding() {
    let yaml = |group: &str| {
        format!(
            r#"
id: gathers-of-ids
title: gathers
severity: info
match:
  op: gather
  param: {{ indices: {{ capture: $I }} }}
{group}
message: "`{{OP}}`{{GROUP.also}} read `{{I}}` ({{GROUP}} others: {{GROUP.ops}})"
"#
        )
    };
    let mil = lookup(64, "uint16");
    let ungrouped = rule_from(
        &yaml("")
            .replace("{GROUP.also}", "")
            .replace(" ({GROUP} others: {GROUP.ops})", ""),
    )
    .expect("loads");
    assert_eq!(check(&mil, &ungrouped).len(), 2);
    let grouped = rule_from(&yaml("group-by: $I")).expect("loads");
    let f = check(&mil, &grouped);
    let [one] = f.as_slice() else {
        panic!("one finding expected, got {f:?}")
    };
    assert_eq!(one.op.as_deref(), Some("y"));
    assert_eq!(
        one.message,
        "`y` and 1 more (`z`) read `n` (1 others: `z` (gather))"
    );
    assert_eq!(
        one.covered.as_ref().map(|c| c.names.clone()),
        Some(vec!["z".to_string()])
    );
    assert!(one.labels.iter().any(|l| l.text == "the same `n` here"));
}

#[test]
fn group_by_needs_a_capture_every_match_binds() {
    let err = rule_from(
        r#"
id: bad-group
title: bad
severity: info
match: { op: gather }
group-by: $W
message: "`{OP}`"
"#,
    )
    .expect_err("refused");
    assert!(
        err.contains("`$W` is not a capture every match binds"),
        "{err}"
    );
    let err = rule_from(
        r#"
id: bad-group
title: bad
severity: info
match: { origin: { op: gather, param: { x: { capture: $W } } } }
group-by: $W
message: "`{OP}`"
"#,
    )
    .expect_err("refused");
    assert!(err.contains("`origin:` rules report once already"), "{err}");
    let err = rule_from(
        r#"
id: bad-range
title: bad
severity: info
match: { op: gather, param: { x: { range: {} } } }
message: "`{OP}`"
"#,
    )
    .expect_err("refused");
    assert!(err.contains("names no bound"), "{err}");
}

/// Value ranges are an analysis on demand: a run whose rules test no range leaves them
/// uncomputed, and one that does (`int16-narrowing` on a cast of run-time ids) computes them.
#[test]
fn value_ranges_are_computed_only_when_a_rule_asks() {
    let mil = r#"program(1.3)
{
    func main<ios18>(tensor<int32, [1, 4]> ids) {
            string to = const()[name = string("to"), val = string("int16")];
            tensor<int16, [1, 4]> narrow = cast(x = ids, dtype = to)[name = string("narrow")];
            tensor<int32, [1, 4]> y = add(x = ids, y = ids)[name = string("y")];
    } -> (narrow, y);
}
"#;
    let model = snippet_model("ranges.mil", mil).expect("parses");
    let f = &model.program.functions[0];
    let ranged = |id: &str| {
        let rules = only(&builtin(), id);
        let facts = crate::analysis::analyze(f);
        let node_rules: Vec<&loader::Rule> =
            rules.rules().iter().map(std::sync::Arc::as_ref).collect();
        match_function(&model, f, &facts, &node_rules);
        facts.ranges_computed()
    };
    assert!(!ranged("conv-kernel-width"), "no range asked for");
    assert!(
        ranged("int16-narrowing"),
        "the cast's input range asked for"
    );
}

/// The cost guard (issue 37) for catalog 4's G1, G4 and G6: each rule is tested only on the op
/// types it names (the engine's dispatch), so models without them pay nothing for it.
#[test]
fn catalog4_rules_are_dispatched_by_the_op_types_they_name() {
    let rules = builtin();
    for (id, types) in [
        (
            "ane-fp16-exp-overflow",
            &["exp", "reduce_log_sum_exp", "softmax", "softplus"][..],
        ),
        (
            "gpu-attention-batch",
            &["scaled_dot_product_attention", "softmax"][..],
        ),
        ("conv-stride-ane-compile", &["conv"][..]),
        ("conv-stride-slow-compile", &["conv"][..]),
    ] {
        let rule = rules.rules().iter().find(|r| r.id == id).expect("the rule");
        let want: std::collections::BTreeSet<String> =
            types.iter().map(|t| (*t).to_string()).collect();
        assert_eq!(rule.potential.as_ref(), Some(&want), "{id}");
        assert!(!rule.inputs_only, "{id}");
    }
}

/// `value: { contains: [..] }`: some element is one of the numbers (a conv's strides).
#[test]
fn value_contains_holds_when_some_element_is_listed() {
    let rule = |list: &str| {
        let yaml = format!(
            "id: t\ntitle: t\nseverity: info\nmatch:\n  op: conv\n  param: {{ strides: {{ value: {{ contains: {list} }} }} }}\nmessage: m\n"
        );
        user_rule(&yaml)
    };
    let mil = |strides: &str| {
        format!(
            "program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 1, 64, 64]> x) {{\n            tensor<fp16, [8, 1, 3, 3]> w = const()[name = string(\"w\"), val = tensor<fp16, [8, 1, 3, 3]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [1, 8, 13, 13]> y = conv(x = x, weight = w, strides = tensor<int32, [2]>({strides}))[name = string(\"c\")];\n        }} -> (y);\n}}\n"
        )
    };
    assert_eq!(check(&mil("[5, 5]"), &rule("[5, 7]")).len(), 1);
    assert_eq!(check(&mil("[2, 7]"), &rule("[5, 7]")).len(), 1);
    assert_eq!(check(&mil("[4, 6]"), &rule("[5, 7]")).len(), 0);
    assert_eq!(check(&mil("[4, 6]"), &rule("6")).len(), 1);
    assert!(load_rule_text(
        "t.yaml",
        "id: t\ntitle: t\nseverity: info\nmatch:\n  op: conv\n  param: { strides: { value: { contains: [] } } }\nmessage: m\n",
        None,
        false
    )
    .is_err());
}

#[test]
fn message_when_words_each_case_and_message_the_rest() {
    // The first entry that holds at the node gives the message; `message` the others.
    let r = user_rule(
        "id: t\ntitle: t\nseverity: info\nmatch: { op: reshape, output: { capture: $Y } }\nmessage: \"`{OP}`: rank {Y.rank}\"\nmessage-when:\n  - match: { output: { rank: 4 } }\n    message: \"`{OP}`: rank 4\"\n  - match: { output: { rank: 6 } }\n    message: \"`{OP}` makes rank 6 {Y.shape}\"\n  - match: { output: { rank: { min: 5 } } }\n    message: \"`{OP}`: rank 5 or more\"\n",
    );
    let got: Vec<String> = check(RANKS, &r).into_iter().map(|f| f.message).collect();
    assert_eq!(
        got,
        [
            "`r6` makes rank 6 [1, 2, 2, 4, 8, 2]",
            "`r5`: rank 5 or more"
        ]
    );
    let r = user_rule(
        "id: t\ntitle: t\nseverity: info\nmatch: { op: reshape, output: { capture: $Y } }\nmessage: \"`{OP}`: rank {Y.rank}\"\nmessage-when:\n  - match: { output: { rank: 6 } }\n    message: \"`{OP}`: six\"\n",
    );
    let got: Vec<String> = check(RANKS, &r).into_iter().map(|f| f.message).collect();
    assert_eq!(got, ["`r6`: six", "`r5`: rank 5"]);
}

#[test]
fn message_when_is_checked_like_message() {
    let base = "id: t\ntitle: t\nseverity: info\nmatch: { op: reshape }\nmessage: m\n";
    let err = load_rule_text(
        "t.yaml",
        &format!("{base}message-when:\n  - match: {{ op: relu }}\n    message: \"{{Y.shape}}\"\n"),
        None,
        false,
    )
    .expect_err("an unbound placeholder");
    assert!(format!("{err:?}").contains("message-when"), "{err:?}");
    let err = load_rule_text(
        "t.yaml",
        "id: t\ntitle: t\nseverity: info\nmatch: { origin: { op: reshape } }\nmessage: m\nmessage-when:\n  - match: { op: reshape }\n    message: n\n",
        None,
        false,
    )
    .expect_err("refused with origin");
    assert!(format!("{err}").contains("origin"), "{err}");
}

#[test]
fn the_builtin_rules_are_compiled_once_per_process() {
    let (a, b) = (builtin(), builtin());
    assert!(!a.rules().is_empty());
    assert!(a
        .rules()
        .iter()
        .zip(b.rules())
        .all(|(x, y)| std::sync::Arc::ptr_eq(x, y)));
    // A set narrowed by one caller stays whole for the next.
    let narrowed = only(&a, "state-full-extent-write");
    assert_eq!(narrowed.rules().len(), 1);
    assert_eq!(builtin().rules().len(), a.rules().len());
}

#[test]
fn functions_are_analysed_only_when_a_node_rule_applies_to_the_program() {
    let model = snippet_model("test.mil", &decode(256)).expect("snippet parses");
    let rules = builtin();
    // A Core AI rule does not run on an ML program, so it needs no analysis of its functions.
    assert!(!needs_function_analysis(
        &model,
        &only(&rules, "coreai-kv-state-length"),
        None
    ));
    assert!(needs_function_analysis(
        &model,
        &only(&rules, "state-full-extent-write"),
        None
    ));
    // Entity rules never need it.
    assert!(!needs_function_analysis(
        &model,
        &only(&rules, "blob-bad-path"),
        None
    ));
}
