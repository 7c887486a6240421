//! Text properties of values that messages print (`{V.axes}`, `{V.flexibility}`), computed here
//! from the value's type and the model description: a template only prints them.

use crate::ir::{FeatureKind, Flexibility, Model, TensorType};

/// `{V.axes}`: what it says.
pub const AXES_DOC: &str = "the shape with the Neural Engine's axis names: last W, then H, C, N (rank 5: N, D, C, H, W), e.g. [N=1, C=8, H=1, W=48000]";

/// `{V.flexibility}`: what it says.
pub const FLEXIBILITY_DOC: &str = "for a function input, the shapes the model description allows (ranges or enumerated shapes); else `unknown dimensions in the program` or, for a static value, `the one shape [1, 64]`";

/// The Neural Engine's names of the axes of a rank-`rank` tensor (the last is W; rank 5 is
/// N, D, C, H, W, the order of the ANE compiler's own message).
pub fn ane_axis_names(rank: usize) -> &'static [&'static str] {
    match rank {
        1 => &["W"],
        2 => &["H", "W"],
        3 => &["C", "H", "W"],
        4 => &["N", "C", "H", "W"],
        5 => &["N", "D", "C", "H", "W"],
        _ => &[],
    }
}

/// The shape of `t` with the Neural Engine's axis names (`[N=1, C=8, H=1, W=48000]`); the plain
/// shape for a rank the Neural Engine does not name; `None` for an unknown rank.
pub fn axes(t: &TensorType) -> Option<String> {
    let dims = t.shape.as_ref()?;
    let names = ane_axis_names(dims.len());
    if names.is_empty() {
        return Some(t.dims_text());
    }
    let parts: Vec<String> = names
        .iter()
        .zip(dims)
        .map(|(n, d)| format!("{n}={d}"))
        .collect();
    Some(format!("[{}]", parts.join(", ")))
}

/// What the model description allows for input `name` of function `function`: "sizes 1…64 on
/// axis 1", "3 enumerated shapes: [1, 8, 32], [1, 16, 32], [1, 32, 32]"; else what the program's
/// type `t` says: unknown dimensions, or the one shape it has.
pub fn flexibility(
    model: Option<&Model>,
    function: &str,
    name: &str,
    t: Option<&TensorType>,
) -> String {
    let flex = model
        .and_then(|m| m.description.for_function(function))
        .and_then(|d| d.inputs.iter().find(|i| i.name == name))
        .and_then(|i| match &i.kind {
            FeatureKind::Array { flexible, .. } => flexible.as_ref(),
            _ => None,
        });
    let shape = |s: &[i64]| {
        format!(
            "[{}]",
            s.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    match flex {
        Some(Flexibility::Ranges(r)) => {
            let parts: Vec<String> = r
                .iter()
                .enumerate()
                .filter(|(_, (lo, hi))| i64::try_from(*lo).ok() != Some(*hi))
                .map(|(axis, (lo, hi))| match *hi {
                    h if h < 0 => format!("sizes {lo} and up on axis {axis}"),
                    h => format!("sizes {lo}…{h} on axis {axis}"),
                })
                .collect();
            if parts.is_empty() {
                "a range of one size".to_string()
            } else {
                parts.join(", ")
            }
        }
        Some(Flexibility::Enumerated(e)) => format!(
            "{} enumerated shapes: {}",
            e.len(),
            e.iter().map(|s| shape(s)).collect::<Vec<_>>().join(", ")
        ),
        None => match t {
            Some(t) if !t.is_dynamic() => format!("the one shape {}", t.dims_text()),
            _ => "unknown dimensions in the program".to_string(),
        },
    }
}
