//! Rule objects over model-level entities (`match: { kind: weight, aligned: false }`): compiled
//! against the entity kind's registered properties, then tested on every entity of that kind.
//!
//! A property predicate depends on the property's type: a boolean takes `true`/`false`; a number
//! takes a number or `{ min, max, above, below, equals, multiple-of, not-multiple-of }`, each of
//! which may name another number property of the same entity (`end: { above: file-length }`); a
//! text takes a word, a list of words (any of them), `{ regex: <pattern> }` or `{ same-as: <text
//! property> }`; any property takes `{ present: true|false }` (whether the entity has it). `all`,
//! `any` and `not` combine rule objects, `matches:` names a `utils:` fragment (expanded in place)
//! and `name:` tests the entity's `name` property; `capture: $X` binds the entity for
//! `{X.<property>}`.

use std::sync::Arc;

use serde_json::Value;

use super::compare::Cmp;
use super::compile_error::{CompileError, ErrorPath};
use super::schema::{NameSpec, SerRule, Utils};
use crate::analysis::entity::{Entity, EntityKind, Prop, PropType, PropView, PropertyDef, Slot};
use crate::suggest::did_you_mean;

/// A number bound: a constant or another property of the entity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    Const(i128),
    /// The slot of another property of the entity's kind.
    Prop(Slot),
}

impl Operand {
    fn value<'e>(&self, other: &impl Fn(Slot) -> Option<PropView<'e>>) -> Option<i128> {
        match self {
            Operand::Const(n) => Some(*n),
            Operand::Prop(p) => match other(*p) {
                Some(PropView::Int(n)) => Some(n),
                _ => None,
            },
        }
    }
}

/// One predicate on one property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pred {
    Bool(bool),
    /// Comparisons that must all hold.
    Number(Vec<(Cmp, Operand)>),
    /// Any of these words.
    Words(Vec<String>),
    /// A text the pattern finds a match in.
    Regex(Pattern),
    /// Equal to another property of the entity (of that slot).
    SameAs(Slot),
    /// The entity has the property (`true`) or lacks it (`false`).
    Present(bool),
}

/// A compiled `regex:`, compared by its source.
#[derive(Clone, Debug)]
pub(crate) struct Pattern(regex::Regex);

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl Eq for Pattern {}

/// A compiled entity rule object; a property is named by its slot in the kind's registration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum EntityTest {
    Prop(Slot, Pred),
    All(Vec<EntityTest>),
    Any(Vec<EntityTest>),
    Not(Box<EntityTest>),
}

impl EntityTest {
    /// The same test with the members of each `all`/`any` smallest first: a conjunction most
    /// entities fail (a weight's defect) is then decided before the long conditions it comes with
    /// (a fragment such as `weight-record-in-file`, which most entities meet). Tests have no
    /// effects, so the order changes no answer.
    pub(crate) fn smallest_first(self) -> EntityTest {
        match self {
            EntityTest::All(ts) => EntityTest::All(Self::sorted(ts)),
            EntityTest::Any(ts) => EntityTest::Any(Self::sorted(ts)),
            EntityTest::Not(t) => EntityTest::Not(Box::new(t.smallest_first())),
            t @ EntityTest::Prop(..) => t,
        }
    }

    fn sorted(ts: Vec<EntityTest>) -> Vec<EntityTest> {
        let mut ts: Vec<EntityTest> = ts.into_iter().map(EntityTest::smallest_first).collect();
        ts.sort_by_key(EntityTest::size);
        ts
    }

    /// The number of tests in it.
    fn size(&self) -> usize {
        match self {
            EntityTest::All(ts) | EntityTest::Any(ts) => {
                1 + ts.iter().map(Self::size).sum::<usize>()
            }
            EntityTest::Not(t) => 1 + t.size(),
            EntityTest::Prop(..) => 1,
        }
    }

    /// Whether `e` matches. A property the entity lacks is unknown: no predicate on it holds.
    pub(crate) fn matches(&self, e: &Entity) -> bool {
        match self {
            EntityTest::All(ts) => ts.iter().all(|t| t.matches(e)),
            EntityTest::Any(ts) => ts.iter().any(|t| t.matches(e)),
            EntityTest::Not(t) => !t.matches(e),
            EntityTest::Prop(slot, Pred::Present(want)) => e.slot(*slot).is_some() == *want,
            EntityTest::Prop(slot, pred) => e
                .slot(*slot)
                .is_some_and(|v| pred.holds(v.view(), |p| e.slot(p).map(Prop::view))),
        }
    }
}

impl Pred {
    /// The slots of the other properties the predicate compares with.
    pub(crate) fn operands(&self) -> impl Iterator<Item = Slot> + '_ {
        let bounds = match self {
            Pred::Number(conds) => conds.as_slice(),
            _ => &[],
        };
        let same_as = match self {
            Pred::SameAs(p) => Some(*p),
            _ => None,
        };
        bounds
            .iter()
            .filter_map(|(_, o)| match o {
                Operand::Prop(p) => Some(*p),
                Operand::Const(_) => None,
            })
            .chain(same_as)
    }

    /// Whether the value `v` of the property tested holds the predicate; `other` gives the
    /// entity's other properties (those a bound or `same-as` names).
    pub(crate) fn holds<'e>(
        &self,
        v: PropView<'e>,
        other: impl Fn(Slot) -> Option<PropView<'e>>,
    ) -> bool {
        match (self, v) {
            (Pred::Bool(want), PropView::Bool(b)) => *want == b,
            (Pred::Number(conds), PropView::Int(n)) => conds
                .iter()
                .all(|(cmp, o)| o.value(&other).is_some_and(|b| holds_int(*cmp, n, b))),
            (Pred::Words(words), PropView::Text(t)) => words.iter().any(|w| w == t),
            (Pred::Regex(p), PropView::Text(t)) => p.0.is_match(t),
            (Pred::SameAs(slot), v) => other(*slot) == Some(v),
            _ => false,
        }
    }
}

/// `cmp` between two numbers, in 64 bits when both fit (a remainder of 128-bit numbers is a call).
fn holds_int(cmp: Cmp, n: i128, other: i128) -> bool {
    match (i64::try_from(n), i64::try_from(other)) {
        // `i64::MIN % -1` overflows; in 128 bits it does not.
        (Ok(n), Ok(other)) if other != -1 => cmp.holds(n, other),
        _ => cmp.holds(n, other),
    }
}

/// A compiled entity rule: the kind, the test and the capture naming the entity.
#[derive(Clone, Debug)]
pub(crate) struct EntityRule {
    pub kind: &'static EntityKind,
    pub test: EntityTest,
    /// `capture: $X` at the top of `match` (without `$`).
    pub capture: Option<String>,
}

/// Keys of a rule object that entity rule objects cannot use, with the reason.
fn node_only_keys(r: &SerRule) -> Vec<&'static str> {
    let mut keys = Vec::new();
    let present = [
        ("op", r.op.is_some()),
        ("input", r.input.is_some()),
        ("output", r.output.is_some()),
        ("param", r.param.is_some()),
        ("attr", r.attr.is_some()),
        ("state-write", r.state_write.is_some()),
        ("function", r.function.is_some()),
        ("model", r.model.is_some()),
        ("origin", r.origin.is_some()),
        ("compare", r.compare.is_some()),
        ("reasons", r.reasons.is_some()),
        ("fed-by", r.fed_by.is_some()),
        ("feeds", r.feeds.is_some()),
        ("inside", r.inside.is_some()),
        ("has", r.has.is_some()),
        ("peers", r.peers.is_some()),
        ("stop-by", r.stop_by.is_some()),
        ("via", r.via.is_some()),
    ];
    for (key, is) in present {
        if is {
            keys.push(key);
        }
    }
    keys
}

/// Compiles entity rule objects, collecting every error with its YAML path.
pub(crate) struct EntityCompiler {
    pub errors: Vec<CompileError>,
    path: Vec<String>,
    kind: &'static EntityKind,
    /// Match fragments `matches:` can name (the rule's `utils:` and the shared ones).
    utils: Arc<Utils>,
    /// Fragments being expanded, outermost first (a fragment that names itself is an error).
    expanding: Vec<String>,
}

impl ErrorPath for EntityCompiler {
    fn path(&mut self) -> &mut Vec<String> {
        &mut self.path
    }

    fn errors(&mut self) -> &mut Vec<CompileError> {
        &mut self.errors
    }
}

impl EntityCompiler {
    /// A compiler for rule objects over `kind`, whose error paths start at `root`.
    pub(crate) fn new(root: &str, kind: &'static EntityKind, utils: Arc<Utils>) -> EntityCompiler {
        EntityCompiler::nested_at(&[root.to_string()], kind, utils)
    }

    /// A compiler whose error paths start at `path` (e.g. `help-when.0.match`).
    pub(crate) fn nested_at(
        path: &[String],
        kind: &'static EntityKind,
        utils: Arc<Utils>,
    ) -> EntityCompiler {
        EntityCompiler {
            errors: Vec::new(),
            path: path.to_vec(),
            kind,
            utils,
            expanding: Vec::new(),
        }
    }

    /// A rule object below the top of `match` (a `help-when:` entry's `match:`).
    pub(crate) fn test(&mut self, r: &SerRule) -> EntityTest {
        self.object(r, false)
    }

    /// `matches: name`: the fragment compiled in place, as a rule object over the same kind.
    fn fragment(&mut self, name: &str) -> Option<EntityTest> {
        let body = match super::schema::fragment_body(&self.utils, &self.expanding, name) {
            Ok(body) => body,
            Err(e) => {
                self.error("matches", e);
                return None;
            }
        };
        self.expanding.push(name.to_string());
        let t = self.nested("matches", |c| c.object(&body, false));
        self.expanding.pop();
        Some(t)
    }

    /// The top-level `match:` object (which carries `kind:` and may carry `capture:`).
    pub(crate) fn rule(&mut self, r: &SerRule) -> EntityRule {
        let capture = r.capture.as_deref().and_then(|raw| self.capture_name(raw));
        let test = self.object(r, true).smallest_first();
        EntityRule {
            kind: self.kind,
            test,
            capture,
        }
    }

    fn capture_name(&mut self, raw: &str) -> Option<String> {
        let name = raw.strip_prefix('$');
        let ok = name.is_some_and(|n| {
            n.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && n.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        });
        match name {
            Some(n) if ok && !matches!(n, "OP" | "FUNCTION" | "STATE" | "TARGET") => {
                Some(n.to_string())
            }
            Some(n) if ok => {
                self.error("capture", format!("`${n}` is reserved"));
                None
            }
            _ => {
                self.error(
                    "capture",
                    format!("capture `{raw}`: use `$` and upper-case letters, digits or `_`"),
                );
                None
            }
        }
    }

    fn object(&mut self, r: &SerRule, top: bool) -> EntityTest {
        for key in node_only_keys(r) {
            self.error(
                key,
                format!(
                    "`{key}:` applies to the ops and inputs of a function, not to `{}` entities",
                    self.kind.name
                ),
            );
        }
        if !top {
            if r.kind.is_some() {
                self.error("kind", "`kind:` is allowed only at the top of `match`");
            }
            if r.capture.is_some() {
                self.error("capture", "an entity is captured at the top of `match`");
            }
            if r.target.is_some() {
                self.error("target", "`target:` is allowed only at the top of `match`");
            }
        }
        let mut tests = Vec::new();
        for (name, value) in &r.props {
            if let Some(t) = self.property(name, value) {
                tests.push(t);
            }
        }
        // `name:` is the entity's `name` property, in the text forms every text property takes.
        if let Some(n) = &r.name {
            let value = match n {
                NameSpec::Text(t) => Value::String(t.clone()),
                NameSpec::Regex(r) => serde_json::json!({ "regex": r.regex }),
            };
            if let Some(t) = self.property("name", &value) {
                tests.push(t);
            }
        }
        if let Some(name) = &r.matches {
            if let Some(t) = self.fragment(name) {
                tests.push(t);
            }
        }
        if let Some(all) = &r.all {
            tests.push(EntityTest::All(self.list("all", all)));
        }
        if let Some(any) = &r.any {
            if any.is_empty() {
                self.error("any", "lists no rule object");
            }
            tests.push(EntityTest::Any(self.list("any", any)));
        }
        if let Some(not) = &r.not {
            let t = self.nested("not", |c| c.object(not, false));
            tests.push(EntityTest::Not(Box::new(t)));
        }
        if tests.len() == 1 {
            tests.remove(0)
        } else {
            EntityTest::All(tests)
        }
    }

    /// The rule objects of an `all:` or `any:` list.
    fn list(&mut self, key: &str, items: &[SerRule]) -> Vec<EntityTest> {
        self.nested(key, |c| {
            items
                .iter()
                .enumerate()
                .map(|(i, r)| c.nested(&i.to_string(), |c| c.object(r, false)))
                .collect()
        })
    }

    /// The slot and registration of the kind's property called `name`.
    fn known_property(&mut self, key: &str, name: &str) -> Option<(Slot, &'static PropertyDef)> {
        let kind = self.kind;
        let def = kind
            .slot_of(name)
            .map(|slot| (slot, &kind.properties[slot]));
        if def.is_none() {
            let names = kind.properties.iter().map(|p| p.name);
            self.error(
                key,
                format!(
                    "`{name}` is not a property of `{}` entities{} (properties: {})",
                    kind.name,
                    did_you_mean(name, names.clone()),
                    names.collect::<Vec<_>>().join(", ")
                ),
            );
        }
        def
    }

    fn property(&mut self, name: &str, value: &Value) -> Option<EntityTest> {
        let (slot, def) = self.known_property(name, name)?;
        let pred = self.nested(name, |c| c.predicate(def, value))?;
        Some(EntityTest::Prop(slot, pred))
    }

    fn predicate(&mut self, def: &'static PropertyDef, value: &Value) -> Option<Pred> {
        let wrong = |c: &mut EntityCompiler, form: &str| {
            c.error(
                "",
                format!("`{}` is a {} property: {form}", def.name, def.ty.as_str()),
            );
            None
        };
        if let Value::Object(map) = value {
            if let Some(present) = map.get("present") {
                return match (map.len(), present) {
                    (1, Value::Bool(b)) => Some(Pred::Present(*b)),
                    _ => wrong(self, "`present:` stands alone and takes `true` or `false`"),
                };
            }
            if let Some(pattern) = map.get("regex") {
                if map.len() != 1 || def.ty != PropType::Text {
                    return wrong(self, "`regex:` stands alone, on a text property");
                }
                let Some(text) = pattern.as_str() else {
                    return wrong(self, "`regex:` takes a regular expression in quotes");
                };
                return match regex::Regex::new(text) {
                    Ok(r) => Some(Pred::Regex(Pattern(r))),
                    Err(e) => {
                        self.error(
                            "regex",
                            format!("`{text}` is not a regular expression: {e}"),
                        );
                        None
                    }
                };
            }
            if let Some(other) = map.get("same-as") {
                if map.len() != 1 {
                    return wrong(self, "`same-as:` stands alone");
                }
                let other = other.as_str().unwrap_or_default();
                let (slot, o) = self.known_property("same-as", other)?;
                if o.ty != def.ty {
                    self.error(
                        "same-as",
                        format!(
                            "`{}` is a {} property and `{}` a {} one",
                            def.name,
                            def.ty.as_str(),
                            o.name,
                            o.ty.as_str()
                        ),
                    );
                    return None;
                }
                return Some(Pred::SameAs(slot));
            }
        }
        match (def.ty, value) {
            (PropType::Bool, Value::Bool(b)) => Some(Pred::Bool(*b)),
            (PropType::Bool, _) => wrong(self, "write `true` or `false`"),
            (PropType::Text, Value::String(s)) => Some(Pred::Words(vec![s.clone()])),
            (PropType::Text, Value::Array(items)) => {
                let words: Option<Vec<String>> = items
                    .iter()
                    .map(|i| i.as_str().map(str::to_string))
                    .collect();
                match words {
                    Some(w) if !w.is_empty() => Some(Pred::Words(w)),
                    _ => wrong(self, "write a word or a list of words"),
                }
            }
            (PropType::Text, _) => wrong(
                self,
                "write a word, a list of words, `{ regex: … }` or `{ same-as: … }`",
            ),
            (PropType::Int, Value::Number(_)) => {
                let n = self.number(value)?;
                Some(Pred::Number(vec![(Cmp::Equals, Operand::Const(n))]))
            }
            (PropType::Int, Value::Object(map)) => self.number_range(map),
            (PropType::Int, _) => wrong(
                self,
                "write a number or `{ min, max, above, below, equals, multiple-of, not-multiple-of }` \
                 (each a number or another number property)",
            ),
        }
    }

    fn number(&mut self, v: &Value) -> Option<i128> {
        match v.as_i64().map(i128::from).or(v.as_u64().map(i128::from)) {
            Some(n) => Some(n),
            None => {
                self.error("", format!("`{v}` is not a whole number"));
                None
            }
        }
    }

    fn number_range(&mut self, map: &serde_json::Map<String, Value>) -> Option<Pred> {
        const KEYS: &[&str] = &[
            "min",
            "max",
            "above",
            "below",
            "equals",
            "multiple-of",
            "not-multiple-of",
            "same-as",
            "present",
        ];
        let mut ok = true;
        for key in map.keys() {
            if !KEYS.contains(&key.as_str()) {
                self.error(
                    key,
                    format!(
                        "unknown key `{key}`{} (known: {})",
                        did_you_mean(key, KEYS.iter().copied()),
                        KEYS.join(", ")
                    ),
                );
                ok = false;
            }
        }
        let operand = |c: &mut EntityCompiler, key: &str| -> Option<Operand> {
            let v = map.get(key)?;
            c.nested(key, |c| match v {
                Value::String(p) => {
                    let (slot, def) = c.known_property("", p)?;
                    if def.ty != PropType::Int {
                        c.error("", format!("`{p}` is a {} property", def.ty.as_str()));
                        return None;
                    }
                    Some(Operand::Prop(slot))
                }
                _ => c.number(v).map(Operand::Const),
            })
        };
        let mut conds = Vec::new();
        for (key, cmp) in Cmp::KEYS {
            let Some(o) = operand(self, key) else {
                continue;
            };
            if o == Operand::Const(0) && matches!(cmp, Cmp::MultipleOf | Cmp::NotMultipleOf) {
                self.error(key, "must not be 0");
                continue;
            }
            conds.push((cmp, o));
        }
        ok.then_some(Pred::Number(conds))
    }
}

/// Kinds that are gone, with what replaced them: a rule written for one is told what to write.
const REPLACED_KINDS: &[(&str, &str)] = &[(
    "signature-difference",
    "`signature-difference` is gone: the description's inputs, outputs and states are \
     `description-feature` entities (`described`, `type`, `program-type`, `shape`, `differing-axis`, \
     …) and its functions `description-function` entities; a rule compares their properties \
     (rules/description-signature-mismatch.yaml, docs/rule-language.md)",
)];

/// The kind `kind:` names, or an error naming the known kinds (or what replaced a kind that is
/// gone).
pub(crate) fn entity_kind_named(name: &str) -> Result<&'static EntityKind, String> {
    if let Some((_, replaced)) = REPLACED_KINDS.iter().find(|(old, _)| *old == name) {
        return Err((*replaced).to_string());
    }
    crate::analysis::registry::entity_kind(name).ok_or_else(|| {
        let names = crate::analysis::registry::entity_kinds().map(|k| k.name);
        format!(
            "unknown entity kind `{name}`{} (kinds: {})",
            did_you_mean(name, names.clone()),
            names.collect::<Vec<_>>().join(", ")
        )
    })
}

/// The placeholders an entity rule's templates may use besides the capture's properties.
pub(crate) const ENTITY_LOCATION_VARS: &[&str] = &["FUNCTION", "OP", "STATE"];

/// Errors for placeholders of an entity rule's template that name nothing the rule binds.
pub(crate) fn check_placeholders(
    rule: &EntityRule,
    placeholders: &[(String, String)],
    target_bound: bool,
) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, acc) in placeholders {
        if ENTITY_LOCATION_VARS.contains(&name.as_str()) || (target_bound && name == "TARGET") {
            continue;
        }
        if rule.capture.as_deref() != Some(name.as_str()) {
            let bound: Vec<String> = rule
                .capture
                .iter()
                .cloned()
                .chain(ENTITY_LOCATION_VARS.iter().map(|s| s.to_string()))
                .collect();
            let e = format!(
                "`{{{name}}}` is not bound by the rule's match (bound: {})",
                bound.join(", ")
            );
            if !errors.contains(&e) {
                errors.push(e);
            }
            continue;
        }
        if acc.is_empty() {
            errors.push(format!(
                "`{{{name}}}`: name a property, e.g. `{{{name}.{}}}`",
                rule.kind.properties.first().map_or("…", |p| p.name)
            ));
        } else if rule.kind.property(acc).is_none() {
            let names = rule.kind.properties.iter().map(|p| p.name);
            errors.push(format!(
                "`{{{name}.{acc}}}`: `{acc}` is not a property of `{}` entities{}",
                rule.kind.name,
                did_you_mean(acc, names)
            ));
        }
    }
    errors
}

/// The text of placeholder `{name.acc}` for entity `e`, when it has one.
pub(crate) fn placeholder_text(
    rule: &EntityRule,
    e: &Entity,
    name: &str,
    acc: &str,
) -> Option<String> {
    match name {
        "FUNCTION" => e.function.clone(),
        "OP" => e.op.clone(),
        "STATE" => e.state.clone(),
        _ if rule.capture.as_deref() == Some(name) => e.get(acc).map(ToString::to_string),
        _ => None,
    }
}
