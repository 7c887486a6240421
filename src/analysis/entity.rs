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

impl EntityKind {
    /// The slot of the property called `name`: its position in [`EntityKind::properties`]. At
    /// compile time in a `const` (a name the kind lacks then does not compile).
    pub const fn slot(&self, name: &str) -> Slot {
        let mut i = 0;
        while i < self.properties.len() {
            if const_str_eq(self.properties[i].name, name) {
                return i;
            }
            i += 1;
        }
        panic!("the entity kind has no property of that name")
    }

    /// The slots of the properties called `names`, as a mask of bits.
    pub const fn slots(&self, names: &[&str]) -> u64 {
        let mut mask = 0u64;
        let mut i = 0;
        while i < names.len() {
            mask |= 1 << self.slot(names[i]);
            i += 1;
        }
        mask
    }

    /// The slot of the property called `name`, at run time.
    pub fn slot_of(&self, name: &str) -> Option<Slot> {
        self.properties.iter().position(|p| same_name(p.name, name))
    }
}

/// The kind called `name` among `kinds`. At compile time in a `const` (a name `kinds` lacks then
/// does not compile).
pub const fn kind_named(kinds: &'static [EntityKind], name: &str) -> &'static EntityKind {
    let mut i = 0;
    while i < kinds.len() {
        if const_str_eq(kinds[i].name, name) {
            return &kinds[i];
        }
        i += 1;
    }
    panic!("no entity kind of that name")
}

const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A property's position in its kind's list of properties.
pub type Slot = usize;

/// The most properties a kind may have: a [`Partial`] has a slot for each, and sets of slots
/// are bit masks.
pub const MAX_PROPERTIES: usize = 64;

/// A property's value as rules read it, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropView<'a> {
    /// A boolean.
    Bool(bool),
    /// A number.
    Int(i128),
    /// A text.
    Text(&'a str),
}

impl Prop {
    /// The value, borrowed.
    pub fn view(&self) -> PropView<'_> {
        match self {
            Prop::Bool(b) => PropView::Bool(*b),
            Prop::Int(n) => PropView::Int(*n),
            Prop::Text(t) => PropView::Text(t.as_str()),
        }
    }
}

/// A property value a producer sets on a [`Partial`]: borrowed from what it describes where it
/// can be.
#[derive(Clone, Debug, Default)]
pub enum PartialProp<'a> {
    /// Not set.
    #[default]
    Unset,
    /// A boolean.
    Bool(bool),
    /// A number.
    Int(i128),
    /// A text.
    Text(std::borrow::Cow<'a, str>),
}

impl From<bool> for PartialProp<'_> {
    fn from(b: bool) -> Self {
        PartialProp::Bool(b)
    }
}

impl<'a> From<&'a str> for PartialProp<'a> {
    fn from(t: &'a str) -> Self {
        PartialProp::Text(std::borrow::Cow::Borrowed(t))
    }
}

impl<'a> From<&'a Name> for PartialProp<'a> {
    fn from(n: &'a Name) -> Self {
        PartialProp::Text(std::borrow::Cow::Borrowed(n.as_str()))
    }
}

impl From<String> for PartialProp<'_> {
    fn from(t: String) -> Self {
        PartialProp::Text(std::borrow::Cow::Owned(t))
    }
}

/// An element type: its name (no allocation for the known ones).
impl From<crate::ir::DType> for PartialProp<'_> {
    fn from(d: crate::ir::DType) -> Self {
        d.known_name()
            .map_or_else(|| PartialProp::from(d.text_name()), PartialProp::from)
    }
}

impl From<u32> for PartialProp<'_> {
    fn from(n: u32) -> Self {
        PartialProp::Int(i128::from(n))
    }
}

impl From<u64> for PartialProp<'_> {
    fn from(n: u64) -> Self {
        PartialProp::Int(i128::from(n))
    }
}

impl From<usize> for PartialProp<'_> {
    fn from(n: usize) -> Self {
        PartialProp::Int(i128::try_from(n).unwrap_or(i128::MAX))
    }
}

/// An entity described in part by a producer of many (one per op or binding): its cheap
/// properties by slot, borrowed where they can be, before the producer asks the run's rules
/// whether any may select it ([`EntityDemand`]). Reused from one candidate to the next.
pub struct Partial<'a> {
    kind: &'static EntityKind,
    values: [PartialProp<'a>; MAX_PROPERTIES],
    set: u64,
    is_true: u64,
    is_false: u64,
}

impl<'a> Partial<'a> {
    /// A partial entity of `kind`, with no property set.
    pub fn new(kind: &'static EntityKind) -> Partial<'a> {
        Partial {
            kind,
            values: std::array::from_fn(|_| PartialProp::Unset),
            set: 0,
            is_true: 0,
            is_false: 0,
        }
    }

    /// Starts describing another entity, of `kind`.
    pub fn reset(&mut self, kind: &'static EntityKind) {
        self.kind = kind;
        self.set = 0;
        self.is_true = 0;
        self.is_false = 0;
    }

    /// Its kind.
    pub fn kind(&self) -> &'static EntityKind {
        self.kind
    }

    /// Sets the property of `slot` (one of its kind's).
    pub fn set(&mut self, slot: Slot, value: impl Into<PartialProp<'a>>) -> &mut Partial<'a> {
        let value = value.into();
        let bit = 1u64 << slot;
        self.is_true &= !bit;
        self.is_false &= !bit;
        match value {
            PartialProp::Bool(true) => self.is_true |= bit,
            PartialProp::Bool(false) => self.is_false |= bit,
            _ => {}
        }
        self.set |= bit;
        self.values[slot] = value;
        self
    }

    /// The property of `slot`, when set.
    pub fn get(&self, slot: Slot) -> Option<PropView<'_>> {
        if self.set & (1 << slot) == 0 {
            return None;
        }
        match &self.values[slot] {
            PartialProp::Unset => None,
            PartialProp::Bool(b) => Some(PropView::Bool(*b)),
            PartialProp::Int(n) => Some(PropView::Int(*n)),
            PartialProp::Text(t) => Some(PropView::Text(t)),
        }
    }

    /// The slots set, those set to `true` and those set to `false`, as masks.
    pub fn masks(&self) -> (u64, u64, u64) {
        (self.set, self.is_true, self.is_false)
    }

    /// Sets every property set here on `e`.
    pub fn describe(&self, e: &mut Entity) {
        debug_assert_eq!(self.kind.name, e.kind, "described as another kind");
        for slot in 0..self.kind.properties.len() {
            if self.set & (1 << slot) == 0 {
                continue;
            }
            let value = match &self.values[slot] {
                PartialProp::Unset => continue,
                PartialProp::Bool(b) => Prop::Bool(*b),
                PartialProp::Int(n) => Prop::Int(*n),
                PartialProp::Text(t) => Prop::from(t.as_ref()),
            };
            e.set_slot(slot, value);
        }
    }
}

/// What the run's rules may select, asked by a producer of many entities (one per op or binding)
/// once it has set an entity's cheap properties and before it computes the costly ones (texts
/// for messages) and its location: an entity no rule can select is never made.
pub trait EntityDemand: Sync {
    /// False when no rule of the run selects `partial`, whatever the properties in the slots of
    /// `pending` (those the producer sets once the entity is wanted) turn out to be; a property
    /// it lacks that is not pending, it lacks for good.
    fn may_select(&self, partial: &Partial<'_>, pending: u64) -> bool;

    /// Whether some rule of the run selects `entity`, described whole: a producer of many
    /// entities keeps only those, so that a large model's entities no rule selects (its healthy
    /// weights) are not all held while the rules run.
    fn selects(&self, entity: &Entity) -> bool;
}

/// Every entity is wanted (tests, and callers that list a model's entities).
pub struct EveryEntity;

impl EntityDemand for EveryEntity {
    fn may_select(&self, _: &Partial<'_>, _: u64) -> bool {
        true
    }

    fn selects(&self, _: &Entity) -> bool {
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
    /// Its kind's registration: the properties it may carry, each at its slot.
    registered: &'static EntityKind,
    /// Its properties by slot. A property the kind registers but the entity lacks is unknown: no
    /// predicate on it holds.
    props: Vec<Option<Prop>>,
}

impl Entity {
    /// An entity of `kind` with no location and no properties yet.
    pub fn new(kind: &'static EntityKind) -> Entity {
        Entity {
            kind: kind.name,
            function: None,
            op: None,
            op_order: None,
            state: None,
            span: None,
            requires_os: None,
            file: None,
            registered: kind,
            props: vec![None; kind.properties.len()],
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

    /// Sets a property (replacing an earlier value of the same name). Its kind registers every
    /// property its producer sets (each producer's tests check it); another name is a defect.
    pub fn set(&mut self, name: &'static str, value: impl Into<Prop>) {
        match self.registered.slot_of(name) {
            Some(slot) => self.set_slot(slot, value.into()),
            None => debug_assert!(
                false,
                "property `{name}` of a `{}` is not registered",
                self.kind
            ),
        }
    }

    /// Sets the property of `slot` (one of its kind's).
    pub fn set_slot(&mut self, slot: Slot, value: Prop) {
        if let Some(p) = self.props.get_mut(slot) {
            *p = Some(value);
        }
    }

    /// The property called `name`, when the entity has it.
    pub fn get(&self, name: &str) -> Option<&Prop> {
        self.slot(self.registered.slot_of(name)?)
    }

    /// The property of `slot` (of its kind's), when the entity has it.
    pub fn slot(&self, slot: Slot) -> Option<&Prop> {
        self.props.get(slot)?.as_ref()
    }

    /// Every property it has, in its kind's order.
    pub fn props(&self) -> impl Iterator<Item = (&'static str, &Prop)> {
        let defs = self.registered.properties;
        self.props
            .iter()
            .zip(defs)
            .filter_map(|(v, def)| Some((def.name, v.as_ref()?)))
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

    static WEIGHT: EntityKind = EntityKind {
        name: "weight",
        doc: "",
        located_at: "",
        properties: &[
            prop("size", PropType::Int, ""),
            prop("aligned", PropType::Bool, ""),
            prop("offset", PropType::Int, ""),
        ],
    };

    #[test]
    fn properties_are_set_once_and_typed() {
        let e = Entity::new(&WEIGHT)
            .with("offset", 64u64)
            .with("aligned", true)
            .with("offset", 128u64)
            .with_opt::<u64>("size", None);
        assert_eq!(e.get("offset"), Some(&Prop::Int(128)));
        assert_eq!(e.get("size"), None);
        assert_eq!(e.props().count(), 2);
        assert_eq!(e.get("aligned").map(Prop::ty), Some(PropType::Bool));
        assert_eq!(Prop::from("x").to_string(), "x");
        // Each property is at its kind's slot, in the kind's order.
        assert_eq!(e.slot(WEIGHT.slot("offset")), Some(&Prop::Int(128)));
        assert_eq!(e.slot(WEIGHT.slot("size")), None);
        let names: Vec<&str> = e.props().map(|(n, _)| n).collect();
        assert_eq!(names, ["aligned", "offset"]);
    }

    #[test]
    #[should_panic(expected = "property `offset-typo` of a `weight` is not registered")]
    fn a_property_its_kind_does_not_register_is_a_defect() {
        let _ = Entity::new(&WEIGHT).with("offset-typo", 1u64);
    }
}
