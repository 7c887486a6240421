//! The oldest OS a model runs on: the newest of what its `specificationVersion`, its functions'
//! opsets and its ops need (an op needs the opset it arrived in, `rules/opset/`). One fact per
//! model, at the first op (or function) that needs that OS; `target: { os-before: required }`
//! compares it with the run's deployment target.

use super::facts::{Fact, FactKind};
use super::opset::OpTable;
use crate::ir::{Function, Model, ModelKind};
use crate::os_level::{level_opset_name, level_text, opset_name_level, spec_version_level};

/// The fact kind, with its captures: `NEEDS` ("iOS 18 / macOS 15") and `REASON` ("opset CoreML8,
/// first op `scaled_dot_product_attention` `sdpa_0`").
pub const FACT_KINDS: &[FactKind] = &[FactKind::new("os-requirement", &["NEEDS", "REASON"])];

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
    let mut ops: Vec<(&crate::ir::Op, u32)> = f
        .ops()
        .filter_map(|(_, op)| {
            let since = table.first_opset(&op.op_type)?;
            Some((op, opset_name_level(since)?))
        })
        .collect();
    ops.sort_by_key(|(op, _)| op.order);
    let level = ops.iter().map(|(_, l)| *l).chain(declared).max()?;
    Some(Need {
        level,
        function: f,
        op: ops.into_iter().find(|(_, l)| *l == level),
    })
}

/// The OS level Core AI arrived in: every `.aimodel` needs iOS 27 / macOS 27 (COREAI.md).
const CORE_AI_LEVEL: u32 = 27;

/// The model's OS requirement, when it needs more than the oldest ML-program OS can tell.
pub fn os_requirement_facts(model: &Model) -> Vec<Fact> {
    if model.kind == ModelKind::AiModel {
        let mut fact = Fact::new("os-requirement").with(
            "REASON",
            "a Core AI asset: Core AI ships with iOS 27 / macOS 27".to_string(),
        );
        fact.requires_os = Some(CORE_AI_LEVEL);
        return vec![fact.with("NEEDS", level_text(CORE_AI_LEVEL))];
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
    let mut fact = Fact::new("os-requirement");
    let level = match (program, spec) {
        (Some(n), s) if s.is_none_or(|s| s <= n.level) => {
            fact.function = Some(n.function.name.clone());
            let opset = level_opset_name(n.level);
            let reason = match n.op {
                Some((op, _)) => {
                    fact.op = Some(op.display_name().to_string());
                    fact.op_order = Some(op.order);
                    fact.span = Some(op.span);
                    format!(
                        "opset {opset}, first op `{}` `{}`",
                        op.op_type,
                        op.display_name()
                    )
                }
                None => format!("opset {opset} of function `{}`", n.function.name),
            };
            fact = fact.with("REASON", reason);
            n.level
        }
        (_, Some(s)) => {
            let version = model.spec_version.unwrap_or_default();
            fact = fact.with("REASON", format!("specification version {version}"));
            s
        }
        (_, None) => return Vec::new(),
    };
    fact.requires_os = Some(level);
    vec![fact.with("NEEDS", level_text(level))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::facts::tests::assert_registered;

    fn facts(mil: &str, spec: Option<i64>) -> Vec<Fact> {
        let mut model = crate::rules::testing::snippet_model("t.mil", mil).expect("parses");
        model.spec_version = spec;
        let facts = os_requirement_facts(&model);
        assert_registered(&facts, FACT_KINDS);
        facts
    }

    #[test]
    fn first_op_that_needs_the_opset() {
        let f = facts(
            "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 4]> x, tensor<fp16, [1, 2]> p) {\n            tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];\n            tensor<fp16, [1, 4]> u = slice_update(begin = tensor<int32, [2]>([0, 0]), end = tensor<int32, [2]>([1, 2]), update = p, x = y)[name = string(\"u\")];\n        } -> (u);\n}\n",
            Some(9),
        );
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].requires_os, Some(18));
        assert_eq!(f[0].op.as_deref(), Some("u"));
        assert_eq!(f[0].captures["NEEDS"], "iOS 18 / macOS 15");
        assert_eq!(
            f[0].captures["REASON"],
            "opset CoreML8, first op `slice_update` `u`"
        );
    }

    #[test]
    fn opset_alone_and_spec_version() {
        let relu = "program(1.0)\n{\n    func main<ios17>(tensor<fp16, [1, 4]> x) {\n            tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];\n        } -> (y);\n}\n";
        let f = facts(relu, Some(8));
        assert_eq!(f[0].requires_os, Some(17));
        assert_eq!(f[0].captures["REASON"], "opset CoreML7 of function `main`");
        let f = facts(relu, Some(9));
        assert_eq!(f[0].requires_os, Some(18));
        assert_eq!(f[0].captures["REASON"], "specification version 9");
        assert_eq!(f[0].op, None);
    }
}
