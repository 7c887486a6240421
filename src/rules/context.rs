//! What matchers and templates are evaluated against: a function, its analysis, the model, and
//! the run's settings.

use super::target::DeployTarget;
use crate::analysis::blob_values::BlobValues;
use crate::analysis::{ConstValue, FunctionAnalysis};
use crate::ir::{Function, Model};

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
}

/// The range of a value: the analysis' for a named value, an inline literal's elements.
pub(crate) fn range_of(
    cx: &Ctx<'_>,
    name: &str,
    constant: Option<&ConstValue>,
) -> Option<crate::analysis::Interval> {
    cx.analysis.ranges.get(name).or_else(|| {
        let ints = constant?.data.ints()?;
        Some(crate::analysis::Interval::new(
            *ints.iter().min()?,
            *ints.iter().max()?,
        ))
    })
}
