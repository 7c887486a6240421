//! Regions of `origin:` rules. The nodes of a function that match the rule's property are joined
//! wherever one feeds another; each connected region is one cause, reported once at its origin (a
//! member none of whose producers is a member: the first function input, else the first op in
//! program order). The finding counts the other members and shows the region's boundary.

use std::collections::HashMap;

use crate::ir::{Function, Node, NodeId, ValueType};

/// One connected region of nodes that have a rule's property.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// Where the finding is reported: the first origin.
    pub origin: NodeId,
    /// The other members with no producer in the region (other entries), in report order.
    pub other_origins: Vec<NodeId>,
    /// Every member but `origin`, in report order.
    pub members: Vec<NodeId>,
    /// Ops outside the region that read a member's value, in program order.
    pub exits: Vec<NodeId>,
    /// Ops of the function that are not constants (`const`, `constexpr_*`).
    pub function_ops: usize,
    /// `region: construct`: the origins of the other regions built the same way, in report order
    /// (their nodes are in `other_origins` and `members` too).
    pub repeats: Vec<NodeId>,
    /// How many of `members` belong to the first region (the rest are its repeats').
    pub own_members: usize,
}

/// The regions formed by `matched`, which must be in report order (function inputs in declaration
/// order, then ops in program order). Each matched node is in exactly one region.
pub fn regions(f: &Function, matched: &[NodeId]) -> Vec<Region> {
    let index: HashMap<NodeId, usize> = matched.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut parent: Vec<usize> = (0..matched.len()).collect();
    let mut is_origin = vec![true; matched.len()];
    for (i, &n) in matched.iter().enumerate() {
        for (p, _) in f.producers(n) {
            if let Some(&j) = index.get(&p) {
                if j != i {
                    is_origin[i] = false;
                    let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
    }
    // Group members by root, keeping report order inside each group.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for i in 0..matched.len() {
        let r = root(&mut parent, i);
        let g = *group_of.entry(r).or_insert_with(|| {
            groups.push((r, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    let function_ops = f
        .ops()
        .filter(|(_, op)| op.op_type != "const" && !op.op_type.starts_with("constexpr_"))
        .count();
    groups
        .into_iter()
        .map(|(_, members)| {
            // A region without an origin (only inside a loop's cycle) is reported at its first node.
            let first = members
                .iter()
                .copied()
                .find(|&i| is_origin[i])
                .unwrap_or(members[0]);
            let in_region: std::collections::HashSet<NodeId> =
                members.iter().map(|&i| matched[i]).collect();
            let mut exits: Vec<NodeId> = Vec::new();
            for &i in &members {
                for (c, _) in f.consumers(matched[i]) {
                    if !in_region.contains(&c) && !exits.contains(&c) {
                        exits.push(c);
                    }
                }
            }
            exits.sort_by_key(|&n| f.op(n).map_or(u32::MAX, |o| o.order));
            let own: Vec<NodeId> = members
                .iter()
                .filter(|&&i| i != first)
                .map(|&i| matched[i])
                .collect();
            Region {
                origin: matched[first],
                other_origins: members
                    .iter()
                    .filter(|&&i| i != first && is_origin[i])
                    .map(|&i| matched[i])
                    .collect(),
                own_members: own.len(),
                members: own,
                exits,
                function_ops,
                repeats: Vec::new(),
            }
        })
        .collect()
}

/// The regions of a function as one (`region: function`): reported at the first region's origin,
/// the other regions' origins its other origins; every member and exit, in report order.
pub fn merged(regions: Vec<Region>) -> Vec<Region> {
    let mut parts = regions.into_iter();
    let Some(mut one) = parts.next() else {
        return Vec::new();
    };
    for r in parts {
        one.absorb(r);
    }
    one.own_members = one.members.len();
    vec![one]
}

/// The regions of a function built the same way as one (`region: construct`): a module repeated
/// per layer is one cause. Regions match when their nodes, in report order, have the same op types
/// and output ranks. Each group is reported at its first region's origin. A region starting at a
/// function input (or state) stays apart: each is a declaration the user changes by name.
pub fn by_construct(f: &Function, regions: Vec<Region>) -> Vec<Region> {
    let mut groups: Vec<(Construct, Region)> = Vec::new();
    for r in regions {
        let shape = construct_of(f, &r);
        let at_input = matches!(f.node(r.origin), Some(Node::Input(_)));
        match groups.iter_mut().find(|(s, _)| !at_input && *s == shape) {
            Some((_, first)) => {
                first.repeats.push(r.origin);
                first.absorb(r);
            }
            None => groups.push((shape, r)),
        }
    }
    groups.into_iter().map(|(_, r)| r).collect()
}

/// How a region is built: the op type (`input` for a function input) and output rank of each of
/// its nodes, in report order.
type Construct = Vec<(String, Option<usize>)>;

/// The [`Construct`] of a region.
fn construct_of(f: &Function, r: &Region) -> Construct {
    std::iter::once(&r.origin)
        .chain(&r.members)
        .map(|&n| match f.node(n) {
            Some(Node::Op(op)) => (
                op.op_type.to_string(),
                op.outputs.first().and_then(|o| rank_of(&o.ty)),
            ),
            Some(Node::Input(i)) => ("input".to_string(), rank_of(&i.ty)),
            None => (String::new(), None),
        })
        .collect()
}

fn rank_of(ty: &ValueType) -> Option<usize> {
    ty.tensor().and_then(|t| t.rank())
}

impl Region {
    /// Takes another region's nodes and exits into this one, after this one's own.
    fn absorb(&mut self, r: Region) {
        self.other_origins.push(r.origin);
        self.other_origins.extend(r.other_origins);
        self.members.push(r.origin);
        self.members.extend(r.members);
        for e in r.exits {
            if !self.exits.contains(&e) {
                self.exits.push(e);
            }
        }
    }
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The name a node is shown by: the op's name, or the input's.
pub fn node_name(f: &Function, n: NodeId) -> Option<String> {
    match f.node(n)? {
        Node::Op(op) => Some(op.display_name().to_string()),
        Node::Input(i) => Some(i.name.to_string()),
    }
}

impl Region {
    /// Names of the other members, in report order.
    pub fn member_names(&self, f: &Function) -> Vec<String> {
        self.members
            .iter()
            .filter_map(|&n| node_name(f, n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::registry::ModelEntities;
    use crate::finding::Severity;
    use crate::rules::testing::snippet_model;
    use crate::rules::{load_rule_text, match_model, RuleSet};

    fn rule(yaml: &str) -> Result<RuleSet, String> {
        load_rule_text("t.yaml", yaml, None, false)
            .map(|r| RuleSet::from_rules(vec![r]).expect("one rule"))
            .map_err(|e| format!("{:?}", miette::Report::new(e)))
    }

    /// Two fp32 islands; the first is entered through two casts.
    const ISLANDS: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 64]> a, tensor<fp16, [1, 64]> b) {
            string d32 = const()[name = string("d32"), val = string("fp32")];
            string d16 = const()[name = string("d16"), val = string("fp16")];
            tensor<fp32, [1, 64]> a32 = cast(dtype = d32, x = a)[name = string("up_a")];
            tensor<fp32, [1, 64]> b32 = cast(dtype = d32, x = b)[name = string("up_b")];
            tensor<fp32, [1, 64]> s = add(x = a32, y = b32)[name = string("sum")];
            tensor<fp32, [1, 64]> e = exp(x = s)[name = string("e")];
            tensor<fp16, [1, 64]> h = cast(dtype = d16, x = e)[name = string("down")];
            tensor<fp16, [1, 64]> g = relu(x = h)[name = string("g")];
            tensor<fp32, [1, 64]> g32 = cast(dtype = d32, x = g)[name = string("up2")];
            tensor<fp16, [1, 64]> y = cast(dtype = d16, x = g32)[name = string("down2")];
        } -> (y);
}"#;

    const FP32_RULE: &str = r#"
id: fp32-region
title: fp32 regions
severity: warning
match:
  origin:
    output: { dtype: fp32, capture: $Y }
    not: { op: const }
message: "{OP} {REGION} {REGION.count} [{REGION.ops}] [{REGION.exits}] {REGION.origins} / {REGION.share}"
"#;

    #[test]
    fn one_finding_per_connected_region_at_its_first_origin() {
        let rules = rule(FP32_RULE).expect("loads");
        let model = snippet_model("t.mil", ISLANDS).expect("parses");
        let findings = match_model(&model, &rules, &ModelEntities::default());
        let got: Vec<(&str, &str)> = findings
            .iter()
            .map(|f| (f.op.as_deref().unwrap_or("-"), f.message.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "up_a",
                    "up_a 3 3 [`up_b` (cast), `sum` (add), `e` (exp)] [`down` (cast)] 2 / 4 of the 8 ops of `main`"
                ),
                ("up2", "up2 0 0 [none] [`down2` (cast)] 1 / 1 of the 8 ops of `main`"),
            ]
        );
        let first = &findings[0];
        let covered = first
            .covered
            .as_ref()
            .expect("an origin finding covers its region");
        assert_eq!(covered.names, ["up_b", "sum", "e"]);
        assert_eq!(first.ops_covered(), 4);
        let labels: Vec<&str> = first.labels.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            labels,
            ["the region also starts here", "the region ends here"]
        );
    }

    #[test]
    fn severity_is_the_highest_in_the_region() {
        let rules = rule(
            r#"
id: deep
title: deep
severity: warning
match:
  origin:
    any:
      - input: { rank: { min: 5 } }
      - output: { rank: { min: 5 } }
        not: { op: const }
severity-when:
  - severity: error
    match: { output: { rank: { min: 6 } } }
message: "{REGION.count} downstream"
"#,
        )
        .expect("loads");
        let mil = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [1, 2, 4, 8, 8]> x) {
            tensor<int32, [6]> s6 = const()[name = string("s6"), val = tensor<int32, [6]>([1, 2, 4, 8, 4, 2])];
            tensor<fp16, [1, 2, 4, 8, 4, 2]> y = reshape(shape = s6, x = x)[name = string("y")];
        } -> (y);
}"#;
        let model = snippet_model("t.mil", mil).expect("parses");
        let findings = match_model(&model, &rules, &ModelEntities::default());
        let [f] = findings.as_slice() else {
            panic!("one finding: {findings:?}")
        };
        assert_eq!((f.op.as_deref(), f.severity), (None, Severity::Error));
        assert_eq!(f.message, "1 downstream");
    }

    /// The same rank-5 construct twice and another once; `region: construct` makes the two one.
    const CONSTRUCTS: &str = r#"program(1.3)
{
    func main<ios18>(tensor<fp16, [8, 3, 32]> a, tensor<fp16, [4, 3, 32]> b, tensor<fp16, [1, 4, 8, 8]> c) {
            tensor<int32, [2]> ax = const()[name = string("ax"), val = tensor<int32, [2]>([0, 1])];
            tensor<fp16, [1, 1, 8, 3, 32]> ua = expand_dims(axes = ax, x = a)[name = string("ua")];
            tensor<fp16, [1, 1, 8, 3, 32]> ra = relu(x = ua)[name = string("ra")];
            tensor<fp16, [1, 1, 4, 3, 32]> ub = expand_dims(axes = ax, x = b)[name = string("ub")];
            tensor<fp16, [1, 1, 4, 3, 32]> rb = relu(x = ub)[name = string("rb")];
            tensor<int32, [5]> s5 = const()[name = string("s5"), val = tensor<int32, [5]>([1, 4, 4, 8, 2])];
            tensor<fp16, [1, 4, 4, 8, 2]> r5 = reshape(shape = s5, x = c)[name = string("r5")];
        } -> (ra, rb, r5);
}"#;

    #[test]
    fn regions_built_the_same_way_are_one_finding_naming_the_repeats() {
        let text = |scope: &str| {
            format!(
                r#"
id: deep
title: deep
severity: warning
match:
  origin:
    output: {{ rank: {{ min: 5 }} }}
    not: {{ op: const }}
region: {scope}
message: "{{OP}} {{REGION.count}} {{REGION.ops}}{{REGION.repeats}} / {{REGION.share}}"
"#
            )
        };
        let model = snippet_model("t.mil", CONSTRUCTS).expect("parses");
        let messages = |scope: &str| -> Vec<String> {
            let rules = rule(&text(scope)).expect("loads");
            match_model(&model, &rules, &ModelEntities::default())
                .into_iter()
                .map(|f| f.message)
                .collect()
        };
        assert_eq!(
            messages("construct"),
            [
                "ua 1 `ra` (relu); the same construct repeats 1 more time in `main`, at `ub` (expand_dims) / 4 of the 5 ops of `main`",
                "r5 0 none / 1 of the 5 ops of `main`",
            ]
        );
        assert_eq!(messages("connected").len(), 3);
        let rules = rule(&text("construct")).expect("loads");
        let findings = match_model(&model, &rules, &ModelEntities::default());
        let covered = findings[0].covered.as_ref().expect("covers its repeats");
        assert_eq!(covered.names, ["ra", "ub", "rb"]);
    }

    #[test]
    fn origin_must_be_alone_at_the_top_and_region_needs_it() {
        let beside = FP32_RULE.replace("match:\n", "match:\n  name: x\n");
        let err = rule(&beside).expect_err("origin beside another key");
        assert!(err.contains("must be the only key of `match`"), "{err}");
        let nested = FP32_RULE.replace("match:\n  origin:", "match:\n  all:\n    - origin:");
        let nested = nested
            .replace("    output:", "        output:")
            .replace("    not:", "        not:");
        let err = rule(&nested).expect_err("origin inside all");
        assert!(err.contains("must be the only key of `match`"), "{err}");
        let unbound = FP32_RULE
            .replace("  origin:\n    output", "  all:\n    - output")
            .replace("    not: { op: const }", "    - not: { op: const }");
        let err = rule(&unbound).expect_err("REGION without origin");
        assert!(err.contains("`{REGION}` is not bound"), "{err}");
    }
}
