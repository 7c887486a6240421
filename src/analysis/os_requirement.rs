//! The model as a whole: the oldest OS it runs on — the newest of what its
//! `specificationVersion`, its functions' opsets and its ops need (an op needs the opset it
//! arrived in, `rules/opset/`) — and what its metadata says about the converter that wrote it.
//! One `model` entity per model, at the first op (or function) that needs that OS;
//! `target: { os-before: required }` compares the OS with the run's deployment target.

use rustc_hash::FxHashMap;

use super::entity::{kind_named, prop, Entity, EntityKind, PropType};
use super::opset::OpTable;
use crate::ir::{Function, Model, ModelKind};
use crate::os_level::{level_opset_name, level_text, opset_name_level, spec_version_level};

/// The entity kind produced here.
pub const ENTITY_KINDS: &[EntityKind] = &[EntityKind {
    name: "model",
    doc: "the model as a whole: the OS it needs and the converter its metadata names",
    located_at: "the first op (or function) that needs the model's OS, else the model",
    properties: &[
        prop("spec-version", PropType::Int, "`specificationVersion` (absent for text MIL)"),
        prop("needs", PropType::Text, "the oldest OS the model runs on, e.g. `iOS 18 / macOS 15`"),
        prop("needs-level", PropType::Int, "the same as an iOS version number, e.g. `18`"),
        prop(
            "reason",
            PropType::Text,
            "what needs that OS, e.g. `opset CoreML8, first op `scaled_dot_product_attention` `sdpa_0``",
        ),
        prop(
            "converter-version",
            PropType::Text,
            "the coremltools version the metadata names (`com.github.apple.coremltools.version`): the one that converted the model, not one that compressed it later",
        ),
        prop("converter-major", PropType::Int, "its first number (`9` of `9.0b1`)"),
        prop("converter-minor", PropType::Int, "its second number (`0` of `9.0b1`)"),
        prop("converter-patch", PropType::Int, "its third number, `0` when it has none"),
        prop(
            "converter-source",
            PropType::Text,
            "the framework it was converted from (`com.github.apple.coremltools.source`, e.g. `torch==2.7.0`)",
        ),
        prop(
            "source-dialect",
            PropType::Text,
            "the source's dialect (`com.github.apple.coremltools.source_dialect`, e.g. `TorchScript`)",
        ),
    ],
}];

/// What needs a level: the function, and the first op of it that does (if one does).
struct Need<'a> {
    level: u32,
    function: &'a Function,
    op: Option<(&'a crate::ir::Op, u32)>,
}

/// The newest level a function needs: its opset, or a newer op in it (an invalid program, which
/// `mil-op-too-new` reports), with the first op that needs it.
fn function_need<'a>(table: &OpTable, f: &'a Function) -> Option<Need<'a>> {
    let declared = opset_name_level(&f.opset);
    // Each op type's level, worked out at its first op; the highest level of an op and the
    // first op (in program order) at it.
    let mut levels: FxHashMap<&str, Option<u32>> = FxHashMap::default();
    let mut highest: Option<(u32, &crate::ir::Op)> = None;
    for (_, op) in f.ops() {
        let level = *levels
            .entry(op.op_type.as_str())
            .or_insert_with(|| opset_name_level(table.first_opset(&op.op_type)?));
        if let Some(l) = level {
            if highest.is_none_or(|(h, _)| l > h) {
                highest = Some((l, op));
            }
        }
    }
    let level = highest.map(|(l, _)| l).into_iter().chain(declared).max()?;
    Some(Need {
        level,
        function: f,
        op: highest.filter(|(l, _)| *l == level).map(|(l, op)| (op, l)),
    })
}

/// The OS level Core AI arrived in: every `.aimodel` needs iOS 27 / macOS 27 (COREAI.md).
const CORE_AI_LEVEL: u32 = 27;

/// The `model` entity of `model`.
pub fn model_entity(model: &Model) -> Entity {
    let mut e = Entity::new(const { kind_named(ENTITY_KINDS, "model") })
        .with_opt("spec-version", model.spec_version);
    let meta = |key: &str| {
        model
            .description
            .user_defined
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    if let Some(version) = meta(CONVERTER_VERSION_KEY) {
        let numbers = version_numbers(&version).unwrap_or_default();
        e = e
            .with("converter-version", version)
            .with_opt("converter-major", numbers.first().copied())
            .with_opt("converter-minor", numbers.get(1).copied())
            .with("converter-patch", numbers.get(2).copied().unwrap_or(0));
    }
    e = e
        .with_opt(
            "converter-source",
            meta("com.github.apple.coremltools.source"),
        )
        .with_opt(
            "source-dialect",
            meta("com.github.apple.coremltools.source_dialect"),
        );
    if let Some((level, reason)) = requirement(model, &mut e) {
        e.requires_os = Some(level);
        e = e
            .with("needs", level_text(level))
            .with("needs-level", level)
            .with("reason", reason);
    }
    e
}

/// The user-defined metadata entry naming the coremltools version that converted a model.
pub const CONVERTER_VERSION_KEY: &str = "com.github.apple.coremltools.version";

/// The numbers of a dotted version, each component's leading digits (`9.0b1` → 9, 0; `8.3.0` →
/// 8, 3, 0); `None` unless every component starts with a digit.
pub fn version_numbers(version: &str) -> Option<Vec<u64>> {
    let parts: Option<Vec<u64>> = version
        .trim()
        .split('.')
        .map(|part| {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect();
    parts.filter(|p| !p.is_empty())
}

/// The OS level the model needs and why, when it needs more than the oldest ML-program OS can
/// tell; places `e` at the op (or function) that needs it.
fn requirement(model: &Model, e: &mut Entity) -> Option<(u32, String)> {
    if model.kind == ModelKind::AiModel {
        return Some((
            CORE_AI_LEVEL,
            "a Core AI asset: Core AI ships with iOS 27 / macOS 27".to_string(),
        ));
    }
    let table = OpTable::builtin();
    let spec = model.spec_version.and_then(spec_version_level);
    let program = model
        .program
        .functions
        .iter()
        .filter_map(|f| function_need(table, f))
        .fold(None::<Need>, |best, n| match best {
            Some(b) if b.level >= n.level => Some(b),
            _ => Some(n),
        });
    match (program, spec) {
        (Some(n), s) if s.is_none_or(|s| s <= n.level) => {
            e.function = Some(n.function.name.clone());
            let opset = level_opset_name(n.level);
            let reason = match n.op {
                Some((op, _)) => {
                    e.op = Some(op.display_name().to_string());
                    e.op_order = Some(op.order);
                    e.span = Some(op.span);
                    format!(
                        "opset {opset}, first op `{}` `{}`",
                        op.op_type,
                        op.display_name()
                    )
                }
                None => format!("opset {opset} of function `{}`", n.function.name),
            };
            Some((n.level, reason))
        }
        (_, Some(s)) => {
            let version = model.spec_version.unwrap_or_default();
            Some((s, format!("specification version {version}")))
        }
        (_, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::entity::tests::assert_registered;
    use crate::analysis::entity::Prop;

    fn model(mil: &str, spec: Option<i64>) -> Entity {
        let mut model = crate::rules::testing::snippet_model("t.mil", mil).expect("parses");
        model.spec_version = spec;
        let e = model_entity(&model);
        assert_registered(std::slice::from_ref(&e), ENTITY_KINDS);
        e
    }

    fn text(e: &Entity, name: &str) -> String {
        e.get(name).map(ToString::to_string).unwrap_or_default()
    }

    /// The first op at the highest level is named, not a later one at the same level.
    #[test]
    fn first_op_that_needs_the_opset() {
        let e = model(
            "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 4]> x, tensor<fp16, [1, 2]> p) {\n            tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];\n            tensor<fp16, [1, 4]> u = slice_update(begin = tensor<int32, [2]>([0, 0]), end = tensor<int32, [2]>([1, 2]), update = p, x = y)[name = string(\"u\")];\n            tensor<fp16, [1, 4]> v = slice_update(begin = tensor<int32, [2]>([0, 0]), end = tensor<int32, [2]>([1, 2]), update = p, x = u)[name = string(\"v\")];\n        } -> (v);\n}\n",
            Some(9),
        );
        assert_eq!(e.requires_os, Some(18));
        assert_eq!(e.op.as_deref(), Some("u"));
        assert_eq!(text(&e, "needs"), "iOS 18 / macOS 15");
        assert_eq!(e.get("needs-level"), Some(&Prop::Int(18)));
        assert_eq!(
            text(&e, "reason"),
            "opset CoreML8, first op `slice_update` `u`"
        );
    }

    #[test]
    fn opset_alone_and_spec_version() {
        let relu = "program(1.0)\n{\n    func main<ios17>(tensor<fp16, [1, 4]> x) {\n            tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";
        let e = model(relu, Some(8));
        assert_eq!(e.requires_os, Some(17));
        assert_eq!(text(&e, "reason"), "opset CoreML7 of function `main`");
        let e = model(relu, Some(9));
        assert_eq!(e.requires_os, Some(18));
        assert_eq!(text(&e, "reason"), "specification version 9");
        assert_eq!(e.op, None);
        assert_eq!(e.get("spec-version"), Some(&Prop::Int(9)));
    }

    #[test]
    fn converter_version_from_the_metadata() {
        assert_eq!(version_numbers("9.0b1"), Some(vec![9, 0]));
        assert_eq!(version_numbers("8.3.0"), Some(vec![8, 3, 0]));
        assert_eq!(version_numbers("main"), None);
        let mut m = crate::rules::testing::snippet_model(
            "t.mil",
            "program(1.3)\n{\n    func main<ios15>(tensor<fp16, [1, 4]> x) {\n            tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n",
        )
        .expect("parses");
        m.description.user_defined = vec![
            ("com.github.apple.coremltools.version".into(), "9.0".into()),
            (
                "com.github.apple.coremltools.source".into(),
                "torch==2.7.0".into(),
            ),
        ];
        let e = model_entity(&m);
        assert_eq!(text(&e, "converter-version"), "9.0");
        assert_eq!(e.get("converter-major"), Some(&Prop::Int(9)));
        assert_eq!(e.get("converter-minor"), Some(&Prop::Int(0)));
        assert_eq!(e.get("converter-patch"), Some(&Prop::Int(0)));
        assert_eq!(text(&e, "converter-source"), "torch==2.7.0");
        assert_eq!(text(&e, "needs"), "iOS 15 / macOS 12");
    }
}
