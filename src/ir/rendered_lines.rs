//! What is kept of a protobuf program's rendered text when the text itself is not: where its lines
//! start (line numbers), whether it holds a character a terminal is shown escaped, and the few
//! lines a report quotes, rendered again once the findings are known (`render::quote_lines`).

use std::collections::BTreeMap;

use super::span::LineIndex;

/// The lines of a rendered text that was not kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderedLines {
    /// Where each line starts.
    pub index: LineIndex,
    /// Whether a line holds a character `unsafe_chars::lines_need_escape` flags (only when asked
    /// for while rendering, else false).
    pub needs_escape: bool,
    /// The quoted lines by 0-based line number, without their line break.
    pub quoted: BTreeMap<usize, String>,
}

impl RenderedLines {
    /// Line numbers only.
    pub fn new(index: LineIndex) -> RenderedLines {
        RenderedLines {
            index,
            ..RenderedLines::default()
        }
    }

    /// 1-based line and column (in bytes) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.index.line_col(offset)
    }
}
