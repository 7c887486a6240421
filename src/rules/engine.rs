//! Matches rules against a model (the rule engine; "check" is the whole pipeline in
//! `crate::check`, "lint" one model with its facts in `crate::lint`): node rules over every
//! function (after one analysis per function), `fact:` rules over the model-level facts. Rules with
//! `status: removed` do not run. Findings come back sorted by [`Finding::sort_key`].

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use rayon::prelude::*;

use super::applies::program_of;
use super::bindings::{Binding, Bindings};
use super::context::Ctx;
use super::entity_rule::EntityRule;
use super::guard::{NodeFacts, OpTypeGuard};
use super::loader::{HelpAt, Rule, RuleSet, Target};
use super::matcher::Matcher;
use super::region::regions;
use super::schema::{ProgramLanguage, RegionScope, Status};
use super::target::DeployTarget;
use super::template::TargetApplies;
use super::vars::{GROUP_VAR, REGION_VAR};
use crate::analysis::blob_values::BlobValues;
use crate::analysis::entity::Entity;
use crate::analysis::fix_plan::{plan_model, ModelPlans};
use crate::analysis::registry::ModelEntities;
use crate::analysis::{analyze_model, FunctionAnalysis};
use crate::finding::{Covered, Finding, FixOffer, Label, Severity};
use crate::ir::{Function, Model, Node, NodeId, Span};
use crate::rules::fixes::{plan_entity_fix, plan_op_fix, PAD_STATE};

/// Every finding of `rules` in `model`, with no deployment target. `model_entities` are the
/// model-level entities entity rules select.
pub fn match_model(model: &Model, rules: &RuleSet, model_entities: &ModelEntities) -> Vec<Finding> {
    match_model_for(model, rules, model_entities, None)
}

/// Every finding of `rules` in `model` for a deployment target (`None`: every family, any OS).
pub fn match_model_for(
    model: &Model,
    rules: &RuleSet,
    model_entities: &ModelEntities,
    target: Option<&DeployTarget>,
) -> Vec<Finding> {
    match_model_with(model, rules, model_entities, target, None)
}

/// The rules that run on nodes (not entity rules, not removed ones).
fn node_rules(rules: &RuleSet) -> impl Iterator<Item = &Rule> {
    rules
        .rules()
        .iter()
        .map(std::sync::Arc::as_ref)
        .filter(|r| r.status != Status::Removed && matches!(r.target, Target::Nodes(_)))
}

/// The node rules that run on `model` for `target`: those that apply to its kind of program
/// and to the target.
fn applicable_node_rules<'r>(
    model: &Model,
    rules: &'r RuleSet,
    target: Option<&DeployTarget>,
) -> Vec<&'r Rule> {
    let program = program_of(model);
    let target = DeployTarget::for_program(target, program);
    node_rules(rules)
        .filter(|r| r.applies(target.as_deref(), program))
        .collect()
}

/// True when matching `rules` on `model` for `target` needs the analysis of every function
/// ([`analyze_model`]): some node rule applies to it.
pub fn needs_function_analysis(
    model: &Model,
    rules: &RuleSet,
    target: Option<&DeployTarget>,
) -> bool {
    !applicable_node_rules(model, rules, target).is_empty()
}

/// [`match_model_for`] with the analysis of every function of `model` (in order), when it was
/// computed already; otherwise it is computed here if a rule needs it.
pub fn match_model_with(
    model: &Model,
    rules: &RuleSet,
    model_entities: &ModelEntities,
    target: Option<&DeployTarget>,
    analyses: Option<&[FunctionAnalysis]>,
) -> Vec<Finding> {
    let node_rules = applicable_node_rules(model, rules, target);
    let program = program_of(model);
    let target = DeployTarget::for_program(target, program);
    let target = target.as_deref();
    let mut out = Vec::new();
    if !node_rules.is_empty() {
        // Functions are analysed in parallel; the state fix plans need every function's analysis;
        // then functions are matched in parallel, each with its own reader of weight values.
        let computed;
        let facts = match analyses {
            Some(a) => a,
            None => {
                computed = analyze_model(model);
                computed.as_slice()
            }
        };
        let plans = plan_model(model, facts);
        let per_function: Vec<Vec<Finding>> = model
            .program
            .functions
            .par_iter()
            .zip(facts.par_iter())
            .map(|(f, facts)| {
                match_function_with(
                    model,
                    f,
                    facts,
                    &node_rules,
                    &BlobValues::new(model),
                    Some(&plans),
                    target,
                )
            })
            .collect();
        out.extend(per_function.into_iter().flatten());
    }
    // Each entity rule is tested only on the entities of its kind.
    let mut by_kind: FxHashMap<&str, Vec<&Entity>> = FxHashMap::default();
    for e in &model_entities.entities {
        by_kind.entry(e.kind).or_default().push(e);
    }
    for rule in rules.rules().iter().filter(|r| r.status != Status::Removed) {
        if let Target::Entity(er, on_target) = &rule.target {
            if !rule.applies(target, program) {
                continue;
            }
            let of_kind = by_kind.get(er.kind.name).map_or(&[][..], Vec::as_slice);
            for e in of_kind.iter().copied().filter(|e| er.test.matches(e)) {
                let applies = match on_target {
                    None => None,
                    Some(t) => match t.holds(target, e.requires_os) {
                        Some(families) => Some(families),
                        None => continue,
                    },
                };
                let on = applies.as_ref().map(|families| (families, target));
                out.push(entity_finding(model, rule, er, e, on, target));
            }
        }
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}

/// Findings of node rules in one function whose facts were computed already.
pub fn match_function(
    model: &Model,
    f: &Function,
    facts: &FunctionAnalysis,
    rules: &[&Rule],
) -> Vec<Finding> {
    match_function_with(model, f, facts, rules, &BlobValues::new(model), None, None)
}

fn match_function_with(
    model: &Model,
    f: &Function,
    facts: &FunctionAnalysis,
    rules: &[&Rule],
    blobs: &BlobValues<'_>,
    plans: Option<&ModelPlans>,
    target: Option<&DeployTarget>,
) -> Vec<Finding> {
    let cx = Ctx {
        f,
        analysis: facts,
        model: Some(model),
        blobs: Some(blobs),
        plans,
        target,
        peers: Default::default(),
    };
    let index = RuleIndex::new(rules, &cx);
    let mut out = Vec::new();
    // `origin:` rules report per region once every node has been tested: the nodes having the
    // property, in node order, with their captures.
    let mut origin_matches: Vec<Vec<(NodeId, Bindings)>> = vec![Vec::new(); rules.len()];
    // `group-by:` rules report per cause once every node has been tested, likewise.
    let mut grouped_matches: Vec<Vec<(NodeId, Bindings)>> = vec![Vec::new(); rules.len()];
    // One pass over the nodes, each tested only by the rules that can match it, with the rule's
    // matcher for its kind of node; a rule sees its nodes in the same order as before (inputs,
    // then ops in program order).
    let mut test = |i: usize, id: NodeId, is_input: bool| {
        let rule = rules[i];
        let Some(m) = &rule.node_matchers else {
            return;
        };
        let m = if is_input { &m.inputs } else { &m.ops };
        let mut b = Bindings::new();
        match m {
            Matcher::Origin(property) => {
                if property.matches(&cx, id, &mut b) {
                    origin_matches[i].push((id, b));
                }
            }
            m => {
                if m.matches(&cx, id, &mut b) {
                    if rule.group_by.is_some() {
                        grouped_matches[i].push((id, b));
                    } else {
                        out.push(node_finding(model, rule, &cx, id, &b));
                    }
                }
            }
        }
    };
    for (id, _) in f.inputs() {
        // Read once per node, when a rule's guard asks.
        let mut facts = None;
        for &i in &index.for_inputs {
            if let Some(guard) = rules[i].node_guards.as_ref().and_then(|g| g.on(true)) {
                let Some(node) = f.node(id) else { continue };
                if !guard.admits(facts.get_or_insert_with(|| NodeFacts::of(f, node))) {
                    continue;
                }
            }
            test(i, id, true);
        }
    }
    // The rules each op type's ops are tested by, with their guards on that type: made at the
    // first op of the type.
    let mut for_op_type: FxHashMap<&str, Vec<Candidate<'_>>> = FxHashMap::default();
    for (id, op) in f.ops() {
        let candidates = for_op_type
            .entry(op.op_type.as_str())
            .or_insert_with(|| index.candidates(rules, &op.op_type));
        let mut facts = None;
        for c in candidates.iter() {
            if let Some(guard) = &c.guard {
                let Some(node) = f.node(id) else { continue };
                if !guard.admits(facts.get_or_insert_with(|| NodeFacts::of(f, node))) {
                    continue;
                }
            }
            test(c.rule, id, false);
        }
    }
    for (rule, matched) in rules.iter().zip(origin_matches) {
        if !matched.is_empty() {
            report_regions(model, rule, &cx, matched, &mut out);
        }
    }
    for (rule, matched) in rules.iter().zip(grouped_matches) {
        if let (Some(var), false) = (&rule.group_by, matched.is_empty()) {
            report_groups(model, rule, &cx, var, matched, &mut out);
        }
    }
    out
}

/// What makes two matches of a `group-by:` rule one cause: the same named value, op or state bound
/// to the capture. Anything else (an inline literal) is its own cause.
#[derive(Clone, PartialEq, Eq, Hash)]
enum GroupKey {
    Value(String),
    Node(NodeId),
    State(usize),
    Alone(NodeId),
}

fn group_key(f: &Function, id: NodeId, b: Option<&Binding>) -> GroupKey {
    match b {
        Some(Binding::Value(v)) if f.def(&v.name).is_some() => GroupKey::Value(v.name.clone()),
        Some(Binding::Node(n)) => GroupKey::Node(*n),
        Some(Binding::State(s)) => GroupKey::State(*s),
        _ => GroupKey::Alone(id),
    }
}

/// `group-by:` rules: one finding per cause, at its first match (program order), standing for the
/// others (`{GROUP}`, labels, `covered`). Its severity is the highest any match gets.
fn report_groups(
    model: &Model,
    rule: &Rule,
    cx: &Ctx<'_>,
    var: &str,
    matched: Vec<(NodeId, Bindings)>,
    out: &mut Vec<Finding>,
) {
    let mut order: Vec<GroupKey> = Vec::new();
    let mut groups: FxHashMap<GroupKey, Vec<(NodeId, Bindings)>> = FxHashMap::default();
    for (id, b) in matched {
        let key = group_key(cx.f, id, b.get(var));
        let members = groups.entry(key.clone()).or_default();
        if members.is_empty() {
            order.push(key);
        }
        members.push((id, b));
    }
    for key in order {
        let Some(mut members) = groups.remove(&key) else {
            continue;
        };
        let (first, mut b) = members.remove(0);
        let others: Vec<NodeId> = members.iter().map(|(id, _)| *id).collect();
        let severity = others
            .iter()
            .map(|&n| severity_at(rule, cx, n))
            .fold(severity_at(rule, cx, first), Severity::max);
        let names: Vec<String> = others
            .iter()
            .filter_map(|&n| super::region::node_name(cx.f, n))
            .collect();
        let what = match b.get(var) {
            Some(Binding::Value(v)) => format!("the same `{}` here", v.name),
            _ => "the same cause here".to_string(),
        };
        b.insert(GROUP_VAR.to_string(), Binding::Group(others.clone()));
        let mut finding = node_finding(model, rule, cx, first, &b);
        finding.severity = severity;
        for &n in others.iter().take(REGION_LABELS) {
            if let Some(span) = node_span(cx.f, n).filter(|s| s.len > 0) {
                finding.labels.push(Label {
                    span,
                    text: what.clone(),
                });
            }
        }
        finding.labels.sort_by_key(|l| l.span.start);
        if !names.is_empty() {
            finding.covered = Some(Covered { names });
        }
        out.push(finding);
    }
}

/// Which node rules can match which nodes (by [`Rule::potential`] and [`Rule::inputs_only`]), so
/// that each node is tested only by the rules that can match it. Indices into the rule slice.
struct RuleIndex<'r> {
    /// Rules tested on function inputs: those not limited to op types.
    for_inputs: Vec<usize>,
    /// Rules tested on every op.
    for_any_op: Vec<usize>,
    /// Rules limited to op types, by op type.
    by_op_type: FxHashMap<&'r str, Vec<usize>>,
}

impl<'r> RuleIndex<'r> {
    /// The index of `rules` for the function of `cx`: a rule whose conditions on the model, the
    /// function or the target do not hold there tests none of its nodes.
    fn new(rules: &[&'r Rule], cx: &Ctx<'_>) -> RuleIndex<'r> {
        let mut index = RuleIndex {
            for_inputs: Vec::new(),
            for_any_op: Vec::new(),
            by_op_type: FxHashMap::default(),
        };
        for (i, rule) in rules.iter().enumerate() {
            let Some(m) = &rule.node_matchers else {
                continue;
            };
            if !m.ops.holds_for_function(cx) {
                continue;
            }
            match &rule.potential {
                None => {
                    index.for_inputs.push(i);
                    if !rule.inputs_only {
                        index.for_any_op.push(i);
                    }
                }
                Some(types) if !rule.inputs_only => {
                    for ty in types {
                        index.by_op_type.entry(ty.as_str()).or_default().push(i);
                    }
                }
                Some(_) => {}
            }
        }
        index
    }

    /// The rules that test ops of type `ty` (those that can match any op, then those limited
    /// to op types), each with its guard on that type; a rule whose guard admits no op of the
    /// type is left out.
    fn candidates(&self, rules: &[&'r Rule], ty: &str) -> Vec<Candidate<'r>> {
        let typed = self.by_op_type.get(ty).map_or(&[][..], Vec::as_slice);
        self.for_any_op
            .iter()
            .chain(typed)
            .filter_map(|&rule| {
                let guard = rules[rule]
                    .node_guards
                    .as_ref()
                    .and_then(|g| g.on(false))
                    .map(|g| g.on_op_type(ty));
                match guard {
                    Some(OpTypeGuard::None) => None,
                    Some(OpTypeGuard::All) | None => Some(Candidate { rule, guard: None }),
                    guard => Some(Candidate { rule, guard }),
                }
            })
            .collect()
    }
}

/// A rule an op is tested by, with its guard on the op's type (`None`: nothing to test).
struct Candidate<'r> {
    rule: usize,
    guard: Option<OpTypeGuard<'r>>,
}

/// `origin:` rules: one finding per connected region of nodes having the property, at its origin,
/// standing for the whole region. Its severity is the highest any member gets.
fn report_regions(
    model: &Model,
    rule: &Rule,
    cx: &Ctx<'_>,
    matched: Vec<(NodeId, Bindings)>,
    out: &mut Vec<Finding>,
) {
    let ids: Vec<NodeId> = matched.iter().map(|(id, _)| *id).collect();
    let mut bindings: FxHashMap<NodeId, Bindings> = matched.into_iter().collect();
    let found = match rule.region_scope {
        RegionScope::Connected => regions(cx.f, &ids),
        RegionScope::Construct => super::region::by_construct(cx.f, regions(cx.f, &ids)),
        RegionScope::Function => super::region::merged(regions(cx.f, &ids)),
    };
    for region in found {
        let mut b = bindings.remove(&region.origin).unwrap_or_default();
        let severity = region
            .members
            .iter()
            .map(|n| severity_at(rule, cx, *n))
            .fold(severity_at(rule, cx, region.origin), Severity::max);
        let names = region.member_names(cx.f);
        let mut extra: Vec<Label> = Vec::new();
        let mut label = |n: NodeId, text: &str| {
            if let Some(span) = node_span(cx.f, n).filter(|s| s.len > 0) {
                extra.push(Label {
                    span,
                    text: text.to_string(),
                });
            }
        };
        for &n in region.repeats.iter().take(REGION_LABELS) {
            label(n, "the same construct starts here");
        }
        for &n in region
            .other_origins
            .iter()
            .filter(|n| !region.repeats.contains(n))
            .take(REGION_LABELS)
        {
            label(n, "the region also starts here");
        }
        for &n in region.exits.iter().take(REGION_LABELS) {
            label(n, "the region ends here");
        }
        let origin = region.origin;
        b.insert(REGION_VAR.to_string(), Binding::Region(Box::new(region)));
        let mut finding = node_finding(model, rule, cx, origin, &b);
        finding.severity = severity;
        finding.labels.extend(extra);
        finding.labels.sort_by_key(|l| l.span.start);
        finding.covered = Some(Covered { names });
        out.push(finding);
    }
}

/// How many other origins and exits of a region get a label.
const REGION_LABELS: usize = 5;

/// The severity of a finding at `id`: the first `severity-when` entry that matches, else the rule's.
fn severity_at(rule: &Rule, cx: &Ctx<'_>, id: NodeId) -> Severity {
    rule.severity_when
        .iter()
        .find(|(_, applies, m)| {
            applies.as_ref().is_none_or(|a| {
                a.holds_for(cx.target, cx.model.map_or(ProgramLanguage::Mil, program_of))
            }) && m
                .as_ref()
                .is_none_or(|m| m.matches(cx, id, &mut Bindings::new()))
        })
        .map_or(rule.severity, |(s, ..)| *s)
}

fn node_span(f: &Function, id: NodeId) -> Option<Span> {
    match f.node(id)? {
        Node::Op(op) => Some(op.span),
        Node::Input(i) => Some(i.span),
    }
}

fn node_finding(model: &Model, rule: &Rule, cx: &Ctx<'_>, id: NodeId, b: &Bindings) -> Finding {
    let f = cx.f;
    let sw = &cx.analysis.states;
    let (op, order) = match f.node(id) {
        Some(Node::Op(op)) => (Some(op.display_name().to_string()), Some(op.order)),
        _ => (None, None),
    };
    // The finding's state: a bound write's state, else a bound state, else the write at the node,
    // else the input itself when it is a state.
    let write = b.values().find_map(|x| match x {
        Binding::Write(i) => sw.writes.get(*i),
        _ => None,
    });
    let state_index = write.map(|w| w.state).or_else(|| {
        b.values()
            .find_map(|x| match x {
                Binding::State(i) => Some(*i),
                _ => None,
            })
            .or_else(|| sw.write_at(id).map(|(_, w)| w.state))
    });
    let state = state_index
        .and_then(|i| sw.state(i))
        .map(|s| s.name.clone())
        .or_else(|| match f.node(id) {
            Some(Node::Input(i)) if i.ty.is_state() => Some(i.name.to_string()),
            _ => None,
        });
    let primary = node_span(f, id);
    let mut labels = Vec::new();
    let mut seen: BTreeSet<(usize, usize)> = BTreeSet::new();
    if let Some(p) = primary {
        seen.insert((p.start, p.len));
    }
    let mut label = |node: Option<NodeId>, text: String| {
        if let Some(span) = node.and_then(|n| node_span(f, n)) {
            if span.len > 0 && seen.insert((span.start, span.len)) {
                labels.push(Label { span, text });
            }
        }
    };
    let write = write.or_else(|| sw.write_at(id).map(|(_, w)| w));
    if let Some(w) = write {
        let sname = sw.state(w.state).map_or("?", |s| s.name.as_str());
        label(w.read_op, format!("reads state `{sname}`"));
        match (w.wrappers(), w.inner()) {
            ([], _) | (_, None) => {
                if let Some(win) = &w.window {
                    label(w.slice_update, format!("window {win}"));
                }
            }
            (wrappers, Some(inner)) => {
                for l in wrappers {
                    label(
                        Some(l.slice_update),
                        "full-window wrapper: passes its update on unchanged".to_string(),
                    );
                }
                if let Some(win) = &inner.window {
                    label(Some(inner.slice_update), format!("inner window {win}"));
                }
            }
        }
        for &t in &w.through {
            label(Some(t), "passes the new content on".to_string());
        }
        for &r in &w.rmw_ops {
            label(Some(r), "rewrites the old content element-wise".to_string());
        }
        label(Some(w.write_op), format!("writes state `{sname}`"));
        for other in sw.writes_to(w.state) {
            label(Some(other.write_op), format!("also writes `{sname}`"));
        }
    }
    labels.sort_by_key(|l| l.span.start);
    let severity = severity_at(rule, cx, id);
    let fix = rule
        .fix
        .as_ref()
        .filter(|fx| {
            fx.when
                .as_ref()
                .is_none_or(|w| w.matches(cx, id, &mut Bindings::new()))
        })
        .and_then(|fx| {
            // A state fix is offered only when the plan exists, with the plan's applicability.
            let plan = match fx.kind.as_str() {
                PAD_STATE => Some(
                    cx.plans
                        .zip(state.as_deref())
                        .and_then(|(p, s)| p.offer(s))?
                        .clone(),
                ),
                // An op fix is offered only when it can be planned on the matched op.
                kind => planned(plan_op_fix(kind, model, f, cx.analysis, id))?,
            };
            Some(offer(fx, fx.title.render(cx, id, b), plan))
        });
    Finding {
        rule: rule.id.clone(),
        severity,
        path: model.path.clone(),
        sub_model: model.sub_model.clone(),
        function: Some(f.name.clone()),
        op,
        state,
        message: rule
            .message_for(|at| match at {
                HelpAt::Node(m) => m.matches(cx, id, &mut b.clone()),
                HelpAt::Entity(_) => false,
            })
            .render(cx, id, b),
        help: rule
            .help_for(cx.target, program_of(model), |at| match at {
                HelpAt::Node(m) => m.matches(cx, id, &mut b.clone()),
                HelpAt::Entity(_) => false,
            })
            .map(|h| h.render(cx, id, b)),
        fix,
        span: primary,
        labels,
        order,
        covered: None,
        file: None,
    }
}

/// The plan of a fix primitive that plans (`Some`), `Some(None)` for one that does not: `None`
/// when the plan failed or changes nothing, and the fix is then not offered.
fn planned(
    plan: Option<Result<crate::analysis::fix_plan::PadPlan, String>>,
) -> Option<Option<std::sync::Arc<crate::analysis::fix_plan::PadPlan>>> {
    match plan {
        Some(p) => Some(Some(std::sync::Arc::new(p.ok().filter(|p| !p.is_noop())?))),
        None => Some(None),
    }
}

/// The offer of `fx` titled `title`, with the plan's applicability when it has a plan.
fn offer(
    fx: &crate::rules::RuleFix,
    title: String,
    plan: Option<std::sync::Arc<crate::analysis::fix_plan::PadPlan>>,
) -> FixOffer {
    FixOffer {
        kind: fx.kind.clone(),
        title,
        applicability: plan.as_ref().map_or(fx.applicability, |p| p.applicability),
        plan,
    }
}

fn entity_finding(
    model: &Model,
    rule: &Rule,
    er: &EntityRule,
    e: &Entity,
    on: Option<TargetApplies<'_>>,
    run: Option<&DeployTarget>,
) -> Finding {
    // An entity rule's `severity-when` entries are `applies-to:` only (checked at load).
    let severity = rule
        .severity_when
        .iter()
        .find(|(_, applies, m)| {
            m.is_none()
                && applies
                    .as_ref()
                    .is_some_and(|a| a.holds_for(run, program_of(model)))
        })
        .map_or(rule.severity, |(s, ..)| *s);
    Finding {
        rule: rule.id.clone(),
        severity,
        path: model.path.clone(),
        sub_model: model.sub_model.clone(),
        function: e.function.clone(),
        op: e.op.clone(),
        state: e.state.clone(),
        message: rule
            .message_for(|at| match at {
                HelpAt::Entity(t) => t.matches(e),
                HelpAt::Node(_) => false,
            })
            .render_entity(er, e, on),
        help: rule
            .help_for(run, program_of(model), |at| match at {
                HelpAt::Entity(t) => t.matches(e),
                HelpAt::Node(_) => false,
            })
            .map(|h| h.render_entity(er, e, on)),
        // An entity fix is offered only when it can be planned on the model.
        fix: rule.fix.as_ref().and_then(|fx| {
            let plan = planned(plan_entity_fix(&fx.kind, model))?;
            Some(offer(fx, fx.title.render_entity(er, e, on), plan))
        }),
        span: e.span,
        labels: Vec::new(),
        order: e.op_order,
        covered: None,
        file: e.file.clone(),
    }
}
