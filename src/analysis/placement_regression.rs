//! The `placement-regression` fact: an op the placement estimate put on the Neural Engine when
//! the baseline was written and now puts on the CPU or at risk. The baseline comparison
//! (`crate::baseline`) finds the ops; this registers the fact kind its rule selects.

use crate::analysis::facts::{Fact, FactKind};

/// The fact kind, as `rules/placement-regression.yaml` selects it.
pub const PLACEMENT_REGRESSION: &str = "placement-regression";

/// Kinds of facts the baseline comparison emits, and their captures: the op's type, where it was
/// and is likely to run (`likely ANE`, `likely CPU`, `at risk`), why it moved, and the other ops that moved
/// the same way for the same reason (empty, or ` and 2 more ops: …`).
pub const FACT_KINDS: &[FactKind] = &[FactKind::new(
    PLACEMENT_REGRESSION,
    &["OP_TYPE", "FROM", "TO", "REASON", "OTHERS"],
)];

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
pub fn regression_fact(first: &Moved<'_>, span: crate::ir::Span, others: &[String]) -> Fact {
    let mut fact = Fact::new(PLACEMENT_REGRESSION)
        .with("OP_TYPE", first.op_type)
        .with("FROM", first.from)
        .with("TO", first.to)
        .with("REASON", first.reason)
        .with("OTHERS", others_text(others));
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
    use crate::analysis::facts::tests::assert_registered;

    #[test]
    fn the_fact_carries_its_registered_captures_and_names_the_others() {
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
        assert_registered(std::slice::from_ref(&one), FACT_KINDS);
        assert_eq!(one.captures["OTHERS"], "");
        let names: Vec<String> = (0..5).map(|i| format!("relu `r{i}`")).collect();
        let many = regression_fact(&moved, crate::ir::Span::new(0, 1), &names);
        assert_eq!(
            many.captures["OTHERS"],
            " (and 5 more ops: relu `r0`, relu `r1`, relu `r2`, …)"
        );
        assert_eq!(many.op.as_deref(), Some("sig"));
    }
}
