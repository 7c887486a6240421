//! The lines of a protobuf program's rendered text that the human report quotes, rendered once the
//! model's findings are known (the read kept only where the lines start: `Rendering::Quoted`).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::finding::{snippet_lines, Finding};
use crate::ir::render::quote_lines;
use crate::ir::{Model, Span};

/// Renders into `model.source.lines` the lines of each finding's snippet. A model whose text
/// was kept (a `model.mil`) or not rendered is left as it is.
///
/// A span of a statement the read stood in for (`render::index_program_for_quotes`) starts where
/// the statement does but does not end where it does; every statement ends its line, and the
/// human report shows a span by its first line: each finding's span or label on a quoted
/// statement is taken to the end of its first line.
pub(super) fn quote_snippet_lines(model: &mut Model, findings: &mut [Finding]) {
    let Some(lines) = &model.source.lines else {
        return;
    };
    if !model.source.text.is_empty() {
        return;
    }
    let index = &lines.index;
    let mut wanted = BTreeSet::new();
    for f in findings.iter() {
        let Some(primary) = f.span else { continue };
        let span_lines: Vec<usize> = std::iter::once(primary)
            .chain(f.labels.iter().map(|l| l.span))
            .map(|s| index.line_of(s.start.min(index.len())))
            .collect();
        if let Some((_, quoted)) = snippet_lines(&span_lines) {
            wanted.extend(quoted);
        }
    }
    if wanted.is_empty() {
        return;
    }
    let (quoted, mut statements) = quote_lines(&model.program, index, &wanted);
    statements.sort_unstable_by_key(|s| (s.start, s.len));
    let to_line_end = |span: &mut Span| {
        if statements
            .binary_search_by_key(&(span.start, span.len), |s| (s.start, s.len))
            .is_err()
        {
            return;
        }
        let line = index.line_of(span.start);
        let end = index.start_of(line) + quoted.get(&line).map_or(0, String::len);
        if end > span.start {
            span.len = end - span.start;
        }
    };
    for f in findings.iter_mut() {
        if let Some(span) = f.span.as_mut() {
            to_line_end(span);
        }
        for label in &mut f.labels {
            to_line_end(&mut label.span);
        }
    }
    if let Some(lines) = model.source.lines.as_mut() {
        Arc::make_mut(lines).quoted = quoted;
    }
}
