//! A picture laid out by layout-rs (a Sugiyama-style layered layout, crates.io `layout-rs`) and
//! written as an SVG element whose nodes carry CSS classes (placement, highlight) and names, so
//! that the page's stylesheet colours them and its script finds them.

use std::fmt::Write;

use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;

use super::{escape, NodeKind, Picture, PictureNode};

/// Text metrics the box sizes are computed from (the stylesheet draws text at this size).
const CHAR_WIDTH: f64 = 7.0;
const LINE_HEIGHT: f64 = 15.0;
/// layout-rs sizes an edge label as `font_size` per character.
const EDGE_FONT: usize = 7;
/// Above this many boxes and edge labels the crossing minimisation is skipped (it grows faster
/// than quadratically; see docs/html-report.md).
const OPTIMIZE_UP_TO: usize = 90;
/// Labels longer than this are wrapped.
const WRAP: usize = 44;

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The lines drawn in a node's box: its own, then each label.
fn box_lines(n: &PictureNode) -> Vec<String> {
    let mut lines = n.lines.clone();
    for l in &n.labels {
        for (i, w) in wrap(l, WRAP).into_iter().enumerate() {
            lines.push(if i == 0 {
                format!("▸ {w}")
            } else {
                format!("  {w}")
            });
        }
    }
    if n.counts.is_some() {
        // Room for the placement bar.
        lines.push(String::new());
    }
    lines
}

fn node_class(n: &PictureNode) -> String {
    let mut c = String::from("node ");
    c.push_str(match n.kind {
        NodeKind::Op(p) => super::css_class(p),
        NodeKind::Input => "input",
        NodeKind::Group => "group",
    });
    if n.highlight {
        c.push_str(" hl");
    }
    if !n.labels.is_empty() {
        c.push_str(" labelled");
    }
    if n.findings > 0 {
        c.push_str(" flagged");
    }
    c
}

/// Collects layout-rs's draw calls as SVG.
struct Canvas<'p> {
    picture: &'p Picture,
    id: &'p str,
    body: String,
    max: Point,
    /// The node whose box was drawn last and whose text comes next.
    open: Option<usize>,
}

impl Canvas<'_> {
    fn grow(&mut self, p: Point) {
        self.max.x = self.max.x.max(p.x);
        self.max.y = self.max.y.max(p.y);
    }
}

impl RenderBackend for Canvas<'_> {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        _look: &StyleAttr,
        properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        self.grow(Point::new(xy.x + size.x, xy.y + size.y));
        let Some(index) = properties.and_then(|p| p.parse::<usize>().ok()) else {
            return;
        };
        let Some(n) = self.picture.nodes.get(index) else {
            return;
        };
        let _ = write!(
            self.body,
            "<g class=\"{}\" id=\"{}-n{index}\" data-name=\"{}\"><title>{}</title>\
             <rect x=\"{:.0}\" y=\"{:.0}\" width=\"{:.0}\" height=\"{:.0}\" rx=\"4\"/>",
            node_class(n),
            self.id,
            escape(&n.name),
            escape(&n.lines.join(" · ")),
            xy.x,
            xy.y,
            size.x,
            size.y
        );
        if let Some(c) = n.counts {
            let total = c.total().max(1) as f64;
            let (x0, y, w) = (xy.x + 6.0, xy.y + size.y - 12.0, size.x - 12.0);
            let mut x = x0;
            for (count, class) in [
                (c.ane, "ane"),
                (c.cpu, "cpu"),
                (c.at_risk, "risk"),
                (c.unknown, "unknown"),
            ] {
                if count == 0 {
                    continue;
                }
                let width = w * count as f64 / total;
                let _ = write!(
                    self.body,
                    "<rect class=\"bar {class}\" x=\"{x:.1}\" y=\"{y:.0}\" width=\"{width:.1}\" height=\"7\"/>"
                );
                x += width;
            }
        }
        if n.findings > 0 {
            let _ = write!(
                self.body,
                "<circle class=\"badge\" cx=\"{:.0}\" cy=\"{:.0}\" r=\"8\"/><text class=\"badge-text\" x=\"{:.0}\" y=\"{:.0}\">{}</text>",
                xy.x + size.x,
                xy.y,
                xy.x + size.x,
                xy.y + 4.0,
                n.findings
            );
        }
        self.open = Some(index);
    }

    fn draw_line(
        &mut self,
        start: Point,
        stop: Point,
        _look: &StyleAttr,
        _properties: Option<String>,
    ) {
        self.grow(start);
        self.grow(stop);
        let _ = write!(
            self.body,
            "<line class=\"edge\" x1=\"{:.0}\" y1=\"{:.0}\" x2=\"{:.0}\" y2=\"{:.0}\"/>",
            start.x, start.y, stop.x, stop.y
        );
    }

    fn draw_circle(
        &mut self,
        _xy: Point,
        _size: Point,
        _look: &StyleAttr,
        _properties: Option<String>,
    ) {
    }

    fn draw_text(&mut self, xy: Point, text: &str, _look: &StyleAttr) {
        let (class, lines): (&str, Vec<&str>) = match self.open.take() {
            Some(_) => ("label", text.lines().collect()),
            None => ("edge-label", text.lines().collect()),
        };
        if lines.is_empty() {
            return;
        }
        let height = if class == "label" { LINE_HEIGHT } else { 11.0 };
        let top = xy.y - height * (lines.len() as f64 - 1.0) / 2.0;
        let _ = write!(self.body, "<text class=\"{class}\">");
        for (i, line) in lines.iter().enumerate() {
            let _ = write!(
                self.body,
                "<tspan x=\"{:.0}\" y=\"{:.0}\">{}</tspan>",
                xy.x,
                top + height * i as f64 + 4.0,
                escape(line)
            );
        }
        self.body.push_str("</text>");
        if class == "label" {
            self.body.push_str("</g>");
        }
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        _dashed: bool,
        head: (bool, bool),
        _look: &StyleAttr,
        _properties: Option<String>,
        _text: &str,
    ) {
        let [first, second, rest @ ..] = path else {
            return;
        };
        for p in path {
            self.grow(p.0);
            self.grow(p.1);
        }
        let mut d = format!(
            "M{:.0} {:.0}C{:.0} {:.0} {:.0} {:.0} {:.0} {:.0}",
            first.0.x,
            first.0.y,
            first.1.x,
            first.1.y,
            second.0.x,
            second.0.y,
            second.1.x,
            second.1.y
        );
        for p in rest {
            let _ = write!(d, "S{:.0} {:.0} {:.0} {:.0}", p.0.x, p.0.y, p.1.x, p.1.y);
        }
        let marker = if head.1 {
            format!(" marker-end=\"url(#{}-arrow)\"", self.id)
        } else {
            String::new()
        };
        let _ = write!(self.body, "<path class=\"edge\" d=\"{d}\"{marker}/>");
    }

    fn create_clip(&mut self, _xy: Point, _size: Point, _rounded_px: usize) -> ClipHandle {
        0
    }
}

fn style(font_size: usize) -> StyleAttr {
    StyleAttr::new(Color::fast("black"), 1, None, 4, font_size)
}

/// Lays `p` out top to bottom and writes it as an `<svg>` element; `id` prefixes every element
/// id (one page holds many pictures).
pub fn render(p: &Picture, id: &str) -> String {
    let mut vg = VisualGraph::new(Orientation::TopToBottom);
    let mut handles = Vec::with_capacity(p.nodes.len());
    for (i, n) in p.nodes.iter().enumerate() {
        let lines = box_lines(n);
        let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(1);
        let size = Point::new(
            chars as f64 * CHAR_WIDTH + 18.0,
            lines.len() as f64 * LINE_HEIGHT + 10.0,
        );
        let element = Element::create_with_properties(
            ShapeKind::new_box(&lines.join("\n")),
            style(12),
            Orientation::LeftToRight,
            size,
            i.to_string(),
        );
        handles.push(vg.add_node(element));
    }
    let mut labelled = 0;
    for e in &p.edges {
        let (Some(&from), Some(&to)) = (handles.get(e.from), handles.get(e.to)) else {
            continue;
        };
        let mut arrow = Arrow::simple(&e.text);
        arrow.look = style(EDGE_FONT);
        if !e.text.is_empty() {
            labelled += 1;
        }
        vg.add_edge(arrow, from, to);
    }
    let optimize = p.nodes.len() + labelled <= OPTIMIZE_UP_TO;
    let mut canvas = Canvas {
        picture: p,
        id,
        body: String::new(),
        max: Point::zero(),
        open: None,
    };
    if !p.nodes.is_empty() {
        vg.do_it(false, !optimize, false, &mut canvas);
    }
    let (w, h) = (canvas.max.x + 12.0, canvas.max.y + 12.0);
    format!(
        "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" id=\"{id}\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\">\
         <defs><marker id=\"{id}-arrow\" markerWidth=\"8\" markerHeight=\"6\" refX=\"8\" refY=\"3\" orient=\"auto\"><path d=\"M0 0L8 3L0 6z\"/></marker></defs>{}</svg>",
        canvas.body
    )
}

/// The stylesheet of a picture outside the HTML report (`coreml-lint graph --format svg`).
pub const STANDALONE_STYLE: &str = include_str!("graph.css");

/// A picture as a whole SVG document, its stylesheet inside.
pub fn document(p: &Picture, id: &str) -> String {
    let svg = render(p, id);
    let style = format!("<style>{STANDALONE_STYLE}</style>");
    let at = svg.find("<defs>").unwrap_or(0);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}{style}{}\n",
        &svg[..at],
        &svg[at..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::placement::{Counts, Likely};
    use crate::report::graph::PictureEdge;

    fn node(name: &str, kind: NodeKind) -> PictureNode {
        PictureNode {
            name: name.into(),
            lines: vec!["relu".into(), name.into()],
            kind,
            highlight: false,
            labels: Vec::new(),
            findings: 0,
            counts: None,
        }
    }

    #[test]
    fn every_node_and_edge_is_drawn_with_its_class() {
        let mut a = node("a", NodeKind::Input);
        a.labels.push("the window starts here".into());
        let mut b = node("b<&>", NodeKind::Op(Likely::Cpu));
        b.highlight = true;
        b.findings = 2;
        let mut g = node("g", NodeKind::Group);
        g.counts = Some(Counts {
            ane: 3,
            cpu: 1,
            at_risk: 0,
            unknown: 0,
        });
        let p = Picture {
            nodes: vec![a, b, g],
            edges: vec![
                PictureEdge {
                    from: 0,
                    to: 1,
                    text: "fp16 [1, 64]".into(),
                },
                PictureEdge {
                    from: 1,
                    to: 2,
                    text: String::new(),
                },
            ],
            omitted: 0,
        };
        let svg = render(&p, "pic");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<g class=\"node").count(), 3, "{svg}");
        assert!(svg.contains("class=\"node input labelled\" id=\"pic-n0\""));
        assert!(svg
            .contains("class=\"node cpu hl flagged\" id=\"pic-n1\" data-name=\"b&lt;&amp;&gt;\""));
        assert!(svg.contains("▸ the window starts here"));
        assert!(svg.contains(">fp16 [1, 64]<"), "the edge carries its type");
        assert_eq!(svg.matches("class=\"edge\"").count(), 2, "{svg}");
        assert!(svg.contains("class=\"bar ane\"") && svg.contains("class=\"bar cpu\""));
        assert!(
            !svg.contains("class=\"bar risk\""),
            "no bar for an empty class"
        );
        let groups_open = svg.matches("<g ").count();
        assert_eq!(groups_open, svg.matches("</g>").count(), "balanced groups");
    }

    #[test]
    fn an_empty_picture_is_an_empty_svg() {
        let svg = render(&Picture::default(), "e");
        assert!(svg.starts_with("<svg") && !svg.contains("class=\"node"));
    }
}
