//! The placement estimate of a checked run: [`crate::analysis::placement`] applied to every
//! function, with the ops and functions its findings flag (the op table's `op-risk-rules`,
//! `op-cpu-rules` and `function-risk-rules`). The reports render what this returns.

use crate::analysis::placement::{self, FunctionPlacement, OpTable};
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::{placement_flags, Finding};
use crate::ir::{Function, Model};
use crate::rules::applies::program_of;
use crate::rules::schema::ProgramLanguage;
use crate::rules::{ComputeUnits, Unit};

/// The estimate of `f` with the built-in op table, given the findings of its model (`findings`
/// may hold other functions' findings; they are skipped).
pub fn place_function(f: &Function, findings: &[Finding]) -> FunctionPlacement {
    let t = OpTable::builtin();
    placement::place_function(t, f, &placement_flags(t, &f.name, findings))
}

/// The units `model` is loaded with in `run` when they leave the Neural Engine out (Core ML's
/// `cpu-and-gpu` and `cpu-only`; for a Core AI asset only `cpu-only`): then there is no Neural
/// Engine placement to estimate.
pub fn ane_excluded(run: &CheckRun, model: &Model) -> Option<ComputeUnits> {
    let units = match program_of(model) {
        ProgramLanguage::Mil => run.compute_units,
        ProgramLanguage::Coreai => run.compute_units.for_core_ai(),
    };
    (!units.uses(Unit::Ane)).then_some(units)
}

/// One function of a checked model with its estimate.
pub struct PlacedFunction<'r> {
    /// The model's path as the run names it.
    pub path: String,
    /// The model (a pipeline's sub-model carries its `sub_model`).
    pub model: &'r Model,
    /// The function.
    pub function: &'r Function,
    /// Its estimate.
    pub placement: FunctionPlacement,
}

/// Every function of every checked model of `run` with its estimate, in run order; the models
/// loaded without the Neural Engine ([`ane_excluded`]) have none.
pub fn place_run(run: &CheckRun) -> Vec<PlacedFunction<'_>> {
    let mut out = Vec::new();
    for m in &run.models {
        if let ModelOutcome::Checked { model, findings } = &m.outcome {
            if ane_excluded(run, model).is_some() {
                continue;
            }
            let path = m.path.display().to_string();
            for f in &model.program.functions {
                out.push(PlacedFunction {
                    path: path.clone(),
                    model,
                    function: f,
                    placement: place_function(f, findings),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Covered;

    fn finding(rule: &str, function: &str, op: Option<&str>) -> Finding {
        Finding {
            function: Some(function.into()),
            op: op.map(str::to_string),
            ..Finding::bare(rule, "m")
        }
    }

    #[test]
    fn findings_flag_their_ops_regions_and_functions_by_the_table() {
        let t = OpTable::builtin();
        let mut region = finding("tensor-rank", "main", Some("a"));
        region.covered = Some(Covered {
            names: vec!["b".into(), "c".into()],
        });
        let findings = [
            region,
            finding("dynamic-shape-with-state", "main", None),
            finding("state-not-fp16", "other", None),
            // Not in the table's lists: moves nothing.
            finding("tensor-dim-limit-not-a-listed-rule", "main", Some("d")),
        ];
        let f = placement_flags(t, "main", &findings);
        assert_eq!(f.function_risk.as_deref(), Some("dynamic-shape-with-state"));
        let ops: Vec<&str> = f.op_risk.keys().map(String::as_str).collect();
        assert_eq!(ops, ["a", "b", "c"]);
        assert!(f.op_risk.values().all(|r| r == "tensor-rank"));
        assert!(f.op_cpu.is_empty());
        let other = placement_flags(t, "other", &findings);
        assert_eq!(other.function_risk.as_deref(), Some("state-not-fp16"));
        assert!(other.op_risk.is_empty());
    }
}
