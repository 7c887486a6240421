//! The order in which the members of a conjunction are tested: cheapest first.
//!
//! Every node of every function is tested by most rules and nearly every test fails, so what a
//! failing node costs is what the rules cost. A rule object's keys and an `all:` list are one
//! conjunction; its members are reordered at load by the [`Cost`] of testing them: the structure
//! of the node first, then lookups of the analysis, then constant values and walks of the graph
//! (kept in the order the author wrote them: a rule tests a neighbour before a value that would be
//! read from a weight file), then `peers:` and the deployment target, then captures. Matchers have no
//! effect but the captures they bind, so the order changes no answer; a member never moves past
//! another that can bind a capture of the same name (the later binding wins), so it changes no
//! capture either.

use std::collections::BTreeSet;

use super::matcher::{Matcher, StopBy, ValueM};
use super::vars::TARGET_VAR;

/// What testing a node with a matcher costs, in classes ordered cheapest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cost {
    /// The node itself: op type, the form and type of its values, the model.
    Structure,
    /// Lookups: run-time dependence, state writes, dims at a constant axis, the function, the
    /// name (a regular expression).
    Lookup,
    /// Constant values (decoded, or read from a weight file), implied shapes, `reasons:` texts,
    /// walks to other nodes.
    Values,
    /// Every op of the function (`peers:`); the deployment target (it binds the families it
    /// applies to).
    Function,
    /// Binds and never fails: tested last.
    Capture,
}

/// `members` as one conjunction (nested ones spliced in), cheapest first; members of equal cost,
/// and members that can bind a capture of the same name, keep their order.
pub fn cheapest_first(members: Vec<Matcher>) -> Vec<Matcher> {
    let mut flat = Vec::with_capacity(members.len());
    splice(members, &mut flat);
    // A costly test of a value whose type it also tests gets a guard of its type tests alone,
    // which every node it matches passes too: nodes of another type fail at the structure.
    let guards: Vec<Matcher> = flat.iter().filter_map(type_guard).collect();
    flat.extend(guards);
    let mut out: Vec<(Cost, BTreeSet<String>, Matcher)> = Vec::with_capacity(flat.len());
    for m in flat {
        let (c, names) = (cost(&m), captures(&m));
        let mut at = out.len();
        while at > 0 && out[at - 1].0 > c && out[at - 1].1.is_disjoint(&names) {
            at -= 1;
        }
        out.insert(at, (c, names, m));
    }
    out.into_iter().map(|(_, _, m)| m).collect()
}

/// The type tests of a value matcher that also tests more than the structure, without its
/// captures: a necessary condition of `m` that costs [`Cost::Structure`].
fn type_guard(m: &Matcher) -> Option<Matcher> {
    let types_only = |v: &ValueM| -> Option<Box<ValueM>> {
        (value_cost(v) > Cost::Structure && v.tests_type()).then(|| {
            Box::new(ValueM {
                dtype: v.dtype.clone(),
                rank: v.rank.clone(),
                shape: v.shape.clone(),
                dynamic: v.dynamic,
                max_dim: v.max_dim.clone(),
                last_dim: v.last_dim.clone(),
                dims: v.dims.clone(),
                elements: v.elements.clone(),
                state: v.state,
                ..ValueM::default()
            })
        })
    };
    match m {
        Matcher::Input(v) => types_only(v).map(Matcher::Input),
        Matcher::Output(v) => types_only(v).map(Matcher::Output),
        Matcher::Param(name, v) => types_only(v).map(|g| Matcher::Param(name.clone(), g)),
        Matcher::Attr(key, v) => types_only(v).map(|g| Matcher::Attr(key.clone(), g)),
        _ => None,
    }
}

fn splice(members: Vec<Matcher>, out: &mut Vec<Matcher>) {
    for m in members {
        match m {
            Matcher::All(inner) => splice(inner, out),
            m => out.push(m),
        }
    }
}

/// The cost class of testing a node with `m`.
pub fn cost(m: &Matcher) -> Cost {
    match m {
        Matcher::OpType { .. } | Matcher::Model(_) => Cost::Structure,
        // `compare:` reads the captures the other keys bind: tested after them.
        Matcher::Capture(_) | Matcher::Compare(_) => Cost::Capture,
        Matcher::Input(v) | Matcher::Output(v) | Matcher::Attr(_, v) | Matcher::Param(_, v) => {
            value_cost(v)
        }
        Matcher::StateWrite(sw) => sw
            .state_type
            .as_ref()
            .map_or(Cost::Lookup, |v| value_cost(v).max(Cost::Lookup)),
        // The target's answer is the same at every node of a function, but a match binds the
        // families it applies to (`TARGET`), which allocates: tested once the node's own tests
        // hold.
        Matcher::Target(_) => Cost::Function,
        Matcher::Function(_)
        | Matcher::Name(_)
        | Matcher::AxisDim { .. }
        | Matcher::BlockedAxes { .. } => Cost::Lookup,
        Matcher::ImpliedShape { .. } => Cost::Values,
        Matcher::Reasons { entries, .. } => entries
            .iter()
            .map(|e| cost(&e.rule))
            .fold(Cost::Values, Cost::max),
        Matcher::Peers(_) => Cost::Function,
        Matcher::All(list) | Matcher::Any(list) => {
            list.iter().map(cost).fold(Cost::Structure, Cost::max)
        }
        Matcher::Not(m) | Matcher::Origin(m) => cost(m),
        Matcher::FedBy(r) | Matcher::Feeds(r) | Matcher::Inside(r) | Matcher::Has(r) => {
            let stop = match &r.stop {
                StopBy::Rule(stop) => cost(stop),
                StopBy::Neighbor | StopBy::End => Cost::Structure,
            };
            cost(&r.rule).max(stop).max(Cost::Values)
        }
    }
}

fn value_cost(v: &ValueM) -> Cost {
    let mut c = Cost::Structure;
    if v.runtime.is_some() || v.range.is_some() || v.name.is_some() {
        c = Cost::Lookup;
    }
    if v.constant.is_some() || v.value.is_some() {
        c = Cost::Values;
    }
    if let Some(p) = &v.producer {
        c = c.max(cost(p)).max(Cost::Lookup);
    }
    let composites = v
        .all
        .iter()
        .chain(v.any.iter().flatten())
        .chain(v.not.as_deref());
    composites.map(value_cost).fold(c, Cost::max)
}

/// The names of the captures `m` can bind (a superset is safe: it only keeps more of the order).
fn captures(m: &Matcher) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect_captures(m, &mut out);
    out
}

fn collect_captures(m: &Matcher, out: &mut BTreeSet<String>) {
    fn value(v: &ValueM, out: &mut BTreeSet<String>) {
        out.extend(v.capture.iter().cloned());
        if let Some(p) = &v.producer {
            collect_captures(p, out);
        }
        v.all.iter().for_each(|m| value(m, out));
    }
    match m {
        Matcher::Input(v) | Matcher::Output(v) | Matcher::Attr(_, v) | Matcher::Param(_, v) => {
            value(v, out)
        }
        Matcher::StateWrite(sw) => {
            out.extend(sw.state.iter().cloned());
            out.extend(sw.window.iter().cloned());
            if let Some(v) = &sw.state_type {
                value(v, out);
            }
        }
        Matcher::ImpliedShape { capture, .. } => out.extend(capture.iter().cloned()),
        Matcher::Target(_) => {
            out.insert(TARGET_VAR.to_string());
        }
        Matcher::Capture(name) | Matcher::Reasons { capture: name, .. } => {
            out.insert(name.clone());
        }
        Matcher::Peers(p) => out.extend(p.capture.iter().cloned()),
        Matcher::All(list) | Matcher::Any(list) => {
            list.iter().for_each(|m| collect_captures(m, out))
        }
        Matcher::Origin(m) => collect_captures(m, out),
        Matcher::FedBy(r) | Matcher::Feeds(r) | Matcher::Inside(r) | Matcher::Has(r) => {
            collect_captures(&r.rule, out)
        }
        // `not:` tests with bindings of its own; the rest bind nothing.
        Matcher::Not(_)
        | Matcher::OpType { .. }
        | Matcher::Model(_)
        | Matcher::Function(_)
        | Matcher::Name(_)
        | Matcher::Compare(_)
        | Matcher::AxisDim { .. }
        | Matcher::BlockedAxes { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::matcher::{Count, TargetM};

    fn op(t: &str) -> Matcher {
        Matcher::OpType {
            types: vec![t.to_string()],
            opset: None,
        }
    }

    fn output(capture: Option<&str>, constant: bool) -> Matcher {
        Matcher::Output(Box::new(ValueM {
            rank: Some(Count::default()),
            constant: constant.then_some(true),
            capture: capture.map(str::to_string),
            ..ValueM::default()
        }))
    }

    fn kinds(ms: &[Matcher]) -> Vec<String> {
        ms.iter()
            .map(|m| match m {
                Matcher::OpType { types, .. } => types[0].clone(),
                Matcher::Output(v) => format!("output {:?}", v.capture),
                Matcher::Target(_) => "target".to_string(),
                Matcher::Capture(n) => format!("capture {n}"),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn structure_and_constant_values_are_tested_before_the_target() {
        let ordered = cheapest_first(vec![
            Matcher::Target(Box::default()),
            output(Some("V"), true),
            Matcher::All(vec![output(Some("Y"), false), op("relu")]),
        ]);
        // The constant test of `V` also gets a guard of its type tests alone (`output None`).
        assert_eq!(
            kinds(&ordered),
            [
                "output Some(\"Y\")",
                "relu",
                "output None",
                "output Some(\"V\")",
                "target"
            ]
        );
    }

    #[test]
    fn members_binding_the_same_capture_keep_their_order() {
        let ordered = cheapest_first(vec![
            Matcher::Capture("N".to_string()),
            output(Some("Y"), true),
            output(Some("Y"), false),
        ]);
        assert_eq!(
            kinds(&ordered),
            [
                "output Some(\"Y\")",
                "output Some(\"Y\")",
                "output None",
                "capture N"
            ]
        );
        let Matcher::Output(first) = &ordered[0] else {
            unreachable!()
        };
        assert_eq!(first.constant, Some(true));
        // A target binds `TARGET`; two of them stay in order too.
        let t = |os: u32| {
            Matcher::Target(Box::new(TargetM {
                os_before: Some(crate::rules::matcher::OsBound::Level(os)),
                ..TargetM::default()
            }))
        };
        let ordered = cheapest_first(vec![t(17), t(18), op("relu")]);
        let levels: Vec<_> = ordered
            .iter()
            .filter_map(|m| match m {
                Matcher::Target(t) => t.os_before,
                _ => None,
            })
            .collect();
        assert_eq!(
            levels,
            [
                crate::rules::matcher::OsBound::Level(17),
                crate::rules::matcher::OsBound::Level(18)
            ]
        );
        assert!(matches!(ordered[0], Matcher::OpType { .. }));
    }
}
