//! The report's shared state: where each model result is, the per-function data its pictures
//! need, and the page every part writes into.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::placement::FunctionPlacement;
use crate::finding::Finding;
use crate::ir::{Function, Model};
use crate::report::graph::{overview, select, Placements};
use crate::rules::ComputeUnits;

/// Where a model result is: its index in the run and the index of its path (the sub-models of
/// one pipeline share a path, so the model filter treats them as one model).
pub(super) struct ModelRef<'r> {
    pub(super) result: usize,
    pub(super) path_index: usize,
    pub(super) model: &'r Model,
    pub(super) findings: &'r [Finding],
    /// The model's path as the report shows it, and its sub-model.
    pub(super) title: String,
    /// The run's units when they leave the Neural Engine out for this model: no estimate then.
    pub(super) ane_excluded: Option<ComputeUnits>,
}

/// The per-function data every picture of a function needs.
pub(super) struct FunctionView<'f> {
    pub(super) function: &'f Function,
    pub(super) index: select::FunctionIndex<'f>,
    pub(super) placement: FunctionPlacement,
    pub(super) placements: Placements,
    pub(super) overview: overview::Overview,
    /// The layered overview of a large function (its `overview` is then empty).
    pub(super) layered: Option<super::layered::Layered>,
}

/// What every part of the report writes into.
pub(super) struct Page {
    pub(super) out: String,
    /// Prefixes every id of the report.
    pub(super) ids: String,
    pub(super) fragment: bool,
    /// The arrow marker every picture's edges end in.
    pub(super) arrow: String,
    /// The boxes findings link to, by the id of their overview (`ov{model}-{function}`).
    pub(super) linked: BTreeMap<String, BTreeSet<usize>>,
}
