//! A model's strings (op, value, function and state names, file names, and the messages built
//! from them) as text for each kind of output. A model is untrusted input: an op named
//! `a\x1b]0;PWNED\x07` would set a terminal's title, a bidi override (U+202E) reorders what a
//! reviewer reads (Trojan Source, CVE-2021-42574), a newline forges a line of a CI log.
//!
//! - [`terminal`]: the human report, concise (Xcode, editors) and the GitHub log. C0 and C1
//!   controls, DEL, bidi controls and the invisible characters that move or hide text are shown
//!   escaped the way rustc shows them (`\u{202e}`, `\u{1b}`, `\n`, `\t`); a text that needed
//!   escaping has its backslashes doubled too, so what is shown reads back to one string.
//! - [`terminal_lines`]: the same for multi-line text (a quoted source line, `dump`), which keeps
//!   its line breaks.
//! - [`github_data`], [`github_property`]: a workflow command's message and property values:
//!   [`terminal`], then GitHub's `%`, CR, LF (and `:`, `,`) escapes.
//! - [`html`]: markup escaped, and every character [`terminal`] escapes shown as its escape in a
//!   `<span class="esc">`.
//! - JSON and SARIF keep every string exact (serde's escaping): nothing here.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt::Write;

use crate::check::{CheckRun, ModelOutcome};
use crate::finding::Finding;

pub use crate::unsafe_chars::{is_unsafe, lines_need_escape};

/// Whether [`terminal`] shows `s` other than as it is.
pub fn needs_escape(s: &str) -> bool {
    s.chars().any(is_unsafe)
}

/// `c` as rustc's `char::escape_debug` writes it: `\n`, `\r`, `\t`, `\0`, else `\u{hex}`.
fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `s` for a terminal, an editor or a CI log: one line, no control or bidi character raw.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !needs_escape(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if is_unsafe(c) => push_escape(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`terminal`] of each line of `s`, its `\n` and `\r\n` line breaks kept.
pub fn terminal_lines(s: &str) -> Cow<'_, str> {
    if !lines_need_escape(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut lines = s.split('\n').peekable();
    while let Some(line) = lines.next() {
        let last = lines.peek().is_none();
        match line.strip_suffix('\r').filter(|_| !last) {
            Some(text) => {
                out.push_str(&terminal(text));
                out.push_str("\r\n");
            }
            None => {
                out.push_str(&terminal(line));
                if !last {
                    out.push('\n');
                }
            }
        }
    }
    Cow::Owned(out)
}

/// [`terminal`] of `s[lo..hi]` appended to `out`, and for each byte offset of `at` (each in
/// `lo..=hi`, on a character boundary) its offset in `out`: where a span of the original lands.
pub fn push_terminal_mapped(out: &mut String, s: &str, lo: usize, hi: usize, at: &mut [usize]) {
    let escaping = needs_escape(&s[lo..hi]);
    let base = out.len();
    if !escaping {
        out.push_str(&s[lo..hi]);
        for a in at.iter_mut() {
            *a = base + (*a - lo);
        }
        return;
    }
    let mut mapped: Vec<Option<usize>> = vec![None; at.len()];
    for (i, c) in s[lo..hi].char_indices() {
        for (m, &a) in mapped.iter_mut().zip(at.iter()) {
            if m.is_none() && a <= lo + i {
                *m = Some(out.len());
            }
        }
        match c {
            '\\' => out.push_str("\\\\"),
            c if is_unsafe(c) => push_escape(out, c),
            c => out.push(c),
        }
    }
    for (a, m) in at.iter_mut().zip(mapped) {
        *a = m.unwrap_or(out.len());
    }
}

/// A workflow command's message: [`terminal`], then `%`, CR and LF escaped as GitHub documents.
pub fn github_data(s: &str) -> String {
    workflow_data(&terminal(s))
}

/// A workflow command's property value: [`github_data`], `:` and `,` escaped too.
pub fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub's escapes of a command's message (`%` first, so an existing escape stays text). The
/// line breaks the renderer puts between a message and its help are written this way.
pub fn workflow_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// `s` for HTML element content or a quoted attribute: markup escaped, and each character
/// [`terminal`] escapes shown visibly as its escape.
pub fn html(s: &str) -> String {
    html_escaped(s, true)
}

/// [`html`] for element content only (never an attribute): quotes stay as they are, which
/// quoted program text is full of.
pub fn html_text(s: &str) -> String {
    html_escaped(s, false)
}

fn html_escaped(s: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let escaping = needs_escape(s);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes => out.push_str("&quot;"),
            '\'' if quotes => out.push_str("&#39;"),
            '\\' if escaping => out.push_str("\\\\"),
            c if is_unsafe(c) => {
                out.push_str("<span class=\"esc\">");
                push_escape(&mut out, c);
                out.push_str("</span>");
            }
            c => out.push(c),
        }
    }
    out
}

/// [`html`] for multi-line text (a `<pre>`), its `\n` line breaks kept.
pub fn html_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&html(line));
    }
    out
}

/// `s` for XML (an SVG's text, a title), where C0 controls are not allowed even as references:
/// as [`html`], but escapes as plain text.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let escaping = needs_escape(s);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\\' if escaping => out.push_str("\\\\"),
            c if is_unsafe(c) => push_escape(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// Whether a line of the text a model's findings quote from holds a character shown escaped.
fn quoted_lines_need_escape(model: &crate::ir::Model) -> bool {
    match &model.source.lines {
        // Only some lines of a rendered text were kept; the render noted it for the whole text.
        Some(lines) if model.source.text.is_empty() => lines.needs_escape,
        _ => lines_need_escape(&model.source.text),
    }
}

/// How many of the run's models have a string shown escaped: in a finding (its file, place,
/// message, help, fix, labels) or in a read error.
pub fn models_with_escaped_text(run: &CheckRun) -> usize {
    let path = |p: &std::path::Path| needs_escape(&p.display().to_string());
    let finding = |f: &Finding| {
        path(&f.path)
            || needs_escape(&f.message)
            // A help's trailing line break is the rule file's, not shown.
            || f.help.as_deref().is_some_and(|h| needs_escape(h.trim_end()))
            || f.fix.as_ref().is_some_and(|x| needs_escape(&x.title))
            || [&f.function, &f.op, &f.state]
                .into_iter()
                .flatten()
                .any(|s| needs_escape(s))
            || f.sub_model
                .as_ref()
                .is_some_and(|s| needs_escape(&s.to_string()))
            || f.labels.iter().any(|l| needs_escape(&l.text))
    };
    let escaped: BTreeSet<&std::path::Path> = run
        .models
        .iter()
        .filter(|m| match &m.outcome {
            ModelOutcome::Checked { model, findings } => {
                path(&m.path) || findings.iter().any(finding) || {
                    // The quoted lines of a protobuf program are its rendered text.
                    findings.iter().any(|f| f.span.is_some()) && quoted_lines_need_escape(model)
                }
            }
            ModelOutcome::Failed(e) => path(&m.path) || needs_escape(&e.to_string()),
            ModelOutcome::Skipped(why) => path(&m.path) || needs_escape(&why.note()),
        })
        .map(|m| m.path.as_path())
        .collect();
    escaped.len()
}

/// The summary's note when names were shown escaped, with its line break; empty otherwise.
pub fn escaped_note(run: &CheckRun) -> String {
    match models_with_escaped_text(run) {
        0 => String::new(),
        n => format!(
            "Note: {n} model{} {} names with control or bidirectional characters, shown escaped \
             (`\\u{{202e}}`, `\\n`); JSON and SARIF keep them exact\n",
            if n == 1 { "" } else { "s" },
            if n == 1 { "has" } else { "have" },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_are_escaped_as_rustc_shows_them() {
        assert_eq!(
            terminal("a\u{1b}]0;PWNED\u{7}\u{1b}[31mRED"),
            "a\\u{1b}]0;PWNED\\u{7}\\u{1b}[31mRED"
        );
        assert_eq!(terminal("x\u{202e}y\u{2066}"), "x\\u{202e}y\\u{2066}");
        assert_eq!(terminal("a\nb\tc\r\0"), "a\\nb\\tc\\r\\0");
        assert_eq!(terminal("\u{9b}31m"), "\\u{9b}31m");
        // Nothing to escape: the text as it is, its backslashes too.
        assert!(matches!(terminal("conv_0\\x"), Cow::Borrowed("conv_0\\x")));
        // Escaped text doubles its backslashes: a name spelling `\u{1b}` reads apart from ESC.
        assert_eq!(terminal("\\u{1b}\u{1b}"), "\\\\u{1b}\\u{1b}");
        assert_eq!(terminal("名前 é"), "名前 é");
    }

    #[test]
    fn lines_keep_their_breaks() {
        assert_eq!(
            terminal_lines("a\u{1b}\nb\u{202e}\n"),
            "a\\u{1b}\nb\\u{202e}\n"
        );
        assert!(matches!(terminal_lines("a\nb"), Cow::Borrowed(_)));
        assert!(matches!(terminal_lines("a\r\nb\r\n"), Cow::Borrowed(_)));
        assert_eq!(terminal_lines("a\u{7}\r\nb\rc"), "a\\u{7}\r\nb\\rc");
    }

    #[test]
    fn github_escapes_after_the_terminal_ones() {
        assert_eq!(
            github_data("100%\n::error::x"),
            "100%25\\n::error::x",
            "the newline cannot start a command"
        );
        assert_eq!(github_property("a:b,c\u{1b}"), "a%3Ab%2Cc\\u{1b}");
        assert_eq!(workflow_data("m\nhelp"), "m%0Ahelp");
    }

    #[test]
    fn html_escapes_markup_and_shows_controls() {
        assert_eq!(
            html("<img onerror=x>\u{1b}&'\""),
            "&lt;img onerror=x&gt;<span class=\"esc\">\\u{1b}</span>&amp;&#39;&quot;"
        );
        assert_eq!(xml("a\u{0}<"), "a\\0&lt;");
        // Element content keeps its quotes; markup and controls are escaped as in an attribute.
        assert_eq!(
            html_text("<b a=\"x\">'\u{1b}&"),
            "&lt;b a=\"x\"&gt;'<span class=\"esc\">\\u{1b}</span>&amp;"
        );
    }

    #[test]
    fn mapped_offsets_follow_the_escapes() {
        let s = "ab\u{1b}cd";
        let mut out = String::from(">");
        let mut at = [0, 2, 3, 4, 6];
        push_terminal_mapped(&mut out, s, 0, s.len(), &mut at);
        assert_eq!(out, ">ab\\u{1b}cd");
        assert_eq!(&out[at[1]..at[2]], "\\u{1b}");
        assert_eq!(&out[at[2]..at[3]], "c");
        assert_eq!(at[4], out.len());
    }
}
