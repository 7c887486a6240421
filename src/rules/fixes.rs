//! Fix primitives a rule may name in `fix:`. The graph rewrites themselves live in `crate::fix`;
//! this registry says which names exist, their default title and applicability, and which capture
//! kind the rewrite needs from the match.

use super::vars::VarKind;
use crate::analysis::affine_uint8::plan_affine_uint8;
use crate::analysis::fix_plan::PadPlan;
use crate::analysis::gather_cast::plan_cast_gather_indices;
use crate::analysis::inline_weights::plan_move_inline;
use crate::analysis::mask_sentinel::plan_mask_sentinel;
use crate::analysis::pow_rewrite::plan_pow_base_two;
use crate::analysis::stable_exp_log::plan_stable_exp_log;
use crate::analysis::FunctionAnalysis;
use crate::finding::Applicability;
use crate::ir::{Function, Model, ModelKind, NodeId};

/// A fix primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixKind {
    /// Name used in `fix:`.
    pub name: &'static str,
    /// Title when the rule gives none.
    pub default_title: &'static str,
    /// Applicability when the rule gives none.
    pub default_applicability: Applicability,
    /// The match must bind a capture of one of these kinds (the rewrite's target).
    pub needs: &'static [VarKind],
}

/// The state fix: remove full-window wrappers, pad the state one row (`crate::fix::plan`).
pub const PAD_STATE: &str = "pad-state";

/// The exact rewrite of the matched `pow(x = 2, y)` into `exp(mul(y, ln 2))`
/// (`crate::analysis::pow_rewrite`).
pub const REWRITE_POW_BASE_TWO: &str = "rewrite-pow-base-two";

/// The `cast(dtype = "int32")` of float gather indices, shared by the gathers that read them
/// (`crate::analysis::gather_cast`).
pub const CAST_GATHER_INDICES: &str = "cast-gather-indices";

/// The uint8 re-encoding of signed-int8 affine weights (`crate::analysis::affine_uint8`).
pub const AFFINE_INT8_TO_UINT8: &str = "affine-int8-to-uint8";

/// Finite sentinels for the non-finite values of a mask constant
/// (`crate::analysis::mask_sentinel`).
pub const MASK_FINITE_SENTINELS: &str = "mask-finite-sentinels";

/// The exact shifted forms of fp16 softplus, logsumexp and log_softmax
/// (`crate::analysis::stable_exp_log`).
pub const REWRITE_STABLE_EXP_LOG: &str = "rewrite-stable-exp-log";
/// Each large inline tensor of an `.mlpackage` moved into `weights/weight.bin`
/// (`crate::analysis::inline_weights`); an entity fix (`kind: inline-weights`).
pub const MOVE_INLINE_WEIGHTS: &str = "move-inline-weights";

/// Every fix primitive.
pub const FIX_KINDS: &[FixKind] = &[
    FixKind {
        name: PAD_STATE,
        default_title: "allocate the state one row deeper on its position axis and keep the window",
        default_applicability: Applicability::Safe,
        needs: &[VarKind::State, VarKind::Write],
    },
    FixKind {
        name: REWRITE_POW_BASE_TWO,
        default_title: "rewrite the pow as exp(mul(y, ln 2))",
        default_applicability: Applicability::Safe,
        needs: &[VarKind::Value],
    },
    FixKind {
        name: REWRITE_STABLE_EXP_LOG,
        default_title: "rewrite the op into its max-shifted stable form (results change only by rounding where the original was finite)",
        default_applicability: Applicability::Safe,
        needs: &[VarKind::Value],
    },
    FixKind {
        name: CAST_GATHER_INDICES,
        default_title: "cast the indices to int32 before the gathers that read them",
        default_applicability: Applicability::Safe,
        needs: &[VarKind::Value],
    },
    FixKind {
        name: AFFINE_INT8_TO_UINT8,
        default_title: "re-encode the int8 affine weights as uint8 (data and zero point + 128)",
        default_applicability: Applicability::Safe,
        needs: &[VarKind::Value],
    },
    FixKind {
        name: MASK_FINITE_SENTINELS,
        default_title: "replace the non-finite values with finite sentinels (unsafe: a fully masked row changes from NaN)",
        default_applicability: Applicability::Unsafe,
        needs: &[VarKind::Value],
    },
    FixKind {
        name: MOVE_INLINE_WEIGHTS,
        default_title: "move the inline tensors into weights/weight.bin (the same bytes)",
        default_applicability: Applicability::Safe,
        needs: &[],
    },
];

/// The plan of the entity fix `kind` on `model` (`None` when `kind` is not an entity fix; `Err`
/// says why the fix is not offered).
pub(crate) fn plan_entity_fix(kind: &str, model: &Model) -> Option<Result<PadPlan, String>> {
    match kind {
        MOVE_INLINE_WEIGHTS => Some(plan_move_inline(model)),
        _ => None,
    }
}

/// The plan of the op fix `kind` on the matched op at `node` (`None` when `kind` is not an op
/// fix; `Err` says why the fix is not offered).
pub(crate) fn plan_op_fix(
    kind: &str,
    model: &Model,
    f: &Function,
    analysis: &FunctionAnalysis,
    node: NodeId,
) -> Option<Result<PadPlan, String>> {
    let known = [
        REWRITE_POW_BASE_TWO,
        CAST_GATHER_INDICES,
        AFFINE_INT8_TO_UINT8,
        MASK_FINITE_SENTINELS,
        REWRITE_STABLE_EXP_LOG,
    ];
    if known.contains(&kind) && model.kind == ModelKind::AiModel {
        return Some(Err("the fixer does not edit Core AI programs".into()));
    }
    Some(match kind {
        REWRITE_POW_BASE_TWO => plan_pow_base_two(f, &analysis.consts, node),
        CAST_GATHER_INDICES => plan_cast_gather_indices(f, &analysis.consts, node),
        AFFINE_INT8_TO_UINT8 => plan_affine_uint8(model, f, node),
        MASK_FINITE_SENTINELS => plan_mask_sentinel(model, f, node),
        REWRITE_STABLE_EXP_LOG => plan_stable_exp_log(f, &analysis.consts, node),
        _ => return None,
    })
}

/// The names of every fix primitive, for messages.
pub fn fix_kind_names() -> String {
    FIX_KINDS
        .iter()
        .map(|k| k.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fix primitive called `name`.
pub fn fix_kind(name: &str) -> Option<&'static FixKind> {
    FIX_KINDS.iter().find(|k| k.name == name)
}
