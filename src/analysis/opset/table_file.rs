//! The op set tables as `rules/opset/*.yaml` write them. `build.rs` reads the YAML into these types
//! and stores them in postcard's binary form, which `table.rs` reads back at run time; so this file
//! uses nothing but serde and the standard library.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What a parameter binds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParamKind {
    /// A tensor (or scalar) value.
    #[default]
    Tensor,
    /// A `state<…>` function input.
    State,
    /// A tuple of values (`concat.values`).
    Tuple,
    /// A list value.
    List,
    /// Anything (`const.val`, list-or-tensor parameters).
    Any,
}

/// One parameter of one op version as `ops.yaml` writes it.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ParamFile {
    #[serde(default)]
    pub kind: ParamKind,
    #[serde(default, rename = "dtype")]
    pub dtypes: Vec<String>,
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub optional: bool,
    #[serde(default, rename = "const")]
    pub constant: bool,
}

/// One op version as `ops.yaml` writes it.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VersionFile {
    pub since: String,
    #[serde(default)]
    pub until: Option<String>,
    #[serde(default)]
    pub params: BTreeMap<String, ParamFile>,
}

/// An element-type defect that a more specific rule reports (`defer:` in ops.yaml).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Deferred {
    /// The rule that reports it.
    pub rule: String,
    /// The ops it covers.
    pub ops: Vec<String>,
    /// The parameter it covers.
    pub param: String,
    /// A dtype name, or `float` / `int` for the family.
    pub dtype: String,
}

/// `rules/opset/ops.yaml`.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpsFile {
    #[serde(default)]
    pub defer: Vec<Deferred>,
    pub ops: BTreeMap<String, Vec<VersionFile>>,
}

/// `rules/opset/inference.yaml`.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct InferenceFile {
    pub infer: BTreeMap<String, Vec<String>>,
}

/// Both tables, as `build.rs` stores them.
#[derive(Deserialize, Serialize)]
pub(crate) struct OpSetFiles {
    pub ops: OpsFile,
    pub inference: InferenceFile,
}
