//! The overview of a large function by layer: one row per layer (the namespaces of
//! `report::graph::layers`, as the Model Explorer export groups them), in program order, each
//! with its op count, a strip of its ops coloured by the placement estimate, its share of the
//! ANE's compute (the row's colour) and a badge counting its findings. A row opens on its
//! sub-layers, the ops of it that are not likely on the ANE and its findings. Text at the page's
//! size, no picture to zoom: a 6,000-op program is 30-odd rows.
//!
//! Ops outside every layer (embeddings, heads) are rows of consecutive ops; a function without
//! layers is cut into about `overview::GROUPS` rows of consecutive ops.

use std::fmt::Write;

use rustc_hash::FxHashMap;

use crate::analysis::placement::{FunctionPlacement, Likely, PlacedOp};
use crate::finding::Finding;
use crate::ir::{Function, NodeId};
use crate::report::graph::layers::{layers, LayerSource};
use crate::report::graph::{css_class, escape, overview};

/// Ops outside the layers shown in one row at most.
const MAX_LOOSE_ROW: usize = 150;
/// Ops a row names (those not likely on the ANE) at most.
const MAX_NAMED: usize = 12;
/// Consecutive rows of fewer ops than this are folded into one row holding them.
const SMALL_ROW: usize = 8;

/// A function's layered overview.
pub(super) struct Layered {
    /// The rows.
    pub(super) html: String,
    /// Op name → the id of the deepest row holding it.
    row_of: FxHashMap<String, String>,
    /// Top-level rows.
    pub(super) rows: usize,
    /// How the layers were found.
    pub(super) source: LayerSource,
}

impl Layered {
    /// The id of the row holding the op `name`.
    pub(super) fn row_of(&self, name: &str) -> Option<&str> {
        self.row_of.get(name).map(String::as_str)
    }
}

/// One row: a title, the ops under it (positions in the function's drawn ops) and sub-rows.
struct Row {
    title: String,
    ops: Vec<usize>,
    /// The ops directly in this row (not in a sub-row).
    direct: Vec<usize>,
    children: Vec<Row>,
}

/// Rows of `items` (position, the rest of its namespace), grouped by the first component of the
/// namespace, consecutive runs each; ops with nothing left go into `direct`.
fn group(items: &[(usize, &str)], direct: &mut Vec<usize>) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let (pos, ns) = items[i];
        if ns.is_empty() {
            direct.push(pos);
            i += 1;
            continue;
        }
        let head = ns.split('/').next().unwrap_or(ns);
        let mut j = i;
        let mut inner: Vec<(usize, &str)> = Vec::new();
        while j < items.len() {
            let (p, n) = items[j];
            let h = n.split('/').next().unwrap_or(n);
            if n.is_empty() || h != head {
                break;
            }
            inner.push((p, n.split_once('/').map_or("", |(_, rest)| rest)));
            j += 1;
        }
        let mut own = Vec::new();
        let children = group(&inner, &mut own);
        rows.push(Row {
            title: head.to_string(),
            ops: inner.iter().map(|(p, _)| *p).collect(),
            direct: own,
            children,
        });
        i = j;
    }
    fold_small(rows)
}

/// The list a numbered row is an item of: `conv` for `conv.3`.
fn list_of(title: &str) -> Option<&str> {
    let (base, n) = title.rsplit_once('.')?;
    n.bytes().all(|b| b.is_ascii_digit()).then_some(base)
}

/// Runs of two or more consecutive small rows of one list (`conv.0`, `conv.2`, `conv.3` of 1–4
/// ops each) as one row `conv.0 … conv.3` holding them.
fn fold_small(rows: Vec<Row>) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    let mut run: Vec<Row> = Vec::new();
    let flush = |run: &mut Vec<Row>, out: &mut Vec<Row>| {
        if run.len() >= 2 {
            let title = format!(
                "{} … {}",
                run.first().map_or("", |r| r.title.as_str()),
                run.last().map_or("", |r| r.title.as_str())
            );
            let ops = run.iter().flat_map(|r| r.ops.iter().copied()).collect();
            out.push(Row {
                title,
                ops,
                direct: Vec::new(),
                children: std::mem::take(run),
            });
        } else {
            out.append(run);
        }
    };
    for row in rows {
        let list = list_of(&row.title).filter(|_| row.ops.len() < SMALL_ROW);
        if list.is_some() {
            if run.first().and_then(|r| list_of(&r.title)) != list {
                flush(&mut run, &mut out);
            }
            run.push(row);
        } else {
            flush(&mut run, &mut out);
            out.push(row);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The top-level rows: the layers, and the runs of ops outside them cut into rows of at most
/// `chunk` ops.
fn top_rows(namespaces: &[&str], chunk: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut i = 0;
    while i < namespaces.len() {
        if namespaces[i].is_empty() {
            let mut j = i;
            while j < namespaces.len() && namespaces[j].is_empty() && j - i < chunk {
                j += 1;
            }
            let ops: Vec<usize> = (i..j).collect();
            rows.push(Row {
                title: format!("ops {}–{}", i + 1, j),
                direct: ops.clone(),
                ops,
                children: Vec::new(),
            });
            i = j;
            continue;
        }
        let head = namespaces[i].split('/').next().unwrap_or("");
        let mut j = i;
        while j < namespaces.len()
            && !namespaces[j].is_empty()
            && namespaces[j].split('/').next() == Some(head)
        {
            j += 1;
        }
        let items: Vec<(usize, &str)> = (i..j).map(|p| (p, namespaces[p])).collect();
        let mut direct = Vec::new();
        let mut rows_here = group(&items, &mut direct);
        // `items` share their head: one row.
        match rows_here.pop() {
            Some(row) if rows_here.is_empty() => rows.push(row),
            _ => {}
        }
        i = j;
    }
    fold_small(rows)
}

struct Context<'a> {
    f: &'a Function,
    ops: &'a [NodeId],
    placed: FxHashMap<NodeId, &'a PlacedOp>,
    /// Position → (finding number in the page, rule) of the findings on that op.
    findings: FxHashMap<usize, Vec<(usize, &'a str)>>,
    id: &'a str,
    next: usize,
    row_of: FxHashMap<String, String>,
}

impl Context<'_> {
    fn likely(&self, pos: usize) -> Likely {
        self.placed
            .get(&self.ops[pos])
            .map_or(Likely::Unknown, |p| p.placement.likely)
    }

    fn name(&self, pos: usize) -> &str {
        self.f.op(self.ops[pos]).map_or("", |o| o.display_name())
    }
}

/// The row's background: from orange (no ANE compute) to green (all of it).
fn share_colour(share: f64) -> String {
    format!("hsl({:.0},60%,82%)", 25.0 + 95.0 * share.clamp(0.0, 1.0))
}

fn render_row(cx: &mut Context<'_>, row: &Row, out: &mut String) {
    let (mut ane_macs, mut all_macs, mut ane_ops, mut counted) = (0u64, 0u64, 0usize, 0usize);
    for &p in &row.ops {
        if let Some(o) = cx.placed.get(&cx.ops[p]) {
            counted += 1;
            let ane = o.placement.likely == Likely::Ane;
            ane_ops += usize::from(ane);
            if let Some(m) = o.macs {
                all_macs = all_macs.saturating_add(m);
                if ane {
                    ane_macs = ane_macs.saturating_add(m);
                }
            }
        }
    }
    let (share, what) = if all_macs > 0 {
        (ane_macs as f64 / all_macs as f64, "")
    } else {
        // No op's cost is known: the share of the ops.
        (ane_ops as f64 / counted.max(1) as f64, " of ops")
    };
    let mut found: Vec<(usize, &str, usize)> = Vec::new();
    for &p in &row.ops {
        for &(n, rule) in cx.findings.get(&p).map_or(&[][..], Vec::as_slice) {
            found.push((n, rule, p));
        }
    }
    found.sort_unstable();
    found.dedup_by_key(|f| f.0);
    // Without an estimate (units without the Neural Engine) no op is named as off it.
    let off: Vec<usize> = row
        .direct
        .iter()
        .copied()
        .filter(|&p| !cx.placed.is_empty() && cx.likely(p) != Likely::Ane)
        .collect();
    // Only rows a finding's link points at have an id.
    let id = if row.direct.iter().any(|p| cx.findings.contains_key(p)) {
        let id = format!("{}-l{}", cx.id, cx.next);
        cx.next += 1;
        for &p in &row.direct {
            if cx.findings.contains_key(&p) {
                cx.row_of.insert(cx.name(p).to_string(), id.clone());
            }
        }
        format!(" id=\"{id}\"")
    } else {
        String::new()
    };
    let opens = !(row.children.is_empty() && off.is_empty() && found.is_empty());
    let _ = write!(
        out,
        "{}<span class=ln>{}</span><span class=lo>{} ops</span><span class=st>",
        if opens {
            format!("<details class=ly{id}><summary class=rw>")
        } else {
            format!("<div class=ly{id}><div class=rw>")
        },
        escape(&row.title),
        row.ops.len()
    );
    // The strip: runs of ops of one class.
    let mut k = 0;
    while k < row.ops.len() {
        let class = cx.likely(row.ops[k]);
        let mut j = k;
        while j < row.ops.len() && cx.likely(row.ops[j]) == class {
            j += 1;
        }
        let _ = write!(
            out,
            "<i class={} style=flex:{}></i>",
            css_class(class),
            j - k
        );
        k = j;
    }
    let _ = if cx.placed.is_empty() {
        write!(out, "</span><span class=sh>not estimated</span>")
    } else {
        write!(
            out,
            "</span><span class=sh style=background:{}>ANE {:.0} %{what}</span>",
            share_colour(share),
            100.0 * share
        )
    };
    if !found.is_empty() {
        let _ = write!(out, "<span class=bd>{}</span>", found.len());
    }
    if !opens {
        out.push_str("</div></div>");
        return;
    }
    out.push_str("</summary><div class=lb>");
    for child in &row.children {
        render_row(cx, child, out);
    }
    if !off.is_empty() {
        out.push_str("<ul>");
        for &p in off.iter().take(MAX_NAMED) {
            let op = cx.f.op(cx.ops[p]);
            let reason = cx
                .placed
                .get(&cx.ops[p])
                .map_or_else(|| "not counted".to_string(), |o| o.placement.reason.text());
            let _ = write!(
                out,
                "<li><i class=\"dot {}\"></i><code>{}</code> {} — {}</li>",
                css_class(cx.likely(p)),
                escape(cx.name(p)),
                escape(op.map_or("", |o| o.op_type.as_str())),
                escape(&reason)
            );
        }
        if off.len() > MAX_NAMED {
            let _ = write!(out, "<li>and {} more</li>", off.len() - MAX_NAMED);
        }
        out.push_str("</ul>");
    }
    if !found.is_empty() && row.children.is_empty() {
        out.push_str("<ul class=\"found\">");
        for (n, rule, p) in &found {
            let _ = write!(
                out,
                "<li><a href=\"#f{n}\">{}</a> at <code>{}</code></li>",
                escape(rule),
                escape(cx.name(*p))
            );
        }
        out.push_str("</ul>");
    }
    out.push_str("</div></details>");
}

/// The layered overview of `f`; `findings` are its model's, the first numbered `first_finding`
/// in the page; `id` prefixes the rows' ids.
pub(super) fn layered(
    f: &Function,
    placement: &FunctionPlacement,
    findings: &[Finding],
    first_finding: usize,
    id: &str,
) -> Layered {
    let l = layers(f);
    let namespaces: Vec<&str> = l.ops.iter().map(|&n| l.of(n)).collect();
    let chunk = if l.source == LayerSource::None {
        l.ops.len().div_ceil(overview::GROUPS).max(1)
    } else {
        MAX_LOOSE_ROW
    };
    let rows = top_rows(&namespaces, chunk);
    let position: FxHashMap<&str, usize> = l
        .ops
        .iter()
        .enumerate()
        .filter_map(|(i, &n)| f.op(n).map(|o| (o.display_name(), i)))
        .collect();
    let mut on: FxHashMap<usize, Vec<(usize, &str)>> = FxHashMap::default();
    for (k, x) in findings.iter().enumerate() {
        if x.function.as_deref() != Some(f.name.as_str()) {
            continue;
        }
        if let Some(&p) = x.op.as_deref().and_then(|n| position.get(n)) {
            on.entry(p)
                .or_default()
                .push((first_finding + k, x.rule.as_str()));
        }
    }
    let mut cx = Context {
        f,
        ops: &l.ops,
        placed: placement.ops.iter().map(|o| (o.node, o)).collect(),
        findings: on,
        id,
        next: 0,
        row_of: FxHashMap::default(),
    };
    let mut html = String::new();
    for row in &rows {
        render_row(&mut cx, row, &mut html);
    }
    Layered {
        html,
        row_of: cx.row_of,
        rows: rows.len(),
        source: l.source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| {
                let kids = titles(&r.children);
                if kids.is_empty() {
                    format!("{}:{}", r.title, r.ops.len())
                } else {
                    format!("{}:{}[{}]", r.title, r.ops.len(), kids.join(" "))
                }
            })
            .collect()
    }

    #[test]
    fn rows_follow_the_namespaces_in_program_order() {
        let ns = [
            "",
            "",
            "layers.0/attn",
            "layers.0/attn",
            "layers.0",
            "layers.0/mlp",
            "layers.1/attn",
            "layers.1",
            "",
        ];
        let rows = top_rows(&ns, 150);
        assert_eq!(
            titles(&rows),
            [
                "ops 1–2:2",
                "layers.0 … layers.1:6[layers.0:4[attn:2 mlp:1] layers.1:2[attn:1]]",
                "ops 9–9:1"
            ]
        );
        assert_eq!(rows[1].children[0].direct, [4]);
        // Small items of one list are folded into one row.
        let convs = ["conv.0", "conv.2", "conv.2", "conv.3", "norm", "conv.5"];
        assert_eq!(
            titles(&top_rows(&convs, 150)),
            [
                "conv.0 … conv.3:4[conv.0:1 conv.2:2 conv.3:1]",
                "norm:1",
                "conv.5:1"
            ]
        );
        // Ops outside the layers are cut into rows of at most `chunk`.
        let loose = [""; 7];
        assert_eq!(
            titles(&top_rows(&loose, 3)),
            ["ops 1–3:3", "ops 4–6:3", "ops 7–7:1"]
        );
    }

    /// Units without the Neural Engine give no estimate: each row says so instead of an ANE share,
    /// and names no op as off the Neural Engine.
    #[test]
    fn without_an_estimate_rows_say_not_estimated() {
        let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {\n            tensor<fp16, [1, 64]> a = relu(x = x)[name = string(\"a\")];\n            tensor<fp32, [1, 64]> b = cast(dtype = string(\"fp32\"), x = a)[name = string(\"b\")];\n            tensor<fp32, [1, 64]> y = exp(x = b)[name = string(\"y\")];\n        } -> (y);\n}\n";
        let model = crate::rules::testing::snippet_model("t.mil", mil).expect("parses");
        let f = &model.program.functions[0];
        let estimated = layered(
            f,
            &crate::check::placement::place_function(f, &[]),
            &[],
            1,
            "x",
        );
        assert!(estimated.html.contains("ANE "), "{}", estimated.html);
        let none = layered(f, &FunctionPlacement::default(), &[], 1, "x");
        assert!(
            none.html.contains("<span class=sh>not estimated</span>"),
            "{}",
            none.html
        );
        assert!(
            !none.html.contains("ANE ") && !none.html.contains("not counted"),
            "{}",
            none.html
        );
    }
}
