//! The report's stylesheets, scoped to its element (a notebook page holds other content).

use std::fmt::Write;

/// `css` with every selector inside elements of class `scope` (`&` is that element itself).
/// The stylesheets are ours: rules of plain selectors, no at-rules.
pub(super) fn scoped(css: &str, scope: &str) -> String {
    let mut out = String::with_capacity(css.len() * 2);
    for rule in css.split_inclusive('}') {
        let Some((selectors, body)) = rule.split_once('{') else {
            out.push_str(rule);
            continue;
        };
        let selectors: Vec<String> = selectors
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| match s.strip_prefix('&') {
                Some(rest) => format!(".{scope}{rest}"),
                None => format!(".{scope} {s}"),
            })
            .collect();
        if selectors.is_empty() {
            continue;
        }
        let _ = write!(out, "{} {{{body}", selectors.join(", "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::scoped;

    #[test]
    fn every_selector_is_scoped() {
        let css = "& { color: red; }\nh1 { margin: 0; } .x, svg.graph text { fill: #111; }\n";
        assert_eq!(
            scoped(css, "r"),
            ".r { color: red; }\n.r h1 { margin: 0; }\n.r .x, .r svg.graph text { fill: #111; }\n\n"
        );
    }
}
