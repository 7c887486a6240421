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

/// Collects layout-rs's draw calls as SVG: the arrows, their type labels and the boxes (drawn
/// in that order, boxes on top), and where each box is.
struct Canvas<'p> {
    picture: &'p Picture,
    /// The nodes that are link targets, and their ids' prefix.
    node_ids: Option<NodeIds<'p>>,
    nodes: String,
    edges: String,
    lines: String,
    labels: String,
    boxes: Vec<Option<Rect>>,
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
        if let Some(slot) = self.boxes.get_mut(index) {
            *slot = Some(Rect {
                x: xy.x,
                y: xy.y,
                w: size.x,
                h: size.y,
            });
        }
        let _ = write!(self.nodes, "<g class=\"{}\"", node_class(n));
        if let Some(ids) = self
            .node_ids
            .filter(|ids| ids.only.is_none_or(|only| only.contains(&index)))
        {
            let _ = write!(self.nodes, " id=\"{}-n{index}\"", ids.prefix);
        }
        let _ = write!(
            self.nodes,
            " data-name=\"{}\"><rect x=\"{:.0}\" y=\"{:.0}\" width=\"{:.0}\" height=\"{:.0}\" rx=\"4\"/>",
            escape(&n.name),
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
                    self.nodes,
                    "<rect class=\"bar {class}\" x=\"{x:.1}\" y=\"{y:.0}\" width=\"{width:.1}\" height=\"7\"/>"
                );
                x += width;
            }
        }
        if n.findings > 0 {
            let _ = write!(
                self.nodes,
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
            self.lines,
            "<line x1=\"{:.0}\" y1=\"{:.0}\" x2=\"{:.0}\" y2=\"{:.0}\"/>",
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
        let node = self.open.take().is_some();
        let lines: Vec<&str> = text.lines().collect();
        if lines.is_empty() {
            if node {
                self.nodes.push_str("</g>");
            }
            return;
        }
        let height = if node { LINE_HEIGHT } else { 11.0 };
        let top = xy.y - height * (lines.len() as f64 - 1.0) / 2.0 + 4.0;
        let out = if node {
            &mut self.nodes
        } else {
            &mut self.labels
        };
        if let [line] = lines[..] {
            let _ = write!(
                out,
                "<text x=\"{:.0}\" y=\"{top:.0}\">{}</text>",
                xy.x,
                escape(line)
            );
        } else {
            out.push_str("<text>");
            for (i, line) in lines.iter().enumerate() {
                let _ = write!(
                    out,
                    "<tspan x=\"{:.0}\" y=\"{:.0}\">{}</tspan>",
                    xy.x,
                    top + height * i as f64,
                    escape(line)
                );
            }
            out.push_str("</text>");
        }
        if node {
            self.nodes.push_str("</g>");
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
        let out = if head.1 {
            &mut self.edges
        } else {
            &mut self.lines
        };
        let _ = write!(out, "<path d=\"{d}\"/>");
    }

    fn create_clip(&mut self, _xy: Point, _size: Point, _rounded_px: usize) -> ClipHandle {
        0
    }
}

fn style(font_size: usize) -> StyleAttr {
    StyleAttr::new(Color::fast("black"), 1, None, 4, font_size)
}

/// A box in picture coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    fn union(self, o: Rect) -> Rect {
        let (x, y) = (self.x.min(o.x), self.y.min(o.y));
        Rect {
            x,
            y,
            w: (self.x + self.w).max(o.x + o.w) - x,
            h: (self.y + self.h).max(o.y + o.h) - y,
        }
    }

    fn centre(self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }
}

/// A laid-out picture: its SVG content (no `<svg>` element around it), its extent and the box
/// of each node.
#[derive(Clone, Debug)]
pub struct Drawing {
    /// The content; arrows end in the marker `#{arrow}` named at `draw`.
    pub body: String,
    /// The whole picture's width, from 0.
    pub width: f64,
    /// Its height, from 0.
    pub height: f64,
    /// Where each node of the picture was drawn.
    pub boxes: Vec<Option<Rect>>,
}

/// Which nodes of a picture get an id, `{prefix}-n{index}`.
#[derive(Clone, Copy)]
pub struct NodeIds<'a> {
    /// Written before each node's `-n{index}`.
    pub prefix: &'a str,
    /// Only these (in a report, the boxes a finding links to: an id on every node of every
    /// overview cost 40 KB of a 3 MB report); `None`: every node.
    pub only: Option<&'a std::collections::BTreeSet<usize>>,
}

/// Lays `p` out top to bottom. Arrows end in the marker `#{arrow}` (see `marker`); the nodes
/// `node_ids` names get their ids.
pub fn draw(p: &Picture, node_ids: Option<NodeIds<'_>>, arrow: &str) -> Drawing {
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
        node_ids,
        nodes: String::new(),
        edges: String::new(),
        lines: String::new(),
        labels: String::new(),
        boxes: vec![None; p.nodes.len()],
        max: Point::zero(),
        open: None,
    };
    if !p.nodes.is_empty() {
        vg.do_it(false, !optimize, false, &mut canvas);
    }
    let mut body = String::with_capacity(
        canvas.nodes.len() + canvas.edges.len() + canvas.labels.len() + canvas.lines.len() + 96,
    );
    if !canvas.edges.is_empty() {
        let _ = write!(
            body,
            "<g class=\"edges\" marker-end=\"url(#{arrow})\">{}</g>",
            canvas.edges
        );
    }
    if !canvas.lines.is_empty() {
        let _ = write!(body, "<g class=\"edges\">{}</g>", canvas.lines);
    }
    if !canvas.labels.is_empty() {
        let _ = write!(body, "<g class=\"edge-labels\">{}</g>", canvas.labels);
    }
    body.push_str(&canvas.nodes);
    Drawing {
        body,
        width: (canvas.max.x + 12.0).ceil(),
        height: (canvas.max.y + 12.0).ceil(),
        boxes: canvas.boxes,
    }
}

/// The arrow head every edge of a picture ends in, as a `<marker>` with id `id`.
pub fn marker(id: &str) -> String {
    format!(
        "<marker id=\"{id}\" markerWidth=\"8\" markerHeight=\"6\" refX=\"8\" refY=\"3\" orient=\"auto\"><path d=\"M0 0L8 3L0 6z\"/></marker>"
    )
}

/// The width of the box a finding's picture is fitted into: a report column at a 1300 px window
/// (the page is at most 1200 px wide).
pub const BOX_WIDTH: f64 = 1080.0;
/// Its height: room for the finding's text beside it on one screen.
pub const BOX_HEIGHT: f64 = 560.0;
/// The smallest scale a picture is drawn at by default: its 12 px labels at 9 px. A picture
/// that would be smaller when fitted whole opens on the neighbourhood of its focus instead.
pub const MIN_SCALE: f64 = 0.75;

/// What a picture shows by default and how large: `view` (picture coordinates) drawn at
/// `width` × `height` px.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// What is shown, in picture coordinates.
    pub view: Rect,
    /// Drawn this wide (px).
    pub width: f64,
    /// And this tall.
    pub height: f64,
    /// The view is the whole picture.
    pub whole: bool,
}

impl View {
    /// The `viewBox` attribute's value.
    pub fn view_box(&self) -> String {
        format!(
            "{:.0} {:.0} {:.0} {:.0}",
            self.view.x, self.view.y, self.view.w, self.view.h
        )
    }
}

/// The default view of `d` in a box of `box_w` × `box_h` px: the whole picture when it fits at
/// `MIN_SCALE` or more (never enlarged); otherwise the largest window that is drawn at
/// `MIN_SCALE`, centred on the nodes `focus` when they fit in it, else on the first of them.
pub fn fit(d: &Drawing, focus: &[usize], box_w: f64, box_h: f64) -> View {
    let (w, h) = (d.width.max(1.0), d.height.max(1.0));
    let whole = Rect {
        x: 0.0,
        y: 0.0,
        w,
        h,
    };
    let scale = (box_w / w).min(box_h / h).min(1.0);
    if scale >= MIN_SCALE {
        return View {
            view: whole,
            width: (w * scale).round(),
            height: (h * scale).round(),
            whole: true,
        };
    }
    let (vw, vh) = (w.min(box_w / MIN_SCALE), h.min(box_h / MIN_SCALE));
    let boxes: Vec<Rect> = focus
        .iter()
        .filter_map(|&i| d.boxes.get(i).copied().flatten())
        .collect();
    let centre = match boxes.split_first() {
        Some((first, rest)) => {
            let all = rest.iter().fold(*first, |a, b| a.union(*b));
            if all.w <= vw && all.h <= vh {
                all.centre()
            } else {
                first.centre()
            }
        }
        None => whole.centre(),
    };
    let x = (centre.0 - vw / 2.0).clamp(0.0, w - vw);
    let y = (centre.1 - vh / 2.0).clamp(0.0, h - vh);
    View {
        view: Rect { x, y, w: vw, h: vh },
        width: (vw * MIN_SCALE).round(),
        height: (vh * MIN_SCALE).round(),
        whole: false,
    }
}

/// Lays `p` out top to bottom and writes it as an `<svg>` element, whole, with its own arrow
/// marker; `id` prefixes every element id (one page holds many pictures).
pub fn render(p: &Picture, id: &str) -> String {
    let arrow = format!("{id}-arrow");
    let ids = NodeIds {
        prefix: id,
        only: None,
    };
    let d = draw(p, Some(ids), &arrow);
    format!(
        "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" id=\"{id}\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\"><defs>{}</defs>{}</svg>",
        marker(&arrow),
        d.body,
        w = d.width,
        h = d.height,
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
            focus: vec![1],
        };
        let svg = render(&p, "pic");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<g class=\"node").count(), 3, "{svg}");
        assert!(svg.contains("class=\"node input labelled\" id=\"pic-n0\""));
        assert!(svg
            .contains("class=\"node cpu hl flagged\" id=\"pic-n1\" data-name=\"b&lt;&amp;&gt;\""));
        assert!(svg.contains("▸ the window starts here"));
        assert!(svg.contains(">fp16 [1, 64]<"), "the edge carries its type");
        let edges = &svg[svg
            .find("<g class=\"edges\" marker-end=\"url(#pic-arrow)\">")
            .unwrap()..];
        assert_eq!(
            edges[..edges.find("</g>").unwrap()]
                .matches("<path ")
                .count(),
            2,
            "{svg}"
        );
        assert!(svg.contains("<marker id=\"pic-arrow\""));
        assert!(svg.contains("class=\"bar ane\"") && svg.contains("class=\"bar cpu\""));
        assert!(
            !svg.contains("class=\"bar risk\""),
            "no bar for an empty class"
        );
        let groups_open = svg.matches("<g ").count();
        assert_eq!(groups_open, svg.matches("</g>").count(), "balanced groups");
    }

    fn chain(n: usize, label: &str) -> Picture {
        let nodes = (0..n)
            .map(|i| {
                let mut x = node(&format!("op_{i}"), NodeKind::Op(Likely::Ane));
                x.labels.push(label.into());
                x
            })
            .collect();
        let edges = (1..n)
            .map(|i| PictureEdge {
                from: i - 1,
                to: i,
                text: "fp16 [1, 64]".into(),
            })
            .collect();
        Picture {
            nodes,
            edges,
            omitted: 0,
            focus: Vec::new(),
        }
    }

    #[test]
    fn a_small_picture_is_shown_whole_and_never_enlarged() {
        let d = draw(&chain(3, "x"), None, "a");
        let v = fit(&d, &[1], BOX_WIDTH, BOX_HEIGHT);
        assert!(v.whole);
        assert_eq!((v.width, v.height), (d.width, d.height));
        assert_eq!(v.view_box(), format!("0 0 {} {}", d.width, d.height));
        assert!(d.boxes.iter().all(Option::is_some), "every box is known");
    }

    #[test]
    fn a_long_chain_opens_legible_on_its_focus() {
        let d = draw(&chain(30, "x"), None, "a");
        assert!(d.height * MIN_SCALE > BOX_HEIGHT, "{}", d.height);
        let v = fit(&d, &[20], BOX_WIDTH, BOX_HEIGHT);
        assert!(!v.whole);
        assert!(v.width <= BOX_WIDTH && v.height <= BOX_HEIGHT);
        assert!(
            (v.width / v.view.w - MIN_SCALE).abs() < 0.01,
            "legible: {v:?}"
        );
        let b = d.boxes[20].unwrap();
        assert!(
            v.view.y <= b.y && b.y + b.h <= v.view.y + v.view.h,
            "the focus is in view"
        );
        assert!(
            v.view.y >= 0.0 && v.view.y + v.view.h <= d.height + 0.5,
            "inside the picture"
        );
        // Focus nodes too far apart for one legible view: centred on the first.
        let v = fit(&d, &[2, 29], BOX_WIDTH, BOX_HEIGHT);
        let b = d.boxes[2].unwrap();
        assert!(v.view.y <= b.y && b.y + b.h <= v.view.y + v.view.h, "{v:?}");
    }

    #[test]
    fn an_empty_picture_is_an_empty_svg() {
        let svg = render(&Picture::default(), "e");
        assert!(svg.starts_with("<svg") && !svg.contains("class=\"node"));
    }
}
