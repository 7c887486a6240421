//! The text write-back as edits of the author's own `model.mil`: only the spans a plan changes are
//! replaced (the dims of padded types, renamed outputs, rewired arguments), new statements are
//! inserted as lines with the anchor's indentation, removed statements lose their line. Every other
//! byte stays as it was. The result must read back as the program the IR edit produced; the caller
//! checks that.

use std::collections::HashMap;

use crate::ir::{Node, NodeId, Program, Span};

use crate::analysis::fix_plan::{Anchor, OpRef, PadPlan};

/// One replacement of `source[start..end]`; `seq` keeps inserts at one place in plan order.
struct Edit {
    start: usize,
    end: usize,
    seq: usize,
    text: String,
}

/// Applies `plans` to `source` (the text `original` was read from) as span edits. `edited` is the
/// IR-edited program re-read from its rendering `rendered`: inserted statements are copied from it.
pub(crate) fn edit_source(
    source: &str,
    original: &Program,
    plans: &[&PadPlan],
    edited: &Program,
    rendered: &str,
) -> Result<String, String> {
    let mut edits: Vec<Edit> = Vec::new();
    let mut seq = 0usize;
    let mut push = |edits: &mut Vec<Edit>, start: usize, end: usize, text: String| {
        seq += 1;
        edits.push(Edit {
            start,
            end,
            seq,
            text,
        });
    };
    for plan in plans {
        for fe in &plan.functions {
            let f = original
                .functions
                .iter()
                .find(|f| f.name == fe.function)
                .ok_or_else(|| format!("function `{}` is not in the source", fe.function))?;
            let g = edited
                .functions
                .iter()
                .find(|g| g.name == fe.function)
                .ok_or_else(|| {
                    format!("function `{}` is not in the edited program", fe.function)
                })?;
            let by_order: HashMap<u32, NodeId> = f.ops().map(|(id, o)| (o.order, id)).collect();
            let stmt = |r: &OpRef| -> Result<Span, String> {
                let op = by_order
                    .get(&r.order)
                    .and_then(|&id| f.op(id))
                    .filter(|o| o.op_type == r.op_type && o.display_name() == r.label)
                    .ok_or_else(|| {
                        format!("op #{} (`{}`) is not in the source", r.order, r.label)
                    })?;
                Ok(op.span)
            };
            if plan.pads() {
                let (_, input) = f
                    .inputs()
                    .find(|(_, i)| i.name == plan.state)
                    .ok_or_else(|| format!("no input `{}`", plan.state))?;
                let (s, e, text) = dims_edit(source, input.span, plan.axis, &plan.new_shape)?;
                push(&mut edits, s, e, text);
                let renamed: HashMap<&str, &str> = fe
                    .renames
                    .iter()
                    .map(|r| (r.to.as_str(), r.from.as_str()))
                    .collect();
                for value in &fe.retype {
                    let name = renamed.get(value.as_str()).copied().unwrap_or(value);
                    let span = f
                        .def(name)
                        .and_then(|d| match f.node(d.node) {
                            Some(Node::Op(op)) => Some(op.span),
                            _ => None,
                        })
                        .ok_or_else(|| format!("`{name}` is not an op output"))?;
                    let results = results_part(source, span)?;
                    let (s, e, text) = dims_edit(source, results, plan.axis, &plan.new_shape)?;
                    push(&mut edits, s, e, text);
                }
            }
            for rn in &fe.renames {
                let results = results_part(source, stmt(&rn.op)?)?;
                let (s, e) = find_word(source, results, &rn.from)
                    .ok_or_else(|| format!("output `{}` not found in its statement", rn.from))?;
                push(&mut edits, s, e, rn.to.clone());
            }
            for rb in &fe.rebinds {
                let span = stmt(&rb.op)?;
                let (s, e) =
                    argument(source, span, &rb.param, rb.position as usize).ok_or_else(|| {
                        format!("`{}.{}` not found in the source", rb.op.label, rb.param)
                    })?;
                push(&mut edits, s, e, rb.to.clone());
            }
            // A statement whose literal changes is replaced by its edited rendering.
            let mut replaced = std::collections::HashSet::new();
            for le in fe.literals.iter().filter(|le| replaced.insert(le.op.order)) {
                let span = stmt(&le.op)?;
                let out = f
                    .ops()
                    .find(|(_, o)| o.order == le.op.order)
                    .and_then(|(_, o)| o.outputs.first())
                    .map(|o| o.name.clone())
                    .ok_or_else(|| format!("`{}` has no output", le.op.label))?;
                let new = g
                    .ops()
                    .find(|(_, o)| o.outputs.first().is_some_and(|x| x.name == out))
                    .map(|(_, o)| o.span)
                    .ok_or_else(|| format!("`{}` is not in the edited program", le.op.label))?;
                let text = rendered
                    .get(new.start..new.end())
                    .ok_or("internal: span out of range")?;
                push(&mut edits, span.start, span.end(), text.to_string());
            }
            for r in &fe.removes {
                let (s, e) = whole_lines(source, stmt(r)?);
                push(&mut edits, s, e, String::new());
            }
            for ins in &fe.inserts {
                let new = g
                    .ops()
                    .find(|(_, o)| o.outputs.first().is_some_and(|x| x.name == ins.op.name))
                    .map(|(_, o)| o.span)
                    .ok_or_else(|| {
                        format!("inserted `{}` not in the edited program", ins.op.name)
                    })?;
                let line = rendered
                    .get(new.start..new.end())
                    .ok_or("internal: span out of range")?;
                let (anchor, before) = match &ins.anchor {
                    Anchor::Before(r) => (stmt(r)?, true),
                    Anchor::After(r) => (stmt(r)?, false),
                };
                let (line_start, line_end) = whole_lines(source, anchor);
                let indent: String = source[line_start..anchor.start]
                    .chars()
                    .take_while(|c| c.is_whitespace())
                    .collect();
                let at = if before { line_start } else { line_end };
                let newline = if source[..at].ends_with('\n') || at == 0 {
                    ""
                } else {
                    "\n"
                };
                push(&mut edits, at, at, format!("{newline}{indent}{line}\n"));
            }
        }
    }
    // At one offset, insertions (empty ranges) go before a removal starting there: an op rewritten
    // in place has its replacement inserted before its own removed line.
    edits.sort_by_key(|e| (e.start, e.end, e.seq));
    let mut out = String::with_capacity(source.len() + 256);
    let mut pos = 0;
    for e in &edits {
        if e.start < pos {
            return Err("internal: overlapping text edits".into());
        }
        out.push_str(&source[pos..e.start]);
        out.push_str(&e.text);
        pos = e.end;
    }
    out.push_str(&source[pos..]);
    Ok(out)
}

/// The part of a statement before its `=` (the typed results).
fn results_part(source: &str, stmt: Span) -> Result<Span, String> {
    let text = source
        .get(stmt.start..stmt.end())
        .ok_or("span out of range")?;
    let eq = top_level_eq(text).ok_or("statement has no results")?;
    Ok(Span::new(stmt.start, stmt.start + eq))
}

/// The offset of the first `=` outside brackets.
fn top_level_eq(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth -= 1,
            '=' if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// The first `[dims]` in `span` rewritten with `new` dims (the author's separator kept).
fn dims_edit(
    source: &str,
    span: Span,
    axis: usize,
    new: &[u64],
) -> Result<(usize, usize, String), String> {
    let text = source
        .get(span.start..span.end())
        .ok_or("span out of range")?;
    let open = text.find('[').ok_or("no shape in the type")?;
    let close = open + text[open..].find(']').ok_or("unclosed shape")?;
    let inner = &text[open + 1..close];
    let parts: Vec<&str> = inner.split(',').collect();
    if parts.len() != new.len() {
        return Err(format!("shape `[{inner}]` is not of rank {}", new.len()));
    }
    // Only the pad axis changes: keep the spacing of every entry.
    let part = parts[axis];
    let lead = part.len() - part.trim_start().len();
    let trail = part.len() - part.trim_end().len();
    let offset: usize = parts[..axis].iter().map(|p| p.len() + 1).sum();
    let s = span.start + open + 1 + offset + lead;
    let e = span.start + open + 1 + offset + part.len() - trail;
    Ok((s, e, new[axis].to_string()))
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '@'
}

/// The byte range of `word` as a whole identifier inside `span`.
fn find_word(source: &str, span: Span, word: &str) -> Option<(usize, usize)> {
    let text = source.get(span.start..span.end())?;
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let s = from + i;
        let e = s + word.len();
        let before = text[..s].chars().next_back();
        let after = text[e..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Some((span.start + s, span.start + e));
        }
        from = e;
    }
    None
}

/// The byte range of binding `position` of parameter `param` in the statement's argument list.
fn argument(source: &str, stmt: Span, param: &str, position: usize) -> Option<(usize, usize)> {
    let text = source.get(stmt.start..stmt.end())?;
    let eq = top_level_eq(text).map_or(0, |e| e + 1);
    let open = eq + text[eq..].find('(')?;
    let args = Span::new(stmt.start + open + 1, stmt.end());
    let mut at = args.start;
    loop {
        let (_, e) = find_word(source, Span::new(at, args.end()), param)?;
        let rest = &source[e..args.end()];
        let ws = rest.len() - rest.trim_start().len();
        if !rest[ws..].starts_with('=') {
            at = e;
            continue;
        }
        let vstart = e + ws + 1;
        let rest = &source[vstart..args.end()];
        let vstart = vstart + (rest.len() - rest.trim_start().len());
        return value_item(source, vstart, args.end(), position);
    }
}

/// The range of item `position` of the value starting at `start`: the value itself, or an element
/// of a parenthesised list.
fn value_item(source: &str, start: usize, limit: usize, position: usize) -> Option<(usize, usize)> {
    let text = &source[start..limit];
    let (base, list) = match text.strip_prefix('(') {
        Some(inner) => (start + 1, inner),
        None => (start, text),
    };
    let mut depth = 0i32;
    let mut item = 0;
    let mut item_start = 0;
    for (i, c) in list.char_indices() {
        match c {
            '<' | '[' | '(' | '{' => depth += 1,
            '>' | ']' | '}' => depth -= 1,
            ')' if depth > 0 => depth -= 1,
            ',' | ')' if depth == 0 => {
                if item == position {
                    let raw = &list[item_start..i];
                    let lead = raw.len() - raw.trim_start().len();
                    let trail = raw.len() - raw.trim_end().len();
                    return Some((base + item_start + lead, base + i - trail));
                }
                if c == ')' || !text.starts_with('(') {
                    return None;
                }
                item += 1;
                item_start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// The statement's whole line(s), from the start of its first line to just after its last newline.
fn whole_lines(source: &str, stmt: Span) -> (usize, usize) {
    let start = source[..stmt.start].rfind('\n').map_or(0, |i| i + 1);
    let end = source[stmt.end()..]
        .find('\n')
        .map_or(source.len(), |i| stmt.end() + i + 1);
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_keep_the_authors_spacing() {
        let src = "tensor<fp16, [1,8, 4]> x";
        let (s, e, t) = dims_edit(src, Span::new(0, src.len()), 1, &[1, 9, 4]).expect("edit");
        assert_eq!(
            format!("{}{t}{}", &src[..s], &src[e..]),
            "tensor<fp16, [1,9, 4]> x"
        );
    }

    #[test]
    fn arguments_are_found_in_any_order_and_spacing() {
        let src =
            "T y = slice_update(x=old, update = u, begin = (a, b), end=e)[name = string(\"y\")];";
        let span = Span::new(0, src.len());
        let at = |p: &str, i: usize| argument(src, span, p, i).map(|(s, e)| &src[s..e]);
        assert_eq!(at("x", 0), Some("old"));
        assert_eq!(at("update", 0), Some("u"));
        assert_eq!(at("begin", 1), Some("b"));
        assert_eq!(at("end", 0), Some("e"));
        assert_eq!(at("stride", 0), None);
    }
}
