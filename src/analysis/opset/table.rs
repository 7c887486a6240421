//! The MIL op set as data: `rules/opset/ops.yaml` (each op's parameters per opset, checked against
//! coremltools' registry by `ci/opset-crosscheck.sh`) and `rules/opset/inference.yaml` (which ops'
//! output types are inferred, and how). Both are embedded at build time.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde::Deserialize;

use crate::ir::{render::text_opset, DType};

/// The embedded parameter table.
pub const OPS_YAML: &str = include_str!("../../../rules/opset/ops.yaml");
/// The embedded inference table.
pub const INFERENCE_YAML: &str = include_str!("../../../rules/opset/inference.yaml");

/// The opsets the table describes, oldest first.
pub const OPSETS: [&str; 4] = ["ios15", "ios16", "ios17", "ios18"];

/// Where a function's opset stands relative to the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpsetPos {
    /// Index into [`OPSETS`].
    Known(usize),
    /// Newer than the table, or a name it does not know.
    NotDescribed,
}

/// `ios17` / `CoreML7` → its index in [`OPSETS`].
pub fn opset_position(opset: &str) -> OpsetPos {
    let text = text_opset(opset).to_ascii_lowercase();
    OPSETS
        .iter()
        .position(|o| *o == text)
        .map_or(OpsetPos::NotDescribed, OpsetPos::Known)
}

/// What a parameter binds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
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

/// One parameter of one op version.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    #[serde(default)]
    pub kind: ParamKind,
    /// Accepted element types; empty = any.
    #[serde(default, rename = "dtype")]
    pub dtypes: Vec<String>,
    /// Parameters of one group must share one element type.
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub optional: bool,
    /// Must be known at compile time.
    #[serde(default, rename = "const")]
    pub constant: bool,
}

impl ParamSpec {
    /// True when `dtype` is accepted (always when the table lists none).
    pub fn accepts(&self, dtype: DType) -> bool {
        self.dtypes.is_empty() || self.dtypes.iter().any(|d| d == &dtype.text_name())
    }
}

/// One op's parameters from opset `since` on (until `until`, when it was removed).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpVersion {
    pub since: String,
    #[serde(default)]
    pub until: Option<String>,
    #[serde(default)]
    pub params: BTreeMap<String, ParamSpec>,
}

/// An element-type defect that a more specific rule reports (`defer:` in ops.yaml).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deferred {
    /// The rule that reports it.
    pub rule: String,
    pub ops: Vec<String>,
    pub param: String,
    /// A dtype name, or `float` / `int` for the family.
    pub dtype: String,
}

impl Deferred {
    fn covers(&self, op: &str, param: &str, dtype: DType) -> bool {
        self.param == param
            && self.ops.iter().any(|o| o == op)
            && match self.dtype.as_str() {
                "float" => dtype.is_float(),
                "int" => dtype.is_int(),
                name => dtype.known_name() == Some(name),
            }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpsFile {
    #[serde(default)]
    defer: Vec<Deferred>,
    ops: BTreeMap<String, Vec<OpVersion>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InferenceFile {
    infer: BTreeMap<String, Vec<String>>,
}

/// How an op's first output type follows from its inputs (`rules/opset/inference.yaml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inference {
    /// The type of `x`.
    SameAsX,
    /// `x` and `y` broadcast; the element type of `x`.
    Broadcast,
    /// `x` and `y` broadcast; `bool`.
    BroadcastBool,
    Matmul,
    Linear,
    Concat,
    Reshape,
    Transpose,
    SliceByIndex,
    Gather,
    Reduce,
    Cast,
    /// The type of `val`.
    Const,
    /// The type the state wraps.
    ReadState,
}

impl Inference {
    fn from_name(name: &str) -> Option<Inference> {
        Some(match name {
            "same-as-x" => Inference::SameAsX,
            "broadcast" => Inference::Broadcast,
            "broadcast-bool" => Inference::BroadcastBool,
            "matmul" => Inference::Matmul,
            "linear" => Inference::Linear,
            "concat" => Inference::Concat,
            "reshape" => Inference::Reshape,
            "transpose" => Inference::Transpose,
            "slice-by-index" => Inference::SliceByIndex,
            "gather" => Inference::Gather,
            "reduce" => Inference::Reduce,
            "cast" => Inference::Cast,
            "const" => Inference::Const,
            "read-state" => Inference::ReadState,
            _ => return None,
        })
    }
}

/// The parsed op set.
#[derive(Clone, Debug, Default)]
pub struct OpTable {
    ops: BTreeMap<String, Vec<OpVersion>>,
    defer: Vec<Deferred>,
    inference: BTreeMap<String, Inference>,
}

impl OpTable {
    /// Parses both tables; every opset name and inference kind must be known.
    pub fn parse(ops: &str, inference: &str) -> Result<OpTable, String> {
        let ops: OpsFile = crate::yaml::from_str(ops).map_err(|e| e.to_string())?;
        for (name, versions) in &ops.ops {
            for v in versions {
                for o in std::iter::once(&v.since).chain(v.until.as_ref()) {
                    if !OPSETS.contains(&o.as_str()) {
                        return Err(format!("{name}: unknown opset `{o}`"));
                    }
                }
                for (p, spec) in &v.params {
                    if let Some(d) = spec.dtypes.iter().find(|d| DType::from_text(d).is_none()) {
                        return Err(format!("{name}.{p}: unknown dtype `{d}`"));
                    }
                }
            }
        }
        let inf: InferenceFile = crate::yaml::from_str(inference).map_err(|e| e.to_string())?;
        let mut inference = BTreeMap::new();
        for (kind, names) in inf.infer {
            let k = Inference::from_name(&kind).ok_or(format!("unknown inference `{kind}`"))?;
            for n in names {
                if !ops.ops.contains_key(&n) {
                    return Err(format!("inference for `{n}`, which is not in the op table"));
                }
                inference.insert(n, k);
            }
        }
        Ok(OpTable {
            ops: ops.ops,
            defer: ops.defer,
            inference,
        })
    }

    /// The embedded tables (empty if they do not parse; a unit test makes sure they do).
    pub fn builtin() -> &'static OpTable {
        static TABLE: OnceLock<OpTable> = OnceLock::new();
        TABLE.get_or_init(|| OpTable::parse(OPS_YAML, INFERENCE_YAML).unwrap_or_default())
    }

    /// True when the table knows the op in some opset.
    pub fn knows(&self, op: &str) -> bool {
        self.ops.contains_key(op)
    }

    /// The op's version in effect at opset index `at`.
    pub fn version(&self, op: &str, at: usize) -> Option<&OpVersion> {
        let index = |o: &str| OPSETS.iter().position(|x| *x == o);
        self.ops.get(op)?.iter().rev().find(|v| {
            index(&v.since).is_some_and(|s| s <= at)
                && v.until.as_deref().and_then(index).is_none_or(|u| at < u)
        })
    }

    /// The first opset that has the op.
    pub fn first_opset(&self, op: &str) -> Option<&str> {
        self.ops
            .get(op)?
            .iter()
            .map(|v| v.since.as_str())
            .min_by_key(|s| OPSETS.iter().position(|x| x == s))
    }

    /// How the op's output type is inferred, when it is modelled.
    pub fn inference(&self, op: &str) -> Option<Inference> {
        self.inference.get(op).copied()
    }

    /// The rule that reports `dtype` for `op`'s `param` in place of `mil-param-dtype`, if any.
    pub fn deferred(&self, op: &str, param: &str, dtype: DType) -> Option<&str> {
        self.defer
            .iter()
            .find(|d| d.covers(op, param, dtype))
            .map(|d| d.rule.as_str())
    }

    /// Every op name.
    pub fn op_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.ops.keys().map(String::as_str)
    }

    /// Every parameter name of the op in any opset.
    pub fn all_params(&self, op: &str) -> BTreeSet<&str> {
        self.ops
            .get(op)
            .into_iter()
            .flatten()
            .flat_map(|v| v.params.keys().map(String::as_str))
            .collect()
    }
}
