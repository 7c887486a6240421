//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` beside the repository (or `$COREML_LINT_SHARED`), when it exists.
pub fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("COREML_LINT_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared"));
    dir.is_dir().then_some(dir)
}

/// `corpus/` in the repository.
pub fn corpus() -> PathBuf {
    repo().join("corpus")
}

/// The official SARIF 2.1.0 schema (draft-04) from `../shared`, compiled; `None` without it.
pub fn sarif_validator() -> Option<jsonschema::JSONSchema> {
    let Some(shared) = shared() else {
        eprintln!("../shared not present: schema validation not run");
        return None;
    };
    let schema_text = std::fs::read_to_string(shared.join("schemas/sarif-schema-2.1.0.json"))
        .expect("schema is readable");
    let schema: serde_json::Value = serde_json::from_str(&schema_text).expect("schema is JSON");
    Some(
        jsonschema::JSONSchema::options()
            .with_draft(jsonschema::Draft::Draft4)
            .compile(&schema)
            .expect("schema compiles"),
    )
}
