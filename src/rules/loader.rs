//! Loading rules: the built-ins embedded at build time, user folders (`--rules DIR`), redirects.
//! Every error names the rule file and labels the YAML key it is about.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use miette::{Diagnostic, LabeledSpan, NamedSource};
use rayon::prelude::*;

use super::applies::{self, AppliesTo};
use super::compile::Compiler;
use super::compile_error::CompileError;
use super::entity_rule::{entity_kind_named, EntityCompiler, EntityRule, EntityTest};
use super::fixes::fix_kind;
use super::guard::{Guard, NodeGuards};
use super::info::RuleInfo;
use super::matcher::{Matcher, NodeMatchers, TargetM};
use super::parse_cache::{CacheDir, ParseCache};
use super::schema::{
    ProgramLanguage, RegionScope, RuleFile, SerFix, SerRule, SerTests, Status, Utils,
};
use super::target::DeployTarget;
use super::template::Template;
use super::vars::{VarKind, Vars, GROUP_VAR};
use crate::finding::{Applicability, Severity};
use crate::yaml;

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtin_rules.rs"));
}

/// A rule file compiled into the binary (`build.rs` lists them in `builtin::BUILTIN_RULES`).
struct BuiltinRule {
    /// The file name, `<id>.yaml`.
    file: &'static str,
    /// The file's text.
    text: &'static str,
    /// Its JSON without `tests:`, and the JSON of `tests:`; `None` when the text is not valid YAML.
    json: Option<(&'static str, &'static str)>,
}

/// What a rule runs on.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    /// Nodes of each function (ops and inputs).
    Nodes(Matcher),
    /// Model-level entities of a kind that match, on a deployment target that meets the
    /// condition (`target:` at the top of `match`).
    Entity(EntityRule, Option<TargetM>),
}

/// What a `help-when:` or `message-when:` entry's `match:` tests: the node the finding is at
/// (node rules), or the entity (entity rules).
#[derive(Clone, Debug)]
pub(crate) enum HelpAt {
    Node(Matcher),
    Entity(EntityTest),
}

/// A fix a rule offers, resolved at load.
#[derive(Clone, Debug)]
pub struct RuleFix {
    /// The fix primitive.
    pub kind: String,
    pub(crate) title: Template,
    /// Default applicability; `pad-state` takes the applicability of the model's fix plan instead.
    pub applicability: Applicability,
    /// The fix is offered only where this matches too.
    pub(crate) when: Option<Matcher>,
}

/// Where a rule came from.
#[derive(Clone, Debug)]
pub struct RuleSource {
    /// `rules/<id>.yaml` for built-ins, the path as found for user rules.
    pub path: PathBuf,
    /// The rule file's full text, as loaded (a built-in rule's is the embedded text, not a copy).
    pub text: Cow<'static, str>,
    /// True for a rule compiled into the binary from `rules/`.
    pub builtin: bool,
}

/// A loaded, compiled rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Unique id, e.g. `state-full-window-write` (the file name without `.yaml`).
    pub id: String,
    /// One-line summary.
    pub title: String,
    /// Default severity, before `severity-when:` and config overrides.
    pub severity: Severity,
    /// Group, e.g. `ane-compile`; empty when the file gives none.
    pub category: String,
    /// Lifecycle; `stable` when the file gives none. `removed` rules never run.
    pub status: Status,
    /// Version that introduced the rule.
    pub since: Option<String>,
    /// Platforms (chip + OS) where the hazard was observed.
    pub seen_on: Vec<String>,
    /// Platforms where the same model was observed to work.
    pub not_seen_on: Vec<String>,
    /// Links or citations.
    pub references: Vec<String>,
    /// What the rule finds.
    pub description: Option<String>,
    /// Why it matters: symptom and evidence.
    pub why: Option<String>,
    /// A short example of the pattern.
    pub example: Option<String>,
    /// When the fix is safe to apply.
    pub fix_safety: Option<String>,
    /// Message and help as written (placeholders unrendered).
    pub message_text: String,
    /// Help text as written (placeholders unrendered); `None` when the rule has no help.
    pub help_text: Option<String>,
    /// The fix the rule offers, if any.
    pub fix: Option<RuleFix>,
    /// The `valid:` / `invalid:` cases `coreml-lint test-rules` runs ([`Rule::tests`]).
    tests: RuleTests,
    /// Where the rule was loaded from.
    pub source: RuleSource,
    pub(crate) target: Target,
    pub(crate) message: Template,
    pub(crate) help: Option<Template>,
    /// Op types the matcher can hit (`None`: any node).
    pub(crate) potential: Option<BTreeSet<String>>,
    pub(crate) inputs_only: bool,
    /// The node matcher specialised for ops and for function inputs (`None` for entity rules).
    pub(crate) node_matchers: Option<NodeMatchers>,
    /// What a node must have for `node_matchers` to match it, tested first.
    pub(crate) node_guards: Option<NodeGuards>,
    /// `severity-when:` entries, tested in order on the matched node: the run's settings
    /// (`applies-to:`) and the node (`match:`), each when given.
    pub(crate) severity_when: Vec<(Severity, Option<AppliesTo>, Option<Matcher>)>,
    /// `group-by:`: the capture whose binding makes matches one finding.
    pub(crate) group_by: Option<String>,
    /// The run's settings the rule concerns (`applies-to:`); the default holds for every run.
    pub applies_to: AppliesTo,
    /// `help-when:` entries: the help for the runs whose settings meet the entry's conditions
    /// (`applies-to:`) at the nodes (or entities) its `match:` holds for, each when given.
    pub(crate) help_when: Vec<(AppliesTo, Option<HelpAt>, Template)>,
    /// `message-when:` entries: the message for the findings whose node (or entity) the entry's
    /// `match:` holds for (first wins), else `message`.
    pub(crate) message_when: Vec<(HelpAt, Template)>,
    /// `region:`: what one finding of an `origin:` rule stands for.
    pub(crate) region_scope: RegionScope,
}

/// A rule's `tests:`. A rule folder's are parsed and checked at load; a built-in rule's stay JSON
/// until asked for, since `check` never reads them (half of the rules' bytes). A unit test loads
/// every built-in rule whole, with its tests checked.
#[derive(Clone, Debug)]
struct RuleTests {
    /// The JSON of a built-in rule's `tests:`, from `build.rs`.
    json: Option<&'static str>,
    parsed: OnceLock<SerTests>,
}

impl RuleTests {
    fn parsed(tests: SerTests) -> RuleTests {
        RuleTests {
            json: None,
            parsed: OnceLock::from(tests),
        }
    }

    fn deferred(json: &'static str) -> RuleTests {
        RuleTests {
            json: Some(json),
            parsed: OnceLock::new(),
        }
    }

    fn get(&self) -> &SerTests {
        self.parsed.get_or_init(|| {
            self.json
                .and_then(yaml::from_transcoding::<Option<SerTests>>)
                .flatten()
                .unwrap_or_default()
        })
    }
}

impl Rule {
    /// The `valid:` / `invalid:` cases `coreml-lint test-rules` runs.
    pub fn tests(&self) -> &SerTests {
        self.tests.get()
    }

    /// The rule's metadata for reporters and `coreml-lint rule ID`.
    pub fn info(&self) -> RuleInfo {
        let mut fix_text = String::new();
        if let Some(f) = &self.fix {
            fix_text.push_str(&format!("{} ({:?})", f.kind, f.applicability).to_lowercase());
        }
        if let Some(s) = &self.fix_safety {
            if !fix_text.is_empty() {
                fix_text.push_str(": ");
            }
            fix_text.push_str(s.trim());
        }
        RuleInfo {
            id: self.id.clone(),
            title: self.title.clone(),
            default_severity: Some(self.severity),
            conditional_severities: self.severity_when.iter().map(|(s, ..)| *s).collect(),
            category: self.category.clone(),
            description: self.description.clone().unwrap_or_default(),
            why: self.why.clone().unwrap_or_default(),
            fix_text,
            example: self.example.clone().unwrap_or_default(),
            seen_on: self.seen_on.clone(),
            references: self.references.clone(),
            fix: self.fix.as_ref().map(|f| f.kind.clone()),
            applies_to: self.applies_to.describe(),
            tested_on: self.tested_on(),
        }
    }

    /// What the engine hands the rule: the entities of its kind, the ops of its types, or every
    /// op and function input, as far as its guard lets them through.
    fn tested_on(&self) -> String {
        let quoted = |names: &mut dyn Iterator<Item = &str>| {
            let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
            match names.len() {
                0..=6 => names.join(", "),
                n => format!("{} and {} more", names[..5].join(", "), n - 5),
            }
        };
        match (&self.target, &self.potential, &self.node_guards) {
            (Target::Entity(er, _), ..) => format!("`{}` entities", er.kind.name),
            (Target::Nodes(_), Some(types), _) => {
                format!("{} ops", quoted(&mut types.iter().map(String::as_str)))
            }
            (Target::Nodes(_), None, Some(m)) => {
                let with = |nodes: &str, guard: &Option<Guard>| match guard {
                    Some(g) => format!("{nodes}, only those {}", g.describe()),
                    None => nodes.to_string(),
                };
                let inputs_too = !m.inputs.as_ref().is_some_and(Guard::admits_none);
                if self.inputs_only {
                    with("function inputs", &m.inputs)
                } else if !inputs_too {
                    with("every op (any op type)", &m.ops)
                } else if m.ops == m.inputs {
                    with("every op (any op type) and function input", &m.ops)
                } else {
                    format!(
                        "{}; {}",
                        with("every op (any op type)", &m.ops),
                        with("function inputs", &m.inputs)
                    )
                }
            }
            (Target::Nodes(_), None, None) => String::new(),
        }
    }

    /// True for entity (`kind:`) rules, which select model-level entities rather than nodes.
    pub fn is_entity_rule(&self) -> bool {
        matches!(self.target, Target::Entity(..))
    }

    /// True when the rule runs for `run`'s settings (`applies-to:`; `None`: no target, every unit)
    /// on a model whose program is `program`.
    pub fn applies(&self, run: Option<&DeployTarget>, program: ProgramLanguage) -> bool {
        self.applies_to.holds_for(run, program)
    }

    /// The message of a finding: the first `message-when:` entry whose `match:` holds there
    /// (`at`), else `message:`.
    pub(crate) fn message_for(&self, at: impl Fn(&HelpAt) -> bool) -> &Template {
        self.message_when
            .iter()
            .find(|(m, _)| at(m))
            .map_or(&self.message, |(_, t)| t)
    }

    /// The help for `run` on a `program`: the first `help-when:` entry that holds (`at`: whether
    /// an entry's `match:` holds at the finding's node or entity), else `help:`.
    pub(crate) fn help_for(
        &self,
        run: Option<&DeployTarget>,
        program: ProgramLanguage,
        at: impl Fn(&HelpAt) -> bool,
    ) -> Option<&Template> {
        self.help_when
            .iter()
            .find(|(a, m, _)| a.holds_for(run, program) && m.as_ref().is_none_or(&at))
            .map(|(.., t)| t)
            .or(self.help.as_ref())
    }
}

/// A rule file that does not load: the file, what is wrong, and where.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{file}: {message}")]
#[diagnostic(code(rules))]
pub struct RuleFileError {
    /// The rule file's path, as displayed.
    pub file: String,
    /// What is wrong.
    pub message: String,
    #[source_code]
    /// The file's text, for the labels.
    pub src: NamedSource<String>,
    #[label(collection)]
    /// The YAML spans the message is about.
    pub labels: Vec<LabeledSpan>,
}

/// Why rules could not be loaded.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[non_exhaustive]
pub enum LoadError {
    /// A rule folder or file could not be read.
    #[error("{}: cannot read: {message}", path.display())]
    #[diagnostic(code(rules))]
    Io {
        /// The folder or file that could not be read.
        path: PathBuf,
        /// What went wrong (the I/O error, or `not UTF-8 text`).
        message: String,
    },

    /// A rule file is not valid YAML, does not fit the schema, or fails a load-time check.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(Box<RuleFileError>),

    /// Two rules share an id.
    #[error("rule id `{id}` is defined twice: {first} and {second}")]
    #[diagnostic(code(rules), help("rename one of them (the id is the file name)"))]
    Duplicate {
        /// The id both rules declare.
        id: String,
        /// Path of the first file that declares it.
        first: String,
        /// Path of the second file that declares it.
        second: String,
    },

    /// Several of the above.
    #[error("{} rule files failed to load", errors.len())]
    #[diagnostic(code(rules))]
    Many {
        /// The errors, each about one file or one duplicate id.
        #[related]
        errors: Vec<LoadError>,
    },
}

/// A parser's message as a rule's author reads it: the place is the label's to show (the parser
/// appends "at line L column C", which the label can contradict once it moves to the key), and
/// the parser's names of our types are said as what they are in a rule file.
fn readable(message: &str) -> String {
    let message = match message.rfind(" at line ") {
        Some(at)
            if message[at + " at line ".len()..]
                .split(" column ")
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            &message[..at]
        }
        _ => message,
    };
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("struct ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "struct ".len()..];
        let end = after
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        out.push_str(match &after[..end] {
            "SerRule" => "a rule object (a map of keys)",
            _ => "a map of keys",
        });
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

fn invalid(file: &str, text: &str, message: String, labels: Vec<LabeledSpan>) -> LoadError {
    LoadError::Invalid(Box::new(RuleFileError {
        file: file.to_string(),
        message,
        src: NamedSource::new(file, text.to_string()),
        labels,
    }))
}

/// A YAML syntax or schema error of `file`, labelled where the parser stopped.
fn yaml_invalid(file: &str, text: &str, e: &yaml::YamlError) -> LoadError {
    let message = readable(&super::schema::explain_forms(&e.message));
    // serde's path (`match.fed-by: …`) ends at the rule object; a form's error names its key.
    let at_key = super::schema::form_key(&message).and_then(|key| {
        let (path, _) = message.split_once(": ")?;
        let mut path: Vec<String> = path.split('.').map(str::to_string).collect();
        path.push(key.to_string());
        yaml::locate(text, &path).filter(|(_, len)| *len == key.len())
    });
    let (off, len) = at_key.unwrap_or((e.offset.unwrap_or(0).min(text.len()), 0));
    invalid(
        file,
        text,
        message,
        vec![LabeledSpan::new(Some("here".into()), off, len)],
    )
}

fn label_at(text: &str, path: &[String], message: &str) -> LabeledSpan {
    let (off, len) = yaml::locate(text, path).unwrap_or((0, 0));
    LabeledSpan::new(Some(message.to_string()), off, len)
}

/// The shared match fragments of the built-in `rules/utils.yaml` (empty if it does not parse:
/// [`RuleSet::builtin`] reports that).
fn builtin_utils() -> Arc<Utils> {
    static UTILS: OnceLock<Arc<Utils>> = OnceLock::new();
    UTILS
        .get_or_init(|| {
            Arc::new(
                builtin::UTILS
                    .and_then(|t| yaml::from_str::<Utils>(t).ok())
                    .unwrap_or_default(),
            )
        })
        .clone()
}

/// Parses `utils.yaml` (name → rule object) into `into`.
fn add_utils(
    file: &str,
    text: &str,
    cache: &ParseCache,
    into: &mut Utils,
) -> Result<(), LoadError> {
    let parsed: Utils = cache
        .parse(text)
        .map_err(|e| yaml_invalid(file, text, &e))?;
    into.extend(parsed);
    Ok(())
}

/// Parses and compiles one rule file with the built-in match fragments. `file` is the name shown
/// in errors; `expected_id` is the file name without `.yaml` when the rule came from a file.
pub fn load_rule_text(
    file: &str,
    text: &str,
    expected_id: Option<&str>,
    builtin: bool,
) -> Result<Rule, LoadError> {
    load_rule_with_utils(file, text, expected_id, builtin, &builtin_utils())
}

/// [`load_rule_text`] with these shared match fragments (the rule's own `utils:` shadow them).
fn load_rule_with_utils(
    file: &str,
    text: &str,
    expected_id: Option<&str>,
    builtin: bool,
    shared: &Arc<Utils>,
) -> Result<Rule, LoadError> {
    let parsed: RuleFile = yaml::from_str(text).map_err(|e| yaml_invalid(file, text, &e))?;
    compile_parsed(file, text, expected_id, builtin, shared, parsed)
}

/// A rule folder's rule file, its YAML parse read from `cache` when it has it.
fn load_rule_cached(
    file: &str,
    text: &str,
    id: &str,
    shared: &Arc<Utils>,
    cache: &ParseCache,
) -> Result<Rule, LoadError> {
    let parsed: RuleFile = cache
        .parse(text)
        .map_err(|e| yaml_invalid(file, text, &e))?;
    compile_parsed(file, text, Some(id), false, shared, parsed)
}

fn compile_parsed(
    file: &str,
    text: &str,
    expected_id: Option<&str>,
    builtin: bool,
    shared: &Arc<Utils>,
    mut parsed: RuleFile,
) -> Result<Rule, LoadError> {
    let tests = RuleTests::parsed(parsed.tests.take().unwrap_or_default());
    let text = Cow::Owned(text.to_string());
    compile_rule(file, text, expected_id, builtin, shared, parsed, tests)
}

/// Loads one built-in rule from its build-time JSON, its tests left unparsed; from its text when it
/// has no JSON (not valid YAML) or the JSON does not deserialize, for the located error.
fn load_builtin_rule(builtin: &BuiltinRule, shared: &Arc<Utils>) -> Result<Rule, LoadError> {
    let &BuiltinRule { file, text, json } = builtin;
    let id = file.trim_end_matches(".yaml");
    let file = format!("rules/{file}");
    let parsed =
        json.and_then(|(body, tests)| Some((yaml::from_transcoding::<RuleFile>(body)?, tests)));
    match parsed {
        Some((parsed, tests)) => compile_rule(
            &file,
            Cow::Borrowed(text),
            Some(id),
            true,
            shared,
            parsed,
            RuleTests::deferred(tests),
        ),
        None => load_rule_with_utils(&file, text, Some(id), true, shared),
    }
}

/// Checks and compiles a parsed rule file (`text` is its text, for error labels and the rule's
/// source). Test cases are checked when `tests` are parsed already.
fn compile_rule(
    file: &str,
    text: Cow<'static, str>,
    expected_id: Option<&str>,
    builtin: bool,
    shared: &Arc<Utils>,
    parsed: RuleFile,
    tests: RuleTests,
) -> Result<Rule, LoadError> {
    let utils = if parsed.utils.is_empty() {
        shared.clone()
    } else {
        let mut all = (**shared).clone();
        all.extend(parsed.utils.clone());
        Arc::new(all)
    };
    let mut errors: Vec<CompileError> = Vec::new();
    let mut err = |path: &[&str], message: String| {
        errors.push(CompileError {
            path: path.iter().map(|s| s.to_string()).collect(),
            message,
        });
    };
    if let Some(want) = expected_id {
        if parsed.id != want {
            err(
                &["id"],
                format!(
                    "id `{}` differs from the file name `{want}.yaml`",
                    parsed.id
                ),
            );
        }
    }
    let kebab = !parsed.id.is_empty()
        && parsed
            .id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !kebab {
        err(&["id"], format!("id `{}` must be kebab-case", parsed.id));
    }
    if builtin {
        for (key, present) in [
            ("description", parsed.description.is_some()),
            ("why", parsed.why.is_some()),
            ("category", parsed.category.is_some()),
            ("help", parsed.help.is_some()),
        ] {
            if !present {
                err(&[key], format!("built-in rules need `{key}:`"));
            }
        }
        if parsed.applies_to.as_ref().is_none_or(|a| a.units.is_none()) {
            err(
                &["id"],
                "built-in rules name the compute units they concern: `applies-to: { units: [ane, gpu, cpu] }`"
                    .to_string(),
            );
        }
        if parsed
            .applies_to
            .as_ref()
            .is_none_or(|a| a.programs.is_none())
        {
            err(
                &["id"],
                "built-in rules name the programs they concern: `applies-to: { programs: [mil, coreai] }` (mil: Core ML's, coreai: Core AI's)"
                    .to_string(),
            );
        }
    }
    // Target.
    let entity_kind = parsed
        .matcher
        .kind
        .as_deref()
        .map(|k| entity_kind_named(k).map_err(|message| err(&["match", "kind"], message)));
    // An entity rule whose kind is unknown (reported above) is compiled as an empty node rule
    // whose placeholders are not checked.
    let entity_rule = entity_kind.is_some();
    let (target, mut vars) = match entity_kind {
        Some(Err(())) => (Target::Nodes(Matcher::All(Vec::new())), Vars::new()),
        Some(Ok(kind)) => {
            let mut c = EntityCompiler::new("match", kind, utils.clone());
            let er = c.rule(&parsed.matcher);
            errors.extend(c.errors);
            let mut vars = Vars::new();
            let on_target = parsed.matcher.target.as_ref().map(|t| {
                let mut c = Compiler::at("match");
                let tm = c.target(t, &mut vars);
                errors.extend(c.errors);
                tm
            });
            (Target::Entity(er, on_target), vars)
        }
        None => {
            let mut c = Compiler::with_utils("match", utils.clone());
            let (m, vars) = c.rule(&parsed.matcher, false);
            errors.extend(c.errors);
            (Target::Nodes(m), vars)
        }
    };
    let group_by = parsed.group_by.as_ref().and_then(|raw| {
        let mut err = |message: String| {
            errors.push(CompileError {
                path: vec!["group-by".into()],
                message,
            })
        };
        if entity_rule || parsed.matcher.origin.is_some() {
            err(
                "`group-by:` groups node findings; entity (`kind:`) and `origin:` rules report once already"
                    .into(),
            );
            return None;
        }
        let name = raw.strip_prefix('$').unwrap_or(raw);
        match vars.get(name) {
            Some(VarKind::Value | VarKind::Node | VarKind::State) => {
                vars.insert(GROUP_VAR.to_string(), VarKind::Group);
                Some(name.to_string())
            }
            Some(other) => {
                err(format!(
                    "`{raw}` is {}: group by a value, an op or a state",
                    other.as_str()
                ));
                None
            }
            None => {
                err(format!(
                    "`{raw}` is not a capture every match binds (known: {})",
                    vars.keys()
                        .map(|k| format!("${k}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                None
            }
        }
    });
    let template = |key: &str, t: &str, errors: &mut Vec<CompileError>| -> Option<Template> {
        match Template::parse(t) {
            Ok(tpl) => {
                let errs = match &target {
                    Target::Entity(er, on_target) => super::entity_rule::check_placeholders(
                        er,
                        &tpl.placeholders(),
                        on_target.is_some(),
                    ),
                    Target::Nodes(_) if entity_rule => Vec::new(),
                    Target::Nodes(_) => tpl.check(&vars),
                };
                for e in errs {
                    errors.push(CompileError {
                        path: key.split('.').map(str::to_string).collect(),
                        message: e,
                    });
                }
                Some(tpl)
            }
            Err(e) => {
                errors.push(CompileError {
                    path: key.split('.').map(str::to_string).collect(),
                    message: e,
                });
                None
            }
        }
    };
    let message = template("message", &parsed.message, &mut errors);
    let help = parsed
        .help
        .as_ref()
        .and_then(|h| template("help", h, &mut errors));
    let fix = match &parsed.fix {
        None => None,
        Some(f) => {
            let (kind, title, applicability, when) = match f {
                SerFix::Name(n) => (n.clone(), None, None, None),
                SerFix::Full(full) => (
                    full.kind.clone(),
                    full.title.clone(),
                    full.applicability,
                    full.when.as_ref(),
                ),
            };
            let when = when.map(|w| {
                let mut c = Compiler::with_utils("fix", utils.clone());
                let (m, _) = c.nested_rule("when", w);
                errors.extend(c.errors);
                m
            });
            match fix_kind(&kind) {
                None => {
                    errors.push(CompileError {
                        path: vec!["fix".into()],
                        message: format!(
                            "unknown fix `{kind}` (known: {})",
                            super::fixes::fix_kind_names()
                        ),
                    });
                    None
                }
                Some(fk) => {
                    if !entity_rule && !vars.values().any(|k| fk.needs.contains(k)) {
                        errors.push(CompileError {
                            path: vec!["fix".into()],
                            message: format!(
                                "fix `{kind}` needs the match to capture {}",
                                fk.needs
                                    .iter()
                                    .map(|k| k.as_str())
                                    .collect::<Vec<_>>()
                                    .join(" or ")
                            ),
                        });
                    }
                    let title_text = title.unwrap_or_else(|| fk.default_title.to_string());
                    template("fix.title", &title_text, &mut errors).map(|t| RuleFix {
                        kind: kind.clone(),
                        title: t,
                        applicability: applicability.unwrap_or(fk.default_applicability),
                        when,
                    })
                }
            }
        }
    };
    let mut severity_when = Vec::new();
    for (i, sw) in parsed.severity_when.iter().enumerate() {
        let at = |key: &str| vec!["severity-when".to_string(), i.to_string(), key.to_string()];
        let applies = sw
            .applies_to
            .as_ref()
            .map(|a| applies::compile(a, &at("applies-to"), &mut errors));
        if sw.matcher.is_none() && applies.is_none() {
            errors.push(CompileError {
                path: at("severity"),
                message: "a `severity-when` entry needs `match:` or `applies-to:`".into(),
            });
        }
        if entity_rule && sw.matcher.is_some() {
            errors.push(CompileError {
                path: vec!["severity-when".into()],
                message:
                    "entity (`kind:`) rules have one severity per run (`applies-to:` entries only)"
                        .into(),
            });
            break;
        }
        let m = sw.matcher.as_ref().map(|matcher| {
            let mut c = Compiler::with_utils("severity-when", utils.clone());
            let (m, _) = c.nested_rule(&i.to_string(), matcher);
            errors.extend(c.errors);
            m
        });
        severity_when.push((sw.severity, applies, m));
    }
    let applies_to = parsed
        .applies_to
        .as_ref()
        .map(|a| applies::compile(a, &["applies-to".to_string()], &mut errors))
        .unwrap_or_default();
    let mut help_when = Vec::new();
    for (i, hw) in parsed.help_when.iter().enumerate() {
        let at = |key: &str| vec!["help-when".to_string(), i.to_string(), key.to_string()];
        let a = hw
            .applies_to
            .as_ref()
            .map(|a| applies::compile(a, &at("applies-to"), &mut errors))
            .unwrap_or_default();
        if hw.matcher.is_none() && hw.applies_to.is_none() {
            errors.push(CompileError {
                path: at("help"),
                message: "a `help-when` entry needs `match:` or `applies-to:`".into(),
            });
        }
        let m = hw
            .matcher
            .as_ref()
            .map(|m| when_match(&target, m, "help-when", i, &utils, &mut errors));
        if let Some(t) = template(&format!("help-when.{i}.help"), &hw.help, &mut errors) {
            help_when.push((a, m, t));
        }
    }
    let mut message_when = Vec::new();
    for (i, mw) in parsed.message_when.iter().enumerate() {
        let m = when_match(&target, &mw.matcher, "message-when", i, &utils, &mut errors);
        let key = format!("message-when.{i}.message");
        if let Some(t) = template(&key, &mw.message, &mut errors) {
            message_when.push((m, t));
        }
    }
    if !parsed.message_when.is_empty() && parsed.matcher.origin.is_some() {
        errors.push(CompileError {
            path: vec!["message-when".into()],
            message: "an `origin:` rule's finding stands for a region: give it one `message`"
                .into(),
        });
    }
    let region_scope = match parsed.region {
        Some(scope) if scope != RegionScope::Connected && parsed.matcher.origin.is_none() => {
            errors.push(CompileError {
                path: vec!["region".into()],
                message: "`region:` says what a finding of an `origin:` rule stands for; this rule has no `origin:`".into(),
            });
            RegionScope::Connected
        }
        scope => scope.unwrap_or(RegionScope::Connected),
    };
    if !parsed.help_when.is_empty() && parsed.help.is_none() {
        errors.push(CompileError {
            path: vec!["help-when".into()],
            message: "`help-when:` needs a `help:` for the other runs".into(),
        });
    }
    if let Some(cases) = tests.parsed.get() {
        errors.extend(test_case_errors(cases, builtin && !entity_rule));
    }
    if !errors.is_empty() {
        let labels = errors
            .iter()
            .map(|e| label_at(&text, &e.path, &e.message))
            .collect();
        let message = match errors.as_slice() {
            [one] => format!("`{}`: {}", one.path.join("."), one.message),
            many => format!("{} problems in rule `{}`", many.len(), parsed.id),
        };
        return Err(invalid(file, &text, message, labels));
    }
    let (potential, inputs_only, node_matchers) = match &target {
        Target::Nodes(m) => (m.potential_ops(), m.inputs_only(), Some(m.for_node_kinds())),
        Target::Entity(..) => (None, false, None),
    };
    let node_guards = match (&target, &node_matchers) {
        (Target::Nodes(_), Some(m)) => Some(NodeGuards::of(potential.is_some(), m)),
        _ => None,
    };
    Ok(Rule {
        id: parsed.id,
        title: parsed.title,
        severity: parsed.severity,
        category: parsed.category.unwrap_or_default(),
        status: parsed.status.unwrap_or(Status::Stable),
        since: parsed.since,
        seen_on: parsed.seen_on,
        not_seen_on: parsed.not_seen_on,
        references: parsed.references,
        description: parsed.description,
        why: parsed.why,
        example: parsed.example,
        fix_safety: parsed.fix_safety,
        message_text: parsed.message,
        help_text: parsed.help,
        fix,
        tests,
        source: RuleSource {
            path: PathBuf::from(file),
            text,
            builtin,
        },
        target,
        message: message.unwrap_or_else(Template::empty),
        help,
        potential,
        inputs_only,
        node_matchers,
        node_guards,
        severity_when,
        group_by,
        applies_to,
        help_when,
        message_when,
        region_scope,
    })
}

/// A `help-when:` or `message-when:` entry's `match:` (entry `i` of `key`): over the entity in an
/// entity rule, else over the node the finding is at.
fn when_match(
    target: &Target,
    matcher: &SerRule,
    key: &str,
    i: usize,
    utils: &Arc<Utils>,
    errors: &mut Vec<CompileError>,
) -> HelpAt {
    match target {
        // An entity rule's entry selects by the entity's properties.
        Target::Entity(er, _) => {
            let at = [key.to_string(), i.to_string(), "match".to_string()];
            let mut c = EntityCompiler::nested_at(&at, er.kind, utils.clone());
            let t = c.test(matcher);
            errors.extend(c.errors);
            HelpAt::Entity(t)
        }
        Target::Nodes(_) => {
            let mut c = Compiler::with_utils(key, utils.clone());
            let (m, _) = c.nested_rule(&i.to_string(), matcher);
            errors.extend(c.errors);
            HelpAt::Node(m)
        }
    }
}

/// What is wrong with a rule's test cases; `need_both` when the rule needs a valid and an invalid one.
fn test_case_errors(tests: &SerTests, need_both: bool) -> Vec<CompileError> {
    let mut errors = Vec::new();
    for (list, cases) in [("valid", &tests.valid), ("invalid", &tests.invalid)] {
        for (i, case) in cases.iter().enumerate() {
            if case.mil.is_some() == case.model.is_some() {
                errors.push(CompileError {
                    path: vec!["tests".into(), list.into(), i.to_string()],
                    message: "a test case gives either `mil:` or `model:`".into(),
                });
            }
        }
    }
    if need_both && (tests.valid.is_empty() || tests.invalid.is_empty()) {
        errors.push(CompileError {
            path: vec!["tests".into()],
            message: "built-in rules need at least one valid and one invalid test".into(),
        });
    }
    errors
}

/// The rules in effect, sorted by id, with the id redirects.
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    /// Shared: the built-in rules are compiled once per process ([`RuleSet::builtin`]).
    rules: Vec<Arc<Rule>>,
    redirects: BTreeMap<String, String>,
    /// Shared match fragments (built-in `utils.yaml` plus each rule folder's).
    utils: Arc<Utils>,
}

impl RuleSet {
    /// The built-in rules (embedded at build time), compiled once per process: a library user
    /// checking model after model (the Python package, the tests) does not compile them again.
    pub fn builtin() -> Result<RuleSet, LoadError> {
        static BUILTIN: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
        if let Some(set) = BUILTIN.get() {
            return Ok(set.clone());
        }
        let set = RuleSet::compile_builtin()?;
        Ok(BUILTIN.get_or_init(|| set).clone())
    }

    fn compile_builtin() -> Result<RuleSet, LoadError> {
        let mut set = RuleSet::default();
        let mut errors = Vec::new();
        if let Some(text) = builtin::UTILS {
            let mut utils = Utils::new();
            match add_utils("rules/utils.yaml", text, &ParseCache::none(), &mut utils) {
                Ok(()) => set.utils = Arc::new(utils),
                Err(e) => errors.push(e),
            }
        }
        let utils = set.utils.clone();
        // Parsed in parallel: parsing is most of a small model's check.
        let loaded: Vec<_> = builtin::BUILTIN_RULES
            .par_iter()
            .map(|rule| load_builtin_rule(rule, &utils))
            .collect();
        for result in loaded {
            match result {
                Ok(r) => set.rules.push(Arc::new(r)),
                Err(e) => errors.push(e),
            }
        }
        if let Some(text) = builtin::REDIRECTS {
            match yaml::from_str::<BTreeMap<String, String>>(text) {
                Ok(r) => set.redirects = r,
                Err(e) => errors.push(yaml_invalid("rules/redirects.yaml", text, &e)),
            }
        }
        finish(set, errors)
    }

    /// The built-ins plus every `*.yaml` rule in `dirs` (a folder's `redirects.yaml` adds
    /// redirects). Duplicate ids are rejected.
    pub fn load(dirs: &[PathBuf]) -> Result<RuleSet, LoadError> {
        RuleSet::load_cached(dirs, &CacheDir::Off)
    }

    /// [`RuleSet::load`] with the folders' YAML parses kept in `cache` between runs.
    pub fn load_cached(dirs: &[PathBuf], cache: &CacheDir) -> Result<RuleSet, LoadError> {
        let mut set = RuleSet::builtin()?;
        let mut errors = Vec::new();
        let cache = if dirs.is_empty() {
            ParseCache::none()
        } else {
            ParseCache::open(cache.resolve().as_deref())
        };
        for dir in dirs {
            if let Err(e) = set.add_dir(dir, &cache, &mut errors) {
                errors.push(e);
            }
        }
        cache.save();
        finish(set, errors)
    }

    /// Only the rules in `dirs`, without the built-ins (for `test-rules DIR`).
    pub fn load_dirs_only(dirs: &[PathBuf]) -> Result<RuleSet, LoadError> {
        let mut set = RuleSet {
            utils: builtin_utils(),
            ..RuleSet::default()
        };
        let mut errors = Vec::new();
        for dir in dirs {
            if let Err(e) = set.add_dir(dir, &ParseCache::none(), &mut errors) {
                errors.push(e);
            }
        }
        finish(set, errors)
    }

    /// A set from already loaded rules (duplicates rejected).
    pub fn from_rules(rules: Vec<Rule>) -> Result<RuleSet, LoadError> {
        let mut set = RuleSet::default();
        for r in rules {
            set.push(r);
        }
        finish(set, Vec::new())
    }

    /// Adds a rule; a second rule with an id already loaded is refused by [`finish`].
    fn push(&mut self, rule: Rule) {
        self.rules.push(Arc::new(rule));
    }

    fn add_dir(
        &mut self,
        dir: &Path,
        cache: &ParseCache,
        errors: &mut Vec<LoadError>,
    ) -> Result<(), LoadError> {
        let io = |e: std::io::Error| LoadError::Io {
            path: dir.to_path_buf(),
            message: e.to_string(),
        };
        let mut files: Vec<PathBuf> = if dir.is_file() {
            vec![dir.to_path_buf()]
        } else {
            std::fs::read_dir(dir)
                .map_err(io)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
                .collect()
        };
        // Redirects and shared fragments first: the folder's rules use them.
        // One folder's files: their names order them (comparing whole paths costs more than
        // reading a rule).
        files.sort_by_cached_key(|p| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let name = p
                .file_name()
                .unwrap_or_default()
                .as_encoded_bytes()
                .to_vec();
            (stem != "redirects" && stem != "utils", name)
        });
        for path in files {
            let text = match crate::read::limits::read_capped(&path) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(t) => t,
                    Err(_) => {
                        errors.push(LoadError::Io {
                            path: path.clone(),
                            message: "not UTF-8 text".into(),
                        });
                        continue;
                    }
                },
                Err(e) => {
                    errors.push(LoadError::Io {
                        path: path.clone(),
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            let shown = path.display().to_string();
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            if stem == "redirects" {
                match cache.parse::<BTreeMap<String, String>>(&text) {
                    Ok(r) => self.redirects.extend(r),
                    Err(e) => errors.push(yaml_invalid(&shown, &text, &e)),
                }
                continue;
            }
            if stem == "utils" {
                let mut utils = (*self.utils).clone();
                match add_utils(&shown, &text, cache, &mut utils) {
                    Ok(()) => self.utils = Arc::new(utils),
                    Err(e) => errors.push(e),
                }
                continue;
            }
            match load_rule_cached(&shown, &text, &stem, &self.utils, cache) {
                Ok(r) => self.push(r),
                Err(e) => errors.push(e),
            }
        }
        Ok(())
    }

    /// Every rule, sorted by id.
    pub fn rules(&self) -> &[Arc<Rule>] {
        &self.rules
    }

    /// The rule with this id (after redirects).
    pub fn get(&self, id: &str) -> Option<&Rule> {
        let id = self.resolve(id);
        self.rules.iter().find(|r| r.id == id).map(Arc::as_ref)
    }

    /// The current id for a possibly renamed one.
    pub fn resolve<'a>(&'a self, id: &'a str) -> &'a str {
        self.redirects.get(id).map_or(id, String::as_str)
    }

    /// Old id → new id.
    pub fn redirects(&self) -> &BTreeMap<String, String> {
        &self.redirects
    }

    /// Keeps only the rules for which `keep` holds.
    pub fn retain(&mut self, mut keep: impl FnMut(&Rule) -> bool) {
        self.rules.retain(|r| keep(r));
    }

    /// Metadata of every rule, for reporters.
    pub fn infos(&self) -> Vec<RuleInfo> {
        self.rules.iter().map(|r| r.info()).collect()
    }
}

fn finish(mut set: RuleSet, mut errors: Vec<LoadError>) -> Result<RuleSet, LoadError> {
    // Stable: of two rules with one id, the one loaded first comes first.
    set.rules.sort_by(|a, b| a.id.cmp(&b.id));
    for pair in set.rules.windows(2) {
        if pair[0].id == pair[1].id {
            errors.push(LoadError::Duplicate {
                id: pair[1].id.clone(),
                first: pair[0].source.path.display().to_string(),
                second: pair[1].source.path.display().to_string(),
            });
        }
    }
    match errors.len() {
        0 => Ok(set),
        1 => Err(errors.remove(0)),
        _ => Err(LoadError::Many { errors }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_rule_loads_whole_from_its_text_as_from_its_json() {
        let utils = builtin_utils();
        assert!(builtin::BUILTIN_RULES.len() >= 40);
        for rule in builtin::BUILTIN_RULES {
            let &BuiltinRule { file, text, json } = rule;
            let id = file.trim_end_matches(".yaml");
            // From the YAML text, with the test cases checked as for a rule folder's rule.
            let whole =
                load_rule_with_utils(&format!("rules/{file}"), text, Some(id), true, &utils)
                    .unwrap_or_else(|e| panic!("{file}: {e:?}"));
            let (body, tests) = json.unwrap_or_else(|| panic!("{file}: transcoded"));
            let mut recombined: serde_json::Value = serde_json::from_str(body).expect("JSON");
            let tests: serde_json::Value = serde_json::from_str(tests).expect("JSON");
            if !tests.is_null() {
                recombined
                    .as_object_mut()
                    .expect("a mapping")
                    .insert("tests".into(), tests);
            }
            assert_eq!(
                recombined,
                yaml::from_str::<serde_json::Value>(text).expect("YAML")
            );
            let from_json = load_builtin_rule(rule, &utils).expect("loads");
            assert_eq!(
                format!("{:?}", from_json.tests()),
                format!("{:?}", whole.tests()),
                "{file}"
            );
        }
    }
}
