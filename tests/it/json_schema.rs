//! The JSON Schemas in `schemas/` are the ones generated from the Rust types, and what the loader
//! accepts they accept: every built-in rule and the README's example config validate; a misspelt
//! key does not. `COREML_LINT_BLESS=1 cargo test --test it json_schema` rewrites the files.

use std::path::PathBuf;

use coreml_lint::json_schema::{
    rendered, CONFIG_SCHEMA_FILE, PLACEMENT_SCHEMA_FILE, RULE_SCHEMA_FILE, UTILS_SCHEMA_FILE,
};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn validator(file: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("schemas").join(file)).expect("schema file");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .build(&schema)
        .expect("schema compiles")
}

fn yaml(text: &str) -> Value {
    serde_yaml_bw::from_str(text).expect("YAML")
}

fn errors(v: &jsonschema::Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn committed_schemas_are_the_generated_ones() {
    for (file, text) in rendered() {
        let path = root().join("schemas").join(file);
        if std::env::var_os("COREML_LINT_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "{} is out of date: run COREML_LINT_BLESS=1 cargo test --test it json_schema",
            path.display()
        );
    }
}

#[test]
fn every_builtin_rule_validates() {
    let v = validator(RULE_SCHEMA_FILE);
    let mut n = 0;
    for entry in std::fs::read_dir(root().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.ends_with(".yaml") || name == "redirects.yaml" {
            continue;
        }
        let doc = yaml(&std::fs::read_to_string(&path).unwrap());
        let errs = match name.as_str() {
            "utils.yaml" => errors(&validator(UTILS_SCHEMA_FILE), &doc),
            _ => errors(&v, &doc),
        };
        assert!(errs.is_empty(), "{name}: {errs:#?}");
        n += 1;
    }
    assert!(n >= 30, "only {n} rule files");
}

/// The first ```yaml block under `### Configuration` in the README.
fn readme_config() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = &readme[readme.find("### Configuration").expect("section")..];
    let start = section.find("```yaml\n").expect("yaml block") + "```yaml\n".len();
    let end = start + section[start..].find("```").unwrap();
    section[start..end].to_string()
}

#[test]
fn the_readme_config_validates_and_loads() {
    let text = readme_config();
    let errs = errors(&validator(CONFIG_SCHEMA_FILE), &yaml(&text));
    assert!(errs.is_empty(), "{errs:#?}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("coreml-lint.yaml");
    std::fs::write(&path, &text).unwrap();
    coreml_lint::config::load(&path).expect("the loader accepts it too");
}

#[test]
fn misspelt_keys_and_bad_values_are_rejected_like_the_loader_does() {
    let config = validator(CONFIG_SCHEMA_FILE);
    for bad in [
        "selct: [state]\n",
        "fail-on: fatal\n",
        "ignores:\n  - rule: x\n    line: 3\n",
    ] {
        assert!(!errors(&config, &yaml(bad)).is_empty(), "{bad}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("coreml-lint.yaml");
        std::fs::write(&path, bad).unwrap();
        assert!(coreml_lint::config::load(&path).is_err(), "{bad}");
    }
    let rule = validator(RULE_SCHEMA_FILE);
    let good = std::fs::read_to_string(root().join("rules/tensor-rank.yaml")).unwrap();
    let mut doc = yaml(&good);
    doc["match"]["opp"] = Value::String("gather".into());
    assert!(!errors(&rule, &doc).is_empty());
    let mut doc = yaml(&good);
    doc["severity"] = Value::String("fatal".into());
    assert!(!errors(&rule, &doc).is_empty());
}

#[test]
fn docs_reference_the_schemas() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let language = std::fs::read_to_string(root().join("docs/rule-language.md")).unwrap();
    for file in [CONFIG_SCHEMA_FILE, RULE_SCHEMA_FILE, PLACEMENT_SCHEMA_FILE] {
        assert!(
            readme.contains(&format!("schemas/{file}")),
            "README: {file}"
        );
    }
    assert!(language.contains(&format!("schemas/{RULE_SCHEMA_FILE}")));
}
