//! `check --placement`: the likely-placement estimate of every function (`check::placement`,
//! computed by `analysis::placement`) as a text table with the CPU ops of each function by reason,
//! or as the JSON document's `placement` member.

use std::collections::BTreeMap;
use std::fmt::Write;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::analysis::placement::{Likely, Macs, Reason};
use crate::check::placement::{ane_excluded, place_run, PlacedFunction};
use crate::check::{CheckRun, ModelOutcome};
use crate::ir::{ModelKind, SubModel};

/// One line a person reads about why an op got its estimate.
pub fn detail(reason: &Reason) -> String {
    reason.text()
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

/// What the estimate leaves out because the run's compute units leave the Neural Engine out:
/// "`--compute-units cpu-and-gpu` leaves the Neural Engine out: 2 models not estimated (…)".
pub fn excluded_text(run: &CheckRun) -> Option<String> {
    let mut units = None;
    let mut models = 0;
    for m in &run.models {
        if let ModelOutcome::Checked { model, .. } = &m.outcome {
            if let Some(u) = ane_excluded(run, model) {
                units = Some(u);
                models += 1;
            }
        }
    }
    let units = units?;
    Some(format!(
        "`--compute-units {}` leaves the Neural Engine out: {} not estimated (every op runs on {})",
        units.token(),
        plural(models, "model"),
        units.describe().replace(" and ", " or ")
    ))
}

/// The functions whose ANE compute share leaves ops out because their cost is unknown (shapes not
/// fixed, or an op type without a MAC formula): "`main` of m.mlpackage: 239 of 424 ops".
fn unestimated_text(placed: &[PlacedFunction<'_>]) -> Vec<String> {
    placed
        .iter()
        .filter(|p| p.placement.macs.unestimated_ops > 0)
        .map(|p| {
            format!(
                "`{}` of {}: {} of {} ops",
                p.function.name,
                model_name(p),
                p.placement.macs.unestimated_ops,
                p.placement.counts.total()
            )
        })
        .collect()
}

/// The model column: its path, and the sub-model of a pipeline.
fn model_name(p: &PlacedFunction<'_>) -> String {
    match &p.model.sub_model {
        Some(sub) => format!("{} ({sub})", p.path),
        None => p.path.clone(),
    }
}

/// What the estimate is and what can confirm it, for the kinds of model `run` checked: Core ML
/// reports placement through its compute plan; Core AI has no API that reports where ops run, so
/// for a Core AI asset the estimate is Core ML's op table and nothing confirms it.
fn estimate_note(run: &CheckRun) -> String {
    let (mut core_ml, mut core_ai) = (false, false);
    for m in &run.models {
        if let ModelOutcome::Checked { model, .. } = &m.outcome {
            match model.kind == ModelKind::AiModel {
                true => core_ai = true,
                false => core_ml = true,
            }
        }
    }
    let core_ai_note = "for a Core AI asset, an estimate from Core ML's op table: Core AI has no \
                        API that reports where ops run, so nothing on the device confirms it";
    match (core_ml, core_ai) {
        (false, true) => format!("an ESTIMATE from the op table and the findings; {core_ai_note}"),
        (true, true) => format!("{CORE_ML_NOTE}; {core_ai_note}"),
        _ => CORE_ML_NOTE.to_string(),
    }
}

const CORE_ML_NOTE: &str = "an ESTIMATE from the op table and the findings, not Core ML's \
                            placement; confirm with MLComputePlan on the target device";

/// The `placement` member of the JSON document (`schemas/placement.schema.json`).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PlacementDoc {
    /// That this is an estimate, not Core ML's placement.
    pub note: String,
    /// One record per function of every checked model.
    pub functions: Vec<FunctionDoc>,
    /// One record per counted op (constants are not counted).
    pub ops: Vec<OpDoc>,
}

/// A pipeline sub-model.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SubModelDoc {
    /// Its position at each level of nesting, outermost first.
    pub position: Vec<usize>,
    /// Its name in the pipeline, when the pipeline names it.
    pub name: Option<String>,
}

/// Multiply-accumulates by class, over the ops whose cost is known.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct MacsDoc {
    /// Of ops likely on the Neural Engine.
    pub ane: u64,
    /// Of ops likely on the CPU.
    pub cpu: u64,
    /// Of ops at risk.
    pub at_risk: u64,
    /// Of ops not in the op table.
    pub unknown: u64,
}

/// One function's estimate.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FunctionDoc {
    /// The model's path (`null` when the function has no counted op).
    pub path: Option<String>,
    /// The pipeline sub-model (`null` for a model that is not one, or no counted op).
    pub sub_model: Option<SubModelDoc>,
    /// The function's name.
    pub function: String,
    /// Counted ops.
    pub ops: usize,
    /// Ops likely on the Neural Engine.
    pub ane: usize,
    /// Ops likely on the CPU.
    pub cpu: usize,
    /// Ops at risk.
    pub at_risk: usize,
    /// Ops not in the op table.
    pub unknown: usize,
    /// Multiply-accumulates by class.
    pub macs: MacsDoc,
    /// Ops whose cost is unknown (left out of `macs`).
    pub unestimated_ops: usize,
    /// Data edges between a likely-ANE op and a likely-CPU one.
    pub boundaries: usize,
}

/// One counted op's estimate.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct OpDoc {
    /// The model's path.
    pub path: String,
    /// The pipeline sub-model, when the model is one.
    pub sub_model: Option<SubModelDoc>,
    /// The function's name.
    pub function: String,
    /// The op's name.
    pub op: String,
    /// The op type.
    pub op_type: String,
    /// `ane`, `cpu`, `at-risk` or `unknown`.
    pub device: String,
    /// Why (a stable code: `cpu-op`, `dtype`, `ane-op`, …).
    pub reason: String,
    /// Why, as a person reads it.
    pub detail: String,
    /// Its multiply-accumulates; `null` when unknown.
    pub macs: Option<u64>,
}

fn sub_model_doc(s: &Option<SubModel>) -> Option<SubModelDoc> {
    s.as_ref().map(|s| SubModelDoc {
        position: s.position.clone(),
        name: s.name.clone(),
    })
}

/// The `placement` member of a run: per function its counts, cost by class and boundaries, per op
/// its estimate and cost.
pub fn document(run: &CheckRun) -> PlacementDoc {
    let placed = place_run(run);
    let functions = placed
        .iter()
        .map(|p| {
            let (c, m) = (&p.placement.counts, &p.placement.macs);
            let counted = !p.placement.ops.is_empty();
            FunctionDoc {
                path: counted.then(|| p.path.clone()),
                sub_model: if counted {
                    sub_model_doc(&p.model.sub_model)
                } else {
                    None
                },
                function: p.function.name.clone(),
                ops: c.total(),
                ane: c.ane,
                cpu: c.cpu,
                at_risk: c.at_risk,
                unknown: c.unknown,
                macs: MacsDoc {
                    ane: m.ane,
                    cpu: m.cpu,
                    at_risk: m.at_risk,
                    unknown: m.unknown,
                },
                unestimated_ops: m.unestimated_ops,
                boundaries: p.placement.boundaries,
            }
        })
        .collect();
    let ops = placed
        .iter()
        .flat_map(|p| {
            p.placement.ops.iter().filter_map(move |o| {
                let op = p.function.op(o.node)?;
                Some(OpDoc {
                    path: p.path.clone(),
                    sub_model: sub_model_doc(&p.model.sub_model),
                    function: p.function.name.clone(),
                    op: op.display_name().to_string(),
                    op_type: op.op_type.to_string(),
                    device: o.placement.likely.code().to_string(),
                    reason: o.placement.reason.code().to_string(),
                    detail: detail(&o.placement.reason),
                    macs: o.macs,
                })
            })
        })
        .collect();
    let mut note = estimate_note(run);
    if let Some(excluded) = excluded_text(run) {
        note.push_str("; ");
        note.push_str(&excluded);
    }
    PlacementDoc {
        note,
        functions,
        ops,
    }
}

/// [`document`] as a JSON value.
pub fn json(run: &CheckRun) -> Value {
    serde_json::to_value(document(run)).unwrap_or(Value::Null)
}

/// The `--placement` table for a run, then the CPU ops of each function by reason; the model's
/// names shown escaped for the terminal.
pub fn render(run: &CheckRun) -> String {
    let placed = place_run(run);
    let mut out = render_table(&placed, &estimate_note(run));
    if let Some(excluded) = excluded_text(run) {
        let _ = writeln!(out, "  {excluded}");
    }
    let unestimated = unestimated_text(&placed);
    if !unestimated.is_empty() {
        let _ = writeln!(
            out,
            "  * the ANE compute share leaves out the ops whose cost is unknown (shapes not fixed, or no MAC formula): {}",
            unestimated.join("; ")
        );
    }
    for p in &placed {
        out.push_str(&render_cpu_ops(p));
    }
    super::model_text::terminal_lines(&out).into_owned()
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
        if p.placement.macs.unestimated_ops > 0 {
            format!("{}*", ane_share(&p.placement.macs))
        } else {
            ane_share(&p.placement.macs)
        },
    ]
}

fn render_table(placed: &[PlacedFunction<'_>], note: &str) -> String {
    render_rows(&placed.iter().map(row_cells).collect::<Vec<_>>(), note)
}

/// Renders rows as a small table, labelled with `note` (what the estimate is).
fn render_rows(cells: &[[String; 9]], note: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Likely placement ({note})");
    if cells.is_empty() {
        let _ = writeln!(out, "  no estimated function");
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
        "  ops: the function's ops other than constants (for a Core AI asset, the ops `dump` \
         counts as not constants)\n  boundaries: data edges between a likely-ANE and a likely-CPU \
         op\n  ANE compute: the likely-ANE share of the multiply-accumulates of the ops whose cost \
         is known"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_is_labelled_an_estimate() {
        let row = ["a.mlpackage", "main", "6", "3", "2", "1", "0", "2", "92 %"].map(String::from);
        let s = render_rows(&[row], CORE_ML_NOTE);
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
