//! Likely placement: where each op of a function is likely to run — on the Neural Engine, on the
//! CPU, at risk, or unknown — with the reason, its cost in multiply-accumulates, and per function
//! the counts, the cost by device and the ANE↔CPU boundaries. An estimate from the op table
//! (`rules/placement/op-table.yaml`, whose header explains the classification order) and from the
//! ops the rules flagged, never a claim of placement: only MLComputePlan on the target device says
//! where an op runs.
//!
//! The pass does not read findings (they sit above analysis): the caller names the flagged ops and
//! the function's risk in [`Flags`].

pub mod macs;
pub mod table;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::analysis::dependence::{self, DependenceMap};
use crate::ir::{Arg, Function, NodeId, Op, ValueType};

use table::has;
pub use table::OpTable;

/// Where an op is likely to run, by the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Likely {
    /// Likely on the Neural Engine.
    Ane,
    /// Likely on the CPU.
    Cpu,
    /// An ANE op in a function or at an op a rule reports.
    AtRisk,
    /// Not in the op table.
    Unknown,
}

impl Likely {
    /// `ane`, `cpu`, `at-risk` or `unknown` (the JSON `device`).
    pub fn code(self) -> &'static str {
        match self {
            Likely::Ane => "ane",
            Likely::Cpu => "cpu",
            Likely::AtRisk => "at-risk",
            Likely::Unknown => "unknown",
        }
    }
}

/// Why an op got its estimate.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// The op table lists the type as a CPU op (`topk`, `while_loop`, …).
    CpuOp,
    /// A function of at most `tiny-program-ops` counted ops: Core ML keeps it on the CPU.
    TinyProgram {
        /// Counted ops in the function.
        ops: usize,
    },
    /// A `gather` of a constant table by run-time integer ids (an embedding lookup).
    EmbeddingLookup,
    /// The op reads indices made by an index producer (`topk`, `argsort`).
    IndexConsumer {
        /// The name of the op whose indices it reads.
        source: String,
    },
    /// An output element type the ANE does not compute in.
    Dtype {
        /// The element type, as MIL writes it.
        dtype: String,
    },
    /// A gather / select / reduce tail whose result is a function output.
    OutputTail,
    /// A rule of `op-cpu-rules` reports the op.
    CpuFinding {
        /// The rule id.
        rule: String,
    },
    /// A rule of `op-risk-rules` reports the op.
    OpFinding {
        /// The rule id.
        rule: String,
    },
    /// A rule of `function-risk-rules` reports the function.
    FunctionFinding {
        /// The rule id.
        rule: String,
    },
    /// The op table lists the type as an ANE op.
    AneOp,
    /// The type is not in the op table.
    NotInTable,
}

impl Reason {
    /// One line a person reads about why an op got its estimate.
    pub fn text(&self) -> String {
        match self {
            Reason::CpuOp => "a CPU op type".into(),
            Reason::TinyProgram { ops: 1 } => {
                "a program of 1 op: Core ML keeps tiny programs on the CPU".into()
            }
            Reason::TinyProgram { ops } => {
                format!("a program of {ops} ops: Core ML keeps tiny programs on the CPU")
            }
            Reason::EmbeddingLookup => {
                "an embedding lookup: a constant table gathered by run-time ids".into()
            }
            Reason::IndexConsumer { source } => format!("reads the indices of `{source}`"),
            Reason::Dtype { dtype } => format!("computes in {dtype} (the ANE computes fp16)"),
            Reason::OutputTail => "a gather/select/reduce tail on the output path".into(),
            Reason::CpuFinding { rule } => format!("`{rule}` reports it"),
            Reason::OpFinding { rule } => format!("`{rule}` reports it"),
            Reason::FunctionFinding { rule } => format!("`{rule}` reports its function"),
            Reason::AneOp => "an ANE op type".into(),
            Reason::NotInTable => "not in the op table".into(),
        }
    }

    /// A stable kebab-case code (the JSON `reason`).
    pub fn code(&self) -> &'static str {
        match self {
            Reason::CpuOp => "cpu-op",
            Reason::TinyProgram { .. } => "tiny-program",
            Reason::EmbeddingLookup => "embedding-lookup",
            Reason::IndexConsumer { .. } => "index-consumer",
            Reason::Dtype { .. } => "dtype",
            Reason::OutputTail => "output-tail",
            Reason::CpuFinding { .. } => "cpu-finding",
            Reason::OpFinding { .. } => "op-finding",
            Reason::FunctionFinding { .. } => "function-finding",
            Reason::AneOp => "ane-op",
            Reason::NotInTable => "not-in-table",
        }
    }
}

/// One op's estimate and its reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Where it likely runs.
    pub likely: Likely,
    /// Why.
    pub reason: Reason,
}

impl Placement {
    fn new(likely: Likely, reason: Reason) -> Placement {
        Placement { likely, reason }
    }
}

/// One counted op: its node, estimate and cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedOp {
    /// The op's node in the function.
    pub node: NodeId,
    /// The estimate and its reason.
    pub placement: Placement,
    /// Its multiply-accumulates ([`macs::estimate`]); `None` when unknown.
    pub macs: Option<u64>,
}

/// Counted ops per class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Likely on the Neural Engine.
    pub ane: usize,
    /// Likely on the CPU.
    pub cpu: usize,
    /// At risk of leaving the Neural Engine.
    pub at_risk: usize,
    /// Not in the op table.
    pub unknown: usize,
}

impl Counts {
    /// Counts one more op of class `likely`.
    pub fn add(&mut self, likely: Likely) {
        match likely {
            Likely::Ane => self.ane += 1,
            Likely::Cpu => self.cpu += 1,
            Likely::AtRisk => self.at_risk += 1,
            Likely::Unknown => self.unknown += 1,
        }
    }

    /// Ops counted (constants excluded).
    pub fn total(&self) -> usize {
        self.ane + self.cpu + self.at_risk + self.unknown
    }
}

/// Multiply-accumulates per class, over the ops whose cost is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Macs {
    /// Of ops likely on the Neural Engine.
    pub ane: u64,
    /// Of ops likely on the CPU.
    pub cpu: u64,
    /// Of ops at risk.
    pub at_risk: u64,
    /// Of ops not in the op table.
    pub unknown: u64,
    /// Ops whose cost is unknown (they add nothing to the sums above).
    pub unestimated_ops: usize,
}

impl Macs {
    fn add(&mut self, likely: Likely, macs: Option<u64>) {
        let Some(n) = macs else {
            self.unestimated_ops += 1;
            return;
        };
        let slot = match likely {
            Likely::Ane => &mut self.ane,
            Likely::Cpu => &mut self.cpu,
            Likely::AtRisk => &mut self.at_risk,
            Likely::Unknown => &mut self.unknown,
        };
        *slot = slot.saturating_add(n);
    }

    /// The known total.
    pub fn total(&self) -> u64 {
        self.ane
            .saturating_add(self.cpu)
            .saturating_add(self.at_risk)
            .saturating_add(self.unknown)
    }

    /// The Neural Engine's share of the known total, in percent (`None` when the total is 0).
    pub fn ane_share(&self) -> Option<f64> {
        let total = self.total();
        (total > 0).then(|| 100.0 * self.ane as f64 / total as f64)
    }
}

/// The estimate of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionPlacement {
    /// Every counted op, in program order.
    pub ops: Vec<PlacedOp>,
    /// Ops per class.
    pub counts: Counts,
    /// Multiply-accumulates per class.
    pub macs: Macs,
    /// Data edges between an op likely on the ANE and one likely on the CPU (each value an op reads
    /// once).
    pub boundaries: usize,
}

impl FunctionPlacement {
    /// Node → class, for lookups over many ops.
    pub fn by_node(&self) -> FxHashMap<NodeId, Likely> {
        self.ops
            .iter()
            .map(|o| (o.node, o.placement.likely))
            .collect()
    }
}

/// What the rules flagged in one function, by name: the caller computes it from the findings with
/// the op table's `function-risk-rules`, `op-risk-rules` and `op-cpu-rules`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// The first function-risk rule that reports the function.
    pub function_risk: Option<String>,
    /// Op name → the op-risk rule that reports it.
    pub op_risk: BTreeMap<String, String>,
    /// Op name → the op-CPU rule that reports it.
    pub op_cpu: BTreeMap<String, String>,
}

/// True when `op`'s result is a function output, directly or through pass-through ops.
fn on_output_path(t: &OpTable, f: &Function, op: &Op, depth: u32) -> bool {
    let outputs = f.outputs();
    op.outputs.iter().any(|o| {
        if outputs.contains(&o.name) {
            return true;
        }
        if depth >= 8 {
            return false;
        }
        let Some(def) = f.def(&o.name) else {
            return false;
        };
        f.consumers(def.node).into_iter().any(|(n, _)| {
            f.op(n).is_some_and(|c| {
                has(&t.pass_through, &c.op_type) && on_output_path(t, f, c, depth + 1)
            })
        })
    })
}

fn is_integer(ty: &ValueType) -> bool {
    matches!(ty, ValueType::Tensor(tt) if tt.dtype.is_int())
}

/// Value name → the index producer whose indices it carries (one pass in program order).
fn index_sources<'f>(t: &OpTable, f: &'f Function) -> FxHashMap<&'f str, &'f str> {
    let mut sources: FxHashMap<&'f str, &'f str> = FxHashMap::default();
    for (_, op) in f.ops() {
        let carried = arg_names(op).find_map(|a| sources.get(a).copied());
        let produced: &[usize] = t
            .index_producers
            .get(op.op_type.as_str())
            .map_or(&[], Vec::as_slice);
        for (i, o) in op.outputs.iter().enumerate() {
            let source = if produced.contains(&i) {
                Some(op.display_name())
            } else if is_integer(&o.ty) {
                carried
            } else {
                None
            };
            if let Some(s) = source {
                sources.insert(o.name.as_str(), s);
            }
        }
    }
    sources
}

fn arg_names(op: &Op) -> impl Iterator<Item = &str> {
    op.inputs.iter().flat_map(|p| {
        p.args.iter().filter_map(|a| match a {
            Arg::Name(n) => Some(n.as_str()),
            Arg::Value(_) => None,
        })
    })
}

/// The type of the op producing `value`, when an op does.
fn producer_type<'f>(f: &'f Function, value: &str) -> Option<&'f str> {
    let def = f.def(value)?;
    f.op(def.node).map(|o| o.op_type.as_str())
}

/// True for a gather of a constant table by run-time integer ids.
fn is_embedding_lookup(t: &OpTable, f: &Function, op: &Op, deps: &DependenceMap) -> bool {
    if !has(&t.embedding_lookups, &op.op_type) {
        return false;
    }
    let table_is_constant = op
        .arg_name("x")
        .and_then(|x| producer_type(f, x))
        .is_some_and(|ty| t.not_counted(ty));
    let ids_at_run_time = op
        .arg_name("indices")
        .is_some_and(|i| f.value_type(i).is_some_and(is_integer) && deps.is_runtime(i));
    table_is_constant && ids_at_run_time
}

struct Context<'a, 'f> {
    t: &'a OpTable,
    f: &'f Function,
    deps: DependenceMap,
    index_sources: FxHashMap<&'f str, &'f str>,
    flags: &'a Flags,
}

/// Classifies one op; `None` for ops that are not counted.
fn classify(cx: &Context<'_, '_>, op: &Op) -> Option<Placement> {
    let (t, f, found) = (cx.t, cx.f, cx.flags);
    let ty = op.op_type.as_str();
    if t.not_counted(ty) {
        return None;
    }
    let cpu = |reason| Some(Placement::new(Likely::Cpu, reason));
    if has(&t.likely_cpu, ty) {
        return cpu(Reason::CpuOp);
    }
    if let Some(rule) = found.op_cpu.get(op.display_name()) {
        return cpu(Reason::CpuFinding { rule: rule.clone() });
    }
    if is_embedding_lookup(t, f, op, &cx.deps) {
        return cpu(Reason::EmbeddingLookup);
    }
    if let Some(source) = arg_names(op).find_map(|a| cx.index_sources.get(a)) {
        return cpu(Reason::IndexConsumer {
            source: source.to_string(),
        });
    }
    let off_dtype = op.outputs.iter().find_map(|o| match &o.ty {
        ValueType::Tensor(tt) if !has(&t.ane_dtypes, &tt.dtype.text_name()) => {
            Some(tt.dtype.text_name())
        }
        _ => None,
    });
    if let Some(dtype) = off_dtype {
        return cpu(Reason::Dtype { dtype });
    }
    if has(&t.likely_cpu_on_output_path, ty) && on_output_path(t, f, op, 0) {
        return cpu(Reason::OutputTail);
    }
    if let Some(rule) = found.op_risk.get(op.display_name()) {
        return Some(Placement::new(
            Likely::AtRisk,
            Reason::OpFinding { rule: rule.clone() },
        ));
    }
    if has(&t.likely_ane, ty) {
        return Some(match &found.function_risk {
            Some(rule) => Placement::new(
                Likely::AtRisk,
                Reason::FunctionFinding { rule: rule.clone() },
            ),
            None => Placement::new(Likely::Ane, Reason::AneOp),
        });
    }
    Some(Placement::new(Likely::Unknown, Reason::NotInTable))
}

/// Data edges between an op likely on the ANE and one likely on the CPU: each value a counted op
/// reads from another counted op, once per reading op.
fn boundaries(f: &Function, ops: &[PlacedOp]) -> usize {
    let class: FxHashMap<NodeId, Likely> =
        ops.iter().map(|o| (o.node, o.placement.likely)).collect();
    let mut n = 0;
    for o in ops {
        let Some(op) = f.op(o.node) else {
            continue;
        };
        let mut read: Vec<&str> = arg_names(op).collect();
        read.sort_unstable();
        read.dedup();
        for value in read {
            let Some(from) = f.def(value).and_then(|d| class.get(&d.node)) else {
                continue;
            };
            let pair = (*from, o.placement.likely);
            if matches!(
                pair,
                (Likely::Ane, Likely::Cpu) | (Likely::Cpu, Likely::Ane)
            ) {
                n += 1;
            }
        }
    }
    n
}

/// The estimate of every counted op of `f`, in program order, with the function's totals.
pub fn place_function(t: &OpTable, f: &Function, flags: &Flags) -> FunctionPlacement {
    let cx = Context {
        t,
        f,
        deps: dependence::analyze(f),
        index_sources: index_sources(t, f),
        flags,
    };
    let mut ops: Vec<PlacedOp> = f
        .ops()
        .filter_map(|(id, op)| {
            classify(&cx, op).map(|placement| PlacedOp {
                node: id,
                placement,
                macs: macs::estimate(&t.macs, f, op),
            })
        })
        .collect();
    let n = ops.len();
    if n > 0 && n <= t.tiny_program_ops {
        for o in &mut ops {
            if o.placement.likely != Likely::Cpu {
                o.placement = Placement::new(Likely::Cpu, Reason::TinyProgram { ops: n });
            }
        }
    }
    let mut counts = Counts::default();
    let mut by_device = Macs::default();
    for o in &ops {
        counts.add(o.placement.likely);
        by_device.add(o.placement.likely, o.macs);
    }
    FunctionPlacement {
        boundaries: boundaries(f, &ops),
        ops,
        counts,
        macs: by_device,
    }
}

#[cfg(test)]
mod tests;
