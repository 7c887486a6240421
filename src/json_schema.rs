//! JSON Schemas (draft-07, what YAML editors read) of the files users write:
//! `coreml-lint.yaml` ([`Options`]), rule files ([`RuleFile`]), a rule folder's `utils.yaml`
//! of named match fragments ([`Utils`]) and baseline files ([`BaselineFile`], which
//! `check --write-baseline` writes and teams commit), generated from the types that
//! deserialize them, so the schemas cannot drift from what the loader accepts; and the `placement`
//! member of `check --placement`'s JSON output ([`PlacementDoc`]), from the type it is written
//! from. The generated
//! files are committed in `schemas/`; `tests/it/json_schema.rs` checks they are current.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

use crate::baseline::BaselineFile;
use crate::config::Options;
use crate::report::placement::PlacementDoc;
use crate::rules::compile::property_names as spec_properties;
use crate::rules::schema::{
    FunctionSpec, ModelSpec, OpProps, PeerProps, RuleFile, StateWriteSpec, TargetSpec, Utils,
    ValueSpec,
};

/// Where the committed schemas are published (the `$id`s; what a `yaml-language-server`
/// modeline points at).
pub(crate) const BASE_URL: &str =
    "https://raw.githubusercontent.com/coreml-lint/coreml-lint/main/schemas/";

/// File name of the `coreml-lint.yaml` schema in `schemas/`.
pub const CONFIG_SCHEMA_FILE: &str = "coreml-lint.schema.json";

/// File name of the rule-file schema in `schemas/`.
pub const RULE_SCHEMA_FILE: &str = "rule.schema.json";

/// File name of the schema of a rule folder's `utils.yaml` in `schemas/`.
pub const UTILS_SCHEMA_FILE: &str = "utils.schema.json";

/// File name of the schema of the JSON output's `placement` member (`check --placement`).
pub const PLACEMENT_SCHEMA_FILE: &str = "placement.schema.json";
/// File name of the baseline file's schema in `schemas/`.
pub const BASELINE_SCHEMA_FILE: &str = "baseline.schema.json";

fn schema_for<T: JsonSchema>(file: &str, title: &str) -> Value {
    let schema = SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<T>();
    // `$schema`, `$id` and `title` first, where a reader looks for them.
    let mut out = serde_json::Map::new();
    let mut generated = match schema.to_value() {
        Value::Object(o) => o,
        _ => serde_json::Map::new(),
    };
    if let Some(draft) = generated.remove("$schema") {
        out.insert("$schema".into(), draft);
    }
    out.insert("$id".into(), Value::String(format!("{BASE_URL}{file}")));
    out.insert("title".into(), Value::String(title.into()));
    generated.remove("title");
    out.extend(generated);
    Value::Object(out)
}

/// The schema of `coreml-lint.yaml`.
pub(crate) fn config_schema() -> Value {
    schema_for::<Options>(CONFIG_SCHEMA_FILE, "coreml-lint.yaml")
}

/// The schema of a rule file (`rules/<id>.yaml`).
pub(crate) fn rule_schema() -> Value {
    with_property_names(schema_for::<RuleFile>(
        RULE_SCHEMA_FILE,
        "coreml-lint rule file",
    ))
}

/// The schema of a rule folder's `utils.yaml` (named match fragments for `matches:`).
pub(crate) fn utils_schema() -> Value {
    with_property_names(schema_for::<Utils>(
        UTILS_SCHEMA_FILE,
        "coreml-lint match fragments (utils.yaml)",
    ))
}

/// A rule object's keys are the language's own (the schema's `properties`) or properties of
/// entities, which the loader checks per entity; the schema lists both as the names a rule
/// object may use (`propertyNames`), so that an editor still flags `opp:`; and the names of each
/// entity's properties for the objects that hold them (a value's under `output:`, a write's under
/// `state-write:`…), so that it flags `dtyp:` too.
fn with_property_names(mut schema: Value) -> Value {
    let Some(defs) = schema.get_mut("definitions").and_then(Value::as_object_mut) else {
        return schema;
    };
    if let Some(peers) = defs.get_mut("PeersSpec").and_then(Value::as_object_mut) {
        let mut names = own_keys(peers);
        names.extend(spec_properties::<PeerProps>());
        peers.insert("propertyNames".into(), names_enum(names));
    }
    let Some(rule) = defs.get_mut("SerRule").and_then(Value::as_object_mut) else {
        return schema;
    };
    let mut names = own_keys(rule);
    names.extend(spec_properties::<OpProps>());
    names.extend(property_names().map(str::to_string));
    rule.insert("propertyNames".into(), names_enum(names));
    let values = names_enum(spec_properties::<ValueSpec>());
    let entities = [
        ("input", values.clone()),
        ("output", values.clone()),
        (
            "state-write",
            names_enum(spec_properties::<StateWriteSpec>()),
        ),
        ("function", names_enum(spec_properties::<FunctionSpec>())),
        ("model", names_enum(spec_properties::<ModelSpec>())),
        ("target", names_enum(spec_properties::<TargetSpec>())),
    ];
    let Some(keys) = rule.get_mut("properties").and_then(Value::as_object_mut) else {
        return schema;
    };
    for (key, names) in entities {
        if let Some(k) = keys.get_mut(key).and_then(Value::as_object_mut) {
            k.insert("propertyNames".into(), names);
        }
    }
    for key in ["param", "attr"] {
        if let Some(k) = keys.get_mut(key).and_then(Value::as_object_mut) {
            k.insert(
                "additionalProperties".into(),
                serde_json::json!({ "type": "object", "propertyNames": values }),
            );
        }
    }
    schema
}

/// The names of a schema object's `properties`.
fn own_keys(object: &serde_json::Map<String, Value>) -> std::collections::BTreeSet<String> {
    object
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// `{ "enum": names }`, sorted.
fn names_enum(names: impl IntoIterator<Item = String>) -> Value {
    let names: std::collections::BTreeSet<String> = names.into_iter().collect();
    serde_json::json!({ "enum": names.into_iter().collect::<Vec<_>>() })
}

/// Every property name of every entity kind.
fn property_names() -> impl Iterator<Item = &'static str> {
    crate::analysis::registry::entity_kinds().flat_map(|k| k.properties.iter().map(|p| p.name))
}

/// The schema of the `placement` member of `check --placement --output-format json`.
pub(crate) fn placement_schema() -> Value {
    schema_for::<PlacementDoc>(
        PLACEMENT_SCHEMA_FILE,
        "coreml-lint check --placement: the JSON document's placement member",
    )
}

/// The schema of a baseline file (`check --write-baseline FILE`).
pub(crate) fn baseline_schema() -> Value {
    schema_for::<BaselineFile>(BASELINE_SCHEMA_FILE, "coreml-lint baseline")
}

/// Every schema with its file name, rendered as committed (pretty JSON, final newline).
pub fn rendered() -> [(&'static str, String); 5] {
    let render = |v: Value| {
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        s
    };
    [
        (CONFIG_SCHEMA_FILE, render(config_schema())),
        (RULE_SCHEMA_FILE, render(rule_schema())),
        (UTILS_SCHEMA_FILE, render(utils_schema())),
        (PLACEMENT_SCHEMA_FILE, render(placement_schema())),
        (BASELINE_SCHEMA_FILE, render(baseline_schema())),
    ]
}
