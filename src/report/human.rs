//! Human output: one miette report per finding with the op's line from `model.mil` (or from the
//! rendered text of a `.mlpackage`), then a summary line.

use std::fmt::{self, Write};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};

use super::location::{dump_text, place_with};
use super::model_text::{self, terminal};
use super::snippet::{self, Snippet};
use super::source::IndexedSource;
use crate::check::{CheckRun, ModelOutcome};
use crate::finding::{Finding, Severity};
use crate::ir::span::line_col;
use crate::ir::Model;
use crate::rules::ComputeUnits;

/// Options of the human renderer.
#[derive(Clone, Copy, Debug, Default)]
pub struct HumanOptions {
    /// Colour the reports (ANSI escapes).
    pub color: bool,
    /// Columns to wrap and clip to (100 when not given: not a terminal).
    pub width: Option<usize>,
    /// Print only the summary line.
    pub quiet: bool,
}

struct FindingReport<'a> {
    finding: &'a Finding,
    source: Option<NamedSource<Snippet>>,
    labels: Vec<LabeledSpan>,
    headline: String,
}

impl fmt::Debug for FindingReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline)
    }
}

impl fmt::Display for FindingReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline)
    }
}

impl std::error::Error for FindingReport<'_> {}

impl Diagnostic for FindingReport<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(&self.finding.rule))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let f = self.finding;
        let help = f.help.as_deref().map(|h| terminal(h.trim_end()));
        let fix = f.fix.as_ref().map(|fix| {
            format!(
                "fix ({}): {}",
                applicability(fix.applicability),
                terminal(&fix.title)
            )
        });
        match (help, fix) {
            (Some(h), Some(fix)) => Some(Box::new(format!("{h}\n{fix}"))),
            (Some(h), None) => Some(Box::new(h.into_owned())),
            (None, Some(fix)) => Some(Box::new(fix)),
            (None, None) => None,
        }
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// Columns of the report's frame left of a source line (`  12 │ `) and right of it.
const GUTTER: usize = 12;

/// The clipped source lines of `f` and its labels placed in them.
fn snippet_of(
    f: &Finding,
    name: &str,
    indexed: &IndexedSource,
    width: usize,
) -> Option<(NamedSource<Snippet>, Vec<LabeledSpan>)> {
    let primary = f.span?;
    let spans: Vec<_> = std::iter::once(primary)
        .chain(f.labels.iter().map(|l| l.span))
        .collect();
    let (snippet, placed) = snippet::clip(indexed, &spans, width.saturating_sub(GUTTER).max(40));
    // miette does not wrap label texts: a label starts mid-line, so it gets about half the width.
    let label_chars = (width / 2).saturating_sub(10).max(20);
    let texts = std::iter::once(primary_label(f))
        .chain(f.labels.iter().map(|l| l.text.clone()))
        .map(|t| clip_text(terminal(&t).into_owned(), label_chars));
    let labels = texts
        .zip(placed)
        .enumerate()
        .filter_map(|(i, (text, at))| {
            let at = at?;
            Some(match i {
                0 => LabeledSpan::new_primary_with_span(Some(text), at),
                _ => LabeledSpan::new_with_span(Some(text), at),
            })
        })
        .collect();
    Some((NamedSource::new(name, snippet), labels))
}

/// `text`, cut to `max` characters with a `…` when longer.
fn clip_text(text: String, max: usize) -> String {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((cut, _)) if text.chars().count() > max => format!("{}…", &text[..cut]),
        _ => text,
    }
}

fn applicability(a: crate::finding::Applicability) -> &'static str {
    match a {
        crate::finding::Applicability::Safe => "safe, applied by --fix",
        crate::finding::Applicability::Unsafe => "unsafe, applied by --fix --unsafe-fixes",
        crate::finding::Applicability::DisplayOnly => "display only",
    }
}

fn primary_label(f: &Finding) -> String {
    match (&f.op, &f.state) {
        (Some(op), Some(state)) => format!("`{op}` on state `{state}`"),
        (Some(op), None) => format!("`{op}`"),
        _ => "here".into(),
    }
}

/// Where a finding is: `model.mil:line:col` for a text model; for a protobuf one the model, then
/// the line in the text `coreml-lint dump` prints (the text the snippet quotes). Then
/// function/op. `indexed` is the model's source with its lines indexed, when the caller has it.
pub(crate) fn location(model: &Model, f: &Finding, indexed: Option<&IndexedSource>) -> String {
    let place = place_with(model, f, |offset| match indexed {
        Some(source) => source.line_col(offset),
        None => line_col(&model.source.text, offset),
    });
    let mut s = match place.text {
        Some((line, col)) => format!("{}:{line}:{col}", path_text(place.file)),
        None => path_text(f.file.as_deref().unwrap_or(&f.path)),
    };
    s.push_str(&terminal(&super::scope(f)));
    if let Some((line, _)) = place.dump {
        let _ = write!(s, " (line {line} of {})", terminal(&dump_text(f)));
    }
    s
}

/// A path as the terminal shows it.
fn path_text(path: &std::path::Path) -> String {
    terminal(&path.display().to_string()).into_owned()
}

/// The name miette shows above a snippet: the file, or for a protobuf program the command that
/// prints the text quoted.
fn source_name(model: &Model) -> String {
    let name = match (&model.sub_model, model.source.is_file) {
        (_, true) => model.source.name.clone(),
        (None, false) => format!("coreml-lint dump {}", model.path.display()),
        (Some(sub), false) => format!("coreml-lint dump {}, {sub}", model.path.display()),
    };
    terminal(&name).into_owned()
}

fn handler(opts: HumanOptions) -> GraphicalReportHandler {
    let theme = if opts.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(opts.width.unwrap_or(100))
        .with_wrap_lines(true)
        .with_context_lines(1)
}

/// Renders every finding, every read error and the summary.
pub fn render(run: &CheckRun, opts: HumanOptions) -> String {
    let handler = handler(opts);
    let mut out = String::new();
    if !opts.quiet {
        for m in &run.models {
            match &m.outcome {
                ModelOutcome::Checked { model, findings } => {
                    // Indexed once per model, shared by its findings.
                    let indexed = findings
                        .iter()
                        .any(|f| f.span.is_some())
                        .then(|| IndexedSource::of(&model.source));
                    for f in findings {
                        let width = opts.width.unwrap_or(100);
                        let (source, labels) = indexed
                            .as_ref()
                            .and_then(|i| snippet_of(f, &source_name(model), i, width))
                            .unzip();
                        let report = FindingReport {
                            finding: f,
                            source,
                            labels: labels.unwrap_or_default(),
                            headline: format!(
                                "{}: {}",
                                location(model, f, indexed.as_ref()),
                                terminal(&f.message)
                            ),
                        };
                        let _ = handler.render_report(&mut out, &report);
                        out.push('\n');
                    }
                }
                ModelOutcome::Skipped(why) => {
                    let _ = writeln!(out, "{}: {}\n", path_text(&m.path), terminal(&why.note()));
                }
                ModelOutcome::Failed(e) => {
                    render_error(&handler, &mut out, e, opts);
                    out.push('\n');
                }
            }
        }
    }
    out.push_str(&summary_line(run));
    out.push_str(&super::baseline::summary(run));
    out
}

/// A read error's report. Its message or quoted source may carry the model's strings: when
/// they hold a character [`model_text`] escapes, the report is rendered without colours and
/// shown escaped line by line.
fn render_error(
    handler: &GraphicalReportHandler,
    out: &mut String,
    e: &crate::read::ReadError,
    opts: HumanOptions,
) {
    let mut plain = String::new();
    let _ = self::handler(HumanOptions {
        color: false,
        ..opts
    })
    .render_report(&mut plain, e);
    if model_text::lines_need_escape(&plain) {
        out.push_str(&model_text::terminal_lines(&plain));
    } else {
        let _ = handler.render_report(out, e);
    }
}

/// `Checked 3 models (1 skipped, 0 unreadable): 1 error, 2 warnings, 0 infos in 12 ms`.
pub(crate) fn summary_line(run: &CheckRun) -> String {
    let s = run.summary();
    let plural = |n: usize, one: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    // The compute units, when not Core ML's default: findings about other units are not shown.
    let units = match run.compute_units {
        ComputeUnits::All => String::new(),
        u => format!(" for {} ({})", u.swift_name(), u.describe()),
    };
    let note = model_text::escaped_note(run);
    format!(
        "Checked {}{units} ({} skipped, {} unreadable): {}, {}, {} in {} ms\n{note}",
        plural(s.checked, "model"),
        s.skipped,
        s.failed,
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.infos, "info"),
        run.elapsed.as_millis()
    )
}
