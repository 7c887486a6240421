//! Recursive-descent parser from tokens to [`FunctionSyntax`], with a nesting cap.

use crate::ir::Attributes;

use super::lexer::{Tok, Token};
use crate::ir::build::{BlockSyntax, FunctionSyntax, InputSyntax, OpSyntax};
use crate::ir::{
    Arg, BlobRef, DType, Dim, Literal, Output, Param, Payload, Span, TensorData, TensorType,
    ValueType,
};
use crate::limits::{MAX_BLOCK_NESTING, MAX_DIM, MAX_IMMEDIATE_ELEMENTS, MAX_NESTING};
use crate::mil_number::{parse_float, parse_int};

/// A syntax error: where, what was expected, and a label for the span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub span: Span,
    pub message: String,
    pub label: String,
}

type PResult<T> = Result<T, SyntaxError>;

/// A parsed program header and its functions.
#[derive(Debug)]
pub(crate) struct ProgramSyntax {
    pub version: String,
    pub attributes: Vec<(String, Literal)>,
    pub functions: Vec<FunctionSyntax>,
}

/// An untyped payload, typed later by the literal's type.
#[derive(Debug, Clone)]
enum Raw {
    Number(Span),
    Word(Span),
    Str(String),
    List(Vec<Raw>),
    Tuple(Vec<Raw>),
    Dict(Vec<(Raw, Raw)>),
    Blob(BlobRef),
    /// A nested typed literal, already typed.
    Typed(Payload),
}

const TYPE_WORDS: &[&str] = &["tensor", "state", "list", "tuple", "dict"];

/// The parser over one file's tokens.
pub(crate) struct Parser<'a> {
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    block_depth: usize,
    /// Payload values read so far in the literal being parsed (nested literals count toward it).
    literal_values: u64,
}

impl<'a> Parser<'a> {
    /// A parser over `toks` lexed from `text`.
    pub(crate) fn new(text: &'a str, toks: Vec<Token>) -> Parser<'a> {
        Parser {
            text,
            toks,
            pos: 0,
            depth: 0,
            block_depth: 0,
            literal_values: 0,
        }
    }

    fn peek(&self) -> Token {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> Token {
        self.toks
            .get(self.pos + n)
            .or_else(|| self.toks.last())
            .copied()
            .unwrap_or(Token {
                kind: Tok::Eof,
                span: Span::new(self.text.len(), self.text.len()),
            })
    }

    fn slice(&self, span: Span) -> &'a str {
        self.text.get(span.start..span.end()).unwrap_or("")
    }

    fn bump(&mut self) -> Token {
        let t = self.peek();
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn found(&self, t: Token) -> String {
        match t.kind {
            Tok::Eof => "end of file".into(),
            _ => format!("`{}`", self.slice(t.span)),
        }
    }

    fn error<T>(&self, t: Token, expected: &str) -> PResult<T> {
        Err(SyntaxError {
            span: t.span,
            message: format!("expected {expected}, found {}", self.found(t)),
            label: format!("expected {expected}"),
        })
    }

    fn expect(&mut self, kind: Tok) -> PResult<Token> {
        let t = self.peek();
        if t.kind == kind {
            Ok(self.bump())
        } else {
            self.error(t, kind.describe())
        }
    }

    fn eat(&mut self, kind: Tok) -> bool {
        if self.peek().kind == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> PResult<(String, Span)> {
        let t = self.expect(Tok::Ident)?;
        Ok((self.slice(t.span).to_string(), t.span))
    }

    fn keyword(&mut self, word: &str) -> PResult<Token> {
        let t = self.peek();
        if t.kind == Tok::Ident && self.slice(t.span) == word {
            Ok(self.bump())
        } else {
            self.error(t, &format!("`{word}`"))
        }
    }

    fn enter(&mut self, at: Token) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(SyntaxError {
                span: at.span,
                message: format!("nesting deeper than {MAX_NESTING} levels"),
                label: "too deeply nested".into(),
            });
        }
        Ok(())
    }

    /// Counts one more value of the literal being read, refusing more than
    /// [`MAX_IMMEDIATE_ELEMENTS`] (before they are allocated).
    fn count_value(&mut self) -> PResult<()> {
        self.literal_values += 1;
        if self.literal_values > MAX_IMMEDIATE_ELEMENTS {
            return self.too_many_values();
        }
        Ok(())
    }

    fn too_many_values<T>(&self) -> PResult<T> {
        Err(SyntaxError {
            span: self.peek().span,
            message: format!(
                "immediate value with more than {MAX_IMMEDIATE_ELEMENTS} elements; large constants belong in a weight file"
            ),
            label: "too many elements".into(),
        })
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// `program(V) [attrs]? { function* }`
    pub(crate) fn program(&mut self) -> PResult<ProgramSyntax> {
        self.keyword("program")?;
        self.expect(Tok::LParen)?;
        let v = self.peek();
        if !matches!(v.kind, Tok::Number | Tok::Ident) {
            return self.error(v, "a program version such as 1.0");
        }
        self.bump();
        let version = self.slice(v.span).to_string();
        self.expect(Tok::RParen)?;
        let attributes = if self.peek().kind == Tok::LBracket {
            self.attrs()?
        } else {
            Vec::new()
        };
        self.expect(Tok::LBrace)?;
        let mut functions = Vec::new();
        while self.peek().kind != Tok::RBrace {
            functions.push(self.function()?);
        }
        self.expect(Tok::RBrace)?;
        let t = self.peek();
        if t.kind != Tok::Eof {
            return self.error(t, "end of file after the program's closing `}`");
        }
        Ok(ProgramSyntax {
            version,
            attributes,
            functions,
        })
    }

    /// `[name = literal, …]`
    fn attrs(&mut self) -> PResult<Vec<(String, Literal)>> {
        self.expect(Tok::LBracket)?;
        let mut out = Vec::new();
        if self.eat(Tok::RBracket) {
            return Ok(out);
        }
        loop {
            let (name, _) = self.ident()?;
            self.expect(Tok::Eq)?;
            let lit = self.literal()?;
            out.push((name, lit));
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RBracket)?;
            return Ok(out);
        }
    }

    fn function(&mut self) -> PResult<FunctionSyntax> {
        let start = self.keyword("func")?.span.start;
        let (name, _) = self.ident()?;
        self.expect(Tok::Lt)?;
        let (opset, _) = self.ident()?;
        self.expect(Tok::Gt)?;
        let inputs = self.params()?;
        let attributes = if self.peek().kind == Tok::LBracket {
            self.attrs()?
        } else {
            Vec::new()
        };
        let header_end = self.peek().span.end();
        let mut body = self.body()?;
        body.inputs = inputs;
        self.eat(Tok::Semi);
        Ok(FunctionSyntax {
            name,
            opset,
            attributes,
            body,
            span: Span::new(start, header_end),
        })
    }

    /// `(type name, …)`
    fn params(&mut self) -> PResult<Vec<InputSyntax>> {
        self.expect(Tok::LParen)?;
        let mut out = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(out);
        }
        loop {
            let start = self.peek().span.start;
            let ty = self.ty()?;
            let (name, end) = self.ident()?;
            out.push(InputSyntax {
                name: name.into(),
                ty,
                span: Span::new(start, end.end()),
            });
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RParen)?;
            return Ok(out);
        }
    }

    /// `{ stmt* } -> (names)`
    fn body(&mut self) -> PResult<BlockSyntax> {
        let open = self.expect(Tok::LBrace)?;
        self.enter(open)?;
        // Graph building recurses once per block level, so blocks get a tighter cap than brackets.
        self.block_depth += 1;
        if self.block_depth > MAX_BLOCK_NESTING {
            return Err(SyntaxError {
                span: open.span,
                message: format!("blocks nested deeper than {MAX_BLOCK_NESTING} levels"),
                label: "too deeply nested".into(),
            });
        }
        let mut ops = Vec::new();
        while self.peek().kind != Tok::RBrace {
            if self.peek().kind == Tok::Eof {
                return self.error(self.peek(), "`}` closing the block");
            }
            ops.push(self.statement()?);
        }
        self.expect(Tok::RBrace)?;
        self.expect(Tok::Arrow)?;
        let lp = self.expect(Tok::LParen)?;
        let mut outputs = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                outputs.push(self.ident()?.0.into());
                if self.eat(Tok::Comma) {
                    continue;
                }
                break;
            }
            self.expect(Tok::RParen)?;
        }
        let outputs_span = Span::new(
            lp.span.start,
            self.toks
                .get(self.pos.saturating_sub(1))
                .map_or(lp.span.end(), |t| t.span.end()),
        );
        self.leave();
        Ok(BlockSyntax {
            inputs: Vec::new(),
            ops,
            outputs,
            outputs_span,
        })
    }

    fn is_type_start(&self) -> bool {
        let t = self.peek();
        if t.kind != Tok::Ident {
            return false;
        }
        let w = self.slice(t.span);
        TYPE_WORDS.contains(&w) || DType::from_text(w).is_some()
    }

    /// `(T a, T b) = op(…)`, `T a, T b = op(…)`, or `op(…)` with no results.
    fn statement(&mut self) -> PResult<OpSyntax> {
        let start = self.peek().span.start;
        let mut outputs = Vec::new();
        let call_follows = self.peek().kind == Tok::Ident
            && self.peek_at(1).kind == Tok::LParen
            && !self.is_type_start();
        if !call_follows {
            let paren = self.eat(Tok::LParen);
            loop {
                let ty = self.ty()?;
                let (name, _) = self.ident()?;
                outputs.push(Output {
                    name: name.into(),
                    ty,
                });
                if self.eat(Tok::Comma) {
                    continue;
                }
                break;
            }
            if paren {
                self.expect(Tok::RParen)?;
            }
            self.expect(Tok::Eq)?;
        }
        let (op_type, _) = self.ident()?;
        let inputs = self.args()?;
        let mut attributes = Attributes::new();
        let mut name = None;
        if self.peek().kind == Tok::LBracket {
            for (k, v) in self.attrs()? {
                if k == "name" {
                    if let Some(s) = v.as_str() {
                        name = Some(s.into());
                        continue;
                    }
                }
                attributes.insert(k.into(), v);
            }
        }
        let mut blocks = Vec::new();
        while matches!(self.peek().kind, Tok::LBrace | Tok::LParen) {
            let inputs = if self.peek().kind == Tok::LParen {
                self.params()?
            } else {
                Vec::new()
            };
            let mut b = self.body()?;
            b.inputs = inputs;
            blocks.push(b);
        }
        let end = self.expect(Tok::Semi)?.span.end();
        Ok(OpSyntax {
            op_type: op_type.into(),
            name,
            inputs,
            outputs,
            attributes,
            blocks,
            span: Span::new(start, end),
        })
    }

    /// `(key = value, …)`
    fn args(&mut self) -> PResult<Vec<Param>> {
        self.expect(Tok::LParen)?;
        let mut out = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(out);
        }
        loop {
            let (name, _) = self.ident()?;
            self.expect(Tok::Eq)?;
            let args = if self.peek().kind == Tok::LParen {
                let open = self.bump();
                self.enter(open)?;
                let mut v = Vec::new();
                if !self.eat(Tok::RParen) {
                    loop {
                        v.push(self.arg_value()?);
                        if self.eat(Tok::Comma) {
                            continue;
                        }
                        break;
                    }
                    self.expect(Tok::RParen)?;
                }
                self.leave();
                v
            } else {
                vec![self.arg_value()?]
            };
            out.push(Param {
                name: name.into(),
                args,
            });
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RParen)?;
            return Ok(out);
        }
    }

    fn arg_value(&mut self) -> PResult<Arg> {
        let t = self.peek();
        if t.kind == Tok::Ident
            && self.is_type_start()
            && matches!(self.peek_at(1).kind, Tok::LParen | Tok::Lt)
        {
            return Ok(Arg::Value(Box::new(self.literal()?)));
        }
        if t.kind == Tok::Ident {
            return Ok(Arg::Name(self.ident()?.0.into()));
        }
        self.error(t, "a value name or a literal")
    }

    /// A type: `tensor<T, [dims]>`, a bare dtype (scalar), `state<…>`, `list<…, dim>`, `tuple<…>`, `dict<K, V>`.
    fn ty(&mut self) -> PResult<ValueType> {
        let t = self.peek();
        if t.kind != Tok::Ident {
            return self.error(t, "a type");
        }
        let word = self.slice(t.span);
        if let Some(dt) = DType::from_text(word) {
            self.bump();
            return Ok(ValueType::Tensor(TensorType::scalar(dt)));
        }
        self.enter(t)?;
        let ty = match word {
            "tensor" => {
                self.bump();
                self.expect(Tok::Lt)?;
                let (dt_name, dt_span) = self.ident()?;
                let dtype = DType::from_text(&dt_name).ok_or_else(|| SyntaxError {
                    span: dt_span,
                    message: format!("unknown element type `{dt_name}`"),
                    label: "not a MIL element type".into(),
                })?;
                self.expect(Tok::Comma)?;
                let shape = self.shape()?;
                self.expect(Tok::Gt)?;
                ValueType::Tensor(TensorType { dtype, shape })
            }
            "state" => {
                self.bump();
                self.expect(Tok::Lt)?;
                let inner = self.ty()?;
                self.expect(Tok::Gt)?;
                ValueType::State(Box::new(inner))
            }
            "list" => {
                self.bump();
                self.expect(Tok::Lt)?;
                let elem = self.ty()?;
                self.expect(Tok::Comma)?;
                let len = self.dim()?;
                self.expect(Tok::Gt)?;
                ValueType::List {
                    elem: Box::new(elem),
                    len,
                }
            }
            "tuple" => {
                self.bump();
                self.expect(Tok::Lt)?;
                let mut v = Vec::new();
                if self.peek().kind != Tok::Gt {
                    loop {
                        v.push(self.ty()?);
                        if self.eat(Tok::Comma) {
                            continue;
                        }
                        break;
                    }
                }
                self.expect(Tok::Gt)?;
                ValueType::Tuple(v)
            }
            "dict" => {
                self.bump();
                self.expect(Tok::Lt)?;
                let key = self.ty()?;
                self.expect(Tok::Comma)?;
                let value = self.ty()?;
                self.expect(Tok::Gt)?;
                ValueType::Dict {
                    key: Box::new(key),
                    value: Box::new(value),
                }
            }
            _ => return self.error(t, "a type"),
        };
        self.leave();
        Ok(ty)
    }

    /// `[d, d, …]` where d is an integer or `?`; `*` stands for unknown rank.
    fn shape(&mut self) -> PResult<Option<Vec<Dim>>> {
        if self.peek().kind == Tok::Ident && self.slice(self.peek().span) == "*" {
            self.bump();
            return Ok(None);
        }
        self.expect(Tok::LBracket)?;
        let mut dims = Vec::new();
        if self.eat(Tok::RBracket) {
            return Ok(Some(dims));
        }
        loop {
            dims.push(self.dim()?);
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RBracket)?;
            return Ok(Some(dims));
        }
    }

    fn dim(&mut self) -> PResult<Dim> {
        let t = self.peek();
        match t.kind {
            Tok::Question => {
                self.bump();
                Ok(Dim::Unknown)
            }
            Tok::Number => {
                self.bump();
                let n = parse_int(self.slice(t.span)).filter(|&n| n >= 0);
                match n {
                    Some(n) if n as u128 <= u128::from(MAX_DIM) => Ok(Dim::Known(n as u64)),
                    Some(_) => Err(SyntaxError {
                        span: t.span,
                        message: format!("dimension {} is larger than 2^40", self.slice(t.span)),
                        label: "absurd dimension".into(),
                    }),
                    None => self.error(t, "a non-negative integer dimension"),
                }
            }
            _ => self.error(t, "a dimension (integer or `?`)"),
        }
    }

    /// `type(payload)`
    fn literal(&mut self) -> PResult<Literal> {
        let ty_tok = self.peek();
        let ty = self.ty()?;
        let open = self.expect(Tok::LParen)?;
        self.enter(open)?;
        let outer_values = std::mem::take(&mut self.literal_values);
        let raw = if self.peek().kind == Tok::RParen && !matches!(ty, ValueType::Tensor(_)) {
            Raw::Tuple(Vec::new())
        } else {
            self.raw()?
        };
        self.literal_values = self.literal_values.saturating_add(outer_values);
        if self.literal_values > MAX_IMMEDIATE_ELEMENTS {
            return self.too_many_values();
        }
        let close = self.expect(Tok::RParen)?;
        self.leave();
        let payload = self.typed(&ty, raw, Span::new(ty_tok.span.start, close.span.end()))?;
        Ok(Literal { ty, payload })
    }

    fn raw(&mut self) -> PResult<Raw> {
        let t = self.peek();
        match t.kind {
            Tok::Number => {
                self.bump();
                Ok(Raw::Number(t.span))
            }
            Tok::Str => {
                self.bump();
                Ok(Raw::Str(unescape(self.slice(t.span))))
            }
            Tok::Ident if self.slice(t.span) == "BLOBFILE" => self.blobfile(),
            Tok::Ident
                if self.is_type_start()
                    && matches!(self.peek_at(1).kind, Tok::Lt | Tok::LParen) =>
            {
                // A nested typed literal used as a payload element: keep only its payload.
                Ok(Raw::Typed(self.literal()?.payload))
            }
            Tok::Ident => {
                self.bump();
                Ok(Raw::Word(t.span))
            }
            Tok::LBracket | Tok::LParen => {
                let close = if t.kind == Tok::LBracket {
                    Tok::RBracket
                } else {
                    Tok::RParen
                };
                self.bump();
                self.enter(t)?;
                let mut v = Vec::new();
                if !self.eat(close) {
                    loop {
                        self.count_value()?;
                        v.push(self.raw()?);
                        if self.eat(Tok::Comma) {
                            continue;
                        }
                        break;
                    }
                    self.expect(close)?;
                }
                self.leave();
                Ok(if t.kind == Tok::LBracket {
                    Raw::List(v)
                } else {
                    Raw::Tuple(v)
                })
            }
            Tok::LBrace => {
                self.bump();
                self.enter(t)?;
                let mut pairs = Vec::new();
                if !self.eat(Tok::RBrace) {
                    loop {
                        self.count_value()?;
                        self.expect(Tok::LBrace)?;
                        let k = self.raw()?;
                        self.expect(Tok::Comma)?;
                        let v = self.raw()?;
                        self.expect(Tok::RBrace)?;
                        pairs.push((k, v));
                        if self.eat(Tok::Comma) {
                            continue;
                        }
                        break;
                    }
                    self.expect(Tok::RBrace)?;
                }
                self.leave();
                Ok(Raw::Dict(pairs))
            }
            _ => self.error(t, "a literal value"),
        }
    }

    /// `BLOBFILE(path = literal, offset = literal)`, in either argument order.
    fn blobfile(&mut self) -> PResult<Raw> {
        let kw = self.bump();
        self.expect(Tok::LParen)?;
        let mut path = None;
        let mut offset = None;
        loop {
            let (key, key_span) = self.ident()?;
            self.expect(Tok::Eq)?;
            let lit_tok = self.peek();
            let lit = self.literal()?;
            match key.as_str() {
                "path" => {
                    path = Some(
                        lit.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| SyntaxError {
                                span: lit_tok.span,
                                message: "BLOBFILE path must be a string".into(),
                                label: "not a string".into(),
                            })?,
                    )
                }
                "offset" => {
                    let v = match lit.tensor_data() {
                        Some(TensorData::Ints(v)) if v.len() == 1 => {
                            v.first().copied().and_then(|x| u64::try_from(x).ok())
                        }
                        _ => None,
                    };
                    offset = Some(v.ok_or_else(|| SyntaxError {
                        span: lit_tok.span,
                        message: "BLOBFILE offset must be one non-negative integer".into(),
                        label: "bad offset".into(),
                    })?);
                }
                _ => {
                    return Err(SyntaxError {
                        span: key_span,
                        message: format!(
                            "unknown BLOBFILE argument `{key}` (expected path or offset)"
                        ),
                        label: "unknown argument".into(),
                    })
                }
            }
            if self.eat(Tok::Comma) {
                continue;
            }
            break;
        }
        self.expect(Tok::RParen)?;
        match (path, offset) {
            (Some(path), Some(offset)) => Ok(Raw::Blob(BlobRef {
                path: path.into(),
                offset,
            })),
            _ => Err(SyntaxError {
                span: kw.span,
                message: "BLOBFILE needs both path and offset".into(),
                label: "incomplete BLOBFILE".into(),
            }),
        }
    }

    /// Gives an untyped payload the literal's type.
    fn typed(&self, ty: &ValueType, raw: Raw, span: Span) -> PResult<Payload> {
        let raw = match raw {
            Raw::Blob(b) => return Ok(Payload::Blob(b)),
            Raw::Typed(p) => return Ok(p),
            other => other,
        };
        match ty {
            ValueType::State(_) => {
                self.shape_error(span, "no literal (states have no constant values)", &raw)
            }
            ValueType::Token => self.shape_error(span, "no literal (tokens hold no data)", &raw),
            ValueType::Tensor(t) => {
                let mut flat = Vec::new();
                flatten(raw, &mut flat);
                Ok(Payload::Tensor(self.tensor_data(t.dtype, &flat, span)?))
            }
            ValueType::List { elem, .. } => match raw {
                Raw::List(items) | Raw::Tuple(items) => Ok(Payload::List(
                    items
                        .into_iter()
                        .map(|r| self.typed(elem, r, span))
                        .collect::<PResult<_>>()?,
                )),
                other => self.shape_error(span, "a list", &other),
            },
            ValueType::Tuple(types) => match raw {
                Raw::Tuple(items) | Raw::List(items) if items.len() == types.len() => {
                    Ok(Payload::Tuple(
                        items
                            .into_iter()
                            .zip(types)
                            .map(|(r, t)| self.typed(t, r, span))
                            .collect::<PResult<_>>()?,
                    ))
                }
                other => {
                    self.shape_error(span, &format!("a tuple of {} values", types.len()), &other)
                }
            },
            ValueType::Dict { key, value } => match raw {
                Raw::Dict(pairs) => Ok(Payload::Dict(
                    pairs
                        .into_iter()
                        .map(|(k, v)| Ok((self.typed(key, k, span)?, self.typed(value, v, span)?)))
                        .collect::<PResult<_>>()?,
                )),
                other => self.shape_error(span, "a dict `{{k, v}, …}`", &other),
            },
        }
    }

    fn shape_error<T>(&self, span: Span, expected: &str, _found: &Raw) -> PResult<T> {
        Err(SyntaxError {
            span,
            message: format!("literal does not match its type: expected {expected}"),
            label: "payload does not match the type".into(),
        })
    }

    fn tensor_data(&self, dtype: DType, flat: &[Raw], span: Span) -> PResult<TensorData> {
        let bad = |what: &str| SyntaxError {
            span,
            message: format!("bad {dtype} tensor literal: {what}"),
            label: format!("not a valid {dtype} value"),
        };
        let word = |r: &Raw| match r {
            Raw::Number(s) | Raw::Word(s) => Some(self.slice(*s)),
            _ => None,
        };
        if dtype == DType::String {
            return flat
                .iter()
                .map(|r| match r {
                    Raw::Str(s) => Ok(s.clone()),
                    _ => Err(bad("expected strings")),
                })
                .collect::<PResult<_>>()
                .map(TensorData::Strings);
        }
        if dtype == DType::Bool {
            return flat
                .iter()
                .map(|r| match word(r) {
                    Some("true") => Ok(true),
                    Some("false") => Ok(false),
                    Some(w) => parse_int(w).map(|v| v != 0).ok_or_else(|| bad(w)),
                    None => Err(bad("expected true or false")),
                })
                .collect::<PResult<_>>()
                .map(TensorData::Bools);
        }
        if dtype.is_float() {
            return flat
                .iter()
                .map(|r| {
                    word(r)
                        .and_then(parse_float)
                        .ok_or_else(|| bad("expected a number"))
                })
                .collect::<PResult<_>>()
                .map(TensorData::Floats);
        }
        flat.iter()
            .map(|r| {
                let w = word(r).ok_or_else(|| bad("expected an integer"))?;
                let v = parse_int(w).ok_or_else(|| bad(&format!("`{w}` is not an integer")))?;
                i64::try_from(v)
                    .or_else(|_| u64::try_from(v).map(|u| u as i64))
                    .map_err(|_| bad(&format!("`{w}` is out of range")))
            })
            .collect::<PResult<_>>()
            .map(TensorData::Ints)
    }
}

fn flatten(raw: Raw, out: &mut Vec<Raw>) {
    match raw {
        Raw::List(items) | Raw::Tuple(items) => items.into_iter().for_each(|r| flatten(r, out)),
        other => out.push(other),
    }
}

fn unescape(quoted: &str) -> String {
    let inner = quoted
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(quoted);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}
