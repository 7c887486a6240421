//! Captures: what each kind of capture holds, the names a compiled rule binds and the reserved
//! names the rule language binds itself (`{OP}`, `{FUNCTION}`, `{TARGET}`, `{REGION}`, `{GROUP}`).

use std::collections::BTreeMap;

/// Captures a compiled rule binds on every successful match, by name (without `$`).
pub type Vars = BTreeMap<String, VarKind>;

/// The capture `target:` binds.
pub const TARGET_VAR: &str = "TARGET";

/// What a capture holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum VarKind {
    /// An op or an input node.
    Node,
    /// A value (op input / output, attribute, function input).
    Value,
    /// A state declared by the function.
    State,
    /// A state write with its window.
    Write,
    /// The region of an origin finding (`{REGION}`, bound by `origin:`).
    Region,
    /// The ops of a function matching a `peers:` rule object.
    Peers,
    /// The texts of the `reasons:` entries that hold.
    Reasons,
    /// The deployment target a finding applies to (`{TARGET}`, bound by `target:`).
    Target,
    /// The other matches a `group-by:` finding stands for (`{GROUP}`).
    Group,
}

impl VarKind {
    /// Lower-case name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            VarKind::Node => "an op",
            VarKind::Value => "a value",
            VarKind::State => "a state",
            VarKind::Write => "a state write",
            VarKind::Region => "a region",
            VarKind::Peers => "a list of peer ops",
            VarKind::Reasons => "a list of reasons",
            VarKind::Target => "the target",
            VarKind::Group => "the other matches of a group",
        }
    }
}

/// Names usable in templates without being captured.
pub const BUILTIN_VARS: &[&str] = &["OP", "FUNCTION"];

/// The capture `origin:` binds: the region the finding stands for.
pub const REGION_VAR: &str = "REGION";

/// The capture `group-by:` binds: the other matches the finding stands for.
pub const GROUP_VAR: &str = "GROUP";
