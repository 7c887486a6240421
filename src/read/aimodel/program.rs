//! A Core AI program lowered into the IR: each `aicode.dataflow.graph_v1` of the asset becomes a
//! [`Function`] whose inputs are the graph's arguments (handle arguments are states), whose ops are
//! the graph's top-level ops with their types, named in the MIL op vocabulary of
//! `rules/coreai/ops.yaml`, and whose outputs are the values `output_v1` returns.
//!
//! Composite ops keep their decomposition region in the bytecode; it is counted among the stored
//! `aicode` ops (`super::op_count`) but not lowered. The text `dump` prints is rendered here, and every op's span
//! points at its line.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use super::aicode::{AiAttr, AiType, Table};
use super::bytecode::{BytecodeError, Reader, Result};
use super::elements::{decode_elements, decode_words, storage, values_text, Storage};
use super::ir_section::{IrBlock, IrOp, ValueId};
use super::op_count::OUTPUT;
use crate::ir::build::{build_function, BlockSyntax, FunctionSyntax, InputSyntax, OpSyntax};
use crate::ir::coreai::{AiBytecode, AiFunction, AiResource, AiValue, Composite};
use crate::ir::{
    Arg, Attributes, Function, Literal, Name, Output, Param, Payload, Span, ValueType,
};

const ATTR_TYPE_OFFSET: u8 = 3;
const ATTR_TYPE: u8 = 2;
const IR: u8 = 4;
const PROPERTIES: u8 = 8;

const ASSET: &str = "aicode.serialization.asset";
const GRAPH: &str = "aicode.dataflow.graph_v1";
const INVOKE: &str = "aicode.dataflow.invoke_v1";
/// Fields of `graph_v1`'s properties: argAttrs, composite declaration (optional), externalize,
/// functionType, isPrivate, name, noInline, paramDecls, resAttrs.
const GRAPH_FIELDS: usize = 9;
const NAME_KEY: &str = "aicode.name";
const MUTATION_KEY: &str = "MutableBuffers.buffer_mutation";
/// Constants of up to this many elements are decoded (as for MIL's constant evaluation).
const MAX_CONST_ELEMENTS: usize = 65_536;

/// The lowered program.
pub struct Lowered {
    /// One per graph, in file order.
    pub functions: Vec<Function>,
    /// What `dump` lists per graph.
    pub summaries: Vec<AiFunction>,
    /// `aicode.serialization.asset`'s version attribute (e.g. 20260317).
    pub asset_version: Option<i64>,
}

/// One op-name mapping of `rules/coreai/ops.yaml`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OpMapping {
    op: String,
    #[serde(default)]
    params: Vec<String>,
    /// The group (a `name*` of `params`) that holds one operand per result of the op.
    #[serde(default, rename = "per-result")]
    per_result: Option<String>,
}

/// The operand parameters of an op kind, as `rules/coreai/ops.yaml` lists them.
#[derive(Clone, Copy, Debug)]
pub struct Params {
    /// The names in operand order; `name*` is a group of any number of operands.
    pub names: &'static [String],
    /// The group holding one operand per result (a Metal kernel's `result_shapes`).
    pub per_result: Option<&'static str>,
}

impl Params {
    const NONE: Params = Params {
        names: &[],
        per_result: None,
    };

    fn of(m: &'static OpMapping) -> Params {
        Params {
            names: &m.params,
            per_result: m.per_result.as_deref(),
        }
    }

    /// The parameter of each of `operands` operands of an op with `results` results: its name and
    /// whether it belongs to a group (a tuple parameter). A group sized by the results holds one
    /// operand per result, the other group what remains beside the single parameters; the stored
    /// op records no sizes (`docs/coreai-bytecode.md`). Operands past the list, and every operand
    /// when the counts cannot be split so, are `operand<N>`.
    pub fn of_operands(&self, operands: usize, results: usize) -> Vec<(String, bool)> {
        let is_group = |n: &str| n.ends_with('*');
        let singles = self.names.iter().filter(|n| !is_group(n)).count();
        let per_result = self.names.iter().filter(|n| self.is_per_result(n)).count();
        let sized = per_result.saturating_mul(results);
        let other_groups = self.names.len() - singles - per_result;
        // What the group that is not sized by the results holds; with single parameters only and
        // too few operands, the first parameters name those there are.
        let rest = match operands.checked_sub(singles.saturating_add(sized)) {
            Some(rest) => Some(rest),
            None if per_result == 0 && other_groups == 0 => Some(0),
            None => None,
        };
        let mut out = Vec::with_capacity(operands);
        if let Some(rest) = rest {
            for name in self.names {
                let size = match (is_group(name), self.is_per_result(name)) {
                    (false, _) => 1,
                    (true, true) => results,
                    (true, false) => rest,
                };
                let pname = name.trim_end_matches('*');
                let room = operands - out.len().min(operands);
                out.extend((0..size.min(room)).map(|_| (pname.to_string(), is_group(name))));
            }
        }
        while out.len() < operands {
            out.push((format!("operand{}", out.len()), false));
        }
        out
    }

    fn is_per_result(&self, name: &str) -> bool {
        name.ends_with('*') && self.per_result == Some(name.trim_end_matches('*'))
    }
}

fn mappings() -> &'static HashMap<String, OpMapping> {
    static TABLE: OnceLock<HashMap<String, OpMapping>> = OnceLock::new();
    TABLE.get_or_init(|| {
        crate::yaml::from_str(include_str!("../../../rules/coreai/ops.yaml"))
            .expect("rules/coreai/ops.yaml is checked by its unit test")
    })
}

/// `aicode.primitive.reshape_v2` → `primitive.reshape`.
pub fn op_stem(name: &str) -> &str {
    let local = name.strip_prefix("aicode.").unwrap_or(name);
    match local.rfind("_v") {
        Some(i) if i + 2 < local.len() && local[i + 2..].bytes().all(|b| b.is_ascii_digit()) => {
            &local[..i]
        }
        _ => local,
    }
}

/// The MIL op type and operand parameters of a stored op name.
pub fn mil_op(name: &str) -> (String, Params) {
    let stem = op_stem(name);
    let mapping = mappings()
        .get(stem)
        .or_else(|| mappings().get(stem.strip_prefix("primitive.")?));
    match mapping {
        Some(m) => (m.op.clone(), Params::of(m)),
        None => (
            stem.rsplit('.').next().unwrap_or(stem).to_string(),
            Params::NONE,
        ),
    }
}

/// The MIL op type and parameters of a call of a composite graph (`composite.NAME` in
/// `rules/coreai/ops.yaml`); an unlisted composite keeps its name.
pub fn composite_op(composite: &str) -> (String, Params) {
    match mappings().get(&format!("composite.{composite}")) {
        Some(m) => (m.op.clone(), Params::of(m)),
        None => (composite.to_string(), Params::NONE),
    }
}

/// Lowers the program of `file` (whose container is `b`), appending its rendering to `text`.
pub fn lower(file: &[u8], b: &AiBytecode, text: &mut String) -> Result<Lowered> {
    let section = |id: u8| {
        b.sections.iter().find(|s| s.id == id).map(|s| {
            let start = s.offset as usize;
            (start, &file[start..start + s.len as usize])
        })
    };
    let missing = |what: &str| BytecodeError {
        offset: file.len(),
        message: format!("no {what} section"),
    };
    let (ir_at, ir) = section(IR).ok_or_else(|| missing("IR"))?;
    let (off_at, offsets) =
        section(ATTR_TYPE_OFFSET).ok_or_else(|| missing("attribute/type offset"))?;
    let (at_at, attr_types) = section(ATTR_TYPE).ok_or_else(|| missing("attribute/type"))?;
    let table = Table::parse(offsets, off_at, attr_types, at_at, &b.strings)?;
    let properties = match section(PROPERTIES) {
        Some((at, data)) => parse_properties(data, at)?,
        None => Vec::new(),
    };
    let top = super::ir_section::parse(ir, ir_at, b.op_names.len() as u64, table.type_count())?;
    let mut cx = Cx {
        b,
        table: &table,
        properties: &properties,
        composites: HashMap::new(),
        file,
        resources: b.resources.iter().filter(|r| r.group == "aicode").collect(),
    };
    let asset = match top.as_slice() {
        [op] if cx.name(op) == ASSET => op,
        _ => {
            return Err(BytecodeError {
                offset: ir_at,
                message: format!("the IR section does not hold one `{ASSET}` op"),
            })
        }
    };
    let asset_version = cx.asset_version(asset);
    if let Some(v) = asset_version {
        let _ = writeln!(text, "{}", crate::ir::coreai::asset_version_text(v));
    }
    let mut out = Lowered {
        functions: Vec::new(),
        summaries: Vec::new(),
        asset_version,
    };
    let graphs = asset
        .regions
        .first()
        .and_then(|r| r.blocks.first())
        .map(|b| b.ops.as_slice())
        .unwrap_or_default();
    let mut composites = HashMap::new();
    for graph in graphs.iter().filter(|g| cx.name(g) == GRAPH) {
        if let Ok((name, Some(composite))) = cx.graph_identity(graph) {
            composites.insert(name, composite);
        }
    }
    cx.composites = composites;
    for graph in graphs {
        if cx.name(graph) != GRAPH {
            continue;
        }
        let (function, summary) = cx
            .graph(graph, text)
            .map_err(|e| with_versions(e, b, asset_version))?;
        out.functions.push(function);
        out.summaries.push(summary);
    }
    Ok(out)
}

/// Adds the dialect and asset versions to an error: the encodings are versioned.
fn with_versions(mut e: BytecodeError, b: &AiBytecode, asset: Option<i64>) -> BytecodeError {
    let dialect = b
        .dialect_versions
        .first()
        .map(|v| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(".")
        })
        .unwrap_or_else(|| "none".into());
    let asset = asset.map_or_else(|| "unknown".into(), |v| v.to_string());
    let _ = write!(
        e.message,
        " (aicode dialect version {dialect}, asset version {asset}; this reader knows the \
         encodings of coreai-core 1.0.0b3: dialect version 5, asset versions 20250707, 20260204, 20260317 and 20260409)"
    );
    e
}

/// The properties section: a count, then each entry's size and bytes.
fn parse_properties(data: &[u8], base: usize) -> Result<Vec<(usize, Vec<u64>)>> {
    let mut r = Reader::new(data, base);
    let n = r.varint()?;
    if n > data.len() as u64 {
        return r.err(format!("{n} properties in a {}-byte section", data.len()));
    }
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let size = r.varint()?;
        let at = r.offset();
        let bytes = r.bytes(size, "properties")?;
        let mut fields = Reader::new(bytes, at);
        let mut values = Vec::new();
        while !fields.is_empty() {
            values.push(fields.varint()?);
        }
        out.push((at, values));
    }
    Ok(out)
}

struct Cx<'a> {
    b: &'a AiBytecode,
    table: &'a Table<'a>,
    properties: &'a [(usize, Vec<u64>)],
    /// Graph name → the composite it implements, for every composite graph of the asset.
    composites: HashMap<String, Composite>,
    /// The program file, whose resource blobs hold the large constants.
    file: &'a [u8],
    /// The `aicode` dialect's resources, in the order `dense_resource` indexes them.
    resources: Vec<&'a AiResource>,
}

/// What one graph argument or result is called and whether it is a state.
#[derive(Default, Clone)]
struct ArgAttrs {
    name: Option<String>,
    mutation: Option<String>,
}

impl Cx<'_> {
    fn name(&self, op: &IrOp) -> &str {
        self.b
            .op_names
            .get(op.name as usize)
            .map_or("?", String::as_str)
    }

    fn props(&self, op: &IrOp) -> Result<&[u64]> {
        match op.properties {
            None => Ok(&[]),
            Some(i) => match self.properties.get(i as usize) {
                Some((_, v)) => Ok(v),
                None => Err(BytecodeError {
                    offset: op.offset,
                    message: format!(
                        "properties index {i} out of range ({})",
                        self.properties.len()
                    ),
                }),
            },
        }
    }

    /// The asset's version: its one present (flagged) integer property.
    fn asset_version(&self, asset: &IrOp) -> Option<i64> {
        let props = self.props(asset).ok()?;
        props.iter().find_map(|&p| match p & 1 {
            1 => match self.table.attr(p >> 1) {
                Ok(AiAttr::Integer { value, .. }) => Some(value),
                _ => None,
            },
            _ => None,
        })
    }

    fn arg_attrs(&self, index: u64) -> Result<Vec<ArgAttrs>> {
        let mut out = Vec::new();
        for per_arg in self.table.array(index)? {
            let mut attrs = ArgAttrs::default();
            for entry in self.table.array(per_arg)? {
                let AiAttr::Opaque(key, values) = self.table.attr(entry)? else {
                    continue;
                };
                let value = match values.first() {
                    Some(&v) => match self.table.attr(v)? {
                        AiAttr::String(s) => Some(s),
                        _ => None,
                    },
                    None => None,
                };
                match key.as_str() {
                    NAME_KEY => attrs.name = value,
                    MUTATION_KEY => attrs.mutation = value,
                    _ => {}
                }
            }
            out.push(attrs);
        }
        Ok(out)
    }

    fn value_type(&self, ty: u64, at: usize) -> Result<ValueType> {
        match self.table.ty(ty)? {
            AiType::Value(v) => Ok(v),
            other => Err(BytecodeError {
                offset: at,
                message: format!(
                    "a value of type #{ty} ({other:?}), not a tensor, handle or token"
                ),
            }),
        }
    }

    /// The `op_attrs` of a composite declaration whose fields (`input_names`, `op_attrs`,
    /// `output_names`, each an opaque) are `fields`.
    fn composite_attrs(&self, fields: &[u64]) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for &field in fields {
            let AiAttr::Opaque(key, values) = self.table.attr(field)? else {
                continue;
            };
            if key != "op_attrs" {
                continue;
            }
            for &dict in &values {
                let AiAttr::Dictionary(entries) = self.table.attr(dict)? else {
                    continue;
                };
                for entry in entries {
                    let AiAttr::Opaque(name, value) = self.table.attr(entry)? else {
                        continue;
                    };
                    let text = match value.first() {
                        Some(&v) => attr_text(&self.table.attr(v)?),
                        None => String::new(),
                    };
                    out.push((name, text));
                }
            }
        }
        Ok(out)
    }

    /// A graph's name and the composite it implements.
    fn graph_identity(&self, graph: &IrOp) -> Result<(String, Option<Composite>)> {
        let props = self.props(graph)?;
        if props.len() != GRAPH_FIELDS {
            return Err(BytecodeError {
                offset: graph.offset,
                message: format!(
                    "`{GRAPH}` with {} property fields (the known layout has {GRAPH_FIELDS})",
                    props.len()
                ),
            });
        }
        let name = self.table.string(props[5])?;
        let composite = match props[1] {
            p if p & 1 == 1 => match self.table.attr(p >> 1)? {
                AiAttr::Opaque(key, fields) => Some(Composite {
                    name: key,
                    attrs: self.composite_attrs(&fields)?,
                }),
                other => {
                    return self
                        .table
                        .expected(p >> 1, "a composite declaration", &other)
                }
            },
            _ => None,
        };
        Ok((name, composite))
    }

    /// The graph an `invoke_v1` calls: its callee property binds a symbol reference.
    fn callee(&self, op: &IrOp) -> Option<String> {
        let props = self.props(op).ok()?;
        props.iter().find_map(|&p| {
            let AiAttr::ParamConstant(bound) = self.table.attr(p).ok()? else {
                return None;
            };
            match self.table.attr(bound).ok()? {
                AiAttr::SymbolRef(names) => names.last().cloned(),
                _ => None,
            }
        })
    }

    fn graph(&self, graph: &IrOp, text: &mut String) -> Result<(Function, AiFunction)> {
        let props = self.props(graph)?;
        let (name, composite) = self.graph_identity(graph)?;
        let private =
            matches!(self.table.attr(props[4])?, AiAttr::Integer { value, .. } if value != 0);
        let arg_attrs = self.arg_attrs(props[0])?;
        let res_attrs = self.arg_attrs(props[8])?;
        let empty = IrBlock::default();
        let body = graph
            .regions
            .first()
            .and_then(|r| r.blocks.first())
            .unwrap_or(&empty);
        let ops = super::op_count::count(body, |o| self.name(o));

        let mut names: HashMap<ValueId, Name> = HashMap::new();
        let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut summary = AiFunction {
            name: name.clone(),
            private,
            composite,
            ops,
            ..AiFunction::default()
        };
        let mut inputs = Vec::new();
        for (i, arg) in body.args.iter().enumerate() {
            let attrs = arg_attrs.get(i).cloned().unwrap_or_default();
            let mut arg_name = attrs.name.unwrap_or_else(|| format!("arg{i}"));
            if !taken.insert(arg_name.clone()) {
                arg_name = format!("arg{i}");
                taken.insert(arg_name.clone());
            }
            let ty = self.value_type(arg.ty, graph.offset)?;
            let entry = AiValue {
                name: arg_name.clone(),
                ty: ty.clone(),
            };
            if ty.is_state() || attrs.mutation.is_some() {
                summary.states.push(entry);
            } else {
                summary.inputs.push(entry);
            }
            names.insert(arg.id, Name::from(arg_name.as_str()));
            inputs.push((arg_name, ty));
        }
        // Results the graph returns take their output's name where it is free.
        let mut output_names: HashMap<ValueId, String> = HashMap::new();
        if let Some(out) = body.ops.iter().rev().find(|o| self.name(o) == OUTPUT) {
            for (i, id) in out.operands.iter().enumerate() {
                if let Some(n) = res_attrs.get(i).and_then(|a| a.name.clone()) {
                    output_names.entry(*id).or_insert(n);
                }
            }
        }

        let _ = writeln!(
            text,
            "\nfunction {name}{}{}:\n{}",
            if summary.private { " (private)" } else { "" },
            summary
                .composite
                .as_ref()
                .map(|c| format!(" (composite {c})"))
                .unwrap_or_default(),
            summary.ops.to_string().trim_end()
        );
        let func_start = text.len();
        let mut syntax = FunctionSyntax {
            name: name.clone(),
            opset: "coreai".into(),
            attributes: Vec::new(),
            body: BlockSyntax::default(),
            span: Span::new(func_start, func_start),
        };
        for (label, list) in [("inputs", &summary.inputs), ("states", &summary.states)] {
            let _ = writeln!(text, "  {label}:");
            for v in list.iter() {
                let start = text.len() + 4;
                let _ = writeln!(text, "    {}: {}", v.name, type_text(&v.ty));
                let span = Span::new(start, text.len() - 1);
                syntax.body.inputs.push(InputSyntax {
                    name: Name::from(v.name.as_str()),
                    ty: v.ty.clone(),
                    span,
                });
            }
        }
        // The IR keeps the graph's argument order.
        let order: HashMap<&str, usize> = inputs
            .iter()
            .enumerate()
            .map(|(i, (n, _))| (n.as_str(), i))
            .collect();
        syntax
            .body
            .inputs
            .sort_by_key(|i| order.get(i.name.as_str()).copied().unwrap_or(usize::MAX));

        let mut counter = 0usize;
        let mut outputs_syntax = Vec::new();
        let mut op_syntax = Vec::new();
        for op in &body.ops {
            let stored = self.name(op);
            if stored == OUTPUT {
                for (i, id) in op.operands.iter().enumerate() {
                    let n = self.operand(&names, *id, op)?;
                    let ty = self.operand_type(body, *id, graph.offset)?;
                    let out_name = res_attrs
                        .get(i)
                        .and_then(|a| a.name.clone())
                        .unwrap_or_else(|| n.to_string());
                    summary.outputs.push(AiValue { name: out_name, ty });
                    outputs_syntax.push(n);
                }
                continue;
            }
            let callee = (stored == INVOKE).then(|| self.callee(op)).flatten();
            let composite = callee.as_ref().and_then(|c| self.composites.get(c));
            let (op_type, params) = match composite {
                Some(composite) => composite_op(&composite.name),
                None => mil_op(stored),
            };
            let mut results = Vec::new();
            for r in &op.results {
                let ty = self.value_type(r.ty, op.offset)?;
                let wanted = output_names.get(&r.id).filter(|n| !taken.contains(*n));
                let value_name = match wanted {
                    Some(n) => n.clone(),
                    None => loop {
                        let candidate = format!("%{counter}");
                        counter += 1;
                        if !taken.contains(&candidate) {
                            break candidate;
                        }
                    },
                };
                taken.insert(value_name.clone());
                let name = Name::from(value_name.as_str());
                names.insert(r.id, name.clone());
                results.push(Output { name, ty });
            }
            let mut inputs_of_op: Vec<Param> = Vec::new();
            let param_names = params.of_operands(op.operands.len(), results.len());
            for (id, (pname, group)) in op.operands.iter().zip(param_names) {
                let value = Arg::Name(self.operand(&names, *id, op)?);
                match inputs_of_op.last_mut() {
                    Some(last) if group && last.name == pname.as_str() => last.args.push(value),
                    _ => inputs_of_op.push(Param {
                        name: Name::from(pname.as_str()),
                        args: vec![value],
                    }),
                }
            }
            let mut attributes = Attributes::default();
            if op_type == "const" {
                if let Some(lit) = self.constant(op, results.first().map(|r| &r.ty))? {
                    attributes = Attributes::from([("val", lit)]);
                }
            }
            let mut line = String::from("    ");
            let result_names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
            if !result_names.is_empty() {
                let _ = write!(line, "{} = ", result_names.join(", "));
            }
            let args: Vec<String> = inputs_of_op
                .iter()
                .map(|p| {
                    let vals: Vec<String> = p
                        .args
                        .iter()
                        .map(|a| match a {
                            Arg::Name(n) => n.to_string(),
                            Arg::Value(_) => "…".into(),
                        })
                        .collect();
                    if vals.len() == 1 {
                        format!("{} = {}", p.name, vals[0])
                    } else {
                        format!("{} = ({})", p.name, vals.join(", "))
                    }
                })
                .collect();
            let types: Vec<String> = results.iter().map(|r| type_text(&r.ty)).collect();
            let mut args = args;
            if op_type == "const" {
                if let Some(v) = self.constant_text(op, attributes.get("val"))? {
                    args.push(format!("val = {v}"));
                }
            }
            let _ = write!(line, "{op_type}({})", args.join(", "));
            if !types.is_empty() {
                let _ = write!(line, " : {}", types.join(", "));
            }
            let _ = write!(line, "  // {stored}");
            if let Some(c) = &callee {
                let _ = write!(line, " @{c}");
            }
            if let Some(c) = composite.filter(|c| !c.attrs.is_empty()) {
                let _ = write!(line, " {{{}}}", c.attrs_text());
            }
            op_syntax.push((line, op_type, results, inputs_of_op, attributes));
        }
        let _ = writeln!(text, "  outputs:");
        for v in &summary.outputs {
            let _ = writeln!(text, "    {}: {}", v.name, type_text(&v.ty));
        }
        let _ = writeln!(text, "  ops:");
        for (line, op_type, outputs, params, attributes) in op_syntax {
            let start = text.len() + 4;
            text.push_str(&line);
            let span = Span::new(start, text.len());
            text.push('\n');
            syntax.body.ops.push(OpSyntax {
                op_type: Name::from(op_type.as_str()),
                name: None,
                inputs: params,
                outputs,
                attributes,
                blocks: Vec::new(),
                span,
            });
        }
        syntax.body.outputs = outputs_syntax;
        syntax.body.outputs_span = Span::new(func_start, func_start);
        syntax.span = Span::new(func_start.saturating_sub(1), func_start);
        let function = build_function(syntax).map_err(|e| BytecodeError {
            offset: graph.offset,
            message: format!("graph `{name}`: {e}"),
        })?;
        Ok((function, summary))
    }

    fn operand(&self, names: &HashMap<ValueId, Name>, id: ValueId, op: &IrOp) -> Result<Name> {
        names.get(&id).cloned().ok_or_else(|| BytecodeError {
            offset: op.offset,
            message: format!(
                "`{}` reads a value defined outside its graph",
                self.name(op)
            ),
        })
    }

    fn operand_type(&self, body: &IrBlock, id: ValueId, at: usize) -> Result<ValueType> {
        let ty = body
            .args
            .iter()
            .chain(body.ops.iter().flat_map(|o| o.results.iter()))
            .find(|v| v.id == id)
            .map(|v| v.ty);
        match ty {
            Some(t) => self.value_type(t, at),
            None => Err(BytecodeError {
                offset: at,
                message: format!("returned value {id} is not defined in the graph"),
            }),
        }
    }

    /// A constant's value as `dump` prints it: the resource a `dense_resource` reads (its values
    /// are decoded into the IR, not printed), or the decoded elements (the first few of a long
    /// one, with their number).
    fn constant_text(&self, op: &IrOp, value: Option<&Literal>) -> Result<Option<String>> {
        if let [attr] = self.props(op)? {
            if let AiAttr::Resource(index) = self.table.attr(*attr)? {
                let key = &self.resource(index, op)?.key;
                return Ok(Some(format!("dense_resource<{key}>")));
            }
        }
        Ok(match value {
            Some(Literal {
                payload: Payload::Tensor(data),
                ..
            }) => values_text(data),
            _ => None,
        })
    }

    /// The `aicode` resource `index` a constant `op` reads.
    fn resource(&self, index: u64, op: &IrOp) -> Result<&AiResource> {
        self.resources
            .get(index as usize)
            .copied()
            .ok_or_else(|| BytecodeError {
                offset: op.offset,
                message: format!(
                    "a constant reads resource {index} of the {} `aicode` resources",
                    self.resources.len()
                ),
            })
    }

    /// A constant's value as a literal, when it is an inline `dense_elements` of a decoded dtype.
    fn constant(&self, op: &IrOp, ty: Option<&ValueType>) -> Result<Option<Literal>> {
        let Some(ValueType::Tensor(t)) = ty else {
            return Ok(None);
        };
        let Some(count) = t.known_dims().map(|d| d.iter().product::<u64>()) else {
            return Ok(None);
        };
        let props = self.props(op)?;
        let [value] = props else {
            return Ok(None);
        };
        if count as usize > MAX_CONST_ELEMENTS {
            return Ok(None);
        }
        let data = match self.table.attr(*value)? {
            AiAttr::Dense { splat, bytes } => {
                decode_elements(t.dtype, &bytes, splat, count as usize)
            }
            // A blob holds the elements back to back, little-endian; sub-byte types are packed
            // there (an order not measured), so only whole-byte types are read.
            AiAttr::Resource(index) => {
                let r = self.resource(index, op)?;
                match storage(t.dtype) {
                    Some(Storage::Bytes(width)) if r.size == count * width as u64 => self
                        .file
                        .get(r.offset as usize..(r.offset + r.size) as usize)
                        .and_then(|bytes| decode_words(t.dtype, bytes, width)),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(data) = data else {
            return Ok(None);
        };
        Ok(Some(Literal {
            ty: ValueType::Tensor(t.clone()),
            payload: Payload::Tensor(data),
        }))
    }
}

/// A scalar attribute as coreai-core prints it: a 1-bit integer as `true`/`false`.
fn attr_text(attr: &AiAttr) -> String {
    match attr {
        AiAttr::Integer { bits: 1, value } => (*value != 0).to_string(),
        AiAttr::Integer { value, .. } => value.to_string(),
        AiAttr::String(s) => format!("{s:?}"),
        other => format!("{other:?}"),
    }
}

/// A value type as `dump` prints it: MIL's `tensor<fp16, [1, 8]>`, `state<…>`, `token`.
pub fn type_text(ty: &ValueType) -> String {
    match ty {
        ValueType::Tensor(t) => t.to_string(),
        ValueType::State(inner) => format!("state<{}>", type_text(inner)),
        ValueType::Token => "token".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::TensorData;

    fn program(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/corpus/coreai/programs/{name}.aimodel/main.mlirb",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// The container and the program of `data`, or the error with its offset.
    fn read(data: &[u8]) -> std::result::Result<Lowered, BytecodeError> {
        let b = super::super::bytecode::parse(data)?;
        lower(data, &b, &mut String::new())
    }

    #[test]
    fn every_truncation_and_flipped_byte_is_an_error_inside_the_file_or_a_program() {
        let file = program("split-zero");
        let whole = read(&file).unwrap();
        assert_eq!(whole.summaries[0].ops.stored, 19);
        assert_eq!(whole.summaries[0].ops.top_level, 8);
        // coreai-core prints `%1 = coreai.constant dense<[4, 0, 4]> : tensor<3xui32>`.
        let sizes = whole.functions[0]
            .ops()
            .filter(|(_, op)| op.op_type == "const")
            .find_map(|(_, op)| match op.attributes.get("val") {
                Some(Literal {
                    payload: Payload::Tensor(TensorData::Ints(v)),
                    ..
                }) if v.len() == 3 => Some(v.clone()),
                _ => None,
            });
        assert_eq!(sizes, Some(vec![4, 0, 4]));
        for cut in 0..file.len() {
            if let Err(e) = read(&file[..cut]) {
                assert!(e.offset <= cut, "cut {cut}: {e:?}");
            }
        }
        for i in 0..file.len() {
            for flip in [0x01u8, 0x02, 0x80, 0xFF] {
                let mut g = file.clone();
                g[i] ^= flip;
                if let Err(e) = read(&g) {
                    assert!(e.offset <= g.len(), "byte {i} ^ {flip:#x}: {e:?}");
                }
            }
        }
    }

    #[test]
    fn truncations_of_a_stateful_program_never_panic() {
        let file = program("decoder");
        assert_eq!(read(&file).unwrap().functions.len(), 4);
        for cut in (0..file.len()).step_by(7) {
            if let Err(e) = read(&file[..cut]) {
                assert!(e.offset <= cut, "cut {cut}: {e:?}");
            }
        }
    }

    #[test]
    fn absurd_counts_are_errors_before_any_allocation() {
        use super::super::ir_section::parse;
        // A block of 2^40 ops; a region declaring 2^40 values; a rank-2^40 tensor is refused by
        // the type decoder (`MAX_RANK`).
        let huge = [0x00, 0, 0, 0, 0, 0, 0x01, 0, 0];
        let err = parse(&huge, 100, 1, 1).unwrap_err();
        assert!(err.message.contains("ops with"), "{err:?}");
        assert!(
            err.offset >= 100 && err.offset <= 100 + huge.len(),
            "{err:?}"
        );
        // One op (name 0, regions) whose inline region declares 2^40 values.
        let region = [
            0x05, 0x01, 0x10, 0x01, 0x05, 0x03, 0x00, 0, 0, 0, 0, 0, 0x01, 0, 0,
        ];
        let err = parse(&region, 0, 1, 1).unwrap_err();
        assert!(err.message.contains("values"), "{err:?}");
    }

    #[test]
    fn an_unknown_type_code_names_the_offset_and_the_versions() {
        let mut file = program("split");
        let b = super::super::bytecode::parse(&file).unwrap();
        // The first type entry (the first byte of the attr/type section after the attributes):
        // find an fp16 element type (code 7, varint byte 0x0f) entry of length 1 and make it 63.
        let types = b.sections.iter().find(|s| s.id == ATTR_TYPE).unwrap();
        let at = (types.offset as usize..(types.offset + types.len) as usize)
            .rev()
            .find(|&i| file[i] == 0x0f)
            .unwrap();
        file[at] = 0x7f;
        let err = match read(&file) {
            Err(e) => e,
            Ok(_) => panic!("an unknown element type code read"),
        };
        assert!(err.message.contains("type code 63"), "{err:?}");
        assert!(err.message.contains("dialect version 5"), "{err:?}");
        assert!(err.message.contains("asset version 20260204"), "{err:?}");
    }

    /// The decoded values of every constant of `name`, in program order, as numbers.
    fn constant_values(name: &str) -> Vec<Vec<f64>> {
        let lowered = read(&program(name)).unwrap();
        let f = lowered.functions.iter().find(|f| f.name != "sdpa").unwrap();
        f.ops()
            .filter(|(_, op)| op.op_type == "const")
            .map(|(_, op)| match op.attributes.get("val") {
                Some(Literal {
                    payload: Payload::Tensor(data),
                    ..
                }) => match data {
                    TensorData::Floats(v) => v.clone(),
                    TensorData::Ints(v) => v.iter().map(|&x| x as f64).collect(),
                    TensorData::Bools(v) => v.iter().map(|&b| f64::from(u8::from(b))).collect(),
                    other => panic!("{other:?}"),
                },
                other => panic!("`{}` not decoded: {other:?}", op.display_name()),
            })
            .collect()
    }

    #[test]
    fn every_element_type_coreai_core_writes_decodes_as_it_prints() {
        let printed = std::fs::read_to_string(format!(
            "{}/corpus/coreai/programs/dtypes.program.txt",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        // `%3 = coreai.constant dense<[1, -2, 3, -8]> : tensor<4xsi4>` (a splat: `dense<-3>`).
        let want: Vec<Vec<f64>> = printed
            .lines()
            .filter_map(|l| l.split("coreai.constant dense<").nth(1))
            .map(|rest| {
                let (values, ty) = rest.split_once("> : tensor<").unwrap();
                let count: usize = ty.split('x').next().unwrap().parse().unwrap();
                let items: Vec<f64> = values
                    .trim_matches(['[', ']'])
                    .split(", ")
                    .map(|v| match v {
                        "true" => 1.0,
                        "false" => 0.0,
                        n => n.parse().unwrap(),
                    })
                    .collect();
                match items.len() {
                    1 => vec![items[0]; count],
                    _ => items,
                }
            })
            .collect();
        assert_eq!(want.len(), 11, "{printed}");
        assert_eq!(constant_values("dtypes"), want);
        let types: Vec<String> = read(&program("dtypes")).unwrap().functions[0]
            .ops()
            .filter_map(|(_, op)| match &op.outputs[0].ty {
                ValueType::Tensor(t) => Some(format!("{:?}", t.dtype)),
                _ => None,
            })
            .collect();
        assert_eq!(
            types.join(" "),
            "Fp64 Int64 UInt64 Int4 Int4 UInt1 UInt2 UInt3 UInt4 UInt6 Bool"
        );
    }

    #[test]
    fn weight_resources_decode_to_the_values_coreai_core_holds() {
        // coreai-core's program text of `decoder.aimodel` holds each blob as hex: these are the
        // first four and the last of its fp16 elements (`numpy.frombuffer(…, float16)`).
        let want: [(&str, usize, [f64; 4], f64); 3] = [
            (
                "resource_16819552891009923155",
                1024,
                [
                    0.056304931640625,
                    -0.06463623046875,
                    -0.08233642578125,
                    -0.142822265625,
                ],
                -0.1522216796875,
            ),
            (
                "resource_12079211690878646712",
                16384,
                [
                    -0.0985107421875,
                    0.2076416015625,
                    -0.016448974609375,
                    0.1134033203125,
                ],
                0.0211944580078125,
            ),
            (
                "resource_8938937026063640510",
                768,
                [
                    -0.0018720626831054688,
                    0.1341552734375,
                    -0.205810546875,
                    -0.1839599609375,
                ],
                0.2169189453125,
            ),
        ];
        let file = program("decoder");
        let b = super::super::bytecode::parse(&file).unwrap();
        let mut text = String::new();
        let lowered = lower(&file, &b, &mut text).unwrap();
        let decode = lowered
            .functions
            .iter()
            .find(|f| f.name == "decode")
            .unwrap();
        for (key, count, first, last) in want {
            let line = text
                .split("\nfunction decode:")
                .nth(1)
                .unwrap()
                .lines()
                .find(|l| l.contains(&format!("dense_resource<{key}>")) && l.contains("const("))
                .unwrap();
            let name = line.trim().split(' ').next().unwrap();
            let (_, op) = decode
                .ops()
                .find(|(_, op)| op.display_name() == name)
                .unwrap();
            let Some(Literal {
                payload: Payload::Tensor(TensorData::Floats(v)),
                ..
            }) = op.attributes.get("val")
            else {
                panic!("{key} not decoded");
            };
            assert_eq!(
                (v.len(), &v[..4], v[count - 1]),
                (count, &first[..], last),
                "{key}"
            );
        }
    }

    /// Every op kind's groups split its operands one way: at most one group not sized by the
    /// results, and `per-result` names a group of the list.
    #[test]
    fn op_table_groups_split_one_way() {
        for (key, m) in mappings() {
            let groups: Vec<&str> = m
                .params
                .iter()
                .filter_map(|p| p.strip_suffix('*'))
                .collect();
            let sized_by_results = usize::from(m.per_result.is_some());
            assert!(groups.len() <= 1 + sized_by_results, "{key}: {groups:?}");
            if let Some(g) = &m.per_result {
                assert!(groups.contains(&g.as_str()), "{key}: {g} is no group");
            }
        }
    }

    #[test]
    fn operands_are_named_by_their_groups() {
        let names = |stored: &str, operands: usize, results: usize| -> String {
            mil_op(stored)
                .1
                .of_operands(operands, results)
                .iter()
                .map(|(n, group)| format!("{n}{}", if *group { "*" } else { "" }))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let metal = "aicode.metal.metal4_kernel_v1";
        assert_eq!(
            names(metal, 4, 1),
            "kernel_args* threads_per_grid threads_per_thread_group result_shapes*"
        );
        assert_eq!(
            names(metal, 7, 3),
            "kernel_args* kernel_args* threads_per_grid threads_per_thread_group \
             result_shapes* result_shapes* result_shapes*"
        );
        assert_eq!(
            names(metal, 3, 1),
            "threads_per_grid threads_per_thread_group result_shapes*",
            "a kernel without arguments"
        );
        // Counts that cannot split (fewer operands than the results need) name no parameter.
        assert_eq!(names(metal, 3, 3), "operand0 operand1 operand2");
        let concat = "aicode.primitive.concat_v1";
        assert_eq!(names(concat, 3, 1), "axis values* values*");
        assert_eq!(names(concat, 0, 1), "");
        let conv = "aicode.primitive.conv2d_v1";
        assert_eq!(names(conv, 3, 1), "x weight strides");
        assert_eq!(
            names(conv, 6, 1),
            "x weight strides dilations groups operand5"
        );
        assert_eq!(
            names("aicode.primitive.lut_to_dense_v1", 2, 1),
            "operand0 operand1"
        );
    }

    #[test]
    fn op_table_reads_and_names_mil_ops() {
        assert!(mappings().len() > 40);
        assert_eq!(op_stem("aicode.primitive.reshape_v2"), "primitive.reshape");
        assert_eq!(op_stem("aicode.serialization.asset"), "serialization.asset");
        assert_eq!(mil_op("aicode.broadcasting_add_v1").0, "add");
        assert_eq!(mil_op("aicode.dataflow.write_handle_v1").0, "write_state");
        assert_eq!(mil_op("aicode.primitive.lut_to_dense_v1").0, "lut_to_dense");
        // coreai's operand order (apple/coreai-torch `tests/ops/test_ops_ir.py`).
        for (stored, op, params) in [
            (
                "aicode.primitive.conv2d_v1",
                "conv",
                "x weight strides dilations groups",
            ),
            (
                "aicode.conv2d_v1",
                "conv",
                "x weight strides dilations groups",
            ),
            ("aicode.primitive.pad_v1", "pad", "x pad constant_val"),
            ("aicode.primitive.expand_dims_v1", "expand_dims", "x axes"),
            (
                "aicode.primitive.broadcast_in_dims_v1",
                "broadcast_in_dims",
                "x sizes axes",
            ),
        ] {
            let (name, mapped) = mil_op(stored);
            assert_eq!(
                (name.as_str(), mapped.names.join(" ").as_str()),
                (op, params),
                "{stored}"
            );
        }
    }
}
