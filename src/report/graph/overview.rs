//! The picture of a whole function. A small function is drawn op by op; a large one (a 6,500-op
//! decoder) as a chain of groups of consecutive ops in program order, each box naming its ops'
//! range and commonest types, with a bar of its placement estimate and a badge counting its
//! findings. Converters emit a layer's ops together, so consecutive groups follow the layers.
//! A condensed view draws the values between nearby groups only (`MAX_GROUP_SPAN`), and each input
//! into the first group that reads it.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{picture_of, NodeKind, Picture, PictureEdge, PictureNode, Placements};
use crate::analysis::placement::Counts;
use crate::finding::Finding;
use crate::ir::{Function, NodeId};

/// Functions with at most this many drawn ops are drawn op by op.
pub const FULL_UP_TO: usize = 80;
/// About how many groups a large function is condensed into.
pub const GROUPS: usize = 48;
/// Values that flow further than this many groups ahead are not drawn in a condensed view: the
/// layout of many long edges costs seconds and hides the chain of layers.
const MAX_GROUP_SPAN: usize = 2;
/// Inputs are drawn when a function has at most this many.
const MAX_INPUTS: usize = 24;

/// A function's overview picture and which of its boxes holds each op.
#[derive(Clone, Debug, Default)]
pub struct Overview {
    /// What is drawn.
    pub picture: Picture,
    /// Op (or input) name → the box drawn for it.
    box_of: FxHashMap<String, usize>,
    /// Whether boxes are groups of ops.
    pub grouped: bool,
}

impl Overview {
    /// The box holding the op (or input) called `name`.
    pub fn box_of(&self, name: &str) -> Option<usize> {
        self.box_of.get(name).copied()
    }
}

/// Names a finding stands for (its op and its region).
fn finding_names(x: &Finding) -> impl Iterator<Item = &str> {
    x.op.as_deref().into_iter().chain(
        x.covered
            .iter()
            .flat_map(|c| c.names.iter().map(String::as_str)),
    )
}

/// The overview of `f`; `findings` are its model's (others' are skipped).
pub fn overview(f: &Function, placements: &Placements, findings: &[Finding]) -> Overview {
    let mine: Vec<&Finding> = findings
        .iter()
        .filter(|x| x.function.as_deref() == Some(f.name.as_str()))
        .collect();
    let inputs: Vec<NodeId> = f.inputs().map(|(id, _)| id).collect();
    let inputs = if inputs.len() <= MAX_INPUTS {
        inputs
    } else {
        Vec::new()
    };
    let ops: Vec<NodeId> = f
        .ops()
        .filter(|(_, op)| op.op_type != "const")
        .map(|(id, _)| id)
        .collect();
    if ops.len() <= FULL_UP_TO {
        let ids: Vec<NodeId> = inputs.iter().chain(&ops).copied().collect();
        let picture = picture_of(f, &ids, placements, &mine);
        let box_of = picture
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i))
            .collect();
        return Overview {
            picture,
            box_of,
            grouped: false,
        };
    }
    grouped(f, &inputs, &ops, placements, &mine)
}

fn grouped(
    f: &Function,
    inputs: &[NodeId],
    ops: &[NodeId],
    placements: &Placements,
    findings: &[&Finding],
) -> Overview {
    let size = ops.len().div_ceil(GROUPS);
    let mut picture = Picture::default();
    let mut box_of: FxHashMap<String, usize> = FxHashMap::default();
    let mut box_of_node: FxHashMap<NodeId, usize> = FxHashMap::default();
    for &id in inputs {
        let p = picture_of(f, &[id], placements, findings);
        if let Some(n) = p.nodes.into_iter().next() {
            box_of.insert(n.name.clone(), picture.nodes.len());
            box_of_node.insert(id, picture.nodes.len());
            picture.nodes.push(n);
        }
    }
    for (k, chunk) in ops.chunks(size).enumerate() {
        let index = picture.nodes.len();
        let mut counts = Counts::default();
        let mut types: FxHashMap<&str, usize> = FxHashMap::default();
        for &id in chunk {
            box_of_node.insert(id, index);
            if let Some(op) = f.op(id) {
                box_of.insert(op.display_name().to_string(), index);
                for o in &op.outputs {
                    box_of.entry(o.name.to_string()).or_insert(index);
                }
                *types.entry(op.op_type.as_str()).or_default() += 1;
            }
            if let Some(&likely) = placements.get(&id) {
                counts.add(likely);
            }
        }
        let mut types: Vec<(&str, usize)> = types.into_iter().collect();
        types.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let common: Vec<String> = types
            .iter()
            .take(3)
            .map(|(t, n)| format!("{t}×{n}"))
            .collect();
        let first = chunk
            .first()
            .and_then(|&id| f.op(id))
            .map_or("", |o| o.display_name());
        let first: String = if first.chars().count() > 36 {
            first.chars().take(35).chain(['…']).collect()
        } else {
            first.to_string()
        };
        let start = k * size + 1;
        picture.nodes.push(PictureNode {
            name: format!("group {}", k + 1),
            lines: vec![
                format!("ops {start}–{} of {}", start + chunk.len() - 1, ops.len()),
                format!("from {first}"),
                common.join(" · "),
            ],
            kind: NodeKind::Group,
            highlight: false,
            labels: Vec::new(),
            findings: 0,
            counts: Some(counts),
        });
    }
    for x in findings {
        let boxes: FxHashSet<usize> = finding_names(x)
            .filter_map(|n| box_of.get(n).copied())
            .collect();
        for b in boxes {
            if let Some(n) = picture.nodes.get_mut(b) {
                n.findings += 1;
            }
        }
    }
    let mut edges: FxHashSet<(usize, usize)> = FxHashSet::default();
    for &id in ops {
        let Some(&to) = box_of_node.get(&id) else {
            continue;
        };
        for (src, _) in f.producers(id) {
            if let Some(&from) = box_of_node.get(&src) {
                let is_input = from < inputs.len();
                if from != to && (is_input || to.abs_diff(from) <= MAX_GROUP_SPAN) {
                    edges.insert((from, to));
                }
            }
        }
    }
    let mut edges: Vec<(usize, usize)> = edges.into_iter().collect();
    edges.sort_unstable();
    // An input is drawn into the first group that reads it only.
    edges.dedup_by(|b, a| a.0 == b.0 && a.0 < inputs.len());
    picture.edges = edges
        .into_iter()
        .map(|(from, to)| PictureEdge {
            from,
            to,
            text: String::new(),
        })
        .collect();
    Overview {
        picture,
        box_of,
        grouped: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::snippet_model;

    /// A chain of `n` relus after one input.
    fn chain(n: usize) -> String {
        let mut body = String::new();
        let mut prev = "x".to_string();
        for i in 0..n {
            body.push_str(&format!(
                "            tensor<fp16, [1, 64]> r{i} = relu(x = {prev})[name = string(\"r{i}\")];\n"
            ));
            prev = format!("r{i}");
        }
        format!("program(1.3)\n{{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {{\n{body}        }} -> ({prev});\n}}\n")
    }

    #[test]
    fn small_functions_are_drawn_op_by_op() {
        let m = snippet_model("m", &chain(5)).unwrap();
        let f = &m.program.functions[0];
        let o = overview(
            f,
            &crate::check::placement::place_function(f, &[]).by_node(),
            &[],
        );
        assert!(!o.grouped);
        assert_eq!(o.picture.nodes.len(), 6, "the input and five ops");
        assert_eq!(o.picture.edges.len(), 5);
        assert_eq!(o.box_of("r3"), Some(4));
    }

    #[test]
    fn large_functions_are_grouped_with_findings_counted() {
        let n = 1000;
        let m = snippet_model("m", &chain(n)).unwrap();
        let f = &m.program.functions[0];
        let x = Finding {
            function: Some("main".into()),
            op: Some("r999".into()),
            ..Finding::bare("tensor-rank", "m")
        };
        let findings = [x];
        let o = overview(
            f,
            &crate::check::placement::place_function(f, &findings).by_node(),
            &findings,
        );
        assert!(o.grouped);
        let groups: Vec<&PictureNode> = o
            .picture
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Group)
            .collect();
        assert!(
            groups.len() <= GROUPS && groups.len() > GROUPS / 2,
            "{}",
            groups.len()
        );
        let total: usize = groups.iter().map(|g| g.counts.unwrap().total()).sum();
        assert_eq!(total, n, "every op is in one group");
        let last = o.box_of("r999").unwrap();
        assert_eq!(o.picture.nodes[last].findings, 1);
        assert_eq!(o.picture.nodes[last].counts.unwrap().at_risk, 1);
        assert_eq!(o.picture.nodes.iter().map(|n| n.findings).sum::<usize>(), 1);
        // A chain: each group feeds the next.
        assert_eq!(o.picture.edges.len(), o.picture.nodes.len() - 1);
    }
}
