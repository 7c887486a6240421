//! Linting one model: model-level facts (blobs, …) plus every rule, over every function.

use crate::analysis::blobs::blob_facts;
use crate::analysis::facts::Fact;
use crate::finding::Finding;
use crate::ir::Model;
use crate::report::RuleInfo;
use crate::rules::{check_model, RuleSet};

/// Runs a rule set over models.
#[derive(Debug)]
pub struct Linter {
    rules: RuleSet,
}

impl Linter {
    /// A linter with these rules.
    pub fn new(rules: RuleSet) -> Linter {
        Linter { rules }
    }

    /// The rules, for reporters.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Metadata of every rule, sorted by id.
    pub fn rule_infos(&self) -> Vec<RuleInfo> {
        self.rules.infos()
    }

    /// Every finding of every rule in `model`.
    pub fn lint(&self, model: &Model) -> Vec<Finding> {
        check_model(model, &self.rules, &model_facts(model))
    }
}

/// Facts about the whole model that `fact:` rules select.
pub fn model_facts(model: &Model) -> Vec<Fact> {
    blob_facts(model)
}
