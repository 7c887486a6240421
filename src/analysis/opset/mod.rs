//! Every program checked against the MIL op set (`rules/opset/`): unknown ops and parameters,
//! missing required parameters, run-time values where a constant is required, element types outside
//! a parameter's domain, states where tensors belong (and the reverse), ops newer than the function's
//! opset, declared output types that contradict inference, literals whose element count disagrees
//! with their shape, `write_state` data that is not the state's type, and the builder-only
//! `coreml_update_state` in text. The fact kinds are rule ids (`rules/mil-*.yaml`).

mod check;
pub mod infer;
pub mod table;

use rayon::prelude::*;

use super::facts::Fact;
use crate::ir::Model;

pub use table::{OpTable, OPSETS};

/// Fact kinds produced here (each is also a rule id).
pub const KINDS: &[&str] = &[
    "mil-unknown-op",
    "mil-op-too-new",
    "mil-unknown-param",
    "mil-missing-param",
    "mil-param-not-const",
    "mil-param-dtype",
    "mil-dtype-mismatch",
    "mil-param-kind",
    "mil-output-type",
    "mil-literal-elements",
    "mil-write-state-type",
    "mil-update-state-in-text",
    "mil-opset-not-checked",
];

/// The op-set facts of every function of `model`.
pub fn opset_facts(model: &Model) -> Vec<Fact> {
    let table = OpTable::builtin();
    let text = model.kind.is_text();
    model
        .program
        .functions
        .par_iter()
        .flat_map_iter(|f| check::check_function(table, f, text))
        .collect()
}

#[cfg(test)]
mod tests;
