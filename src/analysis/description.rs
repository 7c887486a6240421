//! Description facts (hazard H14): the model's own description of each function against the
//! function's MIL signature, and states shared between functions.
//!
//! `description-signature-mismatch`: every function's inputs, states and outputs (names, element
//! types, shapes, flexible ranges) agree with `ModelDescription` (single-function form) or with the
//! function's `FunctionDescription`; `defaultFunctionName` names a function; a program with several
//! functions has per-function descriptions. For `.mlmodelc`, `metadata.json` is the description; it
//! has no per-function form, so it must agree with the function it describes (`main`, the only
//! function, or, in a multifunction program, at least one of them). Models with no description at
//! all (bare text MIL, a `.mlmodelc` without `metadata.json`) are not checked.
//!
//! What Core ML accepts is not reported: image features (only their width and height are compared
//! with the MIL tensor), non-array features (`Int64`, `Double`, `String`, dictionaries: classifier
//! outputs), outputs described without a shape, flexible dimensions (`?` in MIL) covered by the
//! description's ranges or enumerated shapes, and a `?` output dimension.
//!
//! `state-shape-mismatch`: functions that declare a state of the same name declare the same element
//! type and shape (they share one buffer). The reference is the default function when it declares
//! the state, else the first function by name; every other function that differs is reported.

use std::collections::BTreeMap;

use super::entity::{prop, Entity, EntityKind, PropType};
use crate::ir::{
    DType, Dim, FeatureDesc, FeatureKind, Flexibility, Function, FunctionDesc, Model, ModelKind,
    Name, TensorType,
};

/// The entity kinds produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[
    EntityKind {
        name: "signature-difference",
        doc: "a way in which the model description (`Model.description`, a compiled model's \
              `metadata.json`) and the program's function signatures differ: a feature one side \
              lacks, a type or shape they disagree on, a default function that names nothing",
        located_at: "the function's declaration (a state's, for a state), else the first function",
        properties: &[
            prop("detail", PropType::Text, "what differs, in one sentence"),
            prop("from-metadata", PropType::Bool, "the description is a compiled model's `metadata.json`"),
        ],
    },
    EntityKind {
        name: "state-declaration",
        doc: "a state a function declares, beside the same state in the function that declares it first (the default function first, then by name)",
        located_at: "the state's declaration",
        properties: &[
            prop("name", PropType::Text, "the state's name"),
            prop("type", PropType::Text, "its declared type, e.g. `tensor<fp16, [1, 8, 256, 64]>`"),
            prop("reference-function", PropType::Text, "the function that declares it first"),
            prop("reference-type", PropType::Text, "the type that function declares"),
        ],
    },
];

/// Every description entity of `model`.
pub fn description_entities(model: &Model) -> Vec<Entity> {
    let mut out = signature_differences(model);
    out.extend(state_declarations(model));
    out
}

/// One disagreement found while comparing a function with a description.
#[derive(Clone, Debug, PartialEq)]
struct Mismatch {
    state: Option<String>,
    detail: String,
}

impl Mismatch {
    fn new(detail: String) -> Mismatch {
        Mismatch {
            state: None,
            detail,
        }
    }
}

/// An entity of `kind` at `f` (at its state `state`'s declaration, when given).
fn at_function(kind: &'static str, f: &Function, state: Option<String>) -> Entity {
    let span = state
        .as_ref()
        .and_then(|s| f.inputs().find(|(_, i)| &i.name == s))
        .map_or(f.span, |(_, i)| i.span);
    let mut x = Entity::new(kind);
    x.function = Some(f.name.clone());
    x.state = state;
    x.span = Some(span);
    x
}

fn difference(f: &Function, state: Option<String>, detail: String, metadata: bool) -> Entity {
    at_function("signature-difference", f, state)
        .with("detail", detail)
        .with("from-metadata", metadata)
}

fn model_difference(model: &Model, detail: String) -> Entity {
    let mut x = Entity::new("signature-difference")
        .with("detail", detail)
        .with("from-metadata", false);
    if let Some(f) = model.program.functions.first() {
        x.span = Some(f.span);
    }
    x
}

fn has_description(d: &FunctionDesc) -> bool {
    !(d.inputs.is_empty() && d.outputs.is_empty() && d.states.is_empty())
}

fn signature_differences(model: &Model) -> Vec<Entity> {
    let d = &model.description;
    let funcs = &model.program.functions;
    let mut out = Vec::new();
    match model.kind {
        ModelKind::MilText | ModelKind::AiModel => return out,
        ModelKind::MlModelc => {
            if !has_description(&d.top) || funcs.is_empty() {
                return out;
            }
            let candidates: Vec<&Function> = match funcs.iter().find(|f| f.name == "main") {
                Some(main) => vec![main],
                None => funcs.iter().collect(),
            };
            let mut best: Option<(&Function, Vec<Mismatch>)> = None;
            for f in candidates {
                let m = compare(f, &d.top);
                if best.as_ref().is_none_or(|(_, b)| m.len() < b.len()) {
                    best = Some((f, m));
                }
            }
            if let Some((f, ms)) = best {
                for m in ms {
                    let detail = format!("metadata.json: {}", m.detail);
                    out.push(difference(f, m.state, detail, true));
                }
            }
            return out;
        }
        ModelKind::MlPackage | ModelKind::MlModel => {}
    }
    if d.functions.is_empty() {
        if let Some(name) = &d.default_function {
            out.push(model_difference(
                model,
                format!("defaultFunctionName is `{name}` but the description lists no functions"),
            ));
        }
        if funcs.len() > 1 {
            let names: Vec<&str> = funcs.iter().map(|f| f.name.as_str()).collect();
            out.push(model_difference(
                model,
                format!(
                    "the program has {} functions ({}) but the description has no per-function \
                     descriptions",
                    funcs.len(),
                    names.join(", ")
                ),
            ));
            return out;
        }
        if let Some(f) = funcs.first() {
            for m in compare(f, &d.top) {
                out.push(difference(f, m.state, m.detail, false));
            }
        }
        return out;
    }
    match &d.default_function {
        None => out.push(model_difference(
            model,
            "the description lists functions but no defaultFunctionName".to_string(),
        )),
        Some(name) if !funcs.iter().any(|f| &f.name == name) => out.push(model_difference(
            model,
            format!("defaultFunctionName `{name}` names no function of the program"),
        )),
        Some(_) => {}
    }
    if has_description(&d.top) {
        out.push(model_difference(
            model,
            "the description has per-function descriptions and also model-level inputs, outputs \
             or states"
                .to_string(),
        ));
    }
    for fd in &d.functions {
        let name = fd.name.as_deref().unwrap_or("");
        if !funcs.iter().any(|f| f.name == name) {
            out.push(model_difference(
                model,
                format!("the description describes function `{name}`, which the program lacks"),
            ));
        }
    }
    for f in funcs {
        match d
            .functions
            .iter()
            .find(|x| x.name.as_deref() == Some(&f.name))
        {
            None => out.push(difference(
                f,
                None,
                format!("function `{}` has no FunctionDescription", f.name),
                false,
            )),
            Some(fd) => {
                for m in compare(f, fd) {
                    out.push(difference(f, m.state, m.detail, false));
                }
            }
        }
    }
    out
}

/// Every disagreement between `f`'s signature and `d`.
fn compare(f: &Function, d: &FunctionDesc) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut mil_inputs: BTreeMap<&str, &TensorType> = BTreeMap::new();
    let mut mil_states: BTreeMap<&str, &TensorType> = BTreeMap::new();
    for (_, i) in f.inputs() {
        let Some(t) = i.ty.tensor() else { continue };
        if i.ty.is_state() {
            mil_states.insert(&i.name, t);
        } else {
            mil_inputs.insert(&i.name, t);
        }
    }
    // Inputs.
    for fd in &d.inputs {
        match mil_inputs.get(fd.name.as_str()) {
            None if mil_states.contains_key(fd.name.as_str()) => out.push(Mismatch {
                state: Some(fd.name.clone()),
                detail: format!(
                    "`{}` is described as an input but is a state in the program",
                    fd.name
                ),
            }),
            None => out.push(Mismatch::new(format!(
                "described input `{}` is not an input of the program",
                fd.name
            ))),
            Some(t) => out.extend(
                compare_feature("input", fd, t, false)
                    .into_iter()
                    .map(Mismatch::new),
            ),
        }
    }
    for name in mil_inputs.keys() {
        if !d.inputs.iter().any(|x| x.name == *name) {
            out.push(Mismatch::new(format!(
                "program input `{name}` is not in the description"
            )));
        }
    }
    // States.
    for fd in &d.states {
        match mil_states.get(fd.name.as_str()) {
            None => out.push(Mismatch {
                state: Some(fd.name.clone()),
                detail: format!(
                    "described state `{}` is not a state of the program",
                    fd.name
                ),
            }),
            Some(t) => {
                for detail in compare_feature("state", fd, t, false) {
                    out.push(Mismatch {
                        state: Some(fd.name.clone()),
                        detail,
                    });
                }
            }
        }
    }
    for name in mil_states.keys() {
        if !d.states.iter().any(|x| x.name == *name) {
            out.push(Mismatch {
                state: Some(name.to_string()),
                detail: format!("program state `{name}` is not in the description"),
            });
        }
    }
    // Outputs.
    let outputs: Vec<&str> = f.outputs().iter().map(Name::as_str).collect();
    for fd in &d.outputs {
        if !is_tensor_feature(&fd.kind) {
            continue;
        }
        match outputs.iter().find(|o| **o == fd.name) {
            None => out.push(Mismatch::new(format!(
                "described output `{}` is not an output of the program",
                fd.name
            ))),
            Some(o) => {
                if let Some(t) = f.value_type(o).and_then(|t| t.tensor()) {
                    out.extend(
                        compare_feature("output", fd, t, true)
                            .into_iter()
                            .map(Mismatch::new),
                    );
                }
            }
        }
    }
    // A classifier describes its outputs as labels and probabilities; its MIL outputs differ.
    let classifier = d.outputs.iter().any(|x| !is_tensor_feature(&x.kind));
    if !classifier {
        for o in &outputs {
            if !d.outputs.iter().any(|x| x.name == *o) {
                out.push(Mismatch::new(format!(
                    "program output `{o}` is not in the description"
                )));
            }
        }
    }
    out
}

fn is_tensor_feature(k: &FeatureKind) -> bool {
    matches!(
        k,
        FeatureKind::Array { .. } | FeatureKind::State { .. } | FeatureKind::Image { .. }
    )
}

fn dims_text(dims: &[i64]) -> String {
    let v: Vec<String> = dims.iter().map(ToString::to_string).collect();
    format!("[{}]", v.join(", "))
}

fn mil_text(t: &TensorType) -> String {
    t.to_string()
}

/// Disagreements of one feature with its MIL tensor. `output`: a `?` MIL dim is accepted (output
/// shapes are often only known at run time).
fn compare_feature(role: &str, fd: &FeatureDesc, t: &TensorType, output: bool) -> Vec<String> {
    let mut out = Vec::new();
    let name = &fd.name;
    // Arrays and states compare alike; a state is never flexible and never an output.
    let array = match &fd.kind {
        FeatureKind::Array {
            dtype,
            shape,
            flexible,
            ..
        } => Some((dtype, shape, flexible.as_ref(), output)),
        FeatureKind::State { dtype, shape } => Some((dtype, shape, None, false)),
        _ => None,
    };
    if let Some((dtype, shape, flexible, output)) = array {
        if let Some(dt) = dtype {
            if *dt != t.dtype {
                out.push(format!(
                    "{role} `{name}` is {} in the description but {} in the program",
                    dt.text_name(),
                    mil_text(t)
                ));
            }
        }
        if let Some(detail) = shape_mismatch(shape, flexible, t, output) {
            out.push(format!("{role} `{name}`: {detail}"));
        }
        return out;
    }
    if let FeatureKind::Image { width, height } = &fd.kind {
        if !matches!(t.dtype, DType::Fp32 | DType::Fp16) {
            out.push(format!(
                "{role} `{name}` is an image in the description but {} in the program",
                mil_text(t)
            ));
        }
        if let Some(dims) = &t.shape {
            let hw = match dims.as_slice() {
                [.., h, w] if dims.len() >= 3 => Some((*h, *w)),
                _ => None,
            };
            let fits = |d: Dim, want: i64| match d {
                Dim::Known(n) => i64::try_from(n).ok() == Some(want) || want <= 0,
                Dim::Unknown => true,
            };
            match hw {
                Some((h, w)) if fits(h, *height) && fits(w, *width) => {}
                _ => out.push(format!(
                    "{role} `{name}` is a {width}×{height} image in the description but {} \
                     in the program",
                    mil_text(t)
                )),
            }
        }
    }
    out
}

/// Why a described shape (with its flexibility) does not fit the MIL tensor type, if it does not.
fn shape_mismatch(
    shape: &[i64],
    flexible: Option<&Flexibility>,
    t: &TensorType,
    output: bool,
) -> Option<String> {
    let dims = t.shape.as_ref()?;
    if shape.is_empty() && flexible.is_none() {
        // No shape described (common for outputs): nothing to compare.
        return None;
    }
    let desc_rank = match flexible {
        Some(Flexibility::Ranges(r)) => r.len(),
        Some(Flexibility::Enumerated(e)) => e.first().map_or(shape.len(), Vec::len),
        None => shape.len(),
    };
    let described = || match flexible {
        None => dims_text(shape),
        Some(Flexibility::Ranges(r)) => {
            let v: Vec<String> = r
                .iter()
                .map(|(lo, hi)| {
                    if i64::try_from(*lo).ok() == Some(*hi) {
                        lo.to_string()
                    } else if *hi < 0 {
                        format!("{lo}..")
                    } else {
                        format!("{lo}..{hi}")
                    }
                })
                .collect();
            format!("[{}]", v.join(", "))
        }
        Some(Flexibility::Enumerated(e)) => {
            let v: Vec<String> = e.iter().map(|s| dims_text(s)).collect();
            format!("one of {}", v.join(", "))
        }
    };
    let mil = || {
        let v: Vec<String> = dims.iter().map(ToString::to_string).collect();
        format!("[{}]", v.join(", "))
    };
    if desc_rank != dims.len() || (!shape.is_empty() && shape.len() != dims.len()) {
        return Some(format!(
            "shape {} in the description, {} in the program (rank differs)",
            described(),
            mil()
        ));
    }
    for (axis, d) in dims.iter().enumerate() {
        let ok = match (d, flexible) {
            (Dim::Unknown, _) if output => true,
            (Dim::Unknown, None) => false,
            (Dim::Unknown, Some(Flexibility::Ranges(r))) => r
                .get(axis)
                .is_some_and(|(lo, hi)| i64::try_from(*lo).ok() != Some(*hi)),
            (Dim::Unknown, Some(Flexibility::Enumerated(e))) => {
                let mut sizes = e.iter().filter_map(|s| s.get(axis));
                let first = sizes.next();
                sizes.any(|x| Some(x) != first)
            }
            (Dim::Known(n), None) => shape
                .get(axis)
                .is_some_and(|s| i64::try_from(*n).ok() == Some(*s)),
            (Dim::Known(n), Some(Flexibility::Ranges(r))) => {
                let n = i64::try_from(*n).unwrap_or(i64::MAX);
                r.get(axis).is_some_and(|(lo, hi)| {
                    i64::try_from(*lo).is_ok_and(|lo| n >= lo) && (*hi < 0 || n <= *hi)
                })
            }
            (Dim::Known(n), Some(Flexibility::Enumerated(e))) => {
                let n = i64::try_from(*n).unwrap_or(i64::MAX);
                e.iter().all(|s| s.get(axis) == Some(&n))
            }
        };
        if !ok {
            return Some(format!(
                "shape {} in the description, {} in the program (axis {axis})",
                described(),
                mil()
            ));
        }
    }
    None
}

/// Every state declaration of a multifunction program, each beside the first declaration of the
/// same state in the default function, then the others by name.
fn state_declarations(model: &Model) -> Vec<Entity> {
    let funcs = &model.program.functions;
    if funcs.len() < 2 {
        return Vec::new();
    }
    let mut order: Vec<&Function> = funcs.iter().collect();
    order.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(default) = &model.description.default_function {
        if let Some(pos) = order.iter().position(|f| &f.name == default) {
            let f = order.remove(pos);
            order.insert(0, f);
        }
    }
    // State name → (function that declares it first in `order`, its type).
    let mut reference: BTreeMap<&str, (&str, &TensorType)> = BTreeMap::new();
    let mut out = Vec::new();
    for f in order {
        for (_, i) in f.inputs() {
            if !i.ty.is_state() {
                continue;
            }
            let Some(t) = i.ty.tensor() else { continue };
            let (rf, rt) = *reference.entry(&i.name).or_insert((&f.name, t));
            out.push(
                at_function("state-declaration", f, Some(i.name.to_string()))
                    .with("name", i.name.to_string())
                    .with("type", t.to_string())
                    .with("reference-function", rf)
                    .with("reference-type", rt.to_string()),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FeatureDesc, ModelDesc};
    use crate::rules::testing::snippet_model;

    fn arr(name: &str, dtype: DType, shape: &[i64]) -> FeatureDesc {
        FeatureDesc {
            name: name.into(),
            kind: FeatureKind::Array {
                dtype: Some(dtype),
                shape: shape.to_vec(),
                flexible: None,
                default: None,
            },
            optional: false,
        }
    }

    fn state(name: &str, shape: &[i64]) -> FeatureDesc {
        FeatureDesc {
            name: name.into(),
            kind: FeatureKind::State {
                dtype: Some(DType::Fp16),
                shape: shape.to_vec(),
            },
            optional: false,
        }
    }

    const ONE: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, ?, 64]> x, state<tensor<fp16, [2, 257, 32]>> kv) {\n            tensor<fp16, [2, 257, 32]> r = read_state(input = kv)[name = string(\"r\")];\n        } -> (r);\n}\n";

    const TWO: &str = "program(1.3)\n{\n    func infer<ios18>(state<tensor<fp16, [2, 257, 32]>> kv) {\n            tensor<fp16, [2, 257, 32]> r = read_state(input = kv)[name = string(\"r\")];\n        } -> (r);\n    func prefill<ios18>(state<tensor<fp16, [2, 256, 32]>> kv) {\n            tensor<fp16, [2, 256, 32]> r = read_state(input = kv)[name = string(\"r\")];\n        } -> (r);\n}\n";

    fn package(mil: &str, desc: ModelDesc) -> Model {
        let mut m = snippet_model("t.mlpackage", mil).unwrap();
        m.kind = ModelKind::MlPackage;
        m.description = desc;
        m
    }

    /// What the two description rules report: every signature difference, and every state
    /// declaration whose type is not its reference's (`rules/state-shape-mismatch.yaml`).
    fn description_facts(model: &Model) -> Vec<Entity> {
        let all = description_entities(model);
        crate::analysis::entity::tests::assert_registered(&all, ENTITY_KINDS);
        all.into_iter()
            .filter(|e| {
                e.kind == "signature-difference" || e.get("type") != e.get("reference-type")
            })
            .collect()
    }

    fn details(facts: &[Entity]) -> Vec<String> {
        facts
            .iter()
            .map(|f| f.get("detail").map(ToString::to_string).unwrap_or_default())
            .collect()
    }

    fn flexible_x() -> FeatureDesc {
        FeatureDesc {
            name: "x".into(),
            kind: FeatureKind::Array {
                dtype: Some(DType::Fp16),
                shape: vec![1, 8, 64],
                flexible: Some(Flexibility::Ranges(vec![(1, 1), (1, 64), (64, 64)])),
                default: None,
            },
            optional: false,
        }
    }

    fn agreeing() -> ModelDesc {
        let mut d = ModelDesc::default();
        d.top.inputs = vec![flexible_x()];
        d.top.states = vec![state("kv", &[2, 257, 32])];
        d.top.outputs = vec![arr("r", DType::Fp16, &[2, 257, 32])];
        d
    }

    #[test]
    fn agreeing_description_with_a_flexible_range_gives_nothing() {
        assert_eq!(description_facts(&package(ONE, agreeing())), vec![]);
    }

    #[test]
    fn state_shape_edited_in_the_description_only() {
        let mut d = agreeing();
        d.top.states = vec![state("kv", &[2, 256, 32])];
        let facts = description_facts(&package(ONE, d));
        assert_eq!(facts.len(), 1, "{facts:?}");
        assert_eq!(facts[0].state.as_deref(), Some("kv"));
        assert_eq!(facts[0].function.as_deref(), Some("main"));
        assert!(details(&facts)[0].contains("axis 1"), "{facts:?}");
    }

    #[test]
    fn fixed_description_of_a_flexible_input_and_wrong_dtype() {
        let mut d = agreeing();
        d.top.inputs = vec![arr("x", DType::Fp32, &[1, 8, 64])];
        let facts = description_facts(&package(ONE, d));
        let det = details(&facts);
        assert_eq!(det.len(), 2, "{det:?}");
        assert!(det.iter().any(|x| x.contains("fp32")), "{det:?}");
        assert!(det.iter().any(|x| x.contains("axis 1")), "{det:?}");
    }

    #[test]
    fn missing_and_extra_features() {
        let mut d = agreeing();
        d.top.inputs.push(arr("y", DType::Fp16, &[1]));
        d.top.outputs = vec![];
        d.top.states = vec![];
        let det = details(&description_facts(&package(ONE, d)));
        assert_eq!(det.len(), 3, "{det:?}");
    }

    #[test]
    fn multifunction_needs_per_function_descriptions_and_a_default() {
        let facts = description_facts(&package(TWO, ModelDesc::default()));
        let det = details(&facts);
        assert!(det.iter().any(|x| x.contains("no per-function")), "{det:?}");
        let mut d = ModelDesc::default();
        for (name, rows) in [("infer", 257), ("prefill", 256)] {
            d.functions.push(FunctionDesc {
                name: Some(name.into()),
                states: vec![state("kv", &[2, rows, 32])],
                outputs: vec![arr("r", DType::Fp16, &[2, rows, 32])],
                ..FunctionDesc::default()
            });
        }
        d.default_function = Some("decode".into());
        let facts = description_facts(&package(TWO, d.clone()));
        let sig: Vec<_> = facts
            .iter()
            .filter(|f| f.kind == "signature-difference")
            .collect();
        assert_eq!(sig.len(), 1, "{facts:?}");
        assert!(details(&facts)[0].contains("`decode`"));
        d.default_function = Some("infer".into());
        let shape = description_facts(&package(TWO, d));
        let facts = shape;
        assert_eq!(facts.len(), 1, "{facts:?}");
        assert_eq!(facts[0].kind, "state-declaration");
        assert_eq!(facts[0].function.as_deref(), Some("prefill"));
        assert_eq!(facts[0].state.as_deref(), Some("kv"));
    }

    #[test]
    fn state_shape_mismatch_reference_is_the_default_function() {
        let d = ModelDesc {
            default_function: Some("prefill".into()),
            ..ModelDesc::default()
        };
        let mut m = package(TWO, d);
        m.kind = ModelKind::MilText;
        let facts = description_facts(&m);
        assert_eq!(facts.len(), 1, "{facts:?}");
        assert_eq!(facts[0].function.as_deref(), Some("infer"));
    }

    #[test]
    fn compiled_metadata_is_compared_and_text_mil_is_not() {
        let mut d = agreeing();
        d.top.states = vec![state("kv", &[2, 256, 32])];
        let mut m = package(ONE, d);
        m.kind = ModelKind::MlModelc;
        let det = details(&description_facts(&m));
        assert_eq!(det.len(), 1);
        assert!(det[0].starts_with("metadata.json: "));
        m.kind = ModelKind::MilText;
        assert!(description_facts(&m).is_empty());
        m.kind = ModelKind::MlModelc;
        m.description = ModelDesc::default();
        assert!(description_facts(&m).is_empty(), "no metadata.json");
    }

    #[test]
    fn image_inputs_and_classifier_outputs_are_accepted() {
        let mil = "program(1.0)\n{\n    func main<ios16>(tensor<fp32, [1, 3, 224, 224]> image) {\n            tensor<fp32, [1, 10]> p = relu(x = image)[name = string(\"p\")];\n        } -> (p);\n}\n";
        let mut d = ModelDesc::default();
        d.top.inputs = vec![FeatureDesc {
            name: "image".into(),
            kind: FeatureKind::Image {
                width: 224,
                height: 224,
            },
            optional: false,
        }];
        d.top.outputs = vec![FeatureDesc {
            name: "classLabel".into(),
            kind: FeatureKind::String,
            optional: false,
        }];
        assert_eq!(description_facts(&package(mil, d.clone())), vec![]);
        if let FeatureKind::Image { width, .. } = &mut d.top.inputs[0].kind {
            *width = 200;
        }
        assert_eq!(description_facts(&package(mil, d)).len(), 1);
    }
}
