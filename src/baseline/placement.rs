//! The placement estimate as a baseline records it (each function's counted ops by where they are
//! likely to run) and compares it: an op likely on the ANE then and likely on the CPU or at risk
//! now is a `placement-regression` fact.

use super::file::FunctionPlacement;
use crate::analysis::entity::Entity;
use crate::analysis::placement_regression::{regression_fact, Moved};
use crate::finding::Finding;
use crate::ir::{Function, Op};

/// Where the estimate puts an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// Likely on the Neural Engine.
    Ane,
    /// Likely on the CPU.
    Cpu,
    /// An ANE op a rule reports (or whose function it reports).
    AtRisk,
    /// Not in the op table.
    Unknown,
}

impl Device {
    /// How a message names it.
    fn text(self) -> &'static str {
        match self {
            Device::Ane => "likely ANE",
            Device::Cpu => "likely CPU",
            Device::AtRisk => "at risk",
            Device::Unknown => "unknown",
        }
    }
}

/// One counted op's estimate.
#[derive(Clone, Debug)]
pub struct OpEstimate<'f> {
    /// The op.
    pub op: &'f Op,
    /// Where it is likely to run.
    pub device: Device,
    /// Why, as a person reads it.
    pub reason: String,
}

/// Every counted op of `f` with its estimate, in program order, given the findings of its model.
///
pub(crate) fn estimate<'f>(f: &'f Function, findings: &[Finding]) -> Vec<OpEstimate<'f>> {
    use crate::analysis::placement::{place_function, Likely, OpTable};
    let t = OpTable::builtin();
    let flags = crate::finding::placement_flags(t, &f.name, findings);
    place_function(t, f, &flags)
        .ops
        .into_iter()
        .filter_map(|placed| {
            let crate::ir::Node::Op(op) = f.node(placed.node)? else {
                return None;
            };
            let p = placed.placement;
            Some((op, p))
        })
        .map(|(op, p)| OpEstimate {
            op,
            device: match p.likely {
                Likely::Ane => Device::Ane,
                Likely::Cpu => Device::Cpu,
                Likely::AtRisk => Device::AtRisk,
                Likely::Unknown => Device::Unknown,
            },
            reason: p.reason.text(),
        })
        .collect()
}

/// The record of one function's estimate.
pub fn record(
    model: &str,
    sub_model: Option<String>,
    f: &Function,
    ops: &[OpEstimate<'_>],
) -> FunctionPlacement {
    let names = |d: Device| -> Vec<String> {
        ops.iter()
            .filter(|o| o.device == d)
            .map(|o| o.op.display_name().to_string())
            .collect()
    };
    let ane: Vec<&str> = ops
        .iter()
        .filter(|o| o.device == Device::Ane)
        .map(|o| o.op.display_name())
        .collect();
    let mut p = FunctionPlacement {
        model: model.to_string(),
        sub_model,
        function: f.name.to_string(),
        ane: Vec::new(),
        cpu: names(Device::Cpu),
        at_risk: names(Device::AtRisk),
        unknown: names(Device::Unknown),
        ane_ops: ane.len(),
        ane_digest: super::ane_digest::encode(ane.iter().copied()),
    };
    for list in [&mut p.cpu, &mut p.at_risk, &mut p.unknown] {
        list.sort();
    }
    p
}

/// How many ops of a function are likely on the ANE, out of how many counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Share {
    /// Likely on the ANE.
    pub ane: usize,
    /// Counted.
    pub ops: usize,
}

impl std::fmt::Display for Share {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let percent = (self.ane * 100).checked_div(self.ops).unwrap_or(0);
        write!(f, "{}/{} ops ({percent}%)", self.ane, self.ops)
    }
}

/// The ops of `f` whose estimate changed since `then`, one `placement-change` entity per (from,
/// to, reason) (at its first op in program order, naming the others), and the function's ANE
/// share then and now. `rules/placement-regression.yaml` says which changes are regressions.
pub fn regressions(
    f: &Function,
    then: &FunctionPlacement,
    now: &[OpEstimate<'_>],
) -> (Vec<Entity>, Share, Share) {
    // The ops off the ANE by name; the ANE ones by name (an older file) or fingerprint, last,
    // so that a fingerprint shared by chance never hides a named op.
    let named: rustc_hash::FxHashMap<&str, Device> = [
        (Device::Cpu, &then.cpu),
        (Device::AtRisk, &then.at_risk),
        (Device::Unknown, &then.unknown),
        (Device::Ane, &then.ane),
    ]
    .into_iter()
    .rev()
    .flat_map(|(d, list)| list.iter().map(move |n| (n.as_str(), d)))
    .collect();
    let prints = super::ane_digest::decode(&then.ane_digest).unwrap_or_default();
    let was = |name: &str| -> Option<Device> {
        named
            .get(name)
            .copied()
            .or_else(|| super::ane_digest::holds(&prints, name).then_some(Device::Ane))
    };
    let mut groups: Vec<(Device, Device, &str, Vec<&OpEstimate<'_>>)> = Vec::new();
    for o in now {
        let Some(from) = was(o.op.display_name()).filter(|d| *d != o.device) else {
            continue;
        };
        match groups
            .iter_mut()
            .find(|(f0, d, r, _)| *f0 == from && *d == o.device && *r == o.reason)
        {
            Some((_, _, _, ops)) => ops.push(o),
            None => groups.push((from, o.device, o.reason.as_str(), vec![o])),
        }
    }
    let facts = groups
        .iter()
        .filter_map(|(from, device, reason, ops)| {
            let (first, rest) = ops.split_first()?;
            let others: Vec<String> = rest
                .iter()
                .map(|o| format!("{} `{}`", o.op.op_type, o.op.display_name()))
                .collect();
            let moved = Moved {
                function: &f.name,
                op: first.op.display_name(),
                op_type: &first.op.op_type,
                order: first.op.order,
                from: from.text(),
                to: device.text(),
                reason,
            };
            Some(regression_fact(&moved, first.op.span, &others))
        })
        .collect();
    let before = Share {
        ane: then.ane_count(),
        ops: then.total(),
    };
    let after = Share {
        ane: now.iter().filter(|o| o.device == Device::Ane).count(),
        ops: now.len(),
    };
    (facts, before, after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::snippet_model;

    const FP16: &str = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {\n            tensor<fp16, [1, 64]> a = relu(x = x)[name = string(\"a\")];\n            tensor<fp16, [1, 64]> s = sigmoid(x = a)[name = string(\"s\")];\n            tensor<fp16, [1, 64]> t = tanh(x = s)[name = string(\"t\")];\n        } -> (t);\n}\n";

    #[test]
    fn an_op_that_moved_to_fp32_is_one_fact_with_the_shares_then_and_now() {
        let before = snippet_model("m", FP16).unwrap();
        let f = &before.program.functions[0];
        let then = record("m.mil", None, f, &estimate(f, &[]));
        assert_eq!(then.ane_ops, 3);
        assert!(["a", "s", "t"]
            .iter()
            .all(|n| super::super::ane_digest::holds(
                &super::super::ane_digest::decode(&then.ane_digest).unwrap(),
                n
            )));
        let fp32 = FP16.replace(
            "tensor<fp16, [1, 64]> s = sigmoid",
            "tensor<fp32, [1, 64]> s = sigmoid",
        );
        let after = snippet_model("m", &fp32).unwrap();
        let g = &after.program.functions[0];
        let (facts, then_share, now_share) = regressions(g, &then, &estimate(g, &[]));
        assert_eq!(facts.len(), 1, "{facts:?}");
        assert_eq!(facts[0].op.as_deref(), Some("s"));
        let text = |k: &str| facts[0].get(k).map(ToString::to_string).unwrap_or_default();
        assert_eq!(text("op-type"), "sigmoid");
        assert_eq!(text("from"), "likely ANE");
        assert_eq!(text("to"), "likely CPU");
        assert!(text("reason").contains("fp32"), "{facts:?}");
        assert_eq!(then_share.to_string(), "3/3 ops (100%)");
        assert_eq!(now_share.to_string(), "2/3 ops (66%)");
        // Nothing moved: no fact.
        assert!(regressions(f, &then, &estimate(f, &[])).0.is_empty());
    }
}
