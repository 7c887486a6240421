//! The few source lines a human report shows for one finding: the lines of its labels near the
//! primary one, each clipped to a window around its labels so that a 1,500-column MIL line fits
//! the terminal. Line numbers stay those of the model's text; a model's controls and bidi
//! characters are shown escaped (`report::model_text`), the labels on what they escape.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use super::model_text;
use super::source::IndexedSource;
use crate::finding::snippet_lines;
use crate::ir::Span;

/// Columns of a clipped line kept to the left of its first label.
const LEFT_MARGIN: usize = 16;
/// Marks where a line was clipped.
const ELLIPSIS: &str = "…";

/// The clipped lines of one finding, as miette reads them.
#[derive(Debug)]
pub(crate) struct Snippet {
    text: String,
    /// 0-based line of the model's text the snippet's first line is.
    first_line: usize,
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.read_span(span, before, after)?;
        Ok(Box::new(MietteSpanContents::new(
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// The snippet for `spans` (the primary first) in `source`, `width` columns wide at most, and
/// each span's place in it (`None`: left out, too far from the primary).
pub(crate) fn clip(
    source: &IndexedSource,
    spans: &[Span],
    width: usize,
) -> (Snippet, Vec<Option<SourceSpan>>) {
    // A span over several lines (a whole function) is shown by its first line.
    let spans: Vec<(usize, Span)> = spans
        .iter()
        .map(|s| {
            let start = s.start.min(source.len());
            let line = source.line_col(start).0 - 1;
            let line_end = source.line_end(line);
            let end = (start + s.len).min(line_end).max(start);
            (line, Span::new(start, end))
        })
        .collect();
    let lines: Vec<usize> = spans.iter().map(|(l, _)| *l).collect();
    let Some((kept, quoted)) = snippet_lines(&lines) else {
        return (
            Snippet {
                text: String::new(),
                first_line: 0,
            },
            Vec::new(),
        );
    };
    let (first, last) = (*quoted.start(), *quoted.end());
    let mut out = String::new();
    let mut placed = vec![None; spans.len()];
    for line in first..=last {
        // Offsets below are in the line's text.
        let (start, text) = (source.line_start(line), source.line_text(line));
        let end = text.len();
        let on_line: Vec<usize> = (0..spans.len())
            .filter(|&i| spans[i].0 == line && kept[i])
            .collect();
        let in_line = |s: Span| Span::new(s.start - start, s.start + s.len - start);
        let (lo, hi) = window(
            text,
            0,
            end,
            on_line.iter().map(|&i| in_line(spans[i].1)),
            width,
        );
        let clipped = hi < end;
        // A CRLF file's `\r` ends the line; it is not shown as an escape.
        let hi = if !clipped && hi > lo && text.as_bytes()[hi - 1] == b'\r' {
            hi - 1
        } else {
            hi
        };
        if lo > 0 {
            out.push_str(ELLIPSIS);
        }
        // Each span's ends, where the line's text (its controls and bidi characters escaped)
        // puts them.
        let mut ends: Vec<usize> = on_line
            .iter()
            .flat_map(|&i| {
                let s = in_line(spans[i].1);
                [s.start.clamp(lo, hi), (s.start + s.len).clamp(lo, hi)]
            })
            .collect();
        model_text::push_terminal_mapped(&mut out, text, lo, hi, &mut ends);
        if clipped {
            out.push_str(ELLIPSIS);
        }
        out.push('\n');
        for (i, at) in on_line.into_iter().zip(ends.chunks(2)) {
            placed[i] = Some((at[0], at[1] - at[0]).into());
        }
    }
    (
        Snippet {
            text: out,
            first_line: first,
        },
        placed,
    )
}

/// The byte range of the line `[start, end)` to show: all of it when it fits in `width`
/// characters, else `width` characters from a little before its first span.
fn window(
    text: &str,
    start: usize,
    end: usize,
    spans: impl Iterator<Item = Span>,
    width: usize,
) -> (usize, usize) {
    let line = &text[start..end];
    if line.chars().count() <= width {
        return (start, end);
    }
    let first = spans
        .map(|s| s.start)
        .min()
        .unwrap_or(start)
        .clamp(start, end);
    let mut lo = first;
    for _ in 0..LEFT_MARGIN {
        if lo == start {
            break;
        }
        lo = floor_char(text, lo - 1);
    }
    let mut hi = lo;
    for c in text[lo..end].chars().take(width.saturating_sub(2)) {
        hi += c.len_utf8();
    }
    (lo, hi)
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn shown(snippet: &Snippet, span: SourceSpan) -> &str {
        &snippet.text[span.offset()..span.offset() + span.len()]
    }

    #[test]
    fn a_long_line_is_clipped_around_its_label_and_keeps_its_number() {
        let long = format!("{}target = op(x){}", "a".repeat(300), "b".repeat(900));
        let text = format!("line one\n{long}\nlast\n");
        let at = text.find("target").expect("label");
        let source = IndexedSource::new(Arc::from(text.as_str()));
        let (snippet, placed) = clip(&source, &[Span::new(at, at + 6)], 80);
        let span = placed[0].expect("placed");
        assert_eq!(shown(&snippet, span), "target");
        assert!(
            snippet.text.lines().all(|l| l.chars().count() <= 80),
            "{}",
            snippet.text
        );
        assert!(snippet.text.starts_with(ELLIPSIS) && snippet.text.trim_end().ends_with(ELLIPSIS));
        let contents = snippet.read_span(&span, 0, 0).expect("reads");
        assert_eq!(contents.line(), 1, "the model's line number");
    }

    #[test]
    fn far_labels_are_left_out_and_multi_line_spans_show_their_first_line() {
        let lines: Vec<String> = (0..40).map(|i| format!("op{i} = f(x)")).collect();
        let text = lines.join("\n") + "\n";
        let source = IndexedSource::new(Arc::from(text.as_str()));
        let at = |i: usize| text.find(&format!("op{i} ")).expect("op");
        let whole = Span::new(at(5), at(30));
        let spans = [
            whole,
            Span::new(at(7), at(7) + 3),
            Span::new(at(35), at(35) + 4),
        ];
        let (snippet, placed) = clip(&source, &spans, 100);
        assert_eq!(snippet.text, "op5 = f(x)\nop6 = f(x)\nop7 = f(x)\n");
        assert_eq!(shown(&snippet, placed[0].expect("primary")), "op5 = f(x)");
        assert_eq!(shown(&snippet, placed[1].expect("near")), "op7");
        assert_eq!(placed[2], None, "30 lines away");
        let many: Vec<Span> = (0..8).map(|i| Span::new(at(i), at(i) + 3)).collect();
        let (_, placed) = clip(&source, &many, 100);
        assert_eq!(
            placed.iter().filter(|p| p.is_some()).count(),
            crate::finding::SNIPPET_MAX_LABELS
        );
    }
}
