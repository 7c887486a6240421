//! `check --placement`: per function, how many ops are likely to run on the Neural Engine, likely on
//! the CPU, at risk, or unknown, from the op table in `rules/placement/op-table.yaml` and the
//! findings of the run. An estimate, never a claim of placement: only MLComputePlan on the target
//! device says where an op runs. The table's header explains the classification order.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::check::{CheckRun, ModelOutcome};
use crate::finding::Finding;
use crate::ir::{Function, Op, ValueType};
use crate::rules::placement::OpTable;

/// Where an op is likely to run, by the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Likely {
    Ane,
    Cpu,
    AtRisk,
    Unknown,
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
}

fn has(list: &[String], s: &str) -> bool {
    list.iter().any(|x| x == s)
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

/// Classifies one op; `None` for ops that are not counted.
pub(crate) fn classify(
    t: &OpTable,
    f: &Function,
    op: &Op,
    op_flagged: bool,
    function_at_risk: bool,
) -> Option<Likely> {
    let ty = op.op_type.as_str();
    if has(&t.not_counted, ty) || t.not_counted_prefixes.iter().any(|p| ty.starts_with(p)) {
        return None;
    }
    if has(&t.likely_cpu, ty) {
        return Some(Likely::Cpu);
    }
    let off_dtype = op.outputs.iter().any(|o| match &o.ty {
        ValueType::Tensor(tt) => !has(&t.ane_dtypes, &tt.dtype.text_name()),
        _ => false,
    });
    if off_dtype {
        return Some(Likely::Cpu);
    }
    if has(&t.likely_cpu_on_output_path, ty) && on_output_path(t, f, op, 0) {
        return Some(Likely::Cpu);
    }
    if op_flagged {
        return Some(Likely::AtRisk);
    }
    if has(&t.likely_ane, ty) {
        return Some(if function_at_risk {
            Likely::AtRisk
        } else {
            Likely::Ane
        });
    }
    Some(Likely::Unknown)
}

/// The estimate for one function given the findings of its model.
pub(crate) fn estimate_function(
    t: &OpTable,
    model: &str,
    f: &Function,
    findings: &[Finding],
) -> FunctionEstimate {
    let mine: Vec<&Finding> = findings
        .iter()
        .filter(|x| x.function.as_deref() == Some(f.name.as_str()))
        .collect();
    let function_at_risk = mine.iter().any(|x| has(&t.function_risk_rules, &x.rule));
    // An origin finding flags its op and every op its region covers.
    let flagged_ops: BTreeSet<&str> = mine
        .iter()
        .filter(|x| has(&t.op_risk_rules, &x.rule))
        .flat_map(|x| {
            x.op.as_deref().into_iter().chain(
                x.covered
                    .iter()
                    .flat_map(|c| c.names.iter().map(String::as_str)),
            )
        })
        .collect();
    let mut e = FunctionEstimate {
        model: model.to_string(),
        function: f.name.clone(),
        ..FunctionEstimate::default()
    };
    for (_, op) in f.ops() {
        let flagged = flagged_ops.contains(op.display_name());
        match classify(t, f, op, flagged, function_at_risk) {
            Some(Likely::Ane) => e.ane += 1,
            Some(Likely::Cpu) => e.cpu += 1,
            Some(Likely::AtRisk) => e.at_risk += 1,
            Some(Likely::Unknown) => e.unknown += 1,
            None => {}
        }
    }
    e
}

/// Estimates for every function of every checked model, in run order.
pub(crate) fn estimate(run: &CheckRun, t: &OpTable) -> Vec<FunctionEstimate> {
    let mut out = Vec::new();
    for m in &run.models {
        if let ModelOutcome::Checked { model, findings } = &m.outcome {
            let name = match &model.sub_model {
                Some(sub) => format!("{} ({sub})", m.path.display()),
                None => m.path.display().to_string(),
            };
            for f in &model.program.functions {
                out.push(estimate_function(t, &name, f, findings));
            }
        }
    }
    out
}

/// The `--placement` table for a run.
pub fn render(run: &CheckRun) -> String {
    render_estimates(&estimate(run, OpTable::builtin()))
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
