//! What a node rule requires of the node it tests, as a few numbers compiled when the rule loads:
//! a necessary condition the engine checks before the rule's matcher. Dispatch by op type (ast-grep's
//! `potential_kinds`) leaves a rule that can match any op testing every op; its guard lets it skip
//! the ops whose types, shapes and literals cannot match (`tensor-dim-limit` needs a value with an
//! axis of 16385 or more, `zero-sized-dim` one without elements or a `split`).
//!
//! A guard is a disjunction of [`Alternative`]s, each a conjunction of facts about the node:
//! its op type, the largest known axis and rank of its values (an op's outputs, or the function
//! input itself), the smallest known element count among them, the classes of their element
//! types, whether one is a function output, whether a parameter binds an inline literal. A node no
//! alternative admits cannot match; one admitted is tested in full.

use super::compare::Cmp;
use super::matcher::{Count, DTypePat, Matcher, NodeMatchers, Operand, ValueM};
use crate::ir::{Arg, DType, Function, Node, ValueType};

/// At most this many alternatives are kept; more are merged into the one that admits what each
/// of them does.
const MAX_ALTERNATIVES: usize = 8;

/// A necessary condition of a node rule's matcher on one kind of node (empty: it matches no
/// node).
#[derive(Clone, Debug, PartialEq)]
pub struct Guard(Vec<Alternative>);

/// Facts a node must have together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    /// The op types it may be (`None`: any node), sorted.
    op_types: Option<Vec<String>>,
    /// Some value has a known axis of at least this size (0: no test).
    min_dim: u64,
    /// Some value has a known rank of at least this (0: no test).
    min_rank: u64,
    /// Some value has a known element count of at most this.
    max_elements: Option<u64>,
    /// Some parameter binds an inline literal.
    inline_arg: bool,
    /// Some value's element type is of one of these classes ([`dtype_class`]; 0: no test).
    dtype_classes: u8,
    /// Some value is a function output.
    function_output: bool,
}

/// The classes of element types a guard tells apart, as bits.
const FP16: u8 = 1;
const FP32: u8 = 2;
const OTHER_FLOAT: u8 = 4;
const INT: u8 = 8;
const OTHER: u8 = 16;

/// The class of an element type.
fn dtype_class(d: DType) -> u8 {
    match d {
        DType::Fp16 => FP16,
        DType::Fp32 => FP32,
        d if d.is_float() => OTHER_FLOAT,
        d if d.is_int() => INT,
        _ => OTHER,
    }
}

/// The classes an element type pattern admits.
fn pattern_classes(p: &DTypePat) -> u8 {
    match p {
        DTypePat::Exact(d) => dtype_class(*d),
        DTypePat::Float => FP16 | FP32 | OTHER_FLOAT,
        DTypePat::Int => INT,
    }
}

/// The guards of a node rule's matchers for ops and for function inputs (`None`: nothing to
/// test beyond the op types the rule is dispatched by).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeGuards {
    pub ops: Option<Guard>,
    pub inputs: Option<Guard>,
}

impl NodeGuards {
    /// The guards of `m`, the node kinds' matchers of a rule object; `dispatched_by_type` when
    /// the rule names the op types it can match (the engine then offers it those ops only, never
    /// a function input, so it has no guard for inputs).
    pub fn of(dispatched_by_type: bool, m: &NodeMatchers) -> NodeGuards {
        let needed = |g: Guard| {
            let nothing_to_test = g.admits_all() || (dispatched_by_type && g.only_op_types());
            (!nothing_to_test).then_some(g)
        };
        NodeGuards {
            ops: needed(Guard::of(&m.ops)),
            inputs: if dispatched_by_type {
                None
            } else {
                needed(Guard::of(&m.inputs))
            },
        }
    }

    /// The guard for a function input (`is_input`) or an op.
    pub fn on(&self, is_input: bool) -> Option<&Guard> {
        if is_input {
            self.inputs.as_ref()
        } else {
            self.ops.as_ref()
        }
    }
}

/// The facts of one node a guard reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeFacts<'a> {
    /// The op type (`None` for a function input).
    pub op_type: Option<&'a str>,
    /// The largest known axis of its values.
    pub max_dim: u64,
    /// The largest known rank of its values.
    pub max_rank: u64,
    /// The smallest known element count of its values.
    pub min_elements: Option<u64>,
    /// A parameter binds an inline literal.
    pub inline_arg: bool,
    /// The classes of its values' element types.
    pub dtype_classes: u8,
    /// One of its values is a function output.
    pub function_output: bool,
}

impl<'a> NodeFacts<'a> {
    /// The facts of `node` of `f`: an op's outputs and parameters, or a function input's type.
    pub fn of(f: &Function, node: &'a Node) -> NodeFacts<'a> {
        let returned = |name: &str| f.outputs().iter().any(|o| o.as_str() == name);
        match node {
            Node::Input(i) => NodeFacts {
                function_output: returned(&i.name),
                ..NodeFacts::default().with_value(&i.ty)
            },
            Node::Op(op) => {
                let facts = NodeFacts {
                    op_type: Some(op.op_type.as_str()),
                    inline_arg: op
                        .inputs
                        .iter()
                        .any(|p| p.args.iter().any(|a| matches!(a, Arg::Value(_)))),
                    function_output: op.outputs.iter().any(|o| returned(&o.name)),
                    ..NodeFacts::default()
                };
                op.outputs.iter().fold(facts, |f, o| f.with_value(&o.ty))
            }
        }
    }

    fn with_value(mut self, ty: &ValueType) -> NodeFacts<'a> {
        let Some(tensor) = ty.tensor() else {
            return self;
        };
        self.dtype_classes |= dtype_class(tensor.dtype);
        let Some(shape) = tensor.shape.as_deref() else {
            return self;
        };
        self.max_rank = self.max_rank.max(shape.len() as u64);
        // One pass: the largest known axis, and the element count while every axis is known
        // (`None` once one is not, or on overflow).
        let mut elements = Some(1u64);
        for d in shape {
            match d.known() {
                Some(n) => {
                    self.max_dim = self.max_dim.max(n);
                    elements = elements.and_then(|e| e.checked_mul(n));
                }
                None => elements = None,
            }
        }
        if let Some(n) = elements {
            self.min_elements = Some(self.min_elements.map_or(n, |m| m.min(n)));
        }
        self
    }
}

impl Alternative {
    /// Admits every node.
    fn any() -> Alternative {
        Alternative {
            op_types: None,
            min_dim: 0,
            min_rank: 0,
            max_elements: None,
            inline_arg: false,
            dtype_classes: 0,
            function_output: false,
        }
    }

    fn is_any(&self) -> bool {
        *self == Alternative::any()
    }

    fn admits(&self, n: &NodeFacts<'_>) -> bool {
        self.admits_op_type(n.op_type) && self.admits_values(n)
    }

    fn admits_op_type(&self, op_type: Option<&str>) -> bool {
        self.op_types
            .as_ref()
            .is_none_or(|ts| op_type.is_some_and(|t| ts.iter().any(|x| x == t)))
    }

    /// Admits a node with `n`'s facts, whatever its op type.
    fn admits_values(&self, n: &NodeFacts<'_>) -> bool {
        n.max_dim >= self.min_dim
            && n.max_rank >= self.min_rank
            && self
                .max_elements
                .is_none_or(|u| n.min_elements.is_some_and(|m| m <= u))
            && (!self.inline_arg || n.inline_arg)
            && (self.dtype_classes == 0 || n.dtype_classes & self.dtype_classes != 0)
            && (!self.function_output || n.function_output)
    }

    /// What both require; `None` when no node has both (disjoint op types).
    fn and(&self, other: &Alternative) -> Option<Alternative> {
        let op_types = match (&self.op_types, &other.op_types) {
            (None, t) | (t, None) => t.clone(),
            (Some(a), Some(b)) => {
                let both: Vec<String> = a.iter().filter(|t| b.contains(t)).cloned().collect();
                if both.is_empty() {
                    return None;
                }
                Some(both)
            }
        };
        Some(Alternative {
            op_types,
            min_dim: self.min_dim.max(other.min_dim),
            min_rank: self.min_rank.max(other.min_rank),
            max_elements: match (self.max_elements, other.max_elements) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            inline_arg: self.inline_arg || other.inline_arg,
            // Each may be about another value: the narrower when one holds the other, else
            // either (both necessary).
            dtype_classes: match (self.dtype_classes, other.dtype_classes) {
                (0, b) => b,
                (a, b) if b != 0 && b & !a == 0 => b,
                (a, _) => a,
            },
            function_output: self.function_output || other.function_output,
        })
    }

    /// The facts in words: "of type `split`", "with an axis of 16385 or more and an fp16 value".
    fn describe(&self) -> String {
        let mut with = Vec::new();
        if self.min_dim > 0 {
            with.push(format!("an axis of {} or more", self.min_dim));
        }
        // An axis implies a rank of 1.
        if self.min_rank > 1 || (self.min_rank == 1 && self.min_dim == 0) {
            with.push(format!("rank {} or more", self.min_rank));
        }
        match self.max_elements {
            Some(0) => with.push("a value without elements".to_string()),
            Some(n) => with.push(format!("a value of {n} elements or fewer")),
            None => {}
        }
        if self.inline_arg {
            with.push("an inline literal argument".to_string());
        }
        if self.dtype_classes != 0 {
            let names = [
                (FP16, "fp16"),
                (FP32, "fp32"),
                (OTHER_FLOAT, "other float"),
                (INT, "integer"),
                (OTHER, "other"),
            ];
            let classes: Vec<&str> = names
                .iter()
                .filter(|(bit, _)| self.dtype_classes & bit != 0)
                .map(|(_, name)| *name)
                .collect();
            with.push(format!("an {} value", classes.join(" or ")));
        }
        if self.function_output {
            with.push("a function output".to_string());
        }
        let types = self.op_types.as_ref().map(|types| {
            let types: Vec<String> = types.iter().map(|t| format!("`{t}`")).collect();
            format!("of type {}", types.join(" or "))
        });
        let with = (!with.is_empty()).then(|| format!("with {}", with.join(" and ")));
        types.into_iter().chain(with).collect::<Vec<_>>().join(" ")
    }

    /// True when it admits every node `other` admits.
    fn covers(&self, other: &Alternative) -> bool {
        let types = match (&self.op_types, &other.op_types) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => b.iter().all(|t| a.contains(t)),
        };
        types
            && self.min_dim <= other.min_dim
            && self.min_rank <= other.min_rank
            && match (self.max_elements, other.max_elements) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(a), Some(b)) => a >= b,
            }
            && (!self.inline_arg || other.inline_arg)
            && (self.dtype_classes == 0
                || (other.dtype_classes != 0 && other.dtype_classes & !self.dtype_classes == 0))
            && (!self.function_output || other.function_output)
    }

    /// What either admits.
    fn or(&self, other: &Alternative) -> Alternative {
        let op_types = match (&self.op_types, &other.op_types) {
            (Some(a), Some(b)) => {
                let mut all = a.clone();
                all.extend(b.iter().filter(|t| !a.contains(t)).cloned());
                all.sort();
                Some(all)
            }
            _ => None,
        };
        Alternative {
            op_types,
            min_dim: self.min_dim.min(other.min_dim),
            min_rank: self.min_rank.min(other.min_rank),
            max_elements: match (self.max_elements, other.max_elements) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            },
            inline_arg: self.inline_arg && other.inline_arg,
            dtype_classes: match (self.dtype_classes, other.dtype_classes) {
                (0, _) | (_, 0) => 0,
                (a, b) => a | b,
            },
            function_output: self.function_output && other.function_output,
        }
    }
}

impl Guard {
    /// Admits every node.
    fn any() -> Guard {
        Guard(vec![Alternative::any()])
    }

    fn one(a: Alternative) -> Guard {
        Guard(vec![a])
    }

    /// The guard of `m`: what a node must have for `m` to match it.
    pub fn of(m: &Matcher) -> Guard {
        match m {
            Matcher::OpType { types, .. } => {
                let mut types = types.clone();
                types.sort();
                types.dedup();
                Guard::one(Alternative {
                    op_types: Some(types),
                    ..Alternative::any()
                })
            }
            Matcher::StateWrite(_) => Guard::one(Alternative {
                op_types: Some(vec![
                    "coreml_update_state".to_string(),
                    "write_state".to_string(),
                ]),
                ..Alternative::any()
            }),
            Matcher::Output(v) | Matcher::Input(v) => Guard::of_value(v),
            Matcher::Param(_, v) if v.inline == Some(true) => Guard::one(Alternative {
                inline_arg: true,
                ..Alternative::any()
            }),
            Matcher::All(list) => list.iter().fold(Guard::any(), |g, m| g.and(&Guard::of(m))),
            Matcher::Any(list) => Guard::either(list.iter().map(Guard::of)),
            Matcher::Origin(m) => Guard::of(m),
            // At least one entry holds.
            Matcher::Reasons { entries, .. } => {
                Guard::either(entries.iter().map(|e| Guard::of(&e.rule)))
            }
            // A node that must be the nth of its peers is one of them.
            Matcher::Peers(p) if p.nth.is_some() => Guard::of(&p.rule),
            _ => Guard::any(),
        }
    }

    /// What a value must have for `v` to match it.
    fn of_value(v: &ValueM) -> Guard {
        let lower = |c: &Option<Count>| c.as_ref().map_or(0, lower_bound);
        let dims = v.dims.iter().map(|(axis, c)| {
            // Axis `a` needs rank a + 1; axis -a needs rank a.
            let rank = if *axis < 0 {
                axis.unsigned_abs()
            } else {
                *axis as u64 + 1
            };
            (lower_bound(c), rank)
        });
        let (dim, dims_rank) = dims.fold((0, 0), |(d, r), (d2, r2)| (d.max(d2), r.max(r2)));
        let shape_rank = v.shape.as_ref().map_or(0, |s| s.len() as u64);
        let min_dim = dim.max(lower(&v.max_dim)).max(lower(&v.last_dim));
        let own = Alternative {
            min_dim,
            // A known axis makes a rank of at least 1.
            min_rank: lower(&v.rank)
                .max(dims_rank)
                .max(shape_rank)
                .max(u64::from(min_dim > 0)),
            max_elements: v.elements.as_ref().and_then(upper_bound),
            dtype_classes: v
                .dtype
                .as_ref()
                .map_or(0, |pats| pats.iter().fold(0, |m, p| m | pattern_classes(p))),
            function_output: v.function_output == Some(true),
            ..Alternative::any()
        };
        let mut g = Guard::one(own);
        for sub in &v.all {
            g = g.and(&Guard::of_value(sub));
        }
        if let Some(any) = &v.any {
            g = g.and(&Guard::either(any.iter().map(Guard::of_value)));
        }
        g
    }

    /// Admits what any of `guards` does.
    fn either(guards: impl Iterator<Item = Guard>) -> Guard {
        let mut out = Vec::new();
        for g in guards {
            if g.admits_all() {
                return Guard::any();
            }
            out.extend(g.0);
        }
        Guard(out).capped()
    }

    /// Admits what both do.
    fn and(&self, other: &Guard) -> Guard {
        let both = self
            .0
            .iter()
            .flat_map(|a| other.0.iter().filter_map(move |b| a.and(b)))
            .collect();
        Guard(both).capped()
    }

    /// Without the alternatives another covers, and at most [`MAX_ALTERNATIVES`] (merged
    /// otherwise).
    fn capped(self) -> Guard {
        let mut kept: Vec<Alternative> = Vec::with_capacity(self.0.len());
        for a in self.0 {
            if kept.iter().any(|k| k.covers(&a)) {
                continue;
            }
            kept.retain(|k| !a.covers(k));
            kept.push(a);
        }
        if kept.len() > MAX_ALTERNATIVES {
            let merged = kept.iter().skip(1).fold(kept[0].clone(), |m, a| m.or(a));
            kept = vec![merged];
        }
        Guard(kept)
    }

    /// True when it admits no node.
    pub fn admits_none(&self) -> bool {
        self.0.is_empty()
    }

    /// True when it admits every node (nothing to check).
    pub fn admits_all(&self) -> bool {
        self.0.iter().any(Alternative::is_any)
    }

    /// True when it tests nothing but op types.
    pub fn only_op_types(&self) -> bool {
        self.0.iter().all(|a| {
            Alternative {
                op_types: None,
                ..a.clone()
            }
            .is_any()
        })
    }

    /// What a node needs to be let through, in words: each alternative's facts, `or` between
    /// them.
    pub fn describe(&self) -> String {
        let alternatives: Vec<String> = self.0.iter().map(Alternative::describe).collect();
        alternatives.join(", or ")
    }

    /// True when a node with `facts` may match.
    pub fn admits(&self, facts: &NodeFacts<'_>) -> bool {
        self.0.iter().any(|a| a.admits(facts))
    }

    /// This guard on ops of type `op_type`, its tests of op types answered once.
    pub fn on_op_type(&self, op_type: &str) -> OpTypeGuard<'_> {
        let kept: Vec<&Alternative> = self
            .0
            .iter()
            .filter(|a| a.admits_op_type(Some(op_type)))
            .collect();
        let no_more = |a: &&Alternative| {
            Alternative {
                op_types: None,
                ..(*a).clone()
            }
            .is_any()
        };
        match kept.as_slice() {
            [] => OpTypeGuard::None,
            k if k.iter().any(no_more) => OpTypeGuard::All,
            _ => OpTypeGuard::Values(kept),
        }
    }
}

/// A [`Guard`] on ops of one type: it admits none of them, all of them, or those whose values'
/// facts one of its alternatives admits.
#[derive(Clone, Debug)]
pub enum OpTypeGuard<'g> {
    None,
    All,
    Values(Vec<&'g Alternative>),
}

impl OpTypeGuard<'_> {
    /// True when an op of the type with `facts` may match.
    pub fn admits(&self, facts: &NodeFacts<'_>) -> bool {
        match self {
            OpTypeGuard::None => false,
            OpTypeGuard::All => true,
            OpTypeGuard::Values(alternatives) => {
                alternatives.iter().any(|a| a.admits_values(facts))
            }
        }
    }
}

/// The least number a count admits (0 when it has no lower bound of its own).
fn lower_bound(c: &Count) -> u64 {
    c.conds
        .iter()
        .filter_map(|(cmp, o)| match (cmp, o) {
            (Cmp::Min | Cmp::Equals, Operand::Num(n)) => Some(*n),
            (Cmp::Above, Operand::Num(n)) => Some(n.saturating_add(1)),
            _ => None,
        })
        .max()
        .map_or(0, |n| n.max(0) as u64)
}

/// The greatest number a count admits, when it has an upper bound of its own.
fn upper_bound(c: &Count) -> Option<u64> {
    c.conds
        .iter()
        .filter_map(|(cmp, o)| match (cmp, o) {
            (Cmp::Max | Cmp::Equals, Operand::Num(n)) => Some(*n),
            (Cmp::Below, Operand::Num(n)) => Some(n.saturating_sub(1)),
            _ => None,
        })
        .min()
        .map(|n| n.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use crate::rules::context::Ctx;
    use crate::rules::loader::Target;
    use crate::rules::testing::snippet_model;
    use crate::rules::{Rule, RuleSet};

    fn node_rule_matcher(rules: &RuleSet, id: &str) -> Matcher {
        match &rules.get(id).expect("built-in rule").target {
            Target::Nodes(m) => m.clone(),
            Target::Entity(..) => panic!("{id} is an entity rule"),
        }
    }

    /// A guard is a necessary condition: on every node of every test snippet of every built-in
    /// rule, no node rule matches a node its guard turns away, and the guard on the node's op type
    /// agrees with it. And the guards turn nodes away (else this would pass with guards that admit
    /// everything).
    #[test]
    fn a_guard_never_turns_away_a_node_its_rule_matches() {
        let rules = RuleSet::builtin().expect("built-in rules load");
        let node_rules: Vec<&Rule> = rules
            .rules()
            .iter()
            .map(std::sync::Arc::as_ref)
            .filter(|r| r.node_guards.is_some())
            .collect();
        let (mut checked, mut turned_away) = (0, 0);
        for case in rules.rules().iter().flat_map(|r| {
            let t = r.tests();
            t.valid
                .iter()
                .chain(&t.invalid)
                .cloned()
                .collect::<Vec<_>>()
        }) {
            let Some(mil) = &case.mil else { continue };
            let Ok(model) = snippet_model("test.mil", mil) else {
                continue;
            };
            for f in &model.program.functions {
                let analysis = analyze(f);
                let cx = Ctx {
                    f,
                    analysis: &analysis,
                    model: Some(&model),
                    blobs: None,
                    plans: None,
                    target: None,
                    peers: Default::default(),
                };
                let nodes = f.inputs().map(|(id, _)| (id, true));
                for (id, is_input) in nodes.chain(f.ops().map(|(id, _)| (id, false))) {
                    let facts = NodeFacts::of(f, f.node(id).expect("node"));
                    for rule in &node_rules {
                        let m = rule.node_matchers.as_ref().expect("node rule");
                        let matcher = if is_input { &m.inputs } else { &m.ops };
                        let guards = rule.node_guards.as_ref().expect("node rule");
                        let Some(guard) = guards.on(is_input) else {
                            continue;
                        };
                        checked += 1;
                        let admitted = guard.admits(&facts);
                        if let Some(ty) = facts.op_type {
                            assert_eq!(
                                guard.on_op_type(ty).admits(&facts),
                                admitted,
                                "rule {}'s guard on `{ty}`",
                                rule.id
                            );
                        }
                        if admitted {
                            continue;
                        }
                        turned_away += 1;
                        let mut b = Default::default();
                        assert!(
                            !matcher.matches(&cx, id, &mut b),
                            "rule {}'s guard {guard:?} turned away a node it matches, in:\n{mil}",
                            rule.id
                        );
                    }
                }
            }
        }
        assert!(
            checked > 1000 && turned_away * 2 > checked,
            "{turned_away} of {checked} turned away"
        );
    }

    #[test]
    fn guards_read_axes_ranks_element_counts_op_types_and_literals() {
        let rules = RuleSet::builtin().expect("built-in rules load");
        // The guard a rule's matcher for ops gets.
        let guard = |id: &str| {
            let rule = rules.get(id).expect("built-in rule");
            let ops = rule.node_guards.as_ref().and_then(|g| g.ops.clone());
            ops.unwrap_or_else(|| Guard::of(&node_rule_matcher(&rules, id)))
        };
        let model = |mil: &str| snippet_model("test.mil", mil).expect("snippet parses");
        let last_op = |m: &crate::ir::Model| {
            let f = &m.program.functions[0];
            let (id, _) = f.ops().last().expect("an op");
            NodeFacts {
                op_type: None,
                ..NodeFacts::of(f, f.node(id).expect("node"))
            }
        };
        let program = |body: &str| {
            format!("program(1.3)\n[buildInfo = dict<string, string>({{}})]\n{{\n    func main<ios18>(tensor<fp16, [1, 4]> x) {{\n{body}\n    }} -> (y);\n}}\n")
        };
        let small = model(&program(
            "        tensor<fp16, [1, 4]> y = relu(x = x)[name = string(\"y\")];",
        ));
        let small = last_op(&small);
        let long = model(&program(
            "        tensor<fp16, [1, 20000]> y = tile(x = x, reps = tensor<int32, [2]>([1, 5000]))[name = string(\"y\")];",
        ));
        let long = last_op(&long);
        assert_eq!(
            (long.max_dim, long.max_rank, long.inline_arg),
            (20000, 2, true)
        );
        assert_eq!(small.min_elements, Some(4));
        assert!(!guard("tensor-dim-limit").admits(&small));
        assert!(guard("tensor-dim-limit").admits(&long));
        assert!(!guard("tensor-rank").admits(&long));
        assert!(!guard("zero-sized-dim").admits(&small));
        assert_eq!((small.dtype_classes, small.function_output), (FP16, true));
        assert!(!guard("fp32-compute").admits(&small));
        let io = guard("io-last-axis-alignment");
        let inner = NodeFacts {
            function_output: false,
            ..small
        };
        assert!(io.admits(&small) && !io.admits(&inner));
        // `const` or an inline literal.
        let mask = guard("mask-nonfinite-const");
        assert!(!mask.admits(&small) && mask.admits(&long));
    }
}
