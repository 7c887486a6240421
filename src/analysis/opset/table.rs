//! The MIL op set as data: `rules/opset/ops.yaml` (each op's parameters per opset, checked against
//! coremltools' registry by `ci/opset-crosscheck.sh`) and `rules/opset/inference.yaml` (which ops'
//! output types are inferred, and how). Both are read at build time (`table_file.rs` has their
//! types) and embedded in postcard's binary form: the table builds from it without a parse.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::table_file::{InferenceFile, OpSetFiles, OpsFile, VersionFile};
use crate::ir::{render::text_opset, DType};

pub use super::table_file::{Deferred, ParamKind};

/// The embedded parameter table.
pub const OPS_YAML: &str = include_str!("../../../rules/opset/ops.yaml");
/// The embedded inference table.
pub const INFERENCE_YAML: &str = include_str!("../../../rules/opset/inference.yaml");
/// Both tables as `build.rs` read them, in postcard's binary form.
static BUILTIN_BINARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/opset.postcard"));

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

/// How many parameters one op version may have (its required ones are a bit mask).
const MAX_PARAMS: usize = 64;
/// How many element-type groups one op version may have.
pub(super) const MAX_GROUPS: usize = 8;

/// One parameter of one op version.
#[derive(Clone, Debug)]
pub struct ParamSpec {
    /// The parameter's name.
    pub name: String,
    /// What it binds.
    pub kind: ParamKind,
    /// Accepted element types as the table names them (for messages); empty = any.
    pub dtypes: Vec<String>,
    /// The same element types, parsed.
    accepted: Vec<DType>,
    /// The parameter's element-type group (parameters of one group must share one element type),
    /// as an index below [`MAX_GROUPS`] within its op version.
    pub group: Option<usize>,
    /// The parameter may be left out.
    pub optional: bool,
    /// Must be known at compile time.
    pub constant: bool,
}

impl ParamSpec {
    /// True when `dtype` is accepted (always when the table lists none).
    pub fn accepts(&self, dtype: DType) -> bool {
        self.accepted.is_empty() || self.accepted.contains(&dtype)
    }
}

/// One op's parameters from opset `since` on (until `until`, when it was removed).
#[derive(Clone, Debug)]
pub struct OpVersion {
    /// The first opset of this version.
    pub since: String,
    /// The first opset without it.
    pub until: Option<String>,
    /// Sorted by name.
    params: Vec<ParamSpec>,
    /// Bit `i` is set when `params[i]` is required.
    required: u64,
}

impl OpVersion {
    fn build(op: &str, file: VersionFile) -> Result<OpVersion, String> {
        if file.params.len() > MAX_PARAMS {
            return Err(format!("{op}: more than {MAX_PARAMS} parameters"));
        }
        let mut groups: Vec<String> = Vec::new();
        let mut params = Vec::with_capacity(file.params.len());
        let mut required = 0u64;
        for (i, (name, p)) in file.params.into_iter().enumerate() {
            let mut accepted = Vec::with_capacity(p.dtypes.len());
            for d in &p.dtypes {
                // Parsed names must print back as written: `accepts` then agrees with the table.
                match DType::from_text(d).filter(|t| t.known_name() == Some(d.as_str())) {
                    Some(t) => accepted.push(t),
                    None => return Err(format!("{op}.{name}: unknown dtype `{d}`")),
                }
            }
            let group = match p.group {
                None => None,
                Some(g) => Some(match groups.iter().position(|x| *x == g) {
                    Some(k) => k,
                    None if groups.len() < MAX_GROUPS => {
                        groups.push(g);
                        groups.len() - 1
                    }
                    None => return Err(format!("{op}: more than {MAX_GROUPS} dtype groups")),
                }),
            };
            if !p.optional {
                required |= 1 << i;
            }
            params.push(ParamSpec {
                name,
                kind: p.kind,
                dtypes: p.dtypes,
                accepted,
                group,
                optional: p.optional,
                constant: p.constant,
            });
        }
        Ok(OpVersion {
            since: file.since,
            until: file.until,
            params,
            required,
        })
    }

    /// Every parameter, sorted by name.
    pub fn params(&self) -> &[ParamSpec] {
        &self.params
    }

    /// The index of parameter `name` in [`OpVersion::params`].
    pub fn position(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// The parameter `name`.
    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Bit `i` is set when parameter `i` must be bound.
    pub fn required(&self) -> u64 {
        self.required
    }
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

/// How an op's first output type follows from its inputs (`rules/opset/inference.yaml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inference {
    /// The type of `x`.
    SameAsX,
    /// `x` and `y` broadcast; the element type of `x`.
    Broadcast,
    /// `x` and `y` broadcast; `bool`.
    BroadcastBool,
    /// Batch axes broadcast; `[…, M, K] × […, K, N] → […, M, N]` after the transposes.
    Matmul,
    /// `[…, D_in]` with weight `[D_out, D_in]` → `[…, D_out]`.
    Linear,
    /// Every axis equal except `axis`, whose sizes add up.
    Concat,
    /// The constant `shape`.
    Reshape,
    /// The input's axes in the constant order `perm`.
    Transpose,
    /// Per axis, the constant begin/end/stride with the masks applied.
    SliceByIndex,
    /// `x[:axis] + indices[batch_dims:] + x[axis+1:]`.
    Gather,
    /// `axes` kept as 1 or removed.
    Reduce,
    /// The shape of `x`; the element type named by `dtype`.
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

/// One op of the table: its versions, resolved per opset once.
#[derive(Clone, Debug)]
pub struct OpEntry {
    versions: Vec<OpVersion>,
    /// The version in effect at each opset of [`OPSETS`] (an index into `versions`).
    in_effect: [Option<usize>; OPSETS.len()],
    /// Index into [`OPSETS`] of the first opset that has the op.
    first: Option<usize>,
    inference: Option<Inference>,
}

impl OpEntry {
    fn build(op: &str, files: Vec<VersionFile>) -> Result<OpEntry, String> {
        let index = |o: &str| OPSETS.iter().position(|x| *x == o);
        let mut versions = Vec::with_capacity(files.len());
        let mut spans = Vec::with_capacity(files.len());
        for v in files {
            let since = index(&v.since).ok_or(format!("{op}: unknown opset `{}`", v.since))?;
            let until = match &v.until {
                Some(u) => Some(index(u).ok_or(format!("{op}: unknown opset `{u}`"))?),
                None => None,
            };
            spans.push((since, until));
            versions.push(OpVersion::build(op, v)?);
        }
        // The last version listed that covers an opset is the one in effect there.
        let in_effect = std::array::from_fn(|at| {
            spans
                .iter()
                .rposition(|&(since, until)| since <= at && until.is_none_or(|u| at < u))
        });
        Ok(OpEntry {
            versions,
            in_effect,
            first: spans.iter().map(|&(since, _)| since).min(),
            inference: None,
        })
    }

    /// The op's version in effect at opset index `at`.
    pub fn version(&self, at: usize) -> Option<&OpVersion> {
        self.versions.get((*self.in_effect.get(at)?)?)
    }

    /// The first opset that has the op.
    pub fn first_opset(&self) -> Option<&'static str> {
        OPSETS.get(self.first?).copied()
    }

    /// How the op's output type is inferred, when it is modelled.
    pub fn inference(&self) -> Option<Inference> {
        self.inference
    }
}

/// The parsed op set, by op type.
#[derive(Clone, Debug, Default)]
pub struct OpTable {
    ops: FxHashMap<String, OpEntry>,
    defer: Vec<Deferred>,
}

impl OpTable {
    /// Parses both tables; every opset name, dtype and inference kind must be known.
    pub fn parse(ops: &str, inference: &str) -> Result<OpTable, String> {
        let ops: OpsFile = crate::yaml::from_str(ops).map_err(|e| e.to_string())?;
        let inf: InferenceFile = crate::yaml::from_str(inference).map_err(|e| e.to_string())?;
        OpTable::build(ops, inf)
    }

    fn build(ops: OpsFile, inf: InferenceFile) -> Result<OpTable, String> {
        let mut table = OpTable {
            ops: FxHashMap::default(),
            defer: ops.defer,
        };
        for (name, versions) in ops.ops {
            let entry = OpEntry::build(&name, versions)?;
            table.ops.insert(name, entry);
        }
        for (kind, names) in inf.infer {
            let k = Inference::from_name(&kind).ok_or(format!("unknown inference `{kind}`"))?;
            for n in names {
                let Some(entry) = table.ops.get_mut(&n) else {
                    return Err(format!("inference for `{n}`, which is not in the op table"));
                };
                entry.inference = Some(k);
            }
        }
        Ok(table)
    }

    /// The embedded tables (empty if they do not build; a unit test makes sure they do).
    pub fn builtin() -> &'static OpTable {
        static TABLE: OnceLock<OpTable> = OnceLock::new();
        TABLE.get_or_init(|| OpTable::from_builtin_binary().unwrap_or_default())
    }

    /// The tables from their build-time binary form.
    fn from_builtin_binary() -> Result<OpTable, String> {
        let files: OpSetFiles = postcard::from_bytes(BUILTIN_BINARY).map_err(|e| e.to_string())?;
        OpTable::build(files.ops, files.inference)
    }

    /// The op's entry, when the table knows the op in some opset.
    pub fn entry(&self, op: &str) -> Option<&OpEntry> {
        self.ops.get(op)
    }

    /// True when the table knows the op in some opset.
    pub fn knows(&self, op: &str) -> bool {
        self.ops.contains_key(op)
    }

    /// The op's version in effect at opset index `at`.
    pub fn version(&self, op: &str, at: usize) -> Option<&OpVersion> {
        self.entry(op)?.version(at)
    }

    /// The first opset that has the op.
    pub fn first_opset(&self, op: &str) -> Option<&'static str> {
        self.entry(op)?.first_opset()
    }

    /// How the op's output type is inferred, when it is modelled.
    pub fn inference(&self, op: &str) -> Option<Inference> {
        self.entry(op)?.inference()
    }

    /// The rule that reports `dtype` for `op`'s `param` in place of `mil-param-dtype`, if any.
    pub fn deferred(&self, op: &str, param: &str, dtype: DType) -> Option<&str> {
        self.defer
            .iter()
            .find(|d| d.covers(op, param, dtype))
            .map(|d| d.rule.as_str())
    }

    /// Every op name, in no particular order.
    pub fn op_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.ops.keys().map(String::as_str)
    }
}
