//! Linting one model: its model-level entities (weights, bundle items, …) plus every rule, over
//! every function.

use crate::analysis::blobs::{self, blob_entities_with};
use crate::analysis::description::description_entities;
use crate::analysis::entity::{EntityDemand, EntityKind, EveryEntity};
use crate::analysis::opset::opset_entities_with;
use crate::analysis::registry::ModelEntities;
use crate::analysis::{analyze_model, FunctionAnalysis};
use crate::finding::Finding;
use crate::ir::Model;
use crate::rules::RuleInfo;
use crate::rules::{
    match_model_with, needs_function_analysis, ComputeUnits, DeployTarget, RuleDemand, RuleSet,
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
        let analyses = needs_function_analysis(model, &self.rules, self.run.as_ref())
            .then(|| analyze_model(model));
        let wanted = Wanted::Selected(RuleDemand::of(&self.rules));
        match_model_with(
            model,
            &self.rules,
            &model_entities_of(model, analyses.as_deref(), &wanted),
            self.run.as_ref(),
            analyses.as_deref(),
        )
    }
}

/// The model-level entities (weights, bundle items, …) that entity rules select, of every kind.
pub fn model_entities(model: &Model) -> ModelEntities {
    model_entities_of(model, None, &Wanted::Every)
}

/// Which entities a run produces.
enum Wanted<'r> {
    /// Every entity of every kind.
    Every,
    /// Those the run's entity rules may select (a producer runs only when some of its kinds is
    /// selected).
    Selected(RuleDemand<'r>),
}

/// The model-level entities `wanted`, with the analysis of every function of `model` (in
/// order), when it was computed already.
fn model_entities_of(
    model: &Model,
    analyses: Option<&[FunctionAnalysis]>,
    wanted: &Wanted<'_>,
) -> ModelEntities {
    use crate::analysis::{
        bundle, coreai, description, description_features, inline_weights, opset, os_requirement,
        pipeline_nms, state_writes,
    };
    let demand: &dyn EntityDemand = match wanted {
        Wanted::Every => &EveryEntity,
        Wanted::Selected(d) => d,
    };
    let wants = |kinds: &[EntityKind]| match wanted {
        Wanted::Every => true,
        Wanted::Selected(d) => kinds.iter().any(|k| d.wants_kind(k.name)),
    };
    let mut entities = Vec::new();
    if wants(bundle::ENTITY_KINDS) {
        entities.extend(bundle::bundle_entities(model));
    }
    if wants(blobs::ENTITY_KINDS) {
        entities.extend(blob_entities_with(model, demand));
    }
    if wants(pipeline_nms::ENTITY_KINDS) {
        entities.extend(pipeline_nms::nms_stage_entities(model));
    }
    if wants(inline_weights::ENTITY_KINDS) {
        entities.extend(inline_weights::inline_weight_entities(model, demand));
    }
    if wants(coreai::ENTITY_KINDS) {
        entities.extend(coreai::coreai_entities(model));
    }
    if wants(description::ENTITY_KINDS) {
        entities.extend(description_entities(model));
    }
    if wants(description_features::ENTITY_KINDS) {
        entities.extend(description_features::description_feature_entities(model));
    }
    if wants(state_writes::ENTITY_KINDS) {
        entities.extend(state_writes::model_state_entities(model));
    }
    if wants(opset::ENTITY_KINDS) {
        entities.extend(opset_entities_with(model, analyses, demand));
    }
    if wants(os_requirement::ENTITY_KINDS) {
        entities.push(os_requirement::model_entity(model));
    }
    ModelEntities { entities }
}
