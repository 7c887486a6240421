//! What a run's entity rules may select, asked by the producers of many entities before they
//! describe one whole ([`EntityDemand`]): a kind no rule selects is not produced, and an entity
//! whose cheap properties already fail every rule of its kind is never made.

use rustc_hash::FxHashMap;

use super::entity_rule::EntityTest;
use super::loader::{RuleSet, Target};
use super::schema::Status;
use crate::analysis::entity::{Entity, EntityDemand};

/// The tests of the run's entity rules, by the kind they select.
pub struct RuleDemand<'r> {
    by_kind: FxHashMap<&'static str, Vec<&'r EntityTest>>,
}

impl<'r> RuleDemand<'r> {
    /// The demand of the rules of `rules` that run (removed rules select nothing).
    pub fn of(rules: &'r RuleSet) -> RuleDemand<'r> {
        let mut by_kind: FxHashMap<&'static str, Vec<&'r EntityTest>> = FxHashMap::default();
        for rule in rules.rules().iter().filter(|r| r.status != Status::Removed) {
            if let Target::Entity(er, _) = &rule.target {
                by_kind.entry(er.kind.name).or_default().push(&er.test);
            }
        }
        RuleDemand { by_kind }
    }

    /// Whether some rule selects entities of `kind`.
    pub fn wants_kind(&self, kind: &str) -> bool {
        self.by_kind.contains_key(kind)
    }
}

impl EntityDemand for RuleDemand<'_> {
    fn may_select(&self, partial: &Entity, pending: &[&str]) -> bool {
        self.by_kind.get(partial.kind).is_some_and(|tests| {
            tests
                .iter()
                .any(|t| t.may_match(partial, pending) != Some(false))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::entity::EveryEntity;
    use crate::analysis::opset::opset_entities_with;
    use crate::analysis::registry::ModelEntities;
    use crate::rules::testing::snippet_model;
    use crate::rules::{match_model, RuleSet};

    /// The op-set check describes in part, then whole only what the rules may select: on every
    /// snippet of every built-in rule's tests, the entity rules find exactly what they find when
    /// every entity is described whole (so each producer's pending properties are complete).
    #[test]
    fn the_demand_keeps_every_finding_of_the_builtin_rules() {
        let rules = RuleSet::builtin().expect("built-in rules load");
        let mut entity_rules = rules.clone();
        entity_rules.retain(|r| matches!(r.target, Target::Entity(..)));
        let demand = RuleDemand::of(&entity_rules);
        let mut snippets = 0;
        for rule in rules.rules() {
            let tests = rule.tests();
            for case in tests.valid.iter().chain(&tests.invalid) {
                let Some(mil) = &case.mil else { continue };
                let Ok(model) = snippet_model("test.mil", mil) else {
                    continue;
                };
                let findings = |entities: Vec<_>| {
                    let entities = ModelEntities { entities };
                    match_model(&model, &entity_rules, &entities)
                };
                let whole = findings(opset_entities_with(&model, None, &EveryEntity));
                let demanded = findings(opset_entities_with(&model, None, &demand));
                assert_eq!(demanded, whole, "rule {}'s snippet:\n{mil}", rule.id);
                snippets += 1;
            }
        }
        assert!(snippets > 100, "{snippets} snippets");
    }
}
