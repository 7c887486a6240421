//! `check --placement`: where each op is likely to run — on the Neural Engine, on the CPU, at risk,
//! or unknown — from the op table in `rules/placement/op-table.yaml` and the findings of the run, with
//! the reason for each op. An estimate, never a claim of placement: only MLComputePlan on the target
//! device says where an op runs. The table's header explains the classification order.

use std::collections::BTreeMap;
use std::fmt::Write;

use rustc_hash::FxHashMap;
use serde_json::{json, Value};

use crate::check::{CheckRun, ModelOutcome};
use crate::finding::Finding;
use crate::ir::{Function, Node, NodeId, Op, SubModel, ValueType};
use crate::rules::placement::OpTable;

/// Where an op is likely to run, by the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
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

    /// One line a person reads.
    pub fn detail(&self) -> String {
        match self {
            Reason::CpuOp => "a CPU op type".into(),
            Reason::TinyProgram { ops } => format!(
                "a program of {}: Core ML keeps tiny programs on the CPU",
                plural(*ops, "op")
            ),
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

/// The estimate of one op of a checked model (`--placement` JSON lists one per counted op).
#[derive(Clone, Debug)]
pub struct OpPlacement {
    /// The model's path as the run names it.
    pub path: String,
    /// The pipeline sub-model, when the model is one.
    pub sub_model: Option<SubModel>,
    /// The function.
    pub function: String,
    /// The op's name (`Op::display_name`).
    pub op: String,
    /// The op type.
    pub op_type: String,
    /// The estimate and its reason.
    pub placement: Placement,
}

/// Counts for one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FunctionEstimate {
    pub model: String,
    pub function: String,
    pub ane: usize,
    pub cpu: usize,
    pub at_risk: usize,
    pub unknown: usize,
}

impl FunctionEstimate {
    /// Ops counted (constants excluded).
    pub(crate) fn total(&self) -> usize {
        self.ane + self.cpu + self.at_risk + self.unknown
    }

    fn count(&mut self, likely: Likely) {
        match likely {
            Likely::Ane => self.ane += 1,
            Likely::Cpu => self.cpu += 1,
            Likely::AtRisk => self.at_risk += 1,
            Likely::Unknown => self.unknown += 1,
        }
    }
}

fn has(list: &[String], s: &str) -> bool {
    list.iter().any(|x| x == s)
}

fn not_counted(t: &OpTable, ty: &str) -> bool {
    has(&t.not_counted, ty) || t.not_counted_prefixes.iter().any(|p| ty.starts_with(p))
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

/// What one forward pass over a function knows about each value: whether it depends on run-time
/// data (a function or block input), and which index producer's indices it carries.
struct ValueFacts<'f> {
    runtime: FxHashMap<&'f str, bool>,
    index_source: FxHashMap<&'f str, &'f str>,
}

impl<'f> ValueFacts<'f> {
    /// One pass in program order: producers come before their consumers.
    fn of(t: &OpTable, f: &'f Function) -> ValueFacts<'f> {
        let mut facts = ValueFacts {
            runtime: FxHashMap::default(),
            index_source: FxHashMap::default(),
        };
        for (_, op) in f.ops() {
            let args: Vec<&'f str> = arg_names(op).collect();
            let runtime = args.iter().any(|a| facts.is_runtime(f, a));
            let carried = args.iter().find_map(|a| facts.index_source.get(a).copied());
            let produced: &[usize] = t
                .index_producers
                .get(op.op_type.as_str())
                .map_or(&[], Vec::as_slice);
            for (i, o) in op.outputs.iter().enumerate() {
                facts.runtime.insert(o.name.as_str(), runtime);
                let source = if produced.contains(&i) {
                    Some(op.display_name())
                } else if is_integer(&o.ty) {
                    carried
                } else {
                    None
                };
                if let Some(s) = source {
                    facts.index_source.insert(o.name.as_str(), s);
                }
            }
        }
        facts
    }

    /// A value defined by an input node, or computed from one.
    fn is_runtime(&self, f: &Function, value: &str) -> bool {
        match self.runtime.get(value) {
            Some(&r) => r,
            None => f
                .def(value)
                .and_then(|d| f.node(d.node))
                .is_none_or(|n| matches!(n, Node::Input(_))),
        }
    }
}

fn arg_names(op: &Op) -> impl Iterator<Item = &str> {
    op.inputs.iter().flat_map(|p| {
        p.args.iter().filter_map(|a| match a {
            crate::ir::Arg::Name(n) => Some(n.as_str()),
            crate::ir::Arg::Value(_) => None,
        })
    })
}

/// The type of the op producing `value`, when an op does.
fn producer_type<'f>(f: &'f Function, value: &str) -> Option<&'f str> {
    let def = f.def(value)?;
    f.op(def.node).map(|o| o.op_type.as_str())
}

/// True for a gather of a constant table by run-time integer ids.
fn is_embedding_lookup(t: &OpTable, f: &Function, op: &Op, facts: &ValueFacts<'_>) -> bool {
    if !has(&t.embedding_lookups, &op.op_type) {
        return false;
    }
    let table_is_constant = op
        .arg_name("x")
        .and_then(|x| producer_type(f, x))
        .is_some_and(|ty| not_counted(t, ty));
    let ids_at_run_time = op
        .arg_name("indices")
        .is_some_and(|i| f.value_type(i).is_some_and(is_integer) && facts.is_runtime(f, i));
    table_is_constant && ids_at_run_time
}

/// The findings of one function that move its estimate.
struct FunctionFindings<'a> {
    function_risk: Option<&'a str>,
    op_risk: BTreeMap<&'a str, &'a str>,
    op_cpu: BTreeMap<&'a str, &'a str>,
}

impl<'a> FunctionFindings<'a> {
    fn of(t: &OpTable, f: &Function, findings: &'a [Finding]) -> FunctionFindings<'a> {
        let mine: Vec<&Finding> = findings
            .iter()
            .filter(|x| x.function.as_deref() == Some(f.name.as_str()))
            .collect();
        let function_risk = mine
            .iter()
            .find(|x| has(&t.function_risk_rules, &x.rule))
            .map(|x| x.rule.as_str());
        // An origin finding names its op and every op its region covers.
        let ops_of = |list: &[String]| -> BTreeMap<&'a str, &'a str> {
            let mut m = BTreeMap::new();
            for x in mine.iter().filter(|x| has(list, &x.rule)) {
                let names = x.op.as_deref().into_iter().chain(
                    x.covered
                        .iter()
                        .flat_map(|c| c.names.iter().map(String::as_str)),
                );
                for n in names {
                    m.entry(n).or_insert(x.rule.as_str());
                }
            }
            m
        };
        FunctionFindings {
            function_risk,
            op_risk: ops_of(&t.op_risk_rules),
            op_cpu: ops_of(&t.op_cpu_rules),
        }
    }
}

/// Classifies one op; `None` for ops that are not counted.
fn classify(
    t: &OpTable,
    f: &Function,
    op: &Op,
    facts: &ValueFacts<'_>,
    found: &FunctionFindings<'_>,
) -> Option<Placement> {
    let ty = op.op_type.as_str();
    if not_counted(t, ty) {
        return None;
    }
    let cpu = |reason| Some(Placement::new(Likely::Cpu, reason));
    if has(&t.likely_cpu, ty) {
        return cpu(Reason::CpuOp);
    }
    if let Some(rule) = found.op_cpu.get(op.display_name()) {
        return cpu(Reason::CpuFinding {
            rule: rule.to_string(),
        });
    }
    if is_embedding_lookup(t, f, op, facts) {
        return cpu(Reason::EmbeddingLookup);
    }
    if let Some(source) = arg_names(op).find_map(|a| facts.index_source.get(a)) {
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
        return cpu(Reason::Dtype {
            dtype: dtype.to_string(),
        });
    }
    if has(&t.likely_cpu_on_output_path, ty) && on_output_path(t, f, op, 0) {
        return cpu(Reason::OutputTail);
    }
    if let Some(rule) = found.op_risk.get(op.display_name()) {
        return Some(Placement::new(
            Likely::AtRisk,
            Reason::OpFinding {
                rule: rule.to_string(),
            },
        ));
    }
    if has(&t.likely_ane, ty) {
        return Some(match found.function_risk {
            Some(rule) => Placement::new(
                Likely::AtRisk,
                Reason::FunctionFinding {
                    rule: rule.to_string(),
                },
            ),
            None => Placement::new(Likely::Ane, Reason::AneOp),
        });
    }
    Some(Placement::new(Likely::Unknown, Reason::NotInTable))
}

/// Every counted op of `f` with its estimate, in program order.
pub(crate) fn place_function<'f>(
    t: &OpTable,
    f: &'f Function,
    findings: &[Finding],
) -> Vec<(NodeId, &'f Op, Placement)> {
    let facts = ValueFacts::of(t, f);
    let found = FunctionFindings::of(t, f, findings);
    let mut placed: Vec<(NodeId, &Op, Placement)> = f
        .ops()
        .filter_map(|(id, op)| classify(t, f, op, &facts, &found).map(|p| (id, op, p)))
        .collect();
    let ops = placed.len();
    if ops > 0 && ops <= t.tiny_program_ops {
        for (_, _, p) in &mut placed {
            if p.likely != Likely::Cpu {
                *p = Placement::new(Likely::Cpu, Reason::TinyProgram { ops });
            }
        }
    }
    placed
}

/// The estimate for one function given the findings of its model.
#[cfg(test)]
pub(crate) fn estimate_function(
    t: &OpTable,
    model: &str,
    f: &Function,
    findings: &[Finding],
) -> FunctionEstimate {
    let mut e = FunctionEstimate {
        model: model.to_string(),
        function: f.name.clone(),
        ..FunctionEstimate::default()
    };
    for (_, _, p) in place_function(t, f, findings) {
        e.count(p.likely);
    }
    e
}

/// One function's estimate: its counts and every counted op.
struct FunctionPlacement {
    estimate: FunctionEstimate,
    ops: Vec<OpPlacement>,
}

fn place_run(run: &CheckRun, t: &OpTable) -> Vec<FunctionPlacement> {
    let mut out = Vec::new();
    for m in &run.models {
        if let ModelOutcome::Checked { model, findings } = &m.outcome {
            let path = m.path.display().to_string();
            let name = match &model.sub_model {
                Some(sub) => format!("{path} ({sub})"),
                None => path.clone(),
            };
            for f in &model.program.functions {
                let mut estimate = FunctionEstimate {
                    model: name.clone(),
                    function: f.name.clone(),
                    ..FunctionEstimate::default()
                };
                let ops = place_function(t, f, findings)
                    .into_iter()
                    .map(|(_, op, placement)| {
                        estimate.count(placement.likely);
                        OpPlacement {
                            path: path.clone(),
                            sub_model: model.sub_model.clone(),
                            function: f.name.clone(),
                            op: op.display_name().to_string(),
                            op_type: op.op_type.to_string(),
                            placement,
                        }
                    })
                    .collect();
                out.push(FunctionPlacement { estimate, ops });
            }
        }
    }
    out
}

/// Every counted op of every checked model with its estimate, in run order.
pub fn op_placements(run: &CheckRun) -> Vec<OpPlacement> {
    place_run(run, OpTable::builtin())
        .into_iter()
        .flat_map(|p| p.ops)
        .collect()
}

/// The `placement` member of the JSON document: per function its counts, per op its estimate.
pub fn json(run: &CheckRun) -> Value {
    let placed = place_run(run, OpTable::builtin());
    let sub_model = |s: &Option<SubModel>| {
        s.as_ref()
            .map(|s| json!({"position": s.position, "name": s.name}))
    };
    let functions: Vec<Value> = placed
        .iter()
        .map(|p| {
            let first = p.ops.first();
            json!({
                "path": first.map(|o| o.path.clone()),
                "sub_model": first.and_then(|o| sub_model(&o.sub_model)),
                "function": p.estimate.function,
                "ops": p.estimate.total(),
                "ane": p.estimate.ane,
                "cpu": p.estimate.cpu,
                "at_risk": p.estimate.at_risk,
                "unknown": p.estimate.unknown,
            })
        })
        .collect();
    let ops: Vec<Value> = placed
        .iter()
        .flat_map(|p| &p.ops)
        .map(|o| {
            json!({
                "path": o.path,
                "sub_model": sub_model(&o.sub_model),
                "function": o.function,
                "op": o.op,
                "op_type": o.op_type,
                "device": o.placement.likely.code(),
                "reason": o.placement.reason.code(),
                "detail": o.placement.reason.detail(),
            })
        })
        .collect();
    json!({
        "note": "an ESTIMATE from the op table and the findings, not Core ML's placement; confirm with MLComputePlan on the target device",
        "functions": functions,
        "ops": ops,
    })
}

/// The `--placement` table for a run, then the CPU ops of each function by reason.
pub fn render(run: &CheckRun) -> String {
    let placed = place_run(run, OpTable::builtin());
    let rows: Vec<FunctionEstimate> = placed.iter().map(|p| p.estimate.clone()).collect();
    let mut out = render_estimates(&rows);
    for p in &placed {
        out.push_str(&render_cpu_ops(&p.estimate, &p.ops));
    }
    out
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// How many op names one reason lists before "… and N more".
const NAMES_PER_REASON: usize = 8;

/// "CPU ops of `main` in m.mlpackage (3):" and one line per reason naming the ops.
fn render_cpu_ops(e: &FunctionEstimate, ops: &[OpPlacement]) -> String {
    let mut by_reason: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for o in ops.iter().filter(|o| o.placement.likely == Likely::Cpu) {
        by_reason
            .entry(o.placement.reason.detail())
            .or_default()
            .push(format!("{} `{}`", o.op_type, o.op));
    }
    if by_reason.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nLikely CPU in `{}` of {} ({}):",
        e.function,
        e.model,
        plural(e.cpu, "op")
    );
    for (reason, names) in &by_reason {
        let shown: Vec<&str> = names
            .iter()
            .take(NAMES_PER_REASON)
            .map(String::as_str)
            .collect();
        let more = names.len().saturating_sub(NAMES_PER_REASON);
        let tail = if more > 0 {
            format!(", … and {more} more")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {reason} ({}): {}{tail}",
            names.len(),
            shown.join(", ")
        );
    }
    out
}

/// Renders estimates as a small table, labelled as an estimate.
pub(crate) fn render_estimates(rows: &[FunctionEstimate]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Likely placement (an ESTIMATE from the op table and the findings, not Core ML's placement; \
         confirm with MLComputePlan on the target device)"
    );
    if rows.is_empty() {
        let _ = writeln!(out, "  no checked model");
        return out;
    }
    let head = [
        "model",
        "function",
        "ops",
        "likely ANE",
        "likely CPU",
        "at risk",
        "unknown",
    ];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            [
                r.model.clone(),
                r.function.clone(),
                r.total().to_string(),
                r.ane.to_string(),
                r.cpu.to_string(),
                r.at_risk.to_string(),
                r.unknown.to_string(),
            ]
        })
        .collect();
    let mut widths: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, h) in head.iter().enumerate() {
        let w = cells
            .iter()
            .map(|c| c.get(i).map_or(0, |s| s.chars().count()))
            .max()
            .unwrap_or(0)
            .max(h.len());
        widths.insert(i, w);
    }
    let line = |cols: Vec<&str>| -> String {
        let mut s = String::from(" ");
        for (i, c) in cols.iter().enumerate() {
            let w = widths.get(&i).copied().unwrap_or(0);
            if i < 2 {
                let _ = write!(s, " {c:<w$}");
            } else {
                let _ = write!(s, " {c:>w$}");
            }
        }
        s.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(head.to_vec()));
    for c in &cells {
        let _ = writeln!(out, "{}", line(c.iter().map(String::as_str).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::rules::placement::OP_TABLE;
    use crate::rules::testing::snippet_model;

    const MIL: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> x, state<tensor<fp16, [1, 257, 64]>> kv) {\n            tensor<fp16, [64, 64]> w = const()[name = string(\"w\"), val = tensor<fp16, [64, 64]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [1, 64]> h = linear(weight = w, x = x)[name = string(\"h\")];\n            tensor<fp16, [1, 257, 64]> r = read_state(input = kv)[name = string(\"r\")];\n            string d = const()[name = string(\"d\"), val = string(\"fp32\")];\n            tensor<fp32, [1, 64]> h32 = cast(dtype = d, x = h)[name = string(\"h32\")];\n            int32 ax = const()[name = string(\"ax\"), val = int32(-1)];\n            tensor<int32, [1]> am = reduce_argmax(axis = ax, x = h)[name = string(\"am\")];\n            tensor<fp16, [1, 64]> q = some_new_op(x = h)[name = string(\"q\")];\n            tensor<fp16, [1, 64]> s = softmax(axis = ax, x = q)[name = string(\"s\")];\n        } -> (h32, am, s, r);\n}\n";

    fn finding(rule: &str, op: Option<&str>) -> Finding {
        Finding {
            function: Some("main".into()),
            op: op.map(str::to_string),
            ..Finding::bare(rule, "m")
        }
    }

    #[test]
    fn builtin_table_parses_and_names_only_builtin_rules() {
        let t = OpTable::parse(OP_TABLE).expect("op table parses");
        assert!(has(&t.likely_ane, "read_state") && has(&t.likely_ane, "conv"));
        let rules = crate::rules::RuleSet::builtin().unwrap();
        for id in t.function_risk_rules.iter().chain(&t.op_risk_rules) {
            assert!(
                rules.rules().iter().any(|r| &r.id == id),
                "{id} is not a rule"
            );
        }
        let ane: BTreeSet<&String> = t.likely_ane.iter().collect();
        for op in &t.likely_cpu {
            assert!(!ane.contains(op), "{op} is in both lists");
        }
    }

    #[test]
    fn counts_follow_the_table_dtypes_and_findings() {
        let m = snippet_model("m", MIL).unwrap();
        let f = &m.program.functions[0];
        let t = OpTable::builtin();
        let e = estimate_function(t, "m", f, &[]);
        // linear, read_state, softmax: ANE; cast to fp32, argmax: CPU; some_new_op: unknown.
        assert_eq!((e.ane, e.cpu, e.at_risk, e.unknown), (3, 2, 0, 1), "{e:?}");
        let e = estimate_function(t, "m", f, &[finding("tensor-rank", Some("h"))]);
        assert_eq!((e.ane, e.at_risk), (2, 1), "{e:?}");
        let e = estimate_function(t, "m", f, &[finding("dynamic-shape-with-state", None)]);
        assert_eq!((e.ane, e.cpu, e.at_risk, e.unknown), (0, 2, 3, 1), "{e:?}");
    }

    #[test]
    fn gather_tail_on_the_output_path_is_cpu() {
        let mil = "program(1.3)\n{\n    func main<ios18>(tensor<int32, [8]> ids, tensor<fp16, [64, 32]> table) {\n            int32 ax = const()[name = string(\"ax\"), val = int32(0)];\n            tensor<fp16, [8, 32]> g = gather(axis = ax, indices = ids, x = table)[name = string(\"g\")];\n            tensor<fp16, [8, 32]> g2 = gather(axis = ax, indices = ids, x = table)[name = string(\"g2\")];\n            tensor<fp16, [8, 32]> r = relu(x = g2)[name = string(\"r\")];\n            tensor<int32, [2]> sh = const()[name = string(\"sh\"), val = tensor<int32, [2]>([4, 64])];\n            tensor<fp16, [4, 64]> y = reshape(shape = sh, x = g)[name = string(\"y\")];\n        } -> (y, r);\n}\n";
        let m = snippet_model("m", mil).unwrap();
        let e = estimate_function(OpTable::builtin(), "m", &m.program.functions[0], &[]);
        // g (through reshape to an output): CPU; g2, relu, reshape: ANE.
        assert_eq!((e.ane, e.cpu), (3, 1), "{e:?}");
    }

    fn placed(mil: &str) -> Vec<(String, Likely, &'static str)> {
        let m = snippet_model("m", mil).unwrap();
        let f = &m.program.functions[0];
        place_function(OpTable::builtin(), f, &[])
            .into_iter()
            .map(|(_, op, p)| (op.display_name().to_string(), p.likely, p.reason.code()))
            .collect()
    }

    #[test]
    fn a_constant_table_gathered_by_run_time_ids_is_cpu() {
        let mil = "program(1.3)\n{\n    func main<ios18>(tensor<int32, [8]> ids, tensor<fp16, [64, 32]> table) {\n            int32 ax = const()[name = string(\"ax\"), val = int32(0)];\n            tensor<fp16, [64, 32]> emb = const()[name = string(\"emb\"), val = tensor<fp16, [64, 32]>(BLOBFILE(path = string(\"@model_path/weights/weight.bin\"), offset = uint64(64)))];\n            tensor<fp16, [8, 32]> lookup = gather(axis = ax, indices = ids, x = emb)[name = string(\"lookup\")];\n            tensor<fp16, [8, 32]> by_input = gather(axis = ax, indices = ids, x = table)[name = string(\"by_input\")];\n            tensor<int32, [2]> fixed = const()[name = string(\"fixed\"), val = tensor<int32, [2]>([1, 2])];\n            tensor<fp16, [2, 32]> by_const = gather(axis = ax, indices = fixed, x = emb)[name = string(\"by_const\")];\n            tensor<fp16, [8, 32]> y = add(x = lookup, y = by_input)[name = string(\"y\")];\n        } -> (y, by_const);\n}\n";
        let got = placed(mil);
        let get = |n: &str| got.iter().find(|(o, _, _)| o == n).cloned().unwrap();
        assert_eq!(get("lookup").1, Likely::Cpu, "{got:?}");
        assert_eq!(get("lookup").2, "embedding-lookup");
        // A table that is an input, or constant ids, is no embedding lookup.
        assert_eq!(get("by_input").1, Likely::Ane, "{got:?}");
        assert_ne!(get("by_const").2, "embedding-lookup", "{got:?}");
        assert_eq!(get("y").1, Likely::Ane);
    }

    #[test]
    fn ops_reading_topk_indices_are_cpu_and_their_fp16_results_are_not_indices() {
        let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 32]> s, tensor<fp16, [1, 32, 16]> x) {\n            int32 k = const()[name = string(\"k\"), val = int32(4)];\n            int32 ax = const()[name = string(\"ax\"), val = int32(-1)];\n            tensor<fp16, [1, 4]> v, tensor<int32, [1, 4]> i = topk(axis = ax, k = k, x = s)[name = string(\"tk\")];\n            tensor<int32, [1]> ea = const()[name = string(\"ea\"), val = tensor<int32, [1]>([-1])];\n            tensor<int32, [1, 4, 1]> e = expand_dims(axes = ea, x = i)[name = string(\"e\")];\n            tensor<int32, [3]> reps = const()[name = string(\"reps\"), val = tensor<int32, [3]>([1, 1, 16])];\n            tensor<int32, [1, 4, 16]> t = tile(reps = reps, x = e)[name = string(\"t\")];\n            int32 one = const()[name = string(\"one\"), val = int32(1)];\n            tensor<fp16, [1, 4, 16]> g = gather_along_axis(axis = one, indices = t, x = x)[name = string(\"g\")];\n            tensor<fp16, [1, 4, 16]> r = relu(x = g)[name = string(\"r\")];\n            tensor<fp16, [1, 4]> w = relu(x = v)[name = string(\"w\")];\n        } -> (r, w);\n}\n";
        let got = placed(mil);
        let by: BTreeMap<&str, (Likely, &str)> =
            got.iter().map(|(o, l, r)| (o.as_str(), (*l, *r))).collect();
        assert_eq!(by["tk"], (Likely::Cpu, "cpu-op"));
        for op in ["e", "t", "g"] {
            assert_eq!(by[op], (Likely::Cpu, "index-consumer"), "{op}: {got:?}");
        }
        // The gathered values and the top-k values are data, not indices.
        assert_eq!(by["r"], (Likely::Ane, "ane-op"), "{got:?}");
        assert_eq!(by["w"], (Likely::Ane, "ane-op"), "{got:?}");
    }

    #[test]
    fn a_tiny_program_stays_on_the_cpu() {
        let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [4, 4]> a, tensor<fp16, [4, 4]> b) {\n            tensor<fp16, [4, 4]> y = matmul(x = a, y = b)[name = string(\"y\")];\n        } -> (y);\n}\n";
        assert_eq!(
            placed(mil),
            [("y".to_string(), Likely::Cpu, "tiny-program")]
        );
        let three = mil.replace(
            "        } -> (y);",
            "            tensor<fp16, [4, 4]> z = relu(x = y)[name = string(\"z\")];\n            tensor<fp16, [4, 4]> w = relu(x = z)[name = string(\"w\")];\n        } -> (w);",
        );
        assert!(
            placed(&three).iter().all(|(_, l, _)| *l == Likely::Ane),
            "{:?}",
            placed(&three)
        );
    }

    #[test]
    fn render_is_labelled_an_estimate() {
        let rows = vec![FunctionEstimate {
            model: "a.mlpackage".into(),
            function: "main".into(),
            ane: 3,
            cpu: 2,
            at_risk: 1,
            unknown: 0,
        }];
        let s = render_estimates(&rows);
        assert!(s.contains("ESTIMATE") && s.contains("MLComputePlan"), "{s}");
        let row = s.lines().find(|l| l.contains("a.mlpackage")).unwrap();
        let nums: Vec<&str> = row.split_whitespace().skip(2).collect();
        assert_eq!(nums, ["6", "3", "2", "1", "0"]);
    }
}
