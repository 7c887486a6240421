//! Model-level entities: the things of a model that are not nodes of a function graph (weight
//! references and weight files, bundle items, the model description's features, the model and its
//! metadata, a Core AI asset), each with the typed properties analysis computes for it.
//!
//! Analysis describes every entity it finds (a sound weight reference too), and rules select by
//! properties (`match: { kind: weight, aligned: false }`): the condition lives in the rule's YAML,
//! never in the producer. Each producer registers its kinds with their properties
//! ([`EntityKind`]) in `analysis::registry`; the rule loader refuses a rule naming another kind or
//! property, or testing a property with a predicate of the wrong type.

use std::fmt;
use std::ops::Deref;

use crate::ir::{Name, Span};

/// The type of a property, which fixes the predicates a rule may test it with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropType {
    /// `true` / `false`.
    Bool,
    /// A whole number (byte offsets, sizes, counts, versions).
    Int,
    /// A word or a text (`missing`, a file name, a sentence for the message).
    Text,
}

impl PropType {
    /// The name rule-language docs and errors use.
    pub fn as_str(self) -> &'static str {
        match self {
            PropType::Bool => "boolean",
            PropType::Int => "number",
            PropType::Text => "text",
        }
    }
}

/// The value of a text property: a word of the program's vocabulary (`fp16`, `tensor`), a name
/// the IR holds already, or a text made for the entity. Only the last allocates.
#[derive(Clone)]
pub enum Text {
    /// A word of the vocabulary.
    Static(&'static str),
    /// A name of the program.
    Shared(Name),
    /// A text made for the entity.
    Owned(String),
}

impl Text {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            Text::Static(s) => s,
            Text::Shared(n) => n.as_str(),
            Text::Owned(s) => s,
        }
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// One property's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    /// A boolean property.
    Bool(bool),
    /// A number property.
    Int(i128),
    /// A text property.
    Text(Text),
}

impl Prop {
    /// Its type.
    pub fn ty(&self) -> PropType {
        match self {
            Prop::Bool(_) => PropType::Bool,
            Prop::Int(_) => PropType::Int,
            Prop::Text(_) => PropType::Text,
        }
    }
}

impl Prop {
    /// A text property that is a word of the program's vocabulary (no allocation).
    pub fn word(w: &'static str) -> Prop {
        Prop::Text(Text::Static(w))
    }
}

impl fmt::Display for Prop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Prop::Bool(b) => write!(f, "{b}"),
            Prop::Int(n) => write!(f, "{n}"),
            Prop::Text(t) => f.write_str(t),
        }
    }
}

impl From<bool> for Prop {
    fn from(b: bool) -> Prop {
        Prop::Bool(b)
    }
}

impl From<&str> for Prop {
    fn from(t: &str) -> Prop {
        Prop::Text(Text::Owned(t.to_string()))
    }
}

impl From<String> for Prop {
    fn from(t: String) -> Prop {
        Prop::Text(Text::Owned(t))
    }
}

impl From<&Name> for Prop {
    fn from(n: &Name) -> Prop {
        Prop::Text(Text::Shared(n.clone()))
    }
}

macro_rules! int_prop {
    ($($t:ty),*) => {$(
        impl From<$t> for Prop {
            fn from(n: $t) -> Prop {
                Prop::Int(i128::from(n))
            }
        }
    )*};
}
int_prop!(u8, u16, u32, u64, i32, i64);

impl From<usize> for Prop {
    fn from(n: usize) -> Prop {
        // usize is at most 64 bits on every target Rust supports.
        Prop::Int(i128::try_from(n).unwrap_or(i128::MAX))
    }
}

/// A property an entity kind has: its name in rules (kebab-case), its type and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PropertyDef {
    /// The key rules test (`aligned`, `file-length`).
    pub name: &'static str,
    /// Its type.
    pub ty: PropType,
    /// One sentence for docs/rule-language.md and `coreml-lint rule`.
    pub doc: &'static str,
}

/// A property of an entity kind.
pub const fn prop(name: &'static str, ty: PropType, doc: &'static str) -> PropertyDef {
    PropertyDef { name, ty, doc }
}

/// A kind of entity: its name in rules (`kind: weight`) and every property its entities carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntityKind {
    /// The kind, as `kind:` names it.
    pub name: &'static str,
    /// What an entity of the kind is (docs).
    pub doc: &'static str,
    /// Where its findings are reported (docs).
    pub located_at: &'static str,
    /// Every property, in the order docs list them.
    pub properties: &'static [PropertyDef],
}

impl EntityKind {
    /// The property called `name`.
    pub fn property(&self, name: &str) -> Option<&'static PropertyDef> {
        self.properties.iter().find(|p| p.name == name)
    }
}

/// What the run's rules may select, asked by a producer of many entities (one per op or binding)
/// once it has set an entity's cheap properties and before it computes the costly ones (texts
/// for messages) and its location: an entity no rule can select is never made.
pub trait EntityDemand: Sync {
    /// False when no rule of the run selects `partial`, whatever the properties in `pending`
    /// (those the producer sets once the entity is wanted) turn out to be; a property it lacks
    /// that is not pending, it lacks for good.
    fn may_select(&self, partial: &Entity, pending: &[&str]) -> bool;
}

/// Every entity is wanted (tests, and callers that list a model's entities).
pub struct EveryEntity;

impl EntityDemand for EveryEntity {
    fn may_select(&self, _: &Entity, _: &[&str]) -> bool {
        true
    }
}

/// One entity of a model: its kind, where it is, and its properties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entity {
    /// Kind, matched by a rule's `kind:`, e.g. `weight`.
    pub kind: &'static str,
    /// The function the entity is in, when it is about one.
    pub function: Option<String>,
    /// Display name of the op it is reported at (its `name` attribute, else its first output).
    pub op: Option<String>,
    /// Program order of that op, for sorting.
    pub op_order: Option<u32>,
    /// The state it is about, if any.
    pub state: Option<String>,
    /// Where in the model's source text.
    pub span: Option<Span>,
    /// The iOS-equivalent OS level the entity says the model needs (`os-before: required`).
    pub requires_os: Option<u32>,
    /// The file on disk it is about, when not the program's (a pointer `metadata.json`).
    pub file: Option<std::path::PathBuf>,
    /// Its properties. A property the kind registers but the entity lacks is unknown: no
    /// predicate on it holds.
    props: Vec<(&'static str, Prop)>,
}

impl Entity {
    /// An entity of `kind` with no location and no properties yet.
    pub fn new(kind: &'static str) -> Entity {
        Entity {
            kind,
            function: None,
            op: None,
            op_order: None,
            state: None,
            span: None,
            requires_os: None,
            file: None,
            props: Vec::new(),
        }
    }

    /// Sets a property (replacing an earlier value of the same name).
    pub fn with(mut self, name: &'static str, value: impl Into<Prop>) -> Entity {
        self.set(name, value);
        self
    }

    /// Sets a property on an entity being described, for chains of them.
    pub fn setting(&mut self, name: &'static str, value: impl Into<Prop>) -> &mut Entity {
        self.set(name, value);
        self
    }

    /// Sets a property when `value` is known.
    pub fn with_opt<V: Into<Prop>>(mut self, name: &'static str, value: Option<V>) -> Entity {
        if let Some(v) = value {
            self.set(name, v);
        }
        self
    }

    /// Sets a property (replacing an earlier value of the same name).
    pub fn set(&mut self, name: &'static str, value: impl Into<Prop>) {
        let value = value.into();
        match self.props.iter_mut().find(|(n, _)| same_name(n, name)) {
            Some(slot) => slot.1 = value,
            None => self.props.push((name, value)),
        }
    }

    /// Takes the location and the properties of `self`, keeping its kind: an entity described in
    /// part, then located once the run's rules may select it ([`EntityDemand`]).
    pub fn with_props_of(mut self, partial: &Entity) -> Entity {
        for (name, value) in &partial.props {
            self.set(name, value.clone());
        }
        self
    }

    /// Clears the properties, keeping their storage (a scratch entity reused per candidate).
    pub fn clear_props(&mut self) {
        self.props.clear();
    }

    /// The property called `name`, when the entity has it.
    pub fn get(&self, name: &str) -> Option<&Prop> {
        self.props
            .iter()
            .find(|(n, _)| same_name(n, name))
            .map(|(_, v)| v)
    }

    /// Every property it has, in the order they were set.
    pub fn props(&self) -> impl Iterator<Item = (&'static str, &Prop)> {
        self.props.iter().map(|(n, v)| (*n, v))
    }
}

/// Property names are compared on every lookup; most come from the same literal.
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && (std::ptr::eq(a.as_ptr(), b.as_ptr())
            || (a.as_bytes().first() == b.as_bytes().first() && a == b))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every entity in `entities` is of a kind `registry` holds, and each of its properties is
    /// registered for that kind with the type it carries.
    pub(crate) fn assert_registered(entities: &[Entity], registry: &[EntityKind]) {
        for e in entities {
            let kind = registry
                .iter()
                .find(|k| k.name == e.kind)
                .unwrap_or_else(|| panic!("entity kind `{}` is not registered", e.kind));
            for (name, value) in e.props() {
                let def = kind.property(name).unwrap_or_else(|| {
                    panic!("property `{name}` of a `{}` is not registered", e.kind)
                });
                assert_eq!(def.ty, value.ty(), "type of `{name}` of a `{}`", e.kind);
            }
        }
    }

    #[test]
    fn properties_are_set_once_and_typed() {
        let e = Entity::new("weight")
            .with("offset", 64u64)
            .with("aligned", true)
            .with("offset", 128u64)
            .with_opt::<u64>("size", None);
        assert_eq!(e.get("offset"), Some(&Prop::Int(128)));
        assert_eq!(e.get("size"), None);
        assert_eq!(e.props().count(), 2);
        assert_eq!(e.get("aligned").map(Prop::ty), Some(PropType::Bool));
        assert_eq!(Prop::from("x").to_string(), "x");
    }
}
