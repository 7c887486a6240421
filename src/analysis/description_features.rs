//! The model description's features as entities: each input, output and state as the description
//! (`ModelDescription`, a function's `FunctionDescription`, a compiled model's `metadata.json`)
//! gives it, beside the same feature in the program's function signature, and each input, state
//! and output of a described function that the description lacks, so that rules compare the two in
//! YAML (`has-shape: false` with `program-dynamic: false`; `rules/description-signature-mismatch.yaml`).
//! The comparisons that need a walk over the axes are facts here (`differing-axis`,
//! `unknown-axis`); which of them matter, for which role, and the words are the rules'.

use super::entity::{kind_named, prop, Entity, EntityKind, PropType};
use crate::ir::{
    FeatureDesc, FeatureKind, Flexibility, Function, FunctionDesc, Model, ModelKind, TensorType,
};

/// The entity kinds produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[EntityKind {
    name: "description-feature",
    doc: "an input, output or state as the model description gives it (`Model.description`, a \
          function's `FunctionDescription`, a compiled model's `metadata.json`), beside the same \
          feature in the signature of the program's function it describes; and each input, state \
          and output of a described function that the description lacks (`described: false`)",
    located_at: "the function's declaration (a state's or an input's, when the program declares it)",
    properties: &[
        prop("role", PropType::Text, "`input`, `output` or `state`"),
        prop("name", PropType::Text, "the feature's name, as callers pass it"),
        prop("described", PropType::Bool, "the description gives the feature (false: only the program's function has it)"),
        prop("type", PropType::Text, "the described type: `multi-array`, `state`, `image`, `int64`, `double`, `string`, or the protobuf type's name (`dictionaryType`)"),
        prop("dtype", PropType::Text, "the described element type (`fp16`, `fp32`, `fp64`, `int32`, `int8`), absent when none is valid"),
        prop("has-shape", PropType::Bool, "the description gives a shape: a default shape, shape ranges or enumerated shapes (arrays and states)"),
        prop("shape", PropType::Text, "the described default shape, e.g. `[1, 64]`, absent when none is given"),
        prop("rank", PropType::Int, "the number of dimensions of the described default shape (`0` when none is given)"),
        prop("flexible", PropType::Bool, "the description declares shape ranges or enumerated shapes"),
        prop("shape-ranges", PropType::Text, "the described ranges, e.g. `[1, 1...512]` (`...` unbounded), absent when none"),
        prop("enumerated-shapes", PropType::Text, "the described enumerated shapes, e.g. `[1, 64] | [1, 128]`, absent when none"),
        prop("flexible-rank", PropType::Int, "the number of dimensions of the described ranges (or of the first enumerated shape), absent when the description declares neither"),
        prop("described-shapes", PropType::Text, "the shapes the description allows, for messages: its ranges, else its enumerated shapes, else its default shape"),
        prop("optional", PropType::Bool, "callers may omit the feature"),
        prop("default", PropType::Text, "the value an omitted optional array input takes (`defaultOptionalValue`), absent when none"),
        prop("image-width", PropType::Int, "an image's described width"),
        prop("image-height", PropType::Int, "an image's described height"),
        prop("from-metadata", PropType::Bool, "the description is a compiled model's `metadata.json`"),
        prop("function-in-program", PropType::Bool, "the program has the function the description describes (false: a `FunctionDescription` names a function the program lacks)"),
        prop("classifier", PropType::Bool, "the description gives some output of the function a type that is no array, image or state (a classifier's label and probabilities)"),
        prop("in-program", PropType::Bool, "the program's function has a feature of this name and role"),
        prop("program-role", PropType::Text, "how the program's function declares a function input of this name: `input` or `state` (for described inputs and states; absent when it declares none)"),
        prop("described-role", PropType::Text, "for an input or state only the program has: the role the description gives the same name instead (`input` or `state`), absent when none"),
        prop("program-type", PropType::Text, "the program's type for it, e.g. `tensor<fp32, [1, 64]>`, absent when the program lacks it"),
        prop("program-dtype", PropType::Text, "the program's element type for it"),
        prop("program-shape", PropType::Text, "the program's shape for it, e.g. `[1, ?, 64]`"),
        prop("program-rank", PropType::Int, "the program's rank for it, absent when unknown"),
        prop("program-dynamic", PropType::Bool, "the program's shape for it has an unknown dimension (or rank)"),
        prop("program-width", PropType::Int, "the last dimension of the program's shape, when known and the rank is 3 or more (an image's width)"),
        prop("program-height", PropType::Int, "the dimension before it, on the same terms (an image's height)"),
        prop("differing-axis", PropType::Int, "when the described shape and the program's have the same rank: the first axis at which the program's size is known and the description allows another (it differs from the default shape's size, lies outside the range, or differs from some enumerated shape's size); absent when none"),
        prop("unknown-axis", PropType::Int, "on the same terms: the first axis the program leaves unknown (`?`) while the description allows one size only (the default shape without ranges, a range of one size, the same size in every enumerated shape); absent when none"),
    ],
}];

/// Every described feature of `model`, with the program's signature beside it, and the features
/// of a described function the description lacks. Text MIL and Core AI assets have no
/// description, a compiled model without `metadata.json` features neither: nothing.
pub fn description_feature_entities(model: &Model) -> Vec<Entity> {
    let desc = &model.description;
    let funcs = &model.program.functions;
    let from_metadata = match model.kind {
        ModelKind::MilText | ModelKind::AiModel => return Vec::new(),
        ModelKind::MlModelc => true,
        ModelKind::MlPackage | ModelKind::MlModel => false,
    };
    let top = &desc.top;
    if from_metadata && top.inputs.is_empty() && top.outputs.is_empty() && top.states.is_empty() {
        return Vec::new();
    }
    let described: Vec<(&FunctionDesc, Option<&Function>)> = if desc.functions.is_empty() {
        vec![(top, described_function(model))]
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
        let pair = Pairing {
            d,
            f,
            metadata: from_metadata,
            classifier: d.outputs.iter().any(|x| !is_tensor_feature(&x.kind)),
        };
        for role in [Role::Input, Role::Output, Role::State] {
            for fd in role.of(d) {
                out.push(pair.described(role, fd));
            }
        }
        if let Some(f) = f {
            out.extend(pair.program_only(f));
        }
    }
    out
}

/// The function a model-level (single-function) description describes: `main`, else the first.
pub(crate) fn described_function(model: &Model) -> Option<&Function> {
    let funcs = &model.program.functions;
    funcs.iter().find(|f| f.name == "main").or(funcs.first())
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

    fn of(self, d: &FunctionDesc) -> &[FeatureDesc] {
        match self {
            Role::Input => &d.inputs,
            Role::Output => &d.outputs,
            Role::State => &d.states,
        }
    }
}

/// Arrays, images and states are tensors in the program; other described types (a classifier's
/// label and probabilities) are not.
fn is_tensor_feature(k: &FeatureKind) -> bool {
    matches!(
        k,
        FeatureKind::Array { .. } | FeatureKind::State { .. } | FeatureKind::Image { .. }
    )
}

/// A description beside the program's function it describes (`None`: the program lacks it).
struct Pairing<'a> {
    d: &'a FunctionDesc,
    f: Option<&'a Function>,
    metadata: bool,
    classifier: bool,
}

impl Pairing<'_> {
    fn entity(&self, role: Role, name: &str, described: bool) -> Entity {
        let mut x = Entity::new(const { kind_named(ENTITY_KINDS, "description-feature") })
            .with("role", role.as_str())
            .with("name", name)
            .with("described", described)
            .with("from-metadata", self.metadata)
            .with("function-in-program", self.f.is_some());
        if role == Role::Output {
            x.set("classifier", self.classifier);
        }
        if let Some(f) = self.f {
            x.function = Some(f.name.to_string());
            x.span = Some(f.span);
        }
        x
    }

    /// A feature the description gives.
    fn described(&self, role: Role, fd: &FeatureDesc) -> Entity {
        let mut x = self
            .entity(role, &fd.name, true)
            .with("type", type_word(&fd.kind))
            .with("optional", fd.optional);
        describe_shape(&mut x, &fd.kind);
        let Some(f) = self.f else {
            x.set("in-program", false);
            return x;
        };
        if role != Role::Output {
            // How the program declares the name, in this role or the other.
            if let Some((_, i)) = f.inputs().find(|(_, i)| i.name.as_str() == fd.name) {
                let state = i.ty.is_state();
                x.set("program-role", if state { "state" } else { "input" });
                x.span = Some(i.span);
                if state {
                    x.state = Some(fd.name.clone());
                }
            }
        }
        let program = program_type(role, &fd.name, f);
        x.set("in-program", program.is_some());
        if let Some(t) = program {
            describe_program(&mut x, t);
            compare_shapes(&mut x, &fd.kind, t);
        }
        x
    }

    /// The inputs, states and outputs of `f` the description lacks.
    fn program_only(&self, f: &Function) -> Vec<Entity> {
        let d = self.d;
        let has = |role: Role, name: &str| role.of(d).iter().any(|x| x.name == name);
        let mut out = Vec::new();
        for (_, i) in f.inputs() {
            let Some(t) = i.ty.tensor() else { continue };
            let (role, other) = if i.ty.is_state() {
                (Role::State, Role::Input)
            } else {
                (Role::Input, Role::State)
            };
            if has(role, &i.name) {
                continue;
            }
            let mut x = self.entity(role, &i.name, false).with("in-program", true);
            if has(other, &i.name) {
                x.set("described-role", other.as_str());
            }
            x.span = Some(i.span);
            if role == Role::State {
                x.state = Some(i.name.to_string());
            }
            describe_program(&mut x, t);
            out.push(x);
        }
        for o in f.outputs() {
            let Some(t) = program_type(Role::Output, o, f) else {
                continue;
            };
            if !has(Role::Output, o) {
                let mut x = self.entity(Role::Output, o, false).with("in-program", true);
                describe_program(&mut x, t);
                out.push(x);
            }
        }
        out
    }
}

/// The program's tensor type for the feature.
fn program_type<'f>(role: Role, name: &str, f: &'f Function) -> Option<&'f TensorType> {
    match role {
        Role::Output => {
            let o = f.outputs().iter().find(|o| o.as_str() == name)?;
            f.value_type(o)?.tensor()
        }
        Role::Input | Role::State => f
            .inputs()
            .find(|(_, i)| i.name.as_str() == name && i.ty.is_state() == (role == Role::State))
            .and_then(|(_, i)| i.ty.tensor()),
    }
}

/// The `program-*` properties of the program's type `t`.
fn describe_program(x: &mut Entity, t: &TensorType) {
    x.set("program-type", t.to_string());
    x.set("program-dtype", t.dtype.text_name());
    x.set(
        "program-dynamic",
        t.shape
            .as_ref()
            .is_none_or(|s| s.iter().any(|d| d.known().is_none())),
    );
    if let Some(dims) = &t.shape {
        let texts: Vec<String> = dims.iter().map(ToString::to_string).collect();
        x.set("program-shape", format!("[{}]", texts.join(", ")));
        x.set("program-rank", dims.len());
        if let [.., h, w] = dims.as_slice() {
            if dims.len() >= 3 {
                if let Some(w) = w.known() {
                    x.set("program-width", w);
                }
                if let Some(h) = h.known() {
                    x.set("program-height", h);
                }
            }
        }
    }
}

/// `differing-axis` and `unknown-axis`: the described shape (with its ranges or enumerated shapes)
/// against the program's, axis by axis, when both give one and their ranks agree.
fn compare_shapes(x: &mut Entity, kind: &FeatureKind, t: &TensorType) {
    let (shape, flexible) = match kind {
        FeatureKind::Array {
            shape, flexible, ..
        } => (shape, flexible.as_ref()),
        FeatureKind::State { shape, .. } => (shape, None),
        _ => return,
    };
    let Some(dims) = &t.shape else { return };
    if shape.is_empty() && flexible.is_none() {
        return;
    }
    let rank = match flexible {
        Some(Flexibility::Ranges(r)) => r.len(),
        Some(Flexibility::Enumerated(e)) => e.first().map_or(shape.len(), Vec::len),
        None => shape.len(),
    };
    if rank != dims.len() || (!shape.is_empty() && shape.len() != dims.len()) {
        return;
    }
    let mut differing = None;
    let mut unknown = None;
    for (axis, d) in dims.iter().enumerate() {
        match d.known() {
            Some(n) => {
                let n = i64::try_from(n).unwrap_or(i64::MAX);
                let allowed = match flexible {
                    None => shape.get(axis) == Some(&n),
                    Some(Flexibility::Ranges(r)) => r.get(axis).is_some_and(|&(lo, hi)| {
                        i64::try_from(lo).is_ok_and(|lo| n >= lo) && (hi < 0 || n <= hi)
                    }),
                    Some(Flexibility::Enumerated(e)) => e.iter().all(|s| s.get(axis) == Some(&n)),
                };
                if !allowed && differing.is_none() {
                    differing = Some(axis);
                }
            }
            None => {
                let several = match flexible {
                    None => false,
                    Some(Flexibility::Ranges(r)) => r
                        .get(axis)
                        .is_some_and(|&(lo, hi)| i64::try_from(lo).ok() != Some(hi)),
                    Some(Flexibility::Enumerated(e)) => {
                        let mut sizes = e.iter().filter_map(|s| s.get(axis));
                        let first = sizes.next();
                        sizes.any(|s| Some(s) != first)
                    }
                };
                if !several && unknown.is_none() {
                    unknown = Some(axis);
                }
            }
        }
    }
    if let Some(a) = differing {
        x.set("differing-axis", a);
    }
    if let Some(a) = unknown {
        x.set("unknown-axis", a);
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
        x.set("described-shapes", dims_text(shape));
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
            let text = format!("[{}]", v.join(", "));
            x.set("flexible-rank", r.len());
            x.set("shape-ranges", text.as_str());
            x.set("described-shapes", text);
        }
        Some(Flexibility::Enumerated(e)) => {
            let v: Vec<String> = e.iter().map(|s| dims_text(s)).collect();
            if let Some(first) = e.first() {
                x.set("flexible-rank", first.len());
            }
            let text = v.join(" | ");
            x.set("enumerated-shapes", text.as_str());
            x.set("described-shapes", text);
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

    #[test]
    fn features_only_the_program_has_and_the_axis_walks() {
        let mut m = snippet_model("t.mlpackage", MIL).unwrap();
        m.kind = ModelKind::MlPackage;
        let mut d = ModelDesc::default();
        // `x` fixed at [1, 8] where the program has [1, ?]; `kv` described as an input.
        d.top.inputs = vec![array("x", &[1, 8], None), array("kv", &[2, 8], None)];
        d.top.outputs = vec![array("y", &[1, 9], None)];
        m.description = d;
        let all = description_feature_entities(&m);
        crate::analysis::entity::tests::assert_registered(&all, ENTITY_KINDS);
        let get = |role: &str, name: &str| {
            all.iter()
                .find(|e| {
                    text(e, "role").as_deref() == Some(role)
                        && text(e, "name").as_deref() == Some(name)
                })
                .unwrap_or_else(|| panic!("{role} {name}: {all:?}"))
        };
        let x = get("input", "x");
        assert_eq!(text(x, "unknown-axis").as_deref(), Some("1"));
        assert_eq!(text(x, "differing-axis"), None);
        assert_eq!(text(x, "described-shapes").as_deref(), Some("[1, 8]"));
        let kv = get("input", "kv");
        assert_eq!(text(kv, "in-program").as_deref(), Some("false"));
        assert_eq!(text(kv, "program-role").as_deref(), Some("state"));
        assert_eq!(kv.state.as_deref(), Some("kv"));
        // The program's state and output `z`, which the description lacks.
        let state = get("state", "kv");
        assert_eq!(text(state, "described").as_deref(), Some("false"));
        assert_eq!(text(state, "described-role").as_deref(), Some("input"));
        assert_eq!(
            text(state, "program-type").as_deref(),
            Some("tensor<fp16, [2, 8]>")
        );
        let z = get("output", "z");
        assert_eq!(text(z, "described").as_deref(), Some("false"));
        assert_eq!(text(z, "classifier").as_deref(), Some("false"));
        // `y`: [1, 9] described, [1, ?] in the program: an output's `?` is for the rule to judge.
        let y = get("output", "y");
        assert_eq!(text(y, "unknown-axis").as_deref(), Some("1"));
        assert_eq!(all.len(), 5, "{all:?}");
    }
}
