//! Description facts (hazard H14): the functions the model description and the program name, and
//! states shared between functions.
//!
//! `description-function`: each function the program has, the description describes
//! (`FunctionDescription`) or `defaultFunctionName` names, with what each side says of it and the
//! description's model-level facts, for `rules/description-signature-mismatch-functions.yaml`
//! (`defaultFunctionName` names a function; a program with several functions has per-function
//! descriptions). The features of each described function are `description-feature` entities
//! (`description_features.rs`). A compiled model's `metadata.json` has no per-function form: it
//! has no `description-function` entities.
//!
//! `state-shape-mismatch`: functions that declare a state of the same name declare the same element
//! type and shape (they share one buffer). The reference is the default function when it declares
//! the state, else the first function by name; every other function that differs is reported.

use std::collections::BTreeMap;

use super::entity::{kind_named, prop, Entity, EntityKind, PropType};
use crate::ir::{Function, FunctionDesc, Model, ModelKind, TensorType};

/// The entity kinds produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[
    EntityKind {
        name: "description-function",
        doc: "a function the program has, the model description describes (`FunctionDescription`) \
              or `defaultFunctionName` names (`.mlpackage`, `.mlmodel`), beside the description's \
              model-level facts",
        located_at: "the function's declaration, else the program's first function",
        properties: &[
            prop("name", PropType::Text, "the function's name"),
            prop("in-program", PropType::Bool, "the program has the function"),
            prop("described", PropType::Bool, "the description describes it: its `FunctionDescription`, or (no per-function descriptions) the model-level description, which describes `main`, else the first function"),
            prop("default", PropType::Bool, "`defaultFunctionName` names it"),
            prop("first", PropType::Bool, "it is the program's first function (where the description's model-level facts are reported)"),
            prop("per-function", PropType::Bool, "the description lists per-function descriptions (`FunctionDescription`s)"),
            prop("default-function", PropType::Text, "the `defaultFunctionName`, absent when the description names none"),
            prop("top-level-features", PropType::Bool, "the description gives model-level inputs, outputs or states"),
            prop("program-functions", PropType::Int, "how many functions the program has"),
            prop("program-function-names", PropType::Text, "their names, e.g. `` `infer`, `prefill` ``"),
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
    let mut out = description_functions(model);
    out.extend(state_declarations(model));
    out
}

/// An entity of `kind` at `f` (at its state `state`'s declaration, when given).
fn at_function(kind: &'static EntityKind, f: &Function, state: Option<String>) -> Entity {
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

fn has_features(d: &FunctionDesc) -> bool {
    !(d.inputs.is_empty() && d.outputs.is_empty() && d.states.is_empty())
}

/// Every function the program has, the description describes or `defaultFunctionName` names, in
/// that order, each once.
fn description_functions(model: &Model) -> Vec<Entity> {
    if !matches!(model.kind, ModelKind::MlPackage | ModelKind::MlModel) {
        return Vec::new();
    }
    let d = &model.description;
    let funcs = &model.program.functions;
    let per_function = !d.functions.is_empty();
    let single = super::description_features::described_function(model).map(|f| &f.name);
    let names: Vec<String> = funcs.iter().map(|f| format!("`{}`", f.name)).collect();
    let mut seen: Vec<&str> = Vec::new();
    let candidates = funcs
        .iter()
        .map(|f| f.name.as_str())
        .chain(d.functions.iter().filter_map(|x| x.name.as_deref()))
        .chain(d.default_function.as_deref());
    let mut out = Vec::new();
    for name in candidates {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let f = funcs.iter().find(|f| f.name == name);
        let described = if per_function {
            d.functions.iter().any(|x| x.name.as_deref() == Some(name))
        } else {
            single.is_some_and(|s| s == name)
        };
        let mut x = match f {
            Some(f) => at_function(
                const { kind_named(ENTITY_KINDS, "description-function") },
                f,
                None,
            ),
            None => {
                let mut x = Entity::new(const { kind_named(ENTITY_KINDS, "description-function") });
                x.span = funcs.first().map(|f| f.span);
                x
            }
        };
        x = x
            .with("name", name)
            .with("in-program", f.is_some())
            .with("described", described)
            .with("default", d.default_function.as_deref() == Some(name))
            .with("first", funcs.first().is_some_and(|f| f.name == name))
            .with("per-function", per_function)
            .with_opt("default-function", d.default_function.as_deref())
            .with("top-level-features", has_features(&d.top))
            .with("program-functions", funcs.len())
            .with("program-function-names", names.join(", "));
        out.push(x);
    }
    out
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
                at_function(
                    const { kind_named(ENTITY_KINDS, "state-declaration") },
                    f,
                    Some(i.name.to_string()),
                )
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
    use crate::ir::ModelDesc;
    use crate::rules::testing::snippet_model;

    const TWO: &str = "program(1.3)\n{\n    func infer<ios18>(state<tensor<fp16, [2, 257, 32]>> kv) {\n            tensor<fp16, [2, 257, 32]> r = read_state(input = kv)[name = string(\"r\")];\n        } -> (r);\n    func prefill<ios18>(state<tensor<fp16, [2, 256, 32]>> kv) {\n            tensor<fp16, [2, 256, 32]> r = read_state(input = kv)[name = string(\"r\")];\n        } -> (r);\n}\n";

    fn package(mil: &str, desc: ModelDesc) -> Model {
        let mut m = snippet_model("t.mlpackage", mil).unwrap();
        m.kind = ModelKind::MlPackage;
        m.description = desc;
        m
    }

    fn entities(model: &Model) -> Vec<Entity> {
        let all = description_entities(model);
        crate::analysis::entity::tests::assert_registered(&all, ENTITY_KINDS);
        all
    }

    fn text(e: &Entity, p: &str) -> String {
        e.get(p).map(ToString::to_string).unwrap_or_default()
    }

    /// The state declarations whose type is not their reference's (`rules/state-shape-mismatch.yaml`).
    fn differing_states(model: &Model) -> Vec<Entity> {
        entities(model)
            .into_iter()
            .filter(|e| e.kind == "state-declaration" && e.get("type") != e.get("reference-type"))
            .collect()
    }

    #[test]
    fn each_function_either_side_names_once_with_the_description_facts() {
        let mut d = ModelDesc::default();
        for name in ["infer", "decode"] {
            d.functions.push(FunctionDesc {
                name: Some(name.into()),
                ..FunctionDesc::default()
            });
        }
        d.default_function = Some("decode".into());
        let all: Vec<Entity> = entities(&package(TWO, d))
            .into_iter()
            .filter(|e| e.kind == "description-function")
            .collect();
        let row = |e: &Entity| {
            ["name", "in-program", "described", "default", "first"].map(|p| text(e, p))
        };
        let rows: Vec<_> = all.iter().map(row).collect();
        assert_eq!(
            rows,
            vec![
                ["infer", "true", "true", "false", "true"],
                ["prefill", "true", "false", "false", "false"],
                ["decode", "false", "true", "true", "false"],
            ]
        );
        let decode = &all[2];
        assert_eq!(decode.function, None, "reported at the program");
        assert_eq!(text(decode, "per-function"), "true");
        assert_eq!(text(decode, "default-function"), "decode");
        assert_eq!(text(decode, "program-functions"), "2");
        assert_eq!(text(decode, "program-function-names"), "`infer`, `prefill`");
        assert_eq!(all[1].function.as_deref(), Some("prefill"));
    }

    #[test]
    fn single_function_form_describes_main_else_the_first_and_compiled_models_have_none() {
        let mut m = package(TWO, ModelDesc::default());
        let described: Vec<String> = entities(&m)
            .iter()
            .filter(|e| e.kind == "description-function")
            .map(|e| format!("{}={}", text(e, "name"), text(e, "described")))
            .collect();
        assert_eq!(described, ["infer=true", "prefill=false"]);
        m.kind = ModelKind::MlModelc;
        assert!(entities(&m)
            .iter()
            .all(|e| e.kind != "description-function"));
    }

    #[test]
    fn state_shape_mismatch_reference_is_the_default_function() {
        let d = ModelDesc {
            default_function: Some("prefill".into()),
            ..ModelDesc::default()
        };
        let mut m = package(TWO, d);
        m.kind = ModelKind::MilText;
        let facts = differing_states(&m);
        assert_eq!(facts.len(), 1, "{facts:?}");
        assert_eq!(facts[0].function.as_deref(), Some("infer"));
        m.description.default_function = Some("infer".into());
        let facts = differing_states(&m);
        assert_eq!(facts.len(), 1, "{facts:?}");
        assert_eq!(facts[0].function.as_deref(), Some("prefill"));
        assert_eq!(facts[0].state.as_deref(), Some("kv"));
    }
}
