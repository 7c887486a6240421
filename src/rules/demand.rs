//! What a run's entity rules may select, asked by the producers of many entities before they
//! describe one whole ([`EntityDemand`]): a kind no rule selects is not produced, and an entity
//! whose cheap properties already fail every rule of its kind is never made.
//!
//! The rules of each kind are compiled for that question when the run starts: their properties
//! become the kind's slots (a [`Partial`] entity holds its properties by slot), and what each
//! rule requires of booleans and of the properties being there becomes bit masks, tested before
//! the rule's whole test.

use rustc_hash::FxHashMap;

use super::entity_rule::{EntityTest, Pred};
use super::loader::{RuleSet, Target};
use super::schema::Status;
use crate::analysis::entity::{EntityDemand, EntityKind, Partial, PropView, Slot, MAX_PROPERTIES};

/// The tests of the run's entity rules, by the kind they select.
pub struct RuleDemand<'r> {
    by_kind: FxHashMap<&'static str, KindDemand<'r>>,
}

/// The run's rules of one kind, compiled to read a partial entity by slot.
struct KindDemand<'r> {
    kind: &'static EntityKind,
    /// Each rule's test and what it requires.
    rules: Vec<(SlotTest<'r>, Required)>,
}

/// An [`EntityTest`] whose properties are slots.
enum SlotTest<'r> {
    Prop(Slot, &'r Pred),
    /// `same-as`: the two properties are equal.
    SameAs(Slot, Slot),
    All(Vec<SlotTest<'r>>),
    Any(Vec<SlotTest<'r>>),
    Not(Box<SlotTest<'r>>),
}

/// What a rule's test requires, as masks of slots: properties that must be there, booleans that
/// must be true and booleans that must be false. A partial entity that lacks one for good, or
/// holds the other value, cannot be selected.
#[derive(Clone, Copy, Default)]
struct Required {
    present: u64,
    is_true: u64,
    is_false: u64,
}

impl<'r> RuleDemand<'r> {
    /// The demand of the rules of `rules` that run (removed rules select nothing).
    pub fn of(rules: &'r RuleSet) -> RuleDemand<'r> {
        let mut by_kind: FxHashMap<&'static str, KindDemand<'r>> = FxHashMap::default();
        for rule in rules.rules().iter().filter(|r| r.status != Status::Removed) {
            if let Target::Entity(er, _) = &rule.target {
                let kind = by_kind.entry(er.kind.name).or_insert_with(|| KindDemand {
                    kind: er.kind,
                    rules: Vec::new(),
                });
                let test = kind.slot_test(&er.test);
                let required = test.required();
                kind.rules.push((test, required));
            }
        }
        RuleDemand { by_kind }
    }

    /// Whether some rule selects entities of `kind`.
    pub fn wants_kind(&self, kind: &str) -> bool {
        self.by_kind.contains_key(kind)
    }
}

impl<'r> KindDemand<'r> {
    /// The members of a conjunction or disjunction, cheapest first.
    fn members(&self, ts: &'r [EntityTest]) -> Vec<SlotTest<'r>> {
        let mut members: Vec<SlotTest<'r>> = ts.iter().map(|t| self.slot_test(t)).collect();
        members.sort_by_key(SlotTest::cost);
        members
    }

    fn slot_test(&self, t: &'r EntityTest) -> SlotTest<'r> {
        match t {
            // The rule compiler accepts only the kind's properties.
            EntityTest::Prop(name, pred) => {
                let slot = |name: &str| self.kind.slot_of(name).unwrap_or(usize::MAX);
                match pred {
                    Pred::SameAs(other) => SlotTest::SameAs(slot(name), slot(other)),
                    pred => SlotTest::Prop(slot(name), pred),
                }
            }
            EntityTest::All(ts) => SlotTest::All(self.members(ts)),
            EntityTest::Any(ts) => SlotTest::Any(self.members(ts)),
            EntityTest::Not(t) => SlotTest::Not(Box::new(self.slot_test(t))),
        }
    }

    /// Whether some rule of the kind may select `partial`: first by what each rule requires (a
    /// few bit operations), then by the rule's whole test.
    fn may_select(&self, partial: &Partial<'_>, pending: u64) -> bool {
        let (set, is_true, is_false) = partial.masks();
        let to_come = pending & !set;
        let (there, may_be_true, may_be_false) =
            (set | to_come, is_true | to_come, is_false | to_come);
        let known = Known { partial, to_come };
        self.rules.iter().any(|(test, r)| {
            r.present & !there == 0
                && r.is_true & !may_be_true == 0
                && r.is_false & !may_be_false == 0
                && known.may_match(test) != Some(false)
        })
    }
}

impl SlotTest<'_> {
    /// What the test requires: that the properties it tests be there (every predicate but
    /// `present: false`), with a boolean's value. A conjunction requires what any member does,
    /// a disjunction what every member does.
    fn required(&self) -> Required {
        match self {
            SlotTest::Prop(slot, pred) if *slot < MAX_PROPERTIES => {
                let bit = 1u64 << slot;
                let present = Required {
                    present: bit,
                    ..Required::default()
                };
                match pred {
                    Pred::Present(false) => Required::default(),
                    Pred::Bool(true) => Required {
                        is_true: bit,
                        ..present
                    },
                    Pred::Bool(false) => Required {
                        is_false: bit,
                        ..present
                    },
                    _ => present,
                }
            }
            SlotTest::SameAs(slot, _) if *slot < MAX_PROPERTIES => Required {
                present: 1 << slot,
                ..Required::default()
            },
            SlotTest::All(ts) => {
                ts.iter()
                    .map(SlotTest::required)
                    .fold(Required::default(), |a, b| Required {
                        present: a.present | b.present,
                        is_true: a.is_true | b.is_true,
                        is_false: a.is_false | b.is_false,
                    })
            }
            SlotTest::Any(ts) => ts
                .iter()
                .map(SlotTest::required)
                .reduce(|a, b| Required {
                    present: a.present & b.present,
                    is_true: a.is_true & b.is_true,
                    is_false: a.is_false & b.is_false,
                })
                .unwrap_or_default(),
            _ => Required::default(),
        }
    }

    /// How costly the test is to evaluate, for the order of a conjunction's or disjunction's
    /// members (their result does not depend on it): booleans first, then other single
    /// properties, comparisons of two properties, and composites last.
    fn cost(&self) -> u8 {
        match self {
            SlotTest::Prop(_, Pred::Bool(_) | Pred::Present(_)) => 0,
            SlotTest::Prop(..) => 1,
            SlotTest::SameAs(..) => 2,
            _ => 3,
        }
    }
}

/// A partial entity as the compiled tests read it.
struct Known<'a, 'p> {
    partial: &'a Partial<'p>,
    /// The slots of the properties not set yet that will be once the entity is wanted.
    to_come: u64,
}

impl Known<'_, '_> {
    fn value(&self, slot: Slot) -> Option<PropView<'_>> {
        (slot < MAX_PROPERTIES)
            .then(|| self.partial.get(slot))
            .flatten()
    }

    fn is_to_come(&self, slot: Slot) -> bool {
        slot < MAX_PROPERTIES && self.to_come & (1 << slot) != 0
    }

    fn named(&self, name: &str) -> Option<PropView<'_>> {
        self.value(self.partial.kind().slot_of(name)?)
    }

    /// A conjunction (`decisive` false) or disjunction (`decisive` true) of `ts`: a member whose
    /// answer is `decisive` decides it; otherwise unknown when a member is.
    fn may_match_members(&self, ts: &[SlotTest<'_>], decisive: bool) -> Option<bool> {
        let mut known = true;
        for t in ts {
            match self.may_match(t) {
                Some(v) if v == decisive => return Some(decisive),
                Some(_) => {}
                None => known = false,
            }
        }
        known.then_some(!decisive)
    }

    /// Whether the partial entity matches `t`: `None` when the answer depends on a property
    /// still to come (a property it lacks that is not to come, it lacks for good).
    fn may_match(&self, t: &SlotTest<'_>) -> Option<bool> {
        match t {
            SlotTest::All(ts) => self.may_match_members(ts, false),
            SlotTest::Any(ts) => self.may_match_members(ts, true),
            SlotTest::Not(t) => self.may_match(t).map(|m| !m),
            SlotTest::SameAs(slot, other) => match (self.value(*slot), self.value(*other)) {
                (Some(a), Some(b)) => Some(a == b),
                (None, _) => (!self.is_to_come(*slot)).then_some(false),
                (Some(_), None) => (!self.is_to_come(*other)).then_some(false),
            },
            SlotTest::Prop(slot, pred) => {
                let Some(v) = self.value(*slot) else {
                    return if self.is_to_come(*slot) {
                        None
                    } else {
                        Some(matches!(pred, Pred::Present(false)))
                    };
                };
                let to_come = |p: &str| {
                    self.partial
                        .kind()
                        .slot_of(p)
                        .is_some_and(|s| self.is_to_come(s))
                };
                match pred {
                    Pred::Present(want) => Some(*want),
                    Pred::Bool(_) | Pred::Words(_) => Some(pred.holds(v, |p| self.named(p))),
                    pred if pred.operands().any(to_come) => None,
                    pred => Some(pred.holds(v, |p| self.named(p))),
                }
            }
        }
    }
}

impl EntityDemand for RuleDemand<'_> {
    fn may_select(&self, partial: &Partial<'_>, pending: u64) -> bool {
        self.by_kind
            .get(partial.kind().name)
            .is_some_and(|kind| kind.may_select(partial, pending))
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
