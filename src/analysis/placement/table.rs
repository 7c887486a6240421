//! The op table the placement estimate classifies with (`rules/placement/op-table.yaml`): data,
//! read here like the op-set tables; [`super`] applies it to a function.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The embedded op table.
pub const OP_TABLE: &str = include_str!("../../../rules/placement/op-table.yaml");

/// `rules/placement/op-table.yaml`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OpTable {
    /// Element types the ANE computes in.
    pub ane_dtypes: Vec<String>,
    /// Types not counted at all (compile-time constants).
    pub not_counted: Vec<String>,
    /// Prefixes of types not counted (`constexpr_`).
    pub not_counted_prefixes: Vec<String>,
    /// Types likely on the ANE.
    pub likely_ane: Vec<String>,
    /// Types likely on the CPU.
    pub likely_cpu: Vec<String>,
    /// Types likely on the CPU when their result is a function output.
    pub likely_cpu_on_output_path: Vec<String>,
    /// Types an output path passes through (`reshape`, `cast`, …).
    pub pass_through: Vec<String>,
    /// Rules whose finding on a function puts its likely-ANE ops at risk.
    pub function_risk_rules: Vec<String>,
    /// Rules whose finding on an op puts that op at risk.
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
    /// The op types of each cost family (how many multiply-accumulates an op does).
    #[serde(default)]
    pub macs: MacFamilies,
}

/// `macs:` of the op table: the op types whose cost each formula of [`super::macs`] estimates.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MacFamilies {
    /// `conv`: output elements · the weight's dimensions after the first.
    #[serde(default)]
    pub conv: Vec<String>,
    /// `conv_transpose`: input elements · the weight's dimensions after the first.
    #[serde(default)]
    pub conv_transpose: Vec<String>,
    /// `linear`: output elements · the input's last dimension.
    #[serde(default)]
    pub linear: Vec<String>,
    /// `matmul`: output elements · the reduced dimension.
    #[serde(default)]
    pub matmul: Vec<String>,
    /// `einsum`: the product of the sizes of every index of the equation.
    #[serde(default)]
    pub einsum: Vec<String>,
    /// Attention: two matmuls, batch · L · S · (E + E_v).
    #[serde(default)]
    pub attention: Vec<String>,
    /// Recurrent layers: T · B · (|W_ih| + |W_hh|) per direction.
    #[serde(default)]
    pub recurrent: Vec<String>,
    /// One per output element.
    #[serde(default)]
    pub elementwise: Vec<String>,
    /// One per input element.
    #[serde(default)]
    pub reduction: Vec<String>,
    /// Output elements · the kernel window.
    #[serde(default)]
    pub pooling: Vec<String>,
    /// 0: moves, copies or converts elements without arithmetic.
    #[serde(default)]
    pub data_movement: Vec<String>,
}

/// A cost family of [`MacFamilies`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // each variant is the list of the same name above
pub enum MacFamily {
    Conv,
    ConvTranspose,
    Linear,
    Matmul,
    Einsum,
    Attention,
    Recurrent,
    Elementwise,
    Reduction,
    Pooling,
    DataMovement,
}

impl MacFamilies {
    /// The family that lists `op_type`, if one does.
    pub fn of(&self, op_type: &str) -> Option<MacFamily> {
        self.all()
            .find(|(t, _)| *t == op_type)
            .map(|(_, family)| family)
    }

    /// Every listed op type with its family.
    pub fn all(&self) -> impl Iterator<Item = (&str, MacFamily)> + '_ {
        [
            (&self.conv, MacFamily::Conv),
            (&self.conv_transpose, MacFamily::ConvTranspose),
            (&self.linear, MacFamily::Linear),
            (&self.matmul, MacFamily::Matmul),
            (&self.einsum, MacFamily::Einsum),
            (&self.attention, MacFamily::Attention),
            (&self.recurrent, MacFamily::Recurrent),
            (&self.elementwise, MacFamily::Elementwise),
            (&self.reduction, MacFamily::Reduction),
            (&self.pooling, MacFamily::Pooling),
            (&self.data_movement, MacFamily::DataMovement),
        ]
        .into_iter()
        .flat_map(|(list, family)| list.iter().map(move |t| (t.as_str(), family)))
    }
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

    /// True for a type the estimate does not count (constants).
    pub fn not_counted(&self, op_type: &str) -> bool {
        has(&self.not_counted, op_type)
            || self
                .not_counted_prefixes
                .iter()
                .any(|p| op_type.starts_with(p.as_str()))
    }
}

pub(super) fn has(list: &[String], s: &str) -> bool {
    list.iter().any(|x| x == s)
}
