//! The placement estimate of each op, for colouring pictures: the one place the pictures read
//! `report::placement`, so that a change of its per-op record is a change here only.

use rustc_hash::FxHashMap;

use crate::finding::Finding;
use crate::ir::{Function, NodeId};
use crate::report::placement::{place_function, Likely};
use crate::rules::placement::OpTable;

/// Where the estimate places an op (the `--placement` classes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Placement {
    /// Likely on the Neural Engine.
    Ane,
    /// Likely on the CPU.
    Cpu,
    /// At risk of leaving the Neural Engine (a finding says why).
    AtRisk,
    /// Not in the op table.
    Unknown,
}

impl Placement {
    /// The CSS class and legend word.
    pub fn class(self) -> &'static str {
        match self {
            Placement::Ane => "ane",
            Placement::Cpu => "cpu",
            Placement::AtRisk => "risk",
            Placement::Unknown => "unknown",
        }
    }
}

/// The estimate of every counted op of one function (ops the estimate does not count, such as
/// constants, are absent).
#[derive(Clone, Debug, Default)]
pub struct Placements(FxHashMap<NodeId, Placement>);

impl Placements {
    /// The op's class; `Unknown` for an op the estimate does not count.
    pub fn of(&self, id: NodeId) -> Placement {
        self.0.get(&id).copied().unwrap_or(Placement::Unknown)
    }

    /// Whether the estimate counts the op (constants and the like are not drawn in overviews).
    pub fn counts(&self, id: NodeId) -> bool {
        self.0.contains_key(&id)
    }

    /// Ops per class.
    pub fn totals(&self) -> super::Counts {
        let mut c = super::Counts::default();
        for &p in self.0.values() {
            c.add(p);
        }
        c
    }
}

/// The adapter: each counted op of `f` as `report::placement` estimates it, with the findings of
/// its model (`findings` may hold other functions' findings; they are skipped).
pub fn placements(f: &Function, findings: &[Finding]) -> Placements {
    let map = place_function(OpTable::builtin(), f, findings)
        .into_iter()
        .map(|(id, _, p)| {
            let class = match p.likely {
                Likely::Ane => Placement::Ane,
                Likely::Cpu => Placement::Cpu,
                Likely::AtRisk => Placement::AtRisk,
                Likely::Unknown => Placement::Unknown,
            };
            (id, class)
        })
        .collect();
    Placements(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::placement::estimate_function;
    use crate::rules::testing::snippet_model;

    #[test]
    fn per_op_classes_add_up_to_the_placement_table() {
        let mil = "program(1.3)\n{\n    func main<ios18>(tensor<fp16, [1, 64]> x) {\n            tensor<fp16, [1, 64]> r = relu(x = x)[name = string(\"r\")];\n            string d = const()[name = string(\"d\"), val = string(\"fp32\")];\n            tensor<fp32, [1, 64]> c = cast(dtype = d, x = r)[name = string(\"c\")];\n            tensor<fp16, [1, 64]> q = some_new_op(x = r)[name = string(\"q\")];\n        } -> (c, q);\n}\n";
        let m = snippet_model("m", mil).unwrap();
        let f = &m.program.functions[0];
        let flagged = Finding {
            function: Some("main".into()),
            op: Some("r".into()),
            ..Finding::bare("tensor-rank", "m")
        };
        for findings in [vec![], vec![flagged]] {
            let p = placements(f, &findings);
            let e = estimate_function(OpTable::builtin(), "m", f, &findings);
            let c = p.totals();
            assert_eq!(
                (c.ane, c.cpu, c.at_risk, c.unknown),
                (e.ane, e.cpu, e.at_risk, e.unknown)
            );
            let by_name = |n: &str| {
                let (id, _) = f.ops().find(|(_, o)| o.display_name() == n).unwrap();
                p.of(id)
            };
            assert_eq!(by_name("c"), Placement::Cpu);
            assert_eq!(by_name("q"), Placement::Unknown);
            let want = if findings.is_empty() {
                Placement::Ane
            } else {
                Placement::AtRisk
            };
            assert_eq!(by_name("r"), want);
            let (d, _) = f.ops().find(|(_, o)| o.display_name() == "d").unwrap();
            assert!(!p.counts(d), "a const is not counted");
        }
    }
}
