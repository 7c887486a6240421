//! Prints a [`Program`] as text MIL in the compiler's layout (FORMAT.md §8); also the source that
//! `.mlpackage` diagnostics point into.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use rayon::prelude::*;

use super::graph::{Arg, BlockId, Function, Node, NodeId, Op};
use super::literal::{Literal, Payload, TensorData};
use super::name::Name;
use super::rendered_lines::RenderedLines;
use super::span::{LineIndex, Span};
use super::types::{DType, Dim, TensorType, ValueType};
use super::Program;
use crate::limits::MAX_NESTING;
use crate::mil_number::write_hex_float;
use crate::unsafe_chars::{is_plain, lines_need_escape};

/// Text opset name for a proto opset name (`CoreML8` → `ios18`); text names pass through.
pub(crate) fn text_opset(opset: &str) -> &str {
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
/// Functions are rendered in parallel, then joined.
pub fn render_program(program: &mut Program) -> String {
    render(program, Keep::Text).text
}

/// Where each line of `program`'s text MIL starts, without writing the text of the statements of
/// ops without nested blocks (a stand-in with their line breaks instead): records spans that
/// start on the same line and column as [`render_program`]'s, in the same order, but are not
/// offsets into its text. For reports that need line numbers but no source (JSON, SARIF).
pub fn index_program(program: &mut Program) -> LineIndex {
    let rendered = render(program, Keep::LineStarts);
    LineIndex::from_breaks(rendered.line_starts, rendered.len)
}

/// [`index_program`], also noting whether the text holds a character a terminal is shown escaped:
/// for a report that quotes a few lines ([`quote_lines`]) but says whether any line needed it. A
/// statement whose names or strings hold a character that is not printable ASCII is written (and
/// scanned), not stood in for.
pub fn index_program_for_quotes(program: &mut Program) -> RenderedLines {
    let rendered = render(program, Keep::LineStartsNotingUnsafe);
    RenderedLines {
        index: LineIndex::from_breaks(rendered.line_starts, rendered.len),
        needs_escape: rendered.needs_escape,
        quoted: BTreeMap::new(),
    }
}

/// The lines `wanted` (0-based) of `program`'s text MIL, exactly as [`render_program`] writes them
/// (without their line breaks), by number; and the spans of the statements written to quote them.
/// `lines` and the program's spans are those [`index_program`] or
/// [`index_program_for_quotes`] recorded (a stand-in's span starts where its statement does and
/// ends on its last line): an op whose lines are not wanted is skipped unrendered, and a function
/// with no wanted line is not visited.
pub fn quote_lines(
    program: &Program,
    lines: &LineIndex,
    wanted: &BTreeSet<usize>,
) -> (BTreeMap<usize, String>, Vec<Span>) {
    let bare_scalars = bare_scalars(&program.version);
    let mut quoted = BTreeMap::new();
    let mut header = Renderer::new(bare_scalars, Keep::Text);
    header.quote = Some(Quote::new(0, wanted, lines));
    header.header(program);
    header.take_quoted_lines();
    let mut statements = Vec::new();
    quoted.append(&mut header.quote.take().map(|q| q.kept).unwrap_or_default());
    let last = lines.count().saturating_sub(1);
    let starts: Vec<usize> = program
        .functions
        .iter()
        .map(|f| lines.line_of(f.span.start))
        .collect();
    for (i, f) in program.functions.iter().enumerate() {
        let first = starts[i];
        let end = starts.get(i + 1).copied().unwrap_or(last);
        if wanted.range(first..end).next().is_none() {
            continue;
        }
        let mut fr = Renderer::new(bare_scalars, Keep::Text);
        fr.quote = Some(Quote::new(first, wanted, lines));
        fr.function(f);
        fr.take_quoted_lines();
        if let Some(mut q) = fr.quote.take() {
            quoted.append(&mut q.kept);
            statements.append(&mut q.statements);
        }
    }
    if wanted.contains(&last) {
        quoted.insert(last, "}".to_string());
    }
    (quoted, statements)
}

/// How much text a render that keeps only line starts holds before it counts and drops it (every
/// statement in unit tests, so that they cover the drops inside nested blocks).
#[cfg(not(test))]
const FLUSH_AT: usize = 1 << 16;
#[cfg(test)]
const FLUSH_AT: usize = 1;

/// What a render keeps of the text it writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    Text,
    LineStarts,
    /// [`Keep::LineStarts`], and whether the text needs escaping on a terminal.
    LineStartsNotingUnsafe,
}

impl Keep {
    fn line_starts(self) -> bool {
        self != Keep::Text
    }
}

struct Rendered {
    text: String,
    line_starts: Vec<usize>,
    len: usize,
    needs_escape: bool,
}

fn render(program: &mut Program, keep: Keep) -> Rendered {
    let bare_scalars = bare_scalars(&program.version);
    let mut header = Renderer::new(bare_scalars, Keep::Text);
    header.header(program);
    // About a line of 150 bytes per op. The first function's text starts with the header and has
    // room for the whole program, so that the others are appended to it without a second copy.
    let estimate = |f: &Function| f.op_count().saturating_mul(150);
    let whole = header.out.len() + program.functions.iter().map(estimate).sum::<usize>() + 1;
    let mut parts: Vec<Renderer> = program
        .functions
        .par_iter()
        .enumerate()
        .map(|(i, f)| {
            let mut fr = Renderer::new(bare_scalars, keep);
            if keep == Keep::Text {
                fr.out.reserve(if i == 0 { whole } else { estimate(f) });
            }
            if i == 0 {
                fr.out.push_str(&header.out);
            }
            fr.function(f);
            fr.flush();
            fr
        })
        .collect();
    if parts.is_empty() {
        let mut only = Renderer::new(bare_scalars, keep);
        only.out = header.out;
        only.flush();
        parts.push(only);
    }
    let mut out = String::new();
    let mut line_starts = Vec::new();
    let mut len = 0;
    let needs_escape = parts.iter().any(|p| p.unsafe_seen);
    let mut functions = program.functions.iter_mut();
    for (i, part) in parts.into_iter().enumerate() {
        let base = len;
        len += part.pos();
        if let Some(f) = functions.next() {
            part.spans.apply(f, base);
        }
        if i == 0 {
            out = part.out;
            line_starts = part.line_starts;
        } else {
            line_starts.extend(part.line_starts.iter().map(|&start| start + base));
            out.push_str(&part.out);
        }
    }
    out.push('}');
    len += 1;
    Rendered {
        text: out,
        line_starts,
        len,
        needs_escape,
    }
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

/// Where the renderer printed each part of one function, relative to the function's own text.
#[derive(Default)]
struct SpanLog {
    header: Span,
    nodes: Vec<(NodeId, Span)>,
}

impl SpanLog {
    /// Records the spans in `f`, shifted by `base` (where the function's text starts).
    fn apply(self, f: &mut Function, base: usize) {
        let shift = |s: Span| Span::new(s.start + base, s.end() + base);
        f.span = shift(self.header);
        for (id, span) in self.nodes {
            match f.graph.node_weight_mut(id.0) {
                Some(Node::Op(op)) => op.span = shift(span),
                Some(Node::Input(i)) => i.span = shift(span),
                None => {}
            }
        }
    }
}

/// How many line breaks the names `op`'s statement writes as they are hold: its outputs', op
/// type, parameters', bound values' and attribute keys (literals are quoted, their breaks escaped).
fn name_line_breaks(op: &Op) -> usize {
    let breaks = |s: &str| s.bytes().filter(|&b| b == b'\n').count();
    let bound = |args: &[Arg]| -> usize {
        args.iter()
            .map(|a| match a {
                Arg::Name(n) => breaks(n),
                Arg::Value(_) => 0,
            })
            .sum()
    };
    op.outputs.iter().map(|o| breaks(&o.name)).sum::<usize>()
        + breaks(&op.op_type)
        + op.inputs
            .iter()
            .map(|p| breaks(&p.name) + bound(&p.args))
            .sum::<usize>()
        + op.attributes.iter().map(|(k, _)| breaks(k)).sum::<usize>()
}

struct Renderer {
    out: String,
    bare_scalars: bool,
    spans: SpanLog,
    keep: Keep,
    /// Bytes written and dropped before `out` (only when keeping line starts).
    flushed: usize,
    /// Where each line after the first starts, relative to this renderer's text (only when
    /// keeping line starts).
    line_starts: Vec<usize>,
    /// Whether the text flushed so far needs escaping (only for [`Keep::LineStartsNotingUnsafe`]).
    unsafe_seen: bool,
    /// When quoting: the lines to keep, and those kept.
    quote: Option<Quote>,
}

/// The state of a render that keeps only some lines ([`quote_lines`]).
struct Quote {
    /// The 0-based number of the line that starts at the beginning of the renderer's text.
    line: usize,
    /// Where the last of the statements skipped since `line` was counted ends.
    skipped_to: Option<usize>,
    wanted: BTreeSet<usize>,
    /// Where the first wanted line from `line` on starts in the whole text (`usize::MAX`: none).
    next_wanted_start: usize,
    /// Where the lines of the whole text start (spans are offsets into it).
    lines: LineIndex,
    kept: BTreeMap<usize, String>,
    /// The spans of the statements written.
    statements: Vec<Span>,
}

impl Quote {
    fn new(line: usize, wanted: &BTreeSet<usize>, lines: &LineIndex) -> Quote {
        let mut q = Quote {
            line,
            skipped_to: None,
            wanted: wanted.clone(),
            next_wanted_start: 0,
            lines: lines.clone(),
            kept: BTreeMap::new(),
            statements: Vec::new(),
        };
        q.find_next_wanted();
        q
    }

    fn find_next_wanted(&mut self) {
        self.next_wanted_start = match self.wanted.range(self.line..).next() {
            Some(&line) => self.lines.start_of(line),
            None => usize::MAX,
        };
    }
}

impl Renderer {
    fn new(bare_scalars: bool, keep: Keep) -> Renderer {
        Renderer {
            out: String::new(),
            bare_scalars,
            spans: SpanLog::default(),
            keep,
            flushed: 0,
            line_starts: Vec::new(),
            unsafe_seen: false,
            quote: None,
        }
    }

    /// `program(version)`, its attributes, `{`.
    fn header(&mut self, program: &Program) {
        let _ = writeln!(self.out, "program({})", program.version);
        if !program.attributes.is_empty() {
            self.out.push('[');
            self.attrs(program.attributes.iter().map(|(k, v)| (k.as_str(), v)));
            self.out.push_str("]\n");
        }
        self.out.push_str("{\n");
    }

    /// Where the next byte goes in this renderer's text.
    fn pos(&self) -> usize {
        self.flushed + self.out.len()
    }

    /// When only line starts are kept: records those of the text written so far and drops it.
    fn flush(&mut self) {
        if self.keep.line_starts() {
            // Every flush follows a line break, so a `\r\n` is never split.
            if self.keep == Keep::LineStartsNotingUnsafe && !self.unsafe_seen {
                self.unsafe_seen = lines_need_escape(&self.out);
            }
            let base = self.flushed + 1;
            self.line_starts
                .extend(memchr::memchr_iter(b'\n', self.out.as_bytes()).map(|i| base + i));
            self.flushed += self.out.len();
            self.out.clear();
        }
    }

    fn function(&mut self, f: &Function) {
        let start = self.pos() + 4;
        let _ = write!(self.out, "    func {}<{}>(", f.name, text_opset(&f.opset));
        if let Some(body) = f.blocks.first() {
            self.params(f, &body.inputs);
        }
        self.out.push(')');
        if !f.attributes.is_empty() {
            self.out.push_str(" [");
            self.attrs(f.attributes.iter().map(|(k, v)| (k.as_str(), v)));
            self.out.push(']');
        }
        self.out.push_str(" {");
        self.spans.header = Span::new(start, self.pos());
        self.out.push('\n');
        self.block_body(f, super::BODY, 3);
        self.out.push_str(";\n");
    }

    fn params(&mut self, f: &Function, ids: &[NodeId]) {
        for (i, &id) in ids.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let start = self.pos();
            if let Some(inp) = f.input(id) {
                self.ty(&inp.ty);
                self.out.push(' ');
                self.out.push_str(&inp.name);
            }
            self.spans.nodes.push((id, Span::new(start, self.pos())));
        }
    }

    /// Statements at `depth` × 4 spaces, then `} -> (outs)` one level less.
    fn block_body(&mut self, f: &Function, block: BlockId, depth: usize) {
        let Some(b) = f.blocks.get(block.0 as usize) else {
            return;
        };
        for &id in &b.ops {
            if self.skip_unquoted(f, id) {
                continue;
            }
            self.indent(depth);
            match f.op(id) {
                Some(op) if self.stands_in(op) => self.stand_in(id, op, f.names_hold_line_breaks),
                _ => self.statement(f, id, depth),
            }
            self.out.push('\n');
            if self.out.len() >= FLUSH_AT {
                self.flush();
            }
        }
        self.indent(depth.saturating_sub(1));
        self.out.push_str("} -> (");
        self.list(&b.outputs);
        self.out.push(')');
    }

    /// When quoting: moves the complete lines written so far out of the text, keeping the wanted
    /// ones.
    fn take_quoted_lines(&mut self) {
        let Some(q) = &mut self.quote else { return };
        if let Some(end) = q.skipped_to.take() {
            // The skipped statements' lines, through the line break after the last one.
            q.line = q.lines.line_of(end) + 1;
        }
        let mut done = 0;
        while let Some(i) = memchr::memchr(b'\n', &self.out.as_bytes()[done..]) {
            if q.wanted.contains(&q.line) {
                q.kept.insert(q.line, self.out[done..done + i].to_string());
                q.line += 1;
                q.find_next_wanted();
            } else {
                q.line += 1;
            }
            done += i + 1;
        }
        self.out.drain(..done);
    }

    /// When quoting: whether the statement `id` (which starts a line) ends before the next wanted
    /// line; it is then skipped, its lines counted from its span when the next line is written.
    fn skip_unquoted(&mut self, f: &Function, id: NodeId) -> bool {
        if self.quote.is_none() {
            return false;
        }
        if !self.out.is_empty() {
            self.take_quoted_lines();
        }
        let (Some(q), Some(op)) = (&mut self.quote, f.op(id)) else {
            return false;
        };
        // A statement's span ends after its `;`, on its last line.
        if op.span.end() >= q.next_wanted_start {
            q.statements.push(op.span);
            return false;
        }
        q.skipped_to = Some(op.span.end());
        true
    }

    fn list(&mut self, names: &[Name]) {
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(n);
        }
    }

    fn indent(&mut self, depth: usize) {
        const SPACES: &str = "                                                                ";
        let mut n = depth * 4;
        while n > 0 {
            let chunk = n.min(SPACES.len());
            self.out.push_str(&SPACES[..chunk]);
            n -= chunk;
        }
    }

    /// Whether `op`'s statement is written as a [`Renderer::stand_in`]: when keeping line starts
    /// only, for an op without nested blocks; when also noting characters shown escaped, only
    /// while none was seen and the op's names and strings hold none (then the statement's text
    /// holds none: the rest of it is ASCII syntax, types and numbers).
    fn stands_in(&self, op: &Op) -> bool {
        match self.keep {
            Keep::Text => false,
            Keep::LineStarts => op.blocks.is_empty(),
            Keep::LineStartsNotingUnsafe => {
                op.blocks.is_empty() && (self.unsafe_seen || plain_op(op))
            }
        }
    }

    /// For line numbers only ([`Keep::LineStarts`]): in place of an op's statement (one without
    /// nested blocks), as many line breaks as the statement holds, then `;`, with the statement's
    /// span over them. The span starts where the statement would, so its line and column are the
    /// statement's, and every line after starts on the line it would; the bytes are not the
    /// statement's. A statement breaks lines only inside the names it writes as they are
    /// ([`name_line_breaks`]), read only when some name of the function may hold one
    /// (`names_break`).
    fn stand_in(&mut self, id: NodeId, op: &Op, names_break: bool) {
        let start = self.pos();
        let names = if names_break { name_line_breaks(op) } else { 0 };
        for _ in 0..names {
            self.out.push('\n');
        }
        self.out.push(';');
        self.spans.nodes.push((id, Span::new(start, self.pos())));
    }

    fn statement(&mut self, f: &Function, id: NodeId, depth: usize) {
        let start = self.pos();
        let Some(op) = f.op(id) else { return };
        self.op_head(op);
        for &blk in &op.blocks {
            self.out.push(' ');
            let inputs = f
                .blocks
                .get(blk.0 as usize)
                .map_or(&[][..], |b| b.inputs.as_slice());
            if !inputs.is_empty() {
                self.out.push('(');
                self.params(f, inputs);
                self.out.push_str(") ");
            }
            self.out.push_str("{\n");
            self.block_body(f, blk, depth + 2);
        }
        self.out.push(';');
        self.spans.nodes.push((id, Span::new(start, self.pos())));
    }

    fn op_head(&mut self, op: &Op) {
        if !op.outputs.is_empty() {
            for (i, o) in op.outputs.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.ty(&o.ty);
                self.out.push(' ');
                self.out.push_str(&o.name);
            }
            self.out.push_str(" = ");
        }
        self.out.push_str(&op.op_type);
        self.out.push('(');
        for (i, p) in op.inputs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(&p.name);
            self.out.push_str(" = ");
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
        if op.attributes.is_empty() && op.name.is_none() {
            return;
        }
        // Attributes are printed sorted by key, `name` among them.
        let mut attrs: Vec<(&str, Option<&Literal>)> = op
            .attributes
            .iter()
            .map(|(k, v)| (k.as_str(), Some(v)))
            .collect();
        if op.name.is_some() {
            attrs.push(("name", None));
        }
        attrs.sort_by(|a, b| a.0.cmp(b.0));
        self.out.push('[');
        for (i, (k, v)) in attrs.into_iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(k);
            self.out.push_str(" = ");
            match (v, &op.name) {
                (Some(v), _) => self.literal(v),
                (None, Some(name)) => {
                    self.scalar_ty(DType::String);
                    self.out.push('(');
                    quote(&mut self.out, name);
                    self.out.push(')');
                }
                (None, None) => {}
            }
        }
        self.out.push(']');
    }

    fn attrs<'a>(&mut self, attrs: impl Iterator<Item = (&'a str, &'a Literal)>) {
        for (i, (k, v)) in attrs.enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(k);
            self.out.push_str(" = ");
            self.literal(v);
        }
    }

    /// The type of a scalar of `dtype`: bare (`string`) in text MIL 1.3, else `tensor<string, []>`.
    fn scalar_ty(&mut self, dtype: DType) {
        if self.bare_scalars {
            self.dtype(dtype);
        } else {
            self.out.push_str("tensor<");
            self.dtype(dtype);
            self.out.push_str(", []>");
        }
    }

    fn dtype(&mut self, dtype: DType) {
        match dtype.known_name() {
            Some(name) => self.out.push_str(name),
            None => self.out.push_str(&dtype.text_name()),
        }
    }

    /// `tensor<dtype, [dims]>` (as [`TensorType`]'s `Display`, written in place: types are most
    /// of the text).
    fn tensor_ty(&mut self, t: &TensorType) {
        self.out.push_str("tensor<");
        self.dtype(t.dtype);
        match &t.shape {
            None => self.out.push_str(", *>"),
            Some(dims) => {
                self.out.push_str(", [");
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match d {
                        Dim::Known(n) => {
                            self.out.push_str(itoa::Buffer::new().format(*n));
                        }
                        Dim::Unknown => self.out.push('?'),
                    }
                }
                self.out.push_str("]>");
            }
        }
    }

    fn ty(&mut self, ty: &ValueType) {
        match ty {
            ValueType::Tensor(t) => {
                if t.shape.as_ref().is_some_and(Vec::is_empty) {
                    self.scalar_ty(t.dtype);
                } else {
                    self.tensor_ty(t);
                }
            }
            ValueType::State(inner) => {
                self.out.push_str("state<");
                self.ty(inner);
                self.out.push('>');
            }
            ValueType::List { elem, len } => {
                self.out.push_str("list<");
                self.ty(elem);
                let _ = write!(self.out, ", {len}>");
            }
            ValueType::Tuple(items) => {
                self.out.push_str("tuple<");
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.ty(t);
                }
                self.out.push('>');
            }
            ValueType::Token => self.out.push_str("token"),
            ValueType::Dict { key, value } => {
                self.out.push_str("dict<");
                self.ty(key);
                self.out.push_str(", ");
                self.ty(value);
                self.out.push('>');
            }
        }
    }

    fn literal(&mut self, lit: &Literal) {
        self.ty(&lit.ty);
        self.out.push('(');
        self.payload(&lit.ty, &lit.payload);
        self.out.push(')');
    }

    fn payload(&mut self, ty: &ValueType, p: &Payload) {
        match p {
            Payload::Blob(b) => {
                self.out.push_str("BLOBFILE(path = ");
                self.scalar_ty(DType::String);
                self.out.push('(');
                quote(&mut self.out, &b.path);
                self.out.push_str("), offset = ");
                self.scalar_ty(DType::UInt64);
                self.out.push('(');
                self.out.push_str(itoa::Buffer::new().format(b.offset));
                self.out.push_str("))");
            }
            Payload::Tensor(data) => match ty.tensor() {
                Some(t) => self.tensor(t, data),
                None => self.tensor(&TensorType::scalar(DType::Fp32), data),
            },
            Payload::Tuple(items) => {
                let types: &[ValueType] = match ty {
                    ValueType::Tuple(t) => t,
                    _ => &[],
                };
                self.out.push('(');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.payload(types.get(i).unwrap_or(ty), item);
                }
                self.out.push(')');
            }
            Payload::List(items) => {
                let elem = match ty {
                    ValueType::List { elem, .. } => elem,
                    other => other,
                };
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.payload(elem, item);
                }
                self.out.push(']');
            }
            Payload::Dict(pairs) => {
                let (kt, vt) = match ty {
                    ValueType::Dict { key, value } => (&**key, &**value),
                    other => (other, other),
                };
                self.out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push('{');
                    self.payload(kt, k);
                    self.out.push_str(", ");
                    self.payload(vt, v);
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
        let unpacked;
        let elems = match data {
            TensorData::Bytes(b) => {
                unpacked = unpack_bytes(t.dtype, b);
                Elements::Ints(&unpacked)
            }
            TensorData::Ints(v) => Elements::Ints(v),
            TensorData::Floats(v) => Elements::Floats(v),
            TensorData::Bools(v) => Elements::Bools(v),
            TensorData::Strings(v) => Elements::Strings(v),
        };
        let len = elems.len();
        let dims = t.known_dims().unwrap_or_else(|| vec![len as u64]);
        if dims.is_empty() && len == 1 {
            elems.write(&mut self.out, 0);
            return;
        }
        let count = dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
        let nested =
            !dims.is_empty() && dims.len() <= MAX_NESTING && len > 0 && count == Some(len as u64);
        if !nested {
            self.out.push('[');
            for i in 0..len {
                if i > 0 {
                    self.out.push_str(", ");
                }
                elems.write(&mut self.out, i);
            }
            self.out.push(']');
            return;
        }
        let mut idx = 0;
        nest(&mut self.out, &dims, &elems, &mut idx);
    }
}

/// A tensor's elements, printed one at a time (raw bytes already unpacked by the dtype's width).
enum Elements<'a> {
    Ints(&'a [i64]),
    Floats(&'a [f64]),
    Bools(&'a [bool]),
    Strings(&'a [String]),
}

impl Elements<'_> {
    fn len(&self) -> usize {
        match self {
            Elements::Ints(v) => v.len(),
            Elements::Floats(v) => v.len(),
            Elements::Bools(v) => v.len(),
            Elements::Strings(v) => v.len(),
        }
    }

    /// Writes element `i` (nothing when out of range).
    fn write(&self, out: &mut String, i: usize) {
        match self {
            Elements::Ints(v) => {
                if let Some(x) = v.get(i) {
                    out.push_str(itoa::Buffer::new().format(*x));
                }
            }
            Elements::Floats(v) => {
                if let Some(&x) = v.get(i) {
                    write_hex_float(out, x);
                }
            }
            Elements::Bools(v) => {
                if let Some(x) = v.get(i) {
                    let _ = write!(out, "{x}");
                }
            }
            Elements::Strings(v) => {
                if let Some(x) = v.get(i) {
                    quote(out, x);
                }
            }
        }
    }
}

fn nest(out: &mut String, dims: &[u64], elems: &Elements<'_>, idx: &mut usize) {
    out.push('[');
    match dims {
        [] => {}
        [n] => {
            for i in 0..*n {
                if i > 0 {
                    out.push_str(", ");
                }
                elems.write(out, *idx);
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

/// Unpacks little-endian element bytes into integers (floats stored as bytes print their bit patterns).
pub(crate) fn unpack_bytes(dtype: DType, bytes: &[u8]) -> Vec<i64> {
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

/// Whether every name and string `op`'s statement writes is printable ASCII (or `\n`).
fn plain_op(op: &Op) -> bool {
    op.outputs.iter().all(|o| is_plain(&o.name))
        && is_plain(&op.op_type)
        && op.name.as_deref().is_none_or(is_plain)
        && op.inputs.iter().all(|p| {
            is_plain(&p.name)
                && p.args.iter().all(|a| match a {
                    Arg::Name(n) => is_plain(n),
                    Arg::Value(lit) => plain_payload(&lit.payload),
                })
        })
        && op
            .attributes
            .iter()
            .all(|(k, v)| is_plain(k) && plain_payload(&v.payload))
}

/// Whether every string a literal's payload holds is printable ASCII (or `\n`).
fn plain_payload(p: &Payload) -> bool {
    match p {
        Payload::Blob(b) => is_plain(&b.path),
        Payload::Tensor(TensorData::Strings(v)) => v.iter().all(|s| is_plain(s)),
        Payload::Tensor(_) => true,
        Payload::Tuple(items) | Payload::List(items) => items.iter().all(plain_payload),
        Payload::Dict(pairs) => pairs
            .iter()
            .all(|(k, v)| plain_payload(k) && plain_payload(v)),
    }
}

fn quote(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    // Names almost never need escaping: copy them whole.
    if !s.bytes().any(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\t')) {
        out.push_str(s);
        out.push('"');
        return;
    }
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
}

#[cfg(test)]
mod line_index_tests {
    use super::*;

    const NESTED: &str = "program(1.3)\n{\n    func main<ios18>(tensor<int32, [1]> x, bool c) {\n            tensor<int32, [1]> y = cond(pred = c)[name = string(\"y\")] {\n                    tensor<int32, [1]> a = relu(x = x)[name = string(\"a\")];\n                } -> (a) {\n                    tensor<int32, [1]> b = abs(x = x)[name = string(\"b\")];\n                } -> (b);\n            tensor<int32, [1]> z = relu(x = y)[name = string(\"z\")];\n        } -> (z);\n    func other<ios18>(tensor<int32, [1]> x) {\n            tensor<int32, [1]> w = relu(x = x)[name = string(\"w\")];\n        } -> (w);\n}";

    fn spans(p: &Program) -> Vec<Span> {
        let mut out = Vec::new();
        for f in &p.functions {
            out.push(f.span);
            for id in f.graph.node_indices() {
                match &f.graph[id] {
                    Node::Op(op) => out.push(op.span),
                    Node::Input(i) => out.push(i.span),
                }
            }
        }
        out
    }

    #[test]
    fn the_index_has_the_lines_and_spans_of_the_text() {
        let parsed = crate::read::miltext::parse_program(NESTED, std::path::Path::new("m.mil"))
            .expect("parses");
        let (mut rendered, mut indexed) = (parsed.clone(), parsed);
        assert_index_places_every_span_as_the_text(&mut rendered, &mut indexed);
    }

    /// Every span [`index_program`] records starts on the line and column of the one
    /// [`render_program`] records, non-empty, in the same order; the text has as many lines.
    fn assert_index_places_every_span_as_the_text(rendered: &mut Program, indexed: &mut Program) {
        let text = render_program(rendered);
        let index = index_program(indexed);
        assert_eq!(index.count(), LineIndex::of(&text).count());
        assert!(index.count() > 10);
        let (real, stand_in) = (spans(rendered), spans(indexed));
        assert_eq!(real.len(), stand_in.len());
        for (r, s) in real.iter().zip(&stand_in) {
            assert_eq!(
                index.line_col(s.start),
                crate::ir::span::line_col(&text, r.start),
                "{r:?} / {s:?}"
            );
            assert!(s.len > 0);
        }
        let order = |spans: &[Span]| {
            let mut by_start: Vec<usize> = (0..spans.len()).collect();
            by_start.sort_by_key(|&i| spans[i].start);
            by_start
        };
        assert_eq!(order(&real), order(&stand_in));
    }

    #[test]
    fn the_index_places_ops_after_names_with_line_breaks_as_the_text() {
        let text = Literal {
            ty: ValueType::Tensor(TensorType::scalar(DType::String)),
            payload: Payload::Tensor(TensorData::Strings(vec!["a\nb".into()])),
        };
        let mut program = nested();
        for f in &mut program.functions {
            f.names_hold_line_breaks = true;
            let ids: Vec<_> = f.graph.node_indices().collect();
            for id in ids {
                if let Node::Op(op) = &mut f.graph[id] {
                    // Every name a statement writes as it is, in the body and in nested blocks.
                    op.op_type = Name::from(format!("{}\ntype", op.op_type));
                    for o in &mut op.outputs {
                        o.name = Name::from(format!("{}\n\nout", o.name));
                    }
                    for p in &mut op.inputs {
                        p.name = Name::from(format!("{}\nparam", p.name));
                        for a in &mut p.args {
                            if let Arg::Name(n) = a {
                                *n = Name::from(format!("{n}\nbound"));
                            }
                        }
                    }
                    let attributes: crate::ir::Attributes = op
                        .attributes
                        .iter()
                        .map(|(k, v)| (format!("{k}\nkey"), v.clone()))
                        .chain([("k\ney".to_string(), text.clone())])
                        .collect();
                    op.attributes = attributes;
                }
            }
        }
        assert_index_places_every_span_as_the_text(&mut program.clone(), &mut program);
    }

    /// Every line of the program's text, quoted alone, in pairs far apart, and all together,
    /// is the line of the whole text.
    fn assert_quotes_match_the_text(mut program: Program) {
        let text = render_program(&mut program.clone());
        let indexed = index_program_for_quotes(&mut program);
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(indexed.index.count(), lines.len());
        let check = |wanted: BTreeSet<usize>| {
            let (quoted, statements) = quote_lines(&program, &indexed.index, &wanted);
            let expected: BTreeMap<usize, String> =
                wanted.iter().map(|&l| (l, lines[l].to_string())).collect();
            assert_eq!(quoted, expected, "lines {wanted:?}");
            // Each statement on a wanted line was written, and only those on one.
            for (id, op) in all_ops(&program) {
                let first = indexed.index.line_of(op.span.start);
                let last = indexed.index.line_of(op.span.end());
                let on_wanted = wanted.range(first..=last).next().is_some();
                assert_eq!(
                    statements.contains(&op.span),
                    on_wanted,
                    "{id:?}, {wanted:?}"
                );
            }
        };
        // Every statement ends its line (`check::quote` takes a quoted statement's span to the
        // end of its first line, where the human report clips it).
        let mut written = program.clone();
        let text = render_program(&mut written);
        for (id, op) in all_ops(&written) {
            assert_eq!(text.as_bytes().get(op.span.end()), Some(&b'\n'), "{id:?}");
        }
        for line in 0..lines.len() {
            check(BTreeSet::from([line]));
            check(BTreeSet::from([line, (line * 7 + 3) % lines.len()]));
        }
        check((0..lines.len()).collect());
    }

    fn all_ops(program: &Program) -> Vec<(NodeId, &Op)> {
        program
            .functions
            .iter()
            .flat_map(|f| {
                f.graph
                    .node_indices()
                    .filter_map(move |i| f.op(NodeId(i)).map(|op| (NodeId(i), op)))
            })
            .collect()
    }

    /// The span of the op whose first output is `name`.
    fn span_of(program: &Program, name: &str) -> Span {
        all_ops(program)
            .into_iter()
            .find(|(_, op)| op.outputs.first().is_some_and(|o| &*o.name == name))
            .map(|(_, op)| op.span)
            .expect("the op")
    }

    /// Applies `edit` to every op of function `function`.
    fn edit_ops(program: &mut Program, function: usize, mut edit: impl FnMut(&mut Op)) {
        let f = &mut program.functions[function];
        f.names_hold_line_breaks = true;
        let ids: Vec<_> = f.graph.node_indices().collect();
        for id in ids {
            if let Node::Op(op) = &mut f.graph[id] {
                edit(op);
            }
        }
    }

    #[test]
    fn quotes_index_stands_in_for_plain_statements_only() {
        let mut program = nested();
        edit_ops(&mut program, 1, |op| {
            op.attributes.insert(
                Name::from("note"),
                Literal {
                    ty: ValueType::Tensor(TensorType::scalar(DType::String)),
                    payload: Payload::Tensor(TensorData::Strings(vec!["a\u{202e}b".into()])),
                },
            );
        });
        let mut written = program.clone();
        render_program(&mut written);
        let mut indexed = program.clone();
        assert!(index_program_for_quotes(&mut indexed).needs_escape);
        // `w` holds a string shown escaped: written whole; `z` and `a` are plain: stood in.
        assert_eq!(span_of(&indexed, "w").len, span_of(&written, "w").len);
        assert_eq!(span_of(&indexed, "z").len, 1);
        assert_eq!(span_of(&indexed, "a").len, 1);
        assert!(span_of(&written, "z").len > 1);
        assert_quotes_match_the_text(program);
    }

    fn nested() -> Program {
        crate::read::miltext::parse_program(NESTED, std::path::Path::new("m.mil")).expect("parses")
    }

    #[test]
    fn quoted_lines_are_the_lines_of_the_text() {
        assert_quotes_match_the_text(nested());
    }

    #[test]
    fn quoted_lines_follow_a_name_with_a_line_break_and_note_the_control() {
        let mut program = nested();
        edit_ops(&mut program, 0, |op| {
            if op.outputs.first().is_some_and(|o| &*o.name == "a") {
                op.outputs[0].name = Name::from("a\nsecond line\u{202e}");
            }
        });
        assert!(index_program_for_quotes(&mut program.clone()).needs_escape);
        assert!(!index_program_for_quotes(&mut nested()).needs_escape);
        assert_quotes_match_the_text(program);
    }
}
