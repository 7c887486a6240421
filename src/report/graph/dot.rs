//! A picture as Graphviz DOT (`coreml-lint graph --format dot`), for users who lay graphs out
//! with their own tools. The colours are those of the HTML report.

use std::fmt::Write;

use super::{NodeKind, Picture};
use crate::analysis::placement::Likely;
use crate::report::model_text;

fn fill(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Op(Likely::Ane) => "#cdeccd",
        NodeKind::Op(Likely::Cpu) => "#f9d3b4",
        NodeKind::Op(Likely::AtRisk) => "#f7e48b",
        NodeKind::Op(Likely::Unknown) => "#e4e4e4",
        NodeKind::Input => "#d6e4f5",
        NodeKind::Group => "#fafafa",
    }
}

/// A DOT string literal: `\n` is a line break of the label; a model's other controls and bidi
/// characters are shown as their escapes (`\u{1b}`, a DOT `\\` each).
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if model_text::is_unsafe(c) => {
                out.push_str(&model_text::terminal(&c.to_string()).replace('\\', "\\\\"))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `digraph NAME { … }` with one node per box and one edge per value.
pub fn render(p: &Picture, name: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(name));
    let _ = writeln!(
        out,
        "  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", fontsize=10];"
    );
    let _ = writeln!(out, "  edge [fontname=\"monospace\", fontsize=8];");
    for (i, n) in p.nodes.iter().enumerate() {
        let mut lines = n.lines.clone();
        lines.extend(n.labels.iter().map(|l| format!("▸ {l}")));
        if let Some(c) = n.counts {
            lines.push(format!(
                "ANE {} · CPU {} · at risk {} · unknown {}",
                c.ane, c.cpu, c.at_risk, c.unknown
            ));
        }
        if n.findings > 0 {
            lines.push(format!("{} finding(s)", n.findings));
        }
        let _ = write!(
            out,
            "  n{i} [label={}, fillcolor=\"{}\"",
            quote(&lines.join("\n")),
            fill(n.kind)
        );
        if n.highlight || n.findings > 0 {
            out.push_str(", color=\"#c0152f\", penwidth=3");
        }
        out.push_str("];\n");
    }
    for e in &p.edges {
        let _ = writeln!(
            out,
            "  n{} -> n{} [label={}];",
            e.from,
            e.to,
            quote(&e.text)
        );
    }
    if p.omitted > 0 {
        let _ = writeln!(
            out,
            "  omitted [shape=plaintext, style=\"\", label={}];",
            quote(&format!("{} more nodes not drawn", p.omitted))
        );
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::graph::{PictureEdge, PictureNode};

    #[test]
    fn nodes_edges_and_quotes() {
        let p = Picture {
            nodes: vec![
                PictureNode {
                    name: "x".into(),
                    lines: vec!["input".into(), "x\"y".into()],
                    kind: NodeKind::Input,
                    highlight: false,
                    labels: vec![],
                    findings: 0,
                    counts: None,
                },
                PictureNode {
                    name: "r".into(),
                    lines: vec!["relu".into(), "r".into()],
                    kind: NodeKind::Op(Likely::Cpu),
                    highlight: true,
                    labels: vec!["here".into()],
                    findings: 1,
                    counts: None,
                },
            ],
            edges: vec![PictureEdge {
                from: 0,
                to: 1,
                text: "fp16 [2]".into(),
            }],
            omitted: 3,
            focus: vec![1],
        };
        let dot = render(&p, "main");
        assert!(dot.starts_with("digraph \"main\" {"));
        assert!(
            dot.contains("n0 [label=\"input\\nx\\\"y\", fillcolor=\"#d6e4f5\"];"),
            "{dot}"
        );
        assert!(
            dot.contains("fillcolor=\"#f9d3b4\", color=\"#c0152f\""),
            "{dot}"
        );
        assert!(dot.contains("▸ here"));
        assert!(dot.contains("n0 -> n1 [label=\"fp16 [2]\"];"));
        assert!(dot.contains("3 more nodes not drawn"));
    }
}
