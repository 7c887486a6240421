//! What a run's entity rules may select, asked by the producers of many entities before they
//! describe one whole ([`EntityDemand`]): a kind no rule selects is not produced, and an entity
//! whose cheap properties already fail every rule of its kind is never made.
//!
//! The rules of each kind are compiled for that question when the run starts: every property
//! they test gets a slot, a partial entity's properties are put in their slots once, and each
//! rule's test reads slots, not names.

use rustc_hash::FxHashMap;

use super::entity_rule::{EntityTest, Pred};
use super::loader::{RuleSet, Target};
use super::schema::Status;
use crate::analysis::entity::{same_name, Entity, EntityDemand, Prop};

/// The most properties one kind's rules may test for the slot form; a kind whose rules test more
/// asks every rule by name.
const SLOTS: usize = 64;

/// The tests of the run's entity rules, by the kind they select.
pub struct RuleDemand<'r> {
    by_kind: FxHashMap<&'static str, KindDemand<'r>>,
}

/// The run's rules of one kind, compiled to read a partial entity's properties by slot.
struct KindDemand<'r> {
    /// The property of each slot.
    names: Vec<&'static str>,
    /// The slot of each property.
    slot_of: FxHashMap<&'static str, usize>,
    /// Each rule's test over the slots (read by name when the kind has more than [`SLOTS`]).
    tests: Vec<SlotTest<'r>>,
    /// Each rule's boolean properties that must hold a value (slots under [`SLOTS`]): a partial
    /// entity whose property has the other value, or lacks it for good, cannot be selected.
    required: Vec<Required>,
    /// The slots of a producer's pending properties, by the address of its list.
    pending_slots: std::sync::OnceLock<(usize, u64)>,
}

/// Boolean properties a rule's test requires, as bit masks over the slots.
#[derive(Clone, Copy, Default)]
struct Required {
    present: u64,
    is_true: u64,
    is_false: u64,
}

/// An [`EntityTest`] whose properties are slots.
enum SlotTest<'r> {
    Prop(usize, &'r Pred),
    All(Vec<SlotTest<'r>>),
    Any(Vec<SlotTest<'r>>),
    Not(Box<SlotTest<'r>>),
}

impl<'r> RuleDemand<'r> {
    /// The demand of the rules of `rules` that run (removed rules select nothing).
    pub fn of(rules: &'r RuleSet) -> RuleDemand<'r> {
        let mut tests: FxHashMap<&'static str, Vec<&'r EntityTest>> = FxHashMap::default();
        for rule in rules.rules().iter().filter(|r| r.status != Status::Removed) {
            if let Target::Entity(er, _) = &rule.target {
                tests.entry(er.kind.name).or_default().push(&er.test);
            }
        }
        let by_kind = tests
            .into_iter()
            .map(|(kind, tests)| (kind, KindDemand::compile(&tests)))
            .collect();
        RuleDemand { by_kind }
    }

    /// Whether some rule selects entities of `kind`.
    pub fn wants_kind(&self, kind: &str) -> bool {
        self.by_kind.contains_key(kind)
    }
}

impl<'r> KindDemand<'r> {
    fn compile(tests: &[&'r EntityTest]) -> KindDemand<'r> {
        let mut kind = KindDemand {
            names: Vec::new(),
            slot_of: FxHashMap::default(),
            tests: Vec::new(),
            required: Vec::new(),
            pending_slots: std::sync::OnceLock::new(),
        };
        kind.tests = tests.iter().map(|t| kind.slot_test(t)).collect();
        kind.required = kind.tests.iter().map(SlotTest::required).collect();
        kind
    }

    /// The members of a conjunction or disjunction, cheapest first.
    fn members(&mut self, ts: &'r [EntityTest]) -> Vec<SlotTest<'r>> {
        let mut members: Vec<SlotTest<'r>> = ts.iter().map(|t| self.slot_test(t)).collect();
        members.sort_by_key(SlotTest::cost);
        members
    }

    fn slot_test(&mut self, t: &'r EntityTest) -> SlotTest<'r> {
        match t {
            EntityTest::Prop(name, pred) => {
                let next = self.names.len();
                let slot = *self.slot_of.entry(name).or_insert(next);
                if slot == next {
                    self.names.push(name);
                }
                SlotTest::Prop(slot, pred)
            }
            EntityTest::All(ts) => SlotTest::All(self.members(ts)),
            EntityTest::Any(ts) => SlotTest::Any(self.members(ts)),
            EntityTest::Not(t) => SlotTest::Not(Box::new(self.slot_test(t))),
        }
    }

    /// Whether some rule of the kind may select `partial`: first by the boolean properties each
    /// rule requires (a few bit operations), then by the rule's whole test.
    fn may_select(&self, partial: &Entity, pending: &[&str]) -> bool {
        let mut slots: [Option<&Prop>; SLOTS] = [None; SLOTS];
        let by_slot = self.names.len() <= SLOTS;
        let (mut is_true, mut is_false, mut set) = (0u64, 0u64, 0u64);
        if by_slot {
            for (name, value) in partial.props() {
                if let Some(&slot) = self.slot_of.get(name) {
                    slots[slot] = Some(value);
                    set |= 1 << slot;
                    match value {
                        Prop::Bool(true) => is_true |= 1 << slot,
                        Prop::Bool(false) => is_false |= 1 << slot,
                        _ => {}
                    }
                }
            }
            let to_come = self.pending_slots(pending) & !set;
            let (may_be_true, may_be_false) = (is_true | to_come, is_false | to_come);
            let known = Known {
                partial,
                pending,
                slots: Some(&slots),
                names: &self.names,
            };
            let may_be_there = set | to_come;
            return self.tests.iter().zip(&self.required).any(|(t, r)| {
                r.present & !may_be_there == 0
                    && r.is_true & !may_be_true == 0
                    && r.is_false & !may_be_false == 0
                    && known.may_match(t) != Some(false)
            });
        }
        let known = Known {
            partial,
            pending,
            slots: None,
            names: &self.names,
        };
        self.tests.iter().any(|t| known.may_match(t) != Some(false))
    }

    /// The slots of the properties in `pending` (a producer passes the same list for a kind each
    /// time, so it is worked out once).
    fn pending_slots(&self, pending: &[&str]) -> u64 {
        let slots = || {
            pending
                .iter()
                .filter_map(|p| self.slot_of.get(p))
                .filter(|&&s| s < SLOTS)
                .fold(0u64, |m, &s| m | 1 << s)
        };
        let key = pending.as_ptr() as usize;
        let &(cached_for, mask) = self.pending_slots.get_or_init(|| (key, slots()));
        if cached_for == key {
            mask
        } else {
            slots()
        }
    }
}

impl SlotTest<'_> {
    /// What the test requires of properties in slots under [`SLOTS`]: that they be there (every
    /// predicate but `present: false`), with a boolean's value. A conjunction requires what any
    /// member does, a disjunction what every member does.
    fn required(&self) -> Required {
        match self {
            SlotTest::Prop(slot, pred) if *slot < SLOTS => {
                let bit = 1u64 << slot;
                match pred {
                    Pred::Present(false) => Required::default(),
                    Pred::Bool(true) => Required {
                        present: bit,
                        is_true: bit,
                        is_false: 0,
                    },
                    Pred::Bool(false) => Required {
                        present: bit,
                        is_true: 0,
                        is_false: bit,
                    },
                    _ => Required {
                        present: bit,
                        ..Required::default()
                    },
                }
            }
            SlotTest::All(ts) => ts
                .iter()
                .map(SlotTest::required)
                .fold(Required::default(), |a, b| Required {
                    present: a.present | b.present,
                    is_true: a.is_true | b.is_true,
                    is_false: a.is_false | b.is_false,
                }),
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
            SlotTest::Prop(_, Pred::SameAs(_)) => 2,
            SlotTest::Prop(..) => 1,
            _ => 3,
        }
    }
}

/// A partial entity as the compiled tests read it.
struct Known<'a> {
    partial: &'a Entity,
    /// The properties that will be set once the entity is wanted.
    pending: &'a [&'a str],
    /// The partial's properties by slot (`None`: by name, past [`SLOTS`]).
    slots: Option<&'a [Option<&'a Prop>; SLOTS]>,
    names: &'a [&'static str],
}

impl Known<'_> {
    fn value(&self, slot: usize) -> Option<&Prop> {
        match self.slots {
            Some(slots) => slots[slot],
            None => self.partial.get(self.names.get(slot)?),
        }
    }

    fn is_pending(&self, name: &str) -> bool {
        self.pending.iter().any(|q| same_name(q, name))
    }

    /// Whether the partial entity matches `t`: `None` when the answer depends on a property
    /// still pending (a property it lacks that is not pending, it lacks for good).
    fn may_match(&self, t: &SlotTest<'_>) -> Option<bool> {
        match t {
            SlotTest::All(ts) => {
                let mut known = true;
                for t in ts {
                    match self.may_match(t) {
                        Some(false) => return Some(false),
                        Some(true) => {}
                        None => known = false,
                    }
                }
                known.then_some(true)
            }
            SlotTest::Any(ts) => {
                let mut known = true;
                for t in ts {
                    match self.may_match(t) {
                        Some(true) => return Some(true),
                        Some(false) => {}
                        None => known = false,
                    }
                }
                known.then_some(false)
            }
            SlotTest::Not(t) => self.may_match(t).map(|m| !m),
            SlotTest::Prop(slot, pred) => {
                let Some(v) = self.value(*slot) else {
                    let name = self.names.get(*slot).copied().unwrap_or("");
                    return if self.is_pending(name) {
                        None
                    } else {
                        Some(matches!(pred, Pred::Present(false)))
                    };
                };
                let to_come = |p: &str| self.partial.get(p).is_none() && self.is_pending(p);
                match pred {
                    Pred::Present(want) => Some(*want),
                    Pred::Bool(_) | Pred::Words(_) => Some(pred.holds(v, self.partial)),
                    pred if pred.operands().any(to_come) => None,
                    pred => Some(pred.holds(v, self.partial)),
                }
            }
        }
    }
}

impl EntityDemand for RuleDemand<'_> {
    fn may_select(&self, partial: &Entity, pending: &[&str]) -> bool {
        self.by_kind
            .get(partial.kind)
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
