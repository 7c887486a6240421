//! Linting one model: its model-level entities (weights, bundle items, …) plus every rule, over
//! every function.

use crate::analysis::blobs::blob_entities;
use crate::analysis::description::description_entities;
use crate::analysis::opset::opset_entities_with;
use crate::analysis::registry::ModelEntities;
use crate::analysis::{analyze_model, FunctionAnalysis};
use crate::finding::Finding;
use crate::ir::Model;
use crate::rules::RuleInfo;
use crate::rules::{
    match_model_with, needs_function_analysis, ComputeUnits, DeployTarget, RuleSet,
};

/// Runs a rule set over models.
#[derive(Debug)]
pub struct Linter {
    /// The rules that run.
    rules: RuleSet,
    /// Every loaded rule, for reporters, whether it runs or not.
    infos: Vec<RuleInfo>,
    /// The deployment target rules check for (`None`: every family, any OS).
    target: Option<DeployTarget>,
    /// The compute units the app loads the model with.
    units: ComputeUnits,
    /// The target and the units together, as the rules see them.
    run: Option<DeployTarget>,
}

impl Linter {
    /// A linter with these rules.
    pub fn new(rules: RuleSet) -> Linter {
        Linter {
            infos: rules.infos(),
            rules,
            target: None,
            units: ComputeUnits::default(),
            run: None,
        }
    }

    /// Checks for this deployment target.
    pub fn for_target(mut self, target: Option<DeployTarget>) -> Linter {
        self.target = target;
        self.run = DeployTarget::with_units(self.target.clone(), self.units);
        self
    }

    /// Checks for an app that loads its models with these compute units: rules that concern no
    /// unit of the setting do not run.
    pub fn for_units(mut self, units: ComputeUnits) -> Linter {
        self.units = units;
        self.run = DeployTarget::with_units(self.target.clone(), self.units);
        self
    }

    /// The compute units rules check for.
    pub fn units(&self) -> ComputeUnits {
        self.units
    }

    /// The deployment target rules check for.
    pub fn target(&self) -> Option<&DeployTarget> {
        self.target.as_ref()
    }

    /// Runs only the rules whose id `enabled` accepts (a rule that is not selected costs nothing);
    /// [`Linter::rule_infos`] still lists every rule.
    pub fn restricted_to(mut self, enabled: impl Fn(&str) -> bool) -> Linter {
        self.rules.retain(|r| enabled(&r.id));
        self
    }

    /// The rules that run.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Metadata of every loaded rule, sorted by id.
    pub fn rule_infos(&self) -> Vec<RuleInfo> {
        self.infos.clone()
    }

    /// Every finding of every rule in `model`.
    pub fn lint(&self, model: &Model) -> Vec<Finding> {
        // One constant / dependence pass per function, shared by the op-set check and the rules
        // (when no rule needs it, the op-set check computes only what it asks for).
        let analyses = needs_function_analysis(&self.rules).then(|| analyze_model(model));
        match_model_with(
            model,
            &self.rules,
            &model_entities_with(model, analyses.as_deref()),
            self.run.as_ref(),
            analyses.as_deref(),
        )
    }
}

/// The model-level entities (weights, bundle items, …) that entity rules select.
pub fn model_entities(model: &Model) -> ModelEntities {
    model_entities_with(model, None)
}

/// [`model_entities`] with the analysis of every function of `model` (in order), when it was
/// computed already.
fn model_entities_with(model: &Model, analyses: Option<&[FunctionAnalysis]>) -> ModelEntities {
    let mut entities = crate::analysis::bundle::bundle_entities(model);
    entities.extend(blob_entities(model));
    entities.extend(crate::analysis::coreai::coreai_entities(model));
    entities.extend(description_entities(model));
    entities.extend(crate::analysis::state_writes::model_state_entities(model));
    entities.extend(opset_entities_with(model, analyses));
    entities.push(crate::analysis::os_requirement::model_entity(model));
    ModelEntities { entities }
}
