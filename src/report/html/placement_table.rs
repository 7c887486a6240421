//! The table of the placement estimate per function: the page's, a column per class, and a
//! notebook cell's, five columns that share the cell's width.

use std::fmt::Write;

use super::view::{FunctionView, ModelRef};
use crate::analysis::placement::{Counts, Macs};
use crate::check::CheckRun;
use crate::report::model_text::html as escape;
use crate::report::placement::{ane_share, excluded_text};

/// How the table is laid out.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PlacementLayout {
    /// A page of its own: a column per class, functions linked to their overviews.
    Page,
    /// A notebook's output cell: the class counts under the bar, the model under the function, the
    /// columns in shares of the cell's width, so the table never runs past it.
    Compact,
}

const PAGE_HEAD: &str = "<table class=\"placement\"><tr><th>model</th><th>function</th><th>ops</th><th>estimate</th><th>ANE</th><th>CPU</th><th>at risk</th><th>unknown</th><th>boundaries</th><th>ANE compute</th></tr>";
const COMPACT_HEAD: &str = "<table class=\"placement compact\"><colgroup><col style=\"width:28%\"><col style=\"width:7%\"><col style=\"width:25%\"><col style=\"width:15%\"><col style=\"width:25%\"></colgroup><tr><th>function</th><th>ops</th><th>estimate</th><th>boundaries</th><th>ANE compute</th></tr>";

/// Writes the heading, the legend, the table and its notes.
pub(super) fn placement(
    out: &mut String,
    run: &CheckRun,
    models: &[ModelRef<'_>],
    views: &[Vec<FunctionView<'_>>],
    layout: PlacementLayout,
) {
    let heading = match layout {
        PlacementLayout::Page => "h3",
        PlacementLayout::Compact => "h2",
    };
    let _ = write!(
        out,
        "<{heading}>Likely placement per function</{heading}><p class=\"note\">An ESTIMATE from \
         the op table and the findings, not Core ML's placement: confirm with MLComputePlan on the \
         target device.</p><div class=\"legend\"><span class=\"ane\"></span>likely ANE \
         <span class=\"cpu\"></span>likely CPU <span class=\"risk\"></span>at risk \
         <span class=\"unknown\"></span>unknown <span class=\"input\"></span>input</div>"
    );
    out.push_str(match layout {
        PlacementLayout::Page => PAGE_HEAD,
        PlacementLayout::Compact => COMPACT_HEAD,
    });
    let mut unestimated: Vec<String> = Vec::new();
    for (m, fs) in models.iter().zip(views) {
        let model = escape(&m.title);
        for (fi, v) in fs.iter().enumerate() {
            let (c, macs) = (&v.placement.counts, &v.placement.macs);
            let name = escape(&v.function.name);
            let _ = write!(
                out,
                "<tr class=\"model-row\" data-model=\"{}\">",
                m.path_index
            );
            match layout {
                PlacementLayout::Page => {
                    let _ = write!(
                        out,
                        "<td>{model}</td><td><a href=\"#ov{}-{fi}\">{name}</a></td>",
                        m.result
                    );
                }
                PlacementLayout::Compact => {
                    let _ = write!(
                        out,
                        "<td><code>{name}</code><span class=\"model\">{model}</span></td>"
                    );
                }
            }
            if let Some(units) = m.ane_excluded {
                let counted = v
                    .function
                    .ops()
                    .filter(|(_, op)| {
                        op.op_type != "const" && !op.op_type.starts_with("constexpr_")
                    })
                    .count();
                let _ = write!(
                    out,
                    "<td>{counted}</td><td colspan=\"{}\" class=\"not-estimated\">not estimated: <code>--compute-units {}</code> leaves the Neural Engine out</td></tr>",
                    match layout {
                        PlacementLayout::Page => 7,
                        PlacementLayout::Compact => 3,
                    },
                    units.token()
                );
                continue;
            }
            let mark = if macs.unestimated_ops > 0 {
                unestimated.push(format!(
                    "<code>{name}</code> of {model}: {} of {} ops",
                    macs.unestimated_ops,
                    c.total()
                ));
                "*"
            } else {
                ""
            };
            let share = format!("{}{mark}{}", ane_share(macs), compute_bar(macs));
            let _ = match layout {
                PlacementLayout::Page => write!(
                    out,
                    "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{share}</td></tr>",
                    c.total(),
                    bar(c),
                    c.ane,
                    c.cpu,
                    c.at_risk,
                    c.unknown,
                    v.placement.boundaries,
                ),
                PlacementLayout::Compact => write!(
                    out,
                    "<td>{}</td><td>{}<span class=\"counts\">{}</span></td><td>{}</td><td>{share}</td></tr>",
                    c.total(),
                    bar(c),
                    counts_text(c),
                    v.placement.boundaries,
                ),
            };
        }
    }
    out.push_str("</table>");
    if let Some(excluded) = excluded_text(run) {
        let _ = write!(
            out,
            "<p class=\"note\">{}; their pictures are not coloured.</p>",
            escape(&excluded)
        );
    }
    if !unestimated.is_empty() {
        let _ = write!(
            out,
            "<p class=\"note\">* the ANE compute share leaves out the ops whose cost is unknown (shapes not fixed, or no MAC formula): {}.</p>",
            unestimated.join("; ")
        );
    }
}

/// A `--placement` bar with its counts.
fn bar(c: &Counts) -> String {
    let n = |x: usize| x as f64;
    segments([
        (n(c.ane), "ane", "likely ANE", c.ane.to_string()),
        (n(c.cpu), "cpu", "likely CPU", c.cpu.to_string()),
        (n(c.at_risk), "risk", "at risk", c.at_risk.to_string()),
        (n(c.unknown), "unknown", "unknown", c.unknown.to_string()),
    ])
}

/// The bar of the multiply-accumulates by class.
fn compute_bar(m: &Macs) -> String {
    let n = |x: u64| x as f64;
    let what = |x: u64| format!("{x} MACs");
    segments([
        (n(m.ane), "ane", "likely ANE", what(m.ane)),
        (n(m.cpu), "cpu", "likely CPU", what(m.cpu)),
        (n(m.at_risk), "risk", "at risk", what(m.at_risk)),
        (n(m.unknown), "unknown", "unknown", what(m.unknown)),
    ])
}

/// A bar of segments (size, CSS class, class name, size as the tooltip says it).
fn segments(parts: [(f64, &str, &str, String); 4]) -> String {
    let total = parts.iter().map(|p| p.0).sum::<f64>().max(1.0);
    let mut out = String::from("<div class=\"bar\">");
    for (n, class, what, shown) in parts {
        if n > 0.0 {
            let _ = write!(
                out,
                "<span class=\"{class}\" style=\"width:{:.2}%\" title=\"{what}: {shown}\"></span>",
                100.0 * n / total
            );
        }
    }
    out.push_str("</div>");
    out
}

/// The classes that hold ops, as the compact table writes them under the bar: `50 ANE · 7 CPU`.
fn counts_text(c: &Counts) -> String {
    let parts: Vec<String> = [
        (c.ane, "ANE"),
        (c.cpu, "CPU"),
        (c.at_risk, "at risk"),
        (c.unknown, "unknown"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    if parts.is_empty() {
        "no op".to_string()
    } else {
        parts.join(" · ")
    }
}
