//! `coreml-lint graph --format model-explorer`: every function of every checked model as a graph
//! of Google's Model Explorer (its graph JSON, loaded without an adapter), and the node data
//! files beside it: the likely compute unit of each op for the app's units (and why), the
//! findings on each op, and each op's multiply-accumulates.
//!
//! Graph JSON: `{"label", "graphs": [{"id", "nodes": [{id, label, namespace, attrs, incomingEdges,
//! inputsMetadata, outputsMetadata}], "groupNodeAttributes"}]}` (the classes of
//! `model_explorer.graph_builder`). Node data: `{graph id: {results: {node id: {value, bgColor}},
//! …}}`. Constants are not nodes: their values are attributes of the ops that read them.

use std::collections::BTreeMap;
use std::fmt::Write;

use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value};

use super::layers::{layers, Layers};
use super::type_text;
use crate::analysis::placement::{FunctionPlacement, Likely, Placement, Reason};
use crate::check::CheckRun;
use crate::finding::{Finding, Severity};
use crate::ir::literal::{Payload, TensorData};
use crate::ir::{Arg, Function, Literal, Model, Node, NodeId};
use crate::rules::ComputeUnits;

/// The unit an op likely runs on, for the app's compute units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// The Neural Engine.
    Ane,
    /// The GPU (an app that loads with `cpu-and-gpu`).
    Gpu,
    /// The CPU.
    Cpu,
    /// An ANE op that a rule's finding puts at risk of leaving the Neural Engine.
    AtRisk,
    /// Not in the op table.
    Unknown,
}

impl Unit {
    /// The value of the units file and the legend word.
    pub fn text(self) -> &'static str {
        match self {
            Unit::Ane => "ANE",
            Unit::Gpu => "GPU",
            Unit::Cpu => "CPU",
            Unit::AtRisk => "ANE at risk",
            Unit::Unknown => "unknown",
        }
    }

    /// Its background colour (the HTML report's hues, a shade darker to read on the canvas).
    pub fn colour(self) -> &'static str {
        match self {
            Unit::Ane => "#9fd89f",
            Unit::Gpu => "#9cc7f0",
            Unit::Cpu => "#f5b48a",
            Unit::AtRisk => "#f2dc6b",
            Unit::Unknown => "#d9d9d9",
        }
    }
}

/// The unit and the reason of an op the estimate placed, for an app loading with `units`: the
/// estimate is the Neural Engine's; without it the ANE's ops go to the GPU (or all to the CPU).
pub fn unit_for(p: &Placement, units: ComputeUnits) -> (Unit, String) {
    match units {
        ComputeUnits::All | ComputeUnits::CpuAndNe => {
            let unit = match p.likely {
                Likely::Ane => Unit::Ane,
                Likely::Cpu => Unit::Cpu,
                Likely::AtRisk => Unit::AtRisk,
                Likely::Unknown => Unit::Unknown,
            };
            (unit, p.reason.text())
        }
        ComputeUnits::CpuAndGpu => match (&p.likely, &p.reason) {
            (Likely::Ane | Likely::AtRisk, _) => (
                Unit::Gpu,
                "the app loads with cpu-and-gpu: no Neural Engine".into(),
            ),
            (Likely::Cpu, Reason::Dtype { dtype }) => (
                Unit::Gpu,
                format!("computes in {dtype}: the GPU computes it, the Neural Engine would not"),
            ),
            (Likely::Cpu, r) => (Unit::Cpu, r.text()),
            (Likely::Unknown, r) => (Unit::Unknown, r.text()),
        },
        ComputeUnits::CpuOnly => (Unit::Cpu, "the app loads with cpu-only".into()),
    }
}

/// Background colours of the findings file by the highest severity on a node.
fn severity_colour(s: Severity) -> &'static str {
    match s {
        Severity::Error => "#ef7d7d",
        Severity::Warning => "#f7c46c",
        Severity::Info => "#a9c8ef",
    }
}

/// What `graph --format model-explorer` writes: the graph JSON and the node data files, each
/// with the suffix its file name takes (`decoder.json` → `decoder.units.json`).
#[derive(Clone, Debug)]
pub struct Export {
    /// The graph collection.
    pub graph: String,
    /// `(suffix, JSON)` of each node data file, in the order to pass them.
    pub node_data: Vec<(&'static str, String)>,
    /// Graphs written.
    pub graphs: usize,
    /// Nodes written, over every graph.
    pub nodes: usize,
}

/// The suffixes of the node data files, in the order `export` returns them.
pub const NODE_DATA: [&str; 4] = ["units", "reasons", "findings", "macs"];

/// The title of one function of one model: `Decoder.mlpackage · main`, with the sub-model.
pub fn graph_id(model: &Model, function: &str) -> String {
    match &model.sub_model {
        Some(sub) => format!("{} ({sub}) · {function}", model.path.display()),
        None => format!("{} · {function}", model.path.display()),
    }
}

/// Node ids unique in a function: the op's name, `name#2` for a second op of that name.
struct Ids {
    of: FxHashMap<NodeId, String>,
}

impl Ids {
    fn new(f: &Function, nodes: impl Iterator<Item = NodeId>) -> Ids {
        let mut taken: FxHashMap<String, usize> = FxHashMap::default();
        let mut of = FxHashMap::default();
        for id in nodes {
            let name = super::node_name(f, id);
            let n = taken.entry(name.to_string()).or_default();
            *n += 1;
            let text = if *n == 1 {
                name.to_string()
            } else {
                format!("{name}#{n}")
            };
            of.insert(id, text);
        }
        Ids { of }
    }

    fn get(&self, id: NodeId) -> Option<&str> {
        self.of.get(&id).map(String::as_str)
    }
}

/// Elements of a constant shown in full up to this many.
const MAX_ELEMENTS: usize = 16;

/// A constant as an attribute value: its elements when few, else its type (and weight file).
fn literal_text(lit: &Literal) -> String {
    let ty = type_text(&lit.ty);
    match &lit.payload {
        Payload::Tensor(data) => {
            let items: Option<Vec<String>> = match data {
                TensorData::Ints(v) if v.len() <= MAX_ELEMENTS => {
                    Some(v.iter().map(i64::to_string).collect())
                }
                TensorData::Floats(v) if v.len() <= MAX_ELEMENTS => {
                    Some(v.iter().map(|x| format!("{x}")).collect())
                }
                TensorData::Bools(v) if v.len() <= MAX_ELEMENTS => {
                    Some(v.iter().map(bool::to_string).collect())
                }
                TensorData::Strings(v) if v.len() <= MAX_ELEMENTS => {
                    Some(v.iter().map(|s| format!("{s:?}")).collect())
                }
                _ => None,
            };
            match items {
                Some(items) if ty.ends_with(" []") => items.join(", "),
                Some(items) => format!("[{}]", items.join(", ")),
                None => ty,
            }
        }
        Payload::Blob(b) => format!("{ty} ({} @ {})", b.path, b.offset),
        _ => ty,
    }
}

/// The text of what a parameter binds that is not an edge: a constant's value, or the type of
/// a constant op's result.
fn constant_text(f: &Function, arg: &Arg) -> Option<String> {
    match arg {
        Arg::Value(lit) => Some(literal_text(lit)),
        Arg::Name(n) => {
            let def = f.def(n)?;
            let op = f.op(def.node)?;
            if op.op_type == "const" {
                if let Some(lit) = op.attributes.get("val") {
                    return Some(literal_text(lit));
                }
            }
            let ty = f.value_type(n).map(type_text).unwrap_or_default();
            Some(format!("{} ({}: {ty})", op.display_name(), op.op_type))
        }
    }
}

fn kv(key: &str, value: impl Into<String>) -> Value {
    json!({"key": key, "value": value.into()})
}

/// Per-namespace summary of a function, shown on each layer's group node.
#[derive(Default)]
struct LayerSummary {
    ops: usize,
    by_unit: BTreeMap<Unit, usize>,
    macs_ane: u64,
    macs_total: u64,
    findings: usize,
}

/// One function as a Model Explorer graph, and its node data.
struct FunctionExport {
    graph: Value,
    units: Map<String, Value>,
    reasons: Map<String, Value>,
    findings: Map<String, Value>,
    macs: Map<String, Value>,
    nodes: usize,
}

/// The findings of `f` by the node they are shown on: their op, or the ops reading the constant
/// they name.
fn findings_on_nodes<'x>(
    f: &Function,
    ids: &Ids,
    findings: &[&'x Finding],
) -> FxHashMap<NodeId, Vec<&'x Finding>> {
    let mut on_node: FxHashMap<NodeId, Vec<&Finding>> = FxHashMap::default();
    let by_name: FxHashMap<&str, NodeId> = f.ops().map(|(n, op)| (op.display_name(), n)).collect();
    for &x in findings {
        if x.function.as_deref() != Some(f.name.as_str()) {
            continue;
        }
        let Some(node) = x.op.as_deref().and_then(|n| by_name.get(n).copied()) else {
            continue;
        };
        if ids.get(node).is_some() {
            on_node.entry(node).or_default().push(x);
        } else {
            for (consumer, _) in f.consumers(node) {
                if ids.get(consumer).is_some() {
                    on_node.entry(consumer).or_default().push(x);
                }
            }
        }
    }
    on_node
}

/// The node of a function input (a state among them).
fn input_node(f: &Function, ids: &Ids, n: NodeId) -> Option<Value> {
    let Some(Node::Input(input)) = f.node(n) else {
        return None;
    };
    let kind = if input.ty.is_state() {
        "state"
    } else {
        "input"
    };
    Some(json!({
        "id": ids.get(n).unwrap_or_default(),
        "label": kind,
        "namespace": "",
        "attrs": [kv("name", input.name.as_str()), kv("type", type_text(&input.ty))],
        "incomingEdges": [],
        "outputsMetadata": [{"id": "0", "attrs": [
            kv("tensor_shape", type_text(&input.ty)),
            kv("__tensor_tag", input.name.as_str()),
        ]}],
    }))
}

/// The edges into op `n` from drawn nodes (with the parameter each binds), and its other
/// parameters as attributes.
fn op_inputs(f: &Function, ids: &Ids, op: &crate::ir::Op) -> (Vec<Value>, Vec<Value>, Vec<Value>) {
    let (mut edges, mut meta, mut attrs) = (Vec::new(), Vec::new(), Vec::new());
    for p in &op.inputs {
        for (k, arg) in p.args.iter().enumerate() {
            let slot = if p.args.len() > 1 {
                format!("{}[{k}]", p.name)
            } else {
                p.name.to_string()
            };
            let source = match arg {
                Arg::Name(v) => f
                    .def(v)
                    .and_then(|d| ids.get(d.node).map(|s| (s, d.output))),
                Arg::Value(_) => None,
            };
            match source {
                Some((src, output)) => {
                    let input_id = edges.len().to_string();
                    edges.push(json!({
                        "sourceNodeId": src,
                        "sourceNodeOutputId": output.to_string(),
                        "targetNodeInputId": input_id,
                    }));
                    meta.push(json!({"id": input_id, "attrs": [kv("__tensor_tag", slot)]}));
                }
                None => {
                    if let Some(text) = constant_text(f, arg) {
                        attrs.push(kv(&slot, text));
                    }
                }
            }
        }
    }
    (edges, meta, attrs)
}

/// The node reading the function's results.
fn outputs_node(f: &Function, ids: &Ids) -> Option<Value> {
    let mut edges = Vec::new();
    let mut meta = Vec::new();
    for name in f.outputs() {
        if let Some((src, output)) = f
            .def(name)
            .and_then(|d| ids.get(d.node).map(|s| (s, d.output)))
        {
            let input_id = edges.len().to_string();
            edges.push(json!({
                "sourceNodeId": src,
                "sourceNodeOutputId": output.to_string(),
                "targetNodeInputId": input_id,
            }));
            meta.push(json!({"id": input_id, "attrs": [kv("__tensor_tag", name.as_str())]}));
        }
    }
    if edges.is_empty() {
        return None;
    }
    let mut id = "outputs".to_string();
    while ids.of.values().any(|v| *v == id) {
        id.push('_');
    }
    let values: Vec<&str> = f.outputs().iter().map(|n| n.as_str()).collect();
    Some(json!({
        "id": id,
        "label": "outputs",
        "namespace": "",
        "attrs": [kv("values", values.join(", "))],
        "incomingEdges": edges,
        "inputsMetadata": meta,
        "outputsMetadata": [],
    }))
}

/// Each layer's attributes, shown on its group node.
fn group_attributes(summaries: &BTreeMap<String, LayerSummary>) -> Map<String, Value> {
    let mut groups = Map::new();
    for (ns, s) in summaries {
        let mut attrs = Map::new();
        attrs.insert("ops".into(), Value::from(s.ops.to_string()));
        let units: Vec<String> = s
            .by_unit
            .iter()
            .map(|(u, n)| format!("{} {n}", u.text()))
            .collect();
        attrs.insert("likely units".into(), Value::from(units.join(" · ")));
        if s.macs_total > 0 {
            let share = 100.0 * s.macs_ane as f64 / s.macs_total as f64;
            attrs.insert("ANE compute".into(), Value::from(format!("{share:.0} %")));
        }
        if s.findings > 0 {
            attrs.insert("findings".into(), Value::from(s.findings.to_string()));
        }
        groups.insert(ns.clone(), Value::Object(attrs));
    }
    groups
}

fn export_function(
    f: &Function,
    id: &str,
    placement: &FunctionPlacement,
    findings: &[&Finding],
    units: ComputeUnits,
) -> FunctionExport {
    let l: Layers = layers(f);
    let inputs: Vec<NodeId> = f.inputs().map(|(n, _)| n).collect();
    let ids = Ids::new(f, inputs.iter().chain(&l.ops).copied());
    let placed: FxHashMap<NodeId, &crate::analysis::placement::PlacedOp> =
        placement.ops.iter().map(|o| (o.node, o)).collect();
    let on_node = findings_on_nodes(f, &ids, findings);
    let mut nodes: Vec<Value> = Vec::with_capacity(ids.of.len() + 1);
    let mut units_out = Map::new();
    let mut reasons_out = Map::new();
    let mut findings_out = Map::new();
    let mut macs_out = Map::new();
    let mut summaries: BTreeMap<String, LayerSummary> = BTreeMap::new();
    nodes.extend(inputs.iter().filter_map(|&n| input_node(f, &ids, n)));
    for &n in &l.ops {
        let Some(op) = f.op(n) else {
            continue;
        };
        let node_id = ids.get(n).unwrap_or_default().to_string();
        let namespace = l.of(n);
        let (edges, inputs_meta, params) = op_inputs(f, &ids, op);
        let mut attrs = vec![kv("name", op.display_name()), kv("op", op.op_type.as_str())];
        attrs.extend(params);
        let outputs_meta: Vec<Value> = op
            .outputs
            .iter()
            .enumerate()
            .map(|(i, o)| {
                json!({"id": i.to_string(), "attrs": [
                    kv("tensor_shape", type_text(&o.ty)),
                    kv("__tensor_tag", o.name.as_str()),
                ]})
            })
            .collect();
        let mut summary_unit = None;
        let mut summary_macs = None;
        if let Some(placed) = placed.get(&n) {
            let (unit, reason) = unit_for(&placed.placement, units);
            attrs.push(kv("likely unit", unit.text()));
            attrs.push(kv("why", reason.clone()));
            units_out.insert(
                node_id.clone(),
                json!({"value": unit.text(), "bgColor": unit.colour()}),
            );
            reasons_out.insert(
                node_id.clone(),
                json!({"value": format!("{}: {reason}", unit.text()), "bgColor": unit.colour()}),
            );
            if let Some(m) = placed.macs {
                attrs.push(kv("MACs", m.to_string()));
                macs_out.insert(node_id.clone(), json!({"value": m}));
            }
            summary_unit = Some(unit);
            summary_macs = placed.macs.map(|m| (m, unit == Unit::Ane));
        }
        let mine = on_node.get(&n).map_or(&[][..], Vec::as_slice);
        if !mine.is_empty() {
            let mut list: Vec<(Severity, &str)> =
                mine.iter().map(|x| (x.severity, x.rule.as_str())).collect();
            list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            list.dedup();
            let mut text = String::new();
            for (i, (s, rule)) in list.iter().enumerate() {
                let _ = write!(text, "{}{s}: {rule}", if i > 0 { ", " } else { "" });
            }
            attrs.push(kv("findings", text.clone()));
            for x in mine {
                attrs.push(kv(
                    &format!("{} ({})", x.rule, x.severity),
                    x.message.clone(),
                ));
            }
            findings_out.insert(
                node_id.clone(),
                json!({"value": text, "bgColor": severity_colour(list[0].0)}),
            );
        }
        // Every enclosing namespace counts the op.
        let mut prefix = namespace;
        while !prefix.is_empty() {
            let s = summaries.entry(prefix.to_string()).or_default();
            s.ops += 1;
            if let Some(u) = summary_unit {
                *s.by_unit.entry(u).or_default() += 1;
            }
            if let Some((m, ane)) = summary_macs {
                s.macs_total = s.macs_total.saturating_add(m);
                if ane {
                    s.macs_ane = s.macs_ane.saturating_add(m);
                }
            }
            s.findings += mine.len();
            prefix = prefix.rsplit_once('/').map_or("", |(p, _)| p);
        }
        nodes.push(json!({
            "id": node_id,
            "label": op.op_type.as_str(),
            "namespace": namespace,
            "attrs": attrs,
            "incomingEdges": edges,
            "inputsMetadata": inputs_meta,
            "outputsMetadata": outputs_meta,
        }));
    }
    nodes.extend(outputs_node(f, &ids));
    let groups = group_attributes(&summaries);
    let count = nodes.len();
    FunctionExport {
        graph: json!({"id": id, "nodes": nodes, "groupNodeAttributes": groups}),
        units: units_out,
        reasons: reasons_out,
        findings: findings_out,
        macs: macs_out,
        nodes: count,
    }
}

/// The export of every function (only `function` when given) of every checked model of `run`;
/// an error names what was not found.
pub fn export(run: &CheckRun, function: Option<&str>) -> Result<Export, String> {
    let mut graphs = Vec::new();
    let mut data: [Map<String, Value>; 4] = Default::default();
    let mut nodes = 0;
    let mut label = None;
    for (model, findings) in run.checked() {
        label.get_or_insert_with(|| model.path.display().to_string());
        let mine: Vec<&Finding> = findings.iter().collect();
        for f in &model.program.functions {
            if function.is_some_and(|n| n != f.name) {
                continue;
            }
            let id = graph_id(model, &f.name);
            let placement = crate::check::placement::place_function(f, findings);
            let fx = export_function(f, &id, &placement, &mine, run.compute_units);
            nodes += fx.nodes;
            graphs.push(fx.graph);
            let units = run.compute_units.token();
            let parts = [
                (fx.units, format!("likely unit ({units})")),
                (fx.reasons, format!("why that unit ({units})")),
                (fx.findings, "findings".to_string()),
                (fx.macs, "MACs".to_string()),
            ];
            for (k, (results, name)) in parts.into_iter().enumerate() {
                let mut entry = json!({"name": name, "results": results});
                if k == 3 {
                    entry["gradient"] = json!([
                        {"stop": 0, "bgColor": "#f4f4f4"},
                        {"stop": 1, "bgColor": "#3f6fb5"},
                    ]);
                } else {
                    entry["showLabelCountColumnsInChildrenStatsTable"] = Value::Bool(true);
                }
                data[k].insert(id.clone(), entry);
            }
        }
    }
    if graphs.is_empty() {
        return Err(match function {
            Some(f) => format!("no function `{f}`"),
            None => "no ML program function".to_string(),
        });
    }
    let count = graphs.len();
    let label = match (count, label) {
        (1, Some(l)) => l,
        (_, Some(l)) if run.models.len() == 1 => l,
        _ => format!("coreml-lint: {} models", run.models.len()),
    };
    let graph = json!({"label": label, "graphs": graphs});
    Ok(Export {
        graph: graph.to_string(),
        node_data: NODE_DATA
            .iter()
            .zip(data)
            .map(|(suffix, d)| (*suffix, Value::Object(d).to_string()))
            .collect(),
        graphs: count,
        nodes,
    })
}
