//! What matchers and templates are evaluated against: a function, its analysis, the model, and
//! the run's settings.

use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::target::DeployTarget;
use crate::analysis::blob_values::BlobValues;
use crate::analysis::{ConstValue, FunctionAnalysis};
use crate::ir::{Function, Model, NodeId};

/// What a matcher is evaluated against.
pub struct Ctx<'a> {
    pub f: &'a Function,
    pub analysis: &'a FunctionAnalysis,
    /// The model the function belongs to (for `model:`).
    pub model: Option<&'a Model>,
    /// Reader of small file-backed constants (for `const:` / `value:` on weight-file values).
    pub blobs: Option<&'a BlobValues<'a>>,
    /// The model's state fix plans (for fix offers and `{S.pad_axis}`-style accessors).
    pub plans: Option<&'a crate::analysis::fix_plan::ModelPlans>,
    /// The run's deployment target (for `target:`), if one was given.
    pub target: Option<&'a DeployTarget>,
    /// The ops of the function each `peers:` matcher selects, found once per function.
    pub(crate) peers: PeerSets,
}

/// The peer sets of a function, by the address of their `peers:` matcher (the compiled rules
/// outlive the context).
#[derive(Default)]
pub(crate) struct PeerSets(RefCell<FxHashMap<usize, Rc<[NodeId]>>>);

impl PeerSets {
    /// The ops the `peers:` matcher at `key` selects, computed by `find` the first time.
    pub(crate) fn get(&self, key: usize, find: impl FnOnce() -> Vec<NodeId>) -> Rc<[NodeId]> {
        if let Some(found) = self.0.borrow().get(&key) {
            return found.clone();
        }
        let found: Rc<[NodeId]> = find().into();
        self.0.borrow_mut().insert(key, found.clone());
        found
    }
}

/// The range of a value: the analysis' for a named value, an inline literal's elements.
pub(crate) fn range_of(
    cx: &Ctx<'_>,
    name: &str,
    constant: Option<&ConstValue>,
) -> Option<crate::analysis::Interval> {
    cx.analysis.ranges(cx.f).get(name).or_else(|| {
        let ints = constant?.data.ints()?;
        Some(crate::analysis::Interval::new(
            *ints.iter().min()?,
            *ints.iter().max()?,
        ))
    })
}
