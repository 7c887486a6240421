//! Byte spans into the source a finding points at.

/// A byte range in `model.mil`, or in the rendered text of a `.mlpackage`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Length in bytes.
    pub len: usize,
}

impl Span {
    /// A span from `start` to `end` (exclusive).
    pub(crate) fn new(start: usize, end: usize) -> Span {
        Span {
            start,
            len: end.saturating_sub(start),
        }
    }

    /// Exclusive end offset.
    pub fn end(self) -> usize {
        self.start + self.len
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start, s.len).into()
    }
}

/// 1-based line and column of a byte offset in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.as_bytes().get(..offset).unwrap_or_default();
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let col = memchr::memrchr(b'\n', before).map_or(offset, |nl| offset - nl - 1) + 1;
    (line, col)
}
