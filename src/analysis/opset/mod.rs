//! Every program checked against the MIL op set (`rules/opset/`): unknown ops and parameters,
//! missing required parameters, run-time values where a constant is required, element types outside
//! a parameter's domain, states where tensors belong (and the reverse), ops newer than the function's
//! opset, declared output types that contradict inference, literals whose element count disagrees
//! with their shape, `write_state` data that is not the state's type, and the builder-only
//! `coreml_update_state` in text. The fact kinds are rule ids (`rules/mil-*.yaml`).

mod check;
pub(crate) mod infer;
pub mod table;
mod table_file;
mod values;

use rayon::prelude::*;

use super::facts::{Fact, FactKind};
use super::FunctionAnalysis;
use crate::ir::{Model, ModelKind};

pub use table::{OpTable, OPSETS};

/// Fact kinds produced here (each is also a rule id), with the captures each carries; every fact
/// also carries `OP_TYPE`.
pub const FACT_KINDS: &[FactKind] = &[
    FactKind::new("mil-unknown-op", &["OP_TYPE", "SUGGESTION"]),
    FactKind::new(
        "mil-op-too-new",
        &["OP_TYPE", "SINCE", "SINCE_TARGET", "OPSET", "OPSET_TARGET"],
    ),
    FactKind::new("mil-unknown-param", &["OP_TYPE", "PARAM", "SUGGESTION"]),
    FactKind::new("mil-missing-param", &["OP_TYPE", "PARAM"]),
    FactKind::new(
        "mil-param-not-const",
        &["OP_TYPE", "PARAM", "VALUE", "SOURCE"],
    ),
    FactKind::new(
        "mil-param-dtype",
        &["OP_TYPE", "PARAM", "VALUE", "DTYPE", "ALLOWED"],
    ),
    FactKind::new(
        "mil-dtype-mismatch",
        &["OP_TYPE", "PARAM", "DTYPE", "OTHER", "OTHER_DTYPE"],
    ),
    FactKind::new(
        "mil-param-kind",
        &["OP_TYPE", "PARAM", "VALUE", "EXPECTED", "GOT"],
    ),
    FactKind::new(
        "mil-output-type",
        &["OP_TYPE", "OUTPUT", "DECLARED", "INFERRED", "DETAIL"],
    ),
    FactKind::new(
        "mil-literal-elements",
        &["OP_TYPE", "PARAM", "TYPE", "FOUND", "EXPECTED"],
    ),
    FactKind::new(
        "mil-write-state-type",
        &["OP_TYPE", "STATE_TYPE", "DATA", "DATA_TYPE"],
    ),
    FactKind::new("mil-update-state-in-text", &["OP_TYPE"]),
    FactKind::new("mil-opset-not-checked", &["OPSET", "KNOWN"]),
];

/// The op-set facts of every function of `model`.
pub fn opset_facts(model: &Model) -> Vec<Fact> {
    opset_facts_with(model, None)
}

/// The same, answering constants and run-time dependence from `analyses` (one per function, in
/// order), when they were computed already.
pub fn opset_facts_with(model: &Model, analyses: Option<&[FunctionAnalysis]>) -> Vec<Fact> {
    // The table is MIL's: a Core AI program's ops are not MIL ops.
    if model.kind == crate::ir::ModelKind::AiModel {
        return Vec::new();
    }
    let table = OpTable::builtin();
    // Spans of compiled and text models point into a real `model.mil`.
    let text = matches!(model.kind, ModelKind::MlModelc | ModelKind::MilText);
    model
        .program
        .functions
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, f)| {
            let analysis = analyses.and_then(|a| a.get(i));
            check::check_function(table, f, analysis, text)
        })
        .collect()
}

#[cfg(test)]
mod tests;
