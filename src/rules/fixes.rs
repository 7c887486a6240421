//! Fix primitives a rule may name in `fix:`. The graph rewrites themselves live in `crate::fix`;
//! this registry says which names exist, their default title and applicability, and which capture
//! kind the rewrite needs from the match.

use super::vars::VarKind;
use crate::finding::Applicability;

/// A fix primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixKind {
    /// Name used in `fix:`.
    pub name: &'static str,
    /// Title when the rule gives none.
    pub default_title: &'static str,
    /// Applicability when the rule gives none.
    pub default_applicability: Applicability,
    /// The match must bind a capture of one of these kinds (the rewrite's target).
    pub needs: &'static [VarKind],
}

/// The state fix: remove full-window wrappers, pad the state one row (`crate::fix::plan`).
pub const PAD_STATE: &str = "pad-state";

/// The exact rewrite of the matched `pow(x = 2, y)` into `exp(mul(y, ln 2))`
/// (`crate::analysis::pow_rewrite`).
pub const REWRITE_POW_BASE_TWO: &str = "rewrite-pow-base-two";

/// Every fix primitive.
pub const FIX_KINDS: &[FixKind] = &[
    FixKind {
        name: PAD_STATE,
        default_title: "allocate the state one row deeper on its position axis and keep the window",
        default_applicability: Applicability::Safe,
        needs: &[VarKind::State, VarKind::Write],
    },
    FixKind {
        name: REWRITE_POW_BASE_TWO,
        default_title: "rewrite the pow as exp(mul(y, ln 2))",
        default_applicability: Applicability::Safe,
        needs: &[VarKind::Value],
    },
];

/// The names of every fix primitive, for messages.
pub fn fix_kind_names() -> String {
    FIX_KINDS
        .iter()
        .map(|k| k.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fix primitive called `name`.
pub fn fix_kind(name: &str) -> Option<&'static FixKind> {
    FIX_KINDS.iter().find(|k| k.name == name)
}
