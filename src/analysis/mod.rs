//! Analysis computed once per function (constant values, run-time dependence, state write chains:
//! [`FunctionAnalysis`]) and per model (weights, bundle items, the op-set check, the description:
//! [`entity::Entity`]s with typed properties, which entity rules select by `kind:`).
//! Passes read the graph only, never spans, and are linear in the number of ops.

pub mod affine_uint8;
pub(crate) mod blob_values;
pub mod blobs;
pub mod bundle;
pub(crate) mod consteval;
pub mod coreai;
pub(crate) mod dependence;
pub mod description;
pub mod description_features;
pub mod entity;
pub mod fix_plan;
pub mod gather_cast;
pub mod implied_shape;
pub mod inline_weights;
pub(crate) mod literal_sites;
pub mod mask_sentinel;
pub mod opset;
pub mod os_requirement;
pub mod pipeline_nms;
pub mod placement;
pub mod placement_regression;
pub mod pow_rewrite;
pub mod registry;
pub mod stable_exp_log;
pub mod state_writes;
pub mod value_edit;
pub mod value_range;
pub mod value_text;
pub(crate) mod weight_uses;

#[cfg(test)]
pub(crate) mod testutil;

use rayon::prelude::*;

use crate::ir::{Function, Model};

pub use consteval::{ConstData, ConstEnv, ConstValue};
pub use dependence::{Dependence, DependenceMap};
pub use state_writes::{
    AxisWindow, StateDecl, StateWrite, StateWrites, Window, WriteKind, WriteOp,
};
pub use value_range::{Interval, RangeMap};

/// Everything the analysis passes know about one function. Value ranges are computed the first
/// time a rule or a message asks for one ([`FunctionAnalysis::ranges`]).
#[derive(Clone, Debug, Default)]
pub struct FunctionAnalysis {
    /// Constant values by value name.
    pub consts: ConstEnv,
    /// Run-time dependence by value name.
    pub deps: DependenceMap,
    /// States and their write chains.
    pub states: StateWrites,
    /// Integer value ranges by value name, once asked for.
    ranges: std::sync::OnceLock<RangeMap>,
    /// The bounds the model description puts on the function's inputs, for the ranges.
    dims: value_range::InputDims,
}

impl FunctionAnalysis {
    /// Integer value ranges by value name of `f` (the function analysed), computed the first
    /// time.
    pub fn ranges(&self, f: &Function) -> &RangeMap {
        self.ranges
            .get_or_init(|| value_range::analyze_with(f, &self.consts, &self.dims))
    }

    /// Whether the value ranges were asked for (tests).
    #[cfg(test)]
    pub(crate) fn ranges_computed(&self) -> bool {
        self.ranges.get().is_some()
    }
}

/// The analysis of every function of `model`, in order (functions in parallel). The rules and the
/// op-set check share it.
pub fn analyze_model(model: &Model) -> Vec<FunctionAnalysis> {
    model
        .program
        .functions
        .par_iter()
        .map(|f| analyze_with(f, value_range::InputDims::of(model, f)))
        .collect()
}

/// Runs every pass over `f` once (with no model description: flexible input dims unbounded).
pub fn analyze(f: &Function) -> FunctionAnalysis {
    analyze_with(f, value_range::InputDims::default())
}

/// Runs the passes over `f`; `dims` bounds the flexible dims of its inputs, for the value
/// ranges computed when asked for.
fn analyze_with(f: &Function, dims: value_range::InputDims) -> FunctionAnalysis {
    let consts = consteval::evaluate(f);
    let deps = dependence::analyze(f);
    let states = state_writes::analyze(f, &consts, &deps);
    FunctionAnalysis {
        consts,
        deps,
        states,
        ranges: std::sync::OnceLock::new(),
        dims,
    }
}
