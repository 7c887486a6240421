//! `--diff`: a unified diff of the text-MIL dump before and after the fix.

use similar::TextDiff;

/// The unified diff of `before` → `after`, with `a/PATH` and `b/PATH` headers; empty when equal.
pub(crate) fn unified(before: &str, after: &str, path: &str) -> String {
    if before == after {
        return String::new();
    }
    let rel = path.trim_start_matches('/');
    TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{rel}"), &format!("b/{rel}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_changed_lines_only() {
        let d = unified("a\nb\nc\n", "a\nB\nc\n", "m.mil");
        assert!(d.starts_with("--- a/m.mil\n+++ b/m.mil\n"), "{d}");
        assert!(d.contains("-b\n+B\n"), "{d}");
        assert_eq!(unified("x", "x", "m.mil"), "");
    }
}
