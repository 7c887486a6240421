//! `check --placement`: the likely-placement estimate of every function (`check::placement`,
//! computed by `analysis::placement`) as a text table with the CPU ops of each function by reason,
//! or as the JSON document's `placement` member.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{json, Value};

use crate::analysis::placement::{Likely, Macs, Reason};
use crate::check::placement::{place_run, PlacedFunction};
use crate::check::CheckRun;
use crate::ir::SubModel;

/// One line a person reads about why an op got its estimate.
pub fn detail(reason: &Reason) -> String {
    match reason {
        Reason::CpuOp => "a CPU op type".into(),
        Reason::TinyProgram { ops } => format!(
            "a program of {}: Core ML keeps tiny programs on the CPU",
            plural(*ops, "op")
        ),
        Reason::EmbeddingLookup => {
            "an embedding lookup: a constant table gathered by run-time ids".into()
        }
        Reason::IndexConsumer { source } => format!("reads the indices of `{source}`"),
        Reason::Dtype { dtype } => format!("computes in {dtype} (the ANE computes fp16)"),
        Reason::OutputTail => "a gather/select/reduce tail on the output path".into(),
        Reason::CpuFinding { rule } => format!("`{rule}` reports it"),
        Reason::OpFinding { rule } => format!("`{rule}` reports it"),
        Reason::FunctionFinding { rule } => format!("`{rule}` reports its function"),
        Reason::AneOp => "an ANE op type".into(),
        Reason::NotInTable => "not in the op table".into(),
    }
}

/// The likely-ANE share of the known compute as people read it: `92 %`, `<1 %`, or `n/a` when no
/// op's cost is known.
pub fn ane_share(macs: &Macs) -> String {
    match macs.ane_share() {
        None => "n/a".into(),
        Some(s) if s > 0.0 && s < 1.0 => "<1 %".into(),
        Some(s) => format!("{} %", s.floor()),
    }
}

/// The model column: its path, and the sub-model of a pipeline.
fn model_name(p: &PlacedFunction<'_>) -> String {
    match &p.model.sub_model {
        Some(sub) => format!("{} ({sub})", p.path),
        None => p.path.clone(),
    }
}

/// The `placement` member of the JSON document: per function its counts, cost by device and
/// boundaries, per op its estimate and cost.
pub fn json(run: &CheckRun) -> Value {
    let placed = place_run(run);
    let sub_model = |s: &Option<SubModel>| {
        s.as_ref()
            .map(|s| json!({"position": s.position, "name": s.name}))
    };
    let functions: Vec<Value> = placed
        .iter()
        .map(|p| {
            let (c, m) = (&p.placement.counts, &p.placement.macs);
            let counted = !p.placement.ops.is_empty();
            json!({
                "path": counted.then(|| p.path.clone()),
                "sub_model": if counted { sub_model(&p.model.sub_model) } else { None },
                "function": p.function.name,
                "ops": c.total(),
                "ane": c.ane,
                "cpu": c.cpu,
                "at_risk": c.at_risk,
                "unknown": c.unknown,
                "macs": {"ane": m.ane, "cpu": m.cpu, "at_risk": m.at_risk, "unknown": m.unknown},
                "unestimated_ops": m.unestimated_ops,
                "boundaries": p.placement.boundaries,
            })
        })
        .collect();
    let ops: Vec<Value> = placed
        .iter()
        .flat_map(|p| {
            p.placement.ops.iter().filter_map(move |o| {
                let op = p.function.op(o.node)?;
                Some(json!({
                    "path": p.path,
                    "sub_model": sub_model(&p.model.sub_model),
                    "function": p.function.name,
                    "op": op.display_name(),
                    "op_type": op.op_type.as_str(),
                    "device": o.placement.likely.code(),
                    "reason": o.placement.reason.code(),
                    "detail": detail(&o.placement.reason),
                    "macs": o.macs,
                }))
            })
        })
        .collect();
    json!({
        "note": "an ESTIMATE from the op table and the findings, not Core ML's placement; confirm with MLComputePlan on the target device",
        "functions": functions,
        "ops": ops,
    })
}

/// The `--placement` table for a run, then the CPU ops of each function by reason.
pub fn render(run: &CheckRun) -> String {
    let placed = place_run(run);
    let mut out = render_table(&placed);
    for p in &placed {
        out.push_str(&render_cpu_ops(p));
    }
    out
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// How many op names one reason lists before "… and N more".
const NAMES_PER_REASON: usize = 8;

/// "Likely CPU in `main` of m.mlpackage (3 ops):" and one line per reason naming the ops.
fn render_cpu_ops(p: &PlacedFunction<'_>) -> String {
    let mut by_reason: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for o in p
        .placement
        .ops
        .iter()
        .filter(|o| o.placement.likely == Likely::Cpu)
    {
        let Some(op) = p.function.op(o.node) else {
            continue;
        };
        by_reason
            .entry(detail(&o.placement.reason))
            .or_default()
            .push(format!("{} `{}`", op.op_type, op.display_name()));
    }
    if by_reason.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nLikely CPU in `{}` of {} ({}):",
        p.function.name,
        model_name(p),
        plural(p.placement.counts.cpu, "op")
    );
    for (reason, names) in &by_reason {
        let shown: Vec<&str> = names
            .iter()
            .take(NAMES_PER_REASON)
            .map(String::as_str)
            .collect();
        let more = names.len().saturating_sub(NAMES_PER_REASON);
        let tail = if more > 0 {
            format!(", … and {more} more")
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {reason} ({}): {}{tail}",
            names.len(),
            shown.join(", ")
        );
    }
    out
}

/// The cells of one table row.
fn row_cells(p: &PlacedFunction<'_>) -> [String; 9] {
    let c = &p.placement.counts;
    [
        model_name(p),
        p.function.name.clone(),
        c.total().to_string(),
        c.ane.to_string(),
        c.cpu.to_string(),
        c.at_risk.to_string(),
        c.unknown.to_string(),
        p.placement.boundaries.to_string(),
        ane_share(&p.placement.macs),
    ]
}

fn render_table(placed: &[PlacedFunction<'_>]) -> String {
    render_rows(&placed.iter().map(row_cells).collect::<Vec<_>>())
}

/// Renders rows as a small table, labelled as an estimate.
fn render_rows(cells: &[[String; 9]]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Likely placement (an ESTIMATE from the op table and the findings, not Core ML's placement; \
         confirm with MLComputePlan on the target device)"
    );
    if cells.is_empty() {
        let _ = writeln!(out, "  no checked model");
        return out;
    }
    let head = [
        "model",
        "function",
        "ops",
        "likely ANE",
        "likely CPU",
        "at risk",
        "unknown",
        "boundaries",
        "ANE compute",
    ];
    let mut widths: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, h) in head.iter().enumerate() {
        let w = cells
            .iter()
            .map(|c| c.get(i).map_or(0, |s| s.chars().count()))
            .max()
            .unwrap_or(0)
            .max(h.len());
        widths.insert(i, w);
    }
    let line = |cols: Vec<&str>| -> String {
        let mut s = String::from(" ");
        for (i, c) in cols.iter().enumerate() {
            let w = widths.get(&i).copied().unwrap_or(0);
            if i < 2 {
                let _ = write!(s, " {c:<w$}");
            } else {
                let _ = write!(s, " {c:>w$}");
            }
        }
        s.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(head.to_vec()));
    for c in cells {
        let _ = writeln!(out, "{}", line(c.iter().map(String::as_str).collect()));
    }
    let _ = writeln!(
        out,
        "  boundaries: data edges between a likely-ANE and a likely-CPU op; ANE compute: the \
         likely-ANE share of the multiply-accumulates of the ops whose cost is known"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_is_labelled_an_estimate() {
        let row = ["a.mlpackage", "main", "6", "3", "2", "1", "0", "2", "92 %"].map(String::from);
        let s = render_rows(&[row]);
        assert!(s.contains("ESTIMATE") && s.contains("MLComputePlan"), "{s}");
        let row = s.lines().find(|l| l.contains("a.mlpackage")).unwrap();
        let nums: Vec<&str> = row.split_whitespace().skip(2).collect();
        assert_eq!(nums, ["6", "3", "2", "1", "0", "2", "92", "%"]);
    }

    #[test]
    fn the_ane_share_is_floored_and_never_rounds_up_to_all() {
        let share = |ane, cpu| {
            ane_share(&Macs {
                ane,
                cpu,
                ..Macs::default()
            })
        };
        assert_eq!(share(0, 0), "n/a");
        assert_eq!(share(999, 1), "99 %");
        assert_eq!(share(1, 999), "<1 %");
        assert_eq!(share(5, 0), "100 %");
        assert_eq!(share(0, 5), "0 %");
    }
}
