//! The rule language's own keys are few (issue 30): a rule object's keys are structural (atomic,
//! relational, composite, reporting) or properties of the entity it is tested on, and only the
//! structural ones are match keys of `schemas/rule.schema.json` (entities' property names are
//! `propertyNames` enums). Nearly every key is used by a built-in rule or `rules/utils.yaml`; the
//! few that are not are shown in docs/rule-language.md by a rule example whose tests run here.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::common;
use coreml_lint::lint::model_entities;
use coreml_lint::rules::testing::run_rule_tests_with;
use coreml_lint::rules::RuleSet;

fn rule_schema() -> Value {
    let text = std::fs::read_to_string(common::repo().join("schemas/rule.schema.json"))
        .expect("schemas/rule.schema.json");
    serde_json::from_str(&text).expect("JSON")
}

/// The union of `properties` names of every definition reachable from `SerRule`.
fn match_keys(schema: &Value) -> BTreeSet<String> {
    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    match (k.as_str(), x) {
                        ("$ref", Value::String(r)) => {
                            out.push(r.rsplit('/').next().unwrap_or_default().to_string())
                        }
                        _ => refs(x, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let defs = &schema["definitions"];
    let mut seen = BTreeSet::new();
    let mut todo = vec!["SerRule".to_string()];
    let mut keys = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let def = &defs[&name];
        assert!(def.is_object(), "no definition {name}");
        if let Some(p) = def["properties"].as_object() {
            keys.extend(p.keys().cloned());
        }
        refs(def, &mut todo);
    }
    keys
}

fn names(v: &Value) -> Vec<&str> {
    v["enum"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn the_schema_has_at_most_30_match_keys_and_lists_properties_by_entity() {
    let schema = rule_schema();
    let keys = match_keys(&schema);
    assert!(keys.len() <= 30, "{} match keys: {keys:?}", keys.len());
    for structural in [
        "op",
        "output",
        "state-write",
        "inside",
        "has",
        "all",
        "not",
        "peers",
    ] {
        assert!(keys.contains(structural), "{structural}");
    }
    // Properties are not match keys …
    for property in [
        "dtype",
        "rank",
        "full",
        "opset",
        "axis-dim",
        "spec-version",
        "count",
    ] {
        assert!(
            !keys.contains(property),
            "{property} is a property, not a key"
        );
    }
    // … but an editor still knows them, per entity.
    let rule = &schema["definitions"]["SerRule"];
    let node = names(&rule["propertyNames"]);
    for k in [
        "op",
        "axis-dim",
        "blocked-axes",
        "implied-shape",
        "opset",
        "lfs-pointer",
    ] {
        assert!(node.contains(&k), "{k} at the node's level");
    }
    let p = &rule["properties"];
    assert!(names(&p["output"]["propertyNames"]).contains(&"dtype"));
    assert!(names(&p["param"]["additionalProperties"]["propertyNames"]).contains(&"value"));
    assert!(names(&p["state-write"]["propertyNames"]).contains(&"full"));
    assert!(names(&p["function"]["propertyNames"]).contains(&"opset"));
    assert!(names(&p["model"]["propertyNames"]).contains(&"spec-version"));
    assert!(names(&p["target"]["propertyNames"]).contains(&"os-before"));
    assert!(names(&schema["definitions"]["PeersSpec"]["propertyNames"]).contains(&"nth"));
    // Every key is documented.
    let docs = std::fs::read_to_string(common::repo().join("docs/rule-language.md")).unwrap();
    for key in &keys {
        assert!(
            docs.contains(&format!("`{key}")),
            "docs/rule-language.md does not mention `{key}`"
        );
    }
}

/// Records the structural keys of rule object `r` (and of the rule objects inside it).
fn used_keys(r: &Value, used: &mut BTreeSet<String>) {
    let Some(o) = r.as_object() else { return };
    let value = |v: &Value, used: &mut BTreeSet<String>| used_keys(&v["producer"], used);
    for (k, v) in o {
        used.insert(k.clone());
        match k.as_str() {
            "inside" | "has" | "fed-by" | "feeds" | "not" | "origin" | "stop-by" => {
                used_keys(v, used)
            }
            "all" | "any" => v
                .as_array()
                .into_iter()
                .flatten()
                .for_each(|x| used_keys(x, used)),
            "input" | "output" => value(v, used),
            "param" | "attr" => v
                .as_object()
                .into_iter()
                .flat_map(|m| m.values())
                .for_each(|x| value(x, used)),
            "state-write" => value(&v["state-type"], used),
            "peers" => {
                used.extend(v.as_object().into_iter().flat_map(|m| m.keys().cloned()));
                used_keys(&v["match"], used);
            }
            "reasons" => {
                used.extend(v.as_object().into_iter().flat_map(|m| m.keys().cloned()));
                for e in v["of"].as_array().into_iter().flatten() {
                    used.extend(e.as_object().into_iter().flat_map(|m| m.keys().cloned()));
                    used_keys(&e["match"], used);
                }
            }
            _ => {}
        }
    }
}

/// The ```yaml blocks of docs/rule-language.md that are whole rule files (they start with `id:`).
fn doc_rule_examples() -> Vec<String> {
    let text = std::fs::read_to_string(common::repo().join("docs/rule-language.md")).unwrap();
    text.split("```yaml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .filter(|b| b.starts_with("id:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn keys_no_builtin_rule_uses_are_few_and_shown_by_a_tested_doc_example() {
    let mut used = BTreeSet::new();
    let mut files = 0;
    for entry in std::fs::read_dir(common::repo().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".yaml") || name == "redirects.yaml" {
            continue;
        }
        let doc: Value =
            serde_yaml_bw::from_str(&std::fs::read_to_string(&path).unwrap()).expect("YAML");
        files += 1;
        if name == "utils.yaml" {
            doc.as_object()
                .into_iter()
                .flat_map(|m| m.values())
                .for_each(|r| used_keys(r, &mut used));
            continue;
        }
        used_keys(&doc["match"], &mut used);
        for s in doc["severity-when"].as_array().into_iter().flatten() {
            used_keys(&s["match"], &mut used);
        }
        used_keys(&doc["fix"]["when"], &mut used);
        for r in doc["utils"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.values())
        {
            used_keys(r, &mut used);
        }
    }
    assert!(files >= 30, "{files} rule files");
    let keys = match_keys(&rule_schema());
    let unused: Vec<&String> = keys.iter().filter(|k| !used.contains(*k)).collect();
    assert!(unused.len() <= 5, "keys no built-in rule uses: {unused:?}");
    let examples = doc_rule_examples();
    for key in unused {
        assert!(
            examples.iter().any(|e| e.contains(&format!("{key}:"))),
            "`{key}:` is used by no built-in rule and by no rule example of docs/rule-language.md"
        );
    }
}

#[test]
fn the_rule_examples_of_the_docs_pass_their_tests() {
    let examples = doc_rule_examples();
    assert!(examples.len() >= 2, "{} examples", examples.len());
    // The examples sit in a `rules/` folder beside a link to the corpus, so that their `model:`
    // cases name fixtures as the built-in rules do (`../corpus/packages/…`).
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("rules");
    std::fs::create_dir(&dir).unwrap();
    std::os::unix::fs::symlink(common::corpus(), root.path().join("corpus")).unwrap();
    for (i, e) in examples.iter().enumerate() {
        std::fs::write(dir.join(format!("example-{i}.yaml")), e).unwrap();
    }
    // A rule file is named after its id.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_yaml_bw::from_str(&text).expect("YAML");
        let id = doc["id"].as_str().expect("id").to_string();
        std::fs::rename(&path, dir.join(format!("{id}.yaml"))).unwrap();
    }
    let set = RuleSet::load_dirs_only(std::slice::from_ref(&dir)).expect("the examples load");
    assert_eq!(set.rules().len(), examples.len());
    let report = run_rule_tests_with(&set, &model_entities);
    assert!(report.passed(), "{report}");
    for r in set.rules() {
        let cases = report.cases.iter().filter(|c| c.rule == r.id).count();
        assert!(cases >= 2, "{}: {cases} cases", r.id);
    }
}
