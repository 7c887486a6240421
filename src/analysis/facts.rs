//! Model-level facts computed in Rust (blob checks, description consistency, …) that YAML rules
//! select with the `fact:` primitive. A fact carries its kind, its location and named captures that
//! the rule's message and help can use (`{FILE}`, `{OFFSET}`, …).
//!
//! Each producer registers the kinds it emits and the captures each carries ([`FactKind`]), as fix
//! primitives are registered; the rule loader refuses a `fact:` rule naming another kind or a
//! placeholder its facts cannot fill.

use std::collections::BTreeMap;

use crate::ir::Span;

/// One fact about a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    /// Kind, matched by a rule's `fact:` key, e.g. `blob-bad-sentinel`.
    pub kind: String,
    /// The function the fact is in, when it is about one.
    pub function: Option<String>,
    /// Display name of the op (its `name` attribute, else its first output).
    pub op: Option<String>,
    /// Program order of the op, for sorting.
    pub op_order: Option<u32>,
    /// The state it is about, if any.
    pub state: Option<String>,
    /// Where in the model's source text.
    pub span: Option<Span>,
    /// Named values for message templates; keys are upper-case without `$` (`FILE`, `OFFSET`, `DETAIL`).
    pub captures: BTreeMap<String, String>,
    /// The iOS-equivalent OS level the fact says the model needs (`os-before: required`).
    pub requires_os: Option<u32>,
}

impl Fact {
    /// A fact of `kind` with no location yet.
    pub fn new(kind: impl Into<String>) -> Fact {
        Fact {
            kind: kind.into(),
            function: None,
            op: None,
            op_order: None,
            state: None,
            span: None,
            captures: BTreeMap::new(),
            requires_os: None,
        }
    }

    /// Adds a capture.
    pub fn with(mut self, key: &str, value: impl ToString) -> Fact {
        self.captures.insert(key.to_string(), value.to_string());
        self
    }
}

/// A kind of fact a producer emits, with the captures every fact of the kind carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FactKind {
    /// The kind, as a rule's `fact:` names it.
    pub name: &'static str,
    /// Capture names, upper-case (`FILE`, `OFFSET`).
    pub captures: &'static [&'static str],
}

impl FactKind {
    /// A kind and the captures its facts carry.
    pub const fn new(name: &'static str, captures: &'static [&'static str]) -> FactKind {
        FactKind { name, captures }
    }
}

/// Placeholders every fact fills from its location (`STATE` unless a capture of that name exists).
pub const LOCATION_CAPTURES: &[&str] = &["FUNCTION", "OP", "STATE"];

/// Every fact kind of every producer.
pub fn fact_kinds() -> impl Iterator<Item = &'static FactKind> {
    super::blobs::FACT_KINDS
        .iter()
        .chain(super::bundle::FACT_KINDS)
        .chain(super::description::FACT_KINDS)
        .chain(super::state_writes::FACT_KINDS)
        .chain(super::opset::FACT_KINDS)
        .chain(super::os_requirement::FACT_KINDS)
        .chain(super::coreai::FACT_KINDS)
        .chain(super::placement_regression::FACT_KINDS)
}

/// The registered kind called `name`.
pub fn fact_kind(name: &str) -> Option<&'static FactKind> {
    fact_kinds().find(|k| k.name == name)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// Every fact in `facts` is of a registered kind `registry` holds and carries exactly the
    /// captures registered for it.
    pub(crate) fn assert_registered(facts: &[Fact], registry: &[FactKind]) {
        for f in facts {
            let kind = registry
                .iter()
                .find(|k| k.name == f.kind)
                .unwrap_or_else(|| panic!("fact kind `{}` is not registered", f.kind));
            let have: BTreeSet<&str> = f.captures.keys().map(String::as_str).collect();
            let want: BTreeSet<&str> = kind.captures.iter().copied().collect();
            assert_eq!(have, want, "captures of a `{}` fact", f.kind);
        }
    }

    #[test]
    fn kinds_are_unique() {
        let mut seen = BTreeSet::new();
        for k in fact_kinds() {
            assert!(seen.insert(k.name), "{} registered twice", k.name);
        }
        assert!(fact_kind("blob-overlap").is_some());
    }
}
