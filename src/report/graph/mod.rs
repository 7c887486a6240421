//! Pictures of a function's graph, for the HTML report and `coreml-lint graph`: which nodes a
//! picture shows (`select`), the layer of each op (`layers`), the condensed view
//! of a whole function (`overview`), the drawing (`svg` through layout-rs, `dot`), and the
//! export to Model Explorer (`model_explorer`).

pub mod dot;
pub mod layers;
pub mod model_explorer;
pub mod overview;
pub mod select;
pub mod svg;

use std::fmt::Write;

use rustc_hash::FxHashMap;

use crate::analysis::placement::{Counts, Likely};
use crate::finding::Finding;
use crate::ir::{Function, Node, NodeId, ValueType};

/// The estimate's class of each counted op of a function (`check::placement`; constants are
/// absent).
pub type Placements = FxHashMap<NodeId, Likely>;

/// The class an op is drawn with: `Unknown` for an op the estimate does not count.
pub fn class_of(placements: &Placements, id: NodeId) -> Likely {
    placements.get(&id).copied().unwrap_or(Likely::Unknown)
}

/// The CSS class and legend word of a placement class.
pub fn css_class(likely: Likely) -> &'static str {
    match likely {
        Likely::Ane => "ane",
        Likely::Cpu => "cpu",
        Likely::AtRisk => "risk",
        Likely::Unknown => "unknown",
    }
}

/// What a drawn node stands for, which sets its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An op, by its estimated placement.
    Op(Likely),
    /// A function or block input (a state among them).
    Input,
    /// A group of consecutive ops in an overview.
    Group,
}

/// One box of a picture.
#[derive(Clone, Debug, PartialEq)]
pub struct PictureNode {
    /// The op's (or input's, or group's) name, unique in the picture.
    pub name: String,
    /// The text drawn in the box, one entry a line.
    pub lines: Vec<String>,
    /// What it stands for.
    pub kind: NodeKind,
    /// The op a finding reports (drawn with a heavy outline).
    pub highlight: bool,
    /// Texts of the finding's labels on this node.
    pub labels: Vec<String>,
    /// How many findings of the run are on this node (or group).
    pub findings: usize,
    /// Placement counts of a group.
    pub counts: Option<Counts>,
}

/// One arrow: a value from one box to another, labelled with its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PictureEdge {
    /// The producer's index in `Picture::nodes`.
    pub from: usize,
    /// The consumer's index.
    pub to: usize,
    /// The value's type.
    pub text: String,
}

/// A graph to draw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Picture {
    /// The boxes, in program order.
    pub nodes: Vec<PictureNode>,
    /// The arrows.
    pub edges: Vec<PictureEdge>,
    /// Nodes left out because the region was larger than a picture holds.
    pub omitted: usize,
    /// The nodes a picture is about (a finding's nodes and the paths between them), indices
    /// into `nodes`: a picture too large to be legible whole opens on them.
    pub focus: Vec<usize>,
}

/// A value type as drawn on an edge: `fp16 [1, 64]`, `state fp16 [1, 8, 64]`.
pub fn type_text(ty: &ValueType) -> String {
    match ty {
        ValueType::Tensor(t) => {
            let mut s = t.dtype.text_name();
            match &t.shape {
                Some(dims) => {
                    s.push_str(" [");
                    for (i, d) in dims.iter().enumerate() {
                        if i > 0 {
                            s.push_str(", ");
                        }
                        match d.known() {
                            Some(n) => {
                                let _ = write!(s, "{n}");
                            }
                            None => s.push('?'),
                        }
                    }
                    s.push(']');
                }
                None => s.push_str(" [*]"),
            }
            s
        }
        ValueType::State(inner) => format!("state {}", type_text(inner)),
        other => format!("{other:?}")
            .split(['(', ' ', '{'])
            .next()
            .unwrap_or("value")
            .to_lowercase(),
    }
}

/// The name a node is known by: an op's display name, an input's name.
pub fn node_name(f: &Function, id: NodeId) -> &str {
    match f.node(id) {
        Some(Node::Op(op)) => op.display_name(),
        Some(Node::Input(i)) => i.name.as_str(),
        None => "",
    }
}

/// Draws the nodes `ids` of `f` (in the order given) with the values between them.
pub fn picture_of(
    f: &Function,
    ids: &[NodeId],
    placements: &Placements,
    findings: &[&Finding],
) -> Picture {
    let index: rustc_hash::FxHashMap<NodeId, usize> =
        ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut nodes = Vec::with_capacity(ids.len());
    for &id in ids {
        let (lines, kind) = match f.node(id) {
            Some(Node::Op(op)) => {
                let mut lines = vec![op.op_type.to_string(), op.display_name().to_string()];
                let outs: Vec<&str> = op
                    .outputs
                    .iter()
                    .map(|o| o.name.as_str())
                    .filter(|n| f.outputs().iter().any(|x| x == n))
                    .collect();
                if !outs.is_empty() {
                    lines.push(format!("→ output {}", outs.join(", ")));
                }
                (lines, NodeKind::Op(class_of(placements, id)))
            }
            Some(Node::Input(i)) => (
                vec![
                    if i.ty.is_state() { "state" } else { "input" }.to_string(),
                    i.name.to_string(),
                    type_text(&i.ty),
                ],
                NodeKind::Input,
            ),
            None => (Vec::new(), NodeKind::Input),
        };
        let name = node_name(f, id);
        nodes.push(PictureNode {
            name: name.to_string(),
            lines,
            kind,
            highlight: false,
            labels: Vec::new(),
            findings: findings
                .iter()
                .filter(|x| x.op.as_deref() == Some(name))
                .count(),
            counts: None,
        });
    }
    let mut edges = Vec::new();
    for (to, &id) in ids.iter().enumerate() {
        let mut seen: Vec<(usize, u32)> = Vec::new();
        for (src, e) in f.producers(id) {
            let Some(&from) = index.get(&src) else {
                continue;
            };
            if seen.contains(&(from, e.output)) {
                continue;
            }
            seen.push((from, e.output));
            let text = match f.node(src) {
                Some(Node::Op(op)) => op
                    .outputs
                    .get(e.output as usize)
                    .map(|o| type_text(&o.ty))
                    .unwrap_or_default(),
                Some(Node::Input(i)) => type_text(&i.ty),
                None => String::new(),
            };
            edges.push(PictureEdge { from, to, text });
        }
    }
    Picture {
        nodes,
        edges,
        omitted: 0,
        focus: Vec::new(),
    }
}

/// Escapes text for XML and HTML (element content and quoted attributes), a model's controls
/// and bidi characters shown as their escapes ([`model_text::xml`]).
pub fn escape(text: &str) -> String {
    crate::report::model_text::xml(text)
}

/// The picture of finding `x` in `f`: the region `select::finding_region` chooses, its op
/// highlighted and its labels on their nodes.
pub fn finding_picture(
    ix: &select::FunctionIndex<'_>,
    f: &Function,
    placements: &Placements,
    x: &Finding,
    findings: &[&Finding],
) -> Picture {
    let region = select::finding_region(ix, x);
    let mut p = picture_of(f, &region.nodes, placements, findings);
    p.omitted = region.omitted;
    // The primary node first: a view that cannot hold every focus node centres on it.
    p.focus = region
        .primary
        .iter()
        .chain(region.core.iter().filter(|&&c| region.primary != Some(c)))
        .filter_map(|c| region.nodes.iter().position(|n| n == c))
        .collect();
    for (i, &id) in region.nodes.iter().enumerate() {
        let Some(n) = p.nodes.get_mut(i) else {
            continue;
        };
        n.highlight = region.primary == Some(id);
        n.labels = region
            .labels
            .iter()
            .filter(|(l, _)| *l == id)
            .map(|(_, t)| t.clone())
            .collect();
    }
    p
}

/// The nodes within `depth` hops of the op (or input) `name`, that node highlighted; `None` when
/// `f` has no such node.
pub fn around_picture(
    f: &Function,
    placements: &Placements,
    name: &str,
    depth: usize,
    findings: &[&Finding],
) -> Option<Picture> {
    let ix = select::FunctionIndex::new(f);
    let seed = ix.named(name)?;
    let (mut nodes, omitted) = select::around(f, &[seed], depth, select::MAX_NODES * 4);
    nodes.sort_by_key(|&n| select::order(f, n));
    let mut p = picture_of(f, &nodes, placements, findings);
    p.omitted = omitted;
    for (i, &id) in nodes.iter().enumerate() {
        if let Some(n) = p.nodes.get_mut(i) {
            n.highlight = id == seed;
        }
    }
    p.focus = nodes.iter().position(|&n| n == seed).into_iter().collect();
    Some(p)
}

/// What `coreml-lint graph` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFormat {
    /// Graphviz DOT.
    Dot,
    /// One SVG document.
    Svg,
    /// A page with the pictures, zoomable.
    Html,
}

/// What `coreml-lint graph` draws.
#[derive(Clone, Debug, Default)]
pub struct GraphRequest {
    /// Only this function (default: every function; DOT and SVG draw the first).
    pub function: Option<String>,
    /// The op (or input) to draw around (default: the function's overview).
    pub around: Option<String>,
    /// Hops around `around`.
    pub depth: usize,
}

/// The pictures `request` asks for in every checked model of `run`, titled; an error names what
/// was not found.
pub fn pictures(
    run: &crate::check::CheckRun,
    request: &GraphRequest,
) -> Result<Vec<(String, Picture)>, String> {
    let mut out = Vec::new();
    for (model, findings) in run.checked() {
        let title = match &model.sub_model {
            Some(sub) => format!("{} ({sub})", model.path.display()),
            None => model.path.display().to_string(),
        };
        let mine: Vec<&Finding> = findings.iter().collect();
        // Units without the Neural Engine: no estimate, every op drawn uncoloured.
        let excluded = crate::check::placement::ane_excluded(run, model).is_some();
        for f in &model.program.functions {
            if request.function.as_deref().is_some_and(|n| n != f.name) {
                continue;
            }
            let p = if excluded {
                Placements::default()
            } else {
                crate::check::placement::place_function(f, findings).by_node()
            };
            let picture = match &request.around {
                Some(op) => match around_picture(f, &p, op, request.depth, &mine) {
                    Some(pic) => pic,
                    None => continue,
                },
                None => overview::overview(f, &p, findings).picture,
            };
            out.push((format!("{title} · {}", f.name), picture));
        }
    }
    if out.is_empty() {
        let functions = || run.checked().flat_map(|(m, _)| &m.program.functions);
        let what = match (&request.function, &request.around) {
            (Some(f), _) if !functions().any(|x| x.name == *f) => format!(
                "no function `{f}`{}",
                crate::suggest::did_you_mean(f, functions().map(|x| x.name.as_str()))
            ),
            (function, Some(op)) => {
                let names: Vec<&str> = functions()
                    .filter(|f| function.as_deref().is_none_or(|n| n == f.name))
                    .flat_map(node_names)
                    .collect();
                let within = function
                    .as_ref()
                    .map_or_else(String::new, |f| format!(" in a function `{f}`"));
                format!(
                    "no op or input `{op}`{within}{}",
                    crate::suggest::did_you_mean(op, names)
                )
            }
            (Some(f), None) => format!("no function `{f}`"),
            (None, None) => "no ML program function".to_string(),
        };
        return Err(what);
    }
    Ok(out)
}

/// The names `--around` finds in `f`: its inputs, its ops' names and their outputs.
fn node_names(f: &Function) -> impl Iterator<Item = &str> + '_ {
    f.inputs()
        .map(|(_, i)| i.name.as_str())
        .chain(f.ops().flat_map(|(_, op)| {
            std::iter::once(op.display_name()).chain(op.outputs.iter().map(|o| o.name.as_str()))
        }))
}
