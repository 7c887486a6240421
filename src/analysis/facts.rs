//! Model-level facts computed in Rust (blob checks, description consistency, …) that YAML rules
//! select with the `fact:` primitive. A fact carries its kind, its location and named captures that
//! the rule's message and help can use (`{FILE}`, `{OFFSET}`, …).

use std::collections::BTreeMap;

use crate::ir::Span;

/// One fact about a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    /// Kind, matched by a rule's `fact:` key, e.g. `blob-bad-sentinel`.
    pub kind: String,
    pub function: Option<String>,
    /// Display name of the op (its `name` attribute, else its first output).
    pub op: Option<String>,
    /// Program order of the op, for sorting.
    pub op_order: Option<u32>,
    pub state: Option<String>,
    /// Where in the model's source text.
    pub span: Option<Span>,
    /// Named values for message templates; keys are upper-case without `$` (`FILE`, `OFFSET`, `DETAIL`).
    pub captures: BTreeMap<String, String>,
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
        }
    }

    /// Adds a capture.
    pub fn with(mut self, key: &str, value: impl ToString) -> Fact {
        self.captures.insert(key.to_string(), value.to_string());
        self
    }
}
