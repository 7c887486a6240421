//! Message / help / fix-title templates: `{X}` and `{X.accessor}` placeholders over captures, from a
//! closed set of accessors per capture kind (checked at load). `{{` and `}}` are literal braces.

use std::collections::BTreeSet;

use super::bindings::{Binding, Bindings, ValueInfo};
use super::context::{range_of, Ctx};
use super::entity_rule::{placeholder_text, EntityRule};
use super::target::{families_text, DeployTarget, Family};
use super::vars::{VarKind, Vars, BUILTIN_VARS, TARGET_VAR};
use crate::analysis::entity::Entity;
use crate::analysis::value_text;
use crate::ir::{Node, NodeId, TensorType, ValueType};

/// Accessors of an op / input capture (`{OP}` is one).
pub const NODE_ACCESSORS: &[(&str, &str)] = &[
    ("", "the op's name (or the input's name)"),
    ("type", "op type, or `input`"),
    (
        "dtype",
        "element type of its first output (or of the input)",
    ),
    ("shape", "shape of its first output (or of the input)"),
];
/// Accessors of a value capture.
pub const VALUE_ACCESSORS: &[(&str, &str)] = &[
    ("", "the value's name"),
    ("dtype", "element type"),
    ("shape", "shape, e.g. [1, 8, 4]"),
    ("rank", "rank"),
    ("value", "the constant value when known"),
    ("source", "what it depends on at run time"),
    ("axes", value_text::AXES_DOC),
    ("flexibility", value_text::FLEXIBILITY_DOC),
    (
        "range",
        "for an integer value, the interval its elements lie in for valid inputs, e.g. [0, 31999]",
    ),
];

/// Accessors of a state capture (`state: $S`).
pub const STATE_ACCESSORS: &[(&str, &str)] = &[
    ("", "the state's name"),
    ("dtype", "element type"),
    ("shape", "shape, e.g. [4, 2, 256, 32]"),
    ("rank", "rank"),
    ("elements", "number of elements"),
    ("pad_axis", "the axis the pad fix grows (the position axis)"),
    ("rows", "size of the pad axis"),
    ("padded_rows", "size of the pad axis plus one"),
    ("padded_shape", "shape with one more row on the pad axis"),
    ("writes", "number of writes into the state in this function"),
    (
        "fix",
        "what the state fix does, or why there is none (from the model's fix plan)",
    ),
];
/// Accessors of a state write capture (`window: $W`).
pub const WRITE_ACCESSORS: &[(&str, &str)] = &[
    ("", "the written window, one half-open range per axis"),
    (
        "inner",
        "the window the innermost slice_update writes (below full-window wrappers)",
    ),
    (
        "wrapped",
        "empty, or a sentence naming the full-window wrappers and the inner window",
    ),
    ("kind", "slice-update, blend, scatter, concat or fresh"),
    ("op", "name of the write op"),
    ("state", "name of the state"),
    ("read", "name of the read_state op"),
    ("slice_update", "name of the slice_update op"),
    (
        "pad_range",
        "the inner window on the state's pad axis, e.g. [0, 256)",
    ),
    ("partial_axes", "axes the window leaves partial"),
    ("uncovered", "most indices left out on one axis"),
    ("begin_source", "what `begin` depends on at run time"),
    ("end_source", "what `end` depends on at run time"),
    ("nth", "position among the writes into the state (1-based)"),
    ("writes", "number of writes into the state in this function"),
    ("other_writes", "names of the other writes into the state"),
    (
        "also_written_by",
        "`; also written by `a`, `b`` (the other writes into the state), or nothing",
    ),
    ("rmw_ops", "element-wise ops that rewrite the old content"),
    ("rmw_count", "number of those ops"),
];

/// Accessors of the region of an `origin:` rule (`{REGION}`).
pub const REGION_ACCESSORS: &[(&str, &str)] = &[
    ("", "the number of other ops in the region"),
    ("count", "the number of other ops in the region"),
    (
        "ops",
        "the first few of them, e.g. `a` (add), `b` (mul) and 3 more",
    ),
    (
        "repeats",
        "`; the same construct repeats 9 more times in `main`, at `a` (expand_dims), …` (`region: construct`), or nothing",
    ),
    ("origins", "the number of origins (entries) of the region"),
    (
        "exits",
        "the first few ops outside the region reading its values",
    ),
    (
        "share",
        "the region's size against the function's, e.g. `5 of the 40 ops of main`",
    ),
];

/// Accessors of the other matches of a `group-by:` finding (`{GROUP}`).
pub const GROUP_ACCESSORS: &[(&str, &str)] = &[
    ("", "the number of other matches the finding stands for"),
    (
        "count",
        "the number of other matches the finding stands for",
    ),
    (
        "ops",
        "the first few of them, e.g. `a` (conv), `b` (conv) and 3 more (`none`)",
    ),
    (
        "also",
        "empty, or ` and 7 more (`a`, `b`, `c` and 4 more)`: to follow the matched op's name",
    ),
];

/// Accessors of the peers of a node (`peers: { capture: $P }`).
pub const PEERS_ACCESSORS: &[(&str, &str)] = &[
    (
        "",
        "the names of the other peers, e.g. `b`, `c` and 3 more (`none`)",
    ),
    (
        "count",
        "the number of peers, the node included when it is one",
    ),
    ("others", "the names of the other peers"),
    (
        "nth",
        "the node's 1-based position among them (`?` when it is not one)",
    ),
];

/// Accessors of the reasons of a node (`reasons: { capture: $R }`).
pub const REASONS_ACCESSORS: &[(&str, &str)] = &[
    ("", "the texts of the entries that hold, joined with `; `"),
    ("count", "the number of entries that hold"),
];

/// Accessors of the deployment target a finding applies to (`{TARGET}`, bound by `target:`).
pub const TARGET_ACCESSORS: &[(&str, &str)] = &[
    (
        "",
        "the chip families the finding applies to, e.g. `A13–A15 (iPhone 11–14) and M1–M3`",
    ),
    ("os", "the target's minimum OS, e.g. `iOS 17 / macOS 14`"),
    ("given", "the `--target` tokens of the run, or `none`"),
];

/// An entity finding's target: the families it applies to and the run's target.
pub type TargetApplies<'a> = (&'a BTreeSet<Family>, Option<&'a DeployTarget>);

/// How many names `{REGION.ops}` and `{REGION.exits}` spell out.
const REGION_NAMES_SHOWN: usize = 3;

fn accessors(kind: VarKind) -> &'static [(&'static str, &'static str)] {
    match kind {
        VarKind::Node => NODE_ACCESSORS,
        VarKind::Value => VALUE_ACCESSORS,
        VarKind::State => STATE_ACCESSORS,
        VarKind::Write => WRITE_ACCESSORS,
        VarKind::Region => REGION_ACCESSORS,
        VarKind::Peers => PEERS_ACCESSORS,
        VarKind::Reasons => REASONS_ACCESSORS,
        VarKind::Target => TARGET_ACCESSORS,
        VarKind::Group => GROUP_ACCESSORS,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    Var { name: String, acc: String },
}

/// A parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

/// Formats dims as `[a, b, ?]`.
pub fn dims_text(t: &TensorType) -> String {
    t.dims_text()
}

impl Template {
    /// A template that renders as nothing.
    pub fn empty() -> Template {
        Template { parts: Vec::new() }
    }

    /// Parses `text`; errors say which placeholder is malformed.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut buf = String::new();
        let mut rest = text;
        // The text up to the next brace is copied as one slice.
        while let Some(at) = memchr::memchr2(b'{', b'}', rest.as_bytes()) {
            buf.push_str(&rest[..at]);
            let brace = &rest[at..];
            if let Some(after) = brace.strip_prefix("{{") {
                buf.push('{');
                rest = after;
                continue;
            }
            if let Some(after) = brace.strip_prefix("}}") {
                buf.push('}');
                rest = after;
                continue;
            }
            let Some(body) = brace.strip_prefix('{') else {
                return Err("single `}` (write `}}` for a brace)".to_string());
            };
            let Some(end) = body.find('}') else {
                return Err(format!("unclosed placeholder `{{{body}`"));
            };
            let inner = &body[..end];
            let (name, acc) = inner.split_once('.').unwrap_or((inner, ""));
            let ok_name = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if !ok_name {
                return Err(format!(
                    "`{{{inner}}}` is not a placeholder (`{{X}}` or `{{X.accessor}}`; \
                     write `{{{{` for a brace)"
                ));
            }
            if !buf.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut buf)));
            }
            parts.push(Part::Var {
                name: name.to_string(),
                acc: acc.to_string(),
            });
            rest = &body[end + 1..];
        }
        buf.push_str(rest);
        if !buf.is_empty() {
            parts.push(Part::Text(buf));
        }
        Ok(Template { parts })
    }

    /// Errors for placeholders of a node rule that are not bound by the rule or use an unknown
    /// accessor (an entity rule's are checked by `entity_rule::check_placeholders`).
    pub fn check(&self, vars: &Vars) -> Vec<String> {
        let mut errors = Vec::new();
        for p in &self.parts {
            let Part::Var { name, acc } = p else { continue };
            let kind = if BUILTIN_VARS.contains(&name.as_str()) && !vars.contains_key(name) {
                if name == "FUNCTION" {
                    if !acc.is_empty() {
                        errors.push(format!("`{{FUNCTION.{acc}}}`: FUNCTION has no accessors"));
                    }
                    continue;
                }
                VarKind::Node
            } else if let Some(k) = vars.get(name) {
                *k
            } else {
                let e = format!(
                    "`{{{name}}}` is not bound by the rule's match (bound: {})",
                    bound_list(vars)
                );
                // `{Y}` and `{Y.shape}` are one mistake.
                if !errors.contains(&e) {
                    errors.push(e);
                }
                continue;
            };
            if !accessors(kind).iter().any(|(a, _)| a == acc) {
                let known: Vec<String> = accessors(kind)
                    .iter()
                    .filter(|(a, _)| !a.is_empty())
                    .map(|(a, _)| format!("{name}.{a}"))
                    .collect();
                errors.push(format!(
                    "`{{{name}.{acc}}}`: unknown accessor for {}; known: {}",
                    kind.as_str(),
                    known.join(", ")
                ));
            }
        }
        errors
    }

    /// Renders against a node match.
    pub fn render(&self, cx: &Ctx<'_>, target: NodeId, b: &Bindings) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Var { name, acc } => {
                    let value = if name == "FUNCTION" && !b.contains_key(name) {
                        Some(cx.f.name.clone())
                    } else if name == "OP" && !b.contains_key(name) {
                        node_accessor(cx, target, acc)
                    } else {
                        b.get(name).and_then(|bd| binding_accessor(cx, bd, acc))
                    };
                    out.push_str(value.as_deref().unwrap_or("?"));
                }
            }
        }
        out
    }

    /// Every placeholder, as (name, accessor).
    pub fn placeholders(&self) -> Vec<(String, String)> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Var { name, acc } => Some((name.clone(), acc.clone())),
                Part::Text(_) => None,
            })
            .collect()
    }

    /// Renders against a model-level entity matched by an entity rule.
    pub fn render_entity(
        &self,
        rule: &EntityRule,
        e: &Entity,
        on: Option<TargetApplies<'_>>,
    ) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Var { name, acc } => {
                    let v = if name == TARGET_VAR {
                        on.map(|(families, run)| target_accessor(families, run, acc))
                    } else {
                        placeholder_text(rule, e, name, acc)
                    };
                    out.push_str(v.as_deref().unwrap_or("?"));
                }
            }
        }
        out
    }
}

fn bound_list(vars: &Vars) -> String {
    let mut names: Vec<String> = BUILTIN_VARS.iter().map(|s| s.to_string()).collect();
    names.extend(
        vars.keys()
            .filter(|k| !BUILTIN_VARS.contains(&k.as_str()))
            .cloned(),
    );
    names.join(", ")
}

fn node_accessor(cx: &Ctx<'_>, node: NodeId, acc: &str) -> Option<String> {
    let (name, ty, kind) = match cx.f.node(node)? {
        Node::Op(op) => (
            op.display_name().to_string(),
            op.outputs.first().map(|o| o.ty.clone()),
            op.op_type.to_string(),
        ),
        Node::Input(i) => (i.name.to_string(), Some(i.ty.clone()), "input".to_string()),
    };
    let tensor = ty.as_ref().and_then(ValueType::tensor);
    match acc {
        "" => Some(name),
        "type" => Some(kind),
        "dtype" => tensor.map(|t| t.dtype.to_string()),
        "shape" => tensor.map(dims_text),
        _ => None,
    }
}

fn value_accessor(cx: &Ctx<'_>, v: &ValueInfo, acc: &str) -> Option<String> {
    let tensor = v.ty.as_ref().and_then(ValueType::tensor);
    match acc {
        "axes" => value_text::axes(tensor?),
        "flexibility" => Some(value_text::flexibility(
            cx.model, &cx.f.name, &v.name, tensor,
        )),
        "range" => range_of(cx, &v.name, v.constant.as_ref()).map(|r| r.to_string()),
        "" => Some(v.name.clone()),
        "dtype" => tensor.map(|t| t.dtype.to_string()),
        "shape" => tensor.map(dims_text),
        "rank" => tensor.and_then(|t| t.rank()).map(|r| r.to_string()),
        "value" => v.constant.as_ref().map(ToString::to_string),
        "source" => Some(
            v.dep
                .as_ref()
                .map_or_else(|| "constants only".to_string(), |d| d.describe()),
        ),
        _ => None,
    }
}

/// `` `a` (add), `b` (mul) and 3 more ``, or `none`.
fn few_names(cx: &Ctx<'_>, nodes: &[NodeId]) -> String {
    let shown: Vec<String> = nodes
        .iter()
        .take(REGION_NAMES_SHOWN)
        .filter_map(|&n| {
            let name = super::region::node_name(cx.f, n)?;
            let kind = cx.f.op(n).map_or("input", |o| o.op_type.as_str());
            Some(format!("`{name}` ({kind})"))
        })
        .collect();
    let rest = nodes.len().saturating_sub(shown.len());
    match (shown.is_empty(), rest) {
        (true, _) => "none".to_string(),
        (false, 0) => shown.join(", "),
        (false, n) => format!("{} and {n} more", shown.join(", ")),
    }
}

fn group_accessor(cx: &Ctx<'_>, others: &[NodeId], acc: &str) -> Option<String> {
    match acc {
        "" | "count" => Some(others.len().to_string()),
        "ops" => Some(few_names(cx, others)),
        "also" => {
            if others.is_empty() {
                return Some(String::new());
            }
            let shown: Vec<String> = others
                .iter()
                .take(REGION_NAMES_SHOWN)
                .filter_map(|&n| super::region::node_name(cx.f, n))
                .map(|n| format!("`{n}`"))
                .collect();
            let rest = others.len().saturating_sub(shown.len());
            let list = match rest {
                0 => shown.join(", "),
                n => format!("{} and {n} more", shown.join(", ")),
            };
            Some(format!(" and {} more ({list})", others.len()))
        }
        _ => None,
    }
}

fn peers_accessor(cx: &Ctx<'_>, peers: &[NodeId], at: Option<usize>, acc: &str) -> Option<String> {
    match acc {
        "" | "others" => {
            let others: Vec<String> = peers
                .iter()
                .enumerate()
                .filter(|&(i, _)| Some(i) != at)
                .filter_map(|(_, &n)| super::region::node_name(cx.f, n))
                .map(|n| format!("`{n}`"))
                .collect();
            let shown = others.len().min(REGION_NAMES_SHOWN);
            Some(match others.len() - shown {
                _ if others.is_empty() => "none".to_string(),
                0 => others.join(", "),
                rest => format!("{} and {rest} more", others[..shown].join(", ")),
            })
        }
        "count" => Some(peers.len().to_string()),
        "nth" => at.map(|i| (i + 1).to_string()),
        _ => None,
    }
}

fn region_accessor(cx: &Ctx<'_>, r: &super::region::Region, acc: &str) -> Option<String> {
    match acc {
        "" | "count" => Some(r.own_members.to_string()),
        "ops" => Some(few_names(cx, &r.members[..r.own_members])),
        "repeats" => Some(match r.repeats.len() {
            0 => String::new(),
            n => format!(
                "; the same construct repeats {n} more time{} in `{}`, at {}",
                if n == 1 { "" } else { "s" },
                cx.f.name,
                few_names(cx, &r.repeats)
            ),
        }),
        "origins" => Some((1 + r.other_origins.len()).to_string()),
        "exits" => Some(few_names(cx, &r.exits)),
        "share" => Some(format!(
            "{} of the {} ops of `{}`",
            std::iter::once(&r.origin)
                .chain(&r.members)
                .filter(|&&n| cx.f.op(n).is_some())
                .count(),
            r.function_ops,
            cx.f.name
        )),
        _ => None,
    }
}

fn target_accessor(families: &BTreeSet<Family>, run: Option<&DeployTarget>, acc: &str) -> String {
    match acc {
        "os" => run.map_or_else(|| "not given".to_string(), DeployTarget::os_text),
        "given" => run
            .filter(|r| r.is_given())
            .map_or_else(|| "none".to_string(), DeployTarget::text),
        _ => families_text(families),
    }
}

fn op_name(cx: &Ctx<'_>, id: Option<NodeId>) -> Option<String> {
    id.and_then(|n| cx.f.op(n))
        .map(|o| o.display_name().to_string())
}

fn binding_accessor(cx: &Ctx<'_>, b: &Binding, acc: &str) -> Option<String> {
    let sw = &cx.analysis.states;
    match b {
        Binding::Node(n) => node_accessor(cx, *n, acc),
        Binding::Value(v) => value_accessor(cx, v, acc),
        Binding::Region(r) => region_accessor(cx, r, acc),
        Binding::Group(others) => group_accessor(cx, others, acc),
        Binding::Peers { peers, at } => peers_accessor(cx, peers, *at, acc),
        Binding::Reasons(texts) => match acc {
            "" => Some(texts.join("; ")),
            "count" => Some(texts.len().to_string()),
            _ => None,
        },
        Binding::Target(families) => Some(target_accessor(families, cx.target, acc)),
        Binding::State(i) => {
            let st = sw.state(*i)?;
            let plan = cx
                .plans
                .and_then(|p| p.offer(&st.name))
                .filter(|p| p.pads());
            let pad = plan.map(|p| p.axis).or_else(|| sw.pad_axis(*i));
            let dims = st.dims();
            match acc {
                "" => Some(st.name.clone()),
                "dtype" => Some(st.ty.dtype.to_string()),
                "shape" => Some(dims_text(&st.ty)),
                "rank" => st.ty.rank().map(|r| r.to_string()),
                "elements" => st.ty.element_count().map(|n| n.to_string()),
                "pad_axis" => pad.map(|a| a.to_string()),
                "rows" => dims.as_ref()?.get(pad?).map(|d| d.to_string()),
                "padded_rows" => dims.as_ref()?.get(pad?).map(|d| (d + 1).to_string()),
                "padded_shape" => {
                    let mut d = dims?;
                    let slot = d.get_mut(pad?)?;
                    *slot = slot.checked_add(1)?;
                    Some(format!(
                        "[{}]",
                        d.iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
                "fix" => Some(cx.plans.map_or_else(
                    || "no fix plan was computed".to_string(),
                    |p| p.fix_text(&st.name),
                )),
                "writes" => Some(sw.count(*i).to_string()),
                _ => None,
            }
        }
        Binding::Write(i) => {
            let w = sw.writes.get(*i)?;
            let window = w.window.as_ref();
            let inner = w.inner_window();
            let pad_axis = cx
                .plans
                .and_then(|p| p.offer(sw.state(w.state)?.name.as_str()))
                .filter(|p| p.pads())
                .map(|p| p.axis)
                .or_else(|| sw.pad_axis(w.state));
            match acc {
                "" => window.map(ToString::to_string),
                "inner" => inner.map(ToString::to_string),
                "wrapped" => Some(match (w.wrappers(), w.inner()) {
                    ([], _) | (_, None) => String::new(),
                    (wrappers, Some(level)) => {
                        let inner = op_name(cx, Some(level.slice_update)).unwrap_or_default();
                        format!(
                            "; the full-window slice_update{} {} pass{} `{inner}` on unchanged, and `{inner}` writes window {}",
                            if wrappers.len() == 1 { "" } else { "s" },
                            wrappers
                                .iter()
                                .filter_map(|l| op_name(cx, Some(l.slice_update)))
                                .map(|n| format!("`{n}`"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            if wrappers.len() == 1 { "es" } else { "" },
                            level
                                .window
                                .as_ref()
                                .map_or_else(|| "?".to_string(), ToString::to_string)
                        )
                    }
                }),
                "kind" => Some(w.kind.as_str().to_string()),
                "op" => op_name(cx, Some(w.write_op)),
                "state" => sw.state(w.state).map(|s| s.name.clone()),
                "read" => op_name(cx, w.read_op),
                "slice_update" => op_name(cx, w.slice_update),
                "pad_range" => inner.map(|win| win.axis_text(pad_axis.unwrap_or(0))),
                "partial_axes" => window.map(|win| format!("{:?}", win.partial_axes())),
                "uncovered" => window
                    .and_then(|win| win.max_uncovered())
                    .map(|n| n.to_string()),
                "begin_source" => Some(
                    w.begin_dep
                        .as_ref()
                        .map_or_else(|| "constants only".to_string(), |d| d.describe()),
                ),
                "end_source" => Some(
                    w.end_dep
                        .as_ref()
                        .map_or_else(|| "constants only".to_string(), |d| d.describe()),
                ),
                "nth" => Some(w.nth.to_string()),
                "writes" => Some(sw.count(w.state).to_string()),
                "other_writes" => Some(
                    sw.writes_to(w.state)
                        .filter(|o| o.write_op != w.write_op)
                        .filter_map(|o| op_name(cx, Some(o.write_op)))
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                "also_written_by" => {
                    let others: Vec<String> = sw
                        .writes_to(w.state)
                        .filter(|o| o.write_op != w.write_op)
                        .filter_map(|o| op_name(cx, Some(o.write_op)))
                        .map(|n| format!("`{n}`"))
                        .collect();
                    Some(match others.len() {
                        0 => String::new(),
                        _ => format!("; also written by {}", others.join(", ")),
                    })
                }
                "rmw_ops" => Some(
                    w.rmw_ops
                        .iter()
                        .filter_map(|&n| cx.f.op(n))
                        .map(|o| format!("`{}` ({})", o.display_name(), o.op_type))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                "rmw_count" => Some(w.rmw_ops.len().to_string()),
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_placeholders_and_escapes() {
        let t = Template::parse("a {S} b {W.pad_range} {{x}}").expect("parses");
        assert_eq!(
            t.parts,
            vec![
                Part::Text("a ".into()),
                Part::Var {
                    name: "S".into(),
                    acc: String::new()
                },
                Part::Text(" b ".into()),
                Part::Var {
                    name: "W".into(),
                    acc: "pad_range".into()
                },
                Part::Text(" {x}".into()),
            ]
        );
        assert!(Template::parse("{lower}").is_err());
        assert!(Template::parse("{S").is_err());
    }

    #[test]
    fn unbound_and_unknown_accessors_are_reported() {
        let mut vars = Vars::new();
        vars.insert("S".into(), VarKind::State);
        let ok = Template::parse("{S} {S.padded_shape} {OP} {OP.type} {FUNCTION}").expect("parses");
        assert!(ok.check(&vars).is_empty());
        let bad = Template::parse("{W} {S.nope}").expect("parses");
        let errs = bad.check(&vars);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(errs[0].contains("not bound"));
        assert!(errs[1].contains("unknown accessor"));
    }
}
