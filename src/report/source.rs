//! A model's source text for miette with its line starts indexed once, so that each snippet is
//! found by binary search instead of by scanning the text from its start (miette's `str` source
//! scans byte by byte: ~10 ms per label on a 2 MB rendered package).
//!
//! The snippets are exactly those of miette's own `str` implementation (same data, line, column
//! and line count); spans it handles specially (empty, ending on a line break, past the end, or a
//! text with `\r`) are handed to it.

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::ir::rendered_lines::RenderedLines;
use crate::ir::span::LineIndex;
use crate::ir::SourceText;

/// Source text plus the byte offset where each line starts; or, for a rendered text that was not
/// kept, where its lines start and the lines a report quotes.
#[derive(Clone, Debug)]
pub(crate) struct IndexedSource {
    /// Empty when only quoted lines are kept.
    text: Arc<str>,
    lines: Arc<RenderedLines>,
    has_cr: bool,
}

impl IndexedSource {
    /// Indexes the line starts of `text`.
    pub(crate) fn new(text: Arc<str>) -> IndexedSource {
        IndexedSource {
            has_cr: memchr::memchr(b'\r', text.as_bytes()).is_some(),
            lines: Arc::new(RenderedLines::new(LineIndex::of(&text))),
            text,
        }
    }

    /// The source of a model: its text, or the lines quoted from its rendered text.
    pub(crate) fn of(source: &SourceText) -> IndexedSource {
        match &source.lines {
            Some(lines) if source.text.is_empty() => IndexedSource {
                text: Arc::clone(&source.text),
                lines: Arc::clone(lines),
                has_cr: false,
            },
            _ => IndexedSource::new(Arc::clone(&source.text)),
        }
    }

    /// Whether only quoted lines are kept.
    fn quoted_only(&self) -> bool {
        self.text.is_empty() && self.lines.index.len() > 0
    }

    /// Length of the whole text in bytes.
    pub(crate) fn len(&self) -> usize {
        self.lines.index.len()
    }

    /// The text of 0-based line `line`, without its line break (as [`IndexedSource::line_end`]
    /// ends it). A line that was not quoted is empty.
    pub(crate) fn line_text(&self, line: usize) -> &str {
        if !self.quoted_only() {
            return &self.text[self.line_start(line)..self.line_end(line)];
        }
        let text = self.lines.quoted.get(&line).map_or("", String::as_str);
        let ends_with_break = line + 1 < self.lines.index.count();
        match text.strip_suffix('\r') {
            Some(before) if ends_with_break => before,
            _ => text,
        }
    }

    /// 1-based line and column (in bytes) of byte `offset`, as [`crate::ir::span::line_col`].
    pub(crate) fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines.index.line_col(offset)
    }

    /// Where 0-based line `line` starts.
    pub(crate) fn line_start(&self, line: usize) -> usize {
        self.start_of(line)
    }

    /// Where 0-based line `line` ends, before its line break.
    pub(crate) fn line_end(&self, line: usize) -> usize {
        if self.quoted_only() {
            return self.start_of(line) + self.line_text(line).len();
        }
        let next = self.start_of(line + 1);
        if next > self.start_of(line) && self.text.as_bytes().get(next - 1) == Some(&b'\n') {
            let end = next - 1;
            end - usize::from(end > 0 && self.text.as_bytes()[end - 1] == b'\r')
        } else {
            next
        }
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.lines.index.line_of(offset)
    }

    /// Where line `line` starts, or the end of the text past the last line.
    fn start_of(&self, line: usize) -> usize {
        self.lines.index.start_of(line)
    }
}

impl SourceCode for IndexedSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let bytes = self.text.as_bytes();
        let (offset, len) = (span.offset(), span.len());
        let last = (offset + len).saturating_sub(1);
        if self.has_cr || len == 0 || offset + len > bytes.len() || bytes.get(last) == Some(&b'\n')
        {
            return self
                .text
                .read_span(span, context_lines_before, context_lines_after);
        }
        let first_line = self.line_of(offset).saturating_sub(context_lines_before);
        // miette resets the column at any line break it reads after the span.
        let break_after =
            context_lines_after > 0 && self.line_of(last) + 1 < self.lines.index.count();
        let (data_start, column) = if context_lines_before == 0 {
            let column = offset - self.start_of(self.line_of(offset));
            (offset, if break_after { 0 } else { column })
        } else {
            (self.start_of(first_line), 0)
        };
        // The span's end, or through the line break that ends the last context line after it.
        let data_end = if context_lines_after == 0 {
            offset + len
        } else {
            self.start_of(self.line_of(last) + context_lines_after + 1)
        };
        // miette counts every line break from the start of the text to the end of the snippet.
        let line_count = self.lines.index.line_of(data_end);
        let data = bytes
            .get(data_start..data_end)
            .ok_or(MietteError::OutOfBounds)?;
        Ok(Box::new(MietteSpanContents::new(
            data,
            (data_start, data_end - data_start).into(),
            first_line,
            column,
            line_count,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_matches_the_scan_of_the_text() {
        let text = "ab\n\ncd\r\nefg\n";
        let indexed = IndexedSource::new(Arc::from(text));
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                indexed.line_col(offset),
                crate::ir::span::line_col(text, offset),
                "offset {offset}"
            );
        }
    }

    /// Everything miette reads from a snippet.
    fn parts(c: &dyn SpanContents<'_>) -> (Vec<u8>, usize, usize, usize, usize, usize) {
        (
            c.data().to_vec(),
            c.span().offset(),
            c.span().len(),
            c.line(),
            c.column(),
            c.line_count(),
        )
    }

    #[test]
    fn snippets_equal_miettes_own_for_every_span() {
        let texts = [
            "program(1.3)\n{\n    func main<ios18>(fp16 x) {\n            fp16 y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}",
            "a;\nbb;\n\nccc;\n",
            "one line without a break",
            "x\ny",
        ];
        for text in texts {
            let indexed = IndexedSource::new(Arc::from(text));
            for offset in 0..text.len() {
                for len in 0..=(text.len() - offset) {
                    for (before, after) in [(0, 0), (1, 1), (2, 3), (0, 2), (3, 0)] {
                        let span = SourceSpan::from((offset, len));
                        let want = text.read_span(&span, before, after);
                        let got = indexed.read_span(&span, before, after);
                        match (want, got) {
                            (Ok(w), Ok(g)) => assert_eq!(
                                parts(g.as_ref()),
                                parts(w.as_ref()),
                                "{text:?} span {offset}+{len} context {before}/{after}"
                            ),
                            (Err(_), Err(_)) => {}
                            (w, g) => panic!(
                                "{text:?} span {offset}+{len}: miette {:?}, indexed {:?}",
                                w.is_ok(),
                                g.is_ok()
                            ),
                        }
                    }
                }
            }
        }
    }
}
