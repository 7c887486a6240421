//! Analysis computed once per function (constant values, run-time dependence, state write chains:
//! [`FunctionAnalysis`]) and per model (blob and description checks: [`facts::Fact`]s, which
//! `fact:` rules select). "Fact" means only the latter.
//! Passes read the graph only, never spans, and are linear in the number of ops.

pub(crate) mod blob_values;
pub mod blobs;
pub mod bundle;
pub(crate) mod consteval;
pub mod coreai;
pub(crate) mod dependence;
pub mod description;
pub mod facts;
pub mod fix_plan;
pub mod implied_shape;
pub mod opset;
pub mod os_requirement;
pub mod placement_regression;
pub mod state_writes;

#[cfg(test)]
pub(crate) mod testutil;

use rayon::prelude::*;

use crate::ir::{Function, Model};

pub use consteval::{ConstData, ConstEnv, ConstValue};
pub use dependence::{Dependence, DependenceMap};
pub use state_writes::{
    AxisWindow, StateDecl, StateWrite, StateWrites, Window, WriteKind, WriteOp,
};

/// Everything the analysis passes know about one function.
#[derive(Clone, Debug, Default)]
pub struct FunctionAnalysis {
    /// Constant values by value name.
    pub consts: ConstEnv,
    /// Run-time dependence by value name.
    pub deps: DependenceMap,
    /// States and their write chains.
    pub states: StateWrites,
}

/// The analysis of every function of `model`, in order (functions in parallel). The rules and the
/// op-set check share it.
pub fn analyze_model(model: &Model) -> Vec<FunctionAnalysis> {
    model.program.functions.par_iter().map(analyze).collect()
}

/// Runs every pass over `f` once.
pub fn analyze(f: &Function) -> FunctionAnalysis {
    let consts = consteval::evaluate(f);
    let deps = dependence::analyze(f);
    let states = state_writes::analyze(f, &consts, &deps);
    FunctionAnalysis {
        consts,
        deps,
        states,
    }
}
