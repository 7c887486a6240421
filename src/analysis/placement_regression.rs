//! `placement-change` entities: an op whose placement estimate changed since the baseline was
//! written. The baseline comparison (`crate::baseline`) finds the ops;
//! `rules/placement-regression.yaml` reports those that left the Neural Engine.

use super::entity::{kind_named, prop, Entity, EntityKind, PropType};

/// The rule that reports placement changes (the baseline comparison runs it alone).
pub const PLACEMENT_REGRESSION: &str = "placement-regression";

/// The entity kind the baseline comparison produces.
pub const ENTITY_KINDS: &[EntityKind] = &[EntityKind {
    name: "placement-change",
    doc: "an op whose placement estimate differs from the one the baseline recorded (with `check --baseline`), standing for the ops of its function that changed the same way for the same reason",
    located_at: "the first such op in program order",
    properties: &[
        prop("op-type", PropType::Text, "the op's type"),
        prop("from", PropType::Text, "the estimate at the baseline: `likely ANE`, `likely CPU`, `at risk` or `unknown`"),
        prop("to", PropType::Text, "the estimate now, in the same words"),
        prop("reason", PropType::Text, "why the estimate is what it is now"),
        prop("others", PropType::Text, "the other ops that changed the same way (empty, or ` (and 2 more ops: …)`)"),
    ],
}];

/// One op that left the Neural Engine, with what its rule's message names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moved<'a> {
    /// The function.
    pub function: &'a str,
    /// The op's display name.
    pub op: &'a str,
    /// The op type.
    pub op_type: &'a str,
    /// Program order of the op.
    pub order: u32,
    /// Where the op was likely to run at the baseline, as a person reads it (`likely ANE`).
    pub from: &'a str,
    /// Where it is likely to run now (`likely CPU`, `at risk`).
    pub to: &'a str,
    /// Why it is there now (the placement estimate's reason).
    pub reason: &'a str,
}

/// The fact of `first` standing for it and `others` (the ops that moved the same way for the same
/// reason, in program order, as `type `name`` texts).
pub fn regression_fact(first: &Moved<'_>, span: crate::ir::Span, others: &[String]) -> Entity {
    let mut fact = Entity::new(const { kind_named(ENTITY_KINDS, "placement-change") })
        .with("op-type", first.op_type)
        .with("from", first.from)
        .with("to", first.to)
        .with("reason", first.reason)
        .with("others", others_text(others));
    fact.function = Some(first.function.to_string());
    fact.op = Some(first.op.to_string());
    fact.op_order = Some(first.order);
    fact.span = Some(span);
    fact
}

/// How many other ops the finding stands for, naming the first few.
fn others_text(others: &[String]) -> String {
    const NAMED: usize = 3;
    match others.len() {
        0 => String::new(),
        n => {
            let named: Vec<&str> = others.iter().take(NAMED).map(String::as_str).collect();
            let more = if n > NAMED { ", …" } else { "" };
            let ops = if n == 1 { "op" } else { "ops" };
            format!(" (and {n} more {ops}: {}{more})", named.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::entity::tests::assert_registered;

    #[test]
    fn the_change_carries_its_registered_properties_and_names_the_others() {
        let moved = Moved {
            function: "main",
            op: "sig",
            op_type: "sigmoid",
            order: 3,
            from: "ANE",
            to: "CPU",
            reason: "computes in fp32",
        };
        let one = regression_fact(&moved, crate::ir::Span::new(0, 1), &[]);
        assert_registered(std::slice::from_ref(&one), ENTITY_KINDS);
        assert_eq!(
            one.get("others").map(ToString::to_string).as_deref(),
            Some("")
        );
        let names: Vec<String> = (0..5).map(|i| format!("relu `r{i}`")).collect();
        let many = regression_fact(&moved, crate::ir::Span::new(0, 1), &names);
        assert_eq!(
            many.get("others").map(ToString::to_string).as_deref(),
            Some(" (and 5 more ops: relu `r0`, relu `r1`, relu `r2`, …)")
        );
        assert_eq!(many.op.as_deref(), Some("sig"));
    }
}
