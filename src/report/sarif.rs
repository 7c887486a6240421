//! `--output-format sarif`: one SARIF 2.1.0 log with one run, for editors and GitHub code scanning.
//!
//! Text models (`.mlmodelc`, bare `.mil`) get a region on the `model.mil` line of the op. Protobuf
//! models (`.mlpackage`, bare `.mlmodel`) point at the `model.mlmodel` file: it is binary, so the
//! region is the whole file in bytes, and `startLine` 1, since GitHub code scanning reads only
//! line regions (ossf/scorecard#1458 did the same); every result names its sub-model, function and
//! op through `logicalLocations`. So does a Core AI asset's `main.mlirb`. For both, the op's line
//! and column in `coreml-lint dump`'s text are the result's `dumpLine` / `dumpColumn` properties. Artifact URIs are relative to the folder the
//! tool ran in (`%SRCROOT%`). Nothing in the output depends on the time of the run.
//!
//! A run compared with a baseline marks every result `baselineState: new`, and adds the baselined
//! findings found again (`unchanged`, with an external suppression: they are not reported) and
//! those that are gone (`absent`, a `pass` result at the baseline file).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde_json::{json, Value};
use serde_sarif::sarif::{
    ArtifactChange, ArtifactContent, ArtifactLocation, Fix, Invocation, Location, LogicalLocation,
    Message, MultiformatMessageString, Notification, PhysicalLocation, PropertyBag, Region,
    Replacement, ReportingConfiguration, ReportingDescriptor, Result as SarifResult, ResultLevel,
    Run, Sarif, Tool, ToolComponent,
};

use crate::baseline::{BaselineOutcome, Comparison, Entry};
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::{Applicability, Finding, Severity};
use crate::ir::{Model, Span};
use crate::rules::RuleInfo;

/// The `uriBaseId` every relative artifact URI is resolved against: the folder the tool ran in.
pub(crate) const SRCROOT: &str = "%SRCROOT%";

/// The `partialFingerprints` key of the finding identity hash (bump the version if the inputs change).
pub const FINGERPRINT_KEY: &str = "coremlLint/v1";

const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// Renders the run as a pretty-printed SARIF 2.1.0 document (with a trailing newline).
///
/// `rules` is every rule that could have fired (the whole registry); `base` is the folder relative
/// URIs start from, normally the current folder.
///
/// `fixed` maps a text model's `model.mil` to its whole fixed text, carried as the fix's replacement.
pub fn render(
    run: &CheckRun,
    rules: &[RuleInfo],
    base: &Path,
    fixed: &BTreeMap<PathBuf, String>,
) -> String {
    let log = to_sarif(run, rules, base, fixed);
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

/// Builds the SARIF log (see [`render`]).
pub(crate) fn to_sarif(
    run: &CheckRun,
    rules: &[RuleInfo],
    base: &Path,
    fixed: &BTreeMap<PathBuf, String>,
) -> Sarif {
    let mut sorted: Vec<&RuleInfo> = rules.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    sorted.dedup_by(|a, b| a.id == b.id);
    let index: BTreeMap<&str, i64> = sorted
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i64::try_from(i).unwrap_or(i64::MAX)))
        .collect();

    let mut results: Vec<SarifResult> = run
        .findings_with_models()
        .map(|(model, f)| result(model, f, index.get(f.rule.as_str()).copied(), base, fixed))
        .collect();
    if let Some(BaselineOutcome::Compared(c)) = &run.baseline {
        for r in &mut results {
            r.baseline_state = Some(json!("new"));
        }
        results.extend(baselined_results(run, c, &index, base, fixed));
    }

    let notifications = notifications(run, base);
    let failed = run
        .models
        .iter()
        .any(|m| matches!(m.outcome, ModelOutcome::Failed(_)));
    let mut invocation = Invocation::builder().execution_successful(!failed).build();
    invocation.tool_execution_notifications = (!notifications.is_empty()).then_some(notifications);
    // The run's settings: the target when given, and the compute units always.
    let mut settings: Vec<(&'static str, Value)> = run
        .target
        .as_ref()
        .map(|t| ("target", super::json::target(t)))
        .into_iter()
        .collect();
    settings.push(("computeUnits", Value::from(run.compute_units.token())));
    invocation.properties = Some(bag(settings));

    let driver = ToolComponent::builder()
        .name("coreml-lint")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .information_uri(env!("CARGO_PKG_REPOSITORY"))
        .rules(sorted.iter().map(|r| descriptor(r)).collect::<Vec<_>>())
        .build();

    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .invocations(vec![invocation])
        .original_uri_base_ids(BTreeMap::from([(SRCROOT.to_string(), base_location())]))
        .column_kind(json!("utf16CodeUnits"))
        .results(results)
        .build();
    Sarif::builder()
        .schema(SCHEMA_URI)
        .version(json!("2.1.0"))
        .runs(vec![run])
        .build()
}

/// SARIF's name for a severity.
pub(crate) fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// [`level`] as a result's typed level.
fn result_level(s: Severity) -> ResultLevel {
    match s {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
        Severity::Info => ResultLevel::Note,
    }
}

fn text(s: &str) -> Message {
    Message {
        text: Some(s.to_string()),
        ..Default::default()
    }
}

fn bag(entries: impl IntoIterator<Item = (&'static str, Value)>) -> PropertyBag {
    PropertyBag {
        additional_properties: entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        ..Default::default()
    }
}

fn descriptor(r: &RuleInfo) -> ReportingDescriptor {
    let mut help_text = String::new();
    let mut help_md = String::new();
    for (title, body) in [("Why", &r.why), ("How to fix", &r.fix_text)] {
        let body = body.trim();
        if body.is_empty() {
            continue;
        }
        if !help_text.is_empty() {
            help_text.push_str("\n\n");
            help_md.push_str("\n\n");
        }
        help_text.push_str(&format!("{title}: {body}"));
        help_md.push_str(&format!("**{title}.** {body}"));
    }
    if !r.references.is_empty() {
        help_md.push_str("\n\nReferences:\n");
        for reference in &r.references {
            help_md.push_str(&format!("\n- {reference}"));
        }
    }
    let mut props = vec![
        ("category", json!(r.category)),
        ("seen-on", json!(r.seen_on)),
        ("references", json!(r.references)),
    ];
    if let Some(fix) = &r.fix {
        props.push(("fix", json!(fix)));
    }
    let mut properties = bag(props);
    properties.tags = Some(vec!["coreml".into(), r.category.clone()]);
    let full = if r.description.trim().is_empty() {
        &r.title
    } else {
        r.description.trim()
    };
    let mut d = ReportingDescriptor::builder()
        .id(r.id.clone())
        .short_description(plain(&r.title))
        .full_description(plain(full))
        .properties(properties)
        .build();
    let name = readable_name(&r.id);
    d.name = (name != r.id).then_some(name);
    d.help = (!help_text.is_empty()).then(|| {
        MultiformatMessageString::builder()
            .text(help_text)
            .markdown(help_md)
            .build()
    });
    d.default_configuration = r.default_severity.map(|s| ReportingConfiguration {
        level: Some(json!(level(s))),
        ..Default::default()
    });
    d
}

/// A rule's `name`, readable and distinct from its id as SARIF asks (SARIF1001):
/// `state-full-extent-write` → `StateFullExtentWrite`.
fn readable_name(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect()
}

fn plain(s: &str) -> MultiformatMessageString {
    MultiformatMessageString::builder().text(s).build()
}

fn result(
    model: &Model,
    f: &Finding,
    rule_index: Option<i64>,
    base: &Path,
    fixed: &BTreeMap<PathBuf, String>,
) -> SarifResult {
    let artifact = artifact(f.file.as_ref().unwrap_or(&model.source.file), base);
    // Lines only where the file has them: a binary `model.mlmodel` gets the region of the whole
    // file in bytes, and the op is named by the logical locations.
    let region = match f.span {
        // A finding about another file of the model (a pointer `metadata.json`): all of it.
        _ if f.file.is_some() => f.file.as_deref().and_then(whole_binary_file),
        Some(span) if model.source.is_file => Some(region_of(&model.source.text, span)),
        // A finding about the whole text file (a bundle fault beside it): all of its lines.
        _ if model.source.is_file => Some(whole_text_file(&model.source.text)),
        _ => whole_binary_file(&model.source.file),
    };
    let location = Location {
        physical_location: Some(PhysicalLocation {
            artifact_location: Some(artifact.clone()),
            region: region.clone(),
            ..Default::default()
        }),
        logical_locations: logical_locations(f),
        ..Default::default()
    };
    let related: Vec<Location> = if model.source.is_file {
        f.labels
            .iter()
            .enumerate()
            .map(|(i, l)| Location {
                id: i64::try_from(i).ok(),
                physical_location: Some(PhysicalLocation {
                    artifact_location: Some(artifact.clone()),
                    region: Some(region_of(&model.source.text, l.span)),
                    ..Default::default()
                }),
                message: Some(text(&l.text)),
                ..Default::default()
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut props = vec![("model", json!(relative_uri(&f.path, base).0))];
    // A program read from a binary file (a package's protobuf, a Core AI asset's bytecode): the
    // op's line and column in what `coreml-lint dump` prints, as the JSON's `dump_line`.
    if let Some((line, column)) = super::location::place(model, f).dump {
        props.push(("dumpLine", json!(line)));
        props.push(("dumpColumn", json!(column)));
    }
    if let Some(sub) = &f.sub_model {
        props.push((
            "subModel",
            json!({"position": sub.position, "name": sub.name}),
        ));
    }
    if let Some(state) = &f.state {
        props.push(("state", json!(state)));
    }
    if let Some(c) = &f.covered {
        props.push(("opsCovered", json!(c.count())));
    }
    let mut out = SarifResult::builder()
        .message(message(f))
        .rule_id(f.rule.clone())
        .level(result_level(f.severity))
        .locations(vec![location])
        .partial_fingerprints(BTreeMap::from([(
            FINGERPRINT_KEY.to_string(),
            fingerprint(f),
        )]))
        .properties(bag(props))
        .build();
    out.rule_index = rule_index;
    out.related_locations = (!related.is_empty()).then_some(related);
    out.fixes = f.fix.as_ref().map(|fix| {
        // A fix that also edits a weight file is not the text replacement alone.
        let whole_file = fixed
            .get(&model.source.file)
            .filter(|_| fix.plan.as_ref().is_none_or(|p| p.weights.is_empty()))
            .map(|after| (model.source.text.encode_utf16().count(), after.as_str()));
        // A binary file's `startLine` 1 is no place to insert text.
        let at = region.filter(|_| model.source.is_file);
        vec![fix_of(fix, artifact, at, whole_file)]
    });
    out
}

/// The baselined findings found again (`unchanged`, suppressed: not reported) and the ones gone
/// (`absent`: `pass` results at the baseline file, where they were recorded).
fn baselined_results(
    run: &CheckRun,
    c: &Comparison,
    index: &BTreeMap<&str, i64>,
    base: &Path,
    fixed: &BTreeMap<PathBuf, String>,
) -> Vec<SarifResult> {
    let justification = format!("in the baseline {}", c.file.display());
    let mut out = Vec::new();
    for f in &c.unchanged {
        let model = run
            .checked()
            .map(|(m, _)| m)
            .find(|m| m.path == f.path && m.sub_model == f.sub_model);
        let Some(model) = model else { continue };
        let mut r = result(model, f, index.get(f.rule.as_str()).copied(), base, fixed);
        r.baseline_state = Some(json!("unchanged"));
        r.suppressions = Some(vec![serde_sarif::sarif::Suppression {
            guid: None,
            justification: Some(justification.clone()),
            kind: json!("external"),
            location: None,
            properties: None,
            status: Some(json!("accepted")),
        }]);
        out.push(r);
    }
    for e in &c.fixed {
        out.push(absent_result(
            e,
            &c.file,
            index.get(e.rule.as_str()).copied(),
            base,
        ));
    }
    out
}

/// A baselined key no longer found: a `pass` result at line 1 of the baseline file.
fn absent_result(e: &Entry, file: &Path, rule_index: Option<i64>, base: &Path) -> SarifResult {
    let at = Location {
        physical_location: Some(PhysicalLocation {
            artifact_location: Some(artifact(file, base)),
            region: Some(Region {
                start_line: Some(1),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let scope = [e.function.as_deref(), e.op.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("/");
    let scope = if scope.is_empty() {
        String::new()
    } else {
        format!(" [{scope}]")
    };
    let count = if e.count > 1 {
        format!(" ({} findings)", e.count)
    } else {
        String::new()
    };
    let mut r = SarifResult::builder()
        .message(text(&format!(
            "fixed since the baseline: {} in {}{scope}{count}",
            e.rule, e.model
        )))
        .rule_id(e.rule.clone())
        .level(ResultLevel::None)
        .kind(serde_sarif::sarif::ResultKind::Pass)
        .locations(vec![at])
        .properties(bag([("model", json!(e.model))]))
        .build();
    r.rule_index = rule_index;
    r.baseline_state = Some(json!("absent"));
    r
}

fn message(f: &Finding) -> Message {
    match &f.help {
        Some(help) => Message {
            text: Some(format!("{}\n{help}", f.message)),
            ..Default::default()
        },
        None => text(&f.message),
    }
}

/// The fix as SARIF describes it. For a text model the replacement is the whole fixed `model.mil`
/// (`whole_file` = the original's length in UTF-16 units and the new text). For a package the real
/// edit rewrites the protobuf, which `coreml-lint check --fix` applies; SARIF requires at least one
/// replacement, so there the change is an empty insertion (at the finding's region in a text file,
/// at byte 0 of a binary one): applying it changes nothing.
fn fix_of(
    fix: &crate::finding::FixOffer,
    artifact: ArtifactLocation,
    at: Option<Region>,
    whole_file: Option<(usize, &str)>,
) -> Fix {
    let at = at.filter(|r| r.start_line.is_some());
    let how = match fix.applicability {
        Applicability::Safe => "apply with `coreml-lint check --fix`",
        Applicability::Unsafe => "apply with `coreml-lint check --fix --unsafe-fixes`",
        Applicability::DisplayOnly => "not applied automatically",
    };
    let replacement = match whole_file {
        Some((len, after)) => Replacement::builder()
            .deleted_region(Region {
                char_offset: Some(0),
                char_length: i64::try_from(len).ok(),
                ..Default::default()
            })
            .inserted_content(ArtifactContent {
                text: Some(after.to_string()),
                ..Default::default()
            })
            .build(),
        None => Replacement::builder()
            .deleted_region(match at {
                Some(at) => Region {
                    start_line: at.start_line,
                    start_column: at.start_column.or(Some(1)),
                    end_line: at.start_line,
                    end_column: at.start_column.or(Some(1)),
                    ..Default::default()
                },
                None => Region {
                    byte_offset: Some(0),
                    byte_length: Some(0),
                    ..Default::default()
                },
            })
            .build(),
    };
    Fix {
        description: Some(text(&format!("{} ({how})", fix.title))),
        artifact_changes: vec![ArtifactChange {
            artifact_location: artifact,
            replacements: vec![replacement],
            properties: None,
        }],
        properties: Some(bag([
            ("kind", json!(fix.kind)),
            ("applicability", json!(fix.applicability)),
        ])),
    }
}

fn logical_locations(f: &Finding) -> Option<Vec<LogicalLocation>> {
    let sub = f.sub_model.as_ref().map(ToString::to_string);
    if f.function.is_none() && sub.is_none() {
        return None;
    }
    // Fully qualified names run from the outermost scope: `sub-model 1/main/op`.
    let qualified = |inner: &str| match &sub {
        Some(s) => format!("{s}/{inner}"),
        None => inner.to_string(),
    };
    let mut out = Vec::new();
    if let Some(func) = &f.function {
        if let Some(op) = &f.op {
            out.push(LogicalLocation {
                name: Some(op.clone()),
                fully_qualified_name: Some(qualified(&format!("{func}/{op}"))),
                kind: Some("member".into()),
                ..Default::default()
            });
        }
        out.push(LogicalLocation {
            name: Some(func.clone()),
            fully_qualified_name: Some(qualified(func)),
            kind: Some("function".into()),
            ..Default::default()
        });
    }
    if let Some(s) = sub {
        out.push(LogicalLocation {
            name: Some(s.clone()),
            fully_qualified_name: Some(s),
            kind: Some("module".into()),
            ..Default::default()
        });
    }
    Some(out)
}

fn notifications(run: &CheckRun, base: &Path) -> Vec<Notification> {
    run.models
        .iter()
        .filter_map(|m| {
            let (lvl, msg) = match &m.outcome {
                ModelOutcome::Failed(e) => ("error", e.to_string()),
                ModelOutcome::Skipped(why) => ("note", why.note()),
                ModelOutcome::Checked { .. } => return None,
            };
            // A read error is in the file it names, at its line and column when the reader knows
            // them; a skipped model is the model as discovered.
            let (file, region) = match &m.outcome {
                ModelOutcome::Failed(e) => (
                    e.path(),
                    e.position().map(|(line, col)| Region {
                        start_line: i64::try_from(line).ok(),
                        start_column: i64::try_from(col).ok(),
                        ..Default::default()
                    }),
                ),
                _ => (m.path.as_path(), None),
            };
            let at = Location {
                physical_location: Some(PhysicalLocation {
                    artifact_location: Some(artifact(file, base)),
                    region,
                    ..Default::default()
                }),
                ..Default::default()
            };
            Some(
                Notification::builder()
                    .message(text(&msg))
                    .level(json!(lvl))
                    .locations(vec![at])
                    .build(),
            )
        })
        .collect()
}

/// A finding's identity, independent of lines, folders and machines: FNV-1a (64-bit, hex) of the
/// rule id, function, op and state, and of the pipeline sub-model's position when there is one.
pub(crate) fn fingerprint(f: &Finding) -> String {
    let position = f.sub_model.as_ref().map(|s| s.position_text());
    let mut parts = vec![
        f.rule.as_str(),
        f.function.as_deref().unwrap_or(""),
        f.op.as_deref().unwrap_or(""),
        f.state.as_deref().unwrap_or(""),
    ];
    parts.extend(position.as_deref());
    format!("{:016x}", fnv1a(parts.join("\u{1f}").as_bytes()))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// The whole of a text file as a line region.
fn whole_text_file(text: &str) -> Region {
    let lines = text.lines().count().max(1);
    Region {
        start_line: Some(1),
        end_line: i64::try_from(lines).ok(),
        ..Default::default()
    }
}

/// The whole of a binary file as a byte region (when its size can be read), at `startLine` 1:
/// GitHub code scanning drops or mis-shows results without a line (github/codeql-action#754).
fn whole_binary_file(path: &Path) -> Option<Region> {
    let len = std::fs::metadata(path).ok().map(|m| m.len());
    Some(Region {
        start_line: Some(1),
        byte_offset: len.map(|_| 0),
        byte_length: len.and_then(|l| i64::try_from(l).ok()),
        ..Default::default()
    })
}

/// The region of `span` in `text` (see [`text_range`]).
fn region_of(text: &str, span: Span) -> Region {
    let r = text_range(text, span);
    Region {
        start_line: Some(r.start_line),
        start_column: Some(r.start_column),
        end_line: Some(r.end_line),
        end_column: Some(r.end_column),
        ..Default::default()
    }
}

/// A span as 1-based lines and UTF-16 columns; the end column is exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TextRange {
    pub start_line: i64,
    pub start_column: i64,
    pub end_line: i64,
    pub end_column: i64,
}

/// Where `span` is in `text`, without its trailing whitespace. Offsets past the end or inside a
/// character are clamped, so a bad span still gives a valid range.
pub(crate) fn text_range(text: &str, span: Span) -> TextRange {
    let start = floor_boundary(text, span.start);
    let end = floor_boundary(text, span.start.saturating_add(span.len)).max(start);
    let covered = text.get(start..end).unwrap_or("");
    let end = start + covered.trim_end().len();
    let (start_line, start_column) = line_col16(text, start);
    let (end_line, end_column) = line_col16(text, end);
    TextRange {
        start_line,
        start_column,
        end_line,
        end_column,
    }
}

fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut i = offset.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// 1-based line and 1-based column in UTF-16 code units (SARIF's default `columnKind`) of a byte
/// offset that is on a char boundary.
fn line_col16(text: &str, offset: usize) -> (i64, i64) {
    let offset = if text.is_char_boundary(offset) {
        offset
    } else {
        0
    };
    let (line, byte_col) = crate::ir::span::line_col(text, offset);
    let col = text
        .get(offset + 1 - byte_col..offset)
        .unwrap_or("")
        .encode_utf16()
        .count()
        + 1;
    (
        i64::try_from(line).unwrap_or(i64::MAX),
        i64::try_from(col).unwrap_or(i64::MAX),
    )
}

fn artifact(path: &Path, base: &Path) -> ArtifactLocation {
    let (uri, relative) = relative_uri(path, base);
    ArtifactLocation {
        uri: Some(uri),
        uri_base_id: relative.then(|| SRCROOT.to_string()),
        ..Default::default()
    }
}

fn base_location() -> ArtifactLocation {
    // No absolute URI: the output stays identical on every machine; viewers resolve %SRCROOT% to
    // the checkout they open it in.
    ArtifactLocation {
        description: Some(text("The folder coreml-lint ran in")),
        ..Default::default()
    }
}

/// `path` relative to `base` (`..`-free when it lies inside it), `/`-separated.
///
/// Relative paths are taken as relative to `base` already (the CLI passes the current folder).
/// `None` when `path` is absolute and outside `base`.
pub(crate) fn relative_path(path: &Path, base: &Path) -> Option<PathBuf> {
    if path.is_relative() {
        return Some(normalize(path));
    }
    let bases = [
        Some(base.to_path_buf()),
        std::path::absolute(base).ok(),
        base.canonicalize().ok(),
    ];
    let candidates = [Some(path.to_path_buf()), path.canonicalize().ok()];
    for b in bases.iter().flatten() {
        for p in candidates.iter().flatten() {
            if let Ok(rel) = p.strip_prefix(b) {
                return Some(normalize(rel));
            }
        }
    }
    None
}

fn normalize(path: &Path) -> PathBuf {
    let out: PathBuf = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if out.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out
    }
}

/// The URI of `path` and whether it is relative to [`SRCROOT`] (else an absolute `file://` URI).
fn relative_uri(path: &Path, base: &Path) -> (String, bool) {
    match relative_path(path, base) {
        Some(rel) => (encode_components(&rel), true),
        None => (file_uri(path), false),
    }
}

fn file_uri(path: &Path) -> String {
    let encoded = encode_components(path);
    if encoded.starts_with('/') {
        format!("file://{encoded}")
    } else {
        format!("file:///{encoded}")
    }
}

/// Joins path components with `/`, percent-encoding everything but RFC 3986 unreserved characters.
fn encode_components(path: &Path) -> String {
    let mut out = String::new();
    for c in path.components() {
        match c {
            Component::RootDir => out.push('/'),
            Component::Prefix(p) => {
                // `C:` stays as it is in a file URI.
                out.push_str(&p.as_os_str().to_string_lossy().replace('\\', "/"));
            }
            Component::CurDir => continue,
            Component::ParentDir => push_segment(&mut out, ".."),
            Component::Normal(s) => push_segment(&mut out, &percent_encode(&s.to_string_lossy())),
        }
    }
    out
}

fn push_segment(out: &mut String, seg: &str) {
    if !out.is_empty() && !out.ends_with('/') {
        out.push('/');
    }
    out.push_str(seg);
}

fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &str, func: &str, op: &str, state: &str, path: &str) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Error,
            path: PathBuf::from(path),
            sub_model: None,
            function: Some(func.into()),
            op: Some(op.into()),
            state: Some(state.into()),
            message: "m".into(),
            help: None,
            fix: None,
            span: Some(Span::new(3, 9)),
            labels: Vec::new(),
            order: Some(4),
            covered: None,
            file: None,
        }
    }

    #[test]
    fn rule_names_are_pascal_case_and_never_the_id() {
        assert_eq!(
            readable_name("state-full-extent-write"),
            "StateFullExtentWrite"
        );
        assert_eq!(
            readable_name("fp16-integer-precision"),
            "Fp16IntegerPrecision"
        );
        assert_eq!(readable_name("x_y.z"), "XYZ");
        for id in ["state-info", "a", "blob-bad-header"] {
            assert_ne!(readable_name(id), id);
        }
        // A user rule whose id is already PascalCase gets no `name` at all.
        let mut info = RuleInfo {
            id: "Already".into(),
            ..Default::default()
        };
        assert_eq!(descriptor(&info).name, None);
        info.id = "my-rule".into();
        assert_eq!(descriptor(&info).name.as_deref(), Some("MyRule"));
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn fingerprint_ignores_path_span_and_order_but_not_identity() {
        let a = finding("r", "main", "w", "s", "/a/x.mlmodelc");
        let mut b = finding("r", "main", "w", "s", "other/place/y.mlmodelc");
        b.span = Some(Span::new(100, 120));
        b.order = Some(99);
        assert_eq!(fingerprint(&a), fingerprint(&b));
        assert_eq!(fingerprint(&a).len(), 16);
        for other in [
            finding("r2", "main", "w", "s", "/a"),
            finding("r", "main2", "w", "s", "/a"),
            finding("r", "main", "w2", "s", "/a"),
            finding("r", "main", "w", "s2", "/a"),
            // The separator keeps "ab"+"c" apart from "a"+"bc".
            finding("r", "mai", "nw", "s", "/a"),
        ] {
            assert_ne!(fingerprint(&a), fingerprint(&other));
        }
    }

    #[test]
    fn columns_count_utf16_units_and_regions_drop_trailing_space() {
        let text = "ab\n  é𝄞x;  \nz";
        let x = text.find('x').unwrap_or_default();
        // "  " (2) + "é" (1 unit) + "𝄞" (2 units) before x.
        assert_eq!(line_col16(text, x), (2, 6));
        let line2 = text.find("  é").unwrap_or_default();
        let r = region_of(text, Span::new(line2 + 2, text.len() - 1));
        assert_eq!(
            (r.start_line, r.start_column, r.end_line, r.end_column),
            (Some(2), Some(3), Some(2), Some(8))
        );
    }

    #[test]
    fn uris_are_relative_and_percent_encoded() {
        let base = Path::new("/work/repo");
        assert_eq!(
            relative_uri(Path::new("/work/repo/m dir/a:b.mlmodelc/model.mil"), base),
            ("m%20dir/a%3Ab.mlmodelc/model.mil".to_string(), true)
        );
        assert_eq!(
            relative_uri(Path::new("./x/./y.mil"), base),
            ("x/y.mil".to_string(), true)
        );
        assert_eq!(
            relative_uri(Path::new("/elsewhere/y.mil"), base),
            ("file:///elsewhere/y.mil".to_string(), false)
        );
    }
}
