//! Every program checked against the MIL op set (`rules/opset/`): unknown ops and parameters,
//! missing required parameters, run-time values where a constant is required, element types outside
//! a parameter's domain, states where tensors belong (and the reverse), ops newer than the function's
//! opset, declared output types that contradict inference, literals whose element count disagrees
//! with their shape, `write_state` data that is not the state's type, and the builder-only
//! `coreml_update_state` in text: described as entities (`mil-function`, `mil-op`,
//! `mil-parameter`, `mil-literal`) whose properties the `mil-*` rules test.

mod check;
pub(crate) mod infer;
pub mod table;
mod table_file;
mod values;

use rayon::prelude::*;

use super::entity::{prop, Entity, EntityDemand, EntityKind, PropType};
use super::FunctionAnalysis;
use crate::ir::{Model, ModelKind};

pub use table::{OpTable, OPSETS};

use PropType::{Bool, Int, Text};

const OP_TYPE: super::entity::PropertyDef =
    prop("op-type", Text, "the op's type, e.g. `slice_update`");

/// The entity kinds produced here: what the op-set check finds in every function.
pub const ENTITY_KINDS: &[EntityKind] = &[
    EntityKind {
        name: "mil-function",
        doc: "a function, as the op table sees its opset",
        located_at: "the function's declaration",
        properties: &[
            prop("opset", Text, "the opset the function declares, e.g. `ios18`"),
            prop(
                "described",
                Bool,
                "the op table describes the opset (when not, nothing else of the function is checked)",
            ),
            prop("known-opsets", Text, "the opsets the op table describes, e.g. `ios15, ios16, ios17, ios18`"),
        ],
    },
    EntityKind {
        name: "mil-op",
        doc: "an op of a function whose opset the op table describes",
        located_at: "the op",
        properties: &[
            OP_TYPE,
            prop("known", Bool, "some opset of the op table has the op type"),
            prop("hint", Text, "for an unknown op: the closest op name (`did you mean …?`), or that none is close"),
            prop("available", Bool, "the function's opset has the op (present for known ops)"),
            prop("since", Text, "the first opset with the op (present for ops the function's opset lacks)"),
            prop("since-target", Text, "the same in coremltools' spelling, e.g. `iOS18`"),
            prop("opset", Text, "the function's opset"),
            prop("opset-target", Text, "the function's opset in coremltools' spelling"),
            prop(
                "needs-state-opset",
                Bool,
                "the op arrived with the newest opset while the function declares states under an older one (`opset-too-old-for-states` reports that once, at the state)",
            ),
            prop("text-program", Bool, "the program was read from text MIL (a `model.mil`)"),
            prop("output", Text, "the first output's name (for ops whose output type the table infers)"),
            prop("declared", Text, "the first output's declared type"),
            prop("output-agrees", Bool, "the declared type agrees with the type inferred from the op's inputs"),
            prop("inferred", Text, "the inferred type, or `no valid type` (when it disagrees)"),
            prop("contradiction", Text, "why the declared and the inferred type disagree"),
            prop("state-type", Text, "a state write: the state's tensor type"),
            prop("data", Text, "a state write: the data written (`` `name` `` or an inline literal)"),
            prop("data-type", Text, "a state write: the data's type"),
            prop(
                "data-fits-state",
                Bool,
                "a state write: the data has the state's element type and its shape where both are known",
            ),
        ],
    },
    EntityKind {
        name: "mil-parameter",
        doc: "a parameter of an op: each binding the op writes, and each parameter of the op's signature it leaves unbound",
        located_at: "the op",
        properties: &[
            OP_TYPE,
            prop("param", Text, "the parameter's name"),
            prop("bound", Bool, "the op binds the parameter (false: a signature parameter left out)"),
            prop("in-signature", Bool, "the op's signature at the function's opset has the parameter"),
            prop("hint", Text, "for a parameter the signature lacks: the one meant (`did you mean …?`) or the ones the op takes"),
            prop("required", Bool, "the signature requires the parameter"),
            prop("misspelled", Bool, "an unbound parameter a misspelled binding stands for"),
            prop("value", Text, "what the binding is: `` `name` `` or an inline literal"),
            prop("takes", Text, "what the parameter binds: `tensor`, `state`, `tuple`, `list` or `any`"),
            prop("expects", Text, "the same in words for messages: `a state` or `a tensor`"),
            prop("is-state", Bool, "the bound value is a state"),
            prop("got", Text, "the bound value's type in words"),
            prop("must-be-const", Bool, "the parameter must be known at compile time"),
            prop("runtime-data", Bool, "the bound value depends on a function input's data at run time"),
            prop("source", Text, "which inputs it depends on at run time"),
            prop("dtype", Text, "the element type of the one tensor bound to a tensor parameter"),
            prop("dtype-accepted", Bool, "the parameter accepts that element type"),
            prop("accepted-dtypes", Text, "the element types the parameter accepts, e.g. `int32, int16`"),
            prop(
                "deferred",
                Bool,
                "a more specific rule reports this element type for this parameter (`defer:` in rules/opset/ops.yaml)",
            ),
            prop("group-param", Text, "the earlier parameter that must share this one's element type"),
            prop("group-dtype", Text, "that parameter's element type"),
        ],
    },
    EntityKind {
        name: "mil-literal",
        doc: "a tensor literal bound by an op (an inline argument or an attribute) whose shape is fully known",
        located_at: "the op",
        properties: &[
            OP_TYPE,
            prop("param", Text, "the parameter or attribute it is bound to"),
            prop("type", Text, "its declared type"),
            prop("elements", Int, "how many elements it lists"),
            prop("shape-elements", Int, "how many elements its shape holds"),
        ],
    },
];

/// The op-set entities of every function of `model`.
pub fn opset_entities(model: &Model) -> Vec<Entity> {
    opset_entities_with(model, None, &super::entity::EveryEntity)
}

/// The same, for those `demand` may select, answering constants and run-time dependence from
/// `analyses` (one per function, in order), when they were computed already.
pub fn opset_entities_with(
    model: &Model,
    analyses: Option<&[FunctionAnalysis]>,
    demand: &dyn EntityDemand,
) -> Vec<Entity> {
    // The table is MIL's: a Core AI program's ops are not MIL ops.
    if model.kind == crate::ir::ModelKind::AiModel {
        return Vec::new();
    }
    let table = OpTable::builtin();
    // Spans of compiled and text models point into a real `model.mil`.
    let text = matches!(model.kind, ModelKind::MlModelc | ModelKind::MilText);
    model
        .program
        .functions
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, f)| {
            let analysis = analyses.and_then(|a| a.get(i));
            check::check_function(table, f, analysis, text, demand)
        })
        .collect()
}

#[cfg(test)]
mod tests;
