//! The op table `check --placement` estimates with (`rules/placement/op-table.yaml`): rule data,
//! so it is parsed here, next to the rules; `report::placement` renders the estimate.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The embedded op table.
pub const OP_TABLE: &str = include_str!("../../rules/placement/op-table.yaml");

/// `rules/placement/op-table.yaml`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OpTable {
    pub ane_dtypes: Vec<String>,
    pub not_counted: Vec<String>,
    pub not_counted_prefixes: Vec<String>,
    pub likely_ane: Vec<String>,
    pub likely_cpu: Vec<String>,
    pub likely_cpu_on_output_path: Vec<String>,
    pub pass_through: Vec<String>,
    pub function_risk_rules: Vec<String>,
    pub op_risk_rules: Vec<String>,
    /// Rules whose finding on an op puts that op on the CPU.
    #[serde(default)]
    pub op_cpu_rules: Vec<String>,
    /// Gather types that run on the CPU when they read a constant table by run-time ids.
    #[serde(default)]
    pub embedding_lookups: Vec<String>,
    /// Op types whose listed outputs are indices; integer values computed from them stay indices,
    /// and the ops that read them run on the CPU.
    #[serde(default)]
    pub index_producers: BTreeMap<String, Vec<usize>>,
    /// A function of at most this many counted ops stays on the CPU.
    #[serde(default)]
    pub tiny_program_ops: usize,
}

impl OpTable {
    /// Parses a table.
    pub fn parse(text: &str) -> Result<OpTable, String> {
        crate::yaml::from_str(text).map_err(|e| e.to_string())
    }

    /// The embedded table (an empty table if it does not parse; a unit test makes sure it does).
    pub fn builtin() -> &'static OpTable {
        static TABLE: OnceLock<OpTable> = OnceLock::new();
        TABLE.get_or_init(|| OpTable::parse(OP_TABLE).unwrap_or_default())
    }
}
