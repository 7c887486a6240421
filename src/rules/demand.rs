//! What a run's entity rules may select, asked by the producers of many entities before they
//! describe one whole ([`EntityDemand`]): a kind no rule selects is not produced, and an entity
//! whose cheap properties already fail every rule of its kind is never made.
//!
//! The rules of each kind are compiled for that question when the run starts: their properties
//! become the kind's slots (a [`Partial`] entity holds its properties by slot), and what each
//! rule requires of booleans and of the properties being there becomes bit masks, tested before
//! the rule's whole test. When a kind's tests read only which properties are there, true, false
//! or to come, which of their words a text is and whether two compared properties are equal, an
//! answer is kept per such key (per run and thread): the op-set check's tens of thousands of
//! parameters are mostly alike.

use rustc_hash::FxHashMap;

use super::entity_rule::{EntityTest, Pred};
use super::loader::{RuleSet, Target};
use super::schema::Status;
use crate::analysis::entity::{Entity, EntityDemand, Partial, PropView, Slot, MAX_PROPERTIES};

/// The tests of the run's entity rules, by the kind they select.
pub struct RuleDemand<'r> {
    by_kind: FxHashMap<&'static str, KindDemand<'r>>,
    /// Tells this demand's answers from another's in the thread's [`ANSWERS`].
    id: u64,
}

/// The run's rules of one kind, compiled to read a partial entity by slot.
struct KindDemand<'r> {
    /// The kind (the tests describe partial entities of it).
    #[cfg(test)]
    kind: &'static crate::analysis::entity::EntityKind,
    /// Its place among the demand's kinds (part of an answer's key).
    index: usize,
    /// Each rule's test and what it requires.
    rules: Vec<(SlotTest<'r>, Required)>,
    /// Each rule's test as written, for entities described whole.
    tests: Vec<&'r EntityTest>,
    /// How a partial entity's answer is keyed, when the tests read only what a key holds.
    key: Option<KeyPlan<'r>>,
}

/// What the tests of a kind read of a partial entity, when that is only which of their
/// properties are there, true, false or still to come, which of the words they name a text
/// property is, whether two properties they compare are equal, and the answers of their number
/// comparisons and patterns: entities alike in that get the same answer, so it is worked out once
/// per run and thread (the op-set check asks about some 50 k parameters of a 14 k-op program, and
/// the weight check about every file-backed constant, most alike).
struct KeyPlan<'r> {
    /// The slots the tests read.
    tested: u64,
    /// Each text slot tested with words, with every word a test names.
    words: Vec<(Slot, Vec<&'r str>)>,
    /// The slots `same-as` compares.
    same: Vec<(Slot, Slot)>,
    /// Each number comparison and pattern the tests name, on its slot: its answer is a part of
    /// the key (two bits: unknown, true or false).
    atoms: Vec<(Slot, &'r Pred)>,
}

/// A partial entity's key: its kind's index, the [`KeyPlan::tested`] slots there, true, false and
/// to come, then for each text slot of [`KeyPlan::words`] the index of its word plus one (0: none),
/// a byte each, a bit for each pair of [`KeyPlan::same`] that is equal, and two bits for the
/// answer of each of [`KeyPlan::atoms`].
type AnswerKey = (usize, [u64; 7]);

/// The answers one demand worked out on a thread.
#[derive(Default)]
struct Answers {
    demand: u64,
    by_key: FxHashMap<AnswerKey, bool>,
}

thread_local! {
    /// The answers worked out on this thread for the demand that asked last (another demand
    /// starts them afresh).
    static ANSWERS: std::cell::RefCell<Answers> = std::cell::RefCell::default();
}

/// Each demand's `id`.
static DEMANDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

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
                let index = by_kind.len();
                let kind = by_kind.entry(er.kind.name).or_insert_with(|| KindDemand {
                    #[cfg(test)]
                    kind: er.kind,
                    index,
                    rules: Vec::new(),
                    tests: Vec::new(),
                    key: None,
                });
                let test = kind.slot_test(&er.test);
                let required = test.required();
                kind.rules.push((test, required));
                kind.tests.push(&er.test);
            }
        }
        for kind in by_kind.values_mut() {
            kind.key = KeyPlan::of(kind.rules.iter().map(|(t, _)| t));
        }
        let id = DEMANDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        RuleDemand { by_kind, id }
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
            EntityTest::Prop(slot, pred) => match pred {
                Pred::SameAs(other) => SlotTest::SameAs(*slot, *other),
                pred => SlotTest::Prop(*slot, pred),
            },
            EntityTest::All(ts) => SlotTest::All(self.members(ts)),
            EntityTest::Any(ts) => SlotTest::Any(self.members(ts)),
            EntityTest::Not(t) => SlotTest::Not(Box::new(self.slot_test(t))),
        }
    }

    /// Whether some rule of the kind may select `partial`: the answer kept for its key, else
    /// worked out ([`Self::work_out`]) and kept.
    fn may_select(&self, demand: u64, partial: &Partial<'_>, pending: u64) -> bool {
        // Most partial entities lack what every rule requires (a healthy parameter is accepted):
        // a few bit operations answer them before a key is made or looked up.
        if !self.rules.iter().any(|(_, r)| r.allows(partial, pending)) {
            return false;
        }
        let Some(plan) = &self.key else {
            return self.work_out(partial, pending);
        };
        let key = (self.index, plan.key(partial, pending));
        ANSWERS.with(|a| {
            let mut a = a.borrow_mut();
            if a.demand != demand {
                a.demand = demand;
                a.by_key.clear();
            }
            *a.by_key
                .entry(key)
                .or_insert_with(|| self.work_out(partial, pending))
        })
    }

    /// Whether some rule of the kind may select `partial`: first by what each rule requires (a
    /// few bit operations), then by the rule's whole test.
    fn work_out(&self, partial: &Partial<'_>, pending: u64) -> bool {
        let to_come = pending & !partial.masks().0;
        let known = Known { partial, to_come };
        self.rules
            .iter()
            .any(|(test, r)| r.allows(partial, pending) && known.may_match(test) != Some(false))
    }
}

impl Required {
    /// Whether `partial` (with the slots `pending` still to come) may meet these requirements:
    /// nothing required is missing for good, no required boolean holds the other value.
    fn allows(&self, partial: &Partial<'_>, pending: u64) -> bool {
        let (set, is_true, is_false) = partial.masks();
        let to_come = pending & !set;
        self.present & !(set | to_come) == 0
            && self.is_true & !(is_true | to_come) == 0
            && self.is_false & !(is_false | to_come) == 0
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
            SlotTest::Prop(slot, pred) => self.prop_may_match(*slot, pred),
        }
    }

    /// Whether the property of `slot` meets `pred`, as [`Self::may_match`].
    fn prop_may_match(&self, slot: Slot, pred: &Pred) -> Option<bool> {
        let Some(v) = self.value(slot) else {
            return if self.is_to_come(slot) {
                None
            } else {
                Some(matches!(pred, Pred::Present(false)))
            };
        };
        match pred {
            Pred::Present(want) => Some(*want),
            Pred::Bool(_) | Pred::Words(_) => Some(pred.holds(v, |p| self.value(p))),
            pred if pred.operands().any(|p| self.is_to_come(p)) => None,
            pred => Some(pred.holds(v, |p| self.value(p))),
        }
    }
}

impl EntityDemand for RuleDemand<'_> {
    fn may_select(&self, partial: &Partial<'_>, pending: u64) -> bool {
        self.by_kind
            .get(partial.kind().name)
            .is_some_and(|kind| kind.may_select(self.id, partial, pending))
    }

    fn selects(&self, entity: &Entity) -> bool {
        self.by_kind
            .get(entity.kind)
            .is_some_and(|kind| kind.tests.iter().any(|t| t.matches(entity)))
    }
}

impl<'r> KeyPlan<'r> {
    /// The plan for `tests`, or `None` when one reads more than a key holds (a number, a
    /// pattern, a property of another capture) or names too many words or comparisons.
    fn of<'t>(tests: impl Iterator<Item = &'t SlotTest<'r>>) -> Option<KeyPlan<'r>>
    where
        'r: 't,
    {
        let mut plan = KeyPlan {
            tested: 0,
            words: Vec::new(),
            same: Vec::new(),
            atoms: Vec::new(),
        };
        for t in tests {
            plan.add(t)?;
        }
        let fits = plan.words.len() <= 8
            && plan.words.iter().all(|(_, w)| w.len() < 255)
            && plan.same.len() <= 64
            && plan.atoms.len() <= 32;
        fits.then_some(plan)
    }

    fn add(&mut self, t: &SlotTest<'r>) -> Option<()> {
        match t {
            SlotTest::Prop(slot, pred) if *slot < MAX_PROPERTIES => {
                self.tested |= 1 << slot;
                match pred {
                    Pred::Present(_) | Pred::Bool(_) => Some(()),
                    Pred::Words(words) => {
                        let at = match self.words.iter().position(|(s, _)| s == slot) {
                            Some(at) => at,
                            None => {
                                self.words.push((*slot, Vec::new()));
                                self.words.len() - 1
                            }
                        };
                        let known = &mut self.words[at].1;
                        for w in words {
                            if !known.contains(&w.as_str()) {
                                known.push(w.as_str());
                            }
                        }
                        Some(())
                    }
                    Pred::Number(_) | Pred::Regex(_) => {
                        if !self.atoms.iter().any(|(s, p)| s == slot && *p == *pred) {
                            self.atoms.push((*slot, pred));
                        }
                        Some(())
                    }
                    Pred::SameAs(_) => None,
                }
            }
            SlotTest::SameAs(a, b) if *a < MAX_PROPERTIES && *b < MAX_PROPERTIES => {
                self.tested |= (1 << a) | (1 << b);
                if !self.same.contains(&(*a, *b)) {
                    self.same.push((*a, *b));
                }
                Some(())
            }
            SlotTest::All(ts) | SlotTest::Any(ts) => ts.iter().try_for_each(|t| self.add(t)),
            SlotTest::Not(t) => self.add(t),
            _ => None,
        }
    }

    /// `partial`'s key: what its tests read of it (see [`AnswerKey`]).
    fn key(&self, partial: &Partial<'_>, pending: u64) -> [u64; 7] {
        let (set, is_true, is_false) = partial.masks();
        let to_come = pending & !set;
        let known = Known { partial, to_come };
        let mut atoms = 0u64;
        for (i, (slot, pred)) in self.atoms.iter().enumerate() {
            let answer = match known.prop_may_match(*slot, pred) {
                None => 1,
                Some(false) => 2,
                Some(true) => 3,
            };
            atoms |= answer << (2 * i);
        }
        let mut words = 0u64;
        for (i, (slot, known)) in self.words.iter().enumerate() {
            let word = match partial.get(*slot) {
                Some(PropView::Text(t)) => known.iter().position(|w| *w == t).map_or(0, |p| p + 1),
                _ => 0,
            };
            words |= (word as u64) << (8 * i);
        }
        let mut same = 0u64;
        for (i, (a, b)) in self.same.iter().enumerate() {
            let equal = matches!((partial.get(*a), partial.get(*b)), (Some(x), Some(y)) if x == y);
            same |= u64::from(equal) << i;
        }
        let tested = self.tested;
        [
            set & tested,
            is_true & tested,
            is_false & tested,
            to_come & tested,
            words,
            same,
            atoms,
        ]
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

    /// An answer kept for a key is the answer worked out for every partial entity of that key.
    /// For each rule of each kind the built-in rules key, random partial entities whose tested
    /// properties are unset, to come, true, false, one of the words a test names, another text or a
    /// number near the bounds the tests name (the rest unset: a small space, so many entities share
    /// a key): the kept answer equals the one worked out afresh. A key that leaves out something a test reads fails this.
    #[test]
    fn a_kept_answer_is_the_answer_of_every_entity_of_its_key() {
        let rules = RuleSet::builtin().expect("built-in rules load");
        let demand = RuleDemand::of(&rules);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut read_back = 0;
        for kind in demand.by_kind.values() {
            let Some(plan) = &kind.key else { continue };
            let mut partial = Partial::new(kind.kind);
            for (test, _) in &kind.rules {
                let own = KeyPlan::of(std::iter::once(test)).expect("a keyed kind's test");
                let slots: Vec<Slot> = (0..MAX_PROPERTIES)
                    .filter(|s| own.tested & (1 << s) != 0)
                    .collect();
                let mut keys = std::collections::BTreeSet::new();
                for _ in 0..2_000 {
                    partial.reset(kind.kind);
                    let mut pending = 0u64;
                    for &slot in &slots {
                        let words = plan.words.iter().find(|(s, _)| *s == slot);
                        let words: &[&str] = words.map_or(&[], |(_, w)| w);
                        match next(8 + words.len()) {
                            0 => {}
                            1 => pending |= 1 << slot,
                            2 => _ = partial.set(slot, true),
                            3 => _ = partial.set(slot, false),
                            4 => _ = partial.set(slot, "fp16"),
                            5 => _ = partial.set(slot, "fp32"),
                            // Numbers around the bounds the tests name (0, 1, 8, 64, ...).
                            6 => _ = partial.set(slot, (next(5) * 32) as u64),
                            7 => _ = partial.set(slot, next(130) as u64),
                            w => _ = partial.set(slot, words[w - 8]),
                        }
                    }
                    let key = plan.key(&partial, pending);
                    read_back += usize::from(!keys.insert(key));
                    assert_eq!(
                        kind.may_select(demand.id, &partial, pending),
                        kind.work_out(&partial, pending),
                        "{}: {key:?}",
                        kind.kind.name
                    );
                }
            }
        }
        assert!(
            ["mil-parameter", "mil-op", "weight"]
                .iter()
                .all(|k| demand.by_kind.get(k).is_some_and(|d| d.key.is_some())),
            "the op-set kinds and weights are keyed"
        );
        assert!(read_back > 10_000, "{read_back} answers read back");
    }

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
