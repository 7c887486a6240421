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

/// Where each line of a text starts, for line numbers by binary search (the text itself may be
/// kept elsewhere, or not at all).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineIndex {
    /// `starts[0] == 0`, then one entry after each `\n`.
    starts: Vec<usize>,
    /// Length of the text in bytes.
    len: usize,
}

impl LineIndex {
    /// The lines of `text`.
    pub fn of(text: &str) -> LineIndex {
        LineIndex::from_breaks(
            memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1),
            text.len(),
        )
    }

    /// The lines of a text of `len` bytes whose lines after the first start at `breaks`, in order.
    pub(crate) fn from_breaks(breaks: impl IntoIterator<Item = usize>, len: usize) -> LineIndex {
        LineIndex {
            starts: std::iter::once(0).chain(breaks).collect(),
            len,
        }
    }

    /// Length of the text in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Number of lines (a text ending with `\n` has an empty last line).
    pub(crate) fn count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line holding byte `offset`.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// Where 0-based line `line` starts, or the end of the text past the last line.
    pub(crate) fn start_of(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.len)
    }

    /// 1-based line and column (in bytes) of byte `offset`, as [`line_col`] on the text.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.len);
        let line = self.line_of(offset);
        (line + 1, offset - self.start_of(line) + 1)
    }
}
