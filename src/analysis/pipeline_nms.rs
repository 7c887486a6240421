//! A pipeline's non-maximum suppression stage beside the ML-program stage that feeds it
//! (FIELD-HAZARDS-4 G3): the `nms-stage` entity, one per NMS stage the reader gave the program
//! (`ModelDesc::nms`). In a protobuf pipeline the stage's message names its confidence input and
//! holds its labels; in a compiled one only the stage's kind is known, and the detector's
//! confidence output is the program's rank-2 output whose last axis is not the 4 box coordinates
//! (one named `confidence` first). The class count is that output's last axis.

use super::entity::{kind_named, prop, Entity, EntityKind, PropType};
use crate::ir::{Function, Model, NmsStage, ValueType};

/// The entity kinds produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[EntityKind {
    name: "nms-stage",
    doc: "a pipeline's non-maximum suppression stage (`Model` field 610) beside the ML-program stage \
          that feeds it: what its message says (protobuf) and the detector's confidence output",
    located_at: "the op returning the detector's confidence output, else the program's first function",
    properties: &[
        prop("stage", PropType::Text, "Where the NMS stage sits, e.g. `sub-model 1`."),
        prop("compiled", PropType::Bool, "The pipeline is compiled: the stage is only a `coremldata.bin`, its message unread."),
        prop("confidence", PropType::Text, "The confidence feature: the name the NMS message gives (protobuf), else the detector output taken for it (compiled)."),
        prop("confidence-found", PropType::Bool, "The feeding program returns the confidence feature."),
        prop("confidence-type", PropType::Text, "The program's type for it, e.g. `tensor<fp32, [8400, 80]>`."),
        prop("classes", PropType::Int, "The class count: the confidence output's last axis, when known."),
        prop("padded-classes", PropType::Int, "The next multiple of 80 at or above the class count."),
        prop("pad-columns", PropType::Int, "How many zero columns pad the class axis to that multiple."),
        prop("labels-read", PropType::Bool, "The stage's message was read, so its labels are known."),
        prop("labels", PropType::Int, "How many class labels the message holds (`stringClassLabels` or `int64ClassLabels`)."),
        prop("label-kind", PropType::Text, "`string`, `int64` or `none`."),
        prop("input-detail", PropType::Text, "What is wrong with the stage's inputs or labels, in a sentence, when something is."),
    ],
}];

/// The NMS class axis ultralytics pads to (FIELD-HAZARDS-4 G3).
const CLASS_MULTIPLE: u64 = 80;

/// Every `nms-stage` entity of `model` (a program stage of a pipeline).
pub fn nms_stage_entities(model: &Model) -> Vec<Entity> {
    model
        .description
        .nms
        .iter()
        .filter_map(|n| nms_entity(model, n))
        .collect()
}

/// The detector output the stage reads: (function, name), and whether the program returns it.
fn confidence_output<'m>(model: &'m Model, n: &NmsStage) -> Option<(&'m Function, String)> {
    let functions = &model.program.functions;
    if let Some(name) = &n.confidence_input {
        return functions
            .iter()
            .find(|f| f.outputs().iter().any(|o| o.as_str() == name))
            .map(|f| (f, name.clone()));
    }
    let f = functions.first()?;
    let rank2 = |name: &str| match f.value_type(name) {
        Some(ValueType::Tensor(t)) => t
            .known_dims()
            .filter(|d| d.len() == 2)
            .and_then(|d| d.last().copied())
            .is_some_and(|last| last != 4),
        _ => false,
    };
    let outputs: Vec<&str> = f.outputs().iter().map(|o| o.as_str()).collect();
    let named = outputs
        .iter()
        .find(|o| o.contains("confidence") && rank2(o));
    named
        .or_else(|| outputs.iter().find(|o| rank2(o)))
        .map(|o| (f, (*o).to_string()))
}

fn nms_entity(model: &Model, n: &NmsStage) -> Option<Entity> {
    let stage = format!("sub-model {}", n.sub_model.position_text());
    let found = confidence_output(model, n);
    let mut e = Entity::new(const { kind_named(ENTITY_KINDS, "nms-stage") })
        .with("stage", stage.clone())
        .with("compiled", n.confidence_input.is_none())
        .with("confidence-found", found.is_some())
        .with("labels-read", n.labels.is_some());
    if let Some(l) = n.labels {
        e.set("labels", l);
        e.set("label-kind", n.label_kind.clone());
    }
    let first = model.program.functions.first()?;
    let (f, name) = match &found {
        Some((f, name)) => (*f, name.clone()),
        None => (first, n.confidence_input.clone().unwrap_or_default()),
    };
    e.set("confidence", name.clone());
    let classes = match f.value_type(&name) {
        Some(ValueType::Tensor(t)) => {
            e.set("confidence-type", t.to_string());
            t.known_dims().and_then(|d| d.last().copied())
        }
        _ => None,
    };
    if let Some(c) = classes {
        let padded = c.div_ceil(CLASS_MULTIPLE).max(1) * CLASS_MULTIPLE;
        e.set("classes", c);
        e.set("padded-classes", padded);
        e.set("pad-columns", padded - c);
    }
    let detail = match (&found, n.labels, classes) {
        (None, _, _) if n.confidence_input.is_some() => Some(format!(
            "the non-maximum suppression stage ({stage}) reads confidence `{name}`, which no program stage returns"
        )),
        // A compiled stage names no input: a program without a [boxes, classes] output is not
        // known to feed it.
        (None, _, _) => None,
        (Some(_), Some(0), _) => Some(format!(
            "the non-maximum suppression stage ({stage}) holds no class labels"
        )),
        (Some(_), Some(l), Some(c)) if l != c => Some(format!(
            "the non-maximum suppression stage ({stage}) holds {l} class labels for the {c} classes of `{name}`"
        )),
        _ => None,
    };
    if let Some(d) = detail {
        e.set("input-detail", d);
    }
    let producer = f
        .def(&name)
        .and_then(|d| f.op(d.node))
        .filter(|_| found.is_some());
    e.function = Some(f.name.to_string());
    match producer {
        Some(op) => {
            e.op = Some(op.display_name().to_string());
            e.op_order = Some(op.order);
            e.span = Some(op.span);
        }
        None => e.span = Some(f.span),
    }
    Some(e)
}
