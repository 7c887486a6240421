//! The model description's features as entities: each input, output and state as the description
//! (`ModelDescription`, a function's `FunctionDescription`, a compiled model's `metadata.json`)
//! gives it, beside the same feature in the program's function signature, so that a rule compares
//! the two in YAML (`has-shape: false` with `program-dynamic: false`).

use super::entity::{prop, Entity, EntityKind, PropType};
use crate::ir::{
    FeatureDesc, FeatureKind, Flexibility, Function, FunctionDesc, Model, ModelKind, TensorType,
};

/// The entity kinds produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[EntityKind {
    name: "description-feature",
    doc: "an input, output or state as the model description gives it (`Model.description`, a \
          function's `FunctionDescription`, a compiled model's `metadata.json`), beside the same \
          feature in the signature of the program's function it describes",
    located_at: "the function's declaration (a state's or an input's, when the program declares it)",
    properties: &[
        prop("role", PropType::Text, "`input`, `output` or `state`"),
        prop("name", PropType::Text, "the feature's name, as callers pass it"),
        prop("type", PropType::Text, "the described type: `multi-array`, `state`, `image`, `int64`, `double`, `string`, or the protobuf type's name (`dictionaryType`)"),
        prop("dtype", PropType::Text, "the described element type (`fp16`, `fp32`, `fp64`, `int32`, `int8`), absent when none is valid"),
        prop("has-shape", PropType::Bool, "the description gives a shape: a default shape, shape ranges or enumerated shapes (arrays and states)"),
        prop("shape", PropType::Text, "the described default shape, e.g. `[1, 64]`, absent when none is given"),
        prop("rank", PropType::Int, "the number of dimensions of the described default shape (`0` when none is given)"),
        prop("flexible", PropType::Bool, "the description declares shape ranges or enumerated shapes"),
        prop("shape-ranges", PropType::Text, "the described ranges, e.g. `[1, 1...512]` (`...` unbounded), absent when none"),
        prop("enumerated-shapes", PropType::Text, "the described enumerated shapes, e.g. `[1, 64] | [1, 128]`, absent when none"),
        prop("optional", PropType::Bool, "callers may omit the feature"),
        prop("default", PropType::Text, "the value an omitted optional array input takes (`defaultOptionalValue`), absent when none"),
        prop("image-width", PropType::Int, "an image's described width"),
        prop("image-height", PropType::Int, "an image's described height"),
        prop("from-metadata", PropType::Bool, "the description is a compiled model's `metadata.json`"),
        prop("in-program", PropType::Bool, "the program's function has a feature of this name and role"),
        prop("program-type", PropType::Text, "the program's type for it, e.g. `tensor<fp32, [1, 64]>`, absent when the program lacks it"),
        prop("program-dtype", PropType::Text, "the program's element type for it"),
        prop("program-shape", PropType::Text, "the program's shape for it, e.g. `[1, ?, 64]`"),
        prop("program-rank", PropType::Int, "the program's rank for it, absent when unknown"),
        prop("program-dynamic", PropType::Bool, "the program's shape for it has an unknown dimension (or rank)"),
    ],
}];

/// Every described feature of `model`, with the program's signature beside it. Text MIL and Core
/// AI assets have no description: nothing.
pub fn description_feature_entities(model: &Model) -> Vec<Entity> {
    let desc = &model.description;
    let funcs = &model.program.functions;
    let from_metadata = match model.kind {
        ModelKind::MilText | ModelKind::AiModel => return Vec::new(),
        ModelKind::MlModelc => true,
        ModelKind::MlPackage | ModelKind::MlModel => false,
    };
    let described: Vec<(&FunctionDesc, Option<&Function>)> = if desc.functions.is_empty() {
        let f = funcs.iter().find(|f| f.name == "main").or(funcs.first());
        vec![(&desc.top, f)]
    } else {
        desc.functions
            .iter()
            .map(|d| {
                (
                    d,
                    funcs
                        .iter()
                        .find(|f| Some(f.name.as_str()) == d.name.as_deref()),
                )
            })
            .collect()
    };
    let mut out = Vec::new();
    for (d, f) in described {
        let roles = [
            (Role::Input, &d.inputs),
            (Role::Output, &d.outputs),
            (Role::State, &d.states),
        ];
        for (role, features) in roles {
            for fd in features {
                out.push(feature_entity(role, fd, f, from_metadata));
            }
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Input,
    Output,
    State,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::Input => "input",
            Role::Output => "output",
            Role::State => "state",
        }
    }
}

fn feature_entity(role: Role, fd: &FeatureDesc, f: Option<&Function>, metadata: bool) -> Entity {
    let mut x = Entity::new("description-feature")
        .with("role", role.as_str())
        .with("name", fd.name.as_str())
        .with("type", type_word(&fd.kind))
        .with("optional", fd.optional)
        .with("from-metadata", metadata);
    describe_shape(&mut x, &fd.kind);
    let Some(f) = f else {
        x.set("in-program", false);
        return x;
    };
    x.function = Some(f.name.to_string());
    x.span = Some(f.span);
    let program = program_type(role, &fd.name, f);
    x.set("in-program", program.is_some());
    if let Some((t, span)) = program {
        if let Some(span) = span {
            x.span = Some(span);
        }
        if role == Role::State {
            x.state = Some(fd.name.clone());
        }
        x.set("program-type", t.to_string());
        x.set("program-dtype", t.dtype.text_name());
        x.set(
            "program-dynamic",
            t.shape
                .as_ref()
                .is_none_or(|s| s.iter().any(|d| d.known().is_none())),
        );
        if let Some(dims) = &t.shape {
            let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
            x.set("program-shape", format!("[{}]", dims.join(", ")));
            x.set("program-rank", dims.len());
        }
    }
    x
}

/// The program's tensor type for the feature, and where the program declares it (inputs and
/// states; outputs are reported at the function).
fn program_type<'f>(
    role: Role,
    name: &str,
    f: &'f Function,
) -> Option<(&'f TensorType, Option<crate::ir::Span>)> {
    match role {
        Role::Output => {
            let o = f.outputs().iter().find(|o| o.as_str() == name)?;
            Some((f.value_type(o)?.tensor()?, None))
        }
        Role::Input | Role::State => f
            .inputs()
            .find(|(_, i)| i.name.as_str() == name && i.ty.is_state() == (role == Role::State))
            .and_then(|(_, i)| Some((i.ty.tensor()?, Some(i.span)))),
    }
}

fn type_word(kind: &FeatureKind) -> String {
    match kind {
        FeatureKind::Array { .. } => "multi-array".into(),
        FeatureKind::State { .. } => "state".into(),
        FeatureKind::Image { .. } => "image".into(),
        FeatureKind::Int64 => "int64".into(),
        FeatureKind::Double => "double".into(),
        FeatureKind::String => "string".into(),
        FeatureKind::Other(name) => name.clone(),
    }
}

fn describe_shape(x: &mut Entity, kind: &FeatureKind) {
    let (dtype, shape, flexible) = match kind {
        FeatureKind::Array {
            dtype,
            shape,
            flexible,
            default,
        } => {
            if let Some(d) = default {
                x.set("default", d.as_str());
            }
            (dtype, shape, flexible.as_ref())
        }
        FeatureKind::State { dtype, shape } => (dtype, shape, None),
        FeatureKind::Image { width, height } => {
            x.set("image-width", *width);
            x.set("image-height", *height);
            return;
        }
        _ => return,
    };
    if let Some(d) = dtype {
        x.set("dtype", d.text_name());
    }
    x.set("has-shape", !shape.is_empty() || flexible.is_some());
    x.set("rank", shape.len());
    x.set("flexible", flexible.is_some());
    if !shape.is_empty() {
        x.set("shape", dims_text(shape));
    }
    match flexible {
        Some(Flexibility::Ranges(r)) => {
            let v: Vec<String> = r
                .iter()
                .map(|&(lo, hi)| match hi {
                    hi if hi < 0 => format!("{lo}..."),
                    hi if i64::try_from(lo).ok() == Some(hi) => lo.to_string(),
                    hi => format!("{lo}...{hi}"),
                })
                .collect();
            x.set("shape-ranges", format!("[{}]", v.join(", ")));
        }
        Some(Flexibility::Enumerated(e)) => {
            let v: Vec<String> = e.iter().map(|s| dims_text(s)).collect();
            x.set("enumerated-shapes", v.join(" | "));
        }
        None => {}
    }
}

fn dims_text(dims: &[i64]) -> String {
    let v: Vec<String> = dims.iter().map(ToString::to_string).collect();
    format!("[{}]", v.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DType, ModelDesc};
    use crate::rules::testing::snippet_model;

    const MIL: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, ?]> x, state<tensor<fp16, [2, 8]>> kv) {\n            tensor<fp16, [1, ?]> y = relu(x = x)[name = string(\"y\")];\n            tensor<fp16, [2, 8]> z = read_state(input = kv)[name = string(\"z\")];\n        } -> (y, z);\n}\n";

    fn array(name: &str, shape: &[i64], default: Option<&str>) -> FeatureDesc {
        FeatureDesc {
            name: name.into(),
            kind: FeatureKind::Array {
                dtype: Some(DType::Fp32),
                shape: shape.to_vec(),
                flexible: None,
                default: default.map(str::to_string),
            },
            optional: default.is_some(),
        }
    }

    fn features(kind: ModelKind) -> Vec<Entity> {
        let mut m = snippet_model("t.mlpackage", MIL).unwrap();
        m.kind = kind;
        let mut d = ModelDesc::default();
        d.top.inputs = vec![array("x", &[1, 8], Some("0"))];
        d.top.outputs = vec![
            array("y", &[1, 8], None),
            array("z", &[], None),
            array("w", &[1], None),
        ];
        d.top.states = vec![FeatureDesc {
            name: "kv".into(),
            kind: FeatureKind::State {
                dtype: Some(DType::Fp16),
                shape: vec![2, 8],
            },
            optional: false,
        }];
        m.description = d;
        let all = description_feature_entities(&m);
        crate::analysis::entity::tests::assert_registered(&all, ENTITY_KINDS);
        all
    }

    fn text(e: &Entity, p: &str) -> Option<String> {
        e.get(p).map(ToString::to_string)
    }

    #[test]
    fn each_described_feature_beside_the_program_signature() {
        let all = features(ModelKind::MlPackage);
        let got: Vec<_> = all
            .iter()
            .map(|e| (text(e, "role").unwrap(), text(e, "name").unwrap()))
            .collect();
        let want = [
            ("input", "x"),
            ("output", "y"),
            ("output", "z"),
            ("output", "w"),
            ("state", "kv"),
        ];
        assert_eq!(got, want.map(|(a, b)| (a.to_string(), b.to_string())));
        let x = &all[0];
        assert_eq!(text(x, "shape").as_deref(), Some("[1, 8]"));
        assert_eq!(text(x, "default").as_deref(), Some("0"));
        assert_eq!(
            text(x, "program-type").as_deref(),
            Some("tensor<fp16, [1, ?]>")
        );
        assert_eq!(text(x, "program-dynamic").as_deref(), Some("true"));
        let z = &all[2];
        assert_eq!(text(z, "has-shape").as_deref(), Some("false"));
        assert_eq!(text(z, "shape"), None);
        assert_eq!(text(z, "program-shape").as_deref(), Some("[2, 8]"));
        assert_eq!(text(z, "program-dynamic").as_deref(), Some("false"));
        assert_eq!(text(z, "from-metadata").as_deref(), Some("false"));
        let w = &all[3];
        assert_eq!(text(w, "in-program").as_deref(), Some("false"));
        assert_eq!(text(w, "program-type"), None);
        let kv = &all[4];
        assert_eq!(text(kv, "type").as_deref(), Some("state"));
        assert_eq!(kv.state.as_deref(), Some("kv"));
        assert_eq!(text(kv, "program-rank").as_deref(), Some("2"));
    }

    #[test]
    fn compiled_metadata_is_said_and_text_mil_has_no_description() {
        let all = features(ModelKind::MlModelc);
        assert!(all
            .iter()
            .all(|e| text(e, "from-metadata").as_deref() == Some("true")));
        assert!(features(ModelKind::MilText).is_empty());
    }
}
