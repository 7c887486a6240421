//! Compiled matchers and their evaluation over one function graph.
//!
//! A matcher tests one node (an op or a function input) of a function, with the function's
//! [`FunctionAnalysis`](crate::analysis::FunctionAnalysis), and may bind captures. Relations
//! (`fed-by`, `feeds`, `inside`, `has`) walk the graph and test a sub-matcher on the nodes they
//! reach.

use std::collections::{BTreeSet, VecDeque};

use regex::Regex;

use super::bindings::{Binding, Bindings, ValueInfo};
use super::compare::Cmp;
use super::context::{range_of, Ctx};
use super::target::{DeployTarget, Family};
use super::vars::TARGET_VAR;
use crate::analysis::blob_values::NumberSummary;
use crate::analysis::os_requirement::CONVERTER_VERSION_KEY;
use crate::analysis::{ConstValue, Dependence, WriteKind, WriteOp};
use crate::ir::{Arg, DType, Function, Literal, Node, NodeId, ValueType};
use crate::os_level::{opset_level, opset_number};

/// Comparisons a whole number must all pass (`{ min, max, above, below, equals, multiple-of,
/// not-multiple-of }`), each against a number or another number of the same value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Count {
    pub conds: Vec<(Cmp, Operand)>,
}

/// What a number is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A number written in the rule.
    Num(i64),
    /// Another number of the value tested (`rank`, `dim.1`, …).
    Value(ValueNum),
}

/// What a capture's number is compared with under `compare:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompareOperand {
    Num(i64),
    Capture(CaptureNum),
}

/// A number of a value a count may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueNum {
    Rank,
    MaxDim,
    LastDim,
    Elements,
    /// The dimension at this axis (negative counts from the end).
    Dim(i64),
}

impl ValueNum {
    /// The names a count may use: `rank`, `max-dim`, `last-dim`, `elements`, `dim.<axis>`.
    pub const NAMES: &'static str = "`rank`, `max-dim`, `last-dim`, `elements` or `dim.<axis>`";

    /// The number called `name`.
    pub fn parse(name: &str) -> Option<ValueNum> {
        Some(match name {
            "rank" => ValueNum::Rank,
            "max-dim" => ValueNum::MaxDim,
            "last-dim" => ValueNum::LastDim,
            "elements" => ValueNum::Elements,
            _ => ValueNum::Dim(name.strip_prefix("dim.")?.parse().ok()?),
        })
    }

    /// Its value in `ty`, when known.
    pub fn of(self, ty: Option<&ValueType>) -> Option<i64> {
        let t = ty?.tensor()?;
        let dims = t.shape.as_ref();
        let n = match self {
            ValueNum::Rank => t.rank()? as u64,
            ValueNum::MaxDim => dims?.iter().filter_map(|x| x.known()).max()?,
            ValueNum::LastDim => dims?.last()?.known()?,
            ValueNum::Elements => t.element_count()?,
            ValueNum::Dim(axis) => {
                let dims = dims?;
                let i = if axis < 0 {
                    (dims.len() as i64).checked_add(axis)?
                } else {
                    axis
                };
                dims.get(usize::try_from(i).ok()?)?.known()?
            }
        };
        i64::try_from(n).ok()
    }
}

impl Count {
    /// Exactly `n`.
    pub fn exactly(n: i64) -> Count {
        Count {
            conds: vec![(Cmp::Equals, Operand::Num(n))],
        }
    }

    /// True when `n` passes every comparison (one naming another number never does here).
    pub fn test(&self, n: i64) -> bool {
        self.test_with(n, |_| None)
    }

    /// True when `n` passes every comparison; `other` gives the numbers of the value tested.
    pub fn test_with(&self, n: i64, other: impl Fn(ValueNum) -> Option<i64>) -> bool {
        self.conds.iter().all(|(cmp, o)| {
            let b = match o {
                Operand::Num(b) => Some(*b),
                Operand::Value(v) => other(*v),
            };
            b.is_some_and(|b| cmp.holds(n, b))
        })
    }
}

/// Closed range over f64.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Range {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl Range {
    fn test(&self, x: f64) -> bool {
        self.min.is_none_or(|m| x >= m) && self.max.is_none_or(|m| x <= m)
    }
}

/// An element-type pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum DTypePat {
    Exact(DType),
    Float,
    Int,
}

impl DTypePat {
    fn test(&self, d: DType) -> bool {
        match self {
            DTypePat::Exact(x) => *x == d,
            DTypePat::Float => d.is_float(),
            DTypePat::Int => d.is_int(),
        }
    }
}

/// One dimension of a shape pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum DimPat {
    Size(u64),
    Unknown,
    Any,
}

/// Which kind of run-time dependence is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimePat {
    Yes,
    No,
    Data,
    Shape,
}

impl RuntimePat {
    fn test(self, dep: Option<&Dependence>) -> bool {
        let d = dep.cloned().unwrap_or_default();
        match self {
            RuntimePat::Yes => d.runtime(),
            RuntimePat::No => !d.runtime(),
            RuntimePat::Data => d.data,
            RuntimePat::Shape => d.shape && !d.data,
        }
    }
}

/// Predicates on constant elements.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValuePredM {
    pub equals: Option<Vec<f64>>,
    pub equals_str: Option<Vec<String>>,
    pub contains: Option<Vec<f64>>,
    pub min: Option<Range>,
    pub max: Option<Range>,
    pub max_abs: Option<Range>,
    pub integral: Option<bool>,
    pub nonfinite: Option<bool>,
    pub unequal_pairs: Option<bool>,
    pub masked_row: Option<bool>,
}

/// A compiled value matcher.
#[derive(Clone, Debug, Default)]
pub struct ValueM {
    pub dtype: Option<Vec<DTypePat>>,
    pub rank: Option<Count>,
    pub shape: Option<Vec<DimPat>>,
    pub dynamic: Option<bool>,
    pub max_dim: Option<Count>,
    pub last_dim: Option<Count>,
    /// (axis, count): negative axes count from the end.
    pub dims: Vec<(i64, Count)>,
    pub elements: Option<Count>,
    pub state: Option<bool>,
    pub constant: Option<bool>,
    pub value: Option<ValuePredM>,
    pub runtime: Option<RuntimePat>,
    pub range: Option<RangeM>,
    pub function_output: Option<bool>,
    pub inline: Option<bool>,
    /// `name:`: a pattern the value's name has a match for (an inline literal has none).
    pub name: Option<Regex>,
    pub producer: Option<Box<Matcher>>,
    /// `all:`, `any:` and `not:` of value objects.
    pub all: Vec<ValueM>,
    pub any: Option<Vec<ValueM>>,
    pub not: Option<Box<ValueM>>,
    pub capture: Option<String>,
}

impl ValueM {
    /// True when some condition reads the value's type (else the type is not looked up).
    pub(crate) fn tests_type(&self) -> bool {
        self.dtype.is_some()
            || self.rank.is_some()
            || self.shape.is_some()
            || self.dynamic.is_some()
            || self.max_dim.is_some()
            || self.last_dim.is_some()
            || !self.dims.is_empty()
            || self.elements.is_some()
            || self.state.is_some()
    }
}

/// `range:`: counts the ends of a value's range must be within.
#[derive(Clone, Debug, Default)]
pub struct RangeM {
    pub min: Option<Count>,
    pub max: Option<Count>,
}

impl RangeM {
    fn test(&self, r: crate::analysis::Interval) -> bool {
        self.min.as_ref().is_none_or(|c| c.test(r.min))
            && self.max.as_ref().is_none_or(|c| c.test(r.max))
    }
}

/// Properties of the enclosing function.
#[derive(Clone, Debug, Default)]
pub struct FunctionM {
    pub name: Option<Regex>,
    pub opset: Option<(u32, u32)>,
    pub states: Option<Count>,
    pub max_state_dim: Option<Count>,
    pub dynamic_inputs: Option<bool>,
}

/// Properties of the model the function belongs to.
#[derive(Clone, Debug, Default)]
pub struct ModelM {
    pub spec_version: Option<Count>,
    pub converter_version: Option<VersionRange>,
    /// `program: coreai` → `Some(true)`, `program: mil` → `Some(false)`.
    pub coreai: Option<bool>,
}

/// A dotted version: its numeric components (a component's leading digits; `9.0b1` is 9.0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version(Vec<u64>);

impl Version {
    /// `None` unless every component starts with a digit.
    pub fn parse(text: &str) -> Option<Version> {
        crate::analysis::os_requirement::version_numbers(text).map(Version)
    }

    fn cmp_to(&self, other: &Version) -> std::cmp::Ordering {
        let n = self.0.len().max(other.0.len());
        let at = |v: &Version, i: usize| v.0.get(i).copied().unwrap_or(0);
        (0..n)
            .map(|i| at(self, i).cmp(&at(other, i)))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    }
}

/// Inclusive `min` / `max` and exclusive `before` bounds on a version.
#[derive(Clone, Debug, Default)]
pub struct VersionRange {
    pub min: Option<Version>,
    pub max: Option<Version>,
    pub before: Option<Version>,
}

impl VersionRange {
    pub fn test(&self, v: &Version) -> bool {
        self.min.as_ref().is_none_or(|m| v.cmp_to(m).is_ge())
            && self.max.as_ref().is_none_or(|m| v.cmp_to(m).is_le())
            && self.before.as_ref().is_none_or(|m| v.cmp_to(m).is_lt())
    }
}

/// Conditions on the run's deployment target (`target:`).
#[derive(Clone, Debug, Default)]
pub struct TargetM {
    /// Some family of the target is one of these (holds when the target names no family).
    pub families: Option<BTreeSet<Family>>,
    /// Every family of the target is one of these (does not hold when it names none).
    pub only: Option<BTreeSet<Family>>,
    /// The target's minimum OS is older than this (does not hold when it names no OS).
    pub os_before: Option<OsBound>,
    /// The run's compute units use one of these (`None`: any).
    pub units: Option<BTreeSet<super::units::Unit>>,
}

/// What `os-before:` compares the target's minimum OS with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OsBound {
    /// An iOS-equivalent level (`ios18` = 18, `macos15` = 18).
    Level(u32),
    /// The level the function's opset needs (in an entity rule: the one the entity says).
    Required,
}

impl TargetM {
    /// The families the condition applies to on `run`, when it holds; `required` is the level
    /// `os-before: required` compares with.
    pub fn holds(
        &self,
        run: Option<&DeployTarget>,
        required: Option<u32>,
    ) -> Option<BTreeSet<Family>> {
        let named = run.map(|r| &r.families).filter(|f| !f.is_empty());
        let applies = match (&self.families, named) {
            (Some(want), Some(have)) => have.intersection(want).copied().collect(),
            (Some(want), None) => want.clone(),
            (None, have) => have.cloned().unwrap_or_default(),
        };
        if self.families.is_some() && applies.is_empty() {
            return None;
        }
        if let Some(units) = &self.units {
            let setting = run.map_or(super::units::ComputeUnits::All, |r| r.units);
            if !units.iter().any(|u| setting.uses(*u)) {
                return None;
            }
        }
        if let Some(only) = &self.only {
            if !named.is_some_and(|have| have.is_subset(only)) {
                return None;
            }
        }
        if let Some(bound) = self.os_before {
            let min = run.and_then(DeployTarget::min_level)?;
            let level = match bound {
                OsBound::Level(l) => l,
                OsBound::Required => required?,
            };
            if min >= level {
                return None;
            }
        }
        Some(applies)
    }
}

/// Predicates on a state write.
#[derive(Clone, Debug, Default)]
pub struct StateWriteM {
    pub state: Option<String>,
    pub window: Option<String>,
    pub state_type: Option<ValueM>,
    pub full: Option<bool>,
    pub known: Option<bool>,
    pub kind: Option<Vec<WriteKind>>,
    pub write_op: Option<Vec<WriteOp>>,
    pub runtime_begin: Option<RuntimePat>,
    pub runtime_end: Option<RuntimePat>,
    pub partial_axes: Option<Count>,
    pub uncovered: Option<Count>,
    pub rmw: Option<bool>,
    pub writes: Option<Count>,
    pub nth: Option<Count>,
    pub first: Option<bool>,
}

/// `peers:`: the ops of the function that match `rule`.
#[derive(Clone, Debug)]
pub struct PeersM {
    pub rule: Matcher,
    pub count: Option<Count>,
    pub nth: Option<Count>,
    pub capture: Option<String>,
}

/// One entry of `reasons:`: a rule object and what it says when it holds.
#[derive(Clone, Debug)]
pub struct Reason {
    pub rule: Matcher,
    pub text: super::template::Template,
}

/// Where a relational walk stops.
#[derive(Clone, Debug)]
pub enum StopBy {
    /// One step.
    Neighbor,
    /// As far as the graph goes.
    End,
    /// Up to and including the first node matching the rule.
    Rule(Box<Matcher>),
}

/// A relational matcher's walk and the rule tested on the nodes it reaches.
#[derive(Clone, Debug)]
pub struct Relation {
    pub rule: Box<Matcher>,
    pub stop: StopBy,
    pub via: Option<String>,
}

/// A number of a capture (`$I.range.max`, `$X.dim.0`), for `compare:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureNum {
    /// The capture's name, without `$`.
    pub capture: String,
    pub num: CaptureNumKind,
}

/// Which number of a captured value (a captured op or input: of its first output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureNumKind {
    /// A number of its type (`rank`, `dim.0`, …).
    Type(ValueNum),
    /// The smallest (`range.min`) or largest (`range.max`) element it holds for valid inputs
    /// (the analysis' value range, which assumes valid indices: a gather's are within its axis).
    RangeMin,
    RangeMax,
    /// The smallest (`value.min`) or largest (`value.max`) element of a constant integer value.
    ValueMin,
    ValueMax,
}

impl CaptureNum {
    /// The names after `$X.`.
    pub const NAMES: &'static str =
        "`rank`, `max-dim`, `last-dim`, `elements`, `dim.<axis>`, `range.min`, `range.max`, \
         `value.min` or `value.max`";

    /// `$X.<number>`; `None` when `text` is not of that form (`Some(Err)`: a capture with an
    /// unknown number).
    pub fn parse(text: &str) -> Option<Result<CaptureNum, String>> {
        let rest = text.strip_prefix('$')?;
        let (capture, num) = rest.split_once('.').unwrap_or((rest, ""));
        let num = match num {
            "range.min" => CaptureNumKind::RangeMin,
            "range.max" => CaptureNumKind::RangeMax,
            "value.min" => CaptureNumKind::ValueMin,
            "value.max" => CaptureNumKind::ValueMax,
            other => match ValueNum::parse(other) {
                Some(v) => CaptureNumKind::Type(v),
                None => {
                    return Some(Err(format!(
                        "`{text}`: name a number of `${capture}` after the dot: {}",
                        CaptureNum::NAMES
                    )))
                }
            },
        };
        Some(Ok(CaptureNum {
            capture: capture.to_string(),
            num,
        }))
    }

    /// Its value under the bindings `b`, when the capture is bound and the number known.
    pub fn value(&self, cx: &Ctx<'_>, b: &Bindings) -> Option<i64> {
        let (name, ty, constant) = match b.get(&self.capture)? {
            Binding::Value(v) => (v.name.as_str(), v.ty.as_ref(), v.constant.as_ref()),
            Binding::Node(n) => match cx.f.node(*n)? {
                Node::Op(op) => {
                    let o = op.outputs.first()?;
                    let name = o.name.as_str();
                    (name, Some(&o.ty), cx.analysis.consts.get(name))
                }
                Node::Input(i) => (i.name.as_str(), Some(&i.ty), None),
            },
            _ => return None,
        };
        match self.num {
            CaptureNumKind::Type(v) => v.of(ty),
            CaptureNumKind::RangeMin => range_of(cx, name, constant).map(|r| r.min),
            CaptureNumKind::RangeMax => range_of(cx, name, constant).map(|r| r.max),
            CaptureNumKind::ValueMin => constant?.data.ints()?.iter().min().copied(),
            CaptureNumKind::ValueMax => constant?.data.ints()?.iter().max().copied(),
        }
    }
}

/// A compiled rule object.
#[derive(Clone, Debug)]
pub enum Matcher {
    OpType {
        types: Vec<String>,
        opset: Option<(u32, u32)>,
    },
    Input(Box<ValueM>),
    /// `compare:`: numbers of captures against numbers or other captures' numbers; tested
    /// after every other key of `match` (it reads their captures).
    Compare(Vec<(CaptureNum, Vec<(Cmp, CompareOperand)>)>),
    StateWrite(Box<StateWriteM>),
    Param(String, Box<ValueM>),
    Output(Box<ValueM>),
    Attr(String, Box<ValueM>),
    Name(Regex),
    /// The dimension of parameter `of` at the axis parameter (or attribute) `axis` holds.
    AxisDim {
        of: String,
        axis: String,
        size: Count,
    },
    /// `implied-shape:`: the op's implied output shape is known (and differs from the constant
    /// parameter `differs_from`).
    ImpliedShape {
        differs_from: Option<String>,
        capture: Option<String>,
    },
    /// The number of axes (outside `except`) along which parameter `of`'s shape has more than one
    /// entry but fewer than parameter `over`'s.
    BlockedAxes {
        of: String,
        over: String,
        except: Vec<i64>,
        count: Count,
    },
    Function(Box<FunctionM>),
    Model(ModelM),
    /// `target:`: the run's deployment target; binds `TARGET`.
    Target(Box<TargetM>),
    Capture(String),
    /// `reasons:`: at least one entry holds; the texts of those that do are bound to `capture`.
    Reasons {
        capture: String,
        entries: Vec<Reason>,
    },
    /// `peers:`: the ops of the function matching a rule object.
    Peers(Box<PeersM>),
    All(Vec<Matcher>),
    Any(Vec<Matcher>),
    Not(Box<Matcher>),
    FedBy(Relation),
    Feeds(Relation),
    Inside(Relation),
    Has(Relation),
    /// `origin:`: the node matches the rule and none of its producers does.
    Origin(Box<Matcher>),
}

/// A node rule's matcher specialised per kind of node: `any:` alternatives that can hold only on
/// function inputs are left out of the one for ops, and those limited to op types out of the one
/// for inputs. On its kind of node each gives the answer and the captures of the full matcher.
#[derive(Clone, Debug)]
pub struct NodeMatchers {
    /// Tested on ops.
    pub ops: Matcher,
    /// Tested on function inputs.
    pub inputs: Matcher,
}

/// A value reference: a named value or an inline literal.
#[derive(Clone, Copy)]
enum ValRef<'a> {
    /// A named value, with its type when the caller already holds it (saves a lookup by name).
    Named(&'a str, Option<&'a ValueType>),
    Lit(&'a Literal),
}

impl Matcher {
    /// The op types this matcher can match (`None`: any node).
    pub fn potential_ops(&self) -> Option<BTreeSet<String>> {
        match self {
            Matcher::OpType { types, .. } => Some(types.iter().cloned().collect()),
            Matcher::StateWrite(_) => Some(
                ["write_state", "coreml_update_state"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            ),
            Matcher::All(list) => list
                .iter()
                .filter_map(Matcher::potential_ops)
                .reduce(|a, b| a.intersection(&b).cloned().collect()),
            Matcher::Any(list) => {
                let mut out = BTreeSet::new();
                for m in list {
                    out.extend(m.potential_ops()?);
                }
                Some(out)
            }
            Matcher::Origin(m) => m.potential_ops(),
            // A node that must be the nth of its peers is one of them.
            Matcher::Peers(p) if p.nth.is_some() => p.rule.potential_ops(),
            _ => None,
        }
    }

    /// False when the matcher matches no node of the function of `cx`: a member of its
    /// conjunction that tests only the model, the function or the deployment target fails there.
    pub fn holds_for_function(&self, cx: &Ctx<'_>) -> bool {
        match self {
            Matcher::All(list) => list.iter().all(|m| m.holds_for_function(cx)),
            Matcher::Origin(m) => m.holds_for_function(cx),
            m if m.tests_only_the_function() => {
                // Such a matcher never reads its node: any will do (the first input, else the
                // body's first op), found without listing the function's ops.
                let anywhere = cx.f.inputs().map(|(id, _)| id).next().or_else(|| {
                    cx.f.blocks
                        .first()
                        .and_then(|body| body.ops.first().copied())
                });
                anywhere.is_some_and(|node| m.matches(cx, node, &mut Bindings::new()))
            }
            _ => true,
        }
    }

    /// True when the matcher's answer is the same at every node of a function.
    fn tests_only_the_function(&self) -> bool {
        match self {
            Matcher::Model(_) | Matcher::Function(_) | Matcher::Target(_) => true,
            Matcher::All(list) | Matcher::Any(list) => {
                !list.is_empty() && list.iter().all(Matcher::tests_only_the_function)
            }
            Matcher::Not(m) => m.tests_only_the_function(),
            _ => false,
        }
    }

    /// True when the matcher can only match ops (it tests the op's type, parameters, outputs,
    /// attributes or state write).
    fn ops_only(&self) -> bool {
        match self {
            Matcher::OpType { .. }
            | Matcher::StateWrite(_)
            | Matcher::Param(..)
            | Matcher::Output(_)
            | Matcher::Attr(..)
            | Matcher::AxisDim { .. }
            | Matcher::ImpliedShape { .. }
            | Matcher::BlockedAxes { .. } => true,
            Matcher::All(list) => list.iter().any(Matcher::ops_only),
            Matcher::Any(list) => !list.is_empty() && list.iter().all(Matcher::ops_only),
            Matcher::Origin(m) => m.ops_only(),
            _ => false,
        }
    }

    /// True when the matcher can only match function inputs.
    pub fn inputs_only(&self) -> bool {
        match self {
            Matcher::Input(_) => true,
            Matcher::All(list) => list.iter().any(Matcher::inputs_only),
            Matcher::Any(list) => !list.is_empty() && list.iter().all(Matcher::inputs_only),
            Matcher::Origin(m) => m.inputs_only(),
            _ => false,
        }
    }

    /// This matcher specialised for ops and for function inputs (one that matches no node of a
    /// kind is, for that kind, an empty `any:`).
    pub fn for_node_kinds(&self) -> NodeMatchers {
        let none = || Matcher::Any(Vec::new());
        NodeMatchers {
            ops: if self.inputs_only() {
                none()
            } else {
                self.pruned(&|m| !m.inputs_only())
            },
            inputs: if self.ops_only() {
                none()
            } else {
                self.pruned(&|m| !m.ops_only())
            },
        }
    }

    /// A copy without the `any:` alternatives `keep` refuses, among those tested on the node
    /// itself (under `all:`, `any:`, `not:`, `origin:`; relations test other nodes).
    fn pruned(&self, keep: &impl Fn(&Matcher) -> bool) -> Matcher {
        match self {
            Matcher::All(list) => Matcher::All(list.iter().map(|m| m.pruned(keep)).collect()),
            Matcher::Any(list) => Matcher::Any(
                list.iter()
                    .filter(|m| keep(m))
                    .map(|m| m.pruned(keep))
                    .collect(),
            ),
            Matcher::Not(m) => Matcher::Not(Box::new(m.pruned(keep))),
            Matcher::Origin(m) => Matcher::Origin(Box::new(m.pruned(keep))),
            other => other.clone(),
        }
    }

    /// Tests `node`; on success the captures it binds are in `b` (on failure `b` may hold partial
    /// bindings: callers that continue clone first).
    pub fn matches(&self, cx: &Ctx<'_>, node: NodeId, b: &mut Bindings) -> bool {
        let f = cx.f;
        match self {
            Matcher::OpType { types, opset } => {
                let Some(op) = f.op(node) else { return false };
                types.iter().any(|t| *t == op.op_type) && opset_ok(f, *opset)
            }
            Matcher::Input(v) => match f.node(node) {
                Some(Node::Input(i)) => {
                    value_matches(cx, v, ValRef::Named(&i.name, Some(&i.ty)), b)
                }
                _ => false,
            },
            Matcher::StateWrite(sw) => state_write_matches(cx, sw, node, b),
            Matcher::Compare(list) => list.iter().all(|(left, conds)| {
                left.value(cx, b).is_some_and(|n| {
                    conds.iter().all(|(cmp, o)| {
                        let other = match o {
                            CompareOperand::Num(x) => Some(*x),
                            CompareOperand::Capture(c) => c.value(cx, b),
                        };
                        other.is_some_and(|x| cmp.holds(n, x))
                    })
                })
            }),
            Matcher::Param(name, v) => {
                let Some(op) = f.op(node) else { return false };
                // `*` stands for every parameter of the op.
                let params: &[crate::ir::Param] = if name == "*" {
                    &op.inputs
                } else {
                    op.param(name).map_or(&[], std::slice::from_ref)
                };
                params.iter().flat_map(|p| p.args.iter()).any(|a| {
                    let r = match a {
                        Arg::Name(n) => ValRef::Named(n, None),
                        Arg::Value(l) => ValRef::Lit(l),
                    };
                    bind_on_match(b, |trial| value_matches(cx, v, r, trial))
                })
            }
            Matcher::Output(v) => {
                let Some(op) = f.op(node) else { return false };
                op.outputs.iter().any(|o| {
                    bind_on_match(b, |trial| {
                        value_matches(cx, v, ValRef::Named(&o.name, Some(&o.ty)), trial)
                    })
                })
            }
            Matcher::Attr(key, v) => {
                let Some(op) = f.op(node) else { return false };
                match op.attributes.get(key) {
                    Some(lit) => value_matches(cx, v, ValRef::Lit(lit), b),
                    None => false,
                }
            }
            Matcher::AxisDim { of, axis, size } => f
                .op(node)
                .and_then(|op| axis_dim(cx, op, of, axis))
                .is_some_and(|d| size.test(d)),
            Matcher::BlockedAxes {
                of,
                over,
                except,
                count,
            } => f
                .op(node)
                .and_then(|op| blocked_axes(cx, op, of, over, except))
                .is_some_and(|n| count.test(n)),
            Matcher::Name(re) => match f.node(node) {
                Some(Node::Op(op)) => re.is_match(op.display_name()),
                Some(Node::Input(i)) => re.is_match(&i.name),
                None => false,
            },
            Matcher::ImpliedShape {
                differs_from,
                capture,
            } => implied_shape_matches(cx, node, differs_from.as_deref(), capture.as_deref(), b),
            Matcher::Reasons { capture, entries } => {
                let texts: Vec<String> = entries
                    .iter()
                    .filter_map(|e| {
                        let mut own = Bindings::new();
                        e.rule
                            .matches(cx, node, &mut own)
                            .then(|| e.text.render(cx, node, &own))
                    })
                    .collect();
                if texts.is_empty() {
                    return false;
                }
                b.insert(capture.clone(), Binding::Reasons(texts));
                true
            }
            Matcher::Peers(p) => peers_match(cx, p, node, b),
            Matcher::Function(fm) => function_matches(cx, fm),
            Matcher::Model(mm) => cx.model.is_some_and(|m| {
                mm.spec_version
                    .as_ref()
                    .is_none_or(|c| m.spec_version.is_some_and(|v| c.test(v)))
                    && mm.converter_version.as_ref().is_none_or(|range| {
                        m.description
                            .user_defined
                            .iter()
                            .find(|(k, _)| k == CONVERTER_VERSION_KEY)
                            .and_then(|(_, v)| Version::parse(v))
                            .is_some_and(|v| range.test(&v))
                    })
                    && mm
                        .coreai
                        .is_none_or(|c| c == (m.kind == crate::ir::ModelKind::AiModel))
            }),
            Matcher::Target(t) => {
                let required = opset_number(&f.opset).map(opset_level);
                match t.holds(cx.target, required) {
                    Some(families) => {
                        b.insert(TARGET_VAR.to_string(), Binding::Target(families));
                        true
                    }
                    None => false,
                }
            }
            Matcher::Capture(name) => {
                b.insert(name.clone(), Binding::Node(node));
                true
            }
            Matcher::All(list) => list.iter().all(|m| m.matches(cx, node, b)),
            Matcher::Any(list) => list
                .iter()
                .any(|m| bind_on_match(b, |trial| m.matches(cx, node, trial))),
            Matcher::Not(m) => !m.matches(cx, node, &mut Bindings::new()),
            Matcher::FedBy(r) => walk(cx, r, node, b, Direction::Producers),
            Matcher::Feeds(r) => walk(cx, r, node, b, Direction::Consumers),
            Matcher::Inside(r) => walk(cx, r, node, b, Direction::Owners),
            Matcher::Has(r) => walk(cx, r, node, b, Direction::Children),
            Matcher::Origin(m) => {
                m.matches(cx, node, b)
                    && !f
                        .producers(node)
                        .iter()
                        .any(|&(p, _)| m.matches(cx, p, &mut Bindings::new()))
            }
        }
    }
}

/// Runs a test that may bind captures on fresh bindings and adds them to `b` only when it holds,
/// so a failed alternative leaves `b` as it was. (No matcher reads bindings, so a test never needs
/// the ones bound before it.)
fn bind_on_match(b: &mut Bindings, test: impl FnOnce(&mut Bindings) -> bool) -> bool {
    let mut trial = Bindings::new();
    if test(&mut trial) {
        b.extend(trial);
        true
    } else {
        false
    }
}

fn opset_ok(f: &Function, range: Option<(u32, u32)>) -> bool {
    match range {
        None => true,
        Some((lo, hi)) => opset_number(&f.opset).is_some_and(|n| n >= lo && n <= hi),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Producers,
    Consumers,
    Owners,
    Children,
}

fn neighbours(f: &Function, node: NodeId, dir: Direction, via: Option<&str>) -> Vec<NodeId> {
    match dir {
        Direction::Producers => f
            .producers(node)
            .into_iter()
            .filter(|(_, e)| via.is_none_or(|v| e.param == v))
            .map(|(n, _)| n)
            .collect(),
        Direction::Consumers => f
            .consumers(node)
            .into_iter()
            .filter(|(_, e)| via.is_none_or(|v| e.param == v))
            .map(|(n, _)| n)
            .collect(),
        Direction::Owners => {
            let block = match f.node(node) {
                Some(Node::Op(op)) => op.block,
                Some(Node::Input(i)) => i.block,
                None => return Vec::new(),
            };
            f.blocks
                .get(block.0 as usize)
                .and_then(|b| b.owner)
                .into_iter()
                .collect()
        }
        Direction::Children => f
            .op(node)
            .map(|op| {
                op.blocks
                    .iter()
                    .filter_map(|b| f.blocks.get(b.0 as usize))
                    .flat_map(|b| b.ops.iter().copied())
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn walk(cx: &Ctx<'_>, r: &Relation, start: NodeId, b: &mut Bindings, dir: Direction) -> bool {
    let first = neighbours(cx.f, start, dir, r.via.as_deref());
    if matches!(r.stop, StopBy::Neighbor) {
        // One step: the neighbours in order (a repeated one fails again), no bookkeeping.
        return first
            .into_iter()
            .any(|n| bind_on_match(b, |trial| r.rule.matches(cx, n, trial)));
    }
    let mut seen: BTreeSet<NodeId> = BTreeSet::new();
    let mut queue: VecDeque<NodeId> = VecDeque::new();
    for n in first {
        if seen.insert(n) {
            queue.push_back(n);
        }
    }
    while let Some(n) = queue.pop_front() {
        if bind_on_match(b, |trial| r.rule.matches(cx, n, trial)) {
            return true;
        }
        let expand = match &r.stop {
            StopBy::Neighbor => false,
            StopBy::End => true,
            StopBy::Rule(stop) => !stop.matches(cx, n, &mut Bindings::new()),
        };
        if expand {
            // `via` restricts the first step only.
            for m in neighbours(cx.f, n, dir, None) {
                if seen.insert(m) {
                    queue.push_back(m);
                }
            }
        }
    }
    false
}

fn implied_shape_matches(
    cx: &Ctx<'_>,
    node: NodeId,
    differs_from: Option<&str>,
    capture: Option<&str>,
    b: &mut Bindings,
) -> bool {
    use crate::analysis::implied_shape;
    let Some(op) = cx.f.op(node) else {
        return false;
    };
    let Some(implied) = implied_shape::implied_output_shape(cx.f, &cx.analysis.consts, op) else {
        return false;
    };
    if let Some(param) = differs_from {
        let stated = cx.analysis.consts.param(op, param).and_then(|c| c.ints());
        if !stated.is_some_and(|s| implied_shape::differs(&implied, &s)) {
            return false;
        }
    }
    if let Some(name) = capture {
        let text = format!(
            "[{}]",
            implied
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let info = ValueInfo {
            name: text,
            ty: None,
            constant: Some(ConstValue::ints1(implied)),
            dep: None,
        };
        b.insert(name.to_string(), Binding::Value(Box::new(info)));
    }
    true
}

fn peers_match(cx: &Ctx<'_>, p: &PeersM, node: NodeId, b: &mut Bindings) -> bool {
    let peers = cx.peers.get(std::ptr::from_ref(p) as usize, || {
        // Only ops of the types the peers' rule object can match are tested.
        let types = p.rule.potential_ops();
        cx.f.ops()
            .filter(|(_, op)| {
                types
                    .as_ref()
                    .is_none_or(|t| t.contains(op.op_type.as_str()))
            })
            .map(|(id, _)| id)
            .filter(|&id| p.rule.matches(cx, id, &mut Bindings::new()))
            .collect()
    });
    let at = peers.iter().position(|&id| id == node);
    if let Some(c) = &p.count {
        if !c.test(peers.len() as i64) {
            return false;
        }
    }
    if let Some(c) = &p.nth {
        if !at.is_some_and(|i| c.test(i as i64 + 1)) {
            return false;
        }
    }
    if let Some(name) = &p.capture {
        b.insert(
            name.clone(),
            Binding::Peers {
                peers: peers.clone(),
                at,
            },
        );
    }
    true
}

fn function_matches(cx: &Ctx<'_>, fm: &FunctionM) -> bool {
    let f = cx.f;
    if let Some(re) = &fm.name {
        if !re.is_match(&f.name) {
            return false;
        }
    }
    if fm.opset.is_some() && !opset_ok(f, fm.opset) {
        return false;
    }
    let states = &cx.analysis.states.states;
    if let Some(c) = &fm.states {
        if !c.test(states.len() as i64) {
            return false;
        }
    }
    if let Some(c) = &fm.max_state_dim {
        let max = states
            .iter()
            .filter_map(|s| s.ty.shape.as_ref())
            .flat_map(|d| d.iter().filter_map(|x| x.known()))
            .max();
        if !max.is_some_and(|m| c.test(m as i64)) {
            return false;
        }
    }
    if let Some(want) = fm.dynamic_inputs {
        let has = f
            .inputs()
            .any(|(_, i)| !i.ty.is_state() && i.ty.tensor().is_some_and(|t| t.is_dynamic()));
        if has != want {
            return false;
        }
    }
    true
}

fn value_info(cx: &Ctx<'_>, r: ValRef<'_>) -> ValueInfo {
    match r {
        ValRef::Named(n, _) => ValueInfo {
            name: n.to_string(),
            ty: cx.f.value_type(n).cloned(),
            constant: cx.analysis.consts.get(n).cloned(),
            dep: cx.analysis.deps.get(n).cloned(),
        },
        ValRef::Lit(l) => {
            let constant = ConstValue::from_literal(l);
            ValueInfo {
                name: constant
                    .as_ref()
                    .map_or_else(|| "literal".to_string(), |c| c.to_string()),
                ty: Some(l.ty.clone()),
                constant,
                dep: None,
            }
        }
    }
}

/// The file-backed literal behind a value: an inline BLOBFILE literal, or the `val` of the
/// `const` op producing a named value.
fn blob_literal<'a>(cx: &Ctx<'a>, r: ValRef<'a>) -> Option<&'a Literal> {
    let lit = match r {
        ValRef::Lit(l) => l,
        ValRef::Named(n, _) => {
            let op = cx.f.op(cx.f.def(n)?.node)?;
            if op.op_type != "const" {
                return None;
            }
            op.attributes.get("val")?
        }
    };
    lit.blob().map(|_| lit)
}

/// The value of a small file-backed constant.
fn blob_constant(cx: &Ctx<'_>, r: ValRef<'_>) -> Option<ConstValue> {
    cx.blobs?.value(blob_literal(cx, r)?)
}

/// A constant as `const:` and `value:` see it: known to the analysis (or an inline literal), or
/// a small file-backed constant, of which only the summary of its numbers is kept (its elements
/// are decoded again only for `equals`).
enum KnownConst<'a> {
    Value(std::borrow::Cow<'a, ConstValue>),
    Blob(&'a Literal, NumberSummary),
}

fn known_const<'a>(cx: &Ctx<'a>, r: ValRef<'a>) -> Option<KnownConst<'a>> {
    let known = match r {
        ValRef::Named(n, _) => cx.analysis.consts.get(n).map(std::borrow::Cow::Borrowed),
        ValRef::Lit(l) => ConstValue::from_literal(l).map(std::borrow::Cow::Owned),
    };
    if let Some(c) = known {
        return Some(KnownConst::Value(c));
    }
    let lit = blob_literal(cx, r)?;
    Some(KnownConst::Blob(lit, cx.blobs?.summary(lit)?))
}

/// The known dimension of `op`'s parameter `of` (its first binding) at the axis that the
/// constant parameter or attribute `axis` holds; a negative axis counts from the end.
fn axis_dim(cx: &Ctx<'_>, op: &crate::ir::Op, of: &str, axis: &str) -> Option<i64> {
    let a = match op.param(axis) {
        Some(_) => cx.analysis.consts.param(op, axis)?.as_int()?,
        None => ConstValue::from_literal(op.attributes.get(axis)?)?.as_int()?,
    };
    let name = match op.param(of)?.args.first()? {
        Arg::Name(n) => n.as_str(),
        Arg::Value(l) => return dim_at(l.ty.tensor()?, a),
    };
    dim_at(cx.f.value_type(name)?.tensor()?, a)
}

/// The known shape of `op`'s parameter `name` (its first binding).
fn param_dims(cx: &Ctx<'_>, op: &crate::ir::Op, name: &str) -> Option<Vec<u64>> {
    let t = match op.param(name)?.args.first()? {
        Arg::Name(n) => cx.f.value_type(n)?.tensor()?,
        Arg::Value(l) => l.ty.tensor()?,
    };
    t.shape.as_ref()?.iter().map(|d| d.known()).collect()
}

/// How many axes outside `except` have `1 < of[i] < over[i]`; `None` unless both shapes are
/// known and of the same rank.
fn blocked_axes(
    cx: &Ctx<'_>,
    op: &crate::ir::Op,
    of: &str,
    over: &str,
    except: &[i64],
) -> Option<i64> {
    let (a, b) = (param_dims(cx, op, of)?, param_dims(cx, op, over)?);
    if a.len() != b.len() {
        return None;
    }
    let rank = a.len() as i64;
    let skipped = |i: usize| {
        except
            .iter()
            .any(|&e| (if e < 0 { rank + e } else { e }) == i as i64)
    };
    let n = (0..a.len())
        .filter(|&i| !skipped(i) && 1 < a[i] && a[i] < b[i])
        .count();
    i64::try_from(n).ok()
}

fn dim_at(t: &crate::ir::TensorType, axis: i64) -> Option<i64> {
    let dims = t.shape.as_ref()?;
    let i = if axis < 0 {
        (dims.len() as i64).checked_add(axis)?
    } else {
        axis
    };
    let d = dims.get(usize::try_from(i).ok()?)?.known()?;
    i64::try_from(d).ok()
}

fn value_matches(cx: &Ctx<'_>, v: &ValueM, r: ValRef<'_>, b: &mut Bindings) -> bool {
    // Everything is borrowed until a capture needs an owned copy: this runs for every value of
    // every op under every rule. The conditions are tested cheapest first (every one but
    // `producer` and `capture` is a pure test): the binding's form, then its type, then the
    // lookups of the analysis, then constant values (which may read a weight file).
    if let Some(want) = v.inline {
        if matches!(r, ValRef::Lit(_)) != want {
            return false;
        }
    }
    if v.tests_type() && !type_matches(v, ty_of(cx, r)) {
        return false;
    }
    if let Some(re) = &v.name {
        let matched = match r {
            ValRef::Named(n, _) => re.is_match(n),
            // An inline literal has no name.
            ValRef::Lit(_) => false,
        };
        if !matched {
            return false;
        }
    }
    if let Some(want) = v.function_output {
        let returned = match r {
            ValRef::Named(n, _) => cx.f.outputs().iter().any(|o| o == n),
            ValRef::Lit(_) => false,
        };
        if returned != want {
            return false;
        }
    }
    if let Some(rt) = v.runtime {
        let dep = match r {
            ValRef::Named(n, _) => cx.analysis.deps.get(n),
            ValRef::Lit(_) => None,
        };
        if !rt.test(dep) {
            return false;
        }
    }
    if let Some(want) = &v.range {
        let r = match r {
            ValRef::Named(n, _) => cx.analysis.ranges(cx.f).get(n),
            ValRef::Lit(l) => crate::analysis::value_range::literal_range(l),
        };
        if !r.is_some_and(|r| want.test(r)) {
            return false;
        }
    }
    if v.constant.is_some() || v.value.is_some() {
        let constant = known_const(cx, r);
        if let Some(want) = v.constant {
            if constant.is_some() != want {
                return false;
            }
        }
        if let Some(pred) = &v.value {
            match &constant {
                Some(c) if value_pred(cx, pred, c) => {}
                _ => return false,
            }
        }
    }
    if let Some(p) = &v.producer {
        let ValRef::Named(n, _) = r else { return false };
        let Some(def) = cx.f.def(n) else { return false };
        if !p.matches(cx, def.node, b) {
            return false;
        }
    }
    if !v.all.iter().all(|m| value_matches(cx, m, r, b)) {
        return false;
    }
    // The compiler refuses captures inside `any:` and `not:`: their branches bind nothing.
    if let Some(any) = &v.any {
        if !any.iter().any(|m| value_matches(cx, m, r, b)) {
            return false;
        }
    }
    if let Some(not) = &v.not {
        if value_matches(cx, not, r, b) {
            return false;
        }
    }
    if let Some(name) = &v.capture {
        let mut info = value_info(cx, r);
        if info.constant.is_none() && (v.constant.is_some() || v.value.is_some()) {
            info.constant = blob_constant(cx, r);
        }
        b.insert(name.clone(), Binding::Value(Box::new(info)));
    }
    true
}

/// The type of a value: the one the caller holds, else the function's declaration of the name.
fn ty_of<'a>(cx: &Ctx<'a>, r: ValRef<'a>) -> Option<&'a ValueType> {
    match r {
        ValRef::Named(n, ty) => ty.or_else(|| cx.f.value_type(n)),
        ValRef::Lit(l) => Some(&l.ty),
    }
}

/// The conditions of `v` on the value's type (dtype, rank, shape, dims, element count, state).
fn type_matches(v: &ValueM, ty: Option<&ValueType>) -> bool {
    let tensor = ty.and_then(ValueType::tensor);
    let other = |n: ValueNum| n.of(ty);
    if let Some(pats) = &v.dtype {
        match tensor {
            Some(t) if pats.iter().any(|p| p.test(t.dtype)) => {}
            _ => return false,
        }
    }
    if let Some(c) = &v.rank {
        if !tensor
            .and_then(|t| t.rank())
            .is_some_and(|r| c.test_with(r as i64, other))
        {
            return false;
        }
    }
    let dims = tensor.and_then(|t| t.shape.as_ref());
    if let Some(pat) = &v.shape {
        let Some(dims) = dims else {
            return false;
        };
        if dims.len() != pat.len()
            || !dims.iter().zip(pat).all(|(d, p)| match p {
                DimPat::Any => true,
                DimPat::Unknown => d.known().is_none(),
                DimPat::Size(n) => d.known() == Some(*n),
            })
        {
            return false;
        }
    }
    if let Some(want) = v.dynamic {
        if tensor.is_none_or(|t| t.is_dynamic()) != want {
            return false;
        }
    }
    if let Some(c) = &v.max_dim {
        let max = dims.and_then(|d| d.iter().filter_map(|x| x.known()).max());
        if !max.is_some_and(|m| c.test_with(m as i64, other)) {
            return false;
        }
    }
    if let Some(c) = &v.last_dim {
        let last = dims.and_then(|d| d.last()).and_then(|d| d.known());
        if !last.is_some_and(|m| c.test_with(m as i64, other)) {
            return false;
        }
    }
    if !v.dims.is_empty() {
        let Some(dims) = dims else {
            return false;
        };
        for (axis, c) in &v.dims {
            let i = if *axis < 0 {
                (dims.len() as i64).checked_add(*axis)
            } else {
                Some(*axis)
            };
            let d = i
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| dims.get(i))
                .and_then(|d| d.known());
            if !d.is_some_and(|d| c.test_with(d as i64, other)) {
                return false;
            }
        }
    }
    if let Some(c) = &v.elements {
        if !tensor
            .and_then(|t| t.element_count())
            .is_some_and(|n| c.test_with(n as i64, other))
        {
            return false;
        }
    }
    if let Some(want) = v.state {
        if ty.is_some_and(ValueType::is_state) != want {
            return false;
        }
    }
    true
}

fn value_pred(cx: &Ctx<'_>, p: &ValuePredM, c: &KnownConst<'_>) -> bool {
    if p.equals_str.is_some()
        || p.equals.is_some()
        || p.contains.is_some()
        || p.unequal_pairs.is_some()
        || p.masked_row.is_some()
    {
        let value = match c {
            KnownConst::Value(v) => Some(std::borrow::Cow::Borrowed(&**v)),
            KnownConst::Blob(lit, _) => cx
                .blobs
                .and_then(|b| b.value(lit))
                .map(std::borrow::Cow::Owned),
        };
        let Some(value) = value else { return false };
        if let Some(want) = &p.equals_str {
            let got: Option<Vec<String>> = match &value.data {
                crate::analysis::ConstData::Strings(v) => Some(v.clone()),
                _ => None,
            };
            if got.as_ref() != Some(want) {
                return false;
            }
        }
        if let Some(want) = &p.equals {
            if value.data.numbers().as_ref() != Some(want) {
                return false;
            }
        }
        if let Some(any_of) = &p.contains {
            let Some(nums) = value.data.numbers() else {
                return false;
            };
            if !nums.iter().any(|n| any_of.contains(n)) {
                return false;
            }
        }
        if let Some(want) = p.unequal_pairs {
            let Some(nums) = value.data.numbers().filter(|n| n.len() % 2 == 0) else {
                return false;
            };
            if nums.chunks(2).any(|pair| pair[0] != pair[1]) != want {
                return false;
            }
        }
        if let Some(want) = p.masked_row {
            if has_masked_row(&value) != Some(want) {
                return false;
            }
        }
    }
    let need_nums = p.min.is_some()
        || p.max.is_some()
        || p.max_abs.is_some()
        || p.integral.is_some()
        || p.nonfinite.is_some();
    if !need_nums {
        return true;
    }
    let summary = match c {
        KnownConst::Value(v) => NumberSummary::of(&v.data),
        KnownConst::Blob(_, s) => Some(*s),
    };
    let Some(s) = summary.filter(|s| s.count > 0) else {
        return false;
    };
    p.nonfinite.is_none_or(|want| s.nonfinite == want)
        && p.integral.is_none_or(|want| s.integral == want)
        && p.min.as_ref().is_none_or(|r| r.test(s.min))
        && p.max.as_ref().is_none_or(|r| r.test(s.max))
        && p.max_abs.as_ref().is_none_or(|r| r.test(s.max_abs))
}

/// Whether some row along the last axis of `value` is `-inf` or NaN in every position; `None`
/// for a scalar or a value that is not numbers.
fn has_masked_row(value: &ConstValue) -> Option<bool> {
    let row = usize::try_from(*value.shape.last()?).ok()?;
    let nums = value.data.numbers()?;
    if row == 0 || nums.is_empty() {
        return Some(false);
    }
    Some(
        nums.chunks(row)
            .any(|r| r.iter().all(|&x| x == f64::NEG_INFINITY || x.is_nan())),
    )
}

fn state_write_matches(cx: &Ctx<'_>, m: &StateWriteM, node: NodeId, b: &mut Bindings) -> bool {
    let sw = &cx.analysis.states;
    let Some((wi, w)) = sw.write_at(node) else {
        return false;
    };
    if !write_passes(cx, m, w, b) {
        return false;
    }
    if let Some(want) = m.first {
        let earlier = sw
            .writes_to(w.state)
            .filter(|o| o.nth < w.nth)
            .any(|o| write_passes(cx, m, o, &mut b.clone()));
        if earlier == want {
            return false;
        }
    }
    if let Some(s) = &m.state {
        b.insert(s.clone(), Binding::State(w.state));
    }
    if let Some(s) = &m.window {
        b.insert(s.clone(), Binding::Write(wi));
    }
    true
}

/// Every key of `m` but `first` and the captures holds for write `w`.
fn write_passes(
    cx: &Ctx<'_>,
    m: &StateWriteM,
    w: &crate::analysis::state_writes::StateWrite,
    b: &mut Bindings,
) -> bool {
    let sw = &cx.analysis.states;
    let window = w.window.as_ref();
    if let Some(want) = m.full {
        if (window.and_then(|w| w.covers_all()) == Some(true)) != want {
            return false;
        }
    }
    if let Some(want) = m.known {
        if window.is_some_and(|w| w.is_known()) != want {
            return false;
        }
    }
    if let Some(kinds) = &m.kind {
        if !kinds.contains(&w.kind) {
            return false;
        }
    }
    if let Some(ops) = &m.write_op {
        if !ops.contains(&w.op_kind) {
            return false;
        }
    }
    if let Some(rt) = m.runtime_begin {
        if !rt.test(w.begin_dep.as_ref()) {
            return false;
        }
    }
    if let Some(rt) = m.runtime_end {
        if !rt.test(w.end_dep.as_ref()) {
            return false;
        }
    }
    if let Some(c) = &m.partial_axes {
        if !window.is_some_and(|w| c.test(w.partial_axes().len() as i64)) {
            return false;
        }
    }
    if let Some(c) = &m.uncovered {
        if !window
            .and_then(|w| w.max_uncovered())
            .is_some_and(|n| c.test(n as i64))
        {
            return false;
        }
    }
    if let Some(want) = m.rmw {
        if w.rmw_ops.is_empty() == want {
            return false;
        }
    }
    if let Some(c) = &m.writes {
        if !c.test(sw.count(w.state) as i64) {
            return false;
        }
    }
    if let Some(c) = &m.nth {
        if !c.test(w.nth as i64) {
            return false;
        }
    }
    if let Some(v) = &m.state_type {
        let Some(st) = sw.state(w.state) else {
            return false;
        };
        if !value_matches(cx, v, ValRef::Named(&st.name, None), b) {
            return false;
        }
    }
    true
}
