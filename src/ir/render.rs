//! Prints a [`Program`] as text MIL in the compiler's layout (FORMAT.md §8); also the source that
//! `.mlpackage` diagnostics point into.

use std::fmt::Write;

use super::graph::{Arg, BlockId, Function, NodeId, Op};
use super::literal::{Literal, Payload, TensorData};
use super::span::Span;
use super::types::{DType, TensorType, ValueType};
use super::Program;
use crate::read::limits::MAX_NESTING;
use crate::read::miltext::number::format_hex_float;

/// Text opset name for a proto opset name (`CoreML8` → `ios18`); text names pass through.
pub fn text_opset(opset: &str) -> &str {
    match opset {
        "CoreML5" => "ios15",
        "CoreML6" => "ios16",
        "CoreML7" => "ios17",
        "CoreML8" => "ios18",
        "CoreML9" => "ios26",
        other => other,
    }
}

/// Renders `program` as text MIL and records each op's, input's and function's span in the text.
pub fn render_program(program: &mut Program) -> String {
    let mut r = Renderer {
        out: String::new(),
        bare_scalars: bare_scalars(&program.version),
    };
    let _ = writeln!(r.out, "program({})", program.version);
    if !program.attributes.is_empty() {
        r.out.push('[');
        r.attrs(
            &program
                .attributes
                .iter()
                .map(|(k, v)| (k.as_str(), v))
                .collect::<Vec<_>>(),
        );
        r.out.push_str("]\n");
    }
    r.out.push_str("{\n");
    for f in &mut program.functions {
        r.function(f);
    }
    r.out.push('}');
    r.out
}

/// Renders without touching spans (for `dump` of a program whose spans must stay as read).
pub fn render_to_string(program: &Program) -> String {
    render_program(&mut program.clone())
}

fn bare_scalars(version: &str) -> bool {
    let mut parts = version.split('.');
    let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(1);
    let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (major, minor) >= (1, 3)
}

struct Renderer {
    out: String,
    bare_scalars: bool,
}

impl Renderer {
    fn function(&mut self, f: &mut Function) {
        let start = self.out.len() + 4;
        let _ = write!(self.out, "    func {}<{}>(", f.name, text_opset(&f.opset));
        let inputs: Vec<NodeId> = f
            .blocks
            .first()
            .map(|b| b.inputs.clone())
            .unwrap_or_default();
        self.params(f, &inputs);
        self.out.push(')');
        if !f.attributes.is_empty() {
            self.out.push_str(" [");
            let attrs = f.attributes.clone();
            self.attrs(
                &attrs
                    .iter()
                    .map(|(k, v)| (k.as_str(), v))
                    .collect::<Vec<_>>(),
            );
            self.out.push(']');
        }
        self.out.push_str(" {");
        f.span = Span::new(start, self.out.len());
        self.out.push('\n');
        self.block_body(f, super::BODY, 3);
        self.out.push_str(";\n");
    }

    fn params(&mut self, f: &mut Function, ids: &[NodeId]) {
        for (i, &id) in ids.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let start = self.out.len();
            if let Some(inp) = f.input(id) {
                let text = format!("{} {}", self.ty(&inp.ty), inp.name);
                self.out.push_str(&text);
            }
            let end = self.out.len();
            if let Some(inp) = f.input_mut(id) {
                inp.span = Span::new(start, end);
            }
        }
    }

    /// Statements at `depth` × 4 spaces, then `} -> (outs)` one level less.
    fn block_body(&mut self, f: &mut Function, block: BlockId, depth: usize) {
        let Some(b) = f.blocks.get(block.0 as usize) else {
            return;
        };
        let ops = b.ops.clone();
        let outputs = b.outputs.clone();
        for id in ops {
            self.indent(depth);
            self.statement(f, id, depth);
            self.out.push('\n');
        }
        self.indent(depth.saturating_sub(1));
        let _ = write!(self.out, "}} -> ({})", outputs.join(", "));
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth * 4 {
            self.out.push(' ');
        }
    }

    fn statement(&mut self, f: &mut Function, id: NodeId, depth: usize) {
        let start = self.out.len();
        let Some(op) = f.op(id).cloned() else { return };
        self.op_head(&op);
        for &blk in &op.blocks {
            self.out.push(' ');
            let inputs = f
                .blocks
                .get(blk.0 as usize)
                .map(|b| b.inputs.clone())
                .unwrap_or_default();
            if !inputs.is_empty() {
                self.out.push('(');
                self.params(f, &inputs);
                self.out.push_str(") ");
            }
            self.out.push_str("{\n");
            self.block_body(f, blk, depth + 2);
        }
        self.out.push(';');
        let end = self.out.len();
        if let Some(op) = f.op_mut(id) {
            op.span = Span::new(start, end);
        }
    }

    fn op_head(&mut self, op: &Op) {
        if !op.outputs.is_empty() {
            for (i, o) in op.outputs.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                let t = self.ty(&o.ty);
                let _ = write!(self.out, "{t} {}", o.name);
            }
            self.out.push_str(" = ");
        }
        let _ = write!(self.out, "{}(", op.op_type);
        for (i, p) in op.inputs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let _ = write!(self.out, "{} = ", p.name);
            let multi = p.args.len() != 1;
            if multi {
                self.out.push('(');
            }
            for (j, a) in p.args.iter().enumerate() {
                if j > 0 {
                    self.out.push_str(", ");
                }
                match a {
                    Arg::Name(n) => self.out.push_str(n),
                    Arg::Value(lit) => self.literal(lit),
                }
            }
            if multi {
                self.out.push(')');
            }
        }
        self.out.push(')');
        let name_lit = op.name.as_ref().map(|n| Literal {
            ty: ValueType::Tensor(TensorType::scalar(DType::String)),
            payload: Payload::Tensor(TensorData::Strings(vec![n.clone()])),
        });
        let mut attrs: Vec<(&str, &Literal)> =
            op.attributes.iter().map(|(k, v)| (k.as_str(), v)).collect();
        if let Some(n) = &name_lit {
            attrs.push(("name", n));
        }
        attrs.sort_by(|a, b| a.0.cmp(b.0));
        if !attrs.is_empty() {
            self.out.push('[');
            self.attrs(&attrs);
            self.out.push(']');
        }
    }

    fn attrs(&mut self, attrs: &[(&str, &Literal)]) {
        for (i, (k, v)) in attrs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let _ = write!(self.out, "{k} = ");
            self.literal(v);
        }
    }

    fn ty(&self, ty: &ValueType) -> String {
        match ty {
            ValueType::Tensor(t) => {
                if self.bare_scalars && t.shape.as_ref().is_some_and(Vec::is_empty) {
                    t.dtype.text_name()
                } else {
                    t.to_string()
                }
            }
            ValueType::State(inner) => format!("state<{}>", self.ty(inner)),
            ValueType::List { elem, len } => format!("list<{}, {len}>", self.ty(elem)),
            ValueType::Tuple(items) => {
                format!(
                    "tuple<{}>",
                    items
                        .iter()
                        .map(|t| self.ty(t))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            ValueType::Dict { key, value } => format!("dict<{}, {}>", self.ty(key), self.ty(value)),
        }
    }

    fn literal(&mut self, lit: &Literal) {
        let t = self.ty(&lit.ty);
        self.out.push_str(&t);
        self.out.push('(');
        self.payload(&lit.ty, &lit.payload);
        self.out.push(')');
    }

    fn payload(&mut self, ty: &ValueType, p: &Payload) {
        match p {
            Payload::Blob(b) => {
                let s = self.ty(&ValueType::Tensor(TensorType::scalar(DType::String)));
                let u = self.ty(&ValueType::Tensor(TensorType::scalar(DType::UInt64)));
                let _ = write!(
                    self.out,
                    "BLOBFILE(path = {s}({}), offset = {u}({}))",
                    quote(&b.path),
                    b.offset
                );
            }
            Payload::Tensor(data) => {
                let t = ty
                    .tensor()
                    .cloned()
                    .unwrap_or_else(|| TensorType::scalar(DType::Fp32));
                self.tensor(&t, data);
            }
            Payload::Tuple(items) => {
                let types: Vec<ValueType> = match ty {
                    ValueType::Tuple(t) => t.clone(),
                    _ => Vec::new(),
                };
                self.out.push('(');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    let it = types.get(i).cloned().unwrap_or_else(|| ty.clone());
                    self.payload(&it, item);
                }
                self.out.push(')');
            }
            Payload::List(items) => {
                let elem = match ty {
                    ValueType::List { elem, .. } => (**elem).clone(),
                    other => other.clone(),
                };
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.payload(&elem, item);
                }
                self.out.push(']');
            }
            Payload::Dict(pairs) => {
                let (kt, vt) = match ty {
                    ValueType::Dict { key, value } => ((**key).clone(), (**value).clone()),
                    other => (other.clone(), other.clone()),
                };
                self.out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push('{');
                    self.payload(&kt, k);
                    self.out.push_str(", ");
                    self.payload(&vt, v);
                    self.out.push('}');
                }
                self.out.push('}');
            }
        }
    }

    /// Elements nested by the shape (a bare scalar for rank 0). A shape that disagrees with the data,
    /// holds no elements, or is deeper than [`MAX_NESTING`] gets the flat list (the parser flattens
    /// nested lists anyway), so the text is never larger than the elements and the shape's rank.
    fn tensor(&mut self, t: &TensorType, data: &TensorData) {
        let elems = elements(t.dtype, data);
        let dims = t.known_dims().unwrap_or_else(|| vec![elems.len() as u64]);
        if dims.is_empty() && elems.len() == 1 {
            self.out.push_str(elems.first().map_or("", String::as_str));
            return;
        }
        let count = dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
        let nested = !dims.is_empty()
            && dims.len() <= MAX_NESTING
            && !elems.is_empty()
            && count == Some(elems.len() as u64);
        if !nested {
            let _ = write!(self.out, "[{}]", elems.join(", "));
            return;
        }
        let mut idx = 0;
        nest(&mut self.out, &dims, &elems, &mut idx);
    }
}

fn nest(out: &mut String, dims: &[u64], elems: &[String], idx: &mut usize) {
    out.push('[');
    match dims {
        [] => {}
        [n] => {
            for i in 0..*n {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(elems.get(*idx).map_or("", String::as_str));
                *idx += 1;
            }
        }
        [n, rest @ ..] => {
            for i in 0..*n {
                if i > 0 {
                    out.push_str(", ");
                }
                nest(out, rest, elems, idx);
            }
        }
    }
    out.push(']');
}

/// Each element's text; raw bytes are unpacked by the dtype's width (sub-byte types LSB-first).
fn elements(dtype: DType, data: &TensorData) -> Vec<String> {
    match data {
        TensorData::Ints(v) => v.iter().map(i64::to_string).collect(),
        TensorData::Floats(v) => v.iter().map(|&x| format_hex_float(x)).collect(),
        TensorData::Bools(v) => v.iter().map(bool::to_string).collect(),
        TensorData::Strings(v) => v.iter().map(|s| quote(s)).collect(),
        TensorData::Bytes(b) => unpack_bytes(dtype, b)
            .into_iter()
            .map(|x| x.to_string())
            .collect(),
    }
}

/// Unpacks little-endian element bytes into integers (floats stored as bytes print their bit patterns).
pub fn unpack_bytes(dtype: DType, bytes: &[u8]) -> Vec<i64> {
    let bits = dtype.bits().unwrap_or(8) as usize;
    if bits >= 8 {
        let width = bits / 8;
        return bytes
            .chunks_exact(width)
            .map(|c| {
                let mut v: u64 = 0;
                for (i, b) in c.iter().enumerate() {
                    v |= u64::from(*b) << (8 * i);
                }
                let signed = matches!(
                    dtype,
                    DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64
                );
                if signed && width < 8 && v >> (width * 8 - 1) & 1 == 1 {
                    (v | (!0u64 << (width * 8))) as i64
                } else {
                    v as i64
                }
            })
            .collect();
    }
    let count = bytes.len() * 8 / bits;
    (0..count)
        .map(|i| {
            let mut v: i64 = 0;
            for k in 0..bits {
                let bit = i * bits + k;
                let byte = bytes.get(bit / 8).copied().unwrap_or(0);
                v |= i64::from((byte >> (bit % 8)) & 1) << k;
            }
            if dtype == DType::Int4 && v >= 8 {
                v - 16
            } else {
                v
            }
        })
        .collect()
}

fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    out.push('"');
    out
}
