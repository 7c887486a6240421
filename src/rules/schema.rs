//! The rule file as written: serde mirror types (kebab-case, unknown keys rejected). Nothing
//! evaluates these directly; [`compile`](super::compile) validates them once into matchers.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::finding::{Applicability, Severity};
use crate::suggest::did_you_mean;

/// One string or a list of strings.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single string.
    One(String),
    /// A list of strings.
    Many(Vec<String>),
}

impl OneOrMany {
    /// The strings, in order.
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// What `stop-by:` may be, for errors.
const STOP_BY_FORMS: &str = "`neighbor`, `end` or a rule object where the walk stops";

/// What each of the untagged forms of a rule file may be, for errors: serde says only that "data
/// did not match any variant of untagged enum OneOrMany".
const UNTAGGED_FORMS: &[(&str, &str)] = &[
    ("OneOrMany", "a word or a list of words"),
    (
        "Scalars",
        "a boolean, a number, a text in quotes, or a list of them",
    ),
    (
        "OpsetSpec",
        "an opset (`ios18`, `CoreML8`) or `{ min, max }`",
    ),
    ("RuntimeSpec", "`true`, `false`, `data` or `shape`"),
    ("DimSpec", "a number, `?` (unknown) or `_` (anything)"),
    ("StopBySpec", STOP_BY_FORMS),
    (
        "SerFix",
        "a fix's name (`pad-state`) or `{ kind, title, applicability, when }`",
    ),
    ("SerOsRanges", "`{ min, max }` or a list of them"),
    (
        "CountBound",
        "a number or the name of another number (`dim.1`, `rank`)",
    ),
];

/// The key a form's error is about, when serde's path stops at the rule object holding it (a
/// rule object's properties are flattened, so serde's path ends at the object).
pub fn form_key(message: &str) -> Option<&'static str> {
    [(NAME_FORMS, "name"), (STOP_BY_FORMS, "stop-by")]
        .into_iter()
        .find(|(forms, _)| message.contains(forms))
        .map(|(_, key)| key)
}

/// `message` with serde's "did not match any variant of untagged enum X" said as what the key
/// takes.
pub fn explain_forms(message: &str) -> String {
    const UNTAGGED: &str = "data did not match any variant of untagged enum ";
    let Some(at) = message.find(UNTAGGED) else {
        return message.to_string();
    };
    let rest = &message[at + UNTAGGED.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    match UNTAGGED_FORMS
        .iter()
        .find(|(name, _)| *name == &rest[..end])
    {
        Some((_, forms)) => format!(
            "{}not of a form this key takes: {forms}{}",
            &message[..at],
            &rest[end..]
        ),
        None => message.to_string(),
    }
}

/// A name predicate: a text (at the op level a regular expression, for compatibility; on an
/// entity a word) or `{ regex: <pattern> }`, which means the same everywhere.
#[derive(Clone, Debug, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum NameSpec {
    /// A text.
    Text(String),
    /// `{ regex: <pattern> }`: the pattern finds a match in the name.
    Regex(RegexSpec),
}

/// `{ regex: <pattern> }`.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RegexSpec {
    /// A Rust `regex` pattern.
    pub regex: String,
}

/// What `name:` may be, for errors.
pub const NAME_FORMS: &str =
    "`name:` takes a regular expression in quotes (`name: \"^kv_\"`) or `{ regex: <pattern> }`";

impl<'de> Deserialize<'de> for NameSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<NameSpec, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        match v {
            serde_json::Value::String(s) => Ok(NameSpec::Text(s)),
            serde_json::Value::Object(_) => RegexSpec::deserialize(v)
                .map(NameSpec::Regex)
                .map_err(|e| D::Error::custom(format!("{e}: {NAME_FORMS}"))),
            other => Err(D::Error::custom(format!(
                "`{other}` is no name: {NAME_FORMS}"
            ))),
        }
    }
}

impl NameSpec {
    /// The regular expression an op's or an input's name is tested with.
    pub fn pattern(&self) -> &str {
        match self {
            NameSpec::Text(t) | NameSpec::Regex(RegexSpec { regex: t }) => t,
        }
    }
}

/// Lifecycle of a rule (ruff's registry).
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Established.
    Stable,
    /// New: checked like a stable rule; its wording or scope may still change.
    Preview,
    /// Still checked, but scheduled for removal.
    Deprecated,
    /// No longer checked.
    Removed,
}

/// Properties of an entity and what they must be, by name (`dtype: fp16`, `rank: { min: 6 }`).
/// The compiler checks the names against the entity's property registry (the typed spec below:
/// [`ValueSpec`] for values, [`StateWriteSpec`] for state writes, [`FunctionSpec`],
/// [`ModelSpec`], [`TargetSpec`], [`OpProps`], [`PeerProps`]) and reads the values into it.
pub type Props = BTreeMap<String, serde_json::Value>;

/// Named match fragments (ast-grep's `utils`): name → rule object.
pub type Utils = BTreeMap<String, SerRule>;

/// The body of fragment `name` of `utils`, or why `matches: name` names none: an unknown name
/// (with the closest one) or a fragment that uses itself (`expanding`: the fragments being
/// expanded, outermost first). Node and entity rule objects expand fragments alike.
pub(crate) fn fragment_body(
    utils: &Utils,
    expanding: &[String],
    name: &str,
) -> Result<SerRule, String> {
    if expanding.iter().any(|n| n == name) {
        return Err(format!(
            "fragment `{name}` uses itself ({} → {name})",
            expanding.join(" → ")
        ));
    }
    utils.get(name).cloned().ok_or_else(|| {
        let known = utils.keys().map(String::as_str);
        format!(
            "no match fragment `{name}`{} (known: {})",
            did_you_mean(name, known.clone()),
            known.collect::<Vec<_>>().join(", ")
        )
    })
}

/// `rules/<id>.yaml`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleFile {
    /// Rule id, kebab-case; equals the file name without `.yaml`.
    pub id: String,
    /// One-line title.
    pub title: String,
    /// `error`, `warning` or `info`.
    pub severity: Severity,
    /// Group, e.g. `ane-compile`, `ane-placement`, `correctness`.
    #[serde(default)]
    pub category: Option<String>,
    /// `stable` (default), `preview`, `deprecated`, `removed`.
    #[serde(default)]
    pub status: Option<Status>,
    /// Version that introduced the rule.
    #[serde(default)]
    pub since: Option<String>,
    /// Platforms (chip + OS) where the hazard was observed.
    #[serde(default)]
    pub seen_on: Vec<String>,
    /// Platforms where the same model was observed to work.
    #[serde(default)]
    pub not_seen_on: Vec<String>,
    /// Links or citations.
    #[serde(default)]
    pub references: Vec<String>,
    /// What the rule finds.
    #[serde(default)]
    pub description: Option<String>,
    /// Why it matters: symptom and evidence.
    #[serde(default)]
    pub why: Option<String>,
    /// A short example of the pattern.
    #[serde(default)]
    pub example: Option<String>,
    /// When the fix is safe to apply.
    #[serde(default)]
    pub fix_safety: Option<String>,
    /// What the rule matches.
    #[serde(rename = "match")]
    pub matcher: SerRule,
    /// Finding message; `{X}` / `{X.accessor}` placeholders name bound captures.
    pub message: String,
    /// Help text with the concrete fix; same placeholders.
    #[serde(default)]
    pub help: Option<String>,
    /// The fix the finding offers.
    #[serde(default)]
    pub fix: Option<SerFix>,
    /// Test snippets.
    #[serde(default)]
    pub tests: Option<SerTests>,
    /// Named match fragments this rule's `matches:` keys can use (they shadow the shared ones in
    /// `rules/utils.yaml`).
    #[serde(default)]
    pub utils: Utils,
    /// Findings where one of these matches get its severity instead of `severity` (first wins).
    #[serde(default)]
    pub severity_when: Vec<SerSeverityWhen>,
    /// One finding per cause: the findings of a function whose capture (`$W`) binds the same
    /// value, op or state are one, at the first in program order; `{GROUP}` names the others.
    #[serde(default)]
    pub group_by: Option<String>,
    /// The run's settings the rule concerns (compute units, chip families, OS ranges), tested once
    /// per run: a rule that does not apply reports nothing.
    #[serde(default)]
    pub applies_to: Option<SerAppliesTo>,
    /// Help texts for some runs (`applies-to:` per entry; first that holds wins, else `help`).
    #[serde(default)]
    pub help_when: Vec<SerHelpWhen>,
    /// Messages for some findings: the first entry whose `match:` holds at the finding's node (or
    /// entity) gives the message, else `message`.
    #[serde(default)]
    pub message_when: Vec<SerMessageWhen>,
    /// `origin:` rules: what one finding stands for, `connected` (default: each connected region),
    /// `construct` (the regions of a function built the same way: a module repeated per layer) or
    /// `function` (every region of a function: one cause, e.g. an opset's forced casts).
    #[serde(default)]
    pub region: Option<RegionScope>,
}

/// What one finding of an `origin:` rule stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RegionScope {
    /// Each connected region of the nodes having the property.
    Connected,
    /// The regions of a function built the same way (the same op types and ranks in the same
    /// order: a module repeated per layer) as one.
    Construct,
    /// Every such node of a function, connected or not.
    Function,
}

/// `applies-to:`: conditions on the run's settings, not on a node.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SerAppliesTo {
    /// The compute units the hazard concerns (`ane`, `gpu`, `cpu`): holds when the run's
    /// `--compute-units` uses one of them. Absent: every unit.
    #[serde(default)]
    pub units: Option<OneOrMany>,
    /// The run's `--compute-units` setting is one of these (`all`, `cpu-and-ne`, `cpu-and-gpu`,
    /// `cpu-only`).
    #[serde(default)]
    pub compute_units: Option<OneOrMany>,
    /// Some chip family of the target is one of these (`a12`…`a19`, `m1`…`m5`, `iphone`, `mac`);
    /// holds when the target names no family.
    #[serde(default)]
    pub families: Option<OneOrMany>,
    /// Every chip family of the target is one of these (never when the target names none).
    #[serde(default)]
    pub only_families: Option<OneOrMany>,
    /// OS ranges the hazard was seen on (`{ min: macos26.4, max: macos26.5 }`, one or a list):
    /// holds when the target's oldest OS for that platform is at most a range's `max`, and when the
    /// target names no OS.
    #[serde(default)]
    pub os: Option<SerOsRanges>,
    /// The programs the hazard concerns (`mil`: Core ML's, `coreai`: Core AI's): holds for a model
    /// whose program is one of them. Absent: both (a user rule); built-in rules name them.
    #[serde(default)]
    pub programs: Option<Vec<ProgramLanguage>>,
}

/// One OS range or a list of them.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SerOsRanges {
    /// One range.
    One(SerOsRange),
    /// Several ranges (any holds).
    Many(Vec<SerOsRange>),
}

/// `{ min, max }`: an inclusive range of one platform's versions (`max: macos26.5` covers 26.5.x).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerOsRange {
    /// The first version (`ios26.4`); absent: every earlier version.
    #[serde(default)]
    pub min: Option<String>,
    /// The last version (`ios26.6`); absent: every later version.
    #[serde(default)]
    pub max: Option<String>,
}

/// One entry of `help-when:`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SerHelpWhen {
    /// The runs (and models: `programs:`) this help is for.
    #[serde(default)]
    pub applies_to: Option<SerAppliesTo>,
    /// A rule object tested on the node the finding is at (node rules only).
    #[serde(rename = "match", default)]
    pub matcher: Option<SerRule>,
    /// The help text (same placeholders as `help`).
    pub help: String,
}

/// One entry of `message-when:`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SerMessageWhen {
    /// A rule object tested on the node the finding is at (in an entity rule: the entity).
    #[serde(rename = "match")]
    pub matcher: SerRule,
    /// The message (same placeholders as `message`).
    pub message: String,
}

/// One entry of `severity-when:`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "kebab-case")]
pub struct SerSeverityWhen {
    /// The severity findings get when `match` holds at the matched node (and `applies-to` for
    /// the run).
    pub severity: Severity,
    /// A rule object tested on the matched node (it sees the main match's captures).
    #[serde(rename = "match", default)]
    pub matcher: Option<SerRule>,
    /// Conditions on the run's settings (as the rule's `applies-to:`).
    #[serde(default)]
    pub applies_to: Option<SerAppliesTo>,
}

/// A rule object (ast-grep style). Sibling keys must all hold.
///
/// Keys that are not the language's own are properties of the entity the object is tested on
/// (`props`); the compiler checks them against the entity kind's registered properties.
// Read by `SerRuleVisitor`, which sends those keys to `props` as it meets them (what
// `#[serde(flatten)]` would do by first buffering the whole object).
#[derive(Clone, Debug, Default, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub struct SerRule {
    // ---- atomic ----
    /// The entity the rule is about, when it is not an op or input of a function: a model-level
    /// entity such as `weight`, `weight-file`, `bundle-item` (top of `match` only).
    #[serde(default)]
    pub kind: Option<String>,
    /// Properties of the entity and what they must be: of the op ([`OpProps`]: `axis-dim`,
    /// `implied-shape`, `blocked-axes`) in a node rule object, of the model-level entity
    /// (`aligned: false`, `size: { min: 1 }`) in an entity rule.
    #[serde(flatten)]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub props: Props,
    /// Op type(s): `gather`, `[gather, gather_nd]`.
    #[serde(default)]
    pub op: Option<OneOrMany>,
    /// The node is a function (or block) input whose value has these properties ([`ValueSpec`]).
    #[serde(default)]
    pub input: Option<Props>,
    /// The node is a write into a state (`write_state` / `coreml_update_state`) with these
    /// properties ([`StateWriteSpec`]), from the analysis.
    #[serde(default)]
    pub state_write: Option<Props>,
    /// Parameters of the op by name, each with value properties; a parameter with several
    /// bindings matches when any does.
    #[serde(default)]
    pub param: Option<BTreeMap<String, Props>>,
    /// Some output of the op has these value properties.
    #[serde(default)]
    pub output: Option<Props>,
    /// Attributes of the op (other than `name`) by key, each with value properties.
    #[serde(default)]
    pub attr: Option<BTreeMap<String, Props>>,
    /// The name: of the op (its display name) or the input, a regular expression the name has a
    /// match for (`name: "^kv_"`, or `{ regex: "^kv_" }`); of a model-level entity that has a
    /// `name` property, a word or `{ regex: … }` as every text property.
    #[serde(default)]
    pub name: Option<NameSpec>,
    /// Comparisons of the numbers of the match's captures with one another (top of `match`
    /// only): `$I.value.max: { min: $X.dim.0 }` (semgrep's `metavariable-comparison`); each
    /// value a count whose bounds may name other captures' numbers.
    #[serde(default)]
    #[schemars(with = "Option<BTreeMap<String, serde_json::Value>>")]
    pub compare: Option<BTreeMap<String, CountSpec>>,
    /// Properties of the function the node is in ([`FunctionSpec`]).
    #[serde(default)]
    pub function: Option<Props>,
    /// Properties of the model the node is in ([`ModelSpec`]).
    #[serde(default)]
    pub model: Option<Props>,
    /// Properties of the run's deployment target (`--target`, [`TargetSpec`]): its chip families
    /// or its minimum OS. Binds `{TARGET}` (the families the finding applies to). Allowed next to
    /// `kind:`.
    #[serde(default)]
    pub target: Option<Props>,
    /// Binds the matched node to a capture (`$X`).
    #[serde(default)]
    pub capture: Option<String>,
    /// Report at the origin: the node matches this rule object and no producer of its inputs does.
    /// Nodes matching it that feed one another form a region, reported once (only key of `match`).
    #[serde(default)]
    pub origin: Option<Box<SerRule>>,
    // ---- composite ----
    /// The named match fragment holds: one of the rule's `utils:` or of the shared
    /// `rules/utils.yaml` (`matches: weight-decompression-op`).
    #[serde(default)]
    pub matches: Option<String>,
    /// Every rule holds.
    #[serde(default)]
    pub all: Option<Vec<SerRule>>,
    /// Some rule holds (the first that does binds its captures).
    #[serde(default)]
    pub any: Option<Vec<SerRule>>,
    /// The rule does not hold (its captures are not bound).
    #[serde(default)]
    pub not: Option<Box<SerRule>>,
    /// Some of these rule objects hold; the texts of all that hold are bound to one capture, so
    /// that one finding names every problem of the node.
    #[serde(default)]
    pub reasons: Option<ReasonsSpec>,
    // ---- relational ----
    /// Some producer (transitively, per `stop-by`) matches.
    #[serde(default)]
    pub fed_by: Option<Box<SerRule>>,
    /// Some consumer (transitively, per `stop-by`) matches.
    #[serde(default)]
    pub feeds: Option<Box<SerRule>>,
    /// The op sits in a nested block of an op that matches.
    #[serde(default)]
    pub inside: Option<Box<SerRule>>,
    /// The op owns a nested block containing an op that matches.
    #[serde(default)]
    pub has: Option<Box<SerRule>>,
    /// The ops of the node's function that match a rule object (the node among them or not):
    /// how many there are and where the node stands among them.
    #[serde(default)]
    pub peers: Option<Box<PeersSpec>>,
    // ---- relation options (only inside fed-by / feeds / inside / has) ----
    /// `neighbor` (one step, the default), `end` (walk all the way), or a rule where the walk stops
    /// (the stopping node is still tested).
    #[serde(default)]
    pub stop_by: Option<StopBySpec>,
    /// fed-by: first step only through this parameter; feeds: only into this parameter.
    #[serde(default)]
    pub via: Option<String>,
}

impl<'de> Deserialize<'de> for SerRule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SerRule, D::Error> {
        d.deserialize_map(SerRuleVisitor)
    }
}

/// Reads a [`SerRule`] key by key: the language's keys into their fields, any other into
/// `props`.
struct SerRuleVisitor;

impl<'de> serde::de::Visitor<'de> for SerRuleVisitor {
    type Value = SerRule;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("struct SerRule")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<SerRule, A::Error> {
        let mut r = SerRule::default();
        while let Some(key) = map.next_key::<String>()? {
            macro_rules! field {
                ($field:ident, $key:literal) => {{
                    if r.$field.is_some() {
                        return Err(serde::de::Error::duplicate_field($key));
                    }
                    r.$field = map.next_value()?;
                }};
            }
            match key.as_str() {
                "kind" => field!(kind, "kind"),
                "op" => field!(op, "op"),
                "input" => field!(input, "input"),
                "state-write" => field!(state_write, "state-write"),
                "param" => field!(param, "param"),
                "output" => field!(output, "output"),
                "attr" => field!(attr, "attr"),
                "name" => field!(name, "name"),
                "compare" => field!(compare, "compare"),
                "function" => field!(function, "function"),
                "model" => field!(model, "model"),
                "target" => field!(target, "target"),
                "capture" => field!(capture, "capture"),
                "origin" => field!(origin, "origin"),
                "matches" => field!(matches, "matches"),
                "all" => field!(all, "all"),
                "any" => field!(any, "any"),
                "not" => field!(not, "not"),
                "reasons" => field!(reasons, "reasons"),
                "fed-by" => field!(fed_by, "fed-by"),
                "feeds" => field!(feeds, "feeds"),
                "inside" => field!(inside, "inside"),
                "has" => field!(has, "has"),
                "peers" => field!(peers, "peers"),
                "stop-by" => field!(stop_by, "stop-by"),
                "via" => field!(via, "via"),
                _ => {
                    let value = map.next_value()?;
                    r.props.insert(key, value);
                }
            }
        }
        Ok(r)
    }
}

/// The properties of an op a node rule object tests next to `op:` (written at the node's level).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OpProps {
    /// The opset of the op's function: `ios18`, or `{ min: ios16, max: ios17 }` (with `op:`).
    #[serde(default)]
    pub opset: Option<OpsetSpec>,
    /// A dimension chosen by a value of the op: the dimension of parameter `of` at the axis that
    /// parameter or attribute `axis` holds as a constant (`softmax` over a long axis).
    #[serde(default)]
    pub axis_dim: Option<AxisDimSpec>,
    /// The output shape the op's shape rule implies from its input shapes and constant
    /// parameters (`conv_transpose`), compared with a parameter that states it.
    #[serde(default)]
    pub implied_shape: Option<ImpliedShapeSpec>,
    /// Per-axis comparison of two parameters' shapes: the axes along which parameter `of` has
    /// more than one entry but fewer than parameter `over` (it splits `over` into blocks there).
    #[serde(default)]
    pub blocked_axes: Option<BlockedAxesSpec>,
}

/// `axis-dim: { of, axis, size }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AxisDimSpec {
    /// The parameter whose dimension is tested (its first binding), e.g. `x`.
    pub of: String,
    /// The parameter or attribute holding the axis as a constant integer, e.g. `axis`; a negative
    /// axis counts from the end.
    pub axis: String,
    /// What the dimension must be (known, and within these bounds).
    pub size: CountSpec,
}

/// `implied-shape: { differs-from, capture }`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ImpliedShapeSpec {
    /// The constant parameter holding a shape (the whole shape or its spatial axes) that must
    /// differ from the implied one, e.g. `output_shape`.
    #[serde(default)]
    pub differs_from: Option<String>,
    /// Binds the implied shape as a value (`$V`; `{V}` prints it).
    #[serde(default)]
    pub capture: Option<String>,
}

/// `reasons: { capture, of: [{ match, text }] }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReasonsSpec {
    /// Binds the texts of the entries that hold (`$R`; `{R}` joins them with `; `).
    pub capture: String,
    /// The entries, tested in order on the node.
    pub of: Vec<ReasonSpec>,
}

/// One entry of `reasons:`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReasonSpec {
    /// A rule object tested on the node; its captures are bound only for `text`.
    #[serde(rename = "match")]
    pub matcher: SerRule,
    /// What the entry says when it holds; placeholders name the entry's own captures.
    pub text: String,
}

/// `peers: { match, capture, … }`: the peers, and properties of the set of them
/// ([`PeerProps`]: `count`, `nth`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct PeersSpec {
    /// The rule object the peers match (tested on every op of the function; captures are not
    /// bound).
    #[serde(rename = "match")]
    pub matcher: SerRule,
    /// Binds the peers (`$P`; `{P}` names the others).
    #[serde(default)]
    pub capture: Option<String>,
    /// Properties of the set of peers.
    #[serde(flatten)]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub props: Props,
}

/// The properties of a node's peers (`peers:`).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PeerProps {
    /// Number of peers in the function (the node included when it matches).
    #[serde(default)]
    pub count: Option<CountSpec>,
    /// The node's 1-based position among the peers in program order (the node must be one).
    #[serde(default)]
    pub nth: Option<CountSpec>,
}

/// `blocked-axes: { of, over, except, count }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlockedAxesSpec {
    /// The parameter whose shape is compared (its first binding), e.g. `scale`.
    pub of: String,
    /// The parameter it is compared with, of the same rank, e.g. `data`.
    pub over: String,
    /// Axes left out of the count; a negative axis counts from the end.
    #[serde(default)]
    pub except: Vec<i64>,
    /// How many axes `i` (not in `except`) have `1 < of[i] < over[i]`; both shapes must be known.
    pub count: CountSpec,
}

/// `stop-by:` value.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum StopBySpec {
    /// `neighbor` (one step, the default) or `end` (as far as the graph goes).
    Word(String),
    /// Stop at the first node that matches this rule object, after testing it.
    Rule(Box<SerRule>),
}

/// An opset or a range of opsets (`ios15`…`ios18`, `CoreML5`…`CoreML9`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OpsetSpec {
    /// One opset, e.g. `ios18`.
    Exact(String),
    /// A range of opsets, both ends included.
    Range(OpsetRange),
}

/// `{ min, max }` over opsets.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpsetRange {
    #[serde(default)]
    /// Oldest opset accepted (included); absent means no lower bound.
    pub min: Option<String>,
    #[serde(default)]
    /// Newest opset accepted (included); absent means no upper bound.
    pub max: Option<String>,
}

/// A count: an exact number, or comparisons, all of which must hold.
#[derive(Clone, Debug, JsonSchema)]
#[serde(untagged)]
pub enum CountSpec {
    /// Exactly this number.
    Exact(i64),
    /// Comparisons, all of which must hold.
    Range(CountRange),
}

/// What a count may be, for errors.
pub const COUNT_FORMS: &str = "a count is a whole number, or `{ min, max, above, below, equals, \
     multiple-of, not-multiple-of }` (`min`/`max` included, `above`/`below` strict), each a number \
     or, in a value, another number of it: `rank`, `max-dim`, `last-dim`, `elements`, `dim.<axis>`";

impl<'de> Deserialize<'de> for CountSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CountSpec, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        match &v {
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(n) => Ok(CountSpec::Exact(n)),
                None => Err(D::Error::custom(format!(
                    "`{n}` is not a whole number: {COUNT_FORMS}"
                ))),
            },
            serde_json::Value::Object(_) => CountRange::deserialize(v)
                .map(CountSpec::Range)
                .map_err(|e| {
                    let e = e.to_string();
                    let unknown = e
                        .strip_prefix("unknown field `")
                        .and_then(|r| r.split('`').next());
                    match unknown {
                        // A value's `same-as:` of earlier versions is `equals:` now.
                        Some("same-as") => D::Error::custom(format!(
                            "`same-as` is not a comparison of a count: {COUNT_FORMS}; write \
                             `same-as: dim.1` as `equals: dim.1`"
                        )),
                        Some(key) => D::Error::custom(format!(
                            "`{key}` is not a comparison of a count: {COUNT_FORMS}"
                        )),
                        None => D::Error::custom(format!("{e}: {COUNT_FORMS}")),
                    }
                }),
            other => Err(D::Error::custom(format!(
                "`{other}` is not a count: {COUNT_FORMS}"
            ))),
        }
    }
}

/// `{ min, max, above, below, equals, multiple-of, not-multiple-of }`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CountRange {
    #[serde(default)]
    /// Smallest accepted number (included).
    pub min: Option<CountBound>,
    #[serde(default)]
    /// Largest accepted number (included).
    pub max: Option<CountBound>,
    #[serde(default)]
    /// The number must be greater.
    pub above: Option<CountBound>,
    #[serde(default)]
    /// The number must be smaller.
    pub below: Option<CountBound>,
    #[serde(default)]
    /// The number must be equal.
    pub equals: Option<CountBound>,
    #[serde(default)]
    /// The number must be a multiple of this.
    pub multiple_of: Option<CountBound>,
    #[serde(default)]
    /// The number must not be a multiple of this.
    pub not_multiple_of: Option<CountBound>,
}

impl CountRange {
    /// Each comparison's key, the comparison and its bound when written.
    pub fn bounds(&self) -> [(&'static str, super::compare::Cmp, &Option<CountBound>); 7] {
        use super::compare::Cmp;
        [
            ("min", Cmp::Min, &self.min),
            ("max", Cmp::Max, &self.max),
            ("above", Cmp::Above, &self.above),
            ("below", Cmp::Below, &self.below),
            ("equals", Cmp::Equals, &self.equals),
            ("multiple-of", Cmp::MultipleOf, &self.multiple_of),
            ("not-multiple-of", Cmp::NotMultipleOf, &self.not_multiple_of),
        ]
    }
}

/// What a count compares with: a number, or (in a value) another number of the value.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(untagged)]
pub enum CountBound {
    /// A number.
    Num(i64),
    /// `rank`, `max-dim`, `last-dim`, `elements` or `dim.<axis>` of the same value.
    Name(String),
}

/// A number range for constant element values.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NumRange {
    #[serde(default)]
    /// Smallest accepted value (included).
    pub min: Option<f64>,
    #[serde(default)]
    /// Largest accepted value (included).
    pub max: Option<f64>,
}

/// One dimension in a shape pattern: a number, `?` (unknown) or `_` (anything).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum DimSpec {
    /// A dimension of exactly this size.
    Size(u64),
    /// `?` (a dimension that is not known statically) or `_` (any dimension).
    Word(String),
}

/// `true` / `false`, or `data` / `shape` (run-time through data only / through shapes only).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RuntimeSpec {
    /// `true`: depends on a function input at run time; `false`: does not.
    Flag(bool),
    /// `data` (depends on an input through its data) or `shape` (only through a dynamic shape).
    Word(String),
}

/// A literal for `value: { equals: … }`.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(untagged)]
pub enum Scalars {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string.
    Str(String),
    /// A list of literals (nested lists are flattened, row-major).
    List(Vec<Scalars>),
}

/// Predicates on a value (an op input, output, attribute or a function input).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ValueSpec {
    /// Element type(s): `fp16`, `[int8, uint8]`, or the classes `float`, `int`.
    #[serde(default)]
    pub dtype: Option<OneOrMany>,
    /// Rank.
    #[serde(default)]
    pub rank: Option<CountSpec>,
    /// Exact shape pattern: numbers, `?` for an unknown dim, `_` for any dim.
    #[serde(default)]
    pub shape: Option<Vec<DimSpec>>,
    /// Some dimension (or the rank) is unknown.
    #[serde(default)]
    pub dynamic: Option<bool>,
    /// Largest known dimension.
    #[serde(default)]
    pub max_dim: Option<CountSpec>,
    /// Last dimension (known).
    #[serde(default)]
    pub last_dim: Option<CountSpec>,
    /// Dimensions by axis (negative counts from the end); each must be known and match.
    #[serde(default)]
    pub dim: Option<BTreeMap<i64, CountSpec>>,
    /// Number of elements (static shapes only).
    #[serde(default)]
    pub elements: Option<CountSpec>,
    /// The value is a state (`state<tensor<…>>`).
    #[serde(default)]
    pub state: Option<bool>,
    /// The analysis knows the value at compile time.
    #[serde(rename = "const", default)]
    pub constant: Option<bool>,
    /// Predicates on the constant elements (implies `const: true`).
    #[serde(default)]
    pub value: Option<ValuePred>,
    /// The value depends on run-time data: `true`, `false`, `data`, `shape`.
    #[serde(default)]
    pub runtime: Option<RuntimeSpec>,
    /// The interval an integer value's elements lie in for valid inputs (the analysis' value
    /// range): bounds on its smallest and its largest end.
    #[serde(default)]
    pub range: Option<RangeSpec>,
    /// The value is returned by the function.
    #[serde(default)]
    pub function_output: Option<bool>,
    /// The binding is an inline literal (not a named value).
    #[serde(default)]
    pub inline: Option<bool>,
    /// The value's name has a match for this regular expression (an inline literal has none):
    /// `name: "^kv_"` or `{ regex: "^kv_" }`.
    #[serde(default)]
    pub name: Option<NameSpec>,
    /// The op (or input) producing the value matches.
    #[serde(default)]
    pub producer: Option<Box<SerRule>>,
    /// Every one of these value objects holds.
    #[serde(default)]
    pub all: Option<Vec<ValueSpec>>,
    /// Some one of these value objects holds (captures go beside `any:`, not in it).
    #[serde(default)]
    pub any: Option<Vec<ValueSpec>>,
    /// This value object does not hold (it captures nothing).
    #[serde(default)]
    pub not: Option<Box<ValueSpec>>,
    /// Binds the value to a capture (`$X`).
    #[serde(default)]
    pub capture: Option<String>,
}

/// `range: { min, max }`: counts the ends of a value's range must be within.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RangeSpec {
    /// What the smallest value of the range must be, e.g. `{ max: -1 }` (it can be negative).
    #[serde(default)]
    pub min: Option<CountSpec>,
    /// What the largest value of the range must be, e.g. `{ min: 32768 }`.
    #[serde(default)]
    pub max: Option<CountSpec>,
}

/// Predicates on constant elements.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ValuePred {
    /// Elements equal this (a scalar matches a one-element tensor).
    #[serde(default)]
    pub equals: Option<Scalars>,
    /// Some element equals one of these numbers, e.g. a conv's `strides` holding a 5 or a 7:
    /// `contains: [5, 7]`.
    #[serde(default)]
    pub contains: Option<Scalars>,
    /// Range of the smallest element.
    #[serde(default)]
    pub min: Option<NumRange>,
    /// Range of the largest element.
    #[serde(default)]
    pub max: Option<NumRange>,
    /// Range of the largest absolute value.
    #[serde(default)]
    pub max_abs: Option<NumRange>,
    /// Every element is a whole number.
    #[serde(default)]
    pub integral: Option<bool>,
    /// Some element is infinite or NaN.
    #[serde(default)]
    pub nonfinite: Option<bool>,
    /// Read as consecutive pairs (e.g. `pad`: begin and end per axis), some pair holds two
    /// different numbers.
    #[serde(default)]
    pub unequal_pairs: Option<bool>,
    /// Read as rows along the last axis (rank 1 or more), some row is `-inf` or NaN in every
    /// position: an attention mask that masks a row entirely.
    #[serde(default)]
    pub masked_row: Option<bool>,
}

/// Properties of the function a node is in.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FunctionSpec {
    /// Regular expression on the function name.
    #[serde(default)]
    pub name: Option<NameSpec>,
    /// Opset or range.
    #[serde(default)]
    pub opset: Option<OpsetSpec>,
    /// Number of states declared.
    #[serde(default)]
    pub states: Option<CountSpec>,
    /// Largest known dimension of any state.
    #[serde(default)]
    pub max_state_dim: Option<CountSpec>,
    /// Some non-state input has a dynamic shape.
    #[serde(default)]
    pub dynamic_inputs: Option<bool>,
}

/// Properties of the model a node is in.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ModelSpec {
    /// `specificationVersion` (unknown for bare text MIL: then this does not match).
    #[serde(default)]
    pub spec_version: Option<CountSpec>,
    /// The version of coremltools that converted the model (`com.github.apple.coremltools.version`
    /// of the user-defined metadata; absent: this does not match).
    #[serde(default)]
    pub converter_version: Option<VersionRangeSpec>,
    /// The language of the model's program: `mil` (Core ML: `.mlpackage`, `.mlmodelc`,
    /// `.mlmodel`, `.mil`) or `coreai` (a Core AI `.aimodel` lowered into the IR).
    #[serde(default)]
    pub program: Option<ProgramLanguage>,
}

/// A range of dotted versions (`"9.0"`, `"8.3.0"`): numeric components compared in order, missing
/// ones counting as 0.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct VersionRangeSpec {
    /// At least this version.
    #[serde(default)]
    pub min: Option<String>,
    /// At most this version.
    #[serde(default)]
    pub max: Option<String>,
    /// Older than this version.
    #[serde(default)]
    pub before: Option<String>,
}

/// The language a model's program was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProgramLanguage {
    /// Core ML's MIL (protobuf or text).
    Mil,
    /// Core AI's `aicode` MLIR bytecode.
    Coreai,
}

/// `target:` — conditions on the run's deployment target. Without a target (or without chip
/// families in it) `families` holds, so the strictest limit applies; `only-families` and
/// `os-before` do not hold.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TargetSpec {
    /// Some chip family of the target is one of these (`a12`…`a19`, `m1`…`m5`, `iphone`, `mac`).
    #[serde(default)]
    pub families: Option<OneOrMany>,
    /// Every chip family of the target is one of these (e.g. `mac`: a Mac-only app).
    #[serde(default)]
    pub only_families: Option<OneOrMany>,
    /// The target's minimum OS is older than this: an opset or OS (`ios18`, `CoreML8`, `macos15`),
    /// or `required`: the OS the function's opset needs (in an entity rule, the OS the entity says
    /// the model needs).
    #[serde(default)]
    pub os_before: Option<String>,
    /// The run's `--compute-units` use one of these units (`ane`, `gpu`, `cpu`): a part of a
    /// match that concerns fewer units than the rule's `applies-to:`.
    #[serde(default)]
    pub units: Option<OneOrMany>,
}

/// Predicates on a state write (see `analysis::state_writes`).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct StateWriteSpec {
    /// Binds the written state (`$S`).
    #[serde(default)]
    pub state: Option<String>,
    /// Binds the write and its window (`$W`).
    #[serde(default)]
    pub window: Option<String>,
    /// The state's (wrapped) tensor type matches.
    #[serde(default)]
    pub state_type: Option<ValueSpec>,
    /// The window covers the whole state on every axis.
    #[serde(default)]
    pub full: Option<bool>,
    /// Every axis of the window is resolved to constants.
    #[serde(default)]
    pub known: Option<bool>,
    /// `slice-update`, `blend`, `fresh` (or a list).
    #[serde(default)]
    pub kind: Option<OneOrMany>,
    /// `write-state` or `coreml-update-state`.
    #[serde(default)]
    pub write_op: Option<OneOrMany>,
    /// `begin` depends on run-time data: `true`, `false`, `data`, `shape`.
    #[serde(default)]
    pub runtime_begin: Option<RuntimeSpec>,
    /// `end` depends on run-time data.
    #[serde(default)]
    pub runtime_end: Option<RuntimeSpec>,
    /// Number of axes the window certainly leaves partial.
    #[serde(default)]
    pub partial_axes: Option<CountSpec>,
    /// Largest number of indices the window leaves out on one axis.
    #[serde(default)]
    pub uncovered: Option<CountSpec>,
    /// The written values are computed element-wise from the state's old content.
    #[serde(default)]
    pub rmw: Option<bool>,
    /// Writes into the same state in this function.
    #[serde(default)]
    pub writes: Option<CountSpec>,
    /// Position of this write among them (1-based, program order).
    #[serde(default)]
    pub nth: Option<CountSpec>,
    /// `true`: only the first write into the state (program order) that matches the other keys,
    /// so that one cause repeated over many writes is one finding per function and state.
    #[serde(default)]
    pub first: Option<bool>,
}

/// `fix:` — a fix primitive name, or `{ kind, title, applicability }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SerFix {
    /// The fix primitive's name, e.g. `pad-state`, with its default title and applicability.
    Name(String),
    /// The fix primitive with its title, applicability and condition.
    Full(Box<SerFixFull>),
}

/// The object form of `fix:`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SerFixFull {
    /// Fix primitive (`pad-state`).
    pub kind: String,
    /// One line saying what the fix does; placeholders allowed.
    #[serde(default)]
    pub title: Option<String>,
    /// `safe`, `unsafe` or `display-only`.
    #[serde(default)]
    pub applicability: Option<Applicability>,
    /// Offer the fix only when the matched node also matches this rule object.
    #[serde(default)]
    pub when: Option<SerRule>,
}

/// `tests:`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerTests {
    /// Snippets the rule must not fire on.
    #[serde(default)]
    pub valid: Vec<SerCase>,
    /// Snippets the rule must fire on.
    #[serde(default)]
    pub invalid: Vec<SerCase>,
}

/// One test snippet.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerCase {
    /// A whole text-MIL program.
    #[serde(default)]
    pub mil: Option<String>,
    /// Or a model on disk (a package, `.mlmodelc`, `.mlmodel` or `.mil`), relative to the rule
    /// file's folder: for entity rules whose entities need weight files or a description.
    #[serde(default)]
    pub model: Option<String>,
    /// Expected findings (invalid cases); empty means "at least one".
    #[serde(default)]
    pub expect: Vec<SerExpect>,
    /// What the case shows.
    #[serde(default)]
    pub note: Option<String>,
    /// The deployment target the case is checked for (`--target` tokens, e.g. `ios17,a17`).
    #[serde(default)]
    pub target: Option<String>,
    /// The compute units the case is checked for (`--compute-units`, e.g. `cpu-and-gpu`).
    #[serde(default, rename = "compute-units")]
    pub compute_units: Option<String>,
}

/// One expected finding; absent keys are not checked.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SerExpect {
    #[serde(default)]
    /// The op the finding is at: its `name` attribute (or its first output's name).
    pub op: Option<String>,
    #[serde(default)]
    /// Name of the state the finding is about.
    pub state: Option<String>,
    #[serde(default)]
    /// Name of the function the finding is in.
    pub function: Option<String>,
}
