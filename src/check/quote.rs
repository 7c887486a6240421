//! The lines of a protobuf program's rendered text that the human report quotes, rendered once the
//! model's findings are known (the read kept only where the lines start: `Rendering::Quoted`).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::finding::{snippet_lines, Finding};
use crate::ir::render::quote_lines;
use crate::ir::Model;

/// Renders into `model.source.lines` the lines of each finding's snippet. A model whose text
/// was kept (a `model.mil`) or not rendered is left as it is.
pub(super) fn quote_snippet_lines(model: &mut Model, findings: &[Finding]) {
    let Some(lines) = &model.source.lines else {
        return;
    };
    if !model.source.text.is_empty() {
        return;
    }
    let index = &lines.index;
    let mut wanted = BTreeSet::new();
    for f in findings {
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
    let quoted = quote_lines(&model.program, index, &wanted);
    if let Some(lines) = model.source.lines.as_mut() {
        Arc::make_mut(lines).quoted = quoted;
    }
}
